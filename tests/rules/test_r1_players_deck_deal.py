"""docs/rules.md §1 — players, deck, deal (plus docs/api.md's seats / first player / dealer points)."""

import collections

import numpy as np
import pytest

import rummy_env

from .helpers import P, all_cards, deck_for, fresh, start


@pytest.mark.parametrize(
    "players,ndecks,hand", [(2, 1, 13), (3, 1, 7), (4, 1, 7), (5, 2, 7), (6, 2, 7), (7, 2, 7), (8, 2, 7)]
)
def test_auto_deck_and_deal_sizes(players, ndecks, hand):
    """§1: "With 1–4 players one 54-card deck (52 + 2 jokers); with 5–8 players two decks
    shuffled together (108 cards)." "13 cards each with 2 players, 7 cards each with 3 or
    more. The rest is the face-down stock; its top card is turned face up to start the
    discard pile." """
    g = fresh(players=players, seed=3)
    sd = g.sd()
    assert [len(h) for h in sd["hands"]] == [hand] * players
    assert len(sd["discard"]) == 1
    assert len(sd["stock"]) == 54 * ndecks - players * hand - 1
    assert all_cards(sd) == collections.Counter(deck_for(players, ndecks, 2))
    assert sd["melds"] == []


@pytest.mark.parametrize(
    "players,decks,jokers,total",
    [
        (3, 2, 2, 108),
        (2, 2, 2, 108),
        (5, 1, 2, 54),
        (4, 1, 0, 52),
        (2, 1, 1, 53),
        (6, 2, 1, 106),
        (3, 2, 0, 104),
        (7, None, 0, 104),
    ],
)
def test_forced_decks_and_jokers(players, decks, jokers, total):
    """§1: "`decks` may be forced to 1 or 2"; docs/api.md: `jokers_per_deck` (0..2)."""
    kw = {"players": players, "jokers_per_deck": jokers}
    if decks is not None:
        kw["decks"] = decks
    g = fresh(seed=1, **kw)
    sd = g.sd()
    cards = all_cards(sd)
    assert sum(cards.values()) == total
    assert cards == collections.Counter(deck_for(players, decks, jokers))
    assert cards["JK"] == jokers * (decks or (1 if players <= 4 else 2))


@pytest.mark.parametrize("players,hand_size", [(2, 7), (3, 10), (5, 13)])
def test_hand_size_override(players, hand_size):
    """docs/api.md `hand_size` (None = auto): a forced hand size is what is dealt."""
    sd = fresh(seed=2, players=players, hand_size=hand_size).sd()
    assert [len(h) for h in sd["hands"]] == [hand_size] * players
    assert len(sd["discard"]) == 1


@pytest.mark.parametrize("players", [0, 1, 9])
def test_player_count_out_of_range(players):
    """§1: "2 to 8 players." — docs/api.md: invalid values raise ValueError naming the field."""
    with pytest.raises(ValueError) as ei:
        e = rummy_env.raw_env(players=players)
        e.reset(seed=0)
    assert "players" in str(ei.value).lower()


@pytest.mark.parametrize(
    "kw", [dict(players=8, decks=1), dict(players=4, decks=1, hand_size=14), dict(players=2, decks=1, hand_size=27)]
)
def test_deal_that_does_not_fit_the_deck_is_refused(kw):
    """§1 + docs/api.md: an invalid combination raises ValueError saying which field and why —
    8×7 cards + the up card cannot come out of one 54-card deck."""
    with pytest.raises(ValueError):
        e = rummy_env.raw_env(**kw)
        e.reset(seed=0)


@pytest.mark.parametrize("players", range(2, 9))
def test_fresh_reset_last_seat_deals_player_0_first(players):
    """§1 "The player left of the dealer plays first"; docs/api.md "A fresh reset() makes the last seat
    the dealer, so player_0 plays first."."""
    g = fresh(players=players, seed=5)
    sd = g.sd()
    assert sd["dealer"] == players - 1
    assert sd["current_player"] == 0
    assert g.agent == "player_0"
    assert sd["phase"] == "draw"


@pytest.mark.parametrize("players", [3, 5])
def test_play_goes_clockwise(players):
    """§1 "play goes clockwise"; docs/api.md "player_{i+1} sits to the left of player_i (mod n):
    clockwise is increasing index"."""
    g = fresh(players=players, seed=7, rummy_calls="off")
    for turn in range(2 * players + 1):
        assert g.agent == P(turn % players)
        g.play("draw")
        discards = sorted(a for a in g.legal() if a.startswith("discard "))
        g.play(discards[0])
    assert g.sd()["phase"] == "draw"


def test_discard_pile_order_is_public():
    """§1: "The discard pile is spread so every card in it, and its order, is public." —
    two positions differing only in the pile's order look different to every seat, and
    state_dict lists the pile bottom first."""
    base = dict(hands=[["2S", "4C", "5D"], ["9S", "QS"]], stock_top=["8D"])
    a = start(discard=["KC", "2D"], **base)
    b = start(discard=["2D", "KC"], **base)
    assert a.sd()["discard"] == ["KC", "2D"]
    assert b.sd()["discard"] == ["2D", "KC"]
    for who in ("player_0", "player_1"):
        oa = a.env.observe(who)["observation"]
        ob = b.env.observe(who)["observation"]
        assert not np.array_equal(oa, ob), f"{who} cannot see the pile order"


def _go_out_quickly(players, goer, dealer):
    hands = [["2D"], ["3D"], ["4D"], ["5D"]][:players]
    hands[goer] = ["5H", "6H", "7H"]
    g = start(hands=hands, discard=["KC"], stock_top=["2C"], current_player=goer, dealer=dealer, rummy_calls="off")
    g.play("draw", "meld 5H 6H 7H", "discard 2C")
    return g


@pytest.mark.parametrize("players,dealer", [(2, 1), (3, 0), (4, 3)])
def test_deal_passes_left_after_each_hand(players, dealer):
    """§1: "The deal passes to the left after each hand." and "The player left of the dealer
    plays first" — with episode="game" the next hand is dealt at once."""
    goer = (dealer + 1) % players
    g = _go_out_quickly(players, goer, dealer)
    sd = g.sd()
    new_dealer = (dealer + 1) % players
    assert sd["dealer"] == new_dealer
    assert sd["current_player"] == (new_dealer + 1) % players
    assert g.agent == P((new_dealer + 1) % players)
    assert sd["phase"] == "draw"
    hand = 13 if players == 2 else 7
    assert [len(h) for h in sd["hands"]] == [hand] * players
    assert len(sd["discard"]) == 1 and sd["melds"] == []
    assert all_cards(sd) == collections.Counter(deck_for(players))
