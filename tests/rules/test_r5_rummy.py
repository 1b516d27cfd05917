"""docs/rules.md §5 — calling "Rummy!" (and docs/api.md's "Rummy!" window, queue and action points)."""

import numpy as np
import pytest

from .helpers import meld_with, owners_of, start

RUN_789H = {"owner": 0, "cards": ["7H", "8H", "9H"]}


def _base(card="6H", p1=("5C", "9D", "QS"), **rules):
    """2 players, 7♥8♥9♥ on the table; player_0 draws 4♠ and is about to discard."""
    g = start(hands=[[card, "2C", "3D"], list(p1)], melds=[RUN_789H], discard=["KC"], stock_top=["4S", "JD"], **rules)
    g.play("p0:draw")
    return g


def _zero_mask(g, agent):
    return not np.asarray(g.mask(agent)).any()


@pytest.mark.parametrize("card", ["6H", "TH"])
def test_call_on_a_discard_that_lays_off(card):
    """§5 example: "7♥ 8♥ 9♥ on the table and someone discards 6♥ or T♥" — before the next player
    draws, players other than the discarder may call: `rummy D` or `pass`."""
    g = _base(card)
    g.play(f"p0:discard {card}")
    assert g.sd()["phase"] == "rummy"
    assert g.agent == "player_1"
    g.exact({"rummy 0", "pass"})
    assert _zero_mask(g, "player_0")


def test_call_takes_melds_discards_and_play_continues_left_of_caller():
    """§5: the caller may "take the pile down to that card …, meld that card at once … and
    discard. Play then continues from the caller's left" (2 players: the discarder)."""
    g = _base("6H")
    g.play("p0:discard 6H", "p1:rummy 0")
    sd = g.sd()
    assert sd["phase"] == "play" and g.agent == "player_1"
    assert sd["obliged"] == "6H" and "6H" in sd["hands"][1]
    assert sd["discard"] == ["KC"]
    g.exact({"layoff 6H run"})
    g.play("p1:layoff 6H run")
    run = meld_with(g, "7H")
    assert run["cards"] == ["6H", "7H", "8H", "9H"] and owners_of(run) == [1, 0, 0, 0]
    assert g.sd()["melded_points"][1] == 6
    g.play("p1:discard 9D")
    assert g.agent == "player_0" and g.sd()["phase"] == "draw"


def test_pass_lets_the_next_player_draw():
    """docs/api.md Turn order: "if all pass, the next player draws as usual"."""
    g = _base("6H")
    g.play("p0:discard 6H", "p1:pass")
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"
    L = g.legal()
    assert {"draw", "take 0"} <= L and "rummy 0" not in L and "pass" not in L


def test_no_window_when_nothing_can_be_called():
    """docs/api.md: the window is "opened after a discard …, when at least one non-discarder could call"."""
    g = _base("6H")
    g.play("p0:discard 2C")
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"
    assert not any(a.startswith("rummy") or a == "pass" for a in g.legal())


def test_call_on_pile_meld_JD_onto_KD_QD():
    """§5 example: "a player discards J♦ onto a pile holding K♦ and Q♦ (take from K♦ up)"."""
    g = start(hands=[["JD", "2C", "3S"], ["2S", "5H", "9C"]], discard=["5C", "KD", "QD"], stock_top=["4S"])
    g.play("p0:draw", "p0:discard JD")
    g.exact({"rummy 2", "pass"})
    g.play("p1:rummy 2")
    sd = g.sd()
    assert sd["discard"] == ["5C"] and sd["obliged"] == "KD"
    assert {"KD", "QD", "JD"} <= set(sd["hands"][1])
    g.exact({"meld JD QD KD"})


def test_call_on_card_fitting_a_meld_just_melded():
    """§5 example: "a player melds 4♠ 5♠ 6♠ and discards while 3♠ is in the pile"."""
    g = start(hands=[["4S", "5S", "6S", "8C", "9D"], ["2H", "7D", "QC"]], discard=["3S", "KC"], stock_top=["2D"])
    g.play("p0:draw", "p0:meld 4S 5S 6S", "p0:discard 8C")
    g.exact({"rummy 2", "pass"})
    g.play("p1:rummy 2")
    g.exact({"layoff 3S run"})


def test_call_needs_a_meld_without_hand_cards():
    """§5: only "a card that could be melded without any card from anyone's hand" can be called; 7♣
    fits 5♣6♣ in player_1's hand but that is a take, not a call."""
    g = start(hands=[["7C", "2D", "3S"], ["5C", "6C", "QH"]], discard=["KD"], stock_top=["9S"])
    g.play("p0:draw", "p0:discard 7C")
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"
    assert "take 0" in g.legal() and "rummy 0" not in g.legal()


def test_joker_above_helps_form_the_called_meld():
    """docs/api.md: a call is possible on a card that can be melded "in a 3-card meld with cards above it
    in the pile (jokers there count)"."""
    g = start(hands=[["7C", "2D", "3S"], ["2S", "9H", "KH"]], discard=["KD", "5C", "JK"], stock_top=["9S"])
    g.play("p0:draw", "p0:discard 7C")
    g.exact({"rummy 2", "pass"})
    g.play("p1:rummy 2")
    assert g.sd()["obliged"] == "5C"
    g.exact({"meld 5C 6C 7C"})
    g.play("p1:meld 5C 6C 7C")
    assert ["5C", "JK=6C", "7C"] in [m["cards"] for m in g.melds()]


def test_joker_can_be_the_called_card():
    """docs/api.md: A joker in the pile … may be taken, be the obliged card — a joker that lays off on
    7♥8♥9♥ can be called."""
    g = start(hands=[["2C", "3D", "4S"], ["3S", "9C", "QD"]], melds=[RUN_789H], discard=["KD", "JK"], stock_top=["6S"])
    g.play("p0:draw", "p0:discard 2C")
    g.exact({"rummy 1", "pass"})
    g.play("p1:rummy 1")
    assert g.sd()["obliged"] == "JK"
    g.exact({"layoff JK as 6H run", "layoff JK as TH run"})


def test_called_card_may_then_be_melded_with_hand_cards():
    """docs/api.md: Once called, the caller may meld it with hand cards too.."""
    g = _base("6H", p1=("6C", "6D", "2S"))
    g.play("p0:discard 6H", "p1:rummy 0")
    g.exact({"layoff 6H run", "meld 6C 6D 6H"})


def _three(**rules):
    g = start(
        hands=[["6H", "2C", "3D"], ["5C", "9D"], ["QS", "JS"]],
        melds=[RUN_789H],
        discard=["KC"],
        stock_top=["4S"],
        **rules,
    )
    g.play("p0:draw")
    return g


def test_no_call_on_own_discard():
    """§5: "A player cannot call on their own discard." (3 players)."""
    g = _three()
    g.play("p0:discard 6H")
    assert g.agent == "player_1" and _zero_mask(g, "player_0")
    g.play("p1:pass")
    assert g.agent == "player_2" and _zero_mask(g, "player_0")
    g.play("p2:pass")
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"


def _four(current=0, opened=None, hands=None, **rules):
    hands = hands or [["5C", "9D"], ["QS", "JS"], ["TD", "4C"], ["2D", "4D"]]
    hands = [list(h) for h in hands]
    hands[current] = ["6H", "2C", "3D"]
    extra = {"opened": opened} if opened else None
    g = start(
        hands=hands, melds=[RUN_789H], discard=["KC"], stock_top=["4S"], current_player=current, extra=extra, **rules
    )
    g.play(f"p{current}:draw", f"p{current}:discard 6H")
    return g


def test_callers_asked_nearest_the_discarder_first():
    """docs/api.md Turn order: "the players other than the discarder are asked one at a time, nearest the
    discarder first"; "if all pass, the next player draws as usual"."""
    g = _four(current=2)
    g.play("p3:pass", "p0:pass", "p1:pass")
    assert g.agent == "player_3" and g.sd()["phase"] == "draw"


def test_first_call_wins_and_skipped_player_loses_turn():
    """§5: "Play then continues from the caller's left: the players between the discarder and the
    caller lose that turn." docs/api.md "the first call wins"."""
    g = _four(current=0, hands=[["x"], ["5C", "9D"], ["QS", "JS", "TD"], ["2D", "4D"]])
    g.play("p1:pass", "p2:rummy 0", "p2:layoff 6H run", "p2:discard TD")
    assert g.agent == "player_3" and g.sd()["phase"] == "draw"


def test_last_asked_caller_two_players_lose_their_turn():
    """§5: players between discarder and caller lose that turn: player_3 calls on player_0's
    discard, so player_0 plays next and player_1, player_2 are skipped."""
    g = _four(current=0, hands=[["x"], ["5C", "9D"], ["QS", "JS"], ["2D", "4D", "TD"]])
    g.play("p1:pass", "p2:pass", "p3:rummy 0", "p3:layoff 6H run", "p3:discard TD")
    assert g.agent == "player_0" and g.sd()["phase"] == "draw"


def test_players_who_cannot_call_are_skipped():
    """docs/api.md: Asked in order from the discarder's left, skipping players who have no legal call —
    player_2 has not opened and cannot reach first_meld_minimum with 6♥."""
    g = _four(
        current=0,
        opened=[True, True, False, True],
        first_meld_minimum=30,
        hands=[["x"], ["5C", "9D"], ["QS", "JS", "4C"], ["2D", "4D"]],
    )
    g.play("p1:pass")
    assert g.agent == "player_3"
    assert _zero_mask(g, "player_2")
    g.exact({"rummy 0", "pass"})


def test_next_player_is_asked_too():
    """docs/api.md: skipping players who have no legal call; the next player in turn is asked too.
    Ambiguous whether the next player is asked when they have no legal call: accepted either
    way, but if asked they may only pass, and the caller-capable player_2 comes next."""
    g = _four(
        current=0,
        opened=[True, False, True, True],
        first_meld_minimum=30,
        hands=[["x"], ["5C", "9D"], ["QS", "JS"], ["2D", "4D"]],
    )
    if g.agent == "player_1":
        g.exact({"pass"})
        g.play("p1:pass")
    assert g.agent == "player_2"
    g.exact({"rummy 0", "pass"})


def test_no_window_when_minimum_stops_every_caller():
    """docs/api.md: "first_meld_minimum … binds callers too"; the window opens only "when at least one
    non-discarder could call"."""
    g = start(
        hands=[["6H", "2C", "3D"], ["5C", "9D", "QS"]],
        melds=[RUN_789H],
        discard=["KC"],
        stock_top=["4S"],
        first_meld_minimum=30,
        extra={"opened": [True, False]},
    )
    g.play("p0:draw", "p0:discard 6H")
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"


def test_caller_must_reach_the_minimum():
    """docs/api.md: "first_meld_minimum … binds callers too" — 6♥ (6) then K♣K♦K♠ (30) before discarding."""
    g = start(
        hands=[["6H", "2C", "3D"], ["KC", "KD", "KS", "2S"]],
        melds=[RUN_789H],
        discard=["QC"],
        stock_top=["4S"],
        first_meld_minimum=30,
        extra={"opened": [True, False]},
    )
    g.play("p0:draw", "p0:discard 6H")
    g.exact({"rummy 0", "pass"})
    g.play("p1:rummy 0")
    g.exact({"layoff 6H run"})
    g.play("p1:layoff 6H run")
    g.refuse("discard 2S")
    g.play("p1:meld KC KD KS", "p1:discard 2S")


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_no_call_once_the_hand_has_ended(episode):
    """§5: "No call is possible once the hand has ended." — going out by discarding 6♥, which
    would lay off on 7♥8♥9♥."""
    g = start(
        hands=[["2S", "3S", "4S", "6H"], ["5C", "9D"]],
        melds=[RUN_789H],
        discard=["KC"],
        stock_top=["5S"],
        episode=episode,
    )
    g.play("p0:draw", "p0:meld 2S 3S 4S", "p0:layoff 5S run", "p0:discard 6H")
    sd = g.sd()
    assert sd["phase"] != "rummy"
    if episode == "hand":
        assert sd["phase"] == "game_over" and g.done()
    else:
        assert sd["phase"] == "draw" and sd["hand_scores"] is not None


# ------------------------------------------------------------------ variant rummy_calls
def test_last_discard_call_lays_off_only_and_turn_returns():
    """§5 `"last_discard"`: "only the card just discarded, and only if it can be laid off on a
    table meld; the caller takes it, lays it off (scoring it), and play continues with the
    player whose turn it was." docs/api.md: the caller's only next action is laying that card off; the
    caller does not discard."""
    g = _base("6H", p1=("6C", "6D", "2S"), rummy_calls="last_discard")
    g.play("p0:discard 6H")
    g.exact({"rummy 0", "pass"})
    g.play("p1:rummy 0")
    g.exact({"layoff 6H run"})
    g.play("p1:layoff 6H run")
    sd = g.sd()
    assert g.agent == "player_1" and sd["phase"] == "draw"
    assert sorted(sd["hands"][1]) == ["2S", "6C", "6D"]
    assert sd["discard"] == ["KC"]
    assert sd["melded_points"][1] == 6
    assert owners_of(meld_with(g, "7H"))[0] == 1


def test_last_discard_three_players_turn_goes_to_next_player():
    """§5 last_discard: "play continues with the player whose turn it was" (player_1, not the
    caller's left)."""
    g = _three(rummy_calls="last_discard")
    g.play("p0:discard 6H", "p1:pass", "p2:rummy 0", "p2:layoff 6H run")
    sd = g.sd()
    assert g.agent == "player_1" and sd["phase"] == "draw"
    assert sorted(sd["hands"][2]) == ["JS", "QS"]
    assert sd["melded_points"][2] == 6


@pytest.mark.parametrize("mode", ["pile", "last_discard"])
def test_deeper_card_callable_only_in_pile_mode(mode):
    """§5: `"pile"` (default): "any card in the pile"; `"last_discard"`: "only the card just
    discarded"."""
    g = start(
        hands=[["2C", "3D", "9H"], ["5C", "9D", "QH"]],
        discard=["3S", "KC"],
        melds=[{"owner": 0, "cards": ["4S", "5S", "6S"]}],
        stock_top=["JD"],
        rummy_calls=mode,
    )
    g.play("p0:draw", "p0:discard 2C")
    if mode == "pile":
        g.exact({"rummy 2", "pass"})
    else:
        assert g.agent == "player_1" and g.sd()["phase"] == "draw"


def test_last_discard_no_call_on_pile_meld():
    """§5 last_discard: "only if it can be laid off on a table meld" — J♦ onto K♦ Q♦ is no call."""
    g = start(
        hands=[["JD", "2C", "3S"], ["2S", "5H", "9C"]],
        discard=["5C", "KD", "QD"],
        stock_top=["4S"],
        rummy_calls="last_discard",
    )
    g.play("p0:draw", "p0:discard JD")
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"


def test_calls_off():
    """§5 `"off"`: no calls."""
    g = _base("6H", rummy_calls="off")
    g.play("p0:discard 6H")
    assert g.agent == "player_1" and g.sd()["phase"] == "draw"
    assert "rummy 0" not in g.legal() and "pass" not in g.legal()


def test_take_requires_new_meld_does_not_restrict_calls():
    """docs/api.md: take_requires_new_meld concerns takes in the draw, not Rummy!" calls"."""
    g = _base("6H", take_requires_new_meld=True)
    g.play("p0:discard 6H")
    g.exact({"rummy 0", "pass"})
    g.play("p1:rummy 0")
    g.exact({"layoff 6H run"})


# ------------------------------------------------------------------ last_discard with first_meld_minimum
_SEVEN_MELDS = [{"owner": 3, "cards": ["JD", "QD", "KD"]}, {"owner": 4, "cards": ["TC", "TH", "TD"]}]


def _seven(card, opened, minimum=30):
    """7 players, 2 decks, last_discard: J♦Q♦K♦ and T♣T♥T♦ on the table; player_6 discards
    ``card``; player_0 (next to play) holds K♣K♥K♠, a 30-point meld it may not put down on a call."""
    hands = [
        ["KC", "KH", "KS", "2C"],
        ["5C", "9D"],
        ["4C", "8D"],
        ["QS", "JS"],
        ["2D", "4D"],
        ["3H", "7S"],
        [card, "3C", "5D"],
    ]
    g = start(
        hands=hands,
        melds=_SEVEN_MELDS,
        discard=["9C"],
        stock_top=["6S"],
        current_player=6,
        extra={"opened": opened},
        decks=2,
        rummy_calls="last_discard",
        first_meld_minimum=minimum,
    )
    g.play("p6:draw", f"p6:discard {card}")
    return g


@pytest.mark.parametrize("card", ["JK", "TS"])
def test_last_discard_unopened_seat_cannot_call_below_the_minimum(card):
    """docs/api.md: first_meld_minimum counts the turn's melds and lay-offs together, binds callers too;
    under last_discard "the caller's only next action is laying that card off", so an unopened
    player_0 cannot open with JK (15) or T♠ (10) < 30 and is skipped; player_1 (opened) is asked."""
    g = _seven(card, opened=[False] + [True] * 6)
    assert g.agent == "player_1" and g.phase == "rummy"
    assert _zero_mask(g, "player_0")
    g.exact({"rummy 0", "pass"})
    g.play("p1:pass", "p2:pass", "p3:pass", "p4:pass", "p5:pass")
    assert g.agent == "player_0" and g.phase == "draw"
    assert g.sd()["melded_points"][0] == 0


@pytest.mark.parametrize("card", ["JK", "TS"])
def test_last_discard_no_window_when_every_other_seat_is_unopened(card):
    """docs/api.md: the window opens only "when at least one non-discarder could call"; none can open
    with one lay-off of 15 or 10 points."""
    g = _seven(card, opened=[False] * 6 + [True])
    assert g.agent == "player_0" and g.phase == "draw"


@pytest.mark.parametrize("card, points", [("JK", 15), ("TS", 10)])
def test_last_discard_unopened_seat_calls_when_the_layoff_reaches_the_minimum(card, points):
    """first_meld_minimum binds callers: with a minimum of 10 a single lay-off of JK (15) or
    T♠ (10) opens player_0, who calls, lays off (no meld), and then draws as the next player."""
    g = _seven(card, opened=[False] + [True] * 6, minimum=10)
    assert g.agent == "player_0"
    g.exact({"rummy 0", "pass"})
    g.play("p0:rummy 0")
    layoffs = (
        {"layoff JK as TD run", "layoff JK as AD run", "layoff JK as T group"} if card == "JK" else {"layoff TS group"}
    )
    g.exact(layoffs)
    g.play(f"p0:{sorted(layoffs)[-1]}")
    sd = g.sd()
    assert sd["melded_points"][0] == points and sd["opened"][0] is True
    assert g.agent == "player_0" and sd["phase"] == "draw"


# --------------------------------------------------------------------------- a call leaves the caller a move
SEVENS = {"players": 2, "min_run": 4}
SEVENS_PILE = ["QS", "JK", "7H"]
THREES = {"owner": 1, "cards": ["3C", "3D", "3H", "3S"]}


def _sevens(p1, players=2, **rules):
    """player_0 discards 7C onto QS JK 7H: the joker forms a group of sevens with the cards above it."""
    hands = [["7C", "9C", "KD"], list(p1)] + [["2C", "5D", "9H"], ["4C", "8D", "TH"]][: players - 2]
    rules = {**SEVENS, "players": players, **rules}
    return start(hands=hands, discard=SEVENS_PILE, melds=[THREES], dealer=1, extra={"phase": "play"}, **rules)


def test_no_call_whose_card_the_caller_cannot_meld():
    """§5: a call is legal only where the called card can then be melded. Holding 7D and 7S, the caller would
    hold all four sevens and the joker, which plays a card the player lacks: no sevens meld takes it, runs need
    four cards (min_run=4) and the group of threes is full, so nobody is asked (the take is refused the same)."""
    g = _sevens(["AC", "7D", "TD", "2H", "4H", "KH", "6S", "7S"])
    g.play("p0:discard 7C")
    assert g.agent == "player_1" and g.phase == "draw"
    assert "take 2" not in g.legal() and "take 1" in g.legal()


def test_the_call_whose_joker_the_caller_can_meld():
    """The same pile with 7S not in the caller's hand: the joker stands for it, so the call is offered and the
    caller, obliged to meld the joker, has moves."""
    g = _sevens(["AC", "7D", "TD", "2H", "4H", "KH", "6S", "8S"])
    g.play("p0:discard 7C")
    g.exact({"rummy 2", "pass"})
    g.play("p1:rummy 2")
    assert g.sd()["obliged"] == "JK"
    g.exact({"meld 7C 7D 7S", "meld 7C 7H 7S", "meld 7D 7H 7S"})  # the joker written as 7S, the card it plays


def test_a_seat_without_a_legal_call_is_not_asked():
    """§5 with partnership: the seats are asked nearest the discarder first, but player_1 (holding 7D and 7S)
    has no legal call on the joker, so player_2 is asked first."""
    g = _sevens(["AC", "7D", "TD", "2H", "4H", "KH", "6S", "7S"], players=4, partnership=True)
    g.play("p0:discard 7C")
    assert g.phase == "rummy" and g.agent == "player_2" and g.sd()["rummy_queue"][0] == 2
    assert 1 not in g.sd()["rummy_queue"]
    g.exact({"rummy 2", "pass"})


@pytest.mark.parametrize("depth", [0, 2])
def test_a_called_joker_under_groups_only(depth):
    """§8.2 groups_only: a joker called at the top lays off on the table's group of three jokers; one called
    under two jokers forms a group of jokers with them. Either way the caller is left moves with it."""
    rules = {"players": 4, "partnership": True, "joker_mode": "groups_only", "jokers_per_deck": 4}
    hands = [["JK", "9C", "KD"], ["AC", "5D", "TD"], ["2C", "5H", "9H"], ["4C", "8D", "TH"]]
    melds = [{"owner": 2, "cards": ["JK", "JK", "JK"]}] if depth == 0 else []
    pile = ["QS"] if depth == 0 else ["QS", "JK", "JK"]
    g = start(hands=hands, discard=pile, melds=melds, dealer=3, extra={"phase": "play"}, **rules)
    g.play("p0:discard JK")
    assert g.agent == "player_1" and f"rummy {depth}" in g.legal()
    g.play(f"p1:rummy {depth}")
    assert g.sd()["obliged"] == "JK"
    g.exact({"layoff JK group"} if depth == 0 else {"meld JK JK JK"})
