"""Every ```python block of README.md and docs/*.md runs, so the documentation cannot rot.

Each block runs on its own, in a fresh namespace, in a temporary working folder:
a reader copies one block at a time, so every block must carry its own imports
and set-up (blocks of one file do not share variables). A block that must not
run here (it would train for minutes, or needs a terminal) is rare and marked
by an HTML comment on the line right before its fence, with a reason::

    <!-- skip-test: trains for 10 minutes -->
    ```python
    ...

A marker without a reason, or one that is not right before a python block, fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE_OPEN = re.compile(r"^```python\s*$")
FENCE_CLOSE = re.compile(r"^```\s*$")
MARKER = re.compile(r"<!--\s*skip-test\b(?P<rest>.*?)-->")
REASON = re.compile(r"^\s*:\s*(?P<reason>\S.*?)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced python block: where it is, its code, and the skip reason if it is marked."""

    path: Path
    line: int  # 1-based line of the opening fence
    code: str
    skip: str | None

    @property
    def name(self) -> str:
        """``file:line`` of the fence, relative to the repository."""
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def parse_markdown(path: Path, text: str) -> tuple[list[Block], list[str]]:
    """The python blocks of a markdown text, and the problems with its skip markers."""
    lines = text.splitlines()
    blocks: list[Block] = []
    problems: list[str] = []
    pending: tuple[int, str | None] | None = None  # (line, reason) of a marker waiting for its block
    number = 0
    while number < len(lines):
        text_line = lines[number]
        marker = MARKER.search(text_line)
        if marker:
            if pending is not None:
                problems.append(f"{path.name}:{pending[0]}: skip-test marker not followed by a python block")
            reason = REASON.match(marker.group("rest"))
            pending = (number + 1, reason.group("reason") if reason else None)
            if reason is None:
                problems.append(f"{path.name}:{number + 1}: skip-test marker without a reason ('skip-test: why')")
            number += 1
            continue
        if FENCE_OPEN.match(text_line):
            start = number
            number += 1
            body = []
            while number < len(lines) and not FENCE_CLOSE.match(lines[number]):
                body.append(lines[number])
                number += 1
            skip = None
            if pending is not None:
                if pending[0] == start:  # the marker is the line right before the fence
                    skip = pending[1] or "(no reason)"
                else:
                    problems.append(f"{path.name}:{pending[0]}: skip-test marker not right before the block")
                pending = None
            blocks.append(Block(path, start + 1, "\n".join(body) + "\n", skip))
        elif pending is not None and text_line.strip():
            problems.append(f"{path.name}:{pending[0]}: skip-test marker not followed by a python block")
            pending = None
        number += 1
    if pending is not None:
        problems.append(f"{path.name}:{pending[0]}: skip-test marker not followed by a python block")
    return blocks, problems


def collect() -> tuple[list[Block], list[str]]:
    """The python blocks of every documentation file, and every skip-marker problem."""
    blocks: list[Block] = []
    problems: list[str] = []
    for path in DOCS:
        found, wrong = parse_markdown(path, path.read_text(encoding="utf-8"))
        blocks += found
        problems += wrong
    return blocks, problems


BLOCKS, PROBLEMS = collect()


def test_the_documentation_files_and_their_blocks_are_found():
    with_blocks = {b.path.relative_to(ROOT).as_posix() for b in BLOCKS}
    assert {"README.md", "docs/rules.md", "docs/api.md"} <= with_blocks


def test_skip_markers_are_well_formed():
    assert PROBLEMS == []


def test_skips_are_rare():
    skipped = [b.name for b in BLOCKS if b.skip is not None]
    assert len(skipped) <= max(1, len(BLOCKS) // 10), f"too many skipped blocks: {skipped}"


def test_the_parser_sees_markers_and_their_reasons():
    text = "\n".join(
        [
            "<!-- skip-test: trains for an hour -->",
            "```python",
            "raise SystemExit",
            "```",
            "<!-- skip-test -->",
            "```python",
            "pass",
            "```",
            "<!-- skip-test: lost -->",
            "prose in between",
            "```python",
            "x = 1",
            "```",
        ]
    )
    blocks, problems = parse_markdown(ROOT / "example.md", text)
    assert [b.skip for b in blocks] == ["trains for an hour", "(no reason)", None]
    assert [b.line for b in blocks] == [2, 6, 11]
    assert len(problems) == 2
    assert "without a reason" in problems[0] and "not followed" in problems[1]


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.name)
def test_snippet_runs(block: Block, tmp_path, monkeypatch):
    if block.skip is not None:
        pytest.skip(block.skip)
    monkeypatch.chdir(tmp_path)
    padded = "\n" * block.line + block.code  # line numbers of tracebacks are the markdown file's
    code = compile(padded, str(block.path), "exec")
    exec(code, {"__name__": "__doc_snippet__"})  # a fresh namespace per block
