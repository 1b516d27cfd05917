"""The Gymnasium ids of the single-agent env, registered on ``import rummy_env``.

Each id is the learner's seat of one game (``RummyGymEnv``) against opponents named as
``agents.make_agent`` names them; ``gymnasium.make_vec`` builds the batched ``RummyVectorEnv``
(``vectorization_mode="vector_entry_point"``, the default) or a ``SyncVectorEnv``/``AsyncVectorEnv`` of
single envs. The env creators live in ``agents.gym_envs`` (they resolve the opponents' names) and are
imported only when an env is made: ``import rummy_env`` loads no agents.
"""

from __future__ import annotations

from typing import Any

import gymnasium

#: id -> the keywords it fixes (rule fields); every other keyword of ``agents.gym_envs.make_env`` passes through
ENV_IDS: dict[str, dict[str, Any]] = {
    "Rummy500-v0": {},  # a game to 500 (default rules; any Rules field, preset= or rules= as keywords)
    "Rummy500Hand-v0": {"episode": "hand"},  # one hand per episode: short episodes
}


def register_envs() -> None:
    """Register every id of ``ENV_IDS`` that is not registered yet."""
    for env_id, kwargs in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="agents.gym_envs:make_env",
                vector_entry_point="agents.gym_envs:make_vector_env",
                kwargs=dict(kwargs),
                disable_env_checker=False,
            )
