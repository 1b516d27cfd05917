"""A brute-force reading of docs/rules.md §3–§5 for small positions, used to cross-check the masks.

Scope: going_out="any", card_values="standard"; ace_around_corner via set_corner(). Card strings as in
docs/api.md; table melds as in state_dict ("JK=8H" in runs, "JK" in groups), in melding order.
"""

from __future__ import annotations

import collections
import functools
from itertools import combinations

RANKS = "A23456789TJQK"


def _rank(c: str) -> int:
    return RANKS.index(c[0]) + 1


def value(c: str, low_ace=False) -> int:
    """§2: 2-10 face value, J Q K 10, A 15 (1 when low in a run), joker 15."""
    if c == "JK" or c.startswith("JK="):
        return 15
    if c[0] == "A":
        return 1 if low_ace else 15
    return min(_rank(c), 10)


def patterns():
    """Every 3-card meld action: groups (suits in order C D H S), runs low to high."""
    pats = []
    for r in RANKS:
        for combo in combinations("CDHS", 3):
            pats.append(("group", [r + s for s in combo]))
    seq = list(RANKS) + ["A"]
    for s in "CDHS":
        for i in range(12):
            pats.append(("run", [seq[i] + s, seq[i + 1] + s, seq[i + 2] + s]))
        if _CORNER:
            pats.append(("run", ["K" + s, "A" + s, "2" + s]))
    return pats


_CORNER = False
PATTERNS = patterns()


def set_corner(flag: bool) -> None:
    """Switch the oracle to ace_around_corner=flag."""
    global _CORNER, PATTERNS
    _CORNER = bool(flag)
    PATTERNS = patterns()
    _reach.cache_clear()


def fillable(kind, cards, pool, obliged=None) -> bool:
    """Can `meld cards` be played from the multiset `pool` (jokers fill what is lacking; a group
    keeps a natural card), using the obliged card if one is given (it is in `pool`)?"""
    pool = collections.Counter(pool)
    present = [c for c in cards if pool[c] > 0]
    missing = 3 - len(present)
    if missing > pool["JK"] or (kind == "group" and missing == 3):
        return False
    if obliged is not None:
        return missing >= 1 if obliged == "JK" else obliged in cards
    return True


def _ident(c):
    return c[3:] if c.startswith("JK=") else c


def is_run(cards) -> bool:
    nat = [c for c in cards if c != "JK" and not c.startswith("JK=")]
    return any(c.startswith("JK=") for c in cards) or len({c[0] for c in nat}) > 1


def _ends(cards):
    """(low, high) cards that extend a run (None where it cannot grow); an ace is not both."""
    ids = [_ident(c) for c in cards]
    suit = ids[0][1]
    lo = _rank(ids[0])
    if _CORNER:  # K-A-2 allowed: ranks wrap, at most 13 distinct
        if len(ids) >= 13:
            return None, None
        return RANKS[(lo - 2) % 13] + suit, RANKS[(lo - 1 + len(ids)) % 13] + suit
    hi = 14 if (ids[-1][0] == "A" and len(ids) > 1) else _rank(ids[-1])
    low = RANKS[lo - 2] + suit if lo > 1 else None
    high = RANKS[hi] + suit if hi < 13 else "A" + suit if hi == 13 and lo != 1 else None
    return low, high


def run_ends(cards) -> set[str]:
    return {e for e in _ends(cards) if e}


def group_rank(cards) -> str:
    return next(c for c in cards if c != "JK")[0]


def group_takes(cards, card) -> bool:
    if len(cards) >= 4:
        return False
    if card == "JK":
        return True
    nat = [c for c in cards if c != "JK"]
    return card[0] == nat[0][0] and card[1] not in {c[1] for c in nat}


def fits_table(card, melds) -> bool:
    for m in melds:
        if is_run(m):
            if run_ends(m) and (card == "JK" or card in run_ends(m)):
                return True
        elif group_takes(m, card):
            return True
    return False


def _extend_run(m, ident, joker):
    _low, high = _ends(m)
    c = "JK=" + ident if joker else ident
    return m + [c] if ident == high else [c] + m  # an ace fitting both ends goes high


def placements(hand, melds, obliged=None, allow_layoff=True):
    """[(action, hand after, melds after)] for the melds and lay-offs playable from `hand`
    (only those using `obliged` when given). The earliest melded meld takes a lay-off."""
    hc = collections.Counter(hand)
    res = []
    for kind, cards in PATTERNS:
        if not fillable(kind, cards, hand, obliged):
            continue
        h2, new, pts = hc.copy(), [], 0
        for i, c in enumerate(cards):
            if h2[c] > 0:
                h2[c] -= 1
                new.append(c)
                pts += value(c, low_ace=(kind == "run" and i == 0))
            else:
                h2["JK"] -= 1
                new.append("JK=" + c if kind == "run" else "JK")
                pts += 15
        res.append(("meld " + " ".join(cards), list(h2.elements()), melds + [new], pts))
    if not allow_layoff:
        return res
    for c in [obliged] if obliged else sorted(hc):
        h2 = hc.copy()
        h2[c] -= 1
        h2 = list(h2.elements())
        if c == "JK":
            done = set()
            for i, m in enumerate(melds):
                if is_run(m):
                    for e in sorted(run_ends(m) - done):
                        done.add(e)
                        res.append(
                            (f"layoff JK as {e} run", h2, melds[:i] + [_extend_run(m, e, True)] + melds[i + 1 :], 15)
                        )
            ranks = set()
            for i, m in enumerate(melds):
                if not is_run(m) and len(m) < 4 and group_rank(m) not in ranks:
                    ranks.add(group_rank(m))
                    res.append(
                        (f"layoff JK as {group_rank(m)} group", h2, melds[:i] + [m + ["JK"]] + melds[i + 1 :], 15)
                    )
            continue
        for i, m in enumerate(melds):
            if is_run(m) and c in run_ends(m):
                grown = _extend_run(m, c, False)
                res.append(
                    (f"layoff {c} run", h2, melds[:i] + [grown] + melds[i + 1 :], value(c, low_ace=(grown[0] == c)))
                )
                break
        for i, m in enumerate(melds):
            if not is_run(m) and group_takes(m, c):
                res.append((f"layoff {c} group", h2, melds[:i] + [m + [c]] + melds[i + 1 :], value(c)))
                break
    return res


def can_finish(hand, melds, top) -> bool:
    """Can the turn still end: by going out (empty hand) or with a card that may be discarded
    (not a copy of the card taken alone from the top)?"""
    if not hand or any(c != top for c in hand):
        return True
    return any(can_finish(h2, m2, top) for _, h2, m2, _ in placements(hand, melds))


def _key(hand, melds):
    return tuple(sorted(hand)), tuple(tuple(m) for m in melds)


@functools.lru_cache(maxsize=200_000)
def _reach(hand, melds, need) -> bool:
    if need <= 0:
        return True
    if sum(value(c) for c in hand) < need:
        return False
    return any(
        pts >= need or _reach(*_key(h2, m2), need - pts)
        for _, h2, m2, pts in placements(list(hand), [list(m) for m in melds])
    )


def can_reach(hand, melds, need) -> bool:
    """Can further melds and lay-offs from `hand` add at least `need` points this turn?"""
    return _reach(*_key(hand, melds), need)


def _offered(placement, top, need):
    _, h2, m2, pts = placement
    return can_finish(h2, m2, top) and can_reach(h2, m2, need - pts)


def play_actions(hand, melds, top=None, obliged=None, allow_layoff=True, need=0, started=False) -> set[str]:
    """The play-phase mask (going_out="any"); `need` = points an opening turn still owes under
    first_meld_minimum (0 when opened); `started` = the turn has melded something already."""
    out = {p[0] for p in placements(hand, melds, obliged, allow_layoff) if _offered(p, top, need)}
    if obliged is None and (need <= 0 or not started):
        out |= {f"discard {c}" for c in set(hand) if c != top}
    return out


def draw_actions(
    hand, pile, melds, stock_n, take_top_requires_meld=False, take_requires_new_meld=False, need=0
) -> set[str]:
    """Draw-phase mask (`pile` bottom first)."""
    out = {"draw" if stock_n else "stop"}
    by_depth = pile[::-1]
    for d, card in enumerate(by_depth):
        taken = list(hand) + by_depth[: d + 1]
        top = card if d == 0 else None
        if d == 0 and not take_top_requires_meld:
            ok = can_finish(taken, melds, top)
        else:
            ok = any(_offered(p, top, need) for p in placements(taken, melds, card, not take_requires_new_meld))
        if ok:
            out.add(f"take {d}")
    return out


def callable_depths(pile, melds, mode="pile") -> set[int]:
    """Pile depths open to a "Rummy!" call (§5; docs/api.md "in one action without any hand card")."""
    by_depth = pile[::-1]
    out = set()
    for d, card in enumerate(by_depth):
        if mode == "last_discard" and d > 0:
            break
        ok = fits_table(card, melds)
        if mode == "pile" and not ok:
            ok = any(fillable(kind, cards, by_depth[: d + 1], card) for kind, cards in PATTERNS)
        if ok:
            out.add(d)
    return out


def call_layoffs(card, melds, need=0) -> set[str]:
    """§5 last_discard: the lay-offs of the called `card`, the caller's whole turn (so they alone
    must reach first_meld_minimum: `need` points)."""
    return {a for a, _, _, pts in placements([card], melds, card) if a.startswith("layoff") and pts >= need}


def call_depths_for(hand, pile, melds, depths, need=0, mode="pile") -> set[int]:
    """The callable depths a seat holding `hand` may call (first_meld_minimum: `need` points)."""
    by_depth = pile[::-1]
    if mode == "last_discard":
        return {d for d in depths if call_layoffs(by_depth[d], melds, need)}
    return {
        d
        for d in depths
        if any(_offered(p, None, need) for p in placements(list(hand) + by_depth[: d + 1], melds, by_depth[d]))
    }
