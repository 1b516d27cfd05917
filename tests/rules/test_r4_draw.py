"""docs/rules.md §4 (1. Draw) — the draw: stock, top of the pile, deep takes and their variants."""

import collections

import numpy as np
import pytest

from .helpers import meld_with, start

# Worked example of §4: pile bottom→top 6♣ 4♥ 7♠ 4♦ Q♥ A♣, hand 2♠ 4♣ 5♦ 8♥ J♣ K♠ K♦.
EX_HAND = ["2S", "4C", "5D", "8H", "JC", "KS", "KD"]
EX_PILE = ["6C", "4H", "7S", "4D", "QH", "AC"]
EX_P1 = ["3D", "8D", "TD", "2H", "5S", "9S", "QS"]


def _example(**rules):
    return start(hands=[EX_HAND, EX_P1], discard=EX_PILE, **rules)


def test_worked_example_legal_draws():
    """§4 worked example: "To use 4♥ and 4♦ with 4♣ you take the pile down to 4♥ (depth 4)" …
    "you may not take 7♠ alone" — a deep take is offered only where its deepest card can be
    melded at once; the top card is always offered."""
    g = _example()
    g.exact({"draw", "take 0", "take 4"})
    for bad in ("take 1", "take 2", "take 3", "take 5"):
        g.refuse(bad)


def test_worked_example_deep_take_then_obliged_meld_then_discard():
    """§4 worked example: "…leaving only 6♣. You must meld 4♥ at once, here as 4♣ 4♥ 4♦, leaving
    2♠ 5♦ 7♠ 8♥ J♣ Q♥ K♠ K♦ A♣ in hand; you then discard, say 2♠, and the pile is 6♣ 2♠." …
    "nor take the pile down to 4♥ and keep 4♥ in hand"."""
    g = _example()
    g.play("take 4")
    sd = g.sd()
    assert sd["discard"] == ["6C"]
    assert sd["phase"] == "play"
    assert sd["obliged"] == "4H"
    assert sorted(sd["hands"][0]) == sorted(EX_HAND + ["4H", "7S", "4D", "QH", "AC"])
    g.exact({"meld 4C 4D 4H"})
    g.refuse("discard 2S")
    g.refuse("discard 4H")
    g.play("meld 4C 4D 4H")
    left = ["2S", "5D", "7S", "8H", "JC", "QH", "KS", "KD", "AC"]
    assert g.hand(0) == sorted(left)
    assert g.sd()["obliged"] is None
    g.exact({f"discard {c}" for c in left})  # A♣, the previous top, may be discarded too
    g.play("discard 2S")
    sd = g.sd()
    assert sd["discard"] == ["6C", "2S"]
    assert g.agent == "player_1" and sd["phase"] == "draw"


def test_worked_example_top_card_may_be_kept():
    """§4 worked example: "Had you taken only the top card A♣ you could keep it unmelded" — and §4.3
    "If you drew only the top card … you must discard a different card"."""
    g = _example()
    g.play("take 0")
    sd = g.sd()
    assert sd["obliged"] is None and sd["top_taken"] == "AC"
    assert sd["discard"] == EX_PILE[:-1]
    g.exact({f"discard {c}" for c in EX_HAND})


def test_taken_cards_are_known_drawn_cards_are_not():
    """docs/api.md observe/state: "the cards each opponent is known to hold (taken from the pile and not
    yet melded or discarded)"; "Cards taken from the pile, the obliged one included, are in the
    taker's hand"; the stock card is "kept hidden from the others"."""
    g = _example()
    g.play("take 4")
    assert collections.Counter(g.sd()["known"][0]) == collections.Counter(["4H", "7S", "4D", "QH", "AC"])
    g.play("meld 4C 4D 4H")
    assert collections.Counter(g.sd()["known"][0]) == collections.Counter(["7S", "QH", "AC"])
    g.play("discard AC")
    assert collections.Counter(g.sd()["known"][0]) == collections.Counter(["7S", "QH"])
    g.play("p1:draw")
    assert list(g.sd()["known"][1]) == []


def test_draw_from_stock_takes_top_and_stays_hidden():
    """§4.1: "the top card of the stock (kept hidden from the others)" — player_1's view is the
    same whichever card player_0 drew."""
    views = []
    for top in ("8D", "7D"):
        g = start(hands=[["2S", "4C", "5D"], ["9S", "QS"]], discard=["KC"], stock_top=[top])
        n_stock = len(g.sd()["stock"])
        g.play("draw")
        sd = g.sd()
        assert top in sd["hands"][0] and len(sd["stock"]) == n_stock - 1
        assert sd["discard"] == ["KC"]
        views.append(g.env.observe("player_1")["observation"])
    assert np.array_equal(views[0], views[1])


def test_top_card_take_always_allowed_by_default():
    """§4.1: "the top card of the discard pile (default: always allowed…)" — even when it cannot be
    melded; the card goes to the hand and need not be melded."""
    g = start(hands=[["2S", "4C", "5D"], ["9S"]], discard=["KC", "QH"])
    assert "take 0" in g.legal()
    g.play("take 0")
    sd = g.sd()
    assert "QH" in sd["hands"][0] and sd["obliged"] is None and sd["discard"] == ["KC"]


def _layoff_take(hand, **rules):
    return start(
        hands=[hand, ["9S"]],
        melds=[{"owner": 1, "cards": ["5H", "6H", "7H"]}],
        discard=["2D", "8H", "KC"],
        stock_top=["3C"],
        **rules,
    )


def test_deep_take_met_by_lay_off():
    """§4.1 deep take: "(b) immediately meld that deepest card, in a new meld or by laying it
    off"; docs/api.md: "After take D … the next action must be a meld or lay-off that uses the obliged
    card"; §4.3 "if you took several, you may discard the card that was on top before"."""
    g = _layoff_take(["3S", "9C", "JD"])
    g.exact({"draw", "take 0", "take 1"})
    g.play("take 1")
    assert g.sd()["obliged"] == "8H"
    g.exact({"layoff 8H run"})
    g.play("layoff 8H run")
    assert meld_with(g, "5H")["cards"] == ["5H", "6H", "7H", "8H"]
    g.exact({"discard 3S", "discard 9C", "discard JD", "discard KC"})


def test_obliged_card_comes_first():
    """docs/api.md: "After take D … the next action must be a meld or lay-off that uses the obliged card"
    — an unrelated meld or a discard must wait."""
    g = _layoff_take(["9C", "9D", "9H", "2C"])
    g.play("take 1")
    g.refuse("meld 9C 9D 9H")
    g.refuse("discard 2C")
    g.play("layoff 8H run", "meld 9C 9D 9H")


@pytest.mark.parametrize("new_meld", [False, True])
def test_take_requires_new_meld(new_meld):
    """§4.1: "Variant take_requires_new_meld: true (the Wikipedia reading): the deepest card must go
    into a new meld of 3+ cards; laying it off is not enough."."""
    g = _layoff_take(["3S", "9C", "JD"], take_requires_new_meld=new_meld)
    if new_meld:
        g.refuse("take 1")
    else:
        assert "take 1" in g.legal()
    g2 = _layoff_take(["8C", "8D", "JD"], take_requires_new_meld=new_meld)
    g2.play("take 1")
    if new_meld:
        g2.exact({"meld 8C 8D 8H"})
        g2.refuse("layoff 8H run")
    else:
        g2.exact({"meld 8C 8D 8H", "layoff 8H run"})


@pytest.mark.parametrize("top_rule", [False, True])
def test_take_top_requires_meld(top_rule):
    """§4.1: "variant take_top_requires_meld: true makes the top card follow the rule below" (it
    must be melded at once)."""
    g = start(hands=[["KS", "KD", "3D"], ["9S"]], discard=["2C", "QH"], take_top_requires_meld=top_rule)
    if top_rule:
        g.refuse("take 0")
    else:
        assert "take 0" in g.legal()
    g2 = start(hands=[["QC", "QD", "3D"], ["9S"]], discard=["2C", "QH"], take_top_requires_meld=top_rule)
    g2.play("take 0")
    if top_rule:
        assert g2.sd()["obliged"] == "QH"
        g2.exact({"meld QC QD QH"})
    else:
        assert g2.sd()["obliged"] is None
        assert "discard 3D" in g2.legal()


@pytest.mark.parametrize("new_meld", [False, True])
def test_take_top_requires_meld_with_new_meld_rule(new_meld):
    """docs/api.md: "take_requires_new_meld … covers a top-only take only when take_top_requires_meld is
    on." — Q♥ only fits as a lay-off on 9-T-J♥."""
    g = start(
        hands=[["KS", "KD", "3D"], ["9S"]],
        discard=["2C", "QH"],
        melds=[{"owner": 1, "cards": ["9H", "TH", "JH"]}],
        take_top_requires_meld=True,
        take_requires_new_meld=new_meld,
    )
    if new_meld:
        g.refuse("take 0")
    else:
        g.play("take 0")
        g.exact({"layoff QH run"})


def test_take_requires_new_meld_does_not_touch_top_take():
    """docs/api.md: take_requires_new_meld "covers a top-only take only when take_top_requires_meld is
    on" — alone, the top card stays free to take and keep."""
    g = start(hands=[["KS", "KD", "3D"], ["9S"]], discard=["2C", "QH"], take_requires_new_meld=True)
    g.play("take 0")
    assert g.sd()["obliged"] is None


def test_joker_in_pile_can_be_the_obliged_card():
    """docs/api.md: A joker in the pile is a card like any other: it may be taken, be the obliged card,
    or help form a called meld.."""
    g = start(hands=[["5C", "6C", "9D"], ["9S"]], discard=["JK", "2C"])
    g.exact({"draw", "take 0", "take 1"})
    g.play("take 1")
    assert g.sd()["obliged"] == "JK"
    g.exact({"meld 4C 5C 6C", "meld 5C 6C 7C"})
    g.play("meld 5C 6C 7C")
    assert g.melds()[0]["cards"] == ["5C", "6C", "JK=7C"]


def test_draw_phase_offers_no_meld_or_discard():
    """§4: "A turn has three parts: draw, meld, discard." — no melding or discarding before the
    draw, no second draw after it."""
    g = start(hands=[["5H", "6H", "7H", "2C"], ["9S"]], discard=["KC"], rummy_calls="off")
    g.refuse("meld 5H 6H 7H")
    g.refuse("discard 2C")
    g.play("draw")
    g.refuse("draw")
    g.refuse("take 0")
