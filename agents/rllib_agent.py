"""Ray RLlib pieces: a masked PPO RLModule, fixed heuristic modules and an agent (the env: ``rllib_env``).

``HintModule`` plays the action a heuristic would play, which ``rllib_env.RummyRLlibEnv`` writes into each
observation (``hint_<k>``), so greedy or strategic seats are ordinary fixed RLlib policies.
``MaskedPPOModule`` is RLlib's default PPO module on the ``observation`` entry with the logits of
illegal actions pushed to the float minimum, as in RLlib's action-masking example. ``RLlibAgent`` plays
a trained module (or a checkpoint: ``make_agent("rllib:<dir>")``) on the batched engine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from rummy_env.engine import Engine
from rummy_env.rules import Rules

from .base import Agent
from .checkpoints import check_table

LEARNER = "learner"  # module id of the trained (shared) policy
OBS_KEY, MASK_KEY = "observation", "action_mask"
RLLIB_PREFIX = "rllib:"
CHECKPOINT_MARKER = "rllib_checkpoint.json"  # written by RLlib in every checkpoint folder
RULES_FILE = "rummy_rules.json"  # written by experiments.train_rllib beside it: the table it was trained for


def split_mask(batch: dict) -> tuple[Any, dict]:
    """``(action mask, batch whose observation is the plain vector)``; a plain batch passes with mask ``None``."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, Mapping):
        return None, batch
    return obs[MASK_KEY], {**batch, Columns.OBS: obs[OBS_KEY]}


def mask_logits(out: dict, mask: Any) -> dict:
    """Push the logits of illegal actions to the float minimum (sampling and argmax then skip them)."""
    if mask is not None:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(mask.bool(), logits, torch.full_like(logits, FLOAT_MIN))
    return out


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module over the ``observation`` entry, with ``action_mask`` applied to the logits."""

    def __init__(self, *, observation_space: spaces.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, spaces.Dict) or not {OBS_KEY, MASK_KEY} <= set(observation_space.spaces):
            raise ValueError(
                f"MaskedPPOModule needs a Dict observation space with {OBS_KEY!r} and {MASK_KEY!r}, "
                f"got {observation_space}"
            )
        self.full_observation_space = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        """Build the networks for the plain observation, then expose the full (masked) space."""
        super().setup()
        self.observation_space = self.full_observation_space

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = split_mask(batch)
        return mask_logits(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = split_mask(batch)
        return mask_logits(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        """State values (for GAE and the value loss) from the plain observation."""
        return cast(torch.Tensor, super().compute_values(split_mask(batch)[1], embeddings))


class HintModule(RLModule):
    """A fixed policy: plays the heuristic action the env wrote under ``model_config["hint"]``."""

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        hint = batch[Columns.OBS][cast(dict, self.model_config)["hint"]]
        return {Columns.ACTIONS: np.asarray(hint).reshape(-1).astype(np.int64)}

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        raise NotImplementedError("HintModule is a fixed policy: leave it out of policies_to_train")


def checkpoint_folder(path: str | Path) -> Path:
    """The absolute folder of ``rllib:<folder>`` (RLlib reads only absolute paths)."""
    return Path(str(path).removeprefix(RLLIB_PREFIX)).expanduser().resolve()


def save_rules(checkpoint: str | Path, rules: Rules) -> None:
    """Record the table in an algorithm checkpoint (``rummy_rules.json``): agents refuse it at another table."""
    (checkpoint_folder(checkpoint) / RULES_FILE).write_text(json.dumps(rules.to_dict(), indent=1) + "\n")


def saved_rules(checkpoint: str | Path) -> Rules | None:
    """The rules recorded in an algorithm checkpoint (or the one a module folder sits in); ``None`` if none are."""
    folder = checkpoint_folder(checkpoint)
    for parent in [folder, *folder.parents][:5]:
        if (parent / RULES_FILE).is_file():
            return Rules.from_dict(json.loads((parent / RULES_FILE).read_text()))
    return None


def module_path(path: str | Path) -> Path:
    """The trained module's folder inside an algorithm checkpoint (or ``path`` itself if it is a module folder)."""
    path = checkpoint_folder(path)
    inner = path / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE / LEARNER
    if inner.is_dir():
        return inner
    if (path / CHECKPOINT_MARKER).exists() and (path / "module_state.pkl").exists():
        return path
    raise ValueError(f"no RLlib checkpoint with a {LEARNER!r} module at {str(path)!r}")


def is_rllib_checkpoint(name: str) -> bool:
    """Whether ``name`` is ``rllib:<dir>`` or a folder RLlib wrote a checkpoint into."""
    return name.startswith(RLLIB_PREFIX) or (Path(name) / CHECKPOINT_MARKER).exists()


class RLlibAgent(Agent):
    """A trained ``MaskedPPOModule`` (or an RLlib checkpoint of one): the most likely legal action, or a sample."""

    needs_obs = True

    def __init__(
        self,
        module: RLModule | str | Path,
        rules: Rules | None = None,
        deterministic: bool = True,
        seed: int = 0,
        name: str | None = None,
    ) -> None:
        trained = None
        if not isinstance(module, RLModule):
            trained = saved_rules(module)
            name = name or str(module)
            if rules is not None:
                check_table(name, trained, rules)
            module = RLModule.from_checkpoint(module_path(module))
        self.module = module
        self.deterministic = deterministic
        self.generator = torch.Generator().manual_seed(seed)
        self.name = name or "rllib"
        if rules is not None:
            self._check_shapes(Engine(rules, num_games=1, seed=0))

    def _check_shapes(self, engine: Engine) -> None:
        space = cast(spaces.Dict, getattr(self.module, "full_observation_space", self.module.observation_space))
        action_space = cast(spaces.Discrete, self.module.action_space)
        obs_shape, actions = tuple(space[OBS_KEY].shape or ()), int(action_space.n)
        if obs_shape != (engine.obs_dim,) or actions != engine.num_actions:
            raise ValueError(
                f"RLlib module {self.name!r} expects observations {obs_shape} and {actions} actions, "
                f"but these rules give ({engine.obs_dim},) and {engine.num_actions}: "
                "it was trained for another table"
            )

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """One forward pass over all the acting seats, then argmax (or sample) among the legal actions."""
        if obs is None:
            obs = engine.observe()[np.asarray(games, dtype=np.int64)]
        batch = {
            Columns.OBS: {
                OBS_KEY: torch.as_tensor(obs, dtype=torch.float32),
                MASK_KEY: torch.as_tensor(np.asarray(mask, dtype=bool)),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        if self.deterministic:
            return logits.argmax(dim=1).numpy().astype(np.int64)
        probs = torch.softmax(logits, dim=1)
        return torch.multinomial(probs, 1, generator=self.generator).reshape(-1).numpy().astype(np.int64)
