"""The array rules of hot ops (Primitive's `array_grads`) against their tensor rules.

A first-order backward runs an op's array rules where it has them; they must give
exactly what the tensor rules give: the same bits, dtype, shape and strides. A
watcher of the backward pass recomputes every such node's grad_inputs with the
tensor rules, on every line of the op table, in float32 and float64, for every
sample (so every broadcast pattern the table has).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chainrule
from chainrule._autograd.node import backward_watchers
from chainrule._backward.engine import validate_grads
from chainrule._ops.broadcasting import sum_to_shape
from chainrule._ops.op_node import OpNode
from chainrule._ops.primitive import declared
from op_table import OPS
from test_ops import CASES, DTYPES, as_tensors, float_inputs, sample_arrays, upstream

WITH_ARRAY_RULES = sorted({p.name for p in declared if p.array_grads is not None})
checked: dict[tuple[str, str], int] = {}


def _same(mine: chainrule.Tensor | None, theirs: chainrule.Tensor | None) -> bool:
    if mine is None or theirs is None:
        return mine is theirs
    a, b = mine._data, theirs._data
    return (
        a.dtype == b.dtype
        and a.shape == b.shape
        and (a.strides == b.strides or a.size <= 1)
        and np.array_equal(a, b, equal_nan=True)
    )


class Recheck:
    """A backward watcher: each node with array rules, recomputed with its tensor rules."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def __call__(self, node: Any, grad_outputs: Sequence[Any], grad_inputs: Sequence[Any]) -> None:
        if not isinstance(node, OpNode) or node._prim.array_grads is None:
            return
        expected = validate_grads(node, node._apply(list(grad_outputs), None))
        dtype = grad_outputs[0]._data.dtype.name
        checked[node.name(), dtype] = checked.get((node.name(), dtype), 0) + 1
        for i, (mine, theirs) in enumerate(zip(grad_inputs, expected, strict=True)):
            if not _same(mine, theirs):
                self.failures.append(f"{node.name()} input {i} ({dtype})")


def _run(op: Any, i: int, dtype: str) -> list[str]:
    recheck = Recheck()
    backward_watchers.append(recheck)
    try:
        ts = as_tensors(chainrule, sample_arrays(op, i), dtype)
        out = op.fn(*ts)
        outs = out if isinstance(out, tuple) else (out,)
        for o in outs:
            if isinstance(o, chainrule.Tensor) and o.requires_grad:
                g = chainrule.tensor(upstream(o.shape, seed=i).astype(o._data.dtype))
                chainrule.autograd.grad(o, float_inputs(ts), g, allow_unused=True)
    finally:
        backward_watchers.remove(recheck)
    return recheck.failures


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "i"), CASES)
def test_array_rules_match_the_tensor_rules(op: Any, i: int, dtype: str) -> None:
    assert _run(op, i, dtype) == []


def test_every_op_with_array_rules_is_checked() -> None:
    """The op table reaches every op that has array rules, in both dtypes."""
    for op, i in [(c.values[0], c.values[1]) for c in CASES]:
        for dtype in DTYPES:
            _run(op, i, dtype)
    missing = [
        (name, dtype)
        for name in WITH_ARRAY_RULES
        for dtype in DTYPES
        if (name, dtype) not in checked
    ]
    assert missing == []


def test_a_changed_rule_is_caught() -> None:
    """The check can fail: an array rule that rounds differently is reported."""
    sin = next(p for p in declared if p.name == "SinBackward0")
    saved = sin.array_grads
    sin.array_grads = (lambda g, n: np.multiply(g, np.cos(n._array("self")) + 1e-12),)
    try:
        op = next(o for o in OPS if o.name == "sin")
        assert _run(op, 0, "float64") == ["SinBackward0 input 0 (float64)"]
    finally:
        sin.array_grads = saved


def test_the_fast_and_tensor_paths_give_the_same_chain_gradient() -> None:
    """A long chain of hot ops: first order (array rules) equals create_graph's (tensor
    rules), bit for bit."""
    x = chainrule.linspace(-1, 1, 5, dtype=chainrule.float64, requires_grad=True)
    y = x
    for _ in range(50):
        y = (y * 1.001 + 1e-4).tanh().sin().exp().relu()
    fast = chainrule.autograd.grad(y.sum(), x, retain_graph=True)[0]
    recorded = chainrule.autograd.grad(y.sum(), x, create_graph=True)[0]
    assert np.array_equal(fast._data, recorded._data)


@settings(deadline=None)
@given(
    target=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
    lead=st.lists(st.integers(1, 3), max_size=2),
    widen=st.lists(st.integers(1, 3), min_size=3, max_size=3),
    transpose=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_array_sum_to_sums_as_sum_to_size(
    target: tuple[int, ...],
    lead: list[int],
    widen: list[int],
    transpose: bool,
    dtype: type,
) -> None:
    # The engine undoes broadcasting on arrays as sum_to_size does on tensors: the same
    # bits, shape and strides.
    shape = (*lead, *(w if s == 1 else s for s, w in zip(target, widen, strict=False)))
    g = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    if transpose and g.ndim >= 2:
        g = np.ascontiguousarray(g.T).T  # the same values, laid out by columns
    got = sum_to_shape(g, target)
    want = chainrule.Tensor._make(g).sum_to_size(target)._data
    assert got is not None
    assert got.shape == want.shape and got.strides == want.strides and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()


def test_array_sum_to_leaves_what_does_not_broadcast_to_validate_grads() -> None:
    assert sum_to_shape(np.zeros((2, 3)), (4,)) is None
    assert sum_to_shape(np.zeros(3), (2, 3)) is None
