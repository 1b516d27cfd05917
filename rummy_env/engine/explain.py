"""Why an action is illegal: a readable reason for the ``ValueError`` of a refused move."""

from __future__ import annotations

import numpy as np

from ..actions import (
    BLOCK,
    DISCARD,
    DJ_LAYOFF,
    DJ_MELD,
    DOUBLE,
    JOKER_GROUP,
    JOKER_RUN,
    LAYOFF_GROUP,
    LAYOFF_JOKER,
    LAYOFF_RUN,
    MELD,
    MELD_GROUP4,
    MELD_JOKERS,
    MELD_RUN4,
    POWERS,
    SKIP,
    SPLIT,
    dj_meld_cards,
)
from ..cards import JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS, NUM_SUITS, card_str
from ..melds import NUM_GROUP_PATTERNS, NUM_PATTERNS
from .calls import legal_row, refusal
from .kernels import reasons
from .spec import GameSpec
from .state import (
    DJ_BLOCKED,
    DJ_POWER,
    DJ_USED,
    GAME_OVER,
    PHASE_NAMES,
    State,
)

_POWER_OF = {DJ_MELD: "wild", DJ_LAYOFF: "wild", DOUBLE: "double", SPLIT: "split"}
_FIXED = {
    reasons.STOCK_EMPTY: "the stock is empty",
    reasons.NO_STOP: 'under stock_exhausted="play_out" a hand ends only when someone goes out (skip or take instead)',
    reasons.NO_FINISH: "it would leave no legal way to finish the turn",
    reasons.OWN_JOKER: "the dealer cannot block their own joker",
    reasons.NO_JOKER: "you hold no joker to block the dealer's joker with",
    reasons.NO_DISCARD_LEFT: "blocking would leave you no card to discard",
    reasons.KEEP_A_CARD: "out of turn a player must keep at least one card",
    reasons.RUN_TOO_SHORT: "under min_run=4 a new run has at least four cards ('meld C1 C2 C3 C4')",
}


def explain_illegal(spec: GameSpec, s: State, game: int, action: int) -> str:
    """The message for playing ``action`` in ``game`` when the mask refuses it, worded from the reason the mask's
    own stages give (``engine.calls.refusal``)."""
    layout = spec.layout
    if not 0 <= action < layout.num_actions:
        return f"illegal action id {action}: expected 0..{layout.num_actions - 1}"
    text = layout.to_str(action)
    if int(s.phase[game]) == GAME_OVER:
        return f"illegal action {text!r}: the game is over"
    seat = int(s.current[game])
    why = refusal(spec, s, game, action)
    return f"illegal action {text!r} for player_{seat}: {_words(spec, s, game, action, why, seat)}"


def _words(spec: GameSpec, s: State, g: int, action: int, why: int, seat: int) -> str:
    """The plain words of reason ``why`` for ``action``, with the cards and numbers of the position."""
    layout, rules = spec.layout, spec.rules
    kind, arg = int(layout.kind[action]), int(layout.arg[action])
    hand, obliged, minimum = s.hand[g, seat], int(s.obliged[g]), rules.first_meld_minimum
    if why in _FIXED:
        return _FIXED[why]
    if why == reasons.NOT_THIS_PHASE:
        phase = PHASE_NAMES[int(s.phase[g])]
        return f"it is the {phase} phase, where the legal moves are {_legal_summary(spec, s, g)}"
    if why == reasons.STOCK_LEFT:
        if kind == SKIP:
            return "skip is only for playing on without drawing once the stock is empty"
        return "the stock is not empty, so the hand cannot be stopped"
    if why in (reasons.PILE_SHORT, reasons.TAKE_NO_MELD, reasons.TAKE_NEW_MELD, reasons.CALL_CANNOT_MELD):
        return _pile_words(spec, s, g, kind, arg, why)
    if why == reasons.TAKE_KEEPS_CARDS:
        return 'the take would leave no card to discard (going_out="discard_required")'
    if why == reasons.ONLY_TOP_LEFT:
        card = card_str(s.pile[g, int(s.pile_len[g]) - 1])
        return f"taking {card} alone would leave only copies of it, which may not be discarded this turn"
    if why == reasons.BELOW_MINIMUM:
        if kind in (DISCARD, BLOCK):
            return f"this turn's melds total {int(s.turn_points[g])}, less than first_meld_minimum={minimum}"
        return f"after it the turn cannot reach first_meld_minimum={minimum}"
    if why == reasons.PASS_BELOW_MINIMUM:
        return f"out of turn, pass needs this window's melds to reach first_meld_minimum={minimum} first"
    if why in (reasons.NOT_OBLIGED, reasons.OBLIGED_FIRST):
        if why == reasons.OBLIGED_FIRST:
            then = "before discarding" if kind == DISCARD else "first"
            return f"the obliged card {card_str(obliged)} must be melded {then}"
        return f"the move does not meld the obliged card {card_str(obliged)}" + (
            " in a new meld" if s.obliged_new[g] else ""
        )
    if why == reasons.NOT_HELD:
        return f"you do not hold {card_str(arg)}"
    if why == reasons.TOP_TAKEN:
        return f"{card_str(arg)} was taken alone from the top of the pile this turn"
    if why == reasons.MUST_LAY_OFF:
        card = card_str(arg)
        return f"your last card {card} fits a meld on the table, so it must be laid off (float_unplayable_discard)"
    if why == reasons.CALLER_PLACES:
        return "after a last_discard Rummy! call the card is laid off and the caller does not discard"
    if why in (reasons.NOT_DEALER, reasons.IN_A_CALL, reasons.OTHER_POWER, reasons.DJ_GONE):
        return _gambit_words(spec, s, g, kind, why)
    if why == reasons.CANNOT_FORM:
        return _form_words(spec, s, g, kind, arg, hand)
    return f"the mask refuses it (reason {why})"


def _legal_summary(spec: GameSpec, s: State, g: int) -> str:
    """The legal moves now, grouped by their first word ("draw, take 0 or take 2"; "meld (5 moves) or discard ...")."""
    strings = [spec.layout.strings[a] for a in np.flatnonzero(legal_row(spec, s, g))]
    groups: dict[str, list[str]] = {}
    for text in strings:
        groups.setdefault(text.split()[0], []).append(text)
    parts = [" or ".join(g) if len(g) <= 2 else f"{verb} ({len(g)} moves)" for verb, g in groups.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _pile_words(spec: GameSpec, s: State, g: int, kind: int, arg: int, why: int) -> str:
    """A take, a "Rummy!" call or a split refused for the pile card it names."""
    size = int(s.pile_len[g])
    depth = arg + 1 if kind == SPLIT else arg
    if why == reasons.PILE_SHORT:
        return f"the discard pile holds only {size} card(s)"
    card = card_str(s.pile[g, size - 1 - depth])
    if why == reasons.CALL_CANNOT_MELD:
        return f"{card} at depth {depth} cannot be melded without cards from a hand"
    return f"{card} at depth {depth} cannot be melded at once with your hand and the cards above it" + (
        " in a new meld (take_requires_new_meld)" if why == reasons.TAKE_NEW_MELD else ""
    )


def _gambit_words(spec: GameSpec, s: State, g: int, kind: int, why: int) -> str:
    """Dealer's Gambit: who may use or block the dealer's joker, and when (docs/rules.md §8.8)."""
    if why == reasons.NOT_DEALER:
        return f"only the dealer (player_{int(s.dealer[g])}) uses the dealer's joker"
    if why == reasons.IN_A_CALL:
        if kind == BLOCK:
            return "a Rummy! caller acting out of turn cannot block the dealer's joker"
        if spec.rules.rummy_calls == "last_discard":
            return "the dealer uses the dealer's joker on their own turn, not in a last_discard Rummy! call"
        called = card_str(int(s.obliged[g]))
        return f"the dealer uses the dealer's joker on their own turn, once the Rummy! call's {called} is placed"
    power = int(s.dj[g, DJ_POWER])
    if why == reasons.OTHER_POWER:
        named = POWERS[power] if power >= 0 else "not named"
        return f"the dealer's joker's power is {named}, not {_POWER_OF[kind]}"
    if kind == BLOCK or not (s.dj[g, DJ_USED] or s.dj[g, DJ_BLOCKED]):
        return "the dealer's joker was already used or blocked this hand"
    return "the dealer's joker was already " + ("used" if s.dj[g, DJ_USED] else "blocked") + " this hand"


def _form_words(spec: GameSpec, s: State, g: int, kind: int, arg: int, hand: np.ndarray) -> str:
    """What the hand lacks for a placement the mask found it cannot make."""
    if kind == SPLIT:
        card = card_str(s.pile[g, int(s.pile_len[g]) - 2 - arg])
        return f"{card} at depth {arg + 1} cannot be melded at once with your hand"
    if kind in (DJ_MELD, DJ_LAYOFF, DOUBLE):
        words = _dj_words(spec, s, g, kind, arg, hand)
    else:
        words = _placement_words(spec, s, g, kind, arg, hand)
    return words or "your hand cannot make it on this table"


def _placement_words(spec, s, g, kind, arg, hand) -> str | None:
    """The words of a placement the mask's ``formable`` pass refused: what the hand lacks, or what the table does
    not accept."""
    table = spec.table
    jokers = int(hand[JOKER])
    if kind in (MELD_GROUP4, MELD_JOKERS, LAYOFF_JOKER):
        return _persian_words(spec, s, g, kind, arg, hand)
    groups_only = spec.rules.joker_mode == "groups_only"
    if groups_only and kind in (JOKER_RUN, JOKER_GROUP):
        return 'jokers are not wild under joker_mode="groups_only": they meld only in groups of jokers'
    if kind == MELD_RUN4:
        kind, arg = MELD, NUM_GROUP_PATTERNS + arg
    if kind == MELD:
        if not table.enabled[arg]:
            return "that run goes around the corner (K-A-2), legal only with ace_around_corner"
        lacking = [card_str(c) for c in table.cards[arg] if c >= 0 and hand[c] == 0]  # the mask found too many
        if groups_only:
            return f'you lack {" ".join(lacking)} (jokers are not wild under joker_mode="groups_only")'
        if len(lacking) > jokers:
            return f"you lack {' '.join(lacking)} and hold {jokers} joker(s)"
        return "a group needs at least one natural card"
    if kind in (LAYOFF_RUN, LAYOFF_GROUP) and hand[arg] == 0:
        return f"you do not hold {card_str(arg)}"
    if kind in (JOKER_RUN, JOKER_GROUP) and jokers == 0:
        return "you hold no joker"
    accepts = {
        LAYOFF_RUN: s.accept_run[g, arg % NUM_KINDS] > 0,
        JOKER_RUN: s.accept_run[g, arg % NUM_KINDS] > 0,
        LAYOFF_GROUP: s.accept_group[g, arg % NUM_KINDS] > 0,
        JOKER_GROUP: s.open_groups[g, arg % 13] > 0,
    }[kind]
    if not accepts:
        where = "run" if kind in (LAYOFF_RUN, JOKER_RUN) else "group"
        return f"no {where} on the table accepts it"
    return None


def _persian_words(spec, s, g, kind, arg, hand) -> str | None:
    """Groups of four and groups of jokers (docs/rules.md §8.2)."""
    jokers = int(hand[JOKER])
    if kind == MELD_JOKERS and jokers < 3 + arg:
        return f"a group of {3 + arg} jokers needs {3 + arg} jokers; you hold {jokers}"
    if kind == LAYOFF_JOKER:
        if jokers == 0:
            return "you hold no joker"
        if s.accept_group[g, JOKER] == 0:
            return "no group of three jokers on the table accepts it"
    if kind == MELD_GROUP4:
        lacking = [card_str(suit * NUM_RANKS + arg) for suit in range(NUM_SUITS) if hand[suit * NUM_RANKS + arg] == 0]
        wild = 0 if spec.rules.joker_mode == "groups_only" else min(jokers, 3)
        if len(lacking) > wild:
            return f"you lack {' '.join(lacking)}" + ("" if wild else " (and jokers do not stand in)")
    return None


def _dj_words(spec: GameSpec, s: State, g: int, kind: int, arg: int, hand: np.ndarray) -> str | None:
    """What the hand lacks for a move with the dealer's joker."""
    if kind == DJ_MELD:
        lacking = [card_str(c) for c in dj_meld_cards(arg, spec.layout.run_width) if c != JOKER and hand[c] == 0]
        if len(lacking) > int(hand[JOKER]):
            return f"you lack {' '.join(lacking)} and hold {int(hand[JOKER])} joker(s)"
    if kind == DJ_LAYOFF:
        run = arg < NUM_NATURAL
        if not (s.accept_run[g, arg] > 0 if run else s.open_groups[g, arg - NUM_NATURAL] > 0):
            return f"no {'run' if run else 'group'} on the table accepts it"
    if kind == DOUBLE and arg >= NUM_PATTERNS:  # a group of four doubled: 'meld 6C 6D 6H 6S double'
        return _placement_words(spec, s, g, MELD_GROUP4, arg - NUM_PATTERNS, hand)
    if kind == DOUBLE and spec.layout.run_width == 4 and arg >= NUM_GROUP_PATTERNS:
        return _placement_words(spec, s, g, MELD_RUN4, arg - NUM_GROUP_PATTERNS, hand)
    if kind == DOUBLE:
        return _placement_words(spec, s, g, MELD, arg, hand)
    return None
