"""The table a checkpoint was trained for: ``experiments.train`` records its rules in the model it saves."""

from __future__ import annotations

from typing import Any

from rummy_env.rules import PRESETS, Rules

RULES_ATTR = "rummy_rules"  # model attribute saved with the checkpoint (SB3 keeps extra attributes)
NOT_TABLE = ("reward",)  # training settings, not the table: a policy plays any of them


def table_changes(rules: Rules, base: Rules | None = None) -> dict[str, Any]:
    """The fields of ``rules`` that differ from ``base`` (the defaults), the reward aside, in field order."""
    default = (base or Rules()).to_dict()
    return {k: v for k, v in rules.to_dict().items() if k not in NOT_TABLE and v != default[k]}


def table_id(rules: Rules, base: Rules | None = None) -> str:
    """A file-name tag for the table: ``""`` for ``base`` (the default rules), else e.g.
    ``players4-first_meld_minimum30``."""

    def tag(field: str, value: Any) -> str:
        if isinstance(value, bool):
            return field if value else f"no_{field}"
        return f"{field}{value}" if isinstance(value, int) else f"{field}_{value}"

    return "-".join(tag(k, v) for k, v in table_changes(rules, base).items())


def table_label(rules: Rules) -> str:
    """The table in words: ``the default rules``, ``env=persian`` (exactly a preset's rules) or
    ``rules.players=4 rules.first_meld_minimum=30``."""
    changes = table_changes(rules)
    if not changes:
        return "the default rules"
    preset = next((name for name in PRESETS if table_changes(Rules.preset(name)) == changes), None)
    return f"env={preset}" if preset else " ".join(f"rules.{k}={v}" for k, v in changes.items())


def record_rules(model: Any, rules: Rules) -> None:
    """Attach ``rules`` to a MaskablePPO model so that ``model.save`` writes them into the checkpoint."""
    setattr(model, RULES_ATTR, rules.to_dict())


def trained_rules(model: Any) -> Rules | None:
    """The rules recorded in a loaded checkpoint, or ``None`` for a model saved without them."""
    recorded = getattr(model, RULES_ATTR, None)
    return Rules.from_dict(recorded) if isinstance(recorded, dict) else None


def check_table(name: str, trained: Rules | None, rules: Rules) -> None:
    """Refuse (``ValueError`` naming both tables) a checkpoint trained for other rules than ``rules``."""
    if trained is not None and table_changes(trained) != table_changes(rules):
        raise ValueError(
            f"checkpoint {name!r} was trained for {table_label(trained)}, not {table_label(rules)}: "
            "evaluate or play it at the table it was trained for"
        )
