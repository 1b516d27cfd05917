"""What the three apps share: one ``error: ...`` line for a user's mistake, checked numbers, progress bars.

A ``ValueError`` raised while an app reads its options or runs is a user's mistake (an unknown agent,
a missing checkpoint, rules out of range, a setting that is not a number), and so is an ``OSError``
(a file that cannot be written): the app prints ``error: <message>`` on one line to stderr and exits
with status 2. ``debug=true`` on the command line prints the full Python traceback instead.
"""

from __future__ import annotations

import functools
import logging
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from tqdm import tqdm

from agents.arena import Progress

ERROR_EXIT = 2
DEBUG_KEY = "debug"

T = TypeVar("T")


def error_line(err: BaseException) -> str:
    """``error: <message>`` on one line (a multi-line message is joined)."""
    return "error: " + " ".join(str(err).split())


def report(err: BaseException, debug: bool = False) -> int:
    """Print ``err`` to stderr (one line, or the traceback when ``debug``); returns the exit status."""
    if debug:
        traceback.print_exception(type(err), err, err.__traceback__, file=sys.stderr)
    else:
        print(error_line(err), file=sys.stderr)
    return ERROR_EXIT


def debugging(cfg: Any) -> bool:
    """Whether the config asks for tracebacks (``debug=true``)."""
    try:
        return bool(cfg.get(DEBUG_KEY, False))
    except (AttributeError, TypeError):
        return False


def user_errors(task: Callable[[Any], T]) -> Callable[[Any], T]:
    """Wrap a Hydra task function: a ``ValueError`` or ``OSError`` becomes one ``error:`` line and exit status 2."""

    @functools.wraps(task)
    def run(cfg: Any) -> T:
        try:
            return task(cfg)
        except (ValueError, OSError) as err:
            sys.exit(report(err, debugging(cfg)))

    return run


@dataclass(frozen=True)
class Number:
    """A numeric setting: ``int`` or ``float``, its least value, and whether ``null`` is allowed."""

    kind: type = int
    low: float | None = None
    optional: bool = False


def _number(key: str, value: Any, spec: Number) -> int | float | None:
    if value is None and spec.optional:
        return None
    kind = "a whole number" if spec.kind is int else "a number"
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or number != number or (spec.kind is int and not number.is_integer()):
        raise ValueError(f"{key} must be {kind}{' or null' if spec.optional else ''}, got {value!r}")
    if spec.low is not None and number < spec.low:
        raise ValueError(f"{key} must be at least {spec.low:g}, got {value!r}")
    return int(number) if spec.kind is int else number


def check_numbers(cfg: Any, specs: Mapping[str, Number]) -> None:
    """Check each dotted ``key`` of ``cfg`` (a dict or DictConfig) against its spec and store it converted."""
    for key, spec in specs.items():
        *path, last = key.split(".")
        node = cfg
        for part in path:
            node = node[part]
        node[last] = _number(key, node[last], spec)


@contextmanager
def hands_bar(games: int, desc: str, enabled: bool = True) -> Iterator[Callable[[Progress], None]]:
    """A tqdm bar counting finished hands against the expected total (games end in batches, hands do not).

    Yields the ``progress`` callback for ``agents.play_games``.
    """
    with tqdm(total=None, desc=desc, unit="hand", dynamic_ncols=True, disable=not enabled, mininterval=1.0) as bar:

        def update(p: Progress) -> None:
            if p.hands_expected is not None:
                bar.total = max(round(p.hands_expected), p.hands)
            bar.set_postfix_str(f"games {p.games}/{p.games_total}", refresh=False)
            bar.update(p.hands - bar.n)

        yield update


LOG_NAME = "experiments"


def logger(app: str) -> logging.Logger:
    """The logger of an app (``experiments.<app>``): terminal and ``<run dir>/<app>.log`` under Hydra."""
    return logging.getLogger(f"{LOG_NAME}.{app}")
