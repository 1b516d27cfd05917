"""docs/rules.md §3 — melds: groups, sequences (runs) and jokers."""

import collections

import pytest

from .helpers import meld_with, start

FILLER = dict(discard=["QC"], rummy_calls="off")


def _cards(m):
    return collections.Counter(m["cards"])


# ----------------------------------------------------------------------------- groups
def test_group_of_three_then_fourth_card():
    """§3: "Group: 3 or 4 cards of one rank." Group strings list suits in order C D H S."""
    g = start(hands=[["9C", "9D", "9H", "9S"], ["KC"]], stock_top=["2D"], **FILLER)
    g.play("draw")
    L = g.legal()
    for a in ("meld 9C 9D 9H", "meld 9C 9D 9S", "meld 9C 9H 9S", "meld 9D 9H 9S"):
        assert a in L
    g.play("meld 9C 9D 9H", "layoff 9S group")
    m = meld_with(g, "9S")
    assert _cards(m) == collections.Counter(["9C", "9D", "9H", "9S"])
    assert g.sd()["melded_points"][0] == 36


def test_two_decks_group_needs_distinct_suits_in_hand():
    """§3: "With two decks the cards of a group must all be of different suits (6♣ 6♣ 6♥ is not a
    group)." — holding 6C 6C 6H, no meld is offered."""
    g = start(hands=[["6C", "6C", "6H"], ["KC"]], stock_top=["KS"], decks=2, **FILLER)
    g.play("draw")
    assert not any(a.startswith("meld") for a in g.legal())
    g.refuse("meld 6C 6D 6H")


def test_two_decks_group_layoff_needs_new_suit():
    """§3: two-deck groups have distinct suits: 6C cannot join 6C 6D 6H, 6S can."""
    g = start(
        hands=[["6C", "6S"], ["KC"]],
        melds=[{"owner": 1, "cards": ["6C", "6D", "6H"]}],
        stock_top=["KS"],
        decks=2,
        **FILLER,
    )
    g.play("draw")
    assert "layoff 6S group" in g.legal()
    g.refuse("layoff 6C group")


def test_two_decks_group_never_exceeds_four():
    """§3: "So no group ever exceeds 4." (two decks, a full group takes no fifth nine, natural or
    joker)."""
    g = start(
        hands=[["9C", "JK"], ["KC"]],
        melds=[{"owner": 1, "cards": ["9C", "9D", "9H", "9S"]}],
        stock_top=["KS"],
        decks=2,
        **FILLER,
    )
    g.play("draw")
    g.refuse("layoff 9C group")
    g.refuse("layoff JK as 9 group")


def test_group_with_two_jokers_and_later_natural():
    """§3: "In a group the joker's suit need not be declared: 9♠ JK JK is a group of nines, and any
    player may later lay off a natural nine of another suit to make four." docs/api.md: 9♠ JK JK may
    be melded by any group string that names 9S."""
    g = start(hands=[["9S", "JK", "JK", "3C"], ["9H", "KC"]], stock_top=["2D", "4S"], **FILLER)
    g.play("draw")
    L = g.legal()
    for a in ("meld 9C 9D 9S", "meld 9C 9H 9S", "meld 9D 9H 9S"):
        assert a in L, a
    g.refuse("meld 9C 9D 9H")  # does not name the natural 9S: would need three jokers
    g.play("meld 9C 9H 9S")
    m = meld_with(g, "9S")
    assert _cards(m) == collections.Counter(["9S", "JK", "JK"])
    assert sorted(g.hand(0)) == ["2D", "3C"]
    g.play("discard 2D", "p1:draw", "p1:layoff 9H group")
    m = meld_with(g, "9S")
    assert _cards(m) == collections.Counter(["9S", "9H", "JK", "JK"])


def test_two_decks_group_jokers_block_duplicate_suit():
    """§3: "lay off a natural nine of *another suit*"; with two decks the group's suits are
    distinct: 9S cannot join 9S JK JK, 9D can."""
    g = start(
        hands=[["9S", "9D"], ["KC"]],
        melds=[{"owner": 1, "cards": ["9S", "JK", "JK"]}],
        stock_top=["KS"],
        decks=2,
        **FILLER,
    )
    g.play("draw")
    assert "layoff 9D group" in g.legal()
    g.refuse("layoff 9S group")


def test_group_needs_a_natural_card_run_may_be_all_jokers():
    """docs/rules.md: "A group needs at least one natural card; a run may be all jokers (each one
    declared)." (two decks: 4 jokers)."""
    g = start(hands=[["JK", "JK", "JK", "2D"], ["KC"]], stock_top=["8S"], decks=2, **FILLER)
    g.play("draw")
    L = g.legal()
    assert "meld 2C 2D 2H" in L  # one natural 2D + two jokers
    assert "meld 5H 6H 7H" in L  # three jokers, each declared
    g.refuse("meld 5C 5D 5H")  # three jokers as a group: no natural
    g.play("meld 5H 6H 7H")
    m = next(m for m in g.melds() if m["owner"] == 0)
    assert m["cards"] == ["JK=5H", "JK=6H", "JK=7H"]
    assert g.sd()["melded_points"][0] == 45


@pytest.mark.parametrize("table,ok", [(["KC", "KD", "KH"], True), (["KC", "KD", "KH", "KS"], False)])
def test_four_kings_plus_joker_is_not_a_group(table, ok):
    """§3: "A joker must stand for a card that could legally be there: 4 kings + a joker is not a
    group." """
    g = start(hands=[["JK", "2D"], ["5C"]], melds=[{"owner": 1, "cards": table}], stock_top=["3C"], **FILLER)
    g.play("draw")
    if ok:
        g.play("layoff JK as K group")
        assert _cards(meld_with(g, "KC"))["JK"] == 1
    else:
        g.refuse("layoff JK as K group")


@pytest.mark.parametrize("rank,table", [("9", ["9C", "9D", "9S"]), ("T", ["TC", "TD", "TS"])])
def test_joker_layoff_on_group_names_rank(rank, table):
    """docs/api.md Actions: "layoff JK as R group" — a joker standing for rank R on a group it fits."""
    g = start(hands=[["JK", "2D"], ["5C"]], melds=[{"owner": 1, "cards": table}], stock_top=["3C"], **FILLER)
    g.play("draw")
    g.refuse("layoff JK as 8 group")
    g.play(f"layoff JK as {rank} group")
    m = meld_with(g, table[0])
    assert len(m["cards"]) == 4 and "JK" in m["cards"]
    assert g.sd()["melded_points"][0] == 15


# ----------------------------------------------------------------------------- runs
def test_run_ace_low_or_high_listed_low_to_high():
    """§3: "Sequence (run): 3 or more consecutive cards of one suit. An ace is low (A-2-3) or high
    (Q-K-A)". docs/api.md: Runs list cards low to high as declared (AH","2H","3H"; "QS","KS","AS")"."""
    g = start(hands=[["AH", "2H", "3H", "QS", "KS", "AS"], ["9D"]], stock_top=["5C"], **FILLER)
    g.play("draw", "meld AH 2H 3H", "meld QS KS AS")
    runs = [m["cards"] for m in g.melds()]
    assert runs == [["AH", "2H", "3H"], ["QS", "KS", "AS"]]
    assert g.sd()["melded_points"][0] == 6 + 35


@pytest.mark.parametrize("corner", [False, True])
def test_king_ace_two(corner):
    """§3: "K-A-2 is invalid. Variant ace_around_corner: true allows K-A-2." docs/api.md: around the
    corner "KS","AS","2S", where the ace counts 15."""
    g = start(hands=[["KS", "AS", "2S"], ["9D"]], stock_top=["5C"], ace_around_corner=corner, **FILLER)
    g.play("draw")
    if not corner:
        g.refuse("meld KS AS 2S")
        return
    g.play("meld KS AS 2S")
    assert g.melds()[0]["cards"] == ["KS", "AS", "2S"]
    assert g.sd()["melded_points"][0] == 27


@pytest.mark.parametrize("corner", [False, True])
def test_run_does_not_pass_the_high_ace(corner):
    """§3: "An ace is low (A-2-3) or high (Q-K-A) but not both: K-A-2 is invalid." — Q-K-A takes a
    J but not a 2 (unless ace_around_corner)."""
    g = start(
        hands=[["2S", "JS"], ["9D"]],
        melds=[{"owner": 1, "cards": ["QS", "KS", "AS"]}],
        stock_top=["5C"],
        ace_around_corner=corner,
        **FILLER,
    )
    g.play("draw")
    assert "layoff JS run" in g.legal()
    if corner:
        assert "layoff 2S run" in g.legal()
    else:
        g.refuse("layoff 2S run")


def test_ace_not_both_low_and_high_two_decks():
    """§3: "An ace is low (A-2-3) or high (Q-K-A) but not both" — with two decks, A…K takes no
    second ace, natural or joker."""
    run = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]
    g = start(hands=[["AH", "JK"], ["9D"]], melds=[{"owner": 1, "cards": run}], stock_top=["5C"], decks=2, **FILLER)
    g.play("draw")
    g.refuse("layoff AH run")
    g.refuse("layoff JK as AH run")


def test_run_needs_consecutive_cards_of_one_suit():
    """§3: runs are "3 or more consecutive cards of one suit" — 5H 6H 8H, 5H 6H 7C are not runs."""
    g = start(hands=[["5H", "6H", "8H", "7C", "9D"], ["2S"]], stock_top=["KS"], **FILLER)
    g.play("draw")
    assert not any(a.startswith("meld") for a in g.legal())
    g.refuse("meld 6H 7H 8H")  # needs 7H, held only in clubs; no joker


@pytest.mark.parametrize(
    "action,cards", [("meld 6H 7H 8H", ["6H", "7H", "JK=8H"]), ("meld 5H 6H 7H", ["JK=5H", "6H", "7H"])]
)
def test_joker_in_run_is_declared(action, cards):
    """§3: "The player declares what a joker stands for" (6 7 JK declared as 6-7-8); docs/api.md: any of
    these cards the player lacks is played by a joker standing for it, written "JK=8H"."""
    g = start(hands=[["6H", "7H", "JK"], ["9D"]], stock_top=["2C"], **FILLER)
    g.play("draw")
    assert {"meld 6H 7H 8H", "meld 5H 6H 7H"} <= g.legal()
    g.play(action)
    assert g.melds()[0]["cards"] == cards


def test_natural_card_is_used_when_held():
    """docs/api.md: any of these cards the player *lacks* is played by a joker — holding 8H, the joker
    stays in hand."""
    g = start(hands=[["6H", "7H", "8H", "JK"], ["9D"]], stock_top=["2C"], **FILLER)
    g.play("draw", "meld 6H 7H 8H")
    assert g.melds()[0]["cards"] == ["6H", "7H", "8H"]
    assert g.hand(0) == ["2C", "JK"]


def test_joker_identity_never_changes():
    """§3: "in a sequence the joker is a specific rank (6 7 JK declared as 6-7-8; later someone may
    lay off the 5 or the 9, but nobody may swap the joker out)"."""
    g = start(
        hands=[["5H", "8H", "9H"], ["9D"]],
        melds=[{"owner": 1, "cards": ["6H", "7H", "JK=8H"]}],
        stock_top=["2C"],
        **FILLER,
    )
    g.play("draw")
    assert {"layoff 5H run", "layoff 9H run"} <= g.legal()
    g.refuse("layoff 8H run")
    g.play("layoff 9H run")
    assert meld_with(g, "6H")["cards"] == ["6H", "7H", "JK=8H", "9H"]
    g.refuse("layoff 8H run")
    g.play("layoff 5H run")
    assert meld_with(g, "6H")["cards"] == ["5H", "6H", "7H", "JK=8H", "9H"]
    assert "8H" in g.hand(0)


def test_joker_may_duplicate_a_melded_card():
    """§3: "Jokers are wild and may stand for any card, even a duplicate of a card already
    melded." — 4H 5H JK=6H while 6H sits in another meld."""
    g = start(
        hands=[["4H", "5H", "JK"], ["9D"]],
        melds=[{"owner": 1, "cards": ["6H", "7H", "8H"]}],
        stock_top=["2C"],
        **FILLER,
    )
    g.play("draw", "meld 4H 5H 6H")
    assert ["4H", "5H", "JK=6H"] in [m["cards"] for m in g.melds()]


def test_joker_layoff_on_run_only_at_a_free_end():
    """§3 "cards extending a sequence at either end"; a joker "must stand for a card that could
    legally be there"; docs/api.md "layoff JK as C run"."""
    g = start(
        hands=[["JK", "2C"], ["9D"]], melds=[{"owner": 1, "cards": ["6H", "7H", "8H"]}], stock_top=["3D"], **FILLER
    )
    g.play("draw")
    assert {"layoff JK as 5H run", "layoff JK as 9H run"} <= g.legal()
    for bad in ("layoff JK as TH run", "layoff JK as 7H run", "layoff JK as 9C run"):
        g.refuse(bad)
    g.play("layoff JK as 9H run")
    assert meld_with(g, "6H")["cards"] == ["6H", "7H", "8H", "JK=9H"]


def test_joker_as_low_ace():
    """§3: a joker may stand for any card that could legally be there, e.g. the low ace of A-2-3-4
    (but not a K below a 2 without ace_around_corner)."""
    g = start(
        hands=[["JK", "9C"], ["9D"]], melds=[{"owner": 1, "cards": ["2H", "3H", "4H"]}], stock_top=["3D"], **FILLER
    )
    g.play("draw")
    g.refuse("layoff JK as KH run")
    g.play("layoff JK as AH run")
    assert meld_with(g, "2H")["cards"] == ["JK=AH", "2H", "3H", "4H"]
