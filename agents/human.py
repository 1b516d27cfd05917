"""A person at the keyboard as an agent: shows the table, lists the legal moves, reads a move.

The human is an ``Agent`` like any other (``act(engine, games, obs, mask)``),
so it can sit at any seat of any game on the batched engine. For each decision
it prints the table as its seat sees it (unicode suits by default), the legal
moves as numbered action strings, and optionally what a hint agent would play,
then reads a line:

- a number from the list (``2``) or an action string (``take 4``, ``discard 10h``,
  ``meld 4C 4D 4H``; case-insensitive, ``10`` for ``T``, suit symbols accepted);
- ``help``, ``table`` (show the table again), ``moves`` (list the moves again),
  ``hint`` (ask the hint agent), ``quit`` / ``exit``.

Bad input (an unknown move, a move that is not legal now, a number out of
range) gets a message saying why, and the question is asked again. ``quit`` or
the end of the input raises ``HumanQuit``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

import numpy as np

from rummy_env.actions import RUMMY, TAKE
from rummy_env.cards import SUIT_SYMBOLS, SUITS, card_text
from rummy_env.engine import Engine
from rummy_env.engine.explain import explain_illegal
from rummy_env.engine.state import OPENING_PHASE, PLAY_PHASE, RUMMY_PHASE
from rummy_env.render import render_table

from .base import Agent

HELP = """\
Type the number of a move or the move itself, for example:
  draw                 draw the top card of the stock
  take 2               take the discard pile down to depth 2 (0 = top card)
  meld 4C 4D 4H        put down a group (suits in C D H S order) or a run (low to high);
                       a card you lack is played by a joker
  layoff 7H run        lay off on a run; 'layoff JK as 8H run', 'layoff JK as 9 group'
  discard QS           discard (ends your turn)
  rummy 1 / pass       call "Rummy!" down to depth 1, or let it go
Other commands: table, moves, hint, help, quit. Cards: A 2-9 T (or 10) J Q K + C D H S, JK."""

_QUIT = ("quit", "exit", "q", ":q")
_SYMBOL_TO_SUIT = str.maketrans(dict(zip(SUIT_SYMBOLS, SUITS, strict=True)))


class HumanQuit(Exception):
    """The player typed ``quit`` or the input ended."""


class HumanAgent(Agent):
    """Reads moves from a text stream (default: stdin) and writes the table to another (default: stdout).

    ``hint``: an ``Agent`` whose choice is shown at every decision (and on
    ``hint``). ``symbols``: unicode suits. ``show_table``: print the table
    before every decision. ``echo``: repeat each line read (default: when
    the input is not a terminal, so a scripted session reads like a
    transcript). ``read``/``write``: callables used instead of the streams.
    """

    name = "human"
    needs_obs = False

    def __init__(
        self,
        input: TextIO | None = None,
        output: TextIO | None = None,
        hint: Agent | None = None,
        symbols: bool = True,
        show_table: bool = True,
        echo: bool | None = None,
        name: str = "human",
        read: Callable[[str], str] | None = None,
        write: Callable[[str], None] | None = None,
    ) -> None:
        self._input = input
        self._output = output
        self.hint = hint
        self.symbols = symbols
        self.show_table = show_table
        self.echo = echo
        self.name = name
        self._read = read
        self._write = write

    # -- io
    @property
    def input(self) -> TextIO:
        """The stream moves are read from."""
        return self._input if self._input is not None else sys.stdin

    @property
    def output(self) -> TextIO:
        """The stream the table and prompts are written to."""
        return self._output if self._output is not None else sys.stdout

    def say(self, text: str = "") -> None:
        """Write a line to the player."""
        if self._write is not None:
            self._write(text)
            return
        self.output.write(text + "\n")
        self.output.flush()

    def ask(self, prompt: str) -> str:
        """Read one line (``HumanQuit`` at the end of the input)."""
        if self._read is not None:
            try:
                return self._read(prompt)
            except EOFError:
                raise HumanQuit("end of input") from None
        self.output.write(prompt)
        self.output.flush()
        line = self.input.readline()
        if not line:
            self.output.write("\n")
            raise HumanQuit("end of input")
        echo = self.echo if self.echo is not None else not _isatty(self.input)
        if echo:
            self.output.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\r\n")

    def show(self, card: int) -> str:
        """A card as the player sees it."""
        return card_text(card, self.symbols)

    # -- the agent interface
    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """Ask for one move per game of ``games``, repeating the question until the answer is legal."""
        games = np.asarray(games, dtype=np.int64)
        actions = np.zeros(len(games), dtype=np.int64)
        for row, g in enumerate(games.tolist()):
            actions[row] = self.choose(engine, g, np.asarray(mask[row], dtype=bool))
        return actions

    def choose(self, engine: Engine, g: int, mask: np.ndarray) -> int:
        """One move in game ``g`` (``mask``: its legal actions)."""
        legal = np.flatnonzero(mask)
        if self.show_table:
            self.say()
            self.say(render_table(engine.spec, engine.state, g, symbols=self.symbols))
        self.say(self.situation(engine, g))
        self.list_moves(engine, g, legal)
        if self.hint is not None:
            self.say(self.hint_line(engine, g, mask))
        seat = int(engine.state.current[g])
        while True:
            text = self.ask(f"player_{seat}> ").strip()
            word = text.lower()
            if not text:
                self.say("Type a move or its number ('help' for help).")
                continue
            if word in _QUIT:
                raise HumanQuit("quit")
            if word in ("help", "?", "h"):
                self.say(HELP)
                continue
            if word in ("table", "t"):
                self.say(render_table(engine.spec, engine.state, g, symbols=self.symbols))
                continue
            if word in ("moves", "m", "ls"):
                self.list_moves(engine, g, legal)
                continue
            if word == "hint":
                if self.hint is None:
                    self.say("No hint agent: start with hint=strategic (or any agent name) to get hints.")
                else:
                    self.say(self.hint_line(engine, g, mask))
                continue
            action, problem = self.parse(engine, g, legal, text)
            if problem:
                self.say(problem)
                continue
            return action

    def parse(self, engine: Engine, g: int, legal: np.ndarray, text: str) -> tuple[int, str]:
        """(action id, "") for a legal answer, else (-1, a message saying what is wrong)."""
        layout = engine.spec.layout
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(legal):
                return -1, f"No move number {number}: choose 1..{len(legal)}, or type the move."
            return int(legal[number - 1]), ""
        try:
            action = layout.from_str(text.translate(_SYMBOL_TO_SUIT))
        except ValueError as err:
            return -1, f"Not a move: {err}. Type 'help' for the move syntax, or a number from the list."
        if action not in legal:
            return -1, f"Not legal now: {explain_illegal(engine.spec, engine.state, g, action)}."
        return action, ""

    # -- what the player is shown
    def situation(self, engine: Engine, g: int) -> str:
        """One line saying what is being decided."""
        s = engine.state
        phase, seat = int(s.phase[g]), int(s.current[g])
        if phase == RUMMY_PHASE:
            top = self.show(int(s.pile[g, s.pile_len[g] - 1]))
            who = int(s.discarder[g])
            return f'"Rummy!" window: player_{who} discarded {top}. player_{seat}, call "rummy D" or "pass".'
        if phase == OPENING_PHASE:
            return f"player_{seat}: start the discard pile - discard any card (no draw, no melding)."
        if phase == PLAY_PHASE:
            if s.obliged[g] >= 0:
                return f"player_{seat}: meld {self.show(int(s.obliged[g]))} now (you took it from the pile)."
            return f"player_{seat}: meld, lay off, or discard to end your turn."
        return f"player_{seat}: your turn - draw from the stock or take from the discard pile."

    def describe(self, engine: Engine, g: int, action: int) -> str:
        """The action string, with the cards a take or call would pick up."""
        layout, s = engine.spec.layout, engine.state
        text = layout.to_str(action)
        kind, depth = int(layout.kind[action]), int(layout.arg[action])
        if kind in (TAKE, RUMMY):
            size = int(s.pile_len[g])
            cards = " ".join(self.show(int(c)) for c in s.pile[g, size - 1 - depth : size])
            text += f" ({cards})"
        return text

    def list_moves(self, engine: Engine, g: int, legal: np.ndarray) -> None:
        """Print the numbered legal moves, a few per line."""
        items = [f"{i + 1:>2}) {self.describe(engine, g, int(a))}" for i, a in enumerate(legal)]
        width = max(len(x) for x in items) + 2
        per_line = max(1, 78 // width)
        self.say("Your moves:")
        for start in range(0, len(items), per_line):
            self.say("  " + "".join(x.ljust(width) for x in items[start : start + per_line]).rstrip())

    def hint_line(self, engine: Engine, g: int, mask: np.ndarray) -> str:
        """What the hint agent would play here."""
        hint = self.hint
        assert hint is not None, "hint_line needs a hint agent"
        games = np.array([g], dtype=np.int64)
        obs = engine.observe(games=games) if hint.needs_obs else None
        action = int(hint.act(engine, games, obs, mask[None, :])[0])
        return f"hint ({hint.name}): {self.describe(engine, g, action)}"


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
