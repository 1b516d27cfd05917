"""rummy-env: 500 Rummy for reinforcement learning."""

from .cards import card_str, parse_card
from .engine import Engine
from .env import env, raw_env
from .rules import Rules

__version__ = "0.1.0"
__all__ = ["Rules", "Engine", "env", "raw_env", "parse_card", "card_str", "__version__"]
