"""Assumptions: one source of truth (each field's Fact), checked when built, hashable."""

from __future__ import annotations

import dataclasses
import math
import pickle
import re

import pytest

from planner.assumptions import Assumptions, FrozenMap, Network, facts
from planner.cli import build_parser, scenario_from_args


def test_a_negative_price_or_a_non_finite_number_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match=r"licence_usd_per_gpu_year .* from 0 to 100000"):
        Assumptions(licence_usd_per_gpu_year=-1.0)
    with pytest.raises(ValueError, match=r"pue .* from 1 to 3"):
        Assumptions(pue=math.nan)
    with pytest.raises(ValueError, match=r"latency_us"):
        Network(latency_us=math.inf)
    with pytest.raises(ValueError, match=r"gpu_price_usd\[L4\]"):
        Assumptions(gpu_price_usd={"L4": -5.0})


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        (-1.0, "at least 1 [multiplier], got -1.0"),
        (math.nan, "at least 1 [multiplier], got nan"),
        ("abc", "must be a number [multiplier], got 'abc'"),
        ("3", "must be a number [multiplier], got '3'"),
        (True, "must be a number [multiplier], got True"),
    ],
)
def test_a_performance_constant_override_out_of_range_or_not_a_number_is_refused_when_built(
    value: object, rule: str
) -> None:
    """An override of a slowdown-model constant is checked against that constant's range and
    unit when the assumptions are built, as every other assumption is; it was only refused when
    a model ran."""
    with pytest.raises(
        ValueError, match=rf"performance constant 'no_rdma_factor' .*{re.escape(rule)}"
    ):
        Assumptions(performance_constants={"no_rdma_factor": value})
    assert Assumptions(performance_constants={"no_rdma_factor": 3}).performance_constants == {
        "no_rdma_factor": 3.0
    }


def test_setting_an_unknown_performance_constant_names_the_known_ones() -> None:
    """``with_facts`` refuses an override naming no model's constant, listing the known ones."""
    with pytest.raises(ValueError, match=r"unknown performance constant 'typo'.*no_rdma_factor"):
        Assumptions().with_facts({"performance_constants": {"typo": 1.0}})


def test_assumptions_are_hashable_and_their_mappings_immutable() -> None:
    given = Assumptions(gpu_price_usd={"L4": 2000.0}, performance_constants={"no_rdma_factor": 3})
    same = Assumptions(performance_constants={"no_rdma_factor": 3}, gpu_price_usd={"L4": 2e3})
    assert hash(given) == hash(same)
    assert pickle.loads(pickle.dumps(given)) == given
    assert hash(Assumptions()) == hash(Assumptions())
    assert isinstance(given.gpu_price_usd, FrozenMap)
    with pytest.raises(TypeError):
        given.gpu_price_usd["L4"] = 1.0  # type: ignore[index]
    assert given.gpu_price_usd == {"L4": 2000.0}


def test_every_fact_has_a_unit_a_meaning_and_a_default_in_its_range() -> None:
    for name, about, value in facts(Assumptions()):
        assert about.unit, name
        assert about.meaning, name
        about.checked(name, value)
        if isinstance(value, float):
            assert about.minimum is not None, name
            assert about.maximum is not None, name


def test_with_facts_sets_nested_assumptions_and_checks_them() -> None:
    changed = Assumptions().with_facts({"pue": 1.2, "network.latency_us": 40.0})
    assert (changed.pue, changed.network.latency_us) == (1.2, 40.0)
    assert changed.network.bandwidth_gbps == Network().bandwidth_gbps
    with pytest.raises(ValueError, match="bandwidth_gbps"):
        Assumptions().with_facts({"network.bandwidth_gbps": 0.0})


def test_the_cli_offers_every_flagged_assumption_with_its_default_and_meaning() -> None:
    """The CLI's options are made from the Facts: each flag exists and shows its meaning and
    the dataclass default, which a plan without the option takes; the option itself is None
    unless given, so that one given at its default value is known as given."""
    parser = build_parser()
    plan = next(
        a for a in parser._subparsers._group_actions[0].choices.values()  # type: ignore[union-attr]
        if a.prog.endswith(" plan")
    )  # fmt: skip
    options = {flag: action for action in plan._actions for flag in action.option_strings}
    flagged = [(n, f, v) for n, f, v in facts(Assumptions()) if f.flag is not None]
    assert len(flagged) >= 14
    for name, about, value in flagged:
        action = options[about.flag]  # type: ignore[index]
        default = value.value if hasattr(value, "value") else value
        shown = f"default: {'yes' if default else 'no'}" if isinstance(default, bool) else default
        assert f"({shown})" in (action.help or ""), name
        assert action.default is None, name
        assert about.meaning.replace("%", "%%") in (action.help or ""), name
    assert scenario_from_args(parser.parse_args(["plan"]))[0].assumptions == Assumptions()
    assert dataclasses.is_dataclass(Assumptions())
