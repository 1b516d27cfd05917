"""No live position without a legal action, as a property of the engine (docs/api.md: the mask never leaves the
seat to act without a move).

Seeded random play of batched games over every preset and a mix of switches: after every step each unfinished
game has a legal action (the engine raises ``NoLegalActionError``, naming the game and its position, if one ever
has none), every game's rewards sum to zero, and on sampled games every card of the deck is somewhere. The
default run is 1.4 million game-steps (18 rule sets, 256 games, 300 steps); ``pytest -m slow`` 44 million.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from rummy_env import Engine, Rules
from rummy_env.engine import NoLegalActionError
from rummy_env.rules import PRESETS
from rummy_env.scenario import state_dict

from .helpers.games import random_rules
from .helpers.oracle import assert_cards_conserved

MIXES = 12
CASES = [pytest.param(name, id=name) for name in PRESETS] + [pytest.param(i, id=f"mix{i}") for i in range(MIXES)]


def case_rules(case: str | int) -> Rules:
    """A preset by name, or the ``case``-th seeded mix of every switch; episodes of one hand where the rules allow
    it (a final bonus ends a game of two deals), so that many hands are dealt."""
    if isinstance(case, str):
        return Rules.preset(case) if PRESETS[case].get("final_bonus") else Rules.preset(case, episode="hand")
    return random_rules(random.Random(4500 + case), episode="hand", players=2 + case % 5)


def soak(rules: Rules, games: int, steps: int, seed: int) -> int:
    """Play ``steps`` random legal steps in each of ``games`` games (dealt again as they end); returns the hands
    finished."""
    engine = Engine(rules, num_games=games, seed=seed)
    rng = np.random.default_rng(seed)
    hands = 0
    for step in range(steps):
        mask = engine.legal_mask()
        live = ~engine.done
        assert mask[live].any(axis=1).all(), "a live game's mask is empty"
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        result = engine.step(actions, auto_reset=True)
        assert np.abs(result.rewards.sum(axis=1)).max() <= 1e-9, "rewards must sum to zero"
        hands += int(result.done.sum())
        if step % 25 == 0:
            for g in rng.choice(games, size=min(4, games), replace=False):
                assert_cards_conserved(state_dict(engine.spec, engine.state, int(g)), rules, f"game {g}, step {step}")
    return hands


@pytest.mark.parametrize("case", CASES)
def test_every_live_game_has_a_legal_action(case):
    """256 games per rule set, 300 steps each: thousands of positions, hundreds of hands."""
    assert soak(case_rules(case), games=256, steps=300, seed=11) > 0


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_every_live_game_has_a_legal_action_long(case):
    """The long soak: 2,048 games per rule set, 1,200 steps each."""
    assert soak(case_rules(case), games=2048, steps=1200, seed=23) > 200


def test_a_stuck_game_is_reported_with_its_position():
    """An empty mask in a live game (forced here by emptying, after a draw, the hand of the seat in the play phase,
    a position the rules never reach) raises ``NoLegalActionError`` naming the game, the seat, the phase and the
    position. A position loaded as it is (a scenario) is the loader's to judge, so it is not reported."""
    engine = Engine(Rules(players=2), num_games=3, seed=0)
    engine.step([engine.spec.layout.from_str("draw")] * 3)
    engine.state.hand[1, int(engine.current_player[1])] = 0
    with pytest.raises(NoLegalActionError, match=r"game 1: player_\d has no legal action in phase 'play'") as err:
        engine.legal_mask()
    assert err.value.game == 1 and err.value.position["phase"] == "play"
    loaded = engine.state.take(np.array([1]))
    engine.load_state([1], loaded)
    assert not engine.legal_mask()[1].any()
