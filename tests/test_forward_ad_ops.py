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
# Ops whose tangent PyTorch leaves undefined without a word (it has no formula for them):
# chainrule gives the tangent, from the gradient.
TORCH_HAS_NO_TANGENT = {
    "scatter_reduce_prod",
    "scatter_reduce_prod_exclude_self",
}

# Lines (by name prefix) where torch's forward mode is not the derivative of the op: there
# chainrule's tangent is the transpose of its gradient (checked below) and torch's is not.
TORCH_TANGENT_DIFFERS = {
    "linalg_cholesky_inverse": "torch's tangent disagrees with finite differences",
    "linalg_triangular_solve": "torch's tangent takes all of A's tangent, though the op (and "
    "torch's gradient) read only A's triangle",
}


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
    if not op.forward_ad:
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with"):
            _forward(chainrule, op, arrays, tangents)
        return
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
    differs = [why for name, why in TORCH_TANGENT_DIFFERS.items() if op.name.startswith(name)]
    if differs:
        pytest.skip(differs[0])
    arrays = sample_arrays(op, i)
    tangents = _tangents(op, i, arrays)
    try:
        _, _, theirs = _forward(torch, op, arrays, tangents)
    except (NotImplementedError, RuntimeError) as e:
        if "forward" in str(e).lower() or "not implemented" in str(e).lower():
            pytest.skip(f"torch has no forward mode here: {str(e).splitlines()[0]}")
        raise
    _, _, mine = _forward(chainrule, op, arrays, tangents)
    if op.name in TORCH_HAS_NO_TANGENT:
        assert theirs is None and mine is not None
        return
    assert (mine is None) == (theirs is None)
    if mine is not None:
        np.testing.assert_allclose(
            numpy_of(mine), numpy_of(theirs), rtol=1e-9, atol=1e-11, equal_nan=True
        )


@pytest.mark.parametrize(("op", "i"), CASES)
def test_tangent_of_the_gradient_is_the_hessian_vector_product(op: Op, i: int) -> None:
    """Forward-over-reverse equals reverse-over-reverse: `d/dt grad(<u, f(x + t v)>)`."""
    if not op.second_order or not op.forward_ad:
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


# Ops whose values may include an integer tensor, promoted: it moves nothing, so its part of
# the tangent is zero (a tangent rule that treated it like an index would carry its values).
PROMOTED_INTEGER = {
    "add": lambda L, x, i: x + i,
    "add_alpha": lambda L, x, i: L.add(i, x, alpha=2),
    "sub": lambda L, x, i: x - i,
    "sub_alpha": lambda L, x, i: L.sub(i, x, alpha=3),
    "rsub": lambda L, x, i: L.rsub(x, i, alpha=2),
    "mul": lambda L, x, i: i * x,
    "div": lambda L, x, i: i / x,
    "where_input": lambda L, x, i: L.where(i > 2, i, x),
    "where_other": lambda L, x, i: L.where(i > 2, x, i),
    "cat": lambda L, x, i: L.cat([i, x, i]),
    "stack": lambda L, x, i: L.stack([x, i]),
    "maximum": lambda L, x, i: L.maximum(x, i),
    "atan2": lambda L, x, i: L.atan2(i, x),
}


@pytest.mark.parametrize("name", sorted(PROMOTED_INTEGER))
def test_a_promoted_integer_operand_has_no_tangent(torch: Any, name: str) -> None:
    fn = PROMOTED_INTEGER[name]
    x_np, t_np = np.array([0.5, -1.5, 2.5, 4.0]), np.array([1.0, -2.0, 3.0, 0.5])
    tangents = []
    for lib in (chainrule, torch):
        with lib.autograd.forward_ad.dual_level():
            x = lib.autograd.forward_ad.make_dual(lib.tensor(x_np), lib.tensor(t_np))
            out = fn(lib, x, lib.tensor([1, 2, 3, 4]))
            tangents.append(numpy_of(lib.autograd.forward_ad.unpack_dual(out).tangent))
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-12, atol=0)


# A tangent that requires grad records the graph torch records (linear ops apply themselves).
TANGENT_NODES = {
    "sum": lambda L, y: y.sum(),
    "mean_dim": lambda L, y: y.mean(1),
    "view": lambda L, y: y.view(6),
    "transpose": lambda L, y: y.t(),
    "select": lambda L, y: y[1],
    "index": lambda L, y: y[L.tensor([1, 0])],
    "to": lambda L, y: y.double(),
    "cat": lambda L, y: L.cat([y, y]),
    "cumsum": lambda L, y: y.cumsum(0),
    "gather": lambda L, y: y.gather(1, L.tensor([[0], [2]])),
    "neg": lambda L, y: -y,
    "add_number": lambda L, y: y + 1,
    "where": lambda L, y: L.where(y > 0, y, 0.0),
    "mul": lambda L, y: y * y,
    "exp": lambda L, y: y.exp(),
    "log_softmax": lambda L, y: y.log_softmax(1),
    "linear": lambda L, y: L.nn.functional.linear(y, y, y[:, 0]),
    "pad": lambda L, y: L.nn.functional.pad(y, (1, 1)),
}


@pytest.mark.parametrize("name", sorted(TANGENT_NODES))
def test_the_tangent_records_torchs_node(torch: Any, name: str) -> None:
    names = []
    for lib in (chainrule, torch):
        with lib.autograd.forward_ad.dual_level():
            x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]], requires_grad=True)
            t = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
            y = lib.autograd.forward_ad.make_dual(x, t) * x  # its tangent t * x requires grad
            tangent = lib.autograd.forward_ad.unpack_dual(TANGENT_NODES[name](lib, y)).tangent
            names.append(type(tangent.grad_fn).__name__)
    assert names[0] == names[1]


def test_every_op_has_a_case() -> None:
    assert len({op.name for op in OPS}) == len(OPS)
