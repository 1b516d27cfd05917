"""The repository documents itself: every link in its markdown and notebooks points inside it.

Relative links must name a file of the repository (and an anchor, if any, a heading
of that file); web links are left alone. No text file may refer to a path outside
the repository (a sibling ``shared`` folder or an absolute ``/work`` path).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".git", ".venv", "outputs", "multirun", "node_modules", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".yaml", ".yml", ".toml", ".sh", ".txt", ".cfg"}
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*(?P<target><[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
OUTSIDE = re.compile(r"\.\./+shared[/]|/work[/]|(?<![\w.-])shared[/](?:RULES|SPEC)\.md")


def repo_files(suffixes: set[str]) -> list[Path]:
    """Files of the repository with one of ``suffixes``, outside build and tool folders."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        out += [Path(folder) / name for name in files if Path(name).suffix in suffixes]
    return sorted(out)


def markdown_text(path: Path) -> str:
    """A markdown file's text, or the markdown cells of a notebook."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a markdown file's headings."""
    text = re.sub(r"```.*?```", "", markdown_text(path), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, flags=re.M)}


def links(path: Path) -> list[str]:
    """The link targets of a markdown file or notebook, code blocks and inline code left out."""
    text = re.sub(r"```.*?```", "", markdown_text(path), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [m.group("target").strip("<>") for m in LINK.finditer(text)]


DOCUMENTS = repo_files({".md", ".ipynb"})


def test_the_documents_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in DOCUMENTS}
    assert {"README.md", "docs/rules.md", "docs/api.md", "notebooks/quickstart.ipynb"} <= names


def test_slugs_follow_github():
    assert slug("Scenarios and `state_dict`") == "scenarios-and-state_dict"
    assert slug("§1 Players, deck, deal") == "1-players-deck-deal"
    assert slug("`RummyVecEnv`: Stable-Baselines3") == "rummyvecenv-stable-baselines3"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_stay_inside_the_repository(path: Path):
    problems = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.is_relative_to(ROOT):
            problems.append(f"{target}: outside the repository")
        elif not dest.exists():
            problems.append(f"{target}: no such file")
        elif anchor and dest.suffix in (".md", ".ipynb") and anchor not in anchors(dest):
            problems.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert problems == []


def test_no_text_file_refers_outside_the_repository():
    here = Path(__file__).resolve()
    found = []
    for path in repo_files(TEXT_SUFFIXES):
        if path == here:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert found == []
