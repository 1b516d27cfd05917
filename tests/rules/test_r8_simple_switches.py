"""docs/rules.md §8.3, 8.4, 8.7 — stock_draw, first_discard, next_dealer, the scoring switches
(card_values ace_15 / ace_25 / four_aces_100, stock_exhausted end_no_penalty / play_out,
seven_run_bonus), through the public API with docs/rules.md's numbers."""

import collections

import pytest

import rummy_env
from rummy_env import Rules

from .helpers import Game, P, deck_for, norm, scenario, start

H = dict(episode="hand", rummy_calls="off")


def start_short(hands, stock, discard_top=(), melds=(), current_player=0, dealer=None, extra=None, **rules):
    """A scenario whose stock is exactly ``stock`` (top first): every other card sits in the pile
    below ``discard_top``."""
    rules.setdefault("players", len(hands))
    deck = collections.Counter(deck_for(rules["players"], rules.get("decks"), rules.get("jokers_per_deck", 2)))
    used = [norm(c) for h in hands for c in h] + [norm(c) for c in stock] + [norm(c) for c in discard_top]
    used += [norm(c) for m in melds for c in m["cards"]]
    deck.subtract(collections.Counter(used))
    rest = sorted(deck.elements())
    S = scenario(hands, rest + list(discard_top), melds, stock, current_player, dealer, rules=rules, **(extra or {}))
    S["stock"] = list(stock)
    e = rummy_env.raw_env(**rules)
    e.reset(seed=0, options={"scenario": S})
    from .helpers import Game

    return Game(e, rules)


# ----------------------------------------------------------------------------- §8.3 stock_draw
def test_stock_draw_two_takes_the_top_two_cards():
    """§8.3: "A draw from the stock takes the top two cards"."""
    g = start(
        hands=[["5H", "6H", "9C"], ["2C", "3D", "KS"]], discard=["KC"], stock_top=["7H", "2S", "4D"], stock_draw=2, **H
    )
    before = len(g.sd()["stock"])
    g.play("p0:draw")
    sd = g.sd()
    assert sorted(sd["hands"][0]) == sorted(["5H", "6H", "9C", "7H", "2S"])
    assert len(sd["stock"]) == before - 2 and sd["stock"][0] == "4D"
    assert sd["known"][0] == [], "cards drawn from the stock stay hidden"
    g.play("p0:meld 5H 6H 7H", "p0:discard 2S")
    assert g.agent == P(1)


def test_stock_draw_two_takes_the_last_card_alone():
    """§8.3: "(the last one if only one is left)"."""
    g = start_short([["5H", "6H", "9C"], ["2C", "3D", "KS"]], stock=["7H"], discard_top=["KC"], stock_draw=2, **H)
    g.play("p0:draw")
    sd = g.sd()
    assert sd["stock"] == [] and "7H" in sd["hands"][0] and len(sd["hands"][0]) == 4


def test_stock_draw_two_leaves_the_pile_unchanged():
    """§8.3: "Taking from the discard pile is unchanged" (take 0: one card)."""
    g = start(hands=[["5H", "6H", "9C"], ["2C", "3D", "KS"]], discard=["KC", "7H"], stock_draw=2, **H)
    g.play("p0:take 0")
    assert sorted(g.sd()["hands"][0]) == sorted(["5H", "6H", "9C", "7H"])


def test_stock_draw_validation_and_boathouse_preset():
    """docs/api.md: stock_draw is 1 or 2; the boathouse preset is stock_draw 2."""
    with pytest.raises(ValueError, match="stock_draw"):
        Rules(stock_draw=3)
    with pytest.raises(ValueError, match="stock_draw"):
        Rules(stock_draw=True)
    assert Rules.preset("boathouse") == Rules(stock_draw=2)
    assert Rules.preset("boathouse", players=3) == Rules(stock_draw=2, players=3)
    assert rummy_env.raw_env(preset="boathouse").rules.stock_draw == 2


# ----------------------------------------------------------------------------- §8.4 first_discard
def test_first_discard_player_deals_an_extra_card_and_opens_the_pile():
    """§8.4 "player": no card is turned; the player left of the dealer is dealt one extra card
    and, as their whole first turn, discards any card to start the pile."""
    e = rummy_env.raw_env(first_discard="player", players=3)
    e.reset(seed=3)
    sd = e.state_dict()
    assert sd["phase"] == "opening" and sd["discard"] == []
    assert [len(h) for h in sd["hands"]] == [8, 7, 7]
    assert e.agent_selection == P(0)
    legal = {e.action_to_str(int(a)) for a in e.observe(P(0))["action_mask"].nonzero()[0]}
    assert legal == {f"discard {c}" for c in sd["hands"][0]}
    card = sorted(sd["hands"][0])[0]
    e.step(e.action_from_str(f"discard {card}"))
    sd = e.state_dict()
    assert sd["discard"] == [card] and sd["phase"] == "draw" and e.agent_selection == P(1)
    assert len(sd["hands"][0]) == 7


def test_first_discard_refuses_everything_but_a_discard():
    """§8.4: "no draw, no melding" in the opening turn (illegal actions raise ValueError)."""
    g = start(
        hands=[["5H", "6H", "7H", "9C"], ["2C", "3D", "KS"]],
        discard=[],
        first_discard="player",
        extra={"phase": "opening"},
        **H,
    )
    g.exact({"discard 5H", "discard 6H", "discard 7H", "discard 9C"})
    g.refuse("draw")
    g.refuse("meld 5H 6H 7H")
    g.play("p0:discard 9C")
    assert g.sd()["phase"] == "draw" and g.agent == P(1)


def test_first_discard_opens_no_rummy_window():
    """§8.4: "(no draw, no melding, no 'Rummy!' window)": even a card that fits a meld on the
    table goes to the next player's draw."""
    melds = [{"owner": 1, "cards": ["5C", "6C", "7C"]}]
    g = start(
        hands=[["8C", "KD"], ["2D", "3D", "KS"]],
        discard=[],
        melds=melds,
        first_discard="player",
        extra={"phase": "opening"},
        episode="hand",
    )
    g.play("p0:discard 8C")
    assert g.sd()["phase"] == "draw" and g.agent == P(1)


def test_first_discard_every_hand_of_a_game():
    """Each new deal starts with the opening discard."""
    g = start(
        hands=[["5H", "6H", "7H"], ["2C", "3D", "KS"]],
        discard=["KC"],
        stock_top=["2S"],
        first_discard="player",
        rummy_calls="off",
        target_score=500,
    )
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2S")
    sd = g.sd()
    assert sd["phase"] == "opening" and sd["discard"] == [] and sd["dealer"] == 0
    assert [len(h) for h in sd["hands"]] == [13, 14] and g.agent == P(1)


def test_first_discard_value_is_checked():
    with pytest.raises(ValueError, match="first_discard"):
        Rules(first_discard="dealer")


# ----------------------------------------------------------------------------- §8.4 next_dealer
def _three_player_hand(goer, **rules):
    """player_0 deals; player ``goer`` plays first and goes out with 5♠6♠7♠."""
    hands = [["2D", "9S", "QD"], ["3C", "9C", "QC"], ["4H", "9H", "QH"]]
    hands[goer] = ["5S", "6S", "7S"]
    g = start(
        hands=hands,
        discard=["KC"],
        stock_top=["2S", "3S", "4S"],
        current_player=goer,
        dealer=0,
        rummy_calls="off",
        target_score=500,
        **rules,
    )
    g.play(f"p{goer}:draw", f"p{goer}:meld 5S 6S 7S", f"p{goer}:discard 2S")
    return g


def test_next_dealer_winner_deals():
    """§8.4 "winner": the player who went out deals the next hand."""
    g = _three_player_hand(2, next_dealer="winner")
    assert g.sd()["dealer"] == 2 and g.agent == P(0)
    g = _three_player_hand(1, next_dealer="winner")
    assert g.sd()["dealer"] == 1 and g.agent == P(2)


def test_next_dealer_left_by_default():
    g = _three_player_hand(2)
    assert g.sd()["dealer"] == 1 and g.agent == P(2)


def test_next_dealer_winner_passes_left_when_nobody_went_out():
    """§8.4: "(the deal passes left when nobody went out)"."""
    g = start_short(
        [["2D", "9S"], ["3C", "9C"]],
        stock=[],
        discard_top=["KC"],
        dealer=1,
        next_dealer="winner",
        rummy_calls="off",
        target_score=500,
    )
    g.play("p0:stop")
    assert g.sd()["dealer"] == 0 and g.agent == P(1)


# ----------------------------------------------------------------------------- §8.7 card values
def test_ace_15_low_ace_counts_15():
    """§8.7 "ace_15": "an ace always counts 15, also low in a run (A-2-3 = 20)"."""
    g = start(
        hands=[["AH", "2H", "3H", "9C"], ["AC", "3D", "KS"]],
        discard=["KC"],
        stock_top=["4D"],
        card_values="ace_15",
        **H,
    )
    g.play("p0:draw", "p0:meld AH 2H 3H")
    assert g.sd()["melded_points"][0] == 20
    g.play("p0:discard 9C", "p1:draw")
    g.play("p1:discard KS", "p0:draw")


def test_ace_15_hand_and_layoff():
    """An ace laid off low counts 15 under ace_15 (1 by default)."""
    melds = [{"owner": 1, "cards": ["2H", "3H", "4H"]}]
    for values, want in (("ace_15", 15), ("standard", 1)):
        g = start(
            hands=[["AH", "9C", "8D"], ["AC", "3D", "KS"]],
            discard=["KC"],
            melds=melds,
            stock_top=["4D"],
            card_values=values,
            extra={"melded_points": [0, 9]},
            **H,
        )
        g.play("p0:draw", "p0:layoff AH run")
        assert g.sd()["melded_points"][0] == want


def test_ace_25_on_the_table_and_in_hand():
    """§8.7 "ace_25": "an ace always counts 25, on the table and in hand" (A-2-3 = 30)."""
    g = start(
        hands=[["AH", "2H", "3H", "9C"], ["AC", "3D", "KS"]],
        discard=["KC"],
        stock_top=["4H"],
        card_values="ace_25",
        **H,
    )
    g.play("p0:draw", "p0:meld AH 2H 3H")
    assert g.sd()["melded_points"][0] == 30
    g.play("p0:layoff 4H run", "p0:discard 9C")
    sd = g.sd()
    assert sd["phase"] == "game_over" and sd["hand_scores"] == [34, -(25 + 3 + 10)]


def test_four_aces_100_laying_off_the_fourth_ace():
    """§8.7 "four_aces_100": each ace in a group of four aces counts 25 (the group 100), whoever
    put each ace there; docs/api.md: laying off the fourth ace adds 10 to each earlier ace's owner."""
    melds = [{"owner": 0, "cards": ["AC", "AD", "AH"]}]
    g = start(
        hands=[["9C", "8D", "KD"], ["AS", "3D", "KS"]],
        discard=["KC"],
        melds=melds,
        stock_top=["4D", "5D"],
        card_values="four_aces_100",
        current_player=1,
        extra={"melded_points": [45, 0]},
        **H,
    )
    g.play("p1:draw", "p1:layoff AS group")
    assert g.sd()["melded_points"] == [75, 25]
    assert sum(g.sd()["melded_points"]) == 100


def test_four_aces_100_owners_of_each_ace():
    """A group A A JK completed by a natural ace: the three natural aces count 25, the joker 15."""
    melds = [{"owner": 0, "cards": ["AC", "AD", "JK"], "owners": [0, 0, 0]}]
    g = start(
        hands=[["9C", "8D", "AH"], ["2S", "3D", "KS"]],
        discard=["KC"],
        melds=melds,
        stock_top=["4D", "5D"],
        card_values="four_aces_100",
        extra={"melded_points": [45, 0]},
        **H,
    )
    g.play("p0:draw", "p0:layoff AH group")
    assert g.sd()["melded_points"][0] == 45 + 25 + 20


def test_four_aces_100_joker_as_fourth():
    """A joker completing four aces: the natural aces count 25, the joker 15."""
    melds = [{"owner": 0, "cards": ["AC", "AD", "AH"]}]
    g = start(
        hands=[["9C", "8D", "KD"], ["JK", "3D", "KS"]],
        discard=["KC"],
        melds=melds,
        stock_top=["4D", "5D"],
        card_values="four_aces_100",
        current_player=1,
        extra={"melded_points": [45, 0]},
        **H,
    )
    g.play("p1:draw", "p1:layoff JK as A group")
    assert g.sd()["melded_points"] == [75, 15]


def test_four_aces_100_three_aces_and_other_groups_score_normally():
    """Three aces score 45; an ace left in hand counts 15."""
    g = start(
        hands=[["AC", "AD", "AH", "9C", "9S"], ["AS", "3D", "KS"]],
        discard=["KC"],
        stock_top=["9D"],
        card_values="four_aces_100",
        **H,
    )
    g.play("p0:draw", "p0:meld AC AD AH")
    assert g.sd()["melded_points"][0] == 45
    g.play("p0:meld 9C 9D 9S")
    assert g.sd()["hand_scores"] == [72, -(15 + 3 + 10)]


# ----------------------------------------------------------------------------- §8.7 stock_exhausted
def test_end_no_penalty_keeps_the_cards_in_hand_unsubtracted():
    """§8.7 "end_no_penalty": "when the hand ends on an empty stock nobody subtracts the cards
    left in hand"."""
    melds = [{"owner": 1, "cards": ["KD", "KH", "KS"]}]
    for mode, want in (("end_no_penalty", [0, 30]), ("end", [-11, 30 - 12])):
        g = start_short(
            [["2D", "9S"], ["3C", "9C"]],
            stock=[],
            discard_top=["QC"],
            melds=melds,
            stock_exhausted=mode,
            extra={"melded_points": [0, 30]},
            **H,
        )
        g.play("p0:stop")
        assert g.sd()["hand_scores"] == want, mode


def test_end_no_penalty_still_subtracts_when_someone_goes_out():
    g = start(
        hands=[["5H", "6H", "7H"], ["3C", "9D"]],
        discard=["KC"],
        stock_top=["2C"],
        stock_exhausted="end_no_penalty",
        **H,
    )
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    assert g.sd()["hand_scores"] == [18, -12]


def test_play_out_offers_skip_and_obliging_takes():
    """§8.7 "play_out": once the stock is empty a player either takes from the pile (every
    take, the top card too, must then meld the taken card at once) or plays without drawing."""
    g = start_short(
        [["5H", "6H", "9S", "2D"], ["3C", "9C", "4S"]],
        stock=[],
        discard_top=["QC", "7H"],
        stock_exhausted="play_out",
        **H,
    )
    legal = g.legal()
    assert "skip" in legal and "take 0" in legal
    assert "stop" not in legal and "draw" not in legal and "take 1" not in legal
    g.play("p0:take 0")
    assert g.sd()["obliged"] == "7H"
    g.refuse("discard 9S")
    g.play("p0:meld 5H 6H 7H", "p0:discard 9S")


def test_play_out_top_take_needs_a_meld():
    """The top card alone may not be taken when it cannot be melded at once."""
    g = start_short(
        [["5H", "6H", "9S", "2D"], ["3C", "9C", "4S"]],
        stock=[],
        discard_top=["7H", "KD"],
        stock_exhausted="play_out",
        **H,
    )
    legal = g.legal()
    assert "take 0" not in legal and {"skip", "take 1"} <= legal
    g.refuse("take 0")


def _run(suit: str, low: str, owner: int) -> dict:
    """A run of ``suit`` from rank ``low`` up to the king, put down by ``owner``."""
    return {"owner": owner, "cards": [r + suit for r in "A23456789TJQK"["A23456789TJQK".index(low) :]]}


def test_play_out_top_take_laid_off_under_take_requires_new_meld():
    """§8.7: under play_out "every take, the top card too, must then meld the taken card at once" (a lay-off melds
    it); docs/api.md: take_requires_new_meld covers a top-only take only when take_top_requires_meld is on."""
    rules = {"players": 2, "jokers_per_deck": 0, "stock_exhausted": "play_out", "take_requires_new_meld": True}
    melds = [_run("C", "A", 0), _run("D", "A", 1), _run("H", "4", 0), _run("S", "6", 1)]
    hands = [["AH", "3S"], ["2H", "3H", "2S", "4S"]]
    sc = scenario(hands, ["AS", "5S"], melds, current_player=0, dealer=1, rules=rules)
    env = rummy_env.raw_env(**rules)
    env.reset(seed=0, options={"scenario": {**sc, "stock": []}})
    g = Game(env, rules)
    g.exact({"skip", "take 0"})
    g.play("p0:take 0")
    assert g.sd()["obliged"] == "5S"
    g.exact({"layoff 5S run"})
    again = rummy_env.raw_env(**rules)
    again.reset(seed=0, options={"scenario": g.sd()})  # the loaded position keeps the lay-off
    assert Game(again, rules).legal() == {"layoff 5S run"}
    before = g.sd()["melded_points"][0]
    g.play("p0:layoff 5S run")
    assert g.sd()["melded_points"][0] == before + 5
    top = {**rules, "take_top_requires_meld": True}  # control: now the top card must go into a new meld
    env = rummy_env.raw_env(**top)
    env.reset(seed=0, options={"scenario": {**sc, "stock": []}})
    Game(env, top).exact({"skip"})


def test_play_out_skip_then_meld_and_discard_until_someone_goes_out():
    g = start_short(
        [["5H", "6H", "7H", "2D", "9S"], ["3C", "9C", "4S"]],
        stock=[],
        discard_top=["KD"],
        stock_exhausted="play_out",
        **H,
    )
    g.play("p0:skip")
    assert g.sd()["phase"] == "play"
    g.refuse("skip")
    g.play("p0:meld 5H 6H 7H", "p0:discard 9S", "p1:skip", "p1:discard 4S")
    assert g.sd()["phase"] == "draw" and g.agent == P(0)
    g.play("p0:skip", "p0:discard 2D")
    sd = g.sd()
    assert sd["phase"] == "game_over" and sd["hand_scores"] == [18, -12]


def test_play_out_refuses_skip_while_the_stock_lasts_and_floating():
    g = start(hands=[["5H", "6H", "9C"], ["2C", "3D", "KS"]], discard=["KC"], stock_exhausted="play_out", **H)
    g.refuse("skip")
    with pytest.raises(ValueError, match="play_out"):
        Rules(stock_exhausted="play_out", going_out="float")
    with pytest.raises(ValueError, match="play_out"):
        Rules(stock_exhausted="play_out", going_out="float_unplayable_discard")
    with pytest.raises(ValueError, match="skip"):
        rummy_env.raw_env().action_from_str("skip")


# ----------------------------------------------------------------------------- §8.7 seven_run_bonus
SEVEN = ["5H", "6H", "7H", "8H", "9H", "TH"]


def test_seven_run_bonus_for_going_out_by_discarding():
    """§8.7: a run of 7 put down in one turn from the hand, then going out by discarding: +500;
    docs/api.md: booked on the player who went out, hand_scores include it."""
    g = start(hands=[SEVEN + ["2C"], ["3C", "9D"]], discard=["KC"], stock_top=["JH"], seven_run_bonus=500, **H)
    g.play("p0:draw", "p0:meld 5H 6H 7H")
    assert g.sd()["turn_melds"] == [0]
    for card in ("8H", "9H", "TH", "JH"):
        g.play(f"p0:layoff {card} run")
    g.play("p0:discard 2C")
    sd = g.sd()
    assert sd["hand_scores"] == [55 + 500, -12] and sd["scores"] == [555, -12]


def test_seven_run_bonus_with_a_joker():
    g = start(
        hands=[["5H", "6H", "JK", "8H", "9H", "TH", "2C"], ["3C", "9D"]],
        discard=["KC"],
        stock_top=["JH"],
        seven_run_bonus=500,
        **H,
    )
    g.play(
        "p0:draw",
        "p0:meld 5H 6H 7H",
        "p0:layoff 8H run",
        "p0:layoff 9H run",
        "p0:layoff TH run",
        "p0:layoff JH run",
        "p0:discard 2C",
    )
    assert g.sd()["hand_scores"][0] == 5 + 6 + 15 + 8 + 9 + 10 + 10 + 500


def test_no_seven_run_bonus_when_going_out_by_melding():
    """docs/api.md: going out by melding earns no bonus."""
    g = start(hands=[SEVEN, ["3C", "9D"]], discard=["KC"], stock_top=["JH"], seven_run_bonus=500, **H)
    g.play(
        "p0:draw", "p0:meld 5H 6H 7H", "p0:layoff 8H run", "p0:layoff 9H run", "p0:layoff TH run", "p0:layoff JH run"
    )
    assert g.sd()["hand_scores"] == [55, -12]


def test_no_seven_run_bonus_for_six_cards_or_an_older_run():
    """Six cards are not enough; lay-offs on a run melded in an earlier turn do not count."""
    g = start(hands=[SEVEN[:5] + ["2C"], ["3C", "9D"]], discard=["KC"], stock_top=["TH"], seven_run_bonus=500, **H)
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:layoff 8H run", "p0:layoff 9H run", "p0:layoff TH run", "p0:discard 2C")
    assert g.sd()["hand_scores"] == [45, -12]
    melds = [{"owner": 0, "cards": ["5H", "6H", "7H", "8H"]}]
    g = start(
        hands=[["9H", "TH", "JH"], ["3C", "9D"]],
        discard=["KC"],
        melds=melds,
        stock_top=["2C"],
        seven_run_bonus=500,
        extra={"melded_points": [26, 0]},
        **H,
    )
    g.play("p0:draw", "p0:layoff 9H run", "p0:layoff TH run", "p0:layoff JH run", "p0:discard 2C")
    assert g.sd()["hand_scores"] == [55, -12]


def test_seven_run_bonus_validation():
    with pytest.raises(ValueError, match="seven_run_bonus"):
        Rules(seven_run_bonus=-500)
