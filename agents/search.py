"""``search``: determinized Monte Carlo over the batched engine.

At a decision with more than one legal action, the seat takes its candidate
actions (``top`` legal ones, or all: the strategic agent's favourite of each
kind, e.g. best meld, best lay-off, best discard, then its next preferences),
samples ``K`` deals of what it cannot see (``rummy_env.infoset``), and loads
every (candidate, deal) pair as a row of one batched ``Engine``: the same deals
for every candidate (common random numbers). Each row plays its candidate, then
a fast rollout policy for every seat to the end of the hand. The prior's first
candidate is played unless another one's mean outcome beats it by more than
``confidence`` standard errors of their paired difference (deal by deal); among
those, the best gain after that discount (ties: the prior's order).

Outcome of a row for the searching seat: its hand-score margin over the mean
opponent, plus ``win_bonus`` times (won - lost) when the game ends in that hand,
so near the target the choice follows the win probability (with
``episode="hand"`` every hand decides a game). A rollout still running after
``depth`` steps is scored as the hand stands (melded points minus cards held).

Budget: ``rollouts`` per decision, shared by the candidates (``K = rollouts //
candidates``, at least ``min_deals``), deterministic from the agent's seed and
the game, whatever the batch; or ``ms`` per decision, spent in rounds of
``min_deals`` deals until the time is up (then it depends on the machine).
Decisions with one legal action cost nothing. Every game searched in one
``act`` call shares the engine batch, ``max_rows`` rows at a time.

``estimate`` returns what a search found without playing it (``Estimates``: the
candidates, each one's mean gain over the prior's favourite and its standard
error), to inspect a choice or distil the values rather than the choice.

Guided by a checkpoint (``guide=<path>``, a MaskablePPO ``.zip`` for these rules):
the policy's probabilities replace the strategic prior (the candidates are its
``top`` most likely legal actions, its favourite first), and a rollout that
reaches ``depth`` steps is scored by the policy's value head instead of as the
hand stands: 100 x value (the training reward is the hand-score margin / 100),
plus, for a row whose hand ended before the horizon, that hand's margin and the
value of the next hand's start. A short ``depth`` (e.g. 12) keeps it fast.

Name it ``search`` (defaults) or ``search:OPTIONS``, comma-separated: ``64``
(rollouts), ``50ms`` (time), or ``key=value`` for any ``SearchConfig`` field,
e.g. ``search:rollouts=128,top=4,rollout=greedy``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from rummy_env.actions import DISCARD, TAKE
from rummy_env.engine import Engine
from rummy_env.engine.calls import acting_hand
from rummy_env.engine.state import DRAW_PHASE, GAME_OVER, PLAY_PHASE, RUMMY_PHASE
from rummy_env.infoset import redeal
from rummy_env.rules import side_of

from .base import Agent, game_uniforms
from .features import plan_acting
from .greedy import GreedyAgent
from .policy import PolicyAgent
from .random_agent import RandomAgent
from .stall import NEVER, draw_marks, repeated_draws
from .strategic import StrategicAgent

NAME = "search"
ROLLOUTS = ("greedy", "strategic", "random")
_DEAL_SALT, _ROUND_SALT = 0x5EA4C, 0x4A7D5
_FIRST_ROWS = 256  # rows of the first search engine
VALUE_SCALE = 100.0  # a guide's value is in training reward units: hand-score margin / 100


@dataclass(frozen=True)
class SearchConfig:
    """Budget and policies of the search agent."""

    rollouts: int = 64  # rollouts per decision, shared by the candidates
    ms: float | None = None  # milliseconds per decision instead of a rollout count (not reproducible)
    top: int = 4  # candidates: the top legal actions by the strategic prior (0 = every legal action)
    min_deals: int = 4  # deals per candidate at least (and per round with ``ms``)
    rollout: str = "strategic"  # policy of every seat after the candidate: strategic, greedy or random
    win_bonus: float = 50.0  # added to the margin for a won game (subtracted for a lost one)
    confidence: float = 1.0  # leave the prior's choice only for a gain this many standard errors above zero
    depth: int = 400  # steps a rollout may take before its hand is scored as it stands
    max_rows: int = 8192  # engine rows per batch (memory and step cost grow with it)
    guide: str | None = None  # a checkpoint: its policy is the prior, its value scores the rollouts at ``depth``
    stall: float = 0.0  # points taken from taking the pile at the n-th draw decision in a row in the loop, n times

    def __post_init__(self) -> None:
        """Check the fields (``ValueError`` naming the bad one)."""
        for name in ("rollouts", "min_deals", "depth", "max_rows"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"search {name} must be a positive integer, got {value!r}")
        if isinstance(self.top, bool) or not isinstance(self.top, int) or self.top < 0:
            raise ValueError(f"search top must be a non-negative integer (0 = all), got {self.top!r}")
        for name in ("confidence", "stall"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"search {name} must be non-negative, got {getattr(self, name)!r}")
        if self.ms is not None and not self.ms > 0:
            raise ValueError(f"search ms must be positive or None, got {self.ms!r}")
        if self.guide is not None and not (isinstance(self.guide, str) and self.guide):
            raise ValueError(f"search guide must be a checkpoint path, got {self.guide!r}")
        if self.rollout not in ROLLOUTS:
            raise ValueError(f"search rollout must be one of {', '.join(ROLLOUTS)}, got {self.rollout!r}")


def parse_search(spec: str) -> SearchConfig:
    """The ``SearchConfig`` of a name: ``search``, ``search:64``, ``search:50ms``, ``search:top=4,rollouts=32``."""
    head, _, options = spec.partition(":")
    if head != NAME:
        raise ValueError(f"not a search agent name: {spec!r}")
    values: dict[str, Any] = {}
    types = {f.name: f.type for f in fields(SearchConfig)}
    for item in filter(None, (part.strip() for part in options.split(","))):
        key, eq, text = item.partition("=")
        if not eq:
            key, text = ("ms", item[:-2]) if item.endswith("ms") else ("rollouts", item)
        if key not in types:
            raise ValueError(f"unknown search option {key!r} in {spec!r}: expected {', '.join(types)}")
        values[key] = _option(key, text, spec)
    return SearchConfig(**values)


def _option(key: str, text: str, spec: str) -> Any:
    if key in ("rollout", "guide"):
        return text
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"search option {key} must be a number, got {text!r} in {spec!r}") from None
    return (
        number if key in ("ms", "win_bonus", "confidence", "stall") else int(number) if number.is_integer() else number
    )


class SearchAgent(Agent):
    """Determinized Monte Carlo: each candidate action played out over sampled deals of the unseen cards."""

    def __init__(self, seed: int = 0, config: SearchConfig | None = None, **overrides: Any) -> None:
        self.seed = int(seed)
        self.config = replace(config or SearchConfig(), **overrides)
        self.name = NAME if self.config == SearchConfig() else f"{NAME}:{_short(self.config)}"
        self.prior = StrategicAgent(seed)
        self.guide = None if self.config.guide is None else PolicyAgent(self.config.guide, name="guide")
        self.policy = _rollout_agent(self.config.rollout, seed)
        self._engine: Engine | None = None
        self.stats = {"decisions": 0, "searched": 0, "rollouts": 0, "seconds": 0.0}
        # (engine, game, seat) -> the deal's seed, the draw_marks and the loop's repeats at its last draw decision
        self._last_draw: dict[tuple[int, int, int], tuple[int | None, tuple[int, int], int]] = {}

    def act(self, engine: Engine, games: np.ndarray, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """The searched choice in each game (the only legal action, unsearched, when there is one)."""
        start = time.perf_counter()
        games = np.asarray(games, dtype=np.int64)
        actions = np.argmax(mask, axis=1).astype(np.int64)
        choose = np.flatnonzero(mask.sum(axis=1) > 1)
        if len(choose):
            actions[choose] = self._search(engine, games[choose], mask[choose])
        self.stats["decisions"] += len(games)
        self.stats["searched"] += len(choose)
        self.stats["seconds"] += time.perf_counter() - start
        return actions

    def _search(self, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        found = self.estimate(engine, games, mask)
        scores = found.scores(self.config.confidence)
        if self.config.stall:
            repeats = self._loop_repeats(engine, games)
            takes = engine.spec.layout.kind[found.candidates] == TAKE
            scores -= self.config.stall * repeats[:, None] * takes
        best = np.argmax(np.where(found.candidates >= 0, scores, -np.inf), axis=1)
        return found.candidates[np.arange(len(games)), best]

    def _loop_repeats(self, engine: Engine, games: np.ndarray) -> np.ndarray:
        """``int64 [n]``: how many draw decisions in a row the seat to act in each of ``games`` has met the
        take-and-discard loop (``agents.stall``) at, this one included (0: not at a draw decision in it),
        remembering each seat's last draw decision per engine, game and deal (its seed)."""
        s = engine.state
        drawing, now, deals = s.phase[games] == DRAW_PHASE, draw_marks(s, games), s.seed[games]
        keys = [(id(engine), int(g), int(s.current[g])) for g in games]
        kept = [self._last_draw.get(key, (None, (NEVER, NEVER), 0)) for key in keys]
        same_deal = np.array([seen == deal for (seen, _, _), deal in zip(kept, deals.tolist(), strict=True)])
        last = np.array([mark for _, mark, _ in kept], dtype=np.int64).reshape(-1, 2)
        counts = np.array([count for _, _, count in kept], dtype=np.int64)
        repeats = np.where(drawing & same_deal & repeated_draws(last, now), counts + 1, 0)
        for i in np.flatnonzero(drawing):
            self._last_draw[keys[i]] = (int(deals[i]), tuple(now[i].tolist()), int(repeats[i]))
        return repeats

    def estimate(
        self, engine: Engine, games: np.ndarray, mask: np.ndarray, first: np.ndarray | None = None
    ) -> Estimates:
        """Search each of ``games`` (``mask`` its legal actions, more than one each): the candidates and their outcomes.

        ``act`` plays the best of them by ``Estimates.scores(confidence)``; the estimates are what a
        researcher distils or inspects (e.g. soft targets over the candidates, or why a move was chosen).
        ``first`` (a legal action per game, e.g. the move another player chose) is searched as candidate 0,
        so every gain is measured against it; the prior's favourites follow.
        """
        cfg = self.config
        if self.guide is None:
            prior = prior_scores(self.prior, engine, games, mask)
        else:
            self.guide.check_table(engine)
            prior = self.guide.action_probs(engine.observe(games=games), mask)
        candidates = top_candidates(prior, mask, engine.spec.layout.kind, cfg.top)
        if first is not None:
            candidates = lead_with(candidates, np.asarray(first, dtype=np.int64))
        count = (candidates >= 0).sum(axis=1)
        if cfg.ms is None:
            deals = np.maximum(cfg.min_deals, cfg.rollouts // count)
            sums = self._rollout_round(engine, games, candidates, deals, self.seed + _DEAL_SALT)
        else:
            sums = self._timed(engine, games, candidates, time.perf_counter() + cfg.ms * len(games) / 1000.0)
        return Estimates(candidates, sums)

    def _timed(self, engine: Engine, games: np.ndarray, candidates: np.ndarray, deadline: float) -> np.ndarray:
        deals = np.full(len(games), self.config.min_deals, dtype=np.int64)
        sums = np.zeros((3, *candidates.shape), dtype=np.float64)
        rounds = 0
        while rounds == 0 or time.perf_counter() < deadline:
            sums += self._rollout_round(engine, games, candidates, deals, self.seed + _ROUND_SALT * (rounds + 1))
            rounds += 1
        return sums

    def _rollout_round(
        self, engine: Engine, games: np.ndarray, candidates: np.ndarray, deals: np.ndarray, salt: int
    ) -> np.ndarray:
        """``float [3, n, C]`` deals, summed outcomes and summed squared differences to candidate 0, per candidate."""
        count = (candidates >= 0).sum(axis=1)
        per_game = count * deals
        sums = np.zeros((3, *candidates.shape), dtype=np.float64)
        start = 0
        while start < len(games):
            stop = start + max(1, int(np.searchsorted(np.cumsum(per_game[start:]), self.config.max_rows, "right")))
            part = np.arange(start, stop)
            sums[:, part] = self._rollout_batch(engine, games[part], candidates[part], deals[part], salt)
            start = stop
        return sums

    def _rollout_batch(
        self, engine: Engine, games: np.ndarray, candidates: np.ndarray, deals: np.ndarray, salt: int
    ) -> np.ndarray:
        spec = engine.spec
        width = int(deals.max())
        uniforms = game_uniforms(engine, games, salt, width * (spec.deck_size + 1))
        positions = redeal(spec, engine.state, games, deals, uniforms.reshape(len(games), width, -1))
        first = np.cumsum(deals) - deals
        game_of, cand_of, deal_of = _row_layout(candidates, deals)
        rows = positions.take(first[game_of] + deal_of)
        sim = self._sim(engine, len(game_of))
        idx = np.arange(len(game_of))
        sim.load_state(idx, rows)
        seat = engine.state.current[games][game_of].astype(np.int64)
        outcome = self._play_out(sim, idx, candidates[game_of, cand_of], seat)
        self.stats["rollouts"] += len(idx)
        table = np.zeros((*candidates.shape, width), dtype=np.float64)
        table[game_of, cand_of, deal_of] = outcome
        played = np.zeros(table.shape, dtype=bool)
        played[game_of, cand_of, deal_of] = True
        diff = np.where(played, table - table[:, :1], 0.0)
        return np.stack([played.sum(axis=2), table.sum(axis=2), (diff * diff).sum(axis=2)])

    def _sim(self, engine: Engine, rows: int) -> Engine:
        """A cached engine of at least ``rows`` rows under the game's rules (grown by doubling, to ``max_rows``)."""
        sim = self._engine
        if sim is None or sim.rules != engine.rules or sim.num_games < rows:
            grown = 2 * sim.num_games if sim is not None and sim.rules == engine.rules else _FIRST_ROWS
            sim = self._engine = Engine(engine.rules, num_games=max(rows, min(self.config.max_rows, grown)), seed=0)
        return sim

    def _play_out(self, sim: Engine, idx: np.ndarray, first: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """Play ``first`` then the rollout policy to the end of the hand; each row's outcome for ``seat``."""
        s = sim.state
        hand_no = s.hand_no[idx].copy()
        sim.step(first, check=False, games=idx)
        live = play_on(self.policy, sim, idx, hand_no, self.config.depth)
        result = outcome(sim, idx, seat, hand_no, self.config.win_bonus)
        if self.guide is not None:  # the guide's value where the rollout stopped: the horizon, or the next hand
            result[live] = 0.0
            going = idx[s.phase[idx] != GAME_OVER]
            result[going] += VALUE_SCALE * self.guide.values(sim.observe(seat[going], games=going))
        return result


@dataclass(frozen=True)
class Estimates:
    """What a search found in each of ``n`` games: its candidate actions and their rollout outcomes.

    ``sums`` holds, per candidate, the deals played, the summed outcomes and the summed squared
    differences to candidate 0 on the same deals (as ``SearchAgent._rollout_round`` returns them).
    """

    candidates: np.ndarray  # int64 [n, C] legal actions searched, the prior's favourite first, -1 padded
    sums: np.ndarray  # float64 [3, n, C] deals, summed outcomes, summed squared paired differences to candidate 0

    @property
    def gain(self) -> np.ndarray:
        """``float [n, C]`` each candidate's mean outcome minus candidate 0's (points for the searching seat)."""
        return self.scores(0.0)

    @property
    def stderr(self) -> np.ndarray:
        """``float [n, C]`` the standard error of each ``gain`` (0 for candidate 0)."""
        return self.gain - self.scores(1.0)

    def scores(self, confidence: float) -> np.ndarray:
        """``choice_scores``: each gain less ``confidence`` standard errors; the search plays the best."""
        return choice_scores(self.sums, confidence)


def play_on(policy: Agent, sim: Engine, games: np.ndarray, hand_no: np.ndarray, depth: int) -> np.ndarray:
    """``policy`` at every seat of ``games`` (ascending) for up to ``depth`` actions each, each game stopping when its
    hand ``hand_no[i]`` or the game ends; the games still in that hand after their ``depth`` actions. A policy with a
    compiled loop (``StrategicAgent.play_on``) plays on in it until a decision it leaves to Python, where ``act``
    and the engine take one step of those games alone before it goes on."""
    s = sim.state

    def in_hand() -> np.ndarray:
        return (s.hand_no[games] == hand_no) & (s.phase[games] != GAME_OVER)

    left = np.full(len(games), depth, dtype=np.int64)
    compiled = getattr(policy, "play_on", None)
    while True:
        going = in_hand()
        games, hand_no, left = games[going], hand_no[going], left[going]
        if not (left > 0).any():
            return games
        python = compiled(sim, games, hand_no, left) if compiled else np.ones(len(games), dtype=bool)
        python &= (left > 0) & in_hand()
        if python.any():
            rows = games[python]
            sim.step(policy.act(sim, rows, None, sim.legal_mask(rows)), check=False, games=rows)
            left[python] -= 1


def choice_scores(sums: np.ndarray, confidence: float) -> np.ndarray:
    """``float [n, C]`` each candidate's mean gain over candidate 0 less ``confidence`` standard errors (0 for it).

    ``sums`` holds deals, summed outcomes and summed squared paired differences to
    candidate 0 (the same deals for every candidate), as ``_rollout_round`` returns.
    """
    deals, totals, squares = np.maximum(sums[0], 1.0), sums[1], sums[2]
    means = totals / deals
    gain = means - means[:, :1]
    spread = np.sqrt(np.maximum(squares / deals - gain * gain, 0.0) / deals)
    return gain - confidence * spread


def outcome(sim: Engine, idx: np.ndarray, seat: np.ndarray, hand_no: np.ndarray, win_bonus: float) -> np.ndarray:
    """``float [n]`` the seat's hand-score margin over the mean opponent, plus ``win_bonus`` x (won - lost)
    (with ``partnership``: its side's margin over the other side, and the side's result)."""
    s, spec = sim.state, sim.spec
    ended = (s.hand_no[idx] != hand_no) | (s.phase[idx] == GAME_OVER)
    in_hand = (s.hand[idx].astype(np.int64) * spec.table.values).sum(axis=2)
    scores = np.where(ended[:, None], s.hand_scores[idx], s.melded_points[idx] - in_hand).astype(np.float64)
    rows = np.arange(len(idx))
    mine = scores[rows, seat]
    margin = mine - (scores.sum(axis=1) - mine) / (spec.players - 1)
    over = s.phase[idx] == GAME_OVER
    winner = s.winner[idx].astype(np.int64)
    result = np.where(over & (winner == seat), 1.0, np.where(over & (winner >= 0), -1.0, 0.0))
    if spec.rules.partnership:  # the side's margin and result: seats 0+2 against 1+3
        side = side_of(seat)
        sides = scores[:, [0, 1]] + scores[:, [2, 3]]
        margin = sides[rows, side] - sides[rows, 1 - side]
        result = np.where(over & (winner >= 0), np.where(side_of(winner) == side, 1.0, -1.0), 0.0)
    return margin + win_bonus * result


def _row_layout(candidates: np.ndarray, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(game, candidate, deal)`` of every engine row: each game's candidates, each over its deals."""
    game, cand = np.nonzero(candidates >= 0)
    per = deals[game]
    rows = np.repeat(np.arange(len(game)), per)
    deal = np.arange(len(rows)) - np.repeat(np.cumsum(per) - per, per)
    return game[rows], cand[rows], deal


def prior_scores(agent: StrategicAgent, engine: Engine, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``float [n, A]`` the strategic agent's preferences in each game's phase, every discard scored in play."""
    spec, s = engine.spec, engine.state
    scores = np.zeros(mask.shape, dtype=np.float64)
    phase = s.phase[games]
    scorers = ((DRAW_PHASE, agent.score_draw), (PLAY_PHASE, agent.score_play), (RUMMY_PHASE, agent.score_rummy))
    for value, scorer in scorers:
        rows = np.flatnonzero(phase == value)
        if len(rows):
            scores[rows] = scorer(engine, games[rows], mask[rows])
    rows = np.flatnonzero(phase > GAME_OVER)
    if len(rows):
        scores[rows] = agent.score_window(engine, games[rows], mask[rows])
    rows = np.flatnonzero(phase == PLAY_PHASE)
    if len(rows):
        hand = acting_hand(s, games[rows]).astype(np.int16)
        rest = plan_acting(spec, s, games[rows]).rest
        scores[rows, spec.layout.block(DISCARD)] = agent.discard_scores(spec, s, games[rows], hand, rest)
    return scores


def top_candidates(scores: np.ndarray, mask: np.ndarray, kinds: np.ndarray, top: int) -> np.ndarray:
    """``int [n, C]`` legal actions to search, -1 padded: the best of each kind first, then by preference.

    Both in preference order (lowest id on ties), so the prior's choice comes first; ``top`` = 0 keeps all.
    """
    keyed = np.where(mask, scores, -np.inf)
    order = np.argsort(-keyed, axis=1, kind="stable")
    legal = np.take_along_axis(mask, order, axis=1)
    kind = kinds[order]
    first = np.zeros(order.shape, dtype=bool)
    for k in np.unique(kinds):
        of_kind = legal & (kind == k)
        has = of_kind.any(axis=1)
        first[np.flatnonzero(has), np.argmax(of_kind[has], axis=1)] = True
    rank = np.argsort(~first, axis=1, kind="stable")
    order, legal = np.take_along_axis(order, rank, axis=1), np.take_along_axis(legal, rank, axis=1)
    width = int(mask.sum(axis=1).max()) if top == 0 else min(top, int(mask.sum(axis=1).max()))
    return np.where(legal, order, -1)[:, :width]


def lead_with(candidates: np.ndarray, first: np.ndarray) -> np.ndarray:
    """``candidates`` with ``first[i]`` moved (or put, in place of the last) to the front of row ``i``."""
    rest = np.where(candidates == first[:, None], -1, candidates)
    rest = np.take_along_axis(rest, np.argsort(rest < 0, axis=1, kind="stable"), axis=1)
    return np.concatenate([first[:, None], rest[:, :-1]], axis=1)


def _rollout_agent(name: str, seed: int) -> Agent:
    return {"greedy": GreedyAgent, "strategic": StrategicAgent, "random": RandomAgent}[name](seed)


def _short(config: SearchConfig) -> str:
    default = SearchConfig()
    values = [(f.name, getattr(config, f.name)) for f in fields(config)]
    return ",".join(f"{name}={value}" for name, value in values if value != getattr(default, name))


def make_search(spec: str, seed: int = 0) -> SearchAgent:
    """A search agent from its name (see ``parse_search``), seeded with ``seed``."""
    return SearchAgent(seed, parse_search(spec))
