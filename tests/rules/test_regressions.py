"""Positions where the engine once went wrong, found by the random-play runs, each replayed through the public API."""

import rummy_env

RULES = dict(
    players=3,
    decks=2,
    jokers_per_deck=4,
    joker_mode="groups_only",
    take_top_requires_meld=True,
    take_requires_new_meld=True,
    rummy_calls="off",
    going_out="float_unplayable_discard",
    first_discard="player",
    direction=-1,
)

MELDS = [
    {"owner": 1, "cards": ["AC", "AD", "AH", "AS"], "owners": [0, 1, 1, 1]},
    {"owner": 0, "cards": ["JK", "JK", "JK", "JK"], "owners": [0, 0, 0, 0]},
    {"owner": 1, "cards": ["4S", "5S", "6S"], "owners": [1, 1, 1]},
    {"owner": 1, "cards": ["4C", "5C", "6C", "7C"], "owners": [1, 1, 1, 1]},
    {"owner": 2, "cards": ["6D", "7D", "8D"], "owners": [2, 2, 2]},
]
PILE = ["AH", "3C", "KH", "QS", "3C", "TS", "JK", "6D", "7C", "7D", "TC", "2S", "JD"]
STOCK = [
    "TH",
    "6H",
    "6C",
    "5D",
    "4H",
    "QD",
    "2H",
    "6S",
    "JS",
    "TD",
    "7S",
    "3S",
    "3H",
    "8S",
    "3D",
    "QS",
    "2D",
    "3H",
    "8D",
    "4H",
    "KC",
    "9S",
    "2S",
    "KD",
    "TS",
    "6H",
    "5C",
    "KC",
    "JK",
    "JH",
    "3D",
    "4D",
    "9C",
    "QC",
    "8C",
    "9C",
    "8H",
    "7H",
    "TD",
    "4D",
    "4S",
    "2C",
    "7S",
    "KS",
    "9H",
    "7H",
    "5S",
    "8S",
    "JK",
    "4C",
    "AD",
    "2H",
    "9S",
    "2D",
    "QH",
    "9H",
    "QC",
    "9D",
    "TC",
    "QH",
    "KS",
    "AS",
    "5H",
    "AC",
    "JC",
    "5D",
    "JS",
    "JC",
    "8C",
    "KH",
    "3S",
]


def _top_take_position(hand: list[str], stock: list[str]) -> rummy_env.raw_env:
    env = rummy_env.raw_env(**RULES)
    scenario = {
        "hands": [["2C", "8H"], hand, ["9D", "5H", "TH", "JH", "JK"]],
        "discard": PILE,
        "stock": stock,
        "melds": MELDS,
        "current_player": 1,
        "dealer": 1,
        "phase": "draw",
        "opened": [True, True, True],
    }
    env.reset(seed=0, options={"scenario": scenario})
    return env


def test_a_top_take_never_leaves_a_turn_without_moves():
    """Two decks: the only meld of the taken JD (JD QD KD) leaves the other JD, which may not be discarded (taken
    from the top this turn) nor laid off, so taking the top would leave the turn without a move: not offered.
    Found by tests/engine/test_invariants.py::test_slow_batched_thousands_of_games[15]."""
    env = _top_take_position(["JD", "QD", "KD"], STOCK)
    assert "take 0" not in env.legal_actions()
    assert "draw" in env.legal_actions()


def test_a_top_take_that_leaves_a_discard_is_offered():
    """The control: with one more card (TH) the meld JD QD KD leaves a card to discard, so the take is offered."""
    assert STOCK[0] == "TH"
    env = _top_take_position(["JD", "QD", "KD", "TH"], STOCK[1:])
    assert "take 0" in env.legal_actions()
    env.step(env.action_from_str("take 0"))
    assert env.legal_actions() == ["meld JD QD KD"]
