"""No import cycles among the project's modules, counting the imports inside functions too (they only hide one)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rummy_env", "agents", "experiments")


def module_name(path: Path) -> str:
    """``rummy_env/engine/core.py`` -> ``rummy_env.engine.core`` (a package is its ``__init__``)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(node: ast.AST, package: str) -> list[str]:
    """The module names an import statement may load (``from a import b``: ``a`` and ``a.b``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    parts = package.split(".")
    base = (
        ".".join(parts[: len(parts) - node.level + 1] + [node.module or ""]).strip(".") if node.level else node.module
    )
    return ([base] if node.module else []) + [f"{base}.{alias.name}" for alias in node.names]


def import_graph() -> dict[str, set[str]]:
    """Each module of the project and the project's modules it imports anywhere in its text."""
    files = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = {m for node in ast.walk(ast.parse(path.read_text())) for m in imported(node, package)}
        graph[name] = {m for m in found if m in files and m != name}
    return graph


def cycle_from(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """An import path from ``start`` back to it, if there is one."""
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop()
        for nxt in sorted(graph[path[-1]]):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                paths.append([*path, nxt])
    return None


def test_no_import_cycles():
    graph = import_graph()
    assert {"agents.registry", "agents.rllib_agent", "experiments.train", "experiments.distill"} <= set(graph)
    cycles = [cycle for name in sorted(graph) if (cycle := cycle_from(graph, name))]
    assert not cycles, "import cycle: " + " -> ".join(cycles[0])
