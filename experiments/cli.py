"""What the three apps share: one ``error: ...`` line for a user's mistake, checked numbers, progress bars.

A ``ValueError`` raised while an app reads its options or runs is a user's mistake (an unknown agent,
a missing checkpoint, rules out of range, a setting that is not a number), and so is an ``OSError``
(a file that cannot be written): the app prints ``error: <message>`` on one line to stderr and exits
with status 2. ``debug=true`` on the command line prints the full Python traceback instead.

``hydra_app`` checks the command line before Hydra runs the app (and makes its run folder): an unknown
option of a config group (``env=persain``), an unknown key (``rules.playrs=3``), a ``+key`` that nothing
reads, and the app's own option checks, each one ``error:`` line naming the option and the valid choices.
"""

from __future__ import annotations

import difflib
import functools
import logging
import re
import shutil
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from agents.arena import Progress
from experiments import rules_config  # noqa: F401 (stores the Rules presets in Hydra's ConfigStore)

ERROR_EXIT = 2
DEBUG_KEY = "debug"
CONFIGS = Path(__file__).resolve().parents[1] / "configs"
# Hydra's own flags: with one of these on the command line Hydra alone reads it (help, config printing, ...)
HYDRA_FLAGS = ("-h", "--help", "--hydra-help", "-c", "--cfg", "-i", "--info", "-cn", "--config-name", "-cp")
HYDRA_FLAGS += ("--config-path", "-cd", "--config-dir", "-p", "--package", "--resolve", "-sc", "--shell-completion")
HYDRA_FLAGS += ("--version", "--experimental-rerun")
SEARCHPATH = "hydra.searchpath"  # more config folders (a preset of the user's own): the option check reads them too

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
    """Wrap a Hydra task function: a ``ValueError`` or ``OSError`` becomes one ``error:`` line and exit status 2,
    and a run folder Hydra made for this refused command is removed (a resumed run's folder is kept)."""

    @functools.wraps(task)
    def run(cfg: Any) -> T:
        fresh = _fresh_run_folder()
        try:
            return task(cfg)
        except (ValueError, OSError) as err:
            if fresh is not None:
                shutil.rmtree(fresh, ignore_errors=True)
            sys.exit(report(err, debugging(cfg)))

    return run


def _fresh_run_folder() -> Path | None:
    """The run folder of a single run that holds only what Hydra wrote on starting it (``.hydra/`` and the log),
    else None (a multirun job, a resumed run, no Hydra)."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    if not HydraConfig.initialized() or HydraConfig.get().mode != RunMode.RUN:
        return None
    folder = Path(HydraConfig.get().runtime.output_dir)
    made = {".hydra", f"{HydraConfig.get().job.name}.log"}
    return folder if folder.is_dir() and {p.name for p in folder.iterdir()} <= made else None


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
    if enabled and not on_terminal():  # a log or a pipe: a plain line now and then
        ticker = Ticker(desc, None, "hand")

        def tick(p: Progress) -> None:
            ticker.total = p.hands_expected
            ticker.update(p.hands - ticker.n)

        yield tick
        ticker.close()
        return
    with tqdm(total=None, desc=desc, unit="hand", dynamic_ncols=True, disable=not enabled, mininterval=1.0) as bar:

        def update(p: Progress) -> None:
            if p.hands_expected is not None:
                bar.total = max(round(p.hands_expected), p.hands)
            bar.set_postfix_str(f"games {p.games}/{p.games_total}", refresh=False)
            bar.update(p.hands - bar.n)

        yield update


LOG_NAME = "experiments"


@contextmanager
def counter(total: int, desc: str, unit: str) -> Iterator[Any]:
    """A tqdm bar on a terminal, a ``Ticker`` (a plain line now and then) in a log or a pipe; both ``update(n)``."""
    if not on_terminal():
        ticker = Ticker(desc, total, unit)
        yield ticker
        ticker.close()
        return
    with tqdm(total=total, desc=desc, unit=unit, unit_scale=True, dynamic_ncols=True, mininterval=1.0) as bar:
        yield bar


def logger(app: str) -> logging.Logger:
    """The logger of an app (``experiments.<app>``): terminal and ``<run dir>/<app>.log`` under Hydra."""
    return logging.getLogger(f"{LOG_NAME}.{app}")


def _choices(names: Sequence[str], given: str) -> str:
    close = difflib.get_close_matches(given, names, n=1)
    return (f"did you mean {close[0]!r}? " if close else "") + "choose one of " + ", ".join(names)


def group_options(group: str, folders: Sequence[Path] = ()) -> list[str]:
    """The options of a config group of ``configs/``, ``folders`` and the ConfigStore (``env`` -> ``boathouse``,
    ``default``, ... : ``experiments.rules_config`` stores the ``Rules`` presets)."""
    from hydra.core.config_store import ConfigStore

    stored = {name.removesuffix(".yaml") for name in ConfigStore.instance().list(group)} if _stored(group) else set()
    return sorted(stored | {p.stem for folder in (CONFIGS, *folders) for p in (folder / group).glob("*.yaml")})


def _stored(group: str) -> bool:
    """Whether the ConfigStore holds the config group ``group``."""
    from hydra.core.config_store import ConfigStore

    return group in ConfigStore.instance().repo


def _search_folders(parsed: Sequence[Any]) -> list[Path] | None:
    """The folders a ``hydra.searchpath`` override adds (``file://`` entries); ``None`` if one is not a folder."""
    entries = [str(entry) for o in parsed if o.key_or_group == SEARCHPATH for entry in o.value()]
    if not all(entry.startswith("file://") for entry in entries):
        return None
    return [Path(entry.removeprefix("file://")) for entry in entries]


def _node_keys(cfg: Any, path: Sequence[str]) -> tuple[list[str], str | None]:
    """The keys of the node at ``path[:-1]`` and the first part of ``path`` that is missing (``None``: all there)."""
    from omegaconf import DictConfig

    node = cfg
    for depth, part in enumerate(path):
        keys = [str(k) for k in node] if isinstance(node, DictConfig) else []
        if part not in keys:
            return keys, ".".join(path[: depth + 1])
        node = node[part]
    return [], None


def check_overrides(
    app: str,
    config_name: str,
    overrides: Sequence[str],
    open_keys: Sequence[str] = (),
    check: Callable[[Any], None] | None = None,
    typed: Mapping[str, str] | None = None,
) -> None:
    """Raise a one-line ``ValueError`` for an override of ``app``'s config that Hydra would refuse or nobody reads.

    Checks each config group option, each key (a ``+key`` only below ``open_keys``, the free-form mappings), that the
    config composes, then ``check`` (the app's option checks) on it, once per value of a sweep. Messages quote
    each override as ``typed`` maps it (what the user typed before ``alias`` rewrote it). Presets are looked up in
    ``configs/`` and in the folders of a ``hydra.searchpath=[file://...]`` override.
    """
    from hydra import compose, initialize_config_dir
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException
    from omegaconf import OmegaConf

    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
    except HydraException as err:
        raise ValueError(f"cannot read the command line: {str(err).splitlines()[0]}") from None
    folders = _search_folders(parsed)
    if folders is None:  # a pkg:// entry: only Hydra can list its presets
        return
    searchpath = [o.input_line for o in parsed if o.key_or_group == SEARCHPATH]
    ours = [o for o in parsed if not o.key_or_group.startswith("hydra")]
    values = {id(o): list(o.sweep_string_iterator()) if o.is_sweep_override() else [None] for o in ours}
    groups = [
        o
        for o in ours
        if _stored(o.key_or_group) or any((folder / o.key_or_group).is_dir() for folder in (CONFIGS, *folders))
    ]
    for o in groups:
        options = group_options(o.key_or_group, folders)
        for value in values[id(o)] if o.is_sweep_override() else [o.value()]:
            if str(value) not in options:
                raise ValueError(
                    f"{o.key_or_group}={value}: no such {o.key_or_group} preset; {_choices(options, str(value))}"
                )

    def line(o: Any, value: str | None) -> str:
        return o.input_line if value is None else f"{o.get_key_element()}={value}"

    with initialize_config_dir(str(CONFIGS), version_base="1.3", job_name=app):
        base = compose(config_name, overrides=searchpath + [line(o, values[id(o)][0]) for o in groups])
        for o in ours:
            if o in groups or o.is_delete():
                continue
            key = o.key_or_group
            keys, missing = _node_keys(base, key.split("."))
            opened = any(key.startswith(k + ".") for k in open_keys)
            said = (typed or {}).get(o.input_line, o.input_line)
            if missing is None and o.is_add():
                raise ValueError(f"{said}: {key} is an option already; set it without the +: {said.lstrip('+')}")
            if missing is not None and not opened:
                parent = missing.rpartition(".")[0]
                where = f"options of {parent}" if parent else f"{app}'s options"
                raise ValueError(
                    f"{said}: {app} has no option {missing!r} (nothing would read it); "
                    + _choices(keys, missing.rpartition(".")[2]).replace("choose one of", where + ":")
                )
        variants = [searchpath + [line(o, values[id(o)][0]) for o in ours]]
        variants += [
            searchpath + [line(p, value if p is o else values[id(p)][0]) for p in ours]
            for o in ours
            for value in values[id(o)][1:]
        ]
        for variant in variants:
            try:
                cfg = compose(config_name, overrides=variant)
            except HydraException as err:
                raise ValueError(str(err)) from None
            if check is not None:
                check(OmegaConf.create(OmegaConf.to_container(cfg)))


def app_groups(app: str) -> list[str]:
    """The config groups ``configs/<app>.yaml`` takes, through its defaults list (``evaluate_search`` takes
    ``evaluate``'s); Hydra's own groups and ``rules`` (the fields themselves, listed apart) left out."""
    from omegaconf import OmegaConf

    groups: list[str] = []
    for entry in OmegaConf.to_container(OmegaConf.load(CONFIGS / f"{app}.yaml")).get("defaults", []):
        if isinstance(entry, str) and entry != "_self_" and (CONFIGS / f"{entry}.yaml").is_file():
            groups += app_groups(entry)
        elif isinstance(entry, dict):
            group = next(iter(entry)).lstrip("/")
            if not group.startswith(("override", "hydra")) and group != "rules":
                groups.append(group.split("@")[0])
    return groups


def app_help(app: str, overrides: Sequence[str] = ()) -> str:
    """``--help`` of an app: its own config groups with their options, the ``Rules`` fields, its config."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from experiments.rules_config import rules_fields

    lines = [f"python -m experiments.{app} [group=option ...] [key=value ...]", "", "== Configuration groups =="]
    lines += [f"{group}: {', '.join(group_options(group))}" for group in app_groups(app)]
    lines += ["", "== Rules ==", "rules.<field>=value, any rummy_env.Rules field (docs/rules.md, All the switches):"]
    lines += ["  " + ", ".join(rules_fields()), "", "== Config ==", "Override anything in the config (foo.bar=value)"]
    with initialize_config_dir(str(CONFIGS), version_base="1.3", job_name=app):
        cfg = compose(app, overrides=list(overrides))
    return "\n".join(lines) + "\n\n" + OmegaConf.to_yaml({k: v for k, v in cfg.items() if k != "hydra"})


def _own_help(app: str) -> bool:
    """Whether ``configs/<app>.yaml`` writes its own ``--help`` (a ``hydra.help.template``)."""
    from omegaconf import OmegaConf

    return OmegaConf.select(OmegaConf.load(CONFIGS / f"{app}.yaml"), "hydra.help.template") is not None


def _debug_asked(args: Sequence[str]) -> bool:
    return any(re.fullmatch(r"\+*debug=(true|True|yes|1)", a) for a in args)


def hydra_app(
    app: str,
    aliases: Mapping[str, str] | None = None,
    open_keys: Sequence[str] = (),
    check: Callable[[Any], None] | None = None,
) -> Callable[[Callable[[Any], Any]], Callable[[], None]]:
    """Decorate an app's task: ``main()`` checks the command line (``check_overrides``), then runs it under Hydra.

    ``aliases`` rewrites key prefixes first (train's ``rules.players=4`` is ``env.rules.players=4``).
    """
    import hydra

    def wrap(task: Callable[[Any], Any]) -> Callable[[], None]:
        hydra_main = hydra.main(config_path=str(CONFIGS), config_name=app, version_base="1.3")(user_errors(task))

        @functools.wraps(task)
        def main() -> None:
            args = [alias(a, aliases or {}) for a in sys.argv[1:]]
            typed = dict(zip(args, sys.argv[1:], strict=True))
            sys.argv[1:] = args
            if any(a in ("-h", "--help") for a in args) and not _own_help(app):
                print(app_help(app, [a for a in args if not a.startswith("-")]))
                return
            if not any(a.split("=")[0] in HYDRA_FLAGS for a in args):
                try:
                    overrides = [a for a in args if not a.startswith("-")]
                    check_overrides(app, app, overrides, open_keys, check, typed)
                except ValueError as err:
                    sys.exit(report(err, _debug_asked(args)))
            hydra_main()

        return main

    return wrap


def alias(arg: str, aliases: Mapping[str, str]) -> str:
    """``arg`` with a key prefix of ``aliases`` replaced (``+rules.players=4`` -> ``+env.rules.players=4``)."""
    match = re.match(r"([+~]*)([^=]*)(.*)", arg, re.S)
    if not match or arg.startswith("-"):
        return arg
    sign, key, rest = match.groups()
    for old, new in aliases.items():
        if key.startswith(old):
            return sign + new + key[len(old) :] + rest
    return arg


def on_terminal(stream: Any = None) -> bool:
    """Whether ``stream`` (stderr by default) is a terminal: progress bars there, plain periodic lines otherwise."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Ticker:
    """A progress line every ``every`` seconds for logs and pipes, where a tqdm bar would write ``\\r`` frames."""

    def __init__(
        self, desc: str, total: float | None, unit: str, every: float = 30.0, log: Any = None, initial: float = 0.0
    ) -> None:
        self.desc, self.total, self.unit, self.every = desc, total, unit, every
        self.log = log or logging.getLogger(LOG_NAME)
        self.t0 = self.last = time.monotonic()
        self.n = self.n0 = initial

    def line(self, done: bool = False) -> str:
        """``train: 4,096/250,000 steps, 1,234 steps/s, 3 s`` (``done, ...`` at the end)."""
        elapsed = time.monotonic() - self.t0
        rate = (self.n - self.n0) / max(elapsed, 1e-9)
        of = f"/{self.total:,.0f}" if self.total and not done else ""
        state = "done, " if done else ""
        return f"{self.desc}: {state}{self.n:,.0f}{of} {self.unit}s, {rate:,.0f} {self.unit}s/s, {elapsed:.0f} s"

    def update(self, n: float) -> None:
        """Count ``n`` more units; log a line when ``every`` seconds have passed since the last one."""
        self.n += n
        if time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            self.log.info(self.line())

    def close(self) -> None:
        """Log the last line: the count, the rate and the time taken."""
        self.log.info(self.line(done=True))
