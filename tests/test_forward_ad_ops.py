"""Forward mode for every op of tests/op_table.py: tangents, and tangents of gradients.

A tangent `J t` is checked against reverse mode through the identity
`<u, J t> = <J^T u, t>` for random `u` and `t` (reverse mode itself is checked by
gradcheck in test_ops.py), against torch's forward mode where torch has one, and
to second order: the tangent of a gradient (forward-over-reverse) must equal the
Hessian-vector product that double backward gives.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

import chainrule
import chainrule.autograd.forward_ad as fwad
from chainrule.autograd import grad
from op_table import OPS, Op
from test_ops import CASES, as_tensors, numpy_of, sample_arrays

# Ops that pass values through float32: tangent and gradient are rounded differently.
ROUNDS_TO_FLOAT32 = {"float_method"}


def _rng(op: Op, i: int) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"tangent-{op.name}-{i}".encode()))


def _tangents(op: Op, i: int, arrays: list[np.ndarray]) -> list[np.ndarray | None]:
    rng = _rng(op, i)
    return [None if a.dtype == np.bool_ else rng.uniform(-1, 1, a.shape) for a in arrays]


def _forward(lib: Any, op: Op, arrays: list[np.ndarray], tangents: list[Any], **kw: Any) -> Any:
    """The op's output and its tangent, computed in one forward pass of `lib`."""
    ts = as_tensors(lib, arrays, "float64")
    ts = [t.detach().requires_grad_(kw.get("requires_grad", False)) for t in ts]
    with lib.autograd.forward_ad.dual_level():
        duals = [
            t if tan is None else lib.autograd.forward_ad.make_dual(t, lib.tensor(tan))
            for t, tan in zip(ts, tangents, strict=True)
        ]
        out = op.fn(*duals)
        primal, tangent = lib.autograd.forward_ad.unpack_dual(out)
    return ts, primal, tangent


@pytest.mark.parametrize(("op", "i"), CASES)
def test_tangent_is_the_transpose_of_the_gradient(op: Op, i: int) -> None:
    arrays = sample_arrays(op, i)
    tangents = _tangents(op, i, arrays)
    _, primal, tangent = _forward(chainrule, op, arrays, tangents)
    np.testing.assert_allclose(numpy_of(primal), np.asarray(op.ref(*arrays)), rtol=1e-10)
    if not primal.is_floating_point():
        assert tangent is None
        return
    assert tangent is not None and tangent.shape == primal.shape
    assert tangent.dtype == primal.dtype
    jt = numpy_of(tangent)
    ts = as_tensors(chainrule, arrays, "float64")
    out = op.fn(*ts)
    floats = [t for t in ts if t.is_floating_point()]
    for seed in range(2):
        u = _rng(op, i + 100 * (seed + 1)).uniform(-1, 1, tuple(out.shape))
        grads = grad(out, floats, chainrule.tensor(u), retain_graph=True, allow_unused=True)
        lhs = float(np.sum(u * jt))
        rhs = sum(
            float(np.sum(numpy_of(g) * tan))
            for g, tan in zip(grads, [t for t in tangents if t is not None], strict=True)
            if g is not None
        )
        rel = 1e-5 if primal.dtype != chainrule.float64 or op.name in ROUNDS_TO_FLOAT32 else 1e-9
        assert lhs == pytest.approx(rhs, rel=rel, abs=rel * 1e-2)


@pytest.mark.parametrize(("op", "i"), CASES)
def test_tangent_matches_torch(torch: Any, op: Op, i: int) -> None:
    arrays = sample_arrays(op, i)
    tangents = _tangents(op, i, arrays)
    try:
        _, _, theirs = _forward(torch, op, arrays, tangents)
    except (NotImplementedError, RuntimeError) as e:
        if "forward" in str(e).lower() or "not implemented" in str(e).lower():
            pytest.skip(f"torch has no forward mode here: {str(e).splitlines()[0]}")
        raise
    _, _, mine = _forward(chainrule, op, arrays, tangents)
    assert (mine is None) == (theirs is None)
    if mine is not None:
        np.testing.assert_allclose(
            numpy_of(mine), numpy_of(theirs), rtol=1e-9, atol=1e-11, equal_nan=True
        )


@pytest.mark.parametrize(("op", "i"), CASES)
def test_tangent_of_the_gradient_is_the_hessian_vector_product(op: Op, i: int) -> None:
    """Forward-over-reverse equals reverse-over-reverse: `d/dt grad(<u, f(x + t v)>)`."""
    if not op.second_order:
        pytest.skip(op.note)
    arrays = sample_arrays(op, i)
    tangents = _tangents(op, i, arrays)
    ts = [
        chainrule.tensor(a) if a.dtype == np.bool_ else chainrule.tensor(a, requires_grad=True)
        for a in arrays
    ]
    floats = [k for k, t in enumerate(ts) if t.is_floating_point()]
    with fwad.dual_level():
        duals = [
            t if tan is None else fwad.make_dual(t, chainrule.tensor(tan))
            for t, tan in zip(ts, tangents, strict=True)
        ]
        out = op.fn(*duals)
        if not out.requires_grad:
            pytest.skip("the output does not depend on a float input")
        u = chainrule.tensor(_rng(op, i + 7).uniform(-1, 1, tuple(out.shape)))
        grads = grad(out, [duals[k] for k in floats], u, create_graph=True, allow_unused=True)
        fwd = [None if g is None else fwad.unpack_dual(g).tangent for g in grads]
    # The same by double backward: d/dx <grad(<u, f>), v> at x.
    ts2 = [
        chainrule.tensor(a) if a.dtype == np.bool_ else chainrule.tensor(a, requires_grad=True)
        for a in arrays
    ]
    out2 = op.fn(*ts2)
    inputs = [ts2[k] for k in floats]
    g2 = grad(out2, inputs, u, create_graph=True, allow_unused=True)
    dot = sum(
        (g * chainrule.tensor(tangents[k])).sum()
        for g, k in zip(g2, floats, strict=True)
        if g is not None and g.requires_grad
    )
    hvp = [None] * len(inputs) if isinstance(dot, int) else grad(dot, inputs, allow_unused=True)
    for f, h in zip(fwd, hvp, strict=True):
        f_arr = np.zeros(0) if f is None else numpy_of(f)
        h_arr = np.zeros(0) if h is None else numpy_of(h)
        if f is None or h is None:  # one side may know the term is zero
            assert not np.any(f_arr) and not np.any(h_arr)
            continue
        np.testing.assert_allclose(f_arr, h_arr, rtol=1e-9, atol=1e-11)


def test_every_op_has_a_case() -> None:
    assert len({op.name for op in OPS}) == len(OPS)
