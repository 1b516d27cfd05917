"""rummy-env: 500 Rummy for reinforcement learning."""

from .cards import card_str, parse_card
from .engine import Engine
from .env import env, raw_env
from .registration import register_envs
from .rules import Rules

register_envs()


def _version() -> str:
    """The installed distribution's version, else the one in a source checkout's pyproject.toml."""
    import re
    from importlib import metadata
    from pathlib import Path

    try:
        return metadata.version("rummy-env")
    except metadata.PackageNotFoundError:
        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
        found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
        return found.group(1) if found else "0+unknown"


__version__ = _version()
__all__ = ["Rules", "Engine", "env", "raw_env", "parse_card", "card_str", "__version__"]
