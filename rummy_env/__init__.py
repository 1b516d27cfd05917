"""rummy-env: 500 Rummy for reinforcement learning."""

from .cards import card_str, parse_card
from .engine import Engine
from .rules import Rules

__version__ = "0.1.0"
__all__ = ["Rules", "Engine", "parse_card", "card_str", "__version__"]
