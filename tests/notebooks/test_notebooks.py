"""The notebooks in ``notebooks/`` run top to bottom (through nbmake) and are stored without outputs.

Each notebook runs in a subprocess ``pytest --nbmake notebooks/<name>.ipynb``, so the
README's ``python -m pytest -n 2`` executes them. ``policy_analysis`` plays fewer deals
here (``RUMMY_DEALS``) than its default; ``pytest --nbmake notebooks/`` runs both in full.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_notebooks_exist():
    assert {p.name for p in NOTEBOOKS} >= {"quickstart.ipynb", "policy_analysis.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None, f"{path.name} has outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path):
    pytest.importorskip("nbmake")
    env = {**os.environ, "RUMMY_DEALS": "6", "MPLBACKEND": "agg", "PYTHONWARNINGS": "ignore"}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbmake", "--nbmake-timeout=300", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, f"{path.name} failed:\n{out.stdout[-6000:]}\n{out.stderr[-2000:]}"
