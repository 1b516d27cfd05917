"""The rules options of every app, generated from ``rummy_env.Rules`` (one source, nothing copied into YAML).

Importing this module stores in Hydra's ConfigStore:

- ``env/default``: ``name`` and ``rules``, every ``Rules`` field at its default;
- ``env/<preset>``: each ``Rules.preset`` (``pagat``, ``persian``, ``dealers_gambit``, ...), its fields as
  ``Rules.preset`` gives them; the YAML presets of ``configs/env/`` build on ``default`` the Hydra way;
- ``rules/keep``: every ``Rules`` field as null, the ``rules`` overrides of the apps that take a preset and then
  ``rules.<field>=...`` over it (``evaluate``, ``play``): null keeps the preset's value.

``rules_from_config`` is the one way an app's config becomes ``Rules``. The ``table`` resolver
(``${table:${env.name},${env.rules}}``) names the table a run folder is filed under: the preset, and the fields
changed over it (``default-players3``), so a 3-player run is not filed beside the 2-player ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

from agents.checkpoints import table_id
from rummy_env.rules import PRESETS, Rules

ENV_GROUP = "env"
ENV_FOLDER = Path(__file__).resolve().parents[1] / "configs" / ENV_GROUP
KEEP = "keep"  # the option of the ``rules`` group that keeps every field of the preset


def rules_fields() -> list[str]:
    """The names of the ``Rules`` fields, in their order."""
    return list(Rules().to_dict())


def preset_node(name: str) -> dict[str, Any]:
    """The ``env/<name>`` config of a ``Rules`` preset (``default``: every field at its default)."""
    rules = Rules() if name == "default" else Rules.preset(name)
    return {"name": name, "rules": rules.to_dict()}


def register(store: ConfigStore | None = None) -> None:
    """Store ``env/default``, every ``env/<preset>`` and ``rules/keep`` in Hydra's ConfigStore."""
    store = store or ConfigStore.instance()
    for name in ("default", *PRESETS):
        store.store(group=ENV_GROUP, name=name, node=preset_node(name))
    store.store(group="rules", name=KEEP, node=dict.fromkeys(rules_fields()))


def stored_presets() -> list[str]:
    """The ``env`` options held in the ConfigStore (generated from ``Rules``)."""
    return sorted(name.removesuffix(".yaml") for name in ConfigStore.instance().list(ENV_GROUP))


def _plain(node: Any) -> dict[str, Any]:
    if node is None:
        return {}
    if isinstance(node, DictConfig):
        return dict(OmegaConf.to_container(node, resolve=True))  # type: ignore[arg-type]
    if not isinstance(node, Mapping):
        raise ValueError(f"rules: expected a mapping of Rules fields, got {node!r}")
    return dict(node)


def rules_from_config(cfg: Any, players: int | None = None) -> Rules:
    """``Rules`` from an app's config: the ``env`` preset's ``rules``, then each non-null field of a top-level
    ``rules`` (the apps that take overrides over a preset), then ``players`` when given (``play``'s shortcut).
    An unknown field or a bad value is a ``ValueError`` naming it."""
    get = cfg.get if hasattr(cfg, "get") else lambda key, default=None: getattr(cfg, key, default)
    fields = _plain((_plain(get("env", None)) or {}).get("rules"))
    fields.update({k: v for k, v in _plain(get("rules", None)).items() if v is not None})
    if players is not None:
        fields["players"] = players
    return Rules.from_dict(fields)


def run_table(preset: str, rules: Any) -> str:
    """The folder name of a run's table: ``preset`` (a ``Rules`` preset or a YAML env of ``configs/env/``), then
    the fields ``rules`` changes over it."""
    if preset in PRESETS:
        base = Rules.preset(preset)
    else:
        yaml = ENV_FOLDER / f"{preset}.yaml"
        base = Rules.from_dict(_plain(OmegaConf.load(yaml).get("rules")) if yaml.is_file() else {})
    changes = table_id(Rules.from_dict(_plain(rules)), base)
    return f"{preset}-{changes}" if changes else preset


register()
OmegaConf.register_new_resolver("table", run_table, replace=True)
