"""Compile time of the engine's numba kernels: a cold start (empty cache), a warm one, and the costliest functions.

Run from the repository root::

    python -m benchmarks.compile_time
    python -m benchmarks.compile_time --top 25

It copies the package (``rummy_env``) into a temporary folder, so the cold start
really starts from an empty numba cache and leaves the checkout's own cache alone,
then runs two fresh Python processes there, each importing the package and
running ``rummy_env.engine.compile.warm()`` (every kernel entry point once, as
the test suite does before its workers start): the first compiles everything,
the second loads it from the on-disk cache. It reports wall and CPU seconds of
each, and, from numba's compile events in the cold process, the functions whose
compilation took longest (a function's time includes the helpers it compiled
first, so the entry points lead the list).
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

t_import = time.perf_counter() - t0
compiles = []


class Recorder(event.Listener):
    def on_start(self, ev):
        ev.data["t0"] = time.perf_counter()

    def on_end(self, ev):
        compiles.append((str(ev.data["dispatcher"].py_func.__qualname__), time.perf_counter() - ev.data["t0"]))


with event.install_listener("numba:compile", Recorder()):
    t1 = time.perf_counter()
    warm()
    t_warm = time.perf_counter() - t1
usage = resource.getrusage(resource.RUSAGE_SELF)
json.dump(
    {"import": t_import, "warm": t_warm, "cpu": usage.ru_utime + usage.ru_stime, "compiles": compiles,
     "module": rummy_env.__file__},
    sys.stdout,
)
"""


def run_probe(folder: Path) -> dict:
    """Import the package copied into ``folder`` and warm its kernels in a fresh process; the probe's report."""
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=folder, capture_output=True, text=True, check=True)
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
        cold, warm = run_probe(folder), run_probe(folder)
    print("| start | import s | warm() s | CPU s | functions compiled |")
    print("|---|---:|---:|---:|---:|")
    for name, report in (("cold (empty cache)", cold), ("warm (cached)", warm)):
        print(
            f"| {name} | {report['import']:.2f} | {report['warm']:.2f} | {report['cpu']:.1f} "
            f"| {len(report['compiles'])} |"
        )
    print("\nslowest compilations of the cold start (seconds, including the helpers compiled inside them):")
    print("| function | s |")
    print("|---|---:|")
    for name, seconds in sorted(cold["compiles"], key=lambda c: -c[1])[: args.top]:
        print(f"| {name} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
