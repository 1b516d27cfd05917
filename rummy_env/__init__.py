"""rummy-env: 500 Rummy for reinforcement learning."""

import os

# Batches of 1024+ games run on numba's OpenMP threads, whose idle spinning costs 2-4x the
# throughput as soon as other processes share the cores (sweeps, RLlib env runners, a busy
# node), while sleeping costs next to nothing at a few milliseconds per batch step. OpenMP
# reads this once, when first loaded: torch loads the same library, so import rummy_env (or
# set the variable in the shell) before torch for it to apply.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from .cards import card_str, parse_card
from .engine import Engine
from .env import env, raw_env
from .rules import Rules


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
