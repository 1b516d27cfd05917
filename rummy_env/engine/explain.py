"""Why an action is illegal: a readable reason for the ``ValueError`` of a refused move."""

from __future__ import annotations

import numpy as np

from ..actions import (
    BLOCK,
    DISCARD,
    DJ_LAYOFF,
    DJ_MELD,
    DOUBLE,
    DRAW,
    JOKER_GROUP,
    JOKER_RUN,
    LAYOFF_GROUP,
    LAYOFF_JOKER,
    LAYOFF_RUN,
    MELD,
    MELD_GROUP4,
    MELD_JOKERS,
    MELD_RUN4,
    PASS,
    POWER,
    POWERS,
    RUMMY,
    SKIP,
    SPLIT,
    STOP,
    TAKE,
    dj_meld_cards,
)
from ..cards import JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS, NUM_SUITS, card_str
from ..melds import NUM_GROUP_PATTERNS, NUM_PATTERNS
from .calls import out_of_turn_call
from .spec import GameSpec
from .state import (
    DJ_BLOCKED,
    DJ_POWER,
    DJ_USED,
    DRAW_PHASE,
    GAME_OVER,
    LAY_OFF_PHASE,
    OPENING_PHASE,
    OUT_OF_TURN_PHASE,
    PHASE_NAMES,
    PLAY_PHASE,
    POWER_PHASE,
    RUMMY_PHASE,
    State,
)

_PHASE_OF = {
    DRAW: DRAW_PHASE,
    STOP: DRAW_PHASE,
    TAKE: DRAW_PHASE,
    RUMMY: RUMMY_PHASE,
    PASS: RUMMY_PHASE,
    SKIP: DRAW_PHASE,
    POWER: POWER_PHASE,
    SPLIT: DRAW_PHASE,
}
_POWER_OF = {DJ_MELD: "wild", DJ_LAYOFF: "wild", DOUBLE: "double", SPLIT: "split"}
_WHAT_PHASE_ALLOWS = {
    DRAW_PHASE: "draw, take D or stop",
    OPENING_PHASE: "discard C (the opening discard starts the pile)",
    PLAY_PHASE: "meld, lay off or discard",
    RUMMY_PHASE: "rummy D or pass",
    OUT_OF_TURN_PHASE: "meld, lay off (keeping a card) or pass",
    LAY_OFF_PHASE: "layoff (before the count, after a player went out) or pass",
    POWER_PHASE: "power wild, power double or power split (the dealer names the dealer's joker's power)",
}


def explain_illegal(spec: GameSpec, s: State, game: int, action: int) -> str:
    """The message for playing ``action`` in ``game`` when the mask refuses it."""
    layout = spec.layout
    if not 0 <= action < layout.num_actions:
        return f"illegal action id {action}: expected 0..{layout.num_actions - 1}"
    text = layout.to_str(action)
    phase = int(s.phase[game])
    if phase == GAME_OVER:
        return f"illegal action {text!r}: the game is over"
    seat = int(s.current[game])
    return f"illegal action {text!r} for player_{seat}: {_reason(spec, s, game, action, phase, seat)}"


def _reason(spec: GameSpec, s: State, g: int, action: int, phase: int, seat: int) -> str:
    layout, rules = spec.layout, spec.rules
    kind, arg = int(layout.kind[action]), int(layout.arg[action])
    needed = _PHASE_OF.get(kind, PLAY_PHASE)
    if phase == OPENING_PHASE and kind == DISCARD:
        needed = OPENING_PHASE
    if kind in _POWER_OF or kind == BLOCK:
        if needed != phase:
            return f"it is the {PHASE_NAMES[phase]} phase, where the legal moves are {_WHAT_PHASE_ALLOWS[phase]}"
        why = _gambit_reason(spec, s, g, kind, arg, seat)
        if why is None and int(s.obliged[g]) >= 0:
            why = f"the move does not meld the obliged card {card_str(int(s.obliged[g]))}"
        return why or "it would leave no legal way to finish the turn" + _opening_note(spec, s, g, seat)
    if phase == OUT_OF_TURN_PHASE and (kind == PASS or (needed == PLAY_PHASE and kind != DISCARD)):
        return _out_of_turn_reason(spec, s, g, kind, arg, s.hand[g, seat], seat)
    if phase == LAY_OFF_PHASE and kind in (LAYOFF_RUN, LAYOFF_GROUP, JOKER_RUN, JOKER_GROUP):
        return _placement_reason(spec, s, g, kind, arg, s.hand[g, seat]) or "it does not fit the table"
    if needed != phase:
        return f"it is the {PHASE_NAMES[phase]} phase, where the legal moves are {_WHAT_PHASE_ALLOWS[phase]}"
    hand = s.hand[g, seat]
    obliged = int(s.obliged[g])
    if kind == DRAW:
        return "the stock is empty"
    if kind == STOP:
        if rules.stock_exhausted == "play_out":
            return 'under stock_exhausted="play_out" a hand ends only when someone goes out (skip or take instead)'
        return "the stock is not empty, so the hand cannot be stopped"
    if kind == SKIP:
        return "skip is only for playing on without drawing once the stock is empty"
    if kind in (TAKE, RUMMY):
        size = int(s.pile_len[g])
        if arg >= size:
            return f"the discard pile holds only {size} card(s)"
        card = card_str(s.pile[g, size - 1 - arg])
        if kind == RUMMY:
            return f"{card} at depth {arg} cannot be melded without cards from a hand" + _opening_note(spec, s, g, seat)
        return (
            f"{card} at depth {arg} cannot be melded at once with your hand and the cards above it"
            + (" in a new meld (take_requires_new_meld)" if _new_meld_take(rules, arg) else "")
            + _opening_note(spec, s, g, seat)
        )
    if obliged >= 0 and kind != DISCARD:
        return f"the move does not meld the obliged card {card_str(obliged)}" + (
            " in a new meld" if s.obliged_new[g] else ""
        )
    if kind == DISCARD:
        return _discard_reason(spec, s, g, seat, arg, hand, obliged)
    held_note = _placement_reason(spec, s, g, kind, arg, hand)
    return held_note or "it would leave no legal way to finish the turn" + _opening_note(spec, s, g, seat)


def _new_meld_take(rules, depth: int) -> bool:
    """Whether ``take_requires_new_meld`` binds a take at ``depth`` (a top-only take: with take_top_requires_meld)."""
    return rules.take_requires_new_meld and (depth > 0 or rules.take_top_requires_meld)


def _discard_reason(spec, s, g, seat, card, hand, obliged) -> str:
    rules = spec.rules
    if hand[card] == 0:
        return f"you do not hold {card_str(card)}"
    if obliged >= 0:
        return f"the obliged card {card_str(obliged)} must be melded before discarding"
    if s.called[g] and rules.rummy_calls == "last_discard":
        return "after a last_discard Rummy! call the card is laid off and the caller does not discard"
    if int(s.top_taken[g]) == card:
        return f"{card_str(card)} was taken alone from the top of the pile this turn"
    if rules.first_meld_minimum > 0 and not s.opened[g, seat]:
        return (
            f"this turn's melds total {int(s.turn_points[g])}, less than first_meld_minimum={rules.first_meld_minimum}"
        )
    return (
        f"your last card {card_str(card)} fits a meld on the table, so it must be laid off (float_unplayable_discard)"
    )


def _out_of_turn_reason(spec, s, g, kind, arg, hand, seat) -> str:
    if kind == PASS:
        minimum = spec.rules.first_meld_minimum
        return f"out of turn, pass needs this window's melds to reach first_meld_minimum={minimum} first"
    held_note = _placement_reason(spec, s, g, kind, arg, hand)
    return held_note or "out of turn a player must keep at least one card" + _opening_note(spec, s, g, seat)


def _placement_reason(spec, s, g, kind, arg, hand) -> str | None:
    table = spec.table
    jokers = int(hand[JOKER])
    if kind in (MELD_GROUP4, MELD_JOKERS, LAYOFF_JOKER):
        return _persian_reason(spec, s, g, kind, arg, hand)
    groups_only = spec.rules.joker_mode == "groups_only"
    if groups_only and kind in (JOKER_RUN, JOKER_GROUP):
        return 'jokers are not wild under joker_mode="groups_only": they meld only in groups of jokers'
    if kind == MELD and spec.rules.min_run == 4 and not table.is_group[arg]:
        return "under min_run=4 a new run has at least four cards ('meld C1 C2 C3 C4')"
    if kind == MELD_RUN4:
        kind, arg = MELD, NUM_GROUP_PATTERNS + arg
    if kind == MELD:
        if not table.enabled[arg]:
            return "that run goes around the corner (K-A-2), legal only with ace_around_corner"
        lacking = [card_str(c) for c in table.cards[arg] if c >= 0 and hand[c] == 0]
        if len(lacking) <= min(jokers, int(table.max_lacking[arg])):  # the play mask's test (search.play_mask_core)
            return None
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


def _persian_reason(spec, s, g, kind, arg, hand) -> str | None:
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


def _gambit_reason(spec: GameSpec, s: State, g: int, kind: int, arg: int, seat: int) -> str | None:
    """Dealer's Gambit: who may use or block the dealer's joker, and when (docs/rules.md §8.8)."""
    power, dealer, hand = int(s.dj[g, DJ_POWER]), int(s.dealer[g]), s.hand[g, seat]
    gone = bool(s.dj[g, DJ_USED]) or bool(s.dj[g, DJ_BLOCKED])
    if kind == BLOCK:
        if seat == dealer:
            return "the dealer cannot block their own joker"
        if gone or power < 0:
            return "the dealer's joker was already used or blocked this hand"
        if hand[JOKER] == 0:
            return "you hold no joker to block the dealer's joker with"
        if int(s.obliged[g]) >= 0:
            return f"the obliged card {card_str(int(s.obliged[g]))} must be melded first"
        return "blocking would leave you no card to discard" + _opening_note(spec, s, g, seat)
    need = _POWER_OF[kind]
    if seat != dealer:
        return f"only the dealer (player_{dealer}) uses the dealer's joker"
    if out_of_turn_call(spec, s, g):
        if spec.rules.rummy_calls == "last_discard":
            return "the dealer uses the dealer's joker on their own turn, not in a last_discard Rummy! call"
        called = card_str(int(s.obliged[g]))
        return f"the dealer uses the dealer's joker on their own turn, once the Rummy! call's {called} is placed"
    if power != POWERS.index(need):
        return f"the dealer's joker's power is {POWERS[power] if power >= 0 else 'not named'}, not {need}"
    if gone:
        return "the dealer's joker was already " + ("used" if s.dj[g, DJ_USED] else "blocked") + " this hand"
    if kind == SPLIT:
        size = int(s.pile_len[g])
        if arg + 1 >= size:
            return f"the discard pile holds only {size} card(s)"
        card = card_str(s.pile[g, size - 2 - arg])
        return f"{card} at depth {arg + 1} cannot be melded at once with your hand" + _opening_note(spec, s, g, seat)
    if kind == DJ_MELD:
        lacking = [card_str(c) for c in dj_meld_cards(arg, spec.layout.run_width) if c != JOKER and hand[c] == 0]
        if len(lacking) > int(hand[JOKER]):
            return f"you lack {' '.join(lacking)} and hold {int(hand[JOKER])} joker(s)"
    if kind == DJ_LAYOFF:
        run = arg < NUM_NATURAL
        if not (s.accept_run[g, arg] > 0 if run else s.open_groups[g, arg - NUM_NATURAL] > 0):
            return f"no {'run' if run else 'group'} on the table accepts it"
    if kind == DOUBLE and arg >= NUM_PATTERNS:  # a group of four doubled: 'meld 6C 6D 6H 6S double'
        return _placement_reason(spec, s, g, MELD_GROUP4, arg - NUM_PATTERNS, hand)
    if kind == DOUBLE and spec.layout.run_width == 4 and arg >= NUM_GROUP_PATTERNS:
        return _placement_reason(spec, s, g, MELD_RUN4, arg - NUM_GROUP_PATTERNS, hand)
    if kind == DOUBLE:
        return _placement_reason(spec, s, g, MELD, arg, hand)
    return None


def _opening_note(spec: GameSpec, s: State, g: int, seat: int) -> str:
    minimum = spec.rules.first_meld_minimum
    if minimum > 0 and not bool(np.asarray(s.opened[g, seat])):
        return f" (or the turn cannot reach first_meld_minimum={minimum})"
    return ""
