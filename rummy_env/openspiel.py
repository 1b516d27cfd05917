"""500 Rummy as an OpenSpiel game: ``import rummy_env.openspiel`` registers ``python_500_rummy`` with pyspiel.

``pyspiel.load_game("python_500_rummy", {"players": 3, "target_score": 250})``
takes every ``Rules`` field as a parameter (``decks``, ``hand_size`` and
``deals``: 0 for the derived default), ``preset`` (a ``Rules.preset`` name, its
fields overridden by the parameters that differ from the ``Rules`` defaults:
pyspiel fills in every default), ``rng_seed`` (the deals) and ``max_steps`` (a
game stopped there is terminal with the rewards so far).

Chance is ``SAMPLED_STOCHASTIC``, like OpenSpiel's other card games with hidden
shuffles: the engine shuffles from each game's seed, so there are no chance
nodes. ``new_initial_state()`` deals the next game of the game object's seeded
sequence (``rng_seed``) when the state is first read, and ``resample_from_infostate``
deals what a seat cannot see again with ``rummy_env.infoset``. Rewards come when
hands end (``Rules.reward``) and sum to zero.

Per player: the observation (tensor: the engine's compiled observation, written by
the step that made the position; string: the table as that seat sees it) and the
information state (string: perfect recall, compact, see ``_Memory.read``; no
tensor: a perfect-recall tensor would grow with the game).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np
import pyspiel

from .cards import NUM_KINDS, card_str, counts_to_cards
from .engine.calls import hand_hidden
from .engine.core import Engine
from .engine.state import GAME_OVER, OUT_OF_PLAY, State
from .infoset import sample_states
from .render import render_table
from .rules import PRESETS, Rules
from .scenario import load_scenario, state_dict

SHORT_NAME = "python_500_rummy"
_NONE_AS_ZERO = ("decks", "hand_size", "deals")  # Rules fields whose None is written 0 as a pyspiel parameter
_DEFAULT_MAX_STEPS = 3000
RANDOM_SEED = -1  # OpenSpiel's convention: ``rng_seed=-1`` deals from fresh OS entropy (a reloaded game deals anew)


def _parameters() -> dict[str, Any]:
    """pyspiel parameter defaults: every Rules field, then ``preset``, ``rng_seed`` and ``max_steps``."""
    params: dict[str, Any] = {}
    for f in fields(Rules):
        value = getattr(Rules(), f.name)
        params[f.name] = 0 if f.name in _NONE_AS_ZERO and value is None else value
    return {**params, "preset": "", "rng_seed": 0, "max_steps": _DEFAULT_MAX_STEPS}


_PARAMETERS = _parameters()
_TYPE_FIELDS = dict(
    short_name=SHORT_NAME,
    long_name="Python 500 Rummy (rummy-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,  # a perfect-recall tensor would grow with the game: see RummyObserver
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)
_GAME_TYPE = pyspiel.GameType(**_TYPE_FIELDS)  # registered; each game's own type says how its rewards come


def game_type(rules: Rules) -> pyspiel.GameType:
    """The game type of ``rules``: rewards only at the end (``TERMINAL``, what ``MCTSBot`` needs) unless a game
    of several hands rewards each hand's score (``reward="score"``)."""
    terminal = rules.reward == "win" or rules.episode == "hand"
    model = pyspiel.GameType.RewardModel.TERMINAL if terminal else pyspiel.GameType.RewardModel.REWARDS
    return pyspiel.GameType(**{**_TYPE_FIELDS, "reward_model": model})


def _gone() -> None:
    """The reference of a state that is gone (a pickled game's deal offered again)."""


def _load_game(params: dict[str, Any], rng_state: dict[str, Any], offered: int | None = None) -> RummyGame:
    """A pickled game: built from its parameters, its deal sequence where it was."""
    game = RummyGame(params)
    game._rng.bit_generator.state = rng_state
    if offered is not None:
        game.offer = (offered, _gone)
    return game


def _load_state(game: RummyGame, text: str) -> RummyState:
    """A pickled state: its game, then its serialization played again."""
    return game.deserialize_state(text)


def game_rules(params: dict[str, Any]) -> Rules:
    """The ``Rules`` of pyspiel parameters (``ValueError`` naming a bad field or preset)."""
    given = {k: v for k, v in params.items() if k not in ("preset", "rng_seed", "max_steps")}
    fixed = {k: (None if k in _NONE_AS_ZERO and v == 0 else v) for k, v in given.items()}
    preset = params.get("preset", "")
    if preset:
        if preset not in PRESETS:
            raise ValueError(f"unknown Rules preset {preset!r}; presets: {', '.join(PRESETS)}")
        changed = {k: v for k, v in fixed.items() if v != Rules.from_dict({}).to_dict().get(k)}
        return Rules.preset(preset, **changed)
    return Rules.from_dict(fixed)


class RummyGame(pyspiel.Game):
    """500 Rummy under one ``Rules``, for OpenSpiel."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMETERS, **(params or {})}
        self.rules = game_rules(params)
        self.max_steps = int(params["max_steps"])
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {self.max_steps!r}")
        self.engine = Engine(self.rules, num_games=1, seed=0)
        self.holder: _Position | None = None  # the position playing in the engine's game 0 now
        self.scratch = Engine(self.rules, num_games=1, seed=0)  # observes new games without dealing them there
        self.scratch_deal: int | None = None  # the seed of the deal in the scratch engine
        self.scratch_seen: dict[int, np.ndarray] = {}  # its observations by seat
        self.obs_dim = self.engine.obs_dim
        self.no_rewards = (0.0,) * self.rules.players
        # The last deal drawn, while the state that drew it has only been observed: (seed, weakref of its position).
        # Once that state is gone (pyspiel's throwaway state sizing a tensor) the next new game takes the deal again.
        self.offer: tuple[int, Callable[[], Any]] | None = None
        players = self.rules.players
        self.chosen = np.zeros(1, dtype=np.int64)  # the step's buffers (Engine._step_observe_into)
        self.step_rewards = np.zeros((1, players))
        self.step_done, self.step_truncated = np.zeros(1, dtype=bool), np.zeros(1, dtype=bool)
        self._params = dict(params)
        seed = int(params["rng_seed"])
        self._rng = np.random.default_rng(None if seed == RANDOM_SEED else seed)
        win = self.rules.reward == "win"
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_actions,
            max_chance_outcomes=0,
            num_players=self.rules.players,
            min_utility=-1.0 if win else -100.0,
            max_utility=1.0 if win else 100.0,
            utility_sum=0.0,
            max_game_length=self.max_steps,
        )
        super().__init__(game_type(self.rules), info, params)

    def __reduce__(self) -> tuple:
        """Pickle as the parameters and the deal sequence's place (Ray and multiprocessing workers)."""
        offered = self.offer[0] if self.offer is not None and self.offer[1]() is None else None
        return _load_game, (self._params, self._rng.bit_generator.state, offered)

    def new_initial_state(self) -> RummyState:
        """A new game, dealt from the next seed of the game's sequence when the state is first read."""
        return RummyState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RummyObserver:
        """The observer of OpenSpiel's observation API: one player's view (tensor and string), or with
        ``perfect_recall`` the information state string only (``ValueError`` for other kinds of observation)."""
        if isinstance(iig_obs_type, dict):  # pyspiel's game.make_observer(params) passes the parameters only
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                f"{SHORT_NAME} observes as one player sees the table (public_info=True, private_info=SINGLE_PLAYER), "
                f"got public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info}"
            )
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RummyObserver(self, perfect_recall)

    def deserialize_state(self, text: str) -> RummyState:
        """The state ``RummyState.serialize`` wrote: its start position, then its actions played again."""
        data = json.loads(text)
        state = RummyState(self, load_scenario(self.engine.spec, data["start"], 0))
        state._returns = state._start_returns = tuple(float(r) for r in data["returns"])
        for action in data["actions"]:
            state.apply_action(int(action))
        return state


class _Position:
    """A state's position: its own one-game row, or the game's engine while that state is the one playing there,
    or (a new game) the seed of its deal, drawn from the game's sequence when the position is first read.

    States share the engine's game 0: a state keeps playing in it without copies
    until another state needs it, which first saves the row. Rows are never
    changed in place, so clones share them. ``seen`` keeps the observations of
    this position by seat (the step that made it writes the seat to act's) and
    ``legal`` its legal actions, until the position changes.
    """

    __slots__ = ("__weakref__", "deal", "drawn", "game", "legal", "row", "seen")

    def __init__(self, game: RummyGame, row: State | None, deal: int | None = None, drawn: bool = True) -> None:
        self.game, self.row, self.deal, self.drawn = game, row, deal, drawn
        self.seen: dict[int, np.ndarray] = {}
        self.legal: list[int] | None = None

    def view(self) -> State:
        """The position now (a one-game State)."""
        return self.engine().state if self.row is None else self.row

    def saved(self) -> State:
        """The position as a row of its own."""
        if self.row is None:
            self.row = self.engine().state.take(np.array([0]))
        return self.row

    def draw(self, peek: bool = False) -> int:
        """The seed of this new game's deal, drawn now if not yet: the game's next seed, or the one a state gone
        since had only taken observation tensors of (``peek``: this one may be such a state, e.g. the throwaway
        state pyspiel makes to size a tensor)."""
        game = self.game
        if not self.drawn:
            offer = game.offer
            self.deal = offer[0] if offer is not None and offer[1]() is None else int(game._rng.integers(2**63))
            game.offer = (self.deal, weakref.ref(self)) if peek else None
            self.drawn = True
        elif not peek and game.offer is not None and game.offer[1]() is self:
            game.offer = None  # read for more than a tensor: the deal is this position's for good
        assert self.deal is not None
        return self.deal

    def engine(self) -> Engine:
        """The game's engine, holding this position in its game 0."""
        game, holder = self.game, self.game.holder
        if holder is self:
            return game.engine
        same = holder is not None and holder.row is not None and holder.row is self.row  # a clone's
        if holder is not None and not same:
            holder.saved()
        if self.deal is not None or not self.drawn:
            game.engine.reset(seeds=[self.draw()], games=[0])
            self.deal = None
        elif not same:
            game.engine.load_state([0], self.saved())
        game.holder = self
        return game.engine

    def observe(self, seat: int) -> np.ndarray:
        """``float32 [obs_dim]`` the position as ``seat`` sees it, computed once (a new game's on the side: pyspiel
        sizes a tensor on a new state, which takes no deal from the sequence)."""
        seen = self.seen.get(seat)
        if seen is not None:
            return seen
        game = self.game
        if self.deal is None and self.drawn:
            seen = self.seen[seat] = _observed(self.engine(), seat, game.obs_dim)
            return seen
        seed = self.draw(peek=True)
        if game.scratch_deal != seed:
            game.scratch.reset(seeds=[seed], games=[0])
            game.scratch_deal, game.scratch_seen = seed, {}
        seen = game.scratch_seen.get(seat)
        if seen is None:
            seen = game.scratch_seen[seat] = _observed(game.scratch, seat, game.obs_dim)
        self.seen[seat] = seen
        return seen

    def __deepcopy__(self, memo: dict) -> _Position:
        """A clone's position: the same row (rows are never changed in place), or the same deal."""
        if self.deal is not None or not self.drawn:
            other = _Position(self.game, None, self.draw())
        else:
            other = _Position(self.game, self.saved())
        other.seen, other.legal = self.seen, self.legal  # arrays and lists never changed in place
        return other


_GAME_ZERO = np.zeros(1, dtype=np.int64)


def _observed(engine: Engine, seat: int, size: int) -> np.ndarray:
    """``float32 [size]`` the engine's game 0 as ``seat`` sees it, written into a new buffer by the compiled
    observation."""
    out = np.empty((1, size), dtype=np.float32)
    engine._observe_into(_GAME_ZERO, np.array([seat], dtype=np.int64), out)
    return out[0]


_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_NO_RECALL_TENSOR = (
    f"{SHORT_NAME} has no perfect-recall tensor (a tensor of everything seen would grow with the game): use the "
    "information state string (string_from, information_state_string) or the observation tensor "
    "(make_observation(game) without perfect_recall, observation_tensor)"
)


class _Log(list):
    """Per action: ``(action, every hand, the pile's top card, the seat naming the power blind or -1, the scores,
    the cards out of play)`` (``action`` -1: the deal, -2: a resample), all immutable."""

    def __deepcopy__(self, memo: dict) -> _Log:
        """A clone's log: the same entries."""
        return _Log(self)


class _Memory:
    """What one player has seen, as the compact information state string, read from the log up to ``upto``."""

    __slots__ = ("hand", "out", "scores", "text", "top", "upto")

    def __init__(self, player: int) -> None:
        self.upto, self.text = 0, f"p{player}"
        self.hand, self.top, self.scores, self.out = _NO_CARDS, -1, b"", b""

    def __deepcopy__(self, memo: dict) -> _Memory:
        """A clone's memory: a copy (its fields are immutable)."""
        other = _Memory(0)
        other.upto, other.text, other.hand, other.top = self.upto, self.text, self.hand, self.top
        other.scores, other.out = self.scores, self.out
        return other

    def read(self, entry: tuple, player: int, players: int) -> str:
        """The token of one log entry: the action id (``deal``, ``resampled``), then what changed that ``player``
        sees: ``+``/``-`` cards into / out of their hand, ``^`` the pile's new top card, ``%`` the cards out of
        play, ``$`` the scores."""
        action, hands, top, blind, scores, out = entry
        parts = [_EVENTS.get(action) or str(action)]
        if blind != player:
            held = np.frombuffer(hands, dtype=np.int8).reshape(players, -1)[player]
            change = held.astype(np.int16) - self.hand
            if change.any():
                parts += [f"+{card_str(c)}" for c in counts_to_cards(np.maximum(change, 0))]
                parts += [f"-{card_str(c)}" for c in counts_to_cards(np.maximum(-change, 0))]
                self.hand = held.astype(np.int16)
        if top != self.top:
            parts.append("^" + (card_str(top) if top >= 0 else "-"))
            self.top = top
        if out != self.out:
            parts.append("%" + "".join(card_str(c) for c in counts_to_cards(np.frombuffer(out, dtype=np.int8))))
            self.out = out
        if scores != self.scores:
            parts.append("$" + ",".join(str(v) for v in np.frombuffer(scores, dtype=np.int32).tolist()))
            self.scores = scores
        return "".join(parts)


_NO_CARDS = np.zeros(NUM_KINDS, dtype=np.int16)
_EVENTS = {-1: "deal", -2: "resampled"}


class RummyState(pyspiel.State):
    """One game in progress: its position, returns, and the log each player's information state reads.

    A new state sets its position only: the class attributes below are its other fields until they change (pyspiel
    makes and drops a new state for every tensor it sizes and every clone).
    """

    _player: int | None = None  # the seat to act or _TERMINAL, once read
    _rewards: tuple[float, ...] = ()  # the last action's rewards, the returns, the returns at _start: () all zero
    _returns: tuple[float, ...] = ()
    _start_returns: tuple[float, ...] = ()
    _start: State | None = None  # the position the log starts at (the deal, or a resampled one)
    _start_moves = 0  # the moves before _start
    _log: _Log | tuple = ()  # starts with the deal, logged when the position is first read
    _since: list[int] | None = None  # each player's memory starts at this log entry (None: at 0)
    _memo: list[_Memory] | None = None  # each player's memory, once read

    def __init__(self, game: RummyGame, row: State | None = None, deal: int | None = None) -> None:
        super().__init__(game)
        self._pos = _Position(game, row, deal, drawn=row is not None or deal is not None)

    def _game(self) -> RummyGame:
        return self._pos.game

    def _logged(self) -> None:
        """Log the deal, and keep the start position, unless done already."""
        if not self._log:
            self._log = _Log()
            self._start = self._pos.saved()
            self._note(-1)

    def _note(self, action: int) -> None:
        """Log an action (or a deal) with what each player may see after it."""
        s, rules = self._pos.view(), self._game().rules
        size = int(s.pile_len[0])
        top = int(s.pile[0, size - 1]) if size else -1
        blind, out = -1, b""
        if rules.dealers_joker:
            dealer = int(s.dealer[0])
            blind = dealer if hand_hidden(self._game().engine.spec, s, 0, dealer) else -1
            out = s.dj[0, OUT_OF_PLAY:].tobytes()
        log = self._log
        assert isinstance(log, _Log), "the deal is logged first"
        log.append((action, s.hand[0].tobytes(), top, blind, s.scores[0].tobytes(), out))

    def _memory(self, player: int) -> str:
        """Everything ``player`` has seen, compactly (``_Memory.read``): each action, in order, with the changes to
        their own hand, the pile's top card, the cards out of play and the scores after it."""
        self._logged()
        players = self._game().rules.players
        if self._memo is None:
            self._memo = [_Memory(p) for p in range(players)]
        memo, start = self._memo[player], 0 if self._since is None else self._since[player]
        if memo.upto < start:
            memo = self._memo[player] = _Memory(player)
            memo.upto = start
        tokens = [memo.text]
        for number in range(memo.upto, len(self._log)):
            entry = self._log[number]
            if entry[0] == -2 and number > start:  # another player's resample: nothing this player sees
                continue
            tokens.append(memo.read(entry, player, players))
        memo.text, memo.upto = " ".join(tokens), len(self._log)
        return memo.text

    def _read_player(self) -> int:
        """The seat to act, or ``_TERMINAL``, read from the position."""
        s = self._pos.view()
        if s.phase[0] == GAME_OVER or s.steps[0] >= self._game().max_steps:
            return _TERMINAL
        return int(s.current[0])

    def current_player(self) -> int:
        """The seat to act, or ``pyspiel.PlayerId.TERMINAL``."""
        player = self._player
        if player is None:
            player = self._player = self._read_player()
        return player

    def is_terminal(self) -> bool:
        """The game is over or ``max_steps`` actions were played."""
        return self.current_player() == _TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        """The legal action ids, ascending."""
        if player != self.current_player():
            return []
        position = self._pos
        if position.legal is None:
            position.legal = np.flatnonzero(position.engine().legal_mask([0])[0]).tolist()
        return position.legal

    def _apply_action(self, action: int) -> None:
        """Play ``action`` for the seat to act: one compiled pass steps the game, recomputes its mask and writes the
        observation of the seat to act next into a new buffer."""
        if not self._log:
            self._logged()
        position = self._pos
        game, engine = position.game, position.engine()
        game.chosen[0] = action
        rewards, seen = game.step_rewards, np.empty((1, game.obs_dim), dtype=np.float32)
        rewards.fill(0.0)
        engine._step_observe_into(game.chosen, True, rewards, game.step_done, game.step_truncated, seen)
        position.row = None  # the position lives in the engine until another state needs it
        self._rewards = step = tuple(rewards[0].tolist())
        if any(step):
            self._returns = tuple(a + b for a, b in zip(self._returns or game.no_rewards, step, strict=True))
        player = self._player = self._read_player()
        if player == _TERMINAL:
            position.seen, position.legal = {}, []
        else:
            position.seen, position.legal = {player: seen[0]}, engine.legal_mask()[0].nonzero()[0].tolist()
        self._note(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        """The action string (``draw``, ``meld 9C 9D 9S``...)."""
        return self._game().engine.spec.layout.to_str(int(action))

    def rewards(self) -> list[float]:
        """Each player's reward for the last action."""
        return list(self._rewards or self._game().no_rewards)

    def returns(self) -> list[float]:
        """Each player's rewards summed since the deal."""
        return list(self._returns or self._game().no_rewards)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> RummyState:
        """A state ``player_id`` cannot tell from this one: what they cannot see dealt again (``rummy_env.infoset``).

        The seed comes from ``probability_sampler()`` (a uniform in [0, 1)). The other
        players' memories are replaced by their sampled hands.
        """
        seed = int(float(probability_sampler()) * 2**53)
        self._logged()
        row = sample_states(self._pos.engine(), [0], [int(player_id)], seed)
        other = self.clone()
        other._pos = _Position(self._game(), row)
        other._start, other._start_returns, other._start_moves = row, self._returns, len(self.history())
        other._note(-2)
        players = range(self._game().rules.players)
        other._since = [0 if p == player_id else len(other._log) - 1 for p in players]
        memos = other._memo or [_Memory(p) for p in players]
        other._memo = [memo if p == player_id else _Memory(p) for p, memo in enumerate(memos)]
        return other

    def position(self) -> dict[str, Any]:
        """The position as a ``state_dict()`` (it loads into ``rummy_env.env`` like any scenario)."""
        return state_dict(self._game().engine.spec, self._pos.view(), 0)

    def __reduce__(self) -> tuple:
        """Pickle (and ``copy.deepcopy``) as the game and ``serialize``."""
        return _load_state, (self.get_game(), self.serialize())

    def serialize(self) -> str:
        """JSON: the start position (the deal, or a resampled one) with the returns then, and the actions since."""
        self._logged()
        assert self._start is not None
        return json.dumps(
            {
                "start": state_dict(self._game().engine.spec, self._start, 0),
                "returns": list(self._start_returns or self._game().no_rewards),
                "actions": self.history()[self._start_moves :],
            }
        )

    def __str__(self) -> str:
        """The whole table, every hand shown."""
        return render_table(self._game().engine.spec, self._pos.view(), 0, reveal=True)


class RummyObserver:
    """OpenSpiel's Python observer: the engine's observation tensor and the table as a string, or (perfect recall)
    the information state string and no tensor."""

    def __init__(self, game: RummyGame, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = None if perfect_recall else np.zeros(game.engine.obs_dim, dtype=np.float32)
        self.dict = {} if self.tensor is None else {"observation": self.tensor}

    def set_from(self, state: RummyState, player: int) -> None:
        """Fill ``tensor`` with ``state`` as ``player`` sees it (the engine's compiled observation)."""
        if self.tensor is None:
            raise ValueError(_NO_RECALL_TENSOR)
        self.tensor[:] = state._pos.observe(int(player))

    def string_from(self, state: RummyState, player: int) -> str:
        """The table as ``player`` sees it, or (``perfect_recall``) everything ``player`` has seen so far."""
        if self.perfect_recall:
            return state._memory(player)
        return render_table(state._game().engine.spec, state._pos.view(), 0, viewer=player)


pyspiel.register_game(_GAME_TYPE, RummyGame)
