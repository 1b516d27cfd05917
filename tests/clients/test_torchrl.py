"""TorchRL's ``PettingZooWrapper`` on the AEC env: turn-based, with the action mask, a full game stepped."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install -e '.[clients]')")
pytest.importorskip("torchrl", reason="torchrl is not installed (pip install -e '.[clients]')")

import rummy_env  # noqa: E402


def test_pettingzoo_wrapper_plays_a_full_game_with_the_mask():
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import step_mdp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "tested with PettingZoo 1.24.3": it works with ours
        env = PettingZooWrapper(env=rummy_env.env(episode="hand"), use_mask=True, categorical_actions=True, seed=0)
    assert set(env.group_map) == {"player_0", "player_1"}
    torch.manual_seed(0)
    td = env.reset()
    totals, steps = dict.fromkeys(env.group_map, 0.0), 0
    while not td["done"].item():
        acting = [group for group in env.group_map if td[group, "mask"].item()]
        assert len(acting) == 1, "turn-based: exactly one group acts"
        for group in env.group_map:  # TorchRL ignores the action of a group that is not to act
            td[group, "action"] = torch.zeros(1, dtype=torch.long)
        legal = td[acting[0], "action_mask"][0].nonzero().flatten()
        assert legal.numel() == len(env._env.unwrapped.legal_actions()), "the mask is the acting agent's"
        td[acting[0], "action"] = legal[torch.randint(len(legal), (1,))]
        td = env.step(td)
        for group in env.group_map:
            totals[group] += float(td["next", group, "reward"].sum())
        td = step_mdp(td)
        steps += 1
    final = env._env.unwrapped.state_dict()
    assert final["phase"] == "game_over" and steps > 10
    tied = final["scores"][0] == final["scores"][1]  # a tied hand pays nothing (docs/api.md, rewards)
    assert sorted(totals.values()) == ([0.0, 0.0] if tied else [-1.0, 1.0]), (totals, final["scores"])
