"""Compile time of the engine's numba kernels: a cold start (empty cache), a warm one, and the costliest functions.

Run from the repository root::

    python -m benchmarks.compile_time
    python -m benchmarks.compile_time --top 25

It copies the package (``rummy_env``) into a temporary folder, so the cold start
really starts from an empty numba cache and leaves the checkout's own cache alone,
then runs fresh Python processes there, each importing the package and doing one
of two things: ``first game``, a new user's first lines (``env = rummy_env.env();
env.reset(); env.step(...); env.observe(...)`` for the default game), and ``warm()``
(``rummy_env.engine.compile.warm()``: every kernel entry point once, as the test
suite does before its workers start). The cold rows run in this order on one
cache: first game (compiles what it needs), then warm() (compiles the rest); the
warm rows then load everything from the on-disk cache. It reports wall and CPU
seconds of each, and, from numba's compile events in the cold processes, the
functions whose compilation took longest (a function's time includes the helpers
it compiled first, so the entry points lead the list).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import json, resource, sys, time
from numba.core import event

t0 = time.perf_counter()
import rummy_env
from rummy_env.engine.compile import warm


def first_game():
    env = rummy_env.env()
    env.reset(seed=0)
    env.step(int(env.observe(env.agent_selection)["action_mask"].argmax()))
    env.observe(env.agent_selection)


t_import = time.perf_counter() - t0
compiles = []


class Recorder(event.Listener):
    def on_start(self, ev):
        ev.data["t0"] = time.perf_counter()

    def on_end(self, ev):
        compiles.append((str(ev.data["dispatcher"].py_func.__qualname__), time.perf_counter() - ev.data["t0"]))


with event.install_listener("numba:compile", Recorder()):
    t1 = time.perf_counter()
    first_game() if sys.argv[1] == "first" else warm()
    t_warm = time.perf_counter() - t1
usage = resource.getrusage(resource.RUSAGE_SELF)
json.dump(
    {"import": t_import, "warm": t_warm, "cpu": usage.ru_utime + usage.ru_stime, "compiles": compiles,
     "module": rummy_env.__file__},
    sys.stdout,
)
"""


def run_probe(folder: Path, what: str) -> dict:
    """Import the package copied into ``folder`` and play the first game (``first``) or warm every kernel
    (``warm``) in a fresh process; the probe's report."""
    out = subprocess.run([sys.executable, "-c", PROBE, what], cwd=folder, capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    if not report["module"].startswith(str(folder)):
        raise RuntimeError(f"the probe imported {report['module']}, not the copy in {folder}")
    return report


def main() -> None:
    """Measure a cold and a warm start and print both, with the slowest compilations."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=12, help="how many of the slowest compilations to list")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copytree(ROOT / "rummy_env", folder / "rummy_env", ignore=shutil.ignore_patterns("__pycache__"))
        first_cold, rest_cold = run_probe(folder, "first"), run_probe(folder, "warm")
        first_warm, all_warm = run_probe(folder, "first"), run_probe(folder, "warm")
    print(
        "| what | cold: import + run s | cold: CPU s | cold: functions compiled | warm: import + run s | warm: CPU s |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    rows = (
        ("first game (env reset, step, observe)", first_cold, first_warm),
        ("warm(): the rest", rest_cold, all_warm),
    )
    for name, cold, warm in rows:
        print(
            f"| {name} | {cold['import'] + cold['warm']:.1f} | {cold['cpu']:.1f} | {len(cold['compiles'])} "
            f"| {warm['import'] + warm['warm']:.2f} | {warm['cpu']:.1f} |"
        )
    print("\nslowest compilations of the cold starts (seconds, including the helpers compiled inside them):")
    print("| function | s | in |")
    print("|---|---:|---|")
    compiles = [(*c, "first game") for c in first_cold["compiles"]] + [(*c, "warm()") for c in rest_cold["compiles"]]
    for name, seconds, where in sorted(compiles, key=lambda c: -c[1])[: args.top]:
        print(f"| {name} | {seconds:.1f} | {where} |")


if __name__ == "__main__":
    main()
