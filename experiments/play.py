"""Play 500 Rummy in the terminal against agents: ``python -m experiments.play [key=value ...]``.

Options are in ``configs/play.yaml`` (``--help`` lists them): ``players``,
``seat`` (yours; ``null`` to watch), ``agents`` (who plays the other seats:
agent names or MaskablePPO ``.zip`` paths, cycled over them), ``hint`` (an agent whose move is
shown at each of your decisions), ``seed``, ``record`` (a JSON-lines game record
to write), ``symbols``, ``reveal``, ``env`` (a rules preset: ``Rules.preset`` names and ``configs/env/``)
and ``rules.<field>`` (any ``Rules`` field, over the preset). A mistake in them
prints one ``error: ...`` line (``debug=true``: the traceback).

Works with scripted input (``stdin`` not a terminal: each line read is echoed)
and exits cleanly at the end of the input or on ``quit``.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from agents.base import Agent
from agents.human import HumanAgent, HumanQuit
from experiments.cli import Number, check_numbers, debugging, hydra_app, report
from experiments.rules_config import rules_from_config
from rummy_env.actions import PASS, RUMMY, TAKE
from rummy_env.cards import card_text, counts_to_cards
from rummy_env.engine import Engine
from rummy_env.picture import save_gif
from rummy_env.records import RecordWriter
from rummy_env.render import render_table
from rummy_env.rules import Rules
from rummy_env.view import table_view

NUMBERS = {
    "seed": Number(int, 0, optional=True),
    "max_steps": Number(int, 1, optional=True),
    "delay": Number(float, 0, optional=True),
}


def seat_agents(
    rules: Rules,
    humans: Sequence[int],
    opponents: Sequence[str],
    seed: int,
    human_factory,
) -> list[Agent]:
    """One agent per seat: a ``HumanAgent`` at each of ``humans``, the ``opponents`` cycled over the others."""
    from agents import make_agent

    bad = [h for h in humans if not 0 <= h < rules.players]
    if bad:
        raise ValueError(f"seat {bad[0]} is not a seat of a {rules.players}-player table (0..{rules.players - 1})")
    others = [p for p in range(rules.players) if p not in humans]
    if others and not opponents:
        raise ValueError(
            "agents is empty: name at least one agent for the other seats (random, greedy, strategic or a .zip)"
        )
    seats: list[Agent | None] = [None] * rules.players
    for p in humans:
        seats[p] = human_factory(p)
    for k, p in enumerate(others):
        seats[p] = make_agent(str(opponents[k % len(opponents)]), rules, seed=(seed + p) % 2**32)
    return seats  # type: ignore[return-value]


class Table:
    """One game on a one-game ``Engine``, narrated to ``out``; the human seats read from their own streams."""

    def __init__(
        self,
        rules: Rules,
        agents: Sequence[Agent],
        seed: int,
        out: TextIO,
        humans: Sequence[int] = (),
        record: RecordWriter | None = None,
        symbols: bool = True,
        reveal: bool = False,
        max_steps: int | None = None,
        delay: float = 0.0,
        pictures: str | None = None,
    ) -> None:
        self.rules, self.agents, self.seed, self.out = rules, list(agents), int(seed), out
        self.humans = set(humans)
        self.record = record
        self.symbols, self.reveal, self.delay = symbols, reveal, delay
        self.engine = Engine(rules, num_games=1, seed=self.seed, max_steps=max_steps)
        self.engine.reset(seeds=[self.seed])
        self.names = [self._name(p) for p in range(rules.players)]
        self.pictures = pictures
        self.frames: list[dict[str, Any]] = []

    def snapshot(self, last: str | None = None) -> None:
        """Keep the position for the game's pictures (as the one person at the table sees it, else everything)."""
        if self.pictures is not None:
            viewer = next(iter(self.humans)) if len(self.humans) == 1 and not self.reveal else None
            self.frames.append(table_view(self.engine.spec, self.engine.state, 0, viewer, last, self.names))

    def _name(self, p: int) -> str:
        if p in self.humans:
            return "you" if len(self.humans) == 1 else f"human {p}"
        return self.agents[p].name

    def say(self, text: str = "") -> None:
        """Print a line for the people at the table."""
        self.out.write(text + "\n")
        self.out.flush()

    def show(self, card: int) -> str:
        """A card as shown on screen (unicode suits if asked)."""
        return card_text(card, self.symbols)

    def play(self) -> dict[str, Any]:
        """Play to the end (or until a human quits); returns a summary."""
        eng, s = self.engine, self.engine.state
        g = np.zeros(1, dtype=np.int64)
        if self.record is not None:
            self.record.start(eng, g, ids=[0], players=self.names, meta={"seed": self.seed})
        self.say(f"500 Rummy, seed {self.seed}: " + ", ".join(f"player_{p} = {n}" for p, n in enumerate(self.names)))
        changed = {k: v for k, v in self.rules.to_dict().items() if v != getattr(Rules(), k) and k != "players"}
        if changed:
            self.say("rules: " + ", ".join(f"{k}={v}" for k, v in changed.items()))
        quit_reason = None
        truncated = False
        rewards = None
        self.snapshot()
        while not eng.done[0]:
            seat, hand_no = int(s.current[0]), int(s.hand_no[0])
            agent = self.agents[seat]
            mask = eng.legal_mask(g)
            obs = eng.observe(games=g) if agent.needs_obs else None
            before = s.hand[0, seat].copy()
            try:
                action = int(agent.act(eng, g, obs, mask)[0])
            except HumanQuit as why:
                quit_reason = str(why)
                break
            except KeyboardInterrupt:
                quit_reason = "interrupted"
                break
            line = self.describe(seat, action)
            if self.record is not None:
                self.record.log(eng, g, [action])
            result = eng.step(np.array([action]))
            rewards = result.rewards
            self.snapshot(line.strip())
            self.say(line + self._drawn(seat, action, before, hand_no))
            if seat not in self.humans and self.delay:
                time.sleep(self.delay)
            if result.truncated[0]:
                truncated = True
                self.say(f"The game stops: max_steps={eng.max_steps} reached.")
                break
            if eng.done[0] or int(s.hand_no[0]) != hand_no:
                self.hand_over(hand_no)
        if quit_reason is not None:
            self.say(
                {"quit": "You left the game.", "interrupted": "\nInterrupted: the game is abandoned."}.get(
                    quit_reason, "End of input: the game is abandoned."
                )
            )
            if self.record is not None:
                self.record.abort_all(eng)
        elif self.record is not None:
            self.record.finish(eng, g, truncated=[truncated], rewards=rewards)
        if eng.done[0]:
            self.game_over()
        if self.pictures is not None:
            self.say(f"Game pictures written to {save_gif(self.frames, self.pictures)}")
        return {
            "finished": bool(eng.done[0]),
            "quit": quit_reason,
            "scores": s.scores[0].tolist(),
            "winner": int(s.winner[0]) if eng.done[0] and s.winner[0] >= 0 else None,
            "steps": int(s.steps[0]),
        }

    def describe(self, seat: int, action: int) -> str:
        """``player_1 (strategic): take 0 (Q♥)`` -- the move as everyone saw it."""
        layout, s = self.engine.spec.layout, self.engine.state
        text = layout.to_str(action)
        kind, arg = int(layout.kind[action]), int(layout.arg[action])
        if kind in (TAKE, RUMMY):
            size = int(s.pile_len[0])
            text += " (" + " ".join(self.show(int(c)) for c in s.pile[0, size - 1 - arg : size]) + ")"
        if kind == RUMMY:
            text = f'calls "Rummy!": {text}'
        if kind == PASS:
            text = "pass (no Rummy! call)"
        return f"  player_{seat} ({self.names[seat]}): {text}"

    def _drawn(self, seat: int, action: int, before: np.ndarray, hand_no: int) -> str:
        """The card a human (or anyone, with ``reveal``) drew from the stock."""
        layout, s = self.engine.spec.layout, self.engine.state
        if layout.to_str(action) != "draw" or not (seat in self.humans or self.reveal):
            return ""
        if int(s.hand_no[0]) != hand_no:
            return ""
        new = counts_to_cards(np.maximum(s.hand[0, seat].astype(int) - before.astype(int), 0))
        return " -> " + " ".join(self.show(c) for c in new) if new else ""

    def hand_over(self, hand_no: int) -> None:
        """Announce the scores of a finished hand."""
        s = self.engine.state
        scores = s.hand_scores[0].tolist()
        out = int(s.went_out[0])
        how = f"player_{out} ({self.names[out]}) went out" if out >= 0 else "the stock ran out"
        self.say(f"== Hand {hand_no + 1} over: {how}.")
        self.say("   hand:  " + "  ".join(f"player_{p} {v:+d}" for p, v in enumerate(scores)))
        self.say("   total: " + "  ".join(f"player_{p} {v}" for p, v in enumerate(s.scores[0].tolist())))

    def game_over(self) -> None:
        """Announce the final scores and the winner."""
        s = self.engine.state
        winner = int(s.winner[0])
        if winner >= 0:
            self.say(f"== Game over: player_{winner} ({self.names[winner]}) wins with {int(s.scores[0, winner])}.")
        else:
            self.say("== Game over: no single winner.")
        self.say(render_table(self.engine.spec, s, 0, reveal=True, symbols=self.symbols))


def can_encode(stream: TextIO, text: str = "\u2665\u2660") -> bool:
    """Whether ``stream`` can write unicode suits."""
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def run(cfg: Any, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Play one game from a config (``configs/play.yaml`` keys); returns the exit status."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    get = cfg.get if hasattr(cfg, "get") else lambda k, d=None: getattr(cfg, k, d)
    try:
        if isinstance(cfg, dict):
            check_numbers(cfg, {k: v for k, v in NUMBERS.items() if k in cfg})
        rules = rules_from_config(cfg, get("players", None))
        seat = get("seat", 0)
        humans = [] if seat is None else ([int(seat)] if isinstance(seat, (int, str)) else [int(x) for x in seat])
        seed = get("seed", None)
        seed = secrets.randbits(31) if seed is None else int(seed)
        symbols = bool(get("symbols", True)) and can_encode(stdout)
        hint_name = get("hint", None)
        from agents import make_agent

        hint = make_agent(str(hint_name), rules, seed=seed) if hint_name else None

        def human(p: int) -> HumanAgent:
            return HumanAgent(stdin, stdout, hint=hint, symbols=symbols, show_table=bool(get("show_table", True)))

        agents = seat_agents(rules, humans, agent_names(get("agents", None)), seed, human)
        if "torch" in sys.modules:  # a checkpoint was loaded: one-game batches need no intra-op threads
            sys.modules["torch"].set_num_threads(1)
    except ValueError as err:
        return report(err, debugging(cfg))
    path = get("record", None)
    writer = RecordWriter(str(path), rules, meta={"app": "experiments.play"}) if path else None
    table = Table(
        rules,
        agents,
        seed,
        stdout,
        humans=humans,
        record=writer,
        symbols=symbols,
        reveal=bool(get("reveal", False)),
        max_steps=get("max_steps", None),
        delay=float(get("delay", 0.0) or 0.0),
        pictures=get("pictures", None),
    )
    try:
        table.play()
    except BrokenPipeError:  # the output was closed (e.g. piped into `head`): stop quietly
        if writer is not None:
            writer.abort_all(table.engine)
            writer.close()
        _silence(stdout)
        return 0
    if writer is not None:
        writer.close()
        stdout.write(f"Game record written to {path}\n")
    return 0


def _silence(stream: TextIO) -> None:
    """Point ``stream``'s file descriptor at /dev/null so the interpreter's final flush does not fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def agent_names(agents: Any) -> list[str]:
    """The ``agents`` option as a list: a single name (``agents=strategic``) is that agent in every other seat."""
    return [agents] if isinstance(agents, str) else [str(a) for a in agents or []]


def check_options(cfg: Any) -> None:
    """The options read before the game starts, checked (a ``ValueError`` naming the option)."""
    from agents.registry import agent_kind

    check_numbers(cfg, {k: v for k, v in NUMBERS.items() if k in cfg})
    rules_from_config(cfg, cfg.get("players"))
    for name in [*agent_names(cfg.get("agents")), *([str(cfg.hint)] if cfg.get("hint") else [])]:
        agent_kind(name)


def _hydra_main() -> None:
    from omegaconf import DictConfig, OmegaConf

    @hydra_app("play", check=check_options)
    def main(cfg: DictConfig) -> None:
        code = run(OmegaConf.to_container(cfg, resolve=True))
        if code:
            sys.exit(code)

    main()


if __name__ == "__main__":
    _hydra_main()
