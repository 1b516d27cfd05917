"""Session-wide test setup."""

from __future__ import annotations


def pytest_configure(config) -> None:
    """Compile the numba kernels (the engine's and the heuristics') once, in the main process, before any xdist
    worker starts.

    The compiled code goes to numba's on-disk cache (``__pycache__`` next to the
    kernel modules), which every worker then loads instead of compiling its own.
    """
    if hasattr(config, "workerinput"):
        return
    from agents.precompile import warm as warm_agents
    from rummy_env.engine.compile import warm

    warm()
    warm_agents()
