"""Scenarios: a position written as a plain dict, loaded into the engine and read back.

The schema is the one of docs/api.md: ``hands``, ``discard`` (bottom first), ``stock`` (top
first, optional), ``melds``, ``current_player``, ``scores``, ``dealer``, plus the
keys ``state_dict()`` adds (``phase``, ``melded_points``, ``obliged``,
``top_taken``, ``rummy_queue``, ``floating``, ``opened``, ``known``,
``hand_scores``) and this library's ``discarder``, ``called``, ``turn_points``
(the turn in progress) and ``seed``, ``shuffles``, ``hand_no`` (the game's
random stream), so that a saved position restores exactly, future deals included.
An omitted ``stock`` is always shuffled from the ``reset`` seed; later deals follow
the scenario's ``seed`` and ``shuffles`` when it has them, else the ``reset`` seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .actions import DJ_TEXT, POWERS
from .cards import (
    CARD_RANK,
    CARD_SUIT,
    JOKER,
    JOKER_TEXT,
    NUM_KINDS,
    NUM_NATURAL,
    NUM_RANKS,
    card_str,
    counts_to_cards,
    parse_card,
)
from .engine.calls import (
    begin_draw,
    callable_depths,
    meld_points,
    out_of_turn_call,
    push_pile,
    refresh_accepts,
    shuffled,
)
from .engine.spec import GameSpec
from .engine.state import (
    DJ_AT,
    DJ_BLOCKED,
    DJ_POWER,
    DJ_SLOT,
    DJ_USED,
    DRAW_PHASE,
    GAME_OVER,
    LAY_OFF_PHASE,
    NOBODY,
    OPENING_PHASE,
    OUT_OF_PLAY,
    OUT_OF_TURN_PHASE,
    PHASE_NAMES,
    PLAY_PHASE,
    RUMMY_PHASE,
    SEALED,
    State,
    empty_state,
)
from .melds import GROUP, GROUP_JOKER_SLOT, JOKERS, MAX_GROUP, RUN, run_is_valid
from .rules import side_of

SCENARIO_KEYS = ("hands", "discard", "stock", "melds", "current_player", "scores", "dealer")
STATE_KEYS = (
    "phase",
    "melded_points",
    "obliged",
    "top_taken",
    "rummy_queue",
    "floating",
    "opened",
    "known",
    "hand_scores",
    "discarder",
    "called",
    "turn_points",
    "seed",
    "shuffles",
    "hand_no",
    "turn_melds",
    "hands_played",
    "side_scores",
    "dealers_joker",
    "out_of_play",
)


def _fail(message: str) -> None:
    raise ValueError(f"bad scenario: {message}")


def _cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, (list, tuple)):
        _fail(f"{where} must be a list of card strings, got {value!r}")
    try:
        return [parse_card(c) for c in value]
    except ValueError as err:
        _fail(f"{where}: {err}")
    return []


def _seat(value: Any, players: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < players:
        _fail(f"{where} must be a seat 0..{players - 1}, got {value!r}")
    return int(value)


def _per_player(value: Any, players: int, where: str, kind: type, dtype: Any = None) -> list:
    """One ``kind`` value per player; integers must fit ``dtype``, the array that holds them."""
    if not isinstance(value, (list, tuple)) or len(value) != players:
        _fail(f"{where} must be a list of {players} values (one per player), got {value!r}")
    for item in value:
        if kind is bool:
            if not isinstance(item, (bool, np.bool_)):
                _fail(f"{where} must hold bool values, got {item!r}")
        else:
            _integer(item, where, *_bounds(dtype))
    return list(value)


def _bounds(dtype: Any) -> tuple[int, int]:
    """The range of the integer type ``dtype``."""
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _integer(value: Any, where: str, lo: int, hi: int) -> int:
    """``value``, an integer ``lo..hi`` (checked before it reaches a fixed-width array)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        _fail(f"{where} must hold integers, got {value!r}")
    if not lo <= value <= hi:
        _fail(f"{where} must be an integer {lo}..{hi}, got {value!r}")
    return int(value)


def _list(value: Any, where: str) -> list:
    """``value``, a list (or tuple); ``None`` is an empty list."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        _fail(f"{where} must be a list, got {value!r}")
    return list(value)


def _meld_card(text: Any, where: str) -> tuple[int, int]:
    """(kind placed, identity stood for): a joker in a run is ``JK=8H``; ``JK`` alone stands for nothing yet."""
    if isinstance(text, str) and text.strip().upper().startswith(JOKER_TEXT + "="):
        try:
            stands = parse_card(text.strip()[3:])
        except ValueError as err:
            _fail(f"{where}: {err}")
        if stands == JOKER:
            _fail(f"{where}: a joker cannot stand for a joker")
        return JOKER, stands
    try:
        card = parse_card(text)
    except ValueError as err:
        _fail(f"{where}: {err}")
    return card, card if card != JOKER else -1


def _parse_meld(spec: GameSpec, meld: Any, number: int) -> dict:
    """Validate one meld; returns its geometry, cards and owners."""
    where = f"melds[{number}]"
    players = spec.players
    if not isinstance(meld, Mapping) or "cards" not in meld or "owner" not in meld:
        _fail(f"{where} must be a dict with 'owner' and 'cards', got {meld!r}")
    extra = set(meld) - {"owner", "cards", "owners", "double", "sealed"}
    if extra:
        _fail(f"{where} has unknown key(s) {sorted(extra)}")
    owner = _seat(meld["owner"], players, f"{where}.owner")
    texts = meld["cards"]
    if not isinstance(texts, (list, tuple)) or len(texts) < 3:
        _fail(f"{where}.cards must be a list of at least 3 card strings, got {texts!r}")
    dj = _dj_position(spec, texts, where)
    texts = [JOKER_TEXT + t.strip()[2:] if i == dj else t for i, t in enumerate(texts)]
    placed = [_meld_card(t, f"{where}.cards") for t in texts]
    owners = meld.get("owners", [owner] * len(placed))
    if not isinstance(owners, (list, tuple)) or len(owners) != len(placed):
        _fail(f"{where}.owners must list one seat per card ({len(placed)})")
    owners = [_seat(o, players, f"{where}.owners") for o in owners]
    parsed = _parse_geometry(spec, placed, owners, owner, where)
    parsed["dj"] = dj
    parsed["sealed"] = _parse_sealed(spec, meld, parsed, where)
    parsed["double"] = parsed["sealed"] or _parse_double(spec, meld, parsed, where)
    return parsed


def _dj_position(spec: GameSpec, texts: Any, where: str) -> int | None:
    """Where the dealer's joker (``DJ``, ``DJ=8H`` in a run) stands in a meld's cards, if it is there."""
    spots = [i for i, t in enumerate(texts) if isinstance(t, str) and t.strip().upper().split("=")[0] == DJ_TEXT]
    if not spots:
        return None
    if not spec.rules.dealers_joker:
        _fail(f"{where}: the dealer's joker DJ exists only with dealers_joker=True")
    if len(spots) > 1:
        _fail(f"{where}: there is one dealer's joker, the meld lists DJ {len(spots)} times")
    return spots[0]


def _parse_sealed(spec: GameSpec, meld: Mapping[str, Any], parsed: dict, where: str) -> bool:
    """``sealed``: a meld doubled by the dealer's joker (``power double``): ``"double": true, "sealed": true``."""
    sealed = meld.get("sealed", False)
    if not isinstance(sealed, bool):
        _fail(f"{where}.sealed must be True or False, got {sealed!r}")
    if not sealed:
        return False
    if not spec.rules.dealers_joker:
        _fail(f"{where}.sealed needs dealers_joker=True (a meld doubled by the dealer's joker)")
    if meld.get("double") is not True:
        _fail(f'{where}: a sealed meld is doubled by the dealer\'s joker, so it also has "double": true')
    four = MAX_GROUP if spec.rules.four_of_a_kind_double else 3  # a group of four, doubled once
    sizes = (spec.rules.min_run,) if parsed["kind"] == RUN else (3, four)
    if parsed["dj"] is not None or len(parsed["placed"]) not in sizes:
        _fail(
            f"{where}.sealed: a doubled meld is the {' or '.join(map(str, sorted(set(sizes))))} cards put down with "
            "power double (DJ is not one of them)"
        )
    if len(set(parsed["owners"])) != 1 or parsed["owners"][0] != parsed["by"]:
        _fail(f"{where}.sealed: nothing is laid off on a sealed meld, so its melder owns all its cards")
    return True


def _parse_geometry(spec: GameSpec, placed: list[tuple[int, int]], owners: list[int], owner: int, where: str) -> dict:
    """A meld's kind (group, run, or group of jokers) and geometry."""
    if spec.rules.joker_mode == "groups_only" and any(kind == JOKER for kind, _ in placed):
        if any(kind != JOKER for kind, _ in placed):
            _fail(f'{where}: jokers are not wild under joker_mode="groups_only" (they meld only with jokers)')
        if not 3 <= len(placed) <= MAX_GROUP or any(stands != -1 for _, stands in placed):
            _fail(f"{where}: a group of jokers is 3 or 4 jokers written 'JK', got {len(placed)} card(s)")
        return {"kind": JOKERS, "placed": placed, "owners": owners, "by": owner}
    naturals = {CARD_RANK[stands] for kind, stands in placed if kind != JOKER}
    if any(stands == -1 for _, stands in placed):
        if len(naturals) > 1:
            _fail(f"{where}: a joker in a run must be declared as the card it stands for, e.g. 'JK=8H'")
        return _parse_group(placed, owners, owner, where)
    if any(kind == JOKER for kind, _ in placed) or len(naturals) != 1:
        return _parse_run(spec, placed, owners, owner, where)
    return _parse_group(placed, owners, owner, where)


def _parse_double(spec: GameSpec, meld: Mapping[str, Any], parsed: dict, where: str) -> bool:
    """``double``: a group of four put down at once under ``four_of_a_kind_double`` (it scored double)."""
    double = meld.get("double", False)
    if not isinstance(double, bool):
        _fail(f"{where}.double must be True or False, got {double!r}")
    if not double:
        return False
    if not spec.rules.four_of_a_kind_double:
        _fail(f"{where}.double needs four_of_a_kind_double=True")
    if parsed["kind"] == RUN or len(parsed["placed"]) != MAX_GROUP:
        _fail(f"{where}.double: only a group of four is doubled")
    if len(set(parsed["owners"])) != 1 or parsed["owners"][0] != parsed["by"]:
        _fail(f"{where}.double: a doubled group was put down at once, so one player owns all four cards")
    return True


def _parse_group(placed: list[tuple[int, int]], owners: list[int], owner: int, where: str) -> dict:
    naturals = [kind for kind, _ in placed if kind != JOKER]
    if any(stands not in (-1, kind) for kind, stands in placed):
        _fail(f"{where}: a joker in a group is written 'JK' (its suit is not declared)")
    if not naturals:
        _fail(f"{where}: a group needs at least one natural card")
    if len({CARD_RANK[c] for c in naturals}) != 1:
        _fail(f"{where}: {[card_str(c) for c in naturals]} is neither a group (one rank) nor a run")
    if len(set(naturals)) != len(naturals):
        _fail(f"{where}: a group's cards must all be of different suits")
    if not 3 <= len(placed) <= MAX_GROUP:
        _fail(f"{where}: a group has 3 or 4 cards, got {len(placed)}")
    return {"kind": GROUP, "rank": int(CARD_RANK[naturals[0]]), "placed": placed, "owners": owners, "by": owner}


def _parse_run(spec: GameSpec, placed: list[tuple[int, int]], owners: list[int], owner: int, where: str) -> dict:
    if any(stands == -1 for _, stands in placed):
        _fail(f"{where}: a joker in a run must be declared, e.g. 'JK=8H'")
    stands = [s for _, s in placed]
    suits = {int(CARD_SUIT[s]) for s in stands}
    if len(suits) != 1:
        _fail(f"{where}: {[card_str(s) for s in stands]} is neither a group nor a run of one suit")
    lo = int(CARD_RANK[stands[0]])
    if [int(CARD_RANK[s]) for s in stands] != [(lo + i) % NUM_RANKS for i in range(len(stands))]:
        _fail(f"{where}: a run lists consecutive cards low to high, got {[card_str(s) for s in stands]}")
    if not run_is_valid(lo, len(stands), spec.rules.ace_around_corner, spec.rules.min_run):
        _fail(f"{where}: {[card_str(s) for s in stands]} is not a legal run under these rules")
    return {"kind": RUN, "suit": suits.pop(), "lo": lo, "placed": placed, "owners": owners, "by": owner}


def _write_meld(spec: GameSpec, s: State, slot: int, meld: dict) -> list[int]:
    """Store a parsed meld in meld slot ``slot`` of game 0; returns each owner's points from it (as the kernels
    score each card where it stands, ``engine.calls.meld_points``)."""
    points = [0] * spec.players
    s.meld_kind[0, slot] = meld["kind"]
    s.meld_by[0, slot] = meld["by"]
    s.meld_len[0, slot] = len(meld["placed"])
    if meld["kind"] == RUN:
        s.meld_suit[0, slot], s.meld_lo[0, slot] = meld["suit"], meld["lo"]
    elif meld["kind"] == GROUP:
        s.meld_rank[0, slot] = meld["rank"]
    wheres = []
    jokers_seen = 0
    for position, ((kind, stands), owner) in enumerate(zip(meld["placed"], meld["owners"], strict=False)):
        if meld["kind"] == RUN:
            where = int(CARD_RANK[stands])
            s.table_jokers[0, stands] += kind == JOKER
        elif kind == JOKER:
            where = GROUP_JOKER_SLOT + jokers_seen
            jokers_seen += 1
            if meld["kind"] == GROUP:
                s.table_jokers[0, NUM_NATURAL + meld["rank"]] += 1
        else:
            where = int(CARD_SUIT[kind])
            s.meld_suits[0, slot] |= 1 << where
        s.meld_owner[0, slot, where] = owner
        s.meld_joker[0, slot, where] = kind == JOKER
        s.placed[0, owner, kind] += 1
        if position == meld["dj"]:  # the dealer's joker scores 0
            s.dj[0, DJ_AT], s.dj[0, DJ_SLOT] = slot, where
            continue
        wheres.append((where, owner))
    slot_points = meld_points(spec, s, 0, slot)
    for where, owner in wheres:
        points[owner] += int(slot_points[where])
    if meld["double"]:
        s.meld_double[0, slot] = True
        points = [2 * p for p in points]
    if meld["sealed"]:
        s.meld_double[0, slot] = SEALED
        s.dj[0, DJ_AT] = slot
    return points


def _count_key(scenario: Mapping[str, Any], key: str, default: int, dtype: Any = np.int32) -> int:
    value = scenario.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        _fail(f"{key} must be a non-negative integer, got {value!r}")
    return _integer(value, key, 0, _bounds(dtype)[1])


def _count(cards: list[int]) -> np.ndarray:
    return np.bincount(np.asarray(cards, dtype=np.int64), minlength=NUM_KINDS)


def load_scenario(spec: GameSpec, scenario: Mapping[str, Any], seed: int) -> State:
    """A one-game state holding ``scenario`` (``ValueError`` naming the problem if it is impossible)."""
    if not isinstance(scenario, Mapping):
        _fail(f"a scenario must be a dict, got {type(scenario).__name__}")
    unknown = set(scenario) - set(SCENARIO_KEYS) - set(STATE_KEYS)
    if unknown:
        _fail(f"unknown key(s) {sorted(unknown)}; valid keys: {', '.join(SCENARIO_KEYS + STATE_KEYS)}")
    players = spec.players
    if "hands" not in scenario:
        _fail("'hands' is required (one list of card strings per player)")
    hands = scenario["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        _fail(f"'hands' must hold {players} lists of cards (one per player), got {hands!r}")
    s = empty_state(1, players, spec.deck_size, spec.copies)
    s.seed[0] = np.uint64(seed % 2**64)
    s.hand_no[0] = _count_key(scenario, "hand_no", 0)
    hand_cards = [_cards(h, f"hands[{p}]") for p, h in enumerate(hands)]
    pile = _cards(scenario.get("discard", []), "discard")
    melds = [_parse_meld(spec, m, i) for i, m in enumerate(_list(scenario.get("melds"), "melds"))]
    if len(melds) > spec.max_melds:
        _fail(f"{len(melds)} melds is more than the deck allows ({spec.max_melds})")
    used = sum((_count(h) for h in hand_cards), _count(pile))
    for meld in melds:
        used += _count([kind for kind, _ in meld["placed"]])
    gambit = _parse_gambit(spec, scenario, melds)
    used += gambit["out_of_play"]
    used[JOKER] += gambit["apart"]
    _check_counts(spec, used, "the hands, discard pile, melds, out_of_play and the dealer's joker")
    stock = _stock(spec, s, scenario, used)
    if "seed" in scenario:
        s.seed[0] = np.uint64(_count_key(scenario, "seed", seed, np.uint64))
        s.shuffles[0] = _count_key(scenario, "shuffles", 0)
    for p, cards in enumerate(hand_cards):
        s.hand[0, p] = _count(cards)
    for card in pile:
        push_pile(s, np.zeros(1, dtype=np.int64), np.array([card]))
    s.stock[0, : len(stock)] = stock[::-1]
    s.stock_len[0] = len(stock)
    points = np.zeros(players, dtype=np.int64)
    for slot, meld in enumerate(melds):
        points += _write_meld(spec, s, slot, meld)
    s.num_melds[0] = len(melds)
    _write_gambit(s, gambit)
    refresh_accepts(spec, s, np.zeros(1, dtype=np.int64))
    _load_turn(spec, s, scenario, points)
    _check_gambit(spec, s, melds)
    _load_turn_melds(s, scenario)
    _load_sides(spec, s, scenario)
    return s


def _parse_gambit(spec: GameSpec, sc: Mapping[str, Any], melds: list[dict]) -> dict:
    """``dealers_joker`` (``{"power", "used", "blocked"}``) and ``out_of_play``, checked against the melds."""
    info, out = sc.get("dealers_joker"), sc.get("out_of_play") or []
    if not spec.rules.dealers_joker:
        if info is not None or out:
            _fail("dealers_joker and out_of_play exist only with dealers_joker=True")
        return {"power": -1, "used": False, "blocked": False, "out_of_play": _count([]), "apart": 0}
    info = {"power": None, "used": False, "blocked": False} if info is None else info
    if not isinstance(info, Mapping) or set(info) - {"power", "used", "blocked"}:
        _fail(f'dealers_joker must be a dict with keys "power", "used", "blocked" (or null), got {info!r}')
    power, used, blocked = info.get("power"), info.get("used", False), info.get("blocked", False)
    if power is not None and power not in POWERS:
        _fail(f"dealers_joker.power must be null or one of {POWERS}, got {power!r}")
    if not isinstance(used, bool) or not isinstance(blocked, bool):
        _fail(f"dealers_joker.used and .blocked must be True or False, got {used!r}, {blocked!r}")
    if (used or blocked) and power is None:
        _fail("dealers_joker: a power is named before it is used or blocked")
    if used and blocked:
        _fail("dealers_joker: a blocked dealer's joker cannot have been used (it is used at most once)")
    out_cards = _count(_cards(out, "out_of_play"))
    if blocked and out_cards[JOKER] < 2:
        _fail("dealers_joker.blocked: the dealer's joker and the blocking joker are both in out_of_play")
    on_table = any(m["dj"] is not None for m in melds)
    if on_table != (used and power == "wild"):
        _fail("dealers_joker: DJ is on the table exactly when its power is wild and used")
    if sum(m["dj"] is not None for m in melds) > 1:
        _fail("melds: there is one dealer's joker, DJ appears in several melds")
    sealed = sum(m["sealed"] for m in melds)
    if sealed != int(used and power == "double"):
        _fail('dealers_joker: one meld is "sealed" exactly when the power double was used')
    apart = not blocked and not (used and power == "wild")  # set aside, on a sealed meld, or used by a split
    index = -1 if power is None else POWERS.index(power)
    return {"power": index, "used": used, "blocked": blocked, "out_of_play": out_cards, "apart": int(apart)}


def _write_gambit(s: State, gambit: dict) -> None:
    """Store the dealer's joker and the cards out of play in game 0."""
    s.dj[0, DJ_POWER] = gambit["power"]
    s.dj[0, DJ_USED] = gambit["used"]
    s.dj[0, DJ_BLOCKED] = gambit["blocked"]
    s.dj[0, OUT_OF_PLAY:] = gambit["out_of_play"]


def _check_gambit(spec: GameSpec, s: State, melds: list[dict]) -> None:
    """Phase ``power`` (the dealer names a power, nothing happened yet: the only phase with none named), who put
    the dealer's joker down, and when an unopened dealer did (``first_meld_minimum``)."""
    dealer = int(s.dealer[0])
    for number, meld in enumerate(melds):
        if meld["dj"] is not None and meld["owners"][meld["dj"]] != dealer:
            _fail(f"melds[{number}]: the dealer's joker DJ is put down by the dealer (player {dealer})")
        if meld["sealed"] and meld["by"] != dealer:
            _fail(f"melds[{number}]: a sealed meld is put down by the dealer (player {dealer})")
    phase = PHASE_NAMES[int(s.phase[0])]
    if not spec.rules.dealers_joker:
        if phase == "power":
            _fail("phase 'power' needs dealers_joker=True")
        return
    named = s.dj[0, DJ_POWER] >= 0
    if phase == "power" and named:
        _fail("in phase 'power' the dealer has not named a power yet, so dealers_joker.power must be null")
    if phase == "power" and s.current[0] != dealer:
        _fail(f"in phase 'power' the dealer names the power, so current_player must be the dealer ({dealer})")
    if phase != "power" and not named:
        _fail(
            f"dealers_joker.power is null only at the start of a hand, in phase 'power' (the dealer names it "
            f"before anything else), not in phase {phase!r}"
        )
    minimum = spec.rules.first_meld_minimum
    this_turn = phase == "play" and s.current[0] == dealer and not out_of_turn_call(spec, s, 0)
    if minimum and s.dj[0, DJ_SLOT] >= 0 and not s.opened[0, dealer] and not this_turn:
        _fail(
            f"the dealer's joker on the table counts toward first_meld_minimum={minimum}: a dealer who has not "
            "opened (opened false) puts it down only in the turn in progress (phase 'play', current_player "
            "the dealer)"
        )


def side_scores(spec: GameSpec, scores: Any) -> list[int]:
    """The sides' cumulative scores (``partnership``: seats 0 + 2, then 1 + 3; ``rules.side_of``)."""
    seats = range(spec.players)
    return [sum(int(scores[p]) for p in seats if side_of(p) == side) for side in range(spec.rules.sides)]


def hands_played(s: State, g: int) -> int:
    """Hands finished in game ``g`` (the current one counts once the game is over)."""
    return int(s.hand_no[g]) + int(s.phase[g] == GAME_OVER)


def _load_sides(spec: GameSpec, s: State, sc: Mapping[str, Any]) -> None:
    """``hands_played`` (sets the hand count) and the derived, read-only ``side_scores``."""
    if "hands_played" in sc:
        played = _count_key(sc, "hands_played", 0)
        hand_no = played - int(s.phase[0] == GAME_OVER)
        if hand_no < 0:
            _fail("hands_played must be at least 1 once the game is over")
        if "hand_no" in sc and sc["hand_no"] != hand_no:
            _fail(f"hands_played={played} and hand_no={sc['hand_no']!r} disagree (hand_no counts from 0)")
        s.hand_no[0] = hand_no
    if sc.get("side_scores") is None:
        return
    if not spec.rules.partnership:
        _fail("side_scores exist only with partnership")
    derived = side_scores(spec, s.scores[0])
    if _list(sc["side_scores"], "side_scores") != derived:
        _fail(f"side_scores is derived from scores (would be {derived}), got {sc['side_scores']!r}")


def _load_turn_melds(s: State, sc: Mapping[str, Any]) -> None:
    """``turn_melds``: indices of the melds put down in the turn in progress (the 'play' phase; kept through
    the lay-offs after going out)."""
    turn_melds = sc.get("turn_melds") or []
    if not isinstance(turn_melds, (list, tuple)):
        _fail(f"turn_melds must be a list of meld indices, got {turn_melds!r}")
    count = int(s.num_melds[0])
    for m in turn_melds:
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 0 <= m < count:
            _fail(f"turn_melds must hold indices of melds 0..{count - 1}, got {m!r}")
    if turn_melds and s.phase[0] not in (PLAY_PHASE, LAY_OFF_PHASE):
        _fail("turn_melds is only possible in the 'play' and 'lay_off_after_out' phases")
    s.turn_melds[0, list(turn_melds)] = True


def _check_counts(spec: GameSpec, used: np.ndarray, where: str) -> None:
    over = np.flatnonzero(used > spec.counts)
    if len(over):
        card = int(over[0])
        _fail(
            f"{card_str(card)} appears {int(used[card])} time(s) in {where}, but the deck "
            f"({spec.rules.num_decks} deck(s), {spec.rules.jokers_per_deck} joker(s) each) has {int(spec.counts[card])}"
        )


def _stock(spec: GameSpec, s: State, scenario: Mapping[str, Any], used: np.ndarray) -> list[int]:
    """The stock, top first: as given (it must complete the deck), else the rest shuffled from the seed."""
    if scenario.get("stock") is not None:
        stock = _cards(scenario["stock"], "stock")
        total = used + _count(stock)
        _check_counts(spec, total, "the scenario")
        missing = np.flatnonzero(total < spec.counts)
        if len(missing):
            _fail(f"the stock must hold every remaining card; {card_str(int(missing[0]))} is nowhere")
        return stock
    rest = np.asarray(counts_to_cards(spec.counts - used), dtype=np.int8)[None, :]
    if rest.size == 0:
        return []
    order = shuffled(s, np.zeros(1, dtype=np.int64), rest, np.ones(rest.shape, dtype=bool))
    return order[0].tolist()


def _opt_card(scenario: Mapping[str, Any], key: str) -> int:
    value = scenario.get(key)
    if value is None:
        return -1
    return _cards([value], key)[0]


def _load_turn(spec: GameSpec, s: State, sc: Mapping[str, Any], points: np.ndarray) -> None:
    players = spec.players
    s.dealer[0] = _seat(sc.get("dealer", spec.rules.seat_after(0, -1)), players, "dealer")
    unnamed = spec.rules.dealers_joker and s.dj[0, DJ_POWER] < 0  # the start of a hand: the dealer names a power
    phase = sc.get("phase", "power" if unnamed else "draw")
    if not isinstance(phase, str) or phase not in PHASE_NAMES:
        _fail(f"phase must be one of {PHASE_NAMES}, got {phase!r}")
    s.phase[0] = PHASE_NAMES.index(phase)
    first = s.dealer[0] if phase == "power" else spec.rules.seat_after(int(s.dealer[0]))
    s.current[0] = _seat(sc.get("current_player", first), players, "current_player")
    if s.phase[0] == OPENING_PHASE and (spec.rules.first_discard != "player" or s.pile_len[0] > 0):
        _fail('phase "opening" needs first_discard="player" and an empty discard pile')
    s.scores[0] = _per_player(sc.get("scores", [0] * players), players, "scores", int, s.scores.dtype)
    melded = sc.get("melded_points", points.tolist())
    s.melded_points[0] = _per_player(melded, players, "melded_points", int, s.melded_points.dtype)
    hand_scores = sc.get("hand_scores")
    if hand_scores is not None:
        s.hand_scores[0] = _per_player(hand_scores, players, "hand_scores", int, s.hand_scores.dtype)
        s.has_hand_scores[0] = True
    empty = s.hand[0].sum(axis=1) == 0
    s.floating[0] = _per_player(sc.get("floating", (empty & spec.rules.floating).tolist()), players, "floating", bool)
    s.opened[0] = _per_player(
        sc.get("opened", (points >= max(spec.rules.first_meld_minimum, 1)).tolist()), players, "opened", bool
    )
    _load_known(spec, s, sc)
    _load_obligation(spec, s, sc)
    if s.phase[0] not in (GAME_OVER, LAY_OFF_PHASE) and not spec.rules.floating and empty.any():
        _fail(
            f"player {int(np.argmax(empty))} holds no cards, "
            f"which ends the hand under going_out={spec.rules.going_out!r}"
        )
    if s.phase[0] == DRAW_PHASE:
        begin_draw(spec, s, np.zeros(1, dtype=np.int64), s.current[:1].copy())


def _load_known(spec: GameSpec, s: State, sc: Mapping[str, Any]) -> None:
    known = sc.get("known")
    if known is None:
        return
    if not isinstance(known, (list, tuple)) or len(known) != spec.players:
        _fail(f"known must hold {spec.players} lists of cards")
    for p, cards in enumerate(known):
        counts = _count(_cards(cards, f"known[{p}]"))
        if (counts > s.hand[0, p]).any():
            _fail(f"known[{p}] lists {card_str(int(np.argmax(counts > s.hand[0, p])))}, which player {p} does not hold")
        s.known[0, p] = counts


def _load_obligation(spec: GameSpec, s: State, sc: Mapping[str, Any]) -> None:
    players, phase, seat = spec.players, int(s.phase[0]), int(s.current[0])
    s.obliged[0] = _opt_card(sc, "obliged")
    s.top_taken[0] = _opt_card(sc, "top_taken")
    called = sc.get("called", False)
    if not isinstance(called, (bool, np.bool_)):
        _fail(f"called must be True or False, got {called!r}")
    s.called[0] = called
    s.turn_points[0] = _integer(sc.get("turn_points", 0), "turn_points", *_bounds(s.turn_points.dtype))
    if s.obliged[0] >= 0:
        if phase != PLAY_PHASE:
            _fail("an obliged card is only possible in the 'play' phase")
        if s.hand[0, seat, s.obliged[0]] == 0:
            _fail(f"the obliged card {card_str(int(s.obliged[0]))} must be in player {seat}'s hand")
        top_only = s.top_taken[0] >= 0 and not spec.rules.take_top_requires_meld  # a play_out take of the top card
        s.obliged_new[0] = not s.called[0] and spec.rules.take_requires_new_meld and not top_only
    queue = [_seat(q, players, "rummy_queue") for q in _list(sc.get("rummy_queue"), "rummy_queue")]
    if len(set(queue)) != len(queue):
        _fail(f"rummy_queue must list distinct seats, got {queue}")
    if phase == LAY_OFF_PHASE:
        _load_lay_offs(spec, s, sc, queue)
        return
    if phase == OUT_OF_TURN_PHASE and not spec.rules.meld_out_of_turn:
        _fail("phase 'out_of_turn' needs meld_out_of_turn=True")
    if phase in (RUMMY_PHASE, OUT_OF_TURN_PHASE):
        if not queue or queue[0] != seat:
            queue = [seat] + [q for q in queue if q != seat]
        default_discarder = spec.rules.seat_after(seat, -1)
    else:
        if queue:
            _fail("rummy_queue is only possible in the 'rummy' and 'out_of_turn' phases")
        default_discarder = NOBODY
    s.rummy_queue[0, : len(queue)] = queue
    if phase == RUMMY_PHASE:
        depths = callable_depths(spec, s, np.zeros(1, dtype=np.int64))
        s.rummy_depths[0, : depths.shape[1]] = depths[0]
    discarder = sc.get("discarder", default_discarder)
    s.discarder[0] = NOBODY if discarder in (None, NOBODY) else _seat(discarder, players, "discarder")
    if phase == RUMMY_PHASE and seat == s.discarder[0]:
        _fail("a player cannot call Rummy! on their own discard")
    if phase == OUT_OF_TURN_PHASE and (seat == s.discarder[0] or s.obliged[0] >= 0 or s.top_taken[0] >= 0):
        _fail("out of turn the discarder is not asked, and nothing is obliged or taken")


def _load_lay_offs(spec: GameSpec, s: State, sc: Mapping[str, Any], queue: list[int]) -> None:
    """Phase ``lay_off_after_out``: ``current_player`` went out; ``rummy_queue`` lists the seats still to lay off."""
    seat = int(s.current[0])
    if spec.rules.hand_scoring != "add_to_winner":
        _fail("phase 'lay_off_after_out' needs hand_scoring='add_to_winner'")
    if s.hand[0, seat].sum() > 0:
        _fail("in phase 'lay_off_after_out' current_player is the player who went out, so holds no cards")
    if not queue or seat in queue or len(set(queue)) != len(queue):
        _fail("in phase 'lay_off_after_out' rummy_queue lists the seats still to lay off (the one asked now first)")
    if s.obliged[0] >= 0 or s.top_taken[0] >= 0 or s.called[0]:
        _fail("in phase 'lay_off_after_out' nothing is obliged, taken or called")
    if sc.get("discarder", seat) != seat:
        _fail("in phase 'lay_off_after_out' discarder is the player who went out (current_player)")
    s.rummy_queue[0, : len(queue)] = queue
    s.discarder[0] = seat
    s.current[0] = queue[0]


def state_dict(spec: GameSpec, s: State, g: int) -> dict[str, Any]:
    """Game ``g``'s position in the scenario schema, plus phase and bookkeeping (loads back exactly)."""
    players = spec.players

    def cards(counts: np.ndarray) -> list[str]:
        return [card_str(c) for c in counts_to_cards(counts)]

    def opt(card: int | np.integer) -> str | None:
        return None if card < 0 else card_str(int(card))

    queue = [int(q) for q in s.rummy_queue[g] if q >= 0]
    return {
        "hands": [cards(s.hand[g, p]) for p in range(players)],
        "discard": [card_str(c) for c in s.pile[g, : s.pile_len[g]]],
        "stock": [card_str(c) for c in s.stock[g, : s.stock_len[g]][::-1]],
        "melds": [_meld_dict(s, g, m) for m in range(int(s.num_melds[g]))],
        "current_player": int(s.discarder[g] if s.phase[g] == LAY_OFF_PHASE else s.current[g]),
        "scores": s.scores[g].tolist(),
        "dealer": int(s.dealer[g]),
        "phase": PHASE_NAMES[int(s.phase[g])],
        "melded_points": s.melded_points[g].tolist(),
        "obliged": opt(s.obliged[g]),
        "top_taken": opt(s.top_taken[g]),
        "rummy_queue": queue,
        "floating": s.floating[g].tolist(),
        "opened": s.opened[g].tolist(),
        "known": [cards(s.known[g, p]) for p in range(players)],
        "hand_scores": s.hand_scores[g].tolist() if s.has_hand_scores[g] else None,
        "discarder": None if s.discarder[g] < 0 else int(s.discarder[g]),
        "called": bool(s.called[g]),
        "turn_points": int(s.turn_points[g]),
        "seed": int(s.seed[g]),
        "shuffles": int(s.shuffles[g]),
        "hand_no": int(s.hand_no[g]),
        **({"turn_melds": np.flatnonzero(s.turn_melds[g]).tolist()} if spec.rules.seven_run_bonus else {}),
        "hands_played": hands_played(s, g),
        **({"side_scores": side_scores(spec, s.scores[g])} if spec.rules.partnership else {}),
        "dealers_joker": _gambit_dict(s, g) if spec.rules.dealers_joker else None,
        **({"out_of_play": cards(s.dj[g, OUT_OF_PLAY:])} if spec.rules.dealers_joker else {}),
    }


def _gambit_dict(s: State, g: int) -> dict[str, Any]:
    power = int(s.dj[g, DJ_POWER])
    return {
        "power": POWERS[power] if power >= 0 else None,
        "used": bool(s.dj[g, DJ_USED]),
        "blocked": bool(s.dj[g, DJ_BLOCKED]),
    }


def _meld_dict(s: State, g: int, m: int) -> dict[str, Any]:
    owner, joker = s.meld_owner[g, m], s.meld_joker[g, m]
    if s.meld_kind[g, m] == RUN:
        suit, lo = int(s.meld_suit[g, m]), int(s.meld_lo[g, m])
        ranks = [(lo + i) % NUM_RANKS for i in range(int(s.meld_len[g, m]))]
        names = [("JK=" if joker[r] else "") + card_str(suit * NUM_RANKS + r) for r in ranks]
        if s.dj[g, DJ_AT] == m and s.dj[g, DJ_SLOT] >= 0:
            slot = int(s.dj[g, DJ_SLOT])
            names[ranks.index(slot)] = f"{DJ_TEXT}={card_str(suit * NUM_RANKS + slot)}"
        owners = [int(owner[r]) for r in ranks]
    else:
        rank = int(s.meld_rank[g, m])
        slots = [i for i in range(MAX_GROUP) if s.meld_suits[g, m] >> i & 1]
        slots += [i for i in range(GROUP_JOKER_SLOT, GROUP_JOKER_SLOT + MAX_GROUP) if owner[i] >= 0]
        names = [JOKER_TEXT if i >= GROUP_JOKER_SLOT else card_str(i * NUM_RANKS + rank) for i in slots]
        if s.dj[g, DJ_AT] == m and s.dj[g, DJ_SLOT] >= 0:
            names[slots.index(int(s.dj[g, DJ_SLOT]))] = DJ_TEXT
        owners = [int(owner[i]) for i in slots]
    double = {"double": True} if s.meld_double[g, m] else {}
    if s.meld_double[g, m] == SEALED:
        double["sealed"] = True
    return {"owner": int(s.meld_by[g, m]), "cards": names, "owners": owners, **double}
