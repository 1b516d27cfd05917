"""docs/rules.md §7 — scoring, the game to target_score, tie-break, must_go_out_to_win; docs/api.md episodes
and rewards."""

import pytest

from .helpers import P, deck_for, start


def _goer(scores, p1_hand=("2D",), p1_meld=False, others=(), **rules):
    """player_0 goes out with 5♥6♥7♥ (+18): draws 2♣, melds, discards 2♣. player_1 optionally
    has K♦K♥K♠ (30) on the table."""
    hands = [["5H", "6H", "7H"], list(p1_hand)] + [list(h) for h in others]
    n = len(hands)
    melds, extra = [], None
    if p1_meld:
        melds = [{"owner": 1, "cards": ["KD", "KH", "KS"]}]
        extra = {"melded_points": [0, 30] + [0] * (n - 2)}
    g = start(
        hands=hands,
        discard=["KC"],
        melds=melds,
        stock_top=["2C"],
        scores=list(scores),
        extra=extra,
        rummy_calls="off",
        **rules,
    )
    g.play("p0:draw", "p0:meld 5H 6H 7H", "p0:discard 2C")
    return g


class _Approx(list):
    """Returns compared to 1e-12 (rewards are float64 fractions such as 0.15)."""

    def __eq__(self, other):
        return len(self) == len(other) and all(abs(a - b) <= 1e-12 for a, b in zip(self, other, strict=True))


def _returns(g):
    return _Approx(g.returns[P(i)] for i in range(len(g.returns)))


def test_hand_score_is_melded_minus_hand_and_may_be_negative():
    """§7: "each player scores the total value of the cards they melded and laid off, minus the
    value of the cards left in their hand, even cards that could have been melded. A hand score
    and a cumulative score can be negative." §3 "A card laid off scores for the player who lays
    it off"."""
    g = start(
        hands=[["5H", "6H", "7H", "2S", "3S"], ["KC", "4D", "KD", "KS"]],
        discard=["QC"],
        stock_top=["9D", "8H", "4S"],
        scores=[10, -5],
        episode="hand",
        rummy_calls="off",
    )
    g.play(
        "p0:draw",
        "p0:meld 5H 6H 7H",
        "p0:discard 9D",
        "p1:draw",
        "p1:layoff 8H run",
        "p1:discard 4D",
        "p0:draw",
        "p0:meld 2S 3S 4S",
    )
    sd = g.sd()
    assert sd["phase"] == "game_over"
    assert sd["hand_scores"] == [18 + 9, 8 - 30]
    assert sd["scores"] == [10 + 27, -5 - 22]


def test_game_continues_below_target_and_scores_accumulate():
    """§7 "Hands are played until one or more players reach 500 or more"; docs/api.md: "With
    episode="game" the next hand is dealt as soon as one ends; scores then include the finished
    hand." Rewards "zero until the episode ends"."""
    g = _goer([0, 0])
    sd = g.sd()
    assert sd["phase"] == "draw" and not g.done()
    assert sd["hand_scores"] == [18, -2]
    assert sd["scores"] == [18, -2]
    assert [len(h) for h in sd["hands"]] == [13, 13]
    assert _returns(g) == [0, 0]


@pytest.mark.parametrize("start_score,over", [(482, True), (481, False)])
def test_reaching_target_ends_the_game(start_score, over):
    """§7: "until one or more players reach 500 or more (target_score, default 500)"; reward "win":
    "+1 for the winner and -1/(n-1) for each other player"."""
    g = _goer([start_score, 0])
    sd = g.sd()
    assert sd["scores"] == [start_score + 18, -2]
    if over:
        assert sd["phase"] == "game_over" and g.done()
        assert _returns(g) == [1, -1]
    else:
        assert sd["phase"] == "draw" and not g.done()
        assert _returns(g) == [0, 0]


def test_target_score_is_configurable():
    """docs/api.md `target_score` (500): a game to 100 ends at 108."""
    g = _goer([90, 0], target_score=100)
    assert g.sd()["phase"] == "game_over"
    assert _returns(g) == [1, -1]


def test_highest_cumulative_score_wins():
    """§7: "the highest cumulative score wins" — not necessarily the player who went out."""
    g = _goer([487, 530])
    assert g.sd()["scores"] == [505, 528]
    assert g.sd()["phase"] == "game_over"
    assert _returns(g) == [-1, 1]


def test_three_player_win_reward():
    """docs/api.md reward "win": "+1 for the winner and -1/(n-1) for each other player"."""
    g = _goer([490, 0, 0], others=[["3D"]])
    assert g.sd()["phase"] == "game_over"
    assert _returns(g) == [1, -0.5, -0.5]


@pytest.mark.parametrize("tie_break", ["play_on", "went_out"])
def test_tie_for_highest(tie_break):
    """§7: "A tie for the highest score is broken by playing further hands (variant tie_break:
    "went_out": among tied players, the one who went out in the last hand wins…)"."""
    g = _goer([492, 482], p1_meld=True, tie_break=tie_break)
    sd = g.sd()
    assert sd["hand_scores"] == [18, 28]
    assert sd["scores"] == [510, 510]
    if tie_break == "play_on":
        assert sd["phase"] == "draw" and not g.done()
        assert _returns(g) == [0, 0]
    else:
        assert sd["phase"] == "game_over"
        assert _returns(g) == [1, -1]


def test_went_out_tie_break_plays_on_when_goer_not_tied():
    """§7 tie_break "went_out": "…the one who went out in the last hand wins; otherwise play on"."""
    g = _goer([300, 510, 510], p1_hand=["2D"], others=[["2S"]], tie_break="went_out")
    sd = g.sd()
    assert sd["scores"] == [318, 508, 508]
    assert sd["phase"] == "draw" and not g.done()


@pytest.mark.parametrize("must", [False, True])
def test_must_go_out_to_win_example_505_beats_520(must):
    """§7: "Variant must_go_out_to_win: true: only the player who goes out can win, with 500 or more
    … (A out with 505 beats B with 520)."."""
    g = _goer([487, 522], must_go_out_to_win=must)
    sd = g.sd()
    assert sd["scores"] == [505, 520]
    assert sd["phase"] == "game_over"
    assert _returns(g) == ([1, -1] if must else [-1, 1])


@pytest.mark.parametrize("must", [False, True])
def test_must_go_out_to_win_goer_below_target_plays_on(must):
    """§7 must_go_out_to_win: "if they have less, another hand is played, even when someone else has
    more"."""
    g = _goer([400, 522], must_go_out_to_win=must)
    sd = g.sd()
    assert sd["scores"] == [418, 520]
    if must:
        assert sd["phase"] == "draw" and not g.done()
    else:
        assert sd["phase"] == "game_over" and _returns(g) == [-1, 1]


FULL = [{"owner": 0, "cards": [r + s for r in "A23456789TJQK"]} for s in "CDS"]


@pytest.mark.parametrize("must", [False, True])
def test_must_go_out_to_win_nobody_out_plays_on(must):
    """§7 must_go_out_to_win: "only the player who goes out can win" — a hand ended by an empty
    stock has no winner, however high the scores."""
    g = start(
        hands=[["AH", "3H", "4H", "5H", "7H", "8H", "9H", "QH", "TH"], ["2H", "6H", "JH"]],
        melds=FULL,
        discard=["KH"],
        stock_top=[],
        jokers_per_deck=0,
        rummy_calls="off",
        scores=[900, 0],
        must_go_out_to_win=must,
    )
    g.play("p0:stop")
    if must:
        assert g.sd()["phase"] == "draw" and not g.done()
    else:
        assert g.sd()["phase"] == "game_over" and _returns(g) == [1, -1]


def test_episode_hand_ignores_must_go_out_to_win():
    """docs/api.md: "With episode="hand", tie_break and must_go_out_to_win do not apply"; "with
    episode="hand" the highest hand score wins"."""
    g = _goer([0, 0], p1_meld=True, episode="hand", must_go_out_to_win=True)
    sd = g.sd()
    assert sd["phase"] == "game_over" and g.done()
    assert sd["hand_scores"] == [18, 28]
    assert _returns(g) == [-1, 1]


def test_episode_hand_tie_ignores_went_out():
    """docs/api.md reward "win", episode "hand": "k tied leaders each get n/(n-1)·(1/k − 1/n)" (2 players,
    k=2: 0); tie_break does not apply."""
    g = _goer([0, 0], p1_hand=["5D", "7C"], p1_meld=True, episode="hand", tie_break="went_out")
    assert g.sd()["hand_scores"] == [18, 18]
    assert _returns(g) == [0, 0]


def _three_way_stop(**rules):
    hands = [["2H", "6H", "TH"], ["3H", "5H", "QH"], ["4H", "7H", "8H", "9H", "JH", "KH"]]
    used = {c for h in hands for c in h}
    pile = [c for c in deck_for(3, None, 0) if c not in used]
    g = start(hands=hands, discard=pile, stock_top=[], jokers_per_deck=0, episode="hand", **rules)
    assert g.sd()["stock"] == []
    g.play("p0:stop")
    assert g.sd()["hand_scores"] == [-18, -18, -48]
    return g


def test_reward_win_tie_formula_three_players():
    """docs/api.md: "with episode="hand" the highest hand score wins; k tied leaders each get
    n/(n-1)·(1/k − 1/n), the others −1/(n−1)" — n=3, k=2: 1/4 each, −1/2."""
    g = _three_way_stop()
    assert _returns(g) == [0.25, 0.25, -0.5]


def test_reward_score_formula():
    """docs/api.md: reward="score": "(own hand score − mean of the others' hand scores) / 100"."""
    g = _three_way_stop(reward="score")
    assert _returns(g) == [0.15, 0.15, -0.3]


def test_reward_score_paid_every_hand_of_a_game():
    """docs/api.md: reward="score": "at the end of every hand each player gets …"; rewards sum to zero."""
    g = _goer([0, 0], reward="score")
    assert g.sd()["phase"] == "draw"
    assert _returns(g) == [0.2, -0.2]
    g.play("draw")
    assert _returns(g) == [0.2, -0.2]


@pytest.mark.parametrize("reward, want", [("score", [0.305, -0.145, -0.16]), ("win", [1.0, -0.5, -0.5])])
def test_hand_end_rewards_are_python_floats_summing_to_zero(reward, want):
    """docs/api.md "Rewards" sum to zero: at a hand end (scores 27, −3, −4) the AEC env's ``rewards`` are
    Python floats (not float32 values widened) whose sum is 0 up to 1e-12."""
    g = start(
        hands=[["8S", "9S", "TS"], ["3C"], ["4C"]],
        discard=["KC"],
        stock_top=["2C"],
        rummy_calls="off",
        episode="hand",
        reward=reward,
    )
    g.play("p0:draw", "p0:meld 8S 9S TS", "p0:discard 2C")
    assert g.sd()["hand_scores"] == [27, -3, -4] and g.done()
    rewards = [g.env.rewards[P(i)] for i in range(3)]
    assert all(type(r) is float for r in rewards), rewards
    assert abs(sum(rewards)) <= 1e-12, rewards
    assert _Approx(rewards) == want
