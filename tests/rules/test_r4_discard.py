"""docs/rules.md §4 (3. Discard) — the discard."""

from .helpers import start


def test_card_taken_alone_from_top_cannot_be_discarded():
    """§4.3: "If you drew only the top card of the discard pile you must discard a different
    card"; docs/api.md `top_taken`."""
    g = start(hands=[["2S", "4C", "5D"], ["9S"]], discard=["KC", "QH"], rummy_calls="off")
    g.play("take 0")
    assert g.sd()["top_taken"] == "QH"
    g.exact({"discard 2S", "discard 4C", "discard 5D"})
    g.refuse("discard QH")


def test_two_decks_no_copy_of_the_top_card_either():
    """docs/api.md: The card taken alone by take 0 may not be discarded that turn (with two decks: no
    copy of it).."""
    g = start(hands=[["QH", "2S", "4C"], ["9S"]], discard=["KC", "QH"], decks=2, rummy_calls="off")
    g.play("take 0")
    g.exact({"discard 2S", "discard 4C"})
    g.refuse("discard QH")


def test_top_card_restriction_lasts_one_turn():
    """§4.3 applies to the turn of the take only: next turn Q♥ may go."""
    g = start(hands=[["2S", "4C", "5D"], ["9S", "8D"]], discard=["KC", "QH"], stock_top=["3C", "6D"], rummy_calls="off")
    g.play("p0:take 0", "p0:discard 2S", "p1:draw", "p1:discard 3C", "p0:draw")
    assert g.sd()["top_taken"] is None
    assert "discard QH" in g.legal()


def test_previous_top_may_be_discarded_after_multi_card_take():
    """§4.3: "if you took several, you may discard the card that was on top before"."""
    g = start(hands=[["8C", "8D", "2S"], ["9S"]], discard=["5C", "8H", "KC"], rummy_calls="off")
    g.play("take 1", "meld 8C 8D 8H")
    assert g.sd()["top_taken"] is None
    assert "discard KC" in g.legal()
    g.play("discard KC")
    assert g.sd()["discard"] == ["5C", "KC"]


def test_discard_ends_the_turn_and_only_hand_cards_can_go():
    """§4.3: "Discard one card face up on the pile" — a card of the hand; then the next player
    (clockwise) draws."""
    g = start(hands=[["2S", "4C", "5D"], ["9S"]], discard=["KC"], stock_top=["7D"], rummy_calls="off")
    g.play("draw")
    g.refuse("discard 9H")
    g.refuse("discard KC")
    g.play("discard 4C")
    sd = g.sd()
    assert sd["discard"] == ["KC", "4C"]
    assert g.agent == "player_1" and sd["phase"] == "draw" and sd["current_player"] == 1
    assert sorted(sd["hands"][0]) == ["2S", "5D", "7D"]


def test_meld_that_would_strand_the_top_card_is_refused():
    """§4.3 "If you drew only the top card … you must discard a different card" + docs/api.md "The mask
    never leaves an agent with no legal action": after taking Q♥ alone, melding 5♥6♥7♥ would leave
    only Q♥, which can be neither discarded nor melded."""
    g = start(hands=[["5H", "6H", "7H"], ["9S"]], discard=["KC", "QH"], rummy_calls="off")
    g.play("take 0")
    g.exact({"discard 5H", "discard 6H", "discard 7H"})
    g.refuse("meld 5H 6H 7H")


def test_going_out_by_melding_after_taking_the_top_card():
    """§4.3 "Discard one card …, unless you have melded all your cards (see going out)" and §6.1
    "they melded them all": the card taken alone from the top only may not be *discarded*; taking
    4♥, melding 5♥6♥7♥ and laying off 4♥ goes out."""
    g = start(hands=[["5H", "6H", "7H"], ["9S"]], discard=["KC", "4H"], rummy_calls="off", episode="hand")
    g.play("take 0")
    assert {"meld 4H 5H 6H", "meld 5H 6H 7H"} <= g.legal()
    g.play("meld 5H 6H 7H", "layoff 4H run")
    assert g.sd()["phase"] == "game_over"
    assert g.sd()["hand_scores"] == [22, -9]


def test_going_out_by_melding_after_taking_a_joker_from_the_top():
    """§6.1 going out by melding every card, after a top take (docs/api.md: A joker in the pile is a card
    like any other: it may be taken): two jokers in hand, a third taken (two decks), meld all
    three as a run."""
    g = start(hands=[["JK", "JK"], ["9S"]], discard=["9H", "JK"], decks=2, rummy_calls="off", episode="hand")
    assert "take 0" in g.legal()
    g.play("take 0", "meld 5H 6H 7H")
    assert g.sd()["phase"] == "game_over"
