"""PyTorch's rules for in-place writes, hooks, retain_grad and saved tensors, case by case
(tests/inplace_scenarios.py, tests/saved_scenarios.py): which writes into views raise
(views made without grad mode, views of leaves, views of split/unbind outputs), misuse
of retain_graph and of mark_dirty, the order hooks run in, where retain_grad's gradient
comes from after an in-place write, and what `_saved_*` and `saved_tensors` give.

Each case's outcome on chainrule must equal the one recorded from PyTorch 2.13
(tests/data/autograd_inplace_expected.json) and, where torch is installed, what torch
gives now.

    python tests/test_autograd_inplace_rules.py   # re-record the outcomes from torch
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import chainrule
import inplace_scenarios
import saved_scenarios
from autograd_cases import plain

RECORDED = Path(__file__).resolve().parent / "data" / "autograd_inplace_expected.json"
SCENARIOS = {
    "views_and_writes": inplace_scenarios.views_and_writes,
    "hooks_and_saved": saved_scenarios.hooks_and_saved,
    "saved_fields": saved_scenarios.saved_fields,
}


def run(name: str, lib: Any) -> Any:
    return json.loads(json.dumps(plain(SCENARIOS[name](lib))))


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORDED.read_text())
    return data


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_chainrule_gives_what_torch_gave(name: str, recorded: dict[str, Any]) -> None:
    got = run(name, chainrule)
    expected = recorded[name]
    assert set(got) == set(expected)
    for case in expected:
        assert got[case] == expected[case], case


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_torch_still_gives_the_recorded_outcomes(
    name: str, recorded: dict[str, Any], torch: Any
) -> None:
    if torch.__version__.split("+")[0] != "2.13.0":
        pytest.skip("recorded from PyTorch 2.13")
    assert run(name, torch) == recorded[name]


def test_the_cases_cover_raising_and_passing_writes(recorded: dict[str, Any]) -> None:
    outcomes = recorded["views_and_writes"]
    raised = [c for c, o in outcomes.items() if isinstance(o, list) and o[0] == "RuntimeError"]
    assert len(raised) >= 15 and len(outcomes) - len(raised) >= 5


if __name__ == "__main__":
    torch = __import__("torch")
    RECORDED.write_text(json.dumps({n: run(n, torch) for n in SCENARIOS}, indent=1) + "\n")
    sys.exit(0)
