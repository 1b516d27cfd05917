"""The rules and tables of a ``GameSpec`` as one tuple of ints and arrays (kernels read it as a ``ref.SpecRef``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...actions import DJ_MELD, JOKER_GROUP, MELD, SPLIT
from ...cards import CARD_RANK, CARD_SUIT, JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS, card_bits
from ...melds import NUM_PATTERNS
from ...rules import Rules
from ..observe import has_variant_phases
from ..spec import GameSpec

RUMMY_CALLS = ("pile", "last_discard", "off")
GOING_OUT = ("any", "discard_required", "float", "float_unplayable_discard")
PILE_CALLS, LAST_DISCARD, CALLS_OFF = range(3)
# Placement columns of the play phase (the turn searches' moves): melds, lay-offs on runs, on groups, jokers on
# runs, on groups (the layout's contiguous core blocks), then groups of four, joker groups, a joker on jokers.
RUN_OFF = NUM_PATTERNS
GROUP_OFF = RUN_OFF + NUM_NATURAL
JOKER_RUN_OFF = GROUP_OFF + NUM_NATURAL
JOKER_GROUP_OFF = JOKER_RUN_OFF + NUM_NATURAL
CORE_PLACEMENTS = JOKER_GROUP_OFF + NUM_RANKS
GROUP4_OFF = CORE_PLACEMENTS
JOKERS_OFF = GROUP4_OFF + NUM_RANKS
JOKER_LAYOFF_OFF = JOKERS_OFF + 2
PLACEMENTS = JOKER_LAYOFF_OFF + 1
DJ_OFF = PLACEMENTS  # under dealers_joker a search's moves with the dealer's joker follow (kernels/dealer.py)
OUT_ANY, OUT_DISCARD_REQUIRED, OUT_FLOAT, OUT_FLOAT_UNPLAYABLE = range(4)


class KernelSpec(NamedTuple):
    """Rules as ints and the static tables, in the form the kernels take."""

    players: int
    hand_cards: int
    deck_size: int
    copies: int
    minimum: int  # first_meld_minimum
    rummy_calls: int  # PILE_CALLS, LAST_DISCARD or CALLS_OFF
    going_out: int  # OUT_* index
    top_requires_meld: bool
    requires_new_meld: bool
    corner: bool
    reshuffle: bool
    tie_went_out: bool
    must_go_out: bool
    hand_episode: bool
    score_reward: bool
    target: int
    partnership: bool  # two sides: seats 0/2 and 1/3
    deals: int  # hands in a game, 0: play to target
    going_out_bonus: int
    final_bonus: int
    low_ace: int
    num_actions: int
    offsets: np.ndarray  # int64 [kinds] first action id of each block
    act_kind: np.ndarray  # int64 [A] block of each action id
    act_arg: np.ndarray  # int64 [A] argument of each action id
    deck: np.ndarray  # int8 [K]
    # int8 [53] zeros, the hand of a pile scan for no seat (a module constant's read-only type compiles it twice)
    no_hand: np.ndarray
    values: np.ndarray  # int64 [53]
    pat_cards: np.ndarray  # int64 [104, 3] ([104, 4] under min_run 4, groups -1 padded)
    pat_size: np.ndarray  # int64 [104] cards of each pattern
    pat_group: np.ndarray  # bool [104]
    pat_rank: np.ndarray  # int64 [104]
    pat_suit: np.ndarray  # int64 [104]
    pat_lo: np.ndarray  # int64 [104]
    max_lacking: np.ndarray  # int64 [104]
    pat_bits: np.ndarray  # uint64 [104] the cards of each pattern as bits (``card_set``)
    card_points: np.ndarray  # int64 [104, 3 or 4]
    of_card: np.ndarray  # int64 [53, 6 or 7]
    partner_bits: np.ndarray  # uint64 [53, 6 or 7] the other cards of those patterns as bits (``card_bits``)
    partner_any: np.ndarray  # uint64 [53] every card that shares a pattern with each card, as bits
    in_pattern: np.ndarray  # bool [53, 104]
    near: np.ndarray  # bool [W, 53] natural cards a placement may newly let fit the table
    card_rank: np.ndarray  # int64 [53]
    card_suit: np.ndarray  # int64 [53]
    stock_draw: int  # cards a draw takes from the stock
    opening: bool  # first_discard="player"
    winner_deals: bool  # next_dealer="winner"
    no_penalty: bool  # stock_exhausted="end_no_penalty"
    play_out: bool  # stock_exhausted="play_out"
    seven_bonus: int  # seven_run_bonus
    four_aces: bool  # card_values="four_aces_100"
    out_of_turn: bool  # meld_out_of_turn
    variant_phases: bool  # the observation ends with the variant phases
    direction: int  # 1: play goes clockwise (to the next seat up), -1: counterclockwise
    groups_only: bool  # joker_mode="groups_only": jokers meld only as groups of jokers
    double4: bool  # four_of_a_kind_double: groups of four melded at once (doubled)
    placements: int  # placement columns in use (turn_search.py): the core ones, or all with the blocks above
    columns: int  # a turn search's move columns: the placements, then under dealers_joker the DJ moves
    run4: bool  # min_run=4: the run patterns are 4-card runs, put down by the meld_run4 block
    add_to_winner: bool  # hand_scoring="add_to_winner": lay-offs after going out, hands added to the winner
    dealers_joker: bool  # Dealer's Gambit: a joker set aside with a power the dealer names (kernels/dealers_gambit.py)
    deal_deck: np.ndarray  # int8 [K or K - 1] the cards shuffled and dealt (the deck less the dealer's joker)


def _near(spec: GameSpec) -> np.ndarray:
    """``[W, 53]`` natural cards of the same rank as, or next in suit to, a card a placement puts down."""
    layout, table = spec.layout, spec.table
    start = layout.start(MELD)
    width = layout.start(JOKER_GROUP) + NUM_RANKS - start
    naturals = np.arange(NUM_NATURAL)
    placed = np.zeros((PLACEMENTS, NUM_NATURAL), dtype=bool)
    placed[: table.cards.shape[0]] = table.matrix[:NUM_NATURAL].T > 0
    for block in range(3):
        placed[table.cards.shape[0] + block * NUM_NATURAL + naturals, naturals] = True
    rank, suit = CARD_RANK[:NUM_NATURAL].astype(np.int64), CARD_SUIT[:NUM_NATURAL].astype(np.int64)
    for r in range(NUM_RANKS):
        placed[width - NUM_RANKS + r, rank == r] = True
        placed[GROUP4_OFF + r, rank == r] = True
    same_rank = rank[:, None] == rank[None, :]
    apart = (rank[:, None] - rank[None, :]) % NUM_RANKS
    next_in_suit = (suit[:, None] == suit[None, :]) & np.isin(apart, (1, NUM_RANKS - 1))
    near = np.zeros((PLACEMENTS, NUM_KINDS), dtype=bool)
    near[:, :NUM_NATURAL] = (placed.astype(np.int64) @ (same_rank | next_in_suit)) > 0
    return near


def kernel_spec(spec: GameSpec) -> KernelSpec:
    """The kernel form of a spec (built once per spec: ``GameSpec.once``)."""
    return spec.once(_kernel_spec)


def _kernel_spec(spec: GameSpec) -> KernelSpec:
    rules, table, layout = spec.rules, spec.table, spec.layout
    i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    partner_bits = _partner_bits(table.partners)
    return KernelSpec(
        players=rules.players,
        hand_cards=rules.num_hand_cards,
        deck_size=spec.deck_size,
        copies=spec.copies,
        minimum=rules.first_meld_minimum,
        rummy_calls=RUMMY_CALLS.index(rules.rummy_calls),
        going_out=GOING_OUT.index(rules.going_out),
        top_requires_meld=rules.take_top_requires_meld,
        requires_new_meld=rules.take_requires_new_meld,
        corner=rules.ace_around_corner,
        reshuffle=rules.stock_exhausted == "reshuffle",
        tie_went_out=rules.tie_break == "went_out",
        must_go_out=rules.must_go_out_to_win,
        hand_episode=rules.episode == "hand",
        score_reward=rules.reward == "score",
        target=rules.target_score,
        partnership=rules.partnership,
        deals=rules.deals or 0,
        going_out_bonus=rules.going_out_bonus,
        final_bonus=rules.final_bonus,
        low_ace=table.low_ace,
        num_actions=layout.num_actions,
        offsets=i64(layout.offsets),
        act_kind=i64(layout.kind),
        act_arg=i64(layout.arg),
        deck=np.ascontiguousarray(spec.deck, dtype=np.int8),
        no_hand=np.zeros(NUM_KINDS, dtype=np.int8),
        values=i64(table.values),
        pat_cards=i64(table.cards),
        pat_size=i64(table.size),
        pat_group=np.ascontiguousarray(table.is_group, dtype=np.bool_),
        pat_rank=i64(table.rank),
        pat_suit=i64(table.suit),
        pat_lo=i64(table.lo),
        max_lacking=i64(table.max_lacking),
        pat_bits=card_bits(table.cards),
        card_points=i64(table.card_points),
        of_card=i64(table.of_card),
        partner_bits=partner_bits,
        partner_any=np.bitwise_or.reduce(partner_bits, axis=1),
        in_pattern=np.ascontiguousarray(table.matrix > 0),
        near=_near(spec),
        card_rank=i64(CARD_RANK),
        card_suit=i64(CARD_SUIT),
        stock_draw=rules.stock_draw,
        opening=rules.first_discard == "player",
        winner_deals=rules.next_dealer == "winner",
        no_penalty=rules.stock_exhausted == "end_no_penalty",
        play_out=rules.stock_exhausted == "play_out",
        seven_bonus=rules.seven_run_bonus,
        four_aces=rules.card_values == "four_aces_100",
        out_of_turn=rules.meld_out_of_turn,
        variant_phases=has_variant_phases(rules),
        direction=rules.direction,
        groups_only=rules.joker_mode == "groups_only",
        double4=rules.four_of_a_kind_double,
        placements=placements(rules),
        columns=search_columns(spec),
        run4=rules.min_run == 4,
        add_to_winner=rules.hand_scoring == "add_to_winner",
        dealers_joker=rules.dealers_joker,
        deal_deck=_deal_deck(spec.deck, rules.dealers_joker),
    )


def _partner_bits(partners: np.ndarray) -> np.ndarray:
    """``uint64 [53, P]`` the other cards of each pattern holding a card, as bits (``card_bits``)."""
    kinds, per_card, width = partners.shape
    return card_bits(partners.reshape(kinds * per_card, width)).reshape(kinds, per_card)


def placements(rules: Rules) -> int:
    """Placement columns in use: the core ones, or all of them under the Persian switches."""
    return PLACEMENTS if rules.joker_mode == "groups_only" or rules.four_of_a_kind_double else CORE_PLACEMENTS


def search_columns(spec: GameSpec) -> int:
    """A turn search's move columns: the placements, then under ``dealers_joker`` its moves from ``DJ_OFF``."""
    if not spec.rules.dealers_joker:
        return placements(spec.rules)
    layout = spec.layout
    return DJ_OFF + layout.start(SPLIT) - layout.start(DJ_MELD)


def _deal_deck(deck: np.ndarray, dealers_joker: bool) -> np.ndarray:
    """The deck dealt each hand: under ``dealers_joker`` one joker is set aside first."""
    if not dealers_joker:
        return np.ascontiguousarray(deck, dtype=np.int8)
    aside = int(np.flatnonzero(deck == JOKER)[0])
    return np.ascontiguousarray(np.delete(deck, aside), dtype=np.int8)
