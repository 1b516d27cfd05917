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
sequence (``rng_seed``), and ``resample_from_infostate`` deals what a seat cannot
see again with ``rummy_env.infoset``. Rewards come when hands end (``Rules.reward``)
and sum to zero.

Per player: the observation (tensor: ``Engine.observe``; string: the table as
that seat sees it) and the information state (tensor: the same as the
observation; string: perfect recall, every action so far with the player's own
hand and the pile's top card after it).
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import numpy as np
import pyspiel

from .cards import card_str, counts_to_cards
from .engine.calls import hand_hidden
from .engine.core import Engine
from .engine.state import GAME_OVER, State
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
    provides_information_state_tensor=True,
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


def _load_game(params: dict[str, Any], rng_state: dict[str, Any]) -> RummyGame:
    """A pickled game: built from its parameters, its deal sequence where it was."""
    game = RummyGame(params)
    game._rng.bit_generator.state = rng_state
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
        return _load_game, (self._params, self._rng.bit_generator.state)

    def new_initial_state(self) -> RummyState:
        """A new game, dealt from the next seed of the game's sequence."""
        return RummyState(self, None, int(self._rng.integers(2**63)))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RummyObserver:
        """The observer of OpenSpiel's observation API (``perfect_recall``: information state strings)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RummyObserver(self, perfect_recall)

    def deserialize_state(self, text: str) -> RummyState:
        """The state ``RummyState.serialize`` wrote: its start position, then its actions played again."""
        data = json.loads(text)
        state = RummyState(self, load_scenario(self.engine.spec, data["start"], 0))
        state._returns[:] = data["returns"]
        for action in data["actions"]:
            state.apply_action(int(action))
        return state


class _Position:
    """A state's position: its own one-game row, or the game's engine while that state is the one playing there,
    or (a new game not looked at yet) the seed of its deal.

    States share the engine's game 0: a state keeps playing in it without copies
    until another state needs it, which first saves the row. Rows are never
    changed in place, so clones share them.
    """

    def __init__(self, game: RummyGame, row: State | None, deal: int | None = None) -> None:
        self.game, self.row, self.deal = game, row, deal

    def view(self) -> State:
        """The position now (a one-game State)."""
        return self.engine().state if self.row is None else self.row

    def saved(self) -> State:
        """The position as a row of its own."""
        if self.row is None:
            self.row = self.engine().state.take(np.array([0]))
        return self.row

    def engine(self) -> Engine:
        """The game's engine, holding this position in its game 0."""
        game, holder = self.game, self.game.holder
        if holder is self:
            return game.engine
        same = holder is not None and holder.row is not None and holder.row is self.row  # a clone's
        if holder is not None and not same:
            holder.saved()
        if self.deal is not None:
            game.engine.reset(seeds=[self.deal], games=[0])
            self.deal = None
        elif not same:
            game.engine.load_state([0], self.saved())
        game.holder = self
        return game.engine

    def __deepcopy__(self, memo: dict) -> _Position:
        """A clone's position: the same row (rows are never changed in place), or the same deal."""
        if self.deal is not None:
            return _Position(self.game, None, self.deal)
        return _Position(self.game, self.saved())


class _Log(list):
    """Per action: ``(actor, action, every hand, the pile's top card, the seat naming the power blind or -1)``
    (``actor`` -1: the deal, -2: a resample)."""

    def __deepcopy__(self, memo: dict) -> _Log:
        """A clone's log: the same entries (tuples of immutable values)."""
        return _Log(self)


class RummyState(pyspiel.State):
    """One game in progress: its position, returns, and the log each player's information state reads."""

    def __init__(self, game: RummyGame, row: State | None, deal: int | None = None) -> None:
        super().__init__(game)
        self._pos = _Position(game, row, deal)
        self._returns = np.zeros(game.rules.players)
        self._rewards = np.zeros(game.rules.players)
        self._start, self._start_returns, self._start_moves = row, self._returns.copy(), 0
        self._log = _Log()  # starts with the deal, logged when the position is first read
        self._since = [0] * game.rules.players  # each player's memory starts at this log entry
        self._memo = [(0, "")] * game.rules.players  # each player's memory so far: (log entries read, text)

    def _game(self) -> RummyGame:
        return self.get_game()

    def _logged(self) -> None:
        """Log the deal, and keep the start position, unless done already."""
        if not self._log:
            self._start = self._pos.saved()
            self._note(-1, -1)

    def _note(self, actor: int, action: int) -> None:
        """Log an action (or a deal) with the hands and the pile's top card after it."""
        s = self._pos.view()
        top = int(s.pile[0, s.pile_len[0] - 1]) if s.pile_len[0] else -1
        dealer = int(s.dealer[0])
        blind = dealer if hand_hidden(self._game().engine.spec, s, 0, dealer) else -1
        self._log.append((actor, action, s.hand[0].tobytes(), top, blind))

    def _memory(self, player: int) -> str:
        """Everything ``player`` has seen: each action with their own hand (unless blind) and the top card after it."""
        game = self._game()
        layout, players = game.engine.spec.layout, game.rules.players
        self._logged()
        start = self._since[player]
        upto, text = self._memo[player]
        lines = [text] if upto > start else [f"player_{player}"]
        for number in range(max(upto, start), len(self._log)):
            actor, action, hands, top, blind = self._log[number]
            if actor == -2 and number > start:  # another player's resample: nothing this player sees
                continue
            event = {-1: "deal", -2: "resampled"}.get(actor) or f"player_{actor}: {layout.to_str(action)}"
            held = np.frombuffer(hands, dtype=np.int8).reshape(players, -1)[player]
            hand = "?" if blind == player else " ".join(card_str(c) for c in counts_to_cards(held))
            lines.append(f"{event} | hand {hand} | top {card_str(top) if top >= 0 else '-'}")
        self._memo[player] = (len(self._log), "\n".join(lines))
        return self._memo[player][1]

    def current_player(self) -> int:
        """The seat to act, or ``pyspiel.PlayerId.TERMINAL``."""
        return pyspiel.PlayerId.TERMINAL if self.is_terminal() else int(self._pos.view().current[0])

    def is_terminal(self) -> bool:
        """The game is over or ``max_steps`` actions were played."""
        s = self._pos.view()
        return bool(s.phase[0] == GAME_OVER or s.steps[0] >= self._game().max_steps)

    def _legal_actions(self, player: int) -> list[int]:
        """The legal action ids, ascending."""
        if player != self.current_player():
            return []
        return np.flatnonzero(self._pos.engine().legal_mask([0])[0]).tolist()

    def _apply_action(self, action: int) -> None:
        """Play ``action`` for the seat to act."""
        self._logged()
        actor = int(self._pos.view().current[0])
        result = self._pos.engine().step(np.array([action]), games=[0])
        self._pos.row = None  # the position lives in the engine until another state needs it
        self._rewards = result.rewards[0].astype(np.float64)
        self._returns += self._rewards
        self._note(actor, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        """The action string (``draw``, ``meld 9C 9D 9S``...)."""
        return self._game().engine.spec.layout.to_str(int(action))

    def rewards(self) -> list[float]:
        """Each player's reward for the last action."""
        return self._rewards.tolist()

    def returns(self) -> list[float]:
        """Each player's rewards summed since the deal."""
        return self._returns.tolist()

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
        other._start, other._start_returns, other._start_moves = row, self._returns.copy(), len(self.history())
        other._note(-2, -1)
        other._since = [0 if p == player_id else len(other._log) - 1 for p in range(len(self._since))]
        other._memo = [memo if p == player_id else (0, "") for p, memo in enumerate(self._memo)]
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
                "returns": self._start_returns.tolist(),
                "actions": self.history()[self._start_moves :],
            }
        )

    def __str__(self) -> str:
        """The whole table, every hand shown."""
        return render_table(self._game().engine.spec, self._pos.view(), 0, reveal=True)


class RummyObserver:
    """OpenSpiel's Python observer: the engine's observation tensor, the table or the memory as a string."""

    def __init__(self, game: RummyGame, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.scratch = game.scratch
        self.tensor = np.zeros(game.engine.obs_dim, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: RummyState, player: int) -> None:
        """Fill ``tensor`` with ``state`` as ``player`` sees it."""
        position = state._pos
        if position.deal is not None:  # a new game: observed on the side (pyspiel sizes tensors on new games)
            self.scratch.reset(seeds=[position.deal], games=[0])
            self.tensor[:] = self.scratch.observe(seats=[player], games=[0])[0]
        else:
            self.tensor[:] = position.engine().observe(seats=[player], games=[0])[0]

    def string_from(self, state: RummyState, player: int) -> str:
        """The table as ``player`` sees it, or (``perfect_recall``) everything ``player`` has seen so far."""
        if self.perfect_recall:
            return state._memory(player)
        return render_table(state._game().engine.spec, state._pos.view(), 0, viewer=player)


pyspiel.register_game(_GAME_TYPE, RummyGame)
