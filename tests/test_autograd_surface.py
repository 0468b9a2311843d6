"""The rest of autograd's public surface, scenario by scenario (tests/surface_scenarios.py):
gradient edges, the engine's entry points, the engine switches, gradcheck's modes and
helpers, and checkpointing. Each scenario's result on chainrule must equal the one
recorded from PyTorch 2.13 (tests/data/autograd_surface_expected.json) and, where torch
is installed, what torch gives now.

    python tests/test_autograd_surface.py   # re-record the results from torch
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import chainrule
import surface_scenarios
from autograd_cases import plain

RECORDED = Path(__file__).resolve().parent / "data" / "autograd_surface_expected.json"
SCENARIOS = [
    "gradient_edges",
    "batched_and_dict_grads",
    "versions_and_inference",
    "allow_mutation",
    "switches",
    "engine",
    "legacy_function",
    "gradcheck_modes",
    "gradcheck_helpers",
    "checkpointing",
    "checkpoint_recomputation",
]


def run(name: str, lib: Any) -> Any:
    """A scenario's result as JSON gives it back (tuples become lists)."""
    return json.loads(json.dumps(plain(getattr(surface_scenarios, name)(lib))))


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORDED.read_text())
    return data


@pytest.mark.parametrize("name", SCENARIOS)
def test_chainrule_gives_what_torch_gave(name: str, recorded: dict[str, Any]) -> None:
    assert run(name, chainrule) == recorded[name]


@pytest.mark.parametrize("name", SCENARIOS)
def test_torch_still_gives_the_recorded_result(
    name: str, recorded: dict[str, Any], torch: Any
) -> None:
    if torch.__version__.split("+")[0] != "2.13.0":
        pytest.skip("recorded from PyTorch 2.13")
    assert run(name, torch) == recorded[name]


def test_allow_mutation_keeps_no_state_after_the_block() -> None:
    graph = chainrule.autograd.graph
    with graph.allow_mutation_on_saved_tensors() as ctx:
        a = chainrule.ones(2, requires_grad=True)
        b = a.clone()
        out = (b * b).sum()
        assert len(ctx.original) == 2  # b, saved twice (as self and as other)
        b.mul_(2)
        assert len(ctx.cloned) == 2  # both copied before the write (mul_ saved its 2 since)
        out.backward()
        assert a.grad.tolist() == [2.0, 2.0]  # from b's value before the write
        del out  # the graph goes, and what it saved with it
        assert len(ctx.cloned) == 0
    # Outside the block, writing a saved tensor is an error again.
    c = a.clone()
    y = (c * c).sum()
    with chainrule.no_grad():
        c.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_forward_mode_jacobian_is_the_finite_difference_one() -> None:
    from chainrule.autograd._gradcheck_jacobians import numerical_jacobians
    from chainrule.autograd._gradcheck_modes import forward_jacobians

    x = chainrule.tensor([0.3, -1.2, 2.0], dtype=chainrule.float64, requires_grad=True)
    y = chainrule.tensor([0.7, 0.1], dtype=chainrule.float64, requires_grad=True)

    def f(a: Any, b: Any) -> Any:
        return (a[:2] * b).exp(), a.tanh().sum()

    _, forward = forward_jacobians(f, (x, y))
    numerical = numerical_jacobians(f, (x, y), [x, y], 1e-6)
    for row_f, row_n in zip(forward, numerical, strict=True):
        for jf, jn in zip(row_f, row_n, strict=True):
            assert jf.shape == jn.shape
            assert abs(jf - jn).max() < 1e-6


if __name__ == "__main__":
    torch = __import__("torch")
    RECORDED.write_text(json.dumps({n: run(n, torch) for n in SCENARIOS}, indent=1) + "\n")
    sys.exit(0)
