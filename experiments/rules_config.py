"""The rules options of every app, generated from ``rummy_env.Rules`` (one source, nothing copied into YAML).

Importing this module stores in Hydra's ConfigStore:

- ``env/default``: ``name`` and ``rules``, every ``Rules`` field at its default;
- ``env/<preset>``: each ``Rules.preset`` (``pagat``, ``persian``, ``dealers_gambit``, ...), its fields as
  ``Rules.preset`` gives them; the YAML presets of ``configs/env/`` build on ``default`` the Hydra way;
- ``rules/keep``: every ``Rules`` field as null, the ``rules`` overrides of the apps that take a preset and then
  ``rules.<field>=...`` over it (``evaluate``, ``play``): null keeps the preset's value.

``rules_from_config`` is the one way an app's config becomes ``Rules``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

from rummy_env.rules import PRESETS, Rules

ENV_GROUP = "env"
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


register()
