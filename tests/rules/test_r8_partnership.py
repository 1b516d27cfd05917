"""docs/rules.md §8.1 Partnership 500 Rum and the scoring switches of §8.2 (docs/rules.md §8):
sides, side scores and rewards, game end by side score or after ``deals`` hands, bonuses, joker points."""

import pytest

import rummy_env
from rummy_env import Rules

from .helpers import P, start

TEAM = {"partnership": True, "rummy_calls": "off"}


class _Approx(list):
    def __eq__(self, other):
        return len(self) == len(other) and all(abs(a - b) <= 1e-12 for a, b in zip(self, other, strict=True))


def _returns(g):
    return _Approx(g.returns[P(i)] for i in range(4))


def _goes_out(seat=0, scores=(0, 0, 0, 0), left=(["2D"], ["3D"], ["4D"]), **rules):
    """``seat`` goes out with 5♥6♥7♥ (+18, drawing and discarding 2♣); the other seats hold ``left`` in turn."""
    others = iter(left)
    hands = [["5H", "6H", "7H"] if p == seat else list(next(others)) for p in range(4)]
    g = start(
        hands=hands, discard=["KC"], stock_top=["2C"], scores=list(scores), current_player=seat, **{**TEAM, **rules}
    )
    g.play(f"p{seat}:draw", f"p{seat}:meld 5H 6H 7H", f"p{seat}:discard 2C")
    return g


def test_partnership_needs_four_players():
    """§8.1: "Exactly 4 players"; docs/api.md: ValueError for `partnership` without 4 players."""
    for players in (2, 3, 5):
        with pytest.raises(ValueError, match="partnership"):
            Rules(players=players, partnership=True)
    assert Rules(players=4, partnership=True).sides == 2


def test_side_scores_are_the_partners_sums():
    """§8.1: "a side's hand score is the sum of its two players' hand scores, and sides keep one cumulative
    score"; docs/api.md: `scores` hold each player's own score, `side_scores` (derived) the sides'."""
    g = _goes_out(scores=(100, 40, 50, 30))
    sd = g.sd()
    assert sd["hand_scores"] == [18, -2, -3, -4]
    assert sd["scores"] == [118, 38, 47, 26]
    assert sd["side_scores"] == [118 + 47, 38 + 26]


def test_side_scores_are_read_only_in_a_scenario():
    """docs/api.md: `side_scores` is derived and read-only: a scenario may repeat it, but not contradict it."""
    sd = _goes_out().sd()
    env = rummy_env.raw_env(players=4, partnership=True)
    env.reset(seed=1, options={"scenario": sd})
    assert env.state_dict() == sd
    with pytest.raises(ValueError, match="side_scores"):
        env.reset(seed=1, options={"scenario": {**sd, "side_scores": [0, 0]}})


def test_game_ends_when_a_side_reaches_the_target():
    """§8.1: "The game ends when a side reaches target_score" (no single player needs 500); docs/api.md: both players
    of a side get the side's reward, +1 each winner, −1 each loser."""
    g = _goes_out(scores=(250, 0, 240, 0))
    sd = g.sd()
    assert sd["side_scores"] == [268 + 237, -2 - 4]
    assert sd["phase"] == "game_over" and g.done()
    assert _returns(g) == [1, -1, 1, -1]


def test_below_target_the_next_hand_is_dealt():
    """§8.1 the game goes on while no side has reached the target; rewards stay zero."""
    g = _goes_out(scores=(250, 0, 200, 0))
    assert g.sd()["phase"] == "draw" and not g.done()
    assert _returns(g) == [0, 0, 0, 0]


def test_highest_side_wins_even_if_the_other_went_out():
    """§8.1: "the side with the highest score wins even if the other side went out"."""
    g = _goes_out(seat=1, scores=(300, 250, 300, 240), left=(["2D"], ["3D"], ["4D"]))
    sd = g.sd()
    assert sd["side_scores"] == [298 + 297, 268 + 236]
    assert sd["phase"] == "game_over"
    assert _returns(g) == [1, -1, 1, -1]


@pytest.mark.parametrize("tie_break", ["play_on", "went_out"])
def test_tie_break_applies_to_sides(tie_break):
    """§8.1: "tie_break … appl[ies] to sides (the side of the player who went out)"."""
    g = _goes_out(seat=1, scores=(300, 250, 300, 331), tie_break=tie_break)
    sd = g.sd()
    assert sd["side_scores"] == [298 + 297, 268 + 327]
    if tie_break == "play_on":
        assert sd["phase"] == "draw" and _returns(g) == [0, 0, 0, 0]
    else:
        assert sd["phase"] == "game_over" and _returns(g) == [-1, 1, -1, 1]


def test_must_go_out_to_win_applies_to_the_side_that_went_out():
    """§8.1: `must_go_out_to_win` applies to sides: the side of the player who went out wins with the target,
    even when the other side has more; below it, another hand is played."""
    g = _goes_out(seat=1, scores=(300, 250, 300, 240), must_go_out_to_win=True)
    sd = g.sd()
    assert sd["side_scores"] == [595, 504]
    assert sd["phase"] == "game_over" and _returns(g) == [-1, 1, -1, 1]
    g = _goes_out(seat=1, scores=(300, 100, 300, 100), must_go_out_to_win=True)
    assert g.sd()["phase"] == "draw" and not g.done()


def test_score_reward_is_the_side_difference():
    """docs/api.md reward "score": each player gets (side hand score − other side's) / 100; the sum is zero."""
    g = _goes_out(reward="score")
    side0, side1 = 18 - 3, -2 - 4
    assert _returns(g) == [(side0 - side1) / 100, (side1 - side0) / 100] * 2


@pytest.mark.parametrize(
    "left,expected", [((["2D"], ["3D"], ["4D"]), [1, -1, 1, -1]), ((["4D"], ["TD", "TS", "KD"], ["8D"]), [0, 0, 0, 0])]
)
def test_episode_hand_higher_side_hand_wins_and_a_tie_pays_zero(left, expected):
    """docs/api.md: A side's win reward with episode=hand": the higher side hand score wins, a tie pays 0"."""
    g = _goes_out(left=left, episode="hand")
    assert g.sd()["phase"] == "game_over"
    assert _returns(g) == expected


def test_partners_may_lay_off_on_each_others_melds():
    """§8.1: "Each player melds, lays off (on any meld, the partner's included)" and the card scores for whoever
    lays it off."""
    melds = [{"owner": 0, "cards": ["5H", "6H", "7H"]}]
    g = start(
        hands=[["2C", "3C"], ["KD", "KS"], ["8H", "QC", "QD"], ["4S", "4D"]],
        discard=["9S"],
        melds=melds,
        stock_top=["AS"],
        current_player=2,
        extra={"melded_points": [18, 0, 0, 0]},
        **TEAM,
    )
    g.play("p2:draw", "p2:layoff 8H run", "p2:discard AS")
    sd = g.sd()
    assert sd["melds"][0]["owners"] == [0, 0, 0, 2]
    assert sd["melded_points"] == [18, 0, 8, 0]


def test_deals_fix_the_number_of_hands():
    """§8.2: "deals: 2: the game is exactly two hands (target_score is not used)"; docs/api.md state key
    `hands_played` counts the hands finished."""
    g = _goes_out(scores=(900, 0, 0, 0), deals=2)
    sd = g.sd()
    assert sd["hands_played"] == 1 and sd["phase"] == "draw" and not g.done()
    assert [len(h) for h in sd["hands"]] == [7, 7, 7, 7]


def test_last_deal_ends_the_game_and_books_the_final_bonus():
    """§8.2: after the last deal "the side with the higher total gets final_bonus: 50 and wins"; docs/api.md: booked on
    the winning side's lower seat, included in hand_scores (scores move by exactly hand_scores)."""
    hands = [["5H", "6H", "7H"], ["2D"], ["3D"], ["4D"]]
    g = start(
        hands=hands,
        discard=["KC"],
        stock_top=["2C"],
        scores=[10, 20, 30, 5],
        deals=2,
        final_bonus=50,
        extra={"hands_played": 1},
        **TEAM,
    )
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    sd = g.sd()
    assert sd["phase"] == "game_over" and sd["hands_played"] == 2
    assert sd["hand_scores"] == [18 + 50, -2, -3, -4]
    assert sd["scores"] == [78, 18, 27, 1]
    assert sd["side_scores"] == [105, 19]
    assert _returns(g) == [1, -1, 1, -1]


def test_last_deal_tie_plays_another_hand():
    """§8.2: "a tie is broken as tie_break says (play another hand, …)"."""
    hands = [["5H", "6H", "7H"], ["2D"], ["3D"], ["4D"]]
    g = start(hands=hands, discard=["KC"], stock_top=["2C"], scores=[0, 10, 0, 15], deals=1, final_bonus=50, **TEAM)
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    sd = g.sd()
    assert sd["hand_scores"] == [18, -2 + 50, -3, -4]
    assert sd["side_scores"] == [15, 69] and sd["phase"] == "game_over"
    assert _returns(g) == [-1, 1, -1, 1]
    g = start(hands=hands, discard=["KC"], stock_top=["2C"], scores=[0, 6, 0, 15], deals=1, **TEAM)
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    sd = g.sd()
    assert sd["side_scores"] == [15, 15] and sd["phase"] == "draw" and sd["hands_played"] == 1


def test_going_out_bonus_goes_to_the_player_who_went_out():
    """§8.2: "going_out_bonus: 25: the side of the player who goes out scores 25 more for that hand"; docs/api.md:
    booked on the player who went out, included in hand_scores."""
    g = _goes_out(seat=1, going_out_bonus=25)
    sd = g.sd()
    assert sd["hand_scores"] == [-2, 18 + 25, -3, -4]
    assert sd["side_scores"] == [-5, 39]


def test_joker_points():
    """§8.2: "joker_points: 20: a joker counts 20, on the table and in hand"."""
    g = start(
        hands=[["5H", "6H", "JK"], ["JK", "2D"], ["3D"], ["4D"]],
        discard=["KC"],
        stock_top=["2C"],
        joker_points=20,
        **TEAM,
    )
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    assert g.sd()["hand_scores"] == [5 + 6 + 20, -22, -3, -4]


def test_deals_and_target_score_do_not_mix():
    """docs/api.md: invalid combinations raise ValueError naming the fields."""
    with pytest.raises(ValueError, match="deals"):
        Rules(deals=2, target_score=300)
    with pytest.raises(ValueError, match="must_go_out_to_win"):
        Rules(deals=2, must_go_out_to_win=True)
    with pytest.raises(ValueError, match="deals"):
        Rules(deals=0)
    with pytest.raises(ValueError, match="joker_points"):
        Rules(joker_points=-1)
    with pytest.raises(ValueError, match="jokers_per_deck"):
        Rules(jokers_per_deck=3)


def test_presets():
    """docs/api.md: `Rules.preset(name, **overrides)`: "pagat" = the defaults, "wikipedia" = take_requires_new_meld,
    "partnership" = partnership with 4 players; `rummy_env.env(preset=...)`; `rules=` and `preset=` together raise."""
    assert Rules.preset("pagat") == Rules()
    assert Rules.preset("wikipedia") == Rules(take_requires_new_meld=True)
    assert Rules.preset("partnership") == Rules(players=4, partnership=True)
    assert Rules.preset("partnership", target_score=300).target_score == 300
    assert rummy_env.raw_env(preset="partnership", reward="score").rules == Rules(
        players=4, partnership=True, reward="score"
    )
    with pytest.raises(ValueError, match="preset"):
        Rules.preset("bridge")
    with pytest.raises(ValueError, match="partnership"):
        Rules.preset("partnership", players=3)
    with pytest.raises(ValueError, match="preset"):
        rummy_env.env(rules=Rules(), preset="pagat")


def test_fifty_six_cards_with_four_jokers():
    """§8.2: "56 cards: 52 + 4 jokers (jokers_per_deck: 4)"."""
    env = rummy_env.raw_env(players=4, jokers_per_deck=4)
    env.reset(seed=3)
    sd = env.state_dict()
    cards = [c for h in sd["hands"] for c in h] + sd["discard"] + sd["stock"]
    assert len(cards) == 56 and cards.count("JK") == 4


def test_observation_shows_the_sides():
    """docs/api.md: observations carry the side: own side's and the other side's scores, the partner's public cards
    (melded, laid off, known) and the hands left to play."""
    from rummy_env.engine import obs_layout

    g = _goes_out(scores=(100, 40, 50, 30), deals=3)
    env = g.env
    layout = obs_layout(4, env.spec.copies, partnership=True, deals=True)
    for seat in range(4):
        obs = env.observe(P(seat))["observation"]
        own, other = obs[layout.slice("side_scores")]
        sides = env.state_dict()["side_scores"]
        assert own == pytest.approx(sides[seat % 2] / 500) and other == pytest.approx(sides[1 - seat % 2] / 500)
        assert obs[layout.slice("hands_left")][0] == pytest.approx(2 / 3)
    plain = rummy_env.raw_env(players=4)
    assert plain.observation_space(P(0))["observation"].shape[0] == obs_layout(4, env.spec.copies).size
    assert env.observation_space(P(0))["observation"].shape[0] == layout.size
    assert layout.size == obs_layout(4, env.spec.copies).size + 3


def test_render_shows_sides():
    """docs/api.md: Rendering shows sides."""
    env = rummy_env.raw_env(preset="partnership", deals=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "side 0 (player_0+player_2)=0" in text and "hands played: 0 of 2" in text
