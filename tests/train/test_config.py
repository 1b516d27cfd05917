"""Every preset composes into a valid configuration, and every YAML field is documented."""

from __future__ import annotations

import re

import pytest
from omegaconf import OmegaConf

from agents import make_agent
from experiments.cli import group_options
from experiments.train import check_options
from rummy_env import Rules

from .conftest import CONFIGS, compose_train

ENVS = group_options("env")
ALGOS = sorted(p.stem for p in (CONFIGS / "algo").glob("*.yaml"))
OPPONENTS = sorted(p.stem for p in (CONFIGS / "opponents").glob("*.yaml"))


def test_presets_exist():
    presets = ("default", "wikipedia", "no_jokers", "five_ten_fifteen", "three_players", "four_players", "six_players")
    for name in presets:
        assert name in ENVS
    assert {"ppo_card", "ppo_mlp"} <= set(ALGOS)
    assert {"random", "greedy", "strategic", "mixed", "selfplay", "shared"} <= set(OPPONENTS)


@pytest.mark.parametrize("env", ENVS)
def test_env_presets_compose_to_valid_rules(env):
    cfg = compose_train([f"env={env}"])
    rules = Rules.from_dict(OmegaConf.to_container(cfg.env.rules))
    assert cfg.env.name == env
    assert rules.replace(reward=cfg.train.reward).reward == "score"


def test_env_preset_values():
    wiki = compose_train(["env=wikipedia"]).env.rules
    assert Rules.from_dict(OmegaConf.to_container(wiki)) == Rules.preset("wikipedia")
    assert compose_train(["env=five_ten_fifteen"]).env.rules.card_values == "5-10-15"
    assert compose_train(["env=no_jokers"]).env.rules.jokers_per_deck == 0
    assert Rules.from_dict(OmegaConf.to_container(compose_train(["env=six_players"]).env.rules)).num_decks == 2


@pytest.mark.parametrize("algo", ALGOS)
@pytest.mark.parametrize("opponents", OPPONENTS)
def test_algo_and_opponent_presets_compose(algo, opponents):
    cfg = compose_train([f"algo={algo}", f"opponents={opponents}"])
    assert cfg.algo.policy in ("card", "mlp")
    assert cfg.opponents.name == opponents
    total = sum(cfg.opponents.heuristics.values()) + cfg.opponents.snapshot_weight + cfg.opponents.latest_weight
    assert cfg.opponents.shared_seats or total > 0


@pytest.mark.parametrize("opponents", OPPONENTS)
def test_every_pool_member_of_a_preset_is_an_agent(opponents):
    rules = Rules()
    for name in compose_train([f"opponents={opponents}"]).opponents.heuristics:
        assert make_agent(str(name), rules).name == name


def test_a_recipe_keeps_the_diverse_pools_noisy_members():
    pool = compose_train(["recipe=strong", "opponents=diverse"]).opponents
    assert pool.name == "diverse"
    assert pool.heuristics["noisy:0.1:strategic"] == 0.05 and pool.heuristics["noisy:0.1:greedy"] == 0.05


def test_a_misspelt_opponent_draw_is_refused_by_name():
    with pytest.raises(ValueError, match=r"opponents\.draw must be one of seat, table"):
        check_options(compose_train(["opponents.draw=game"]))


def test_command_line_style_overrides():
    cfg = compose_train(["env=four_players", "algo.learning_rate=1e-4", "train.steps=5e6"])
    assert cfg.env.rules.players == 4 and cfg.algo.learning_rate == 1e-4 and int(float(cfg.train.steps)) == 5_000_000


GROUPS = ("env", "algo", "opponents", "recipe")
APPS = ("train", "league", "expert_iteration")
OWN = [*(CONFIGS / f"{app}.yaml" for app in APPS), *sorted(p for g in GROUPS for p in (CONFIGS / g).glob("*.yaml"))]


@pytest.mark.parametrize("path", OWN, ids=lambda p: str(p.relative_to(CONFIGS)))
def test_every_field_is_documented(path):
    """Each ``key: value`` line carries a ``#`` comment (the defaults lists and the hydra block excepted)."""
    in_defaults = in_hydra = False
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        top = not line.startswith(" ")
        if top:
            in_defaults = line.startswith("defaults:")
            in_hydra = line.startswith("hydra:")
        if in_defaults or in_hydra or line.strip().startswith("- "):
            continue
        if re.match(r"^\s*[A-Za-z_][\w]*:\s*$", line):  # a section header: its children carry the comments
            continue
        assert "#" in line, f"{path.name}: undocumented field {line.strip()!r}"
