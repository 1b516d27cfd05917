"""The environment package stands alone: ``rummy_env`` never imports the agents or the training stack."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEVER = {"agents", "experiments", "torch", "sb3_contrib", "hydra", "omegaconf"}  # not even inside a function
OPTIONAL = {"pandas", "matplotlib", "tqdm", "stable_baselines3"}  # only inside the functions that need them
SB3_ONLY_IN = {"vector.py"}  # RummyVecEnv subclasses SB3's VecEnv


def packages(nodes) -> set[str]:
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "rummy_env").rglob("*.py")), ids=lambda p: p.name)
def test_rummy_env_modules_import_no_agents_or_training(path):
    tree = ast.parse(path.read_text())
    assert not packages(ast.walk(tree)) & NEVER
    allowed = {"stable_baselines3"} if path.name in SB3_ONLY_IN else set()
    assert not packages(tree.body) & (OPTIONAL - allowed)


def test_core_import_plays_without_training_packages():
    done = subprocess.run([sys.executable, str(ROOT / ".ci" / "core_only_check.py")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "core-only check" in done.stdout


def test_vector_env_imports_no_agents():
    code = "import sys, rummy_env.gym_env; print(sorted({'agents', 'experiments'} & sys.modules.keys()))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_agents_reach_the_kernels_only_through_their_declared_api():
    """The agents compile against ``rummy_env.engine.kernels.api`` (its ``__all__``), never the engine's own modules."""
    from rummy_env.engine.kernels import api

    for path in sorted((ROOT / "agents").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rummy_env.engine.kernels"):
                assert node.module == "rummy_env.engine.kernels.api", f"{path.name} imports {node.module}"
                assert {alias.name for alias in node.names} <= set(api.__all__), path.name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("rummy_env.engine.kernels") for a in node.names), path.name
