"""Write the golden playthroughs replayed by tests/engine/test_golden.py.

    python tests/golden/make_golden.py            # rewrite every tests/golden/<name>.txt
    python tests/golden/make_golden.py 2p_default # just one

Each file holds a header (rules dict, seed, policy) and one line per step:
the acting seat and its action string, then the public state after the step
(phase, agent to act, dealer, top of the pile, stock size, hand sizes, points
melded this hand, scores; the melds, the obliged card, floating players,
rewards and hand scores when they change or are present). The
policy is a deterministic seeded random choice among the legal action strings
(sorted), favouring melds, lay-offs, takes and calls so that games are short
and eventful. Regenerate only when a change of behaviour is intended, and
review the diff.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np

import rummy_env
from rummy_env import Rules
from rummy_env.rules import PRESETS

HERE = Path(__file__).resolve().parent

GAMES: dict[str, tuple[dict, int]] = {
    "2p_default": ({"players": 2, "target_score": 150}, 1),
    "3p_jokers": ({"players": 3, "jokers_per_deck": 2, "target_score": 120}, 2),
    "4p_corner_float": ({"players": 4, "ace_around_corner": True, "going_out": "float", "episode": "hand"}, 18),
    "5p_two_decks_last_discard": (
        {"players": 5, "decks": 2, "rummy_calls": "last_discard", "target_score": 100, "reward": "score"},
        4,
    ),
    "3p_min30_new_meld_reshuffle": (
        {
            "players": 3,
            "first_meld_minimum": 30,
            "take_requires_new_meld": True,
            "stock_exhausted": "reshuffle",
            "episode": "hand",
        },
        5,
    ),
    "3p_out_of_turn": ({"players": 3, "meld_out_of_turn": True, "first_meld_minimum": 30, "episode": "hand"}, 7),
    "3p_opening_draw2_play_out": (
        {
            "players": 3,
            "first_discard": "player",
            "stock_draw": 2,
            "next_dealer": "winner",
            "stock_exhausted": "play_out",
            "card_values": "ace_15",
            "seven_run_bonus": 500,
            "hand_size": 10,
            "target_score": 120,
        },
        2,
    ),
    "4p_counterclockwise": (
        {"players": 4, "direction": -1, "meld_out_of_turn": True, "first_discard": "player", "target_score": 100},
        3,
    ),
    "3p_add_to_winner_run4": (
        {"players": 3, "hand_scoring": "add_to_winner", "min_run": 4, "target_score": 150},
        31,
    ),
    "4p_partnership": ({"players": 4, "partnership": True, "target_score": 150}, 3),
    "4p_partnership_deals_bonuses": (
        {
            "players": 4,
            "partnership": True,
            "jokers_per_deck": 4,
            "joker_points": 20,
            "going_out_bonus": 25,
            "deals": 2,
            "final_bonus": 50,
            "reward": "score",
        },
        6,
    ),
    "4p_persian": (dict(PRESETS["persian"]), 53),
    "4p_dealers_gambit": ({**PRESETS["dealers_gambit"], "players": 4}, 1),
}
WEIGHTS = {"meld": 12, "layoff": 12, "rummy": 6, "take": 3}
MAX_STEPS = 3000


def _num(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def meld_text(meld: dict) -> str:
    """``0:6H,7H,JK=8H,9H/1``: the melder, then the cards, each laid-off card with its owner if different
    (``x2``: a doubled group of four, docs/rules.md §8.2, or a meld doubled by the dealer's joker, §8.8)."""
    owners = meld.get("owners") or [meld["owner"]] * len(meld["cards"])
    cards = [c if o == meld["owner"] else f"{c}/{o}" for c, o in zip(meld["cards"], owners, strict=True)]
    return f"{meld['owner']}:" + ",".join(cards) + ("x2" if meld.get("double") else "")


def state_line(env, memory: dict) -> str:
    """The public state of a raw env after a step, on one line.

    ``melds`` and ``hand_scores`` are written only when they changed since the
    previous line (``memory`` carries them from line to line).
    """
    sd = env.state_dict()
    melds = " ".join(meld_text(m) for m in sd["melds"]) or "-"
    n = len(sd["hands"])
    parts = [
        sd["phase"],
        f"to_act=p{sd['current_player']}",
        f"dealer=p{sd['dealer']}",
        f"pile[{len(sd['discard'])}]=" + (",".join(sd["discard"][-3:]) or "-"),
        f"stock={len(sd['stock'])}",
        "hands=" + ",".join(str(len(h)) for h in sd["hands"]),
        "melded=" + ",".join(map(str, sd["melded_points"])),
        "scores=" + ",".join(map(str, sd["scores"])),
    ]
    if "side_scores" in sd:
        parts.append("sides=" + ",".join(map(str, sd["side_scores"])))
    if melds != memory.get("melds"):
        parts.append("melds=" + melds)
    if sd["obliged"]:
        parts.append(f"obliged={sd['obliged']}")
    if sd["dealers_joker"] is not None:  # docs/rules.md §8.8: the power, then + used / ! blocked; the cards out of play
        dj = sd["dealers_joker"]
        parts.append(f"dj={dj['power'] or '-'}" + ("+" if dj["used"] else "") + ("!" if dj["blocked"] else ""))
        if sd["out_of_play"]:
            parts.append("out=" + ",".join(sd["out_of_play"]))
    if sd["phase"] == "lay_off_after_out":
        parts.append("asked=" + ",".join(f"p{q}" for q in sd["rummy_queue"]))
    if any(sd["floating"]):
        parts.append("floating=" + ",".join(f"p{p}" for p in range(n) if sd["floating"][p]))
    rewards = [float(env.rewards[f"player_{p}"]) for p in range(n)]
    if any(rewards):
        parts.append("rewards=" + ",".join(_num(r) for r in rewards))
    if sd["hand_scores"] is not None and sd["hand_scores"] != memory.get("hand_scores"):
        parts.append("hand_scores=" + ",".join(map(str, sd["hand_scores"])))
    memory.update(melds=melds, hand_scores=sd["hand_scores"])
    return " ".join(parts)


def step_line(step: int, seat: int, action: str, state: str) -> str:
    return f"{step:04d} p{seat} {action} | {state}"


def non_default(rules: Rules) -> dict:
    """The fields of ``rules`` that differ from the defaults (so new Rules fields leave old headers valid)."""
    defaults = Rules().to_dict()
    return {k: v for k, v in rules.to_dict().items() if v != defaults[k] or k == "players"}


def header(name: str, rules: dict, seed: int) -> list[str]:
    return [
        f"# golden playthrough {name} (regenerate: python tests/golden/make_golden.py {name})",
        "# rules: " + json.dumps(non_default(Rules.from_dict(rules)), sort_keys=True),
        f"# seed: {seed}",
        "# policy: seeded random over sorted legal action strings, weights " + json.dumps(WEIGHTS, sort_keys=True),
    ]


def play(name: str) -> list[str]:
    rules, seed = GAMES[name]
    env = rummy_env.raw_env(rules=Rules.from_dict(rules))
    env.reset(seed=seed)
    rng = random.Random(seed)
    lines = header(name, rules, seed)
    memory: dict = {}
    lines.append("# start: " + state_line(env, memory))
    for step in range(MAX_STEPS):
        if all(env.terminations.values()):
            break
        seat = int(env.agent_selection.rsplit("_", 1)[1])
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = sorted(env.action_to_str(int(a)) for a in np.flatnonzero(mask))
        action = rng.choices(legal, weights=[WEIGHTS.get(a.split()[0], 1) for a in legal])[0]
        env.step(env.action_from_str(action))
        lines.append(step_line(step, seat, action, state_line(env, memory)))
    else:
        raise RuntimeError(f"{name}: no game end within {MAX_STEPS} steps; pick another seed")
    return lines


def main(argv: list[str]) -> None:
    names = argv or list(GAMES)
    for name in names:
        lines = play(name)
        path = HERE / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        print(f"wrote {path} ({len(lines) - 5} steps, {path.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main(sys.argv[1:])
