"""One door from rules to kernel: a rules configuration's spec, kernel spec and kernel reference are built once."""

from __future__ import annotations

import pytest

import rummy_env
from rummy_env import Rules
from rummy_env.engine import Engine
from rummy_env.engine.kernels.kernel_spec import kernel_spec
from rummy_env.engine.kernels.ref import kernel_spec_ref
from rummy_env.engine.spec import game_spec


@pytest.mark.parametrize("rules", [Rules(), Rules.preset("persian"), Rules(players=3, dealers_joker=True)])
def test_every_face_shares_one_spec_per_rules(rules):
    spec = game_spec(rules)
    same = Rules(**{name: getattr(rules, name) for name in rules.__dataclass_fields__})
    assert game_spec(same) is spec
    engine = Engine(same, num_games=2, seed=0)
    aec = rummy_env.env(rules=same).unwrapped
    assert engine.spec is spec and aec.engine.spec is spec
    assert kernel_spec(engine.spec) is kernel_spec(spec)
    assert engine._kspec is kernel_spec_ref(spec)


def test_a_derived_form_is_built_on_the_first_call_only():
    spec = game_spec(Rules(players=4))
    built = []

    def build(of):
        built.append(of)
        return object()

    first = spec.once(build)
    assert spec.once(build) is first and built == [spec]
