"""The batched game state: a plain struct of numpy arrays, one row per game."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

from ..cards import NUM_KINDS, NUM_NATURAL, NUM_RANKS
from ..melds import SLOTS

DRAW_PHASE, PLAY_PHASE, RUMMY_PHASE, GAME_OVER = 0, 1, 2, 3
OPENING_PHASE, OUT_OF_TURN_PHASE, LAY_OFF_PHASE, POWER_PHASE = 4, 5, 6, 7  # the variants' phases (docs/rules.md §8)
PHASE_NAMES = ("draw", "play", "rummy", "game_over", "opening", "out_of_turn", "lay_off_after_out", "power")
NOBODY = -1
DJ_POWER, DJ_USED, DJ_BLOCKED, DJ_AT, DJ_SLOT, OUT_OF_PLAY = range(6)  # columns of State.dj (53 out of play)
DJ_NONE = (-1, 0, 0, -1, -1)  # State.dj of a new hand: set aside, no power named (nothing out of play)
SEALED = 2  # State.meld_double of a meld doubled by the dealer's joker (no lay-offs onto it)


@dataclass
class State:
    """Every game's position. ``G`` games, ``N`` seats, ``K`` cards, ``M`` meld slots."""

    hand: np.ndarray  # int8 [G, N, 53] cards held, by kind
    known: np.ndarray  # int8 [G, N, 53] cards known to others (taken from the pile, still held)
    stock: np.ndarray  # int8 [G, K] face-down stock, bottom first; top is stock[stock_len - 1]
    stock_len: np.ndarray  # int16 [G]
    pile: np.ndarray  # int8 [G, K] discard pile, bottom first; top is pile[pile_len - 1]
    pile_len: np.ndarray  # int16 [G]
    meld_kind: np.ndarray  # int8 [G, M] 0 empty, GROUP, RUN or JOKERS (a group of jokers, groups_only)
    meld_by: np.ndarray  # int8 [G, M] seat that put the meld down
    meld_rank: np.ndarray  # int8 [G, M] group rank
    meld_suit: np.ndarray  # int8 [G, M] run suit
    meld_lo: np.ndarray  # int8 [G, M] run: rank of the low card
    meld_len: np.ndarray  # int8 [G, M] cards in the meld
    meld_suits: np.ndarray  # int8 [G, M] group: bitmask of natural suits
    meld_owner: np.ndarray  # int8 [G, M, 13] seat owning each slot (runs: by rank; groups: suit, then jokers)
    meld_joker: np.ndarray  # bool [G, M, 13] slot holds a joker
    meld_double: np.ndarray  # int8 [G, M] 1: a group of four melded at once, doubled (four_of_a_kind_double); SEALED
    num_melds: np.ndarray  # int16 [G]
    placed: np.ndarray  # int8 [G, N, 53] cards each seat has melded or laid off (jokers at 52)
    table_jokers: np.ndarray  # int8 [G, 65] jokers on the table: as each natural (runs), as each rank (groups)
    pile_pos: np.ndarray  # int16 [G, C, 53] 1 + pile index of each copy of a kind, deepest copy first; 0 absent
    accept_run: np.ndarray  # int8 [G, 53] runs whose end the natural card extends
    accept_group: np.ndarray  # int8 [G, 53] groups the natural card completes
    open_groups: np.ndarray  # int8 [G, 13] groups of each rank with room for a card
    phase: np.ndarray  # int8 [G]
    current: np.ndarray  # int8 [G] seat to act
    dealer: np.ndarray  # int8 [G]
    discarder: np.ndarray  # int8 [G] seat of the last discard (Rummy! window); who went out in lay_off_after_out
    obliged: np.ndarray  # int8 [G] card that must be melded next, or -1
    obliged_new: np.ndarray  # bool [G] the obliged card must start a new meld
    called: np.ndarray  # bool [G] the obliged card comes from a Rummy! call
    top_taken: np.ndarray  # int8 [G] card taken alone from the top this turn, or -1
    turn_points: np.ndarray  # int16 [G] points melded this turn
    rummy_queue: np.ndarray  # int8 [G, N] seats still to answer a Rummy! window, head first, -1 padded
    rummy_depths: np.ndarray  # bool [G, K] pile depths open to a call in the current Rummy! window
    turn_melds: np.ndarray  # bool [G, M] melds put down in the current turn (seven_run_bonus)
    floating: np.ndarray  # bool [G, N]
    opened: np.ndarray  # bool [G, N] reached first_meld_minimum this hand
    melded_points: np.ndarray  # int16 [G, N] points melded and laid off this hand
    scores: np.ndarray  # int32 [G, N] cumulative scores
    hand_scores: np.ndarray  # int32 [G, N] scores of the last finished hand
    has_hand_scores: np.ndarray  # bool [G]
    went_out: np.ndarray  # int8 [G] who went out in the last finished hand, or -1
    winner: np.ndarray  # int8 [G] winner once the game is over, or -1
    seed: np.ndarray  # uint64 [G] per-game seed: every random choice derives from it
    hand_no: np.ndarray  # int32 [G] hands dealt in this game
    shuffles: np.ndarray  # int32 [G] random shuffles made (deals, reshuffles)
    steps: np.ndarray  # int32 [G] actions taken in this game
    dj: np.ndarray  # int8 [G, 58] Dealer's Gambit (dealers_joker) in ONE array (every kernel call passes each state
    # array, so each new one slows the default game): DJ_POWER named (POWERS index, -1 none yet), DJ_USED, DJ_BLOCKED
    # (0 / 1), DJ_AT the meld holding the dealer's joker (wild: in slot DJ_SLOT; double: the SEALED meld), -1 none,
    # DJ_SLOT its slot as a wild card, -1; then from OUT_OF_PLAY the count of each kind out of play this hand

    @property
    def num_games(self) -> int:
        """Number of games in the batch."""
        return int(self.phase.shape[0])

    @property
    def num_players(self) -> int:
        """Seats per game."""
        return int(self.hand.shape[1])

    def take(self, games: np.ndarray) -> State:
        """A copy of some games' rows, as a new state."""
        return State(**{f.name: getattr(self, f.name)[games] for f in fields(self)})

    def put(self, games: np.ndarray, other: State) -> None:
        """Write ``other``'s rows into this state's rows ``games``."""
        for f in fields(self):
            getattr(self, f.name)[games] = getattr(other, f.name)

    def copy(self) -> State:
        """A deep copy."""
        return State(**{f.name: getattr(self, f.name).copy() for f in fields(self)})


def empty_state(num_games: int, num_players: int, deck_size: int, copies: int) -> State:
    """A zeroed state of the right shapes; ``copies`` is the most copies of one kind in the deck."""
    g, n, k, m = num_games, num_players, deck_size, deck_size // 3

    def z(shape: int | tuple[int, ...], dtype: npt.DTypeLike = np.int8, fill: int = 0) -> np.ndarray:
        return np.full(shape, fill, dtype=dtype)

    return State(
        hand=z((g, n, NUM_KINDS)),
        known=z((g, n, NUM_KINDS)),
        stock=z((g, k), fill=-1),
        stock_len=z(g, np.int16),
        pile=z((g, k), fill=-1),
        pile_len=z(g, np.int16),
        meld_kind=z((g, m)),
        meld_by=z((g, m), fill=NOBODY),
        meld_rank=z((g, m), fill=-1),
        meld_suit=z((g, m), fill=-1),
        meld_lo=z((g, m)),
        meld_len=z((g, m)),
        meld_suits=z((g, m)),
        meld_owner=z((g, m, SLOTS), fill=NOBODY),
        meld_joker=z((g, m, SLOTS), bool),
        meld_double=z((g, m)),
        num_melds=z(g, np.int16),
        placed=z((g, n, NUM_KINDS)),
        table_jokers=z((g, NUM_NATURAL + NUM_RANKS)),
        pile_pos=z((g, copies, NUM_KINDS), np.int16),
        accept_run=z((g, NUM_KINDS)),
        accept_group=z((g, NUM_KINDS)),
        open_groups=z((g, NUM_RANKS)),
        phase=z(g),
        current=z(g),
        dealer=z(g),
        discarder=z(g, fill=NOBODY),
        obliged=z(g, fill=-1),
        obliged_new=z(g, bool),
        called=z(g, bool),
        top_taken=z(g, fill=-1),
        turn_points=z(g, np.int16),
        rummy_queue=z((g, n), fill=NOBODY),
        rummy_depths=z((g, k), bool),
        turn_melds=z((g, m), bool),
        floating=z((g, n), bool),
        opened=z((g, n), bool),
        melded_points=z((g, n), np.int16),
        scores=z((g, n), np.int32),
        hand_scores=z((g, n), np.int32),
        has_hand_scores=z(g, bool),
        went_out=z(g, fill=NOBODY),
        winner=z(g, fill=NOBODY),
        seed=z(g, np.uint64),
        hand_no=z(g, np.int32),
        shuffles=z(g, np.int32),
        steps=z(g, np.int32),
        dj=np.tile(np.array(DJ_NONE + (0,) * NUM_KINDS, dtype=np.int8), (g, 1)),
    )
