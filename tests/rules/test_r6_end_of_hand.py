"""docs/rules.md §6 — end of a hand: going out (and its variants) and stock exhaustion."""

import pytest

from .helpers import start

H = dict(episode="hand", rummy_calls="off")


# ----------------------------------------------------------------------------- going out
def test_going_out_by_melding_every_card():
    """§6.1: "a player has no cards left — they melded them all" — the hand ends at once."""
    g = start(hands=[["5H", "6H"], ["2C", "9D"]], discard=["KC"], stock_top=["7H"], **H)
    g.play("draw", "meld 5H 6H 7H")
    sd = g.sd()
    assert sd["phase"] == "game_over" and g.done()
    assert sd["hand_scores"] == [18, -11]
    assert not any(sd["floating"])


def test_going_out_by_discarding_the_last_card():
    """§6.1: "…or melded all but one and discarded it (going out)"."""
    g = start(hands=[["5H", "6H", "7H"], ["3C", "9D"]], discard=["KC"], stock_top=["2C"], **H)
    g.play("draw", "meld 5H 6H 7H")
    assert g.sd()["phase"] == "play"
    g.play("discard 2C")
    sd = g.sd()
    assert sd["phase"] == "game_over" and g.done()
    assert sd["hand_scores"] == [18, -12]


def test_discard_required_keeps_a_card_to_discard():
    """§6 `"discard_required"`: "you must keep a card to discard; you may not meld your last
    card"."""
    g = start(
        hands=[["5H", "6H", "7H"], ["2C", "9D"]], discard=["KC"], stock_top=["8H"], going_out="discard_required", **H
    )
    g.play("draw", "meld 5H 6H 7H")
    g.refuse("layoff 8H run")
    g.play("discard 8H")
    assert g.sd()["phase"] == "game_over"
    assert g.sd()["hand_scores"] == [18, -11]


@pytest.mark.parametrize("going_out", ["any", "discard_required"])
def test_melding_the_whole_hand_after_top_take(going_out):
    """§6 "any": melding all cards goes out; "discard_required": "you may not meld your last card"
    (5♥6♥ + 7♥ taken from the top: melding would leave nothing to discard)."""
    g = start(hands=[["5H", "6H"], ["2C", "9D"]], discard=["KC", "7H"], going_out=going_out, **H)
    g.play("take 0")
    if going_out == "any":
        g.play("meld 5H 6H 7H")
        assert g.sd()["phase"] == "game_over"
    else:
        g.exact({"discard 5H", "discard 6H"})
        g.refuse("meld 5H 6H 7H")


# ----------------------------------------------------------------------------- floating
def _float(second_draw, going_out="float", p1=("2C", "9D", "QS"), **rules):
    g = start(
        hands=[["5H", "6H", "7H"], list(p1)],
        discard=["KC"],
        stock_top=["8H", "JD", second_draw],
        going_out=going_out,
        **{**H, **rules},
    )
    g.play("p0:draw", "p0:meld 5H 6H 7H")
    return g


def test_float_melding_all_cards_does_not_end_the_hand():
    """§6 `"float"`: "you may meld all your cards; play does not end, you float"."""
    g = _float("3C")
    g.exact({"layoff 8H run", "discard 8H"})
    g.play("p0:layoff 8H run")
    sd = g.sd()
    assert sd["phase"] == "draw" and g.agent == "player_1"
    assert sd["hands"][0] == [] and list(map(bool, sd["floating"])) == [True, False]
    assert not g.done()


def test_float_next_turn_discarding_the_last_card_ends_the_hand():
    """§6 float: "On your next turn … you draw; you then either discard your last card (hand
    ends)…"."""
    g = _float("3C")
    g.play("p0:layoff 8H run", "p1:draw", "p1:discard JD", "p0:draw")
    g.exact({"discard 3C"})
    g.play("p0:discard 3C")
    sd = g.sd()
    assert sd["phase"] == "game_over"
    assert sd["hand_scores"] == [26, -(2 + 9 + 10)]


def test_the_discard_that_goes_out_ends_the_float():
    """SPEC ``floating``: any discard clears it, the one that goes out too, so the floater who went out is not
    floating in the add_to_winner lay-offs that follow."""
    g = _float("3C", p1=("2C", "4H", "QS"), hand_scoring="add_to_winner")
    g.play("p0:layoff 8H run", "p1:draw", "p1:discard JD", "p0:draw")
    assert list(map(bool, g.sd()["floating"])) == [True, False]
    g.play("p0:discard 3C")
    sd = g.sd()
    assert sd["phase"] == "lay_off_after_out" and g.agent == "player_1" and "layoff 4H run" in g.legal()
    assert list(map(bool, sd["floating"])) == [False, False]


def test_float_next_turn_meld_all_and_float_again():
    """§6 float: "…or meld all the cards you have and float again"."""
    g = _float("9H")
    g.play("p0:layoff 8H run", "p1:draw", "p1:discard JD", "p0:draw")
    g.exact({"discard 9H", "layoff 9H run"})
    g.play("p0:layoff 9H run")
    sd = g.sd()
    assert sd["phase"] == "draw" and g.agent == "player_1" and bool(sd["floating"][0])


def test_floating_player_cannot_take_an_unmeldable_top_card():
    """docs/api.md: The mask never leaves an agent with no legal action — a floating player with no cards
    who took J♦ alone could neither discard it (§4.3) nor meld it."""
    g = _float("3C")
    g.play("p0:layoff 8H run", "p1:draw", "p1:discard JD")
    assert g.agent == "player_0"
    g.exact({"draw"})


def test_someone_else_going_out_ends_the_float():
    """§6 float: "(if nobody went out meanwhile)" — the floating player scores what they melded."""
    g = _float("KD", p1=("2C", "3C", "4C"))
    g.play("p0:layoff 8H run", "p1:draw", "p1:meld 2C 3C 4C", "p1:discard JD")
    sd = g.sd()
    assert sd["phase"] == "game_over"
    assert sd["hand_scores"] == [26, 9]


@pytest.mark.parametrize("going_out", ["float", "float_unplayable_discard"])
def test_float_unplayable_discard_playable_last_card_must_be_melded(going_out):
    """§6 `"float_unplayable_discard"`: "the card that takes you out must be unplayable (it fits no
    meld on the table); a playable last card must be melded and you float instead."."""
    g = _float("9H", going_out=going_out)
    if going_out == "float":
        g.exact({"layoff 8H run", "discard 8H"})
        return
    g.exact({"layoff 8H run"})
    g.refuse("discard 8H")
    g.play("p0:layoff 8H run", "p1:draw", "p1:discard JD", "p0:draw")
    g.exact({"layoff 9H run"})


def test_float_unplayable_discard_unplayable_last_card_goes_out():
    """§6 float_unplayable_discard: an unplayable last card may be discarded to go out; docs/api.md
    "Unplayable … means it fits no meld on the table as it stands"."""
    g = start(
        hands=[["5H", "6H", "7H"], ["2C", "9D"]],
        discard=["KC"],
        stock_top=["3C"],
        going_out="float_unplayable_discard",
        **H,
    )
    g.play("draw", "meld 5H 6H 7H")
    g.exact({"discard 3C"})
    g.play("discard 3C")
    assert g.sd()["phase"] == "game_over"


# ----------------------------------------------------------------------------- stock exhaustion
# Clubs, diamonds and spades lie complete on the table (nothing can be laid off on A…K), no
# jokers: only the hearts are in play.
FULL = [{"owner": 0, "cards": [r + s for r in "A23456789TJQK"]} for s in "CDS"]
P0_HEARTS = ["AH", "3H", "4H", "5H", "7H", "8H", "9H", "QH"]
P1_HEARTS = ["2H", "6H", "JH"]


def _exhaust(p0_discard, **rules):
    rules = {"jokers_per_deck": 0, "rummy_calls": "off", "episode": "hand", **rules}
    g = start(hands=[P0_HEARTS, P1_HEARTS], melds=FULL, discard=["KH"], stock_top=["TH"], **rules)
    assert len(g.sd()["stock"]) == 1
    g.play("p0:draw", f"p0:discard {p0_discard}")
    return g


def test_stock_empty_stop_offered_with_legal_takes():
    """§6.2 "the stock is empty and the player to draw does not (or cannot) take from the discard
    pile"; docs/api.md: with stock_exhausted=end", stop is offered with the legal takes"."""
    g = _exhaust("QH")
    assert g.sd()["stock"] == []
    g.exact({"stop", "take 0", "take 1"})
    g.refuse("draw")


def test_stock_empty_only_stop_when_no_take_is_legal():
    """docs/api.md: (only stop if none) — with take_top_requires_meld and an unmeldable pile."""
    g = _exhaust("AH", take_top_requires_meld=True)
    g.exact({"stop"})


def test_stock_empty_take_top_requires_meld_leaves_deep_take():
    """docs/api.md stock empty: stop "with the legal takes" — here only the deep take of K♥ (J♥ Q♥ K♥)."""
    g = _exhaust("QH", take_top_requires_meld=True)
    g.exact({"stop", "take 1"})


def test_stop_ends_the_hand():
    """§6.2: "The hand ends at once when … the stock is empty and the player to draw does not
    take from the discard pile"."""
    g = _exhaust("AH")
    g.exact({"stop", "take 0"})
    g.play("p1:stop")
    assert g.sd()["phase"] == "game_over" and g.done()


def test_taking_from_the_pile_goes_on_with_empty_stock():
    """§6.2: the hand ends only if the player to draw does not take; after a take play goes on."""
    g = _exhaust("QH")
    g.play("p1:take 1", "p1:meld JH QH KH", "p1:discard 2H")
    assert g.agent == "player_0" and g.sd()["phase"] == "draw"
    L = g.legal()
    assert "stop" in L and "draw" not in L


def test_stop_refused_while_stock_has_cards():
    """docs/api.md `stop`: "the stock is empty: end the hand instead of drawing"."""
    g = start(
        hands=[P0_HEARTS, P1_HEARTS], melds=FULL, discard=["KH"], stock_top=["TH"], jokers_per_deck=0, rummy_calls="off"
    )
    g.refuse("stop")


def test_reshuffle_turns_the_pile_but_its_top_into_a_new_stock():
    """§6 `"reshuffle"`: "the discard pile except its top card is shuffled into a new stock and
    play goes on." docs/api.md: before the player decides, and stop is offered only if that leaves the
    stock empty."""
    g = _exhaust("QH", stock_exhausted="reshuffle")
    sd = g.sd()
    assert sd["discard"] == ["QH"]
    assert sd["stock"] == ["KH"]
    g.exact({"draw", "take 0"})
    g.refuse("stop")
    g.play("p1:draw")
    assert "KH" in g.sd()["hands"][1]


@pytest.mark.parametrize("mode", ["end", "reshuffle"])
def test_stop_when_the_pile_is_only_its_top_card(mode):
    """docs/api.md: with "reshuffle", "stop is offered only if that leaves the stock empty" — a pile of one
    card leaves it empty; with "end", stop is offered with the legal takes."""
    g = start(
        hands=[P0_HEARTS + ["TH"], P1_HEARTS],
        melds=FULL,
        discard=["KH"],
        stock_top=[],
        jokers_per_deck=0,
        rummy_calls="off",
        stock_exhausted=mode,
        episode="hand",
    )
    assert g.sd()["stock"] == []
    g.exact({"stop", "take 0"})
    g.play("stop")
    assert g.sd()["phase"] == "game_over"
