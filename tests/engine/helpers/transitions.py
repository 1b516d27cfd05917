"""``TransitionChecker``: one step of a game checked against docs/rules.md and docs/api.md, independently of
the mask; the action kinds it counts."""

from __future__ import annotations

import collections

import numpy as np

from rummy_env import Rules

from .oracle import (
    PHASES,
    MeldScorer,
    acting_seat,
    assert_cards_conserved,
    by_side,
    check_action_plausible,
    dealt_hand_size,
    declared,
    expected_game_winner,
    four_aces_completion,
    hand_gains,
    hand_value,
    is_run,
    placement_effect,
    rules_double,
    score_rewards,
    side_rewards,
    win_rewards,
)


# --------------------------------------------------------------------------- the transition checker
class TransitionChecker:
    """Checks one step ``prev --action--> new`` of a game against docs/rules.md and docs/api.md, independently of the
    mask.

    Feed it every step of a game (from the deal or from any scenario start with
    ``from_deal=False``); it keeps the running meld scorer.
    """

    def __init__(self, rules: Rules, first: dict, from_deal: bool = True) -> None:
        self.rules = rules
        self.n = rules.players
        self.scorer = MeldScorer(rules)
        self.scorer.update(first["melds"])
        self.hands_ended = 0
        self.game_over = False
        self.kinds_seen: collections.Counter = collections.Counter()
        self.turn_new = set(first.get("turn_melds") or [])
        # melded_points beyond the melds' owners: lay-offs after going out score for nobody (add_to_winner),
        # and a seven-run bonus is booked when its player goes out into those lay-offs
        mine = self.scorer.points(first["melds"], self.n)
        self.extra = [m - p for m, p in zip(first["melded_points"], mine, strict=True)]
        self.check_state(first, "start")
        if from_deal:
            self.check_fresh_deal(first)

    def check_fresh_deal(self, sd: dict) -> None:
        size = dealt_hand_size(self.rules)
        first = self.rules.seat_after(sd["dealer"])
        self.turn_new: set[int] = set()
        if self.rules.dealers_joker:  # docs/rules.md §8.8: the dealer names the power first, blind
            assert sd["phase"] == "power" and sd["current_player"] == sd["dealer"], sd["phase"]
            assert sd["dealers_joker"] == {"power": None, "used": False, "blocked": False}
            assert sd["out_of_play"] == [], sd["out_of_play"]
            sd = {**sd, "phase": "opening" if self.rules.first_discard == "player" else "draw", "current_player": first}
        if self.rules.first_discard == "player":  # docs/rules.md §8.4: one extra card to the first player, no pile card
            want = [size + (p == first) for p in range(self.n)]
            assert [len(h) for h in sd["hands"]] == want, [len(h) for h in sd["hands"]]
            assert sd["discard"] == [] and sd["melds"] == [] and sd["phase"] == "opening"
        else:
            assert [len(h) for h in sd["hands"]] == [size] * self.n, [len(h) for h in sd["hands"]]
            assert len(sd["discard"]) == 1 and sd["melds"] == [] and sd["phase"] == "draw"
        assert sd["current_player"] == first
        assert sd["melded_points"] == [0] * self.n

    def track_turn_melds(self, prev: dict, action: str) -> None:
        """The melds the actor put down since their turn began (docs/rules.md §8.7 seven_run_bonus)."""
        if prev["phase"] in ("draw", "rummy", "opening", "out_of_turn"):  # a turn (or a caller's turn) starts
            self.turn_new = set()
        if "turn_melds" in prev:
            assert sorted(prev["turn_melds"]) == sorted(self.turn_new), (
                f"turn_melds {prev['turn_melds']} != {sorted(self.turn_new)} before {action!r}"
            )
        if action.startswith("meld") and prev["phase"] != "out_of_turn":  # out of turn is nobody's turn
            self.turn_new.add(len(prev["melds"]))

    def seven_run(self, prev: dict) -> bool:
        """A run of 7 or more cards put down this turn (a new run plus lay-offs onto it)."""
        melds = prev["melds"]
        return any(i < len(melds) and is_run(melds[i]["cards"]) and len(melds[i]["cards"]) >= 7 for i in self.turn_new)

    def check_state(self, sd: dict, where: str) -> None:
        assert sd["phase"] in PHASES, where
        assert_cards_conserved(sd, self.rules, where)
        self.scorer.update(sd["melds"])
        for meld in sd["melds"]:
            if self.rules.joker_mode == "groups_only" and "JK" in meld["cards"]:
                assert set(meld["cards"]) == {"JK"}, f"{where}: jokers are not wild: {meld}"
            if meld.get("sealed"):  # docs/rules.md §8.8: doubled by the dealer's joker, nothing laid off on it
                # a new run, or a group of three (of four under four_of_a_kind_double: `meld TC TD TH TS double`)
                groups = {3, 4} if self.rules.four_of_a_kind_double else {3}
                sizes = {self.rules.min_run} if is_run(meld["cards"]) else groups
                assert self.rules.dealers_joker and meld.get("double") and len(meld["cards"]) in sizes, (
                    f"{where}: {meld}"
                )
            elif meld.get("double"):
                assert self.rules.four_of_a_kind_double and len(meld["cards"]) == 4, f"{where}: {meld}"
        if sd["phase"] != "game_over":
            mine = [p + e for p, e in zip(self.scorer.points(sd["melds"], self.n), self.extra, strict=True)]
            assert mine == sd["melded_points"], f"{where}: melded_points {sd['melded_points']} != {mine} from melds"
        for p, known in enumerate(sd["known"]):
            assert not (collections.Counter(known) - collections.Counter(sd["hands"][p])), (
                f"{where}: known[{p}]={known} not in hand {sd['hands'][p]}"
            )
        if not self.rules.floating and sd["phase"] not in ("game_over", "lay_off_after_out"):
            assert all(sd["hands"]), f"{where}: an empty hand outside floating: {sd['hands']}"
        if sd["phase"] == "lay_off_after_out":  # docs/rules.md §8.7: the others lay off, from the winner's left
            queue, out = sd["rummy_queue"], sd["current_player"]
            assert self.rules.hand_scoring == "add_to_winner" and queue and out not in queue, where
            assert not sd["hands"][out] and sd["hands"][queue[0]] and sd["discarder"] == out, where
            order = sorted(queue, key=lambda q: ((q - out) * self.rules.direction) % self.n)
            assert queue == order, f"{where}: queue {queue} out of order"
        if sd["phase"] in ("rummy", "out_of_turn"):
            assert sd["rummy_queue"] and sd["rummy_queue"][0] == sd["current_player"], where
            assert sd["current_player"] != sd["discarder"], where
        if sd["phase"] == "out_of_turn":
            assert self.rules.meld_out_of_turn and sd["hands"][sd["current_player"]], where

    def step(self, prev: dict, actor: int, action: str, rewards: list[float], new: dict, step_no: int) -> None:
        rules, n = self.rules, self.n
        where = f"step {step_no}: player_{actor} {action!r}"
        self.kinds_seen[action_kind(action)] += 1
        assert acting_seat(prev) == actor, where
        self.track_turn_melds(prev, action)
        check_action_plausible(prev, actor, action, rules)
        assert abs(sum(rewards)) < 1e-5, f"{where}: rewards {rewards} do not sum to zero"
        melded = [p + e for p, e in zip(self.scorer.points(prev["melds"], n), self.extra, strict=True)]
        new_hand = new["hand_no"] != prev["hand_no"] or (new["phase"] == "game_over")
        placed = placement_effect(prev, actor, action, rules)
        window = prev["phase"] == "lay_off_after_out"
        if window and placed is not None:  # laid off before the count: it scores for nobody
            self.extra[actor] -= placed[1]
        if new["phase"] == "lay_off_after_out" and not window and action.startswith("discard"):
            self.extra[actor] += rules.seven_run_bonus * self.seven_run(prev)
        if new_hand:
            self.extra = [0] * n
        self.check_state(new, where)

        if not new_hand:
            self.check_effect(prev, actor, action, new, placed, where)
            assert new["scores"] == prev["scores"], where
            assert rewards == [0.0] * n, f"{where}: non-zero rewards {rewards} in the middle of a hand"
            if not rules.floating and action.startswith(("discard", "meld", "layoff")):
                out_window = new["phase"] == "lay_off_after_out"
                assert new["hands"][actor] or actor != new["current_player"] or out_window, where
            return

        # ---- the hand ended on this step
        self.hands_ended += 1
        after = collections.Counter(prev["hands"][actor])
        gained = 0
        if placed is not None:
            after -= collections.Counter(placed[0])
            gained = placed[1]
        elif action.startswith("discard"):
            after[action.split()[1]] -= 1
        elif not window:
            assert action == "stop", f"{where}: a hand can only end by going out or by 'stop'"
            assert rules.stock_exhausted != "play_out", f"{where}: under play_out only going out ends a hand"
        after = +after
        went_out = None
        if window:  # the last lay-off (or pass) before the count of add_to_winner
            went_out, gained = prev["current_player"], 0
        elif action != "stop":
            assert not after, f"{where}: the hand ended but player_{actor} still holds {sorted(after.elements())}"
            went_out = actor
        melded[actor] += gained
        for owner, extra in four_aces_completion(prev, actor, action, rules).items():
            melded[owner] += extra
        hands = [collections.Counter(h) for h in prev["hands"]]
        hands[actor] = after
        penalty = not (went_out is None and rules.stock_exhausted == "end_no_penalty")  # docs/rules.md §8.7
        left = [penalty * hand_value(hands[p].elements(), rules) for p in range(n)]
        gains = hand_gains(rules, left, went_out)
        expected = [melded[p] + gains[p] for p in range(n)]
        if went_out is not None and action.startswith("discard") and self.seven_run(prev):
            expected[went_out] += rules.seven_run_bonus  # docs/rules.md §8.7: the Master Rummy hand
        if went_out is not None:
            expected[went_out] += rules.going_out_bonus
        winner = None
        if rules.episode == "game":
            totals = [prev["scores"][p] + expected[p] for p in range(n)]
            winner = expected_game_winner(totals, went_out, rules, prev["hands_played"] + 1)
            if winner is not None:
                expected[winner] += rules.final_bonus
        assert new["hand_scores"] == expected, (
            f"{where}: hand_scores {new['hand_scores']}, expected melded {melded} minus in hand = {expected}"
        )
        totals = [prev["scores"][p] + expected[p] for p in range(n)]
        assert new["scores"] == totals, f"{where}: scores {new['scores']} != {prev['scores']} + {expected}"

        want = [0.0] * n
        if rules.reward == "score":
            want = score_rewards(expected)
            if rules.partnership:
                sides = by_side(rules, expected)
                want = [(sides[p % 2] - sides[1 - p % 2]) / 100.0 for p in range(n)]
        if rules.episode == "hand":
            assert new["phase"] == "game_over", where
            if rules.reward == "win":
                want = side_rewards(rules, by_side(rules, expected)) if rules.partnership else win_rewards(expected, n)
        else:
            assert new["hands_played"] == prev["hands_played"] + 1, where
            if winner is None:
                assert new["phase"] != "game_over", f"{where}: game over with scores {totals}"
                dealer = rules.seat_after(prev["dealer"])  # docs/rules.md §8.8: direction -1 passes it the other way
                if rules.next_dealer == "winner" and went_out is not None:
                    dealer = went_out
                why = "docs/rules.md §1, §8.4"
                assert new["dealer"] == dealer, f"{where}: dealer {new['dealer']}, expected {dealer} ({why})"
                self.check_fresh_deal(new)
            else:
                assert new["phase"] == "game_over", f"{where}: player_{winner} should have won with {totals}"
                if rules.reward == "win" and rules.partnership:
                    want = [1.0 if p % 2 == winner else -1.0 for p in range(n)]
                elif rules.reward == "win":
                    want = [1.0 if p == winner else -1.0 / (n - 1) for p in range(n)]
        if new["phase"] == "game_over":
            self.game_over = True
        assert np.allclose(rewards, want, atol=1e-5), f"{where}: rewards {rewards}, expected {want}"

    def check_effect(self, prev: dict, actor: int, action: str, new: dict, placed, where: str) -> None:
        """What the action did to the cards, for a step that did not end the hand."""
        words = action.split()
        verb = words[0]
        before, after = collections.Counter(prev["hands"][actor]), collections.Counter(new["hands"][actor])
        reshuffled = self.rules.stock_exhausted == "reshuffle" and len(new["stock"]) > len(prev["stock"])
        if verb == "draw":
            drawn = prev["stock"][: self.rules.stock_draw]  # docs/rules.md §8.3: two cards (the last one alone)
            assert after - before == collections.Counter(drawn) and not before - after, where
            if not reshuffled:
                assert new["stock"] == prev["stock"][len(drawn) :], where
        elif verb == "skip":
            assert after == before and new["phase"] == "play" and new["discard"] == prev["discard"], where
        elif verb in ("take", "rummy"):
            depth = int(words[1])
            taken = prev["discard"][len(prev["discard"]) - 1 - depth :]
            assert after - before == collections.Counter(taken) and not before - after, where
            assert new["discard"] == prev["discard"][: len(prev["discard"]) - 1 - depth], where
            assert not collections.Counter(taken) - collections.Counter(new["known"][actor]), (
                f"{where}: cards taken from the pile must be known: {taken} vs {new['known'][actor]}"
            )
            play_out = self.rules.stock_exhausted == "play_out" and not prev["stock"]  # every take obliges
            if verb == "rummy" or depth > 0 or self.rules.take_top_requires_meld or play_out:
                assert new["obliged"] == taken[0], f"{where}: obliged {new['obliged']}, expected {taken[0]}"
            else:
                assert new["obliged"] is None and new["top_taken"] == taken[0], where
        elif verb == "discard":
            card = words[1]
            assert before - after == collections.Counter([card]) and not after - before, where
            if reshuffled:
                assert new["discard"] == [card], where
            else:
                assert new["discard"] == prev["discard"] + [card], where
            assert new["current_player"] != actor or new["phase"] == "lay_off_after_out", where
            if prev["phase"] == "opening":  # docs/rules.md §8.4: no "Rummy!" window after the opening discard
                assert new["phase"] == "draw" and new["current_player"] == self.rules.seat_after(actor), where
            self.check_turn_order(actor, new, where)
        elif verb in ("meld", "layoff"):
            used, _ = placed
            assert before - after == collections.Counter(used) and not after - before, (
                f"{where}: hand {sorted(before.elements())} -> {sorted(after.elements())}, expected to use {used}"
            )
            if verb == "meld":
                assert len(new["melds"]) == len(prev["melds"]) + 1, where
                meld = new["melds"][-1]
                want = [w for w in words[1:] if w != "double"]  # docs/rules.md §8.8: doubled by the dealer's joker
                assert bool(meld.get("sealed")) == (words[-1] == "double"), f"{where}: {meld}"
                if is_run(meld["cards"]):
                    got = ["DJ" if c.startswith("DJ=") else declared(c) for c in meld["cards"]]
                    assert got == want, f"{where}: new meld {meld}"
                else:
                    naturals = [c for c in meld["cards"] if c not in ("JK", "DJ")]
                    assert set(naturals) <= set(want) and len(meld["cards"]) == len(want), f"{where}: new meld {meld}"
                    double = rules_double(self.rules, want) or words[-1] == "double"
                    assert bool(meld.get("double")) == double, f"{where}: {meld}"
                assert all(o == actor for o in new["melds"][-1]["owners"]), where
            else:
                grown = [
                    i
                    for i, (a, b) in enumerate(zip(prev["melds"], new["melds"], strict=False))
                    if len(b["cards"]) == len(a["cards"]) + 1
                ]
                assert len(new["melds"]) == len(prev["melds"]) and len(grown) == 1, where
        elif verb == "pass":
            assert new["hands"] == prev["hands"], where
            assert new["discard"] == (prev["discard"][-1:] if reshuffled else prev["discard"]), where
            self.check_turn_order(prev["discarder"], new, where)
        elif verb in ("power", "split", "block"):
            self.check_gambit_effect(prev, words, before, after, new, where)
        elif verb == "stop":
            raise AssertionError(f"{where}: 'stop' must end the hand")

    def check_gambit_effect(self, prev: dict, words: list[str], before, after, new: dict, where: str) -> None:
        """docs/rules.md §8.8: naming the power, a split (the cards above leave play), a block (both jokers
        leave play)."""
        out = collections.Counter(new["out_of_play"]) - collections.Counter(prev["out_of_play"])
        if words[0] == "power":
            assert new["hands"] == prev["hands"] and new["dealers_joker"]["power"] == words[1], where
            assert new["current_player"] == self.rules.seat_after(prev["dealer"]), where
            assert new["phase"] == ("opening" if self.rules.first_discard == "player" else "draw"), where
        elif words[0] == "split":
            depth, pile = int(words[1]), prev["discard"]
            taken = pile[len(pile) - 1 - depth]
            assert after - before == collections.Counter([taken]) and not before - after, where
            assert new["discard"] == pile[: len(pile) - 1 - depth], where
            assert out == collections.Counter(pile[len(pile) - depth :]), f"{where}: out of play {out}"
            assert new["obliged"] == taken and new["dealers_joker"]["used"], where
        else:
            assert before - after == collections.Counter(["JK"]) and not after - before, where
            assert out == collections.Counter(["JK", "JK"]) and new["dealers_joker"]["blocked"], where

    def check_turn_order(self, discarder: int, new: dict, where: str) -> None:
        """After a discard (or a pass in its windows): the windows ask, and the next turn goes, in the direction of
        play from the discarder (docs/rules.md §1, §5, §8.6, §8.8)."""
        if new["phase"] == "draw":
            assert new["current_player"] == self.rules.seat_after(discarder), f"{where}: next turn {new}"
        elif new["phase"] in ("rummy", "out_of_turn"):
            turns = [
                next(j for j in range(1, self.n) if self.rules.seat_after(discarder, j) == q)
                for q in new["rummy_queue"]
            ]
            assert turns == sorted(turns) and new["discarder"] == discarder, f"{where}: queue {new['rummy_queue']}"


def action_kind(action: str) -> str:
    words = action.split()
    if words[0] == "meld" and ("DJ" in words or words[-1] == "double"):  # docs/rules.md §8.8
        return "meld DJ" if "DJ" in words else "meld double"
    if words[0] == "layoff":
        return f"layoff {words[1]} {words[-1]}" if words[1] in ("JK", "DJ") else "layoff " + words[-1]
    return words[0]


ALL_ACTION_KINDS = (
    "draw",
    "stop",
    "take",
    "meld",
    "layoff run",
    "layoff group",
    "layoff JK run",
    "layoff JK group",
    "discard",
    "rummy",
    "pass",
)
