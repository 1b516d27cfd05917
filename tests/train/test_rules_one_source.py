"""The apps' rules options come from ``rummy_env.Rules`` alone: every field is an option of every app, the presets
equal ``Rules.preset``, and one ``rules_from_config`` turns any app's config into ``Rules``."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from experiments.cli import app_help, check_overrides, group_options
from experiments.rules_config import rules_fields, rules_from_config
from rummy_env import Rules
from rummy_env.rules import PRESETS

from .conftest import CONFIGS

# app -> where its rules options live: over a preset (``rules.``) or inside it (``env.rules.``, the alias train uses)
APPS = {
    "train": "env.rules.",
    "distill": "env.rules.",
    "audit": "env.rules.",
    "train_rllib": "env.rules.",
    "evaluate": "rules.",
    "evaluate_search": "rules.",
    "play": "rules.",
    "dataset": "rules.",
}


def composed(app: str, overrides: list[str] | None = None):
    """``configs/<app>.yaml`` composed with ``overrides``."""
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(config_name=app, overrides=list(overrides or []))


@pytest.mark.parametrize("app", APPS)
def test_every_rules_field_is_an_option_of_every_app(app):
    cfg = composed(app)
    node = cfg.env.rules if APPS[app] == "env.rules." else cfg.rules
    assert list(node) == rules_fields()


@pytest.mark.parametrize("app", APPS)
def test_a_field_set_on_the_command_line_reaches_the_rules(app):
    """``meld_out_of_turn`` was the field the hand-copied YAML lists left out."""
    prefix = APPS[app]
    overrides = [f"{prefix}meld_out_of_turn=true", f"{prefix}players=3"]
    check_overrides(app, app, overrides)
    rules = rules_from_config(composed(app, overrides))
    assert rules.meld_out_of_turn is True and rules.players == 3


@pytest.mark.parametrize("name", ["default", *PRESETS])
def test_the_presets_are_rules_presets(name):
    want = Rules() if name == "default" else Rules.preset(name)
    assert rules_from_config(composed("train", [f"env={name}"])) == want
    assert rules_from_config(composed("evaluate", [f"env={name}"])) == want
    assert composed("train", [f"env={name}"]).env.name == name


def test_an_override_over_a_preset_is_kept_even_at_the_default_value():
    """``env=dealers_gambit rules.direction=1``: a field set to its default value still goes over the preset."""
    rules = rules_from_config(composed("evaluate", ["env=dealers_gambit", "rules.direction=1"]))
    assert rules == Rules.preset("dealers_gambit", direction=1)


def test_every_preset_is_an_env_option():
    assert {"default", *PRESETS} <= set(group_options("env"))


def test_a_misspelt_field_is_named():
    with pytest.raises(ValueError, match="did you mean 'meld_out_of_turn'"):
        check_overrides("evaluate", "evaluate", ["rules.meld_out_of_turm=true"])
    with pytest.raises(ValueError, match="playrs"):
        rules_from_config({"rules": {"playrs": 3}})


def test_help_lists_the_apps_own_groups_and_every_rules_field():
    """``python -m experiments.train --help`` names train's groups (not train_rllib's ``rllib``) and each field."""
    text = app_help("train")
    groups = text.split("== Configuration groups ==")[1].split("==")[0]
    assert "env:" in groups and "algo:" in groups and "rllib" not in groups and "rules:" not in groups
    assert "rllib:" in app_help("train_rllib").split("== Rules ==")[0]
    assert all(field in text.split("== Rules ==")[1] for field in rules_fields())
