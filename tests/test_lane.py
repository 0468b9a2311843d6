"""The lane (`_ops/lane.py`), the common case of an elementwise op spelled out, agrees
with the general path it bypasses: the same bits, dtype, strides, grad_fn name, edges,
saved values and gradients, on every layout hypothesis draws (contiguous, transposed,
sliced, with size-1 dims, 0-d, empty), and it steps aside when something watches
nodes being made. The unary functions give PyTorch's TypeError for a non-tensor.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Iterator
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule as cr
import chainrule.autograd.forward_ad as fwad
from chainrule._ops import lane
from chainrule._ops.elementwise import arithmetic, clamping, exp_log, rounding, trig
from chainrule._ops.primitive import Primitive

UNARY: dict[str, tuple[Callable[..., Any], Primitive]] = {
    "sin": (cr.sin, trig._sin),
    "cos": (cr.cos, trig._cos),
    "tanh": (cr.tanh, trig._tanh),
    "exp": (cr.exp, exp_log._exp),
    "log": (cr.log, exp_log._log),
    "sqrt": (cr.sqrt, exp_log._sqrt),
    "sigmoid": (cr.sigmoid, exp_log._sigmoid),
    "reciprocal": (cr.reciprocal, exp_log._reciprocal),
    "abs": (cr.abs, rounding._abs),
    "sign": (cr.sign, rounding._sign),
    "relu": (cr.relu, clamping._relu),
}
BINARY: dict[str, tuple[Callable[..., Any], Primitive]] = {
    "+": (operator.add, arithmetic._add.both),
    "-": (operator.sub, arithmetic._sub.both),
    "*": (operator.mul, arithmetic._mul.both),
}


@contextlib.contextmanager
def general_path(prim: Primitive) -> Iterator[None]:
    """Calls of `prim` take the general path: without its ufunc, no lane serves it."""
    ufunc = prim.ufunc
    prim.ufunc = None
    try:
        yield
    finally:
        prim.ufunc = ufunc


@st.composite
def arrays(draw: st.DrawFn, dtype: str) -> np.ndarray:
    """Arrays of many layouts: a base drawn, then maybe transposed, sliced or flipped."""
    shape = draw(st.sampled_from([(), (0,), (1,), (5,), (2, 3), (3, 1), (1, 4), (2, 0, 3)]))
    base = draw(hnp.arrays(np.float64, shape, elements=st.floats(0.1, 3.0))).astype(dtype)
    how = draw(st.sampled_from(["as is", "transposed", "every other", "flipped"]))
    if how == "transposed":
        base = np.ascontiguousarray(base.T).T if base.ndim > 1 else base
    elif how == "every other" and base.ndim:
        base = np.repeat(base, 2, axis=-1)[..., ::2]
    elif how == "flipped" and base.ndim:
        base = base[..., ::-1]
    return base


def _tensor(a: np.ndarray, requires_grad: bool) -> cr.Tensor:
    t = cr.from_numpy(a)
    return t.requires_grad_() if requires_grad else t


def _same(fast: cr.Tensor, general: cr.Tensor) -> None:
    assert fast.dtype == general.dtype
    assert fast.shape == general.shape
    assert fast.stride() == general.stride()
    np.testing.assert_array_equal(fast.detach().numpy(), general.detach().numpy())
    assert fast.requires_grad == general.requires_grad
    if general.grad_fn is None:
        assert fast.grad_fn is None
        return
    assert fast.grad_fn.name() == general.grad_fn.name()
    assert [e[1] for e in fast.grad_fn.next_functions] == [
        e[1] for e in general.grad_fn.next_functions
    ]
    assert sorted(fast.grad_fn._saved_names() or ()) == sorted(general.grad_fn._saved_names() or ())


@pytest.mark.parametrize("name", UNARY)
@given(dtype=st.sampled_from(["float32", "float64", "float16"]), data=st.data())
def test_unary_lane_matches_the_general_path(name: str, dtype: str, data: st.DataObject) -> None:
    fn, prim = UNARY[name]
    a = data.draw(arrays(dtype))
    requires_grad = data.draw(st.booleans())
    x = _tensor(a, requires_grad)
    fast = fn(x)
    with general_path(prim):
        general = fn(x)
    _same(fast, general)
    if requires_grad and a.size:
        g = cr.from_numpy(np.full(a.shape, 0.5, dtype))
        (gx_fast,) = cr.autograd.grad(fast, x, g)
        with general_path(prim):
            (gx_general,) = cr.autograd.grad(general, x, g)
        _same(gx_fast, gx_general)


@pytest.mark.parametrize("symbol", BINARY)
@given(
    dtype=st.sampled_from(["float32", "float64"]),
    other=st.sampled_from(["number", "same shape", "0-d", "broadcast"]),
    data=st.data(),
)
def test_binary_lane_matches_the_general_path(
    symbol: str, dtype: str, other: str, data: st.DataObject
) -> None:
    op, prim = BINARY[symbol]
    a = data.draw(arrays(dtype))
    x = _tensor(a, True)
    y: Any
    if other == "number":
        y = data.draw(st.floats(0.5, 2.0) | st.integers(1, 3))
    elif other == "same shape":
        y = _tensor(data.draw(hnp.arrays(dtype, a.shape, elements=st.floats(0.1, 2.0))), True)
    elif other == "0-d":
        y = _tensor(np.asarray(1.5, dtype), True)
    else:
        y = _tensor(np.full((3, *a.shape), 1.5, dtype), True)
    fast = op(x, y)
    with general_path(prim):
        general = op(x, y)
    _same(fast, general)
    if a.size:
        inputs = [t for t in (x, y) if isinstance(t, cr.Tensor)]
        grads_fast = cr.autograd.grad(fast.sum(), inputs)
        with general_path(prim):
            grads_general = cr.autograd.grad(general.sum(), inputs)
        for f, g in zip(grads_fast, grads_general, strict=True):
            _same(f, g)


def test_the_lane_steps_aside_for_watchers_of_nodes_being_made() -> None:
    """Under saved-tensor hooks, anomaly mode and forward AD, nodes are made the general
    way: the hooks see the saved input (not the wrapped number, as in PyTorch), anomaly
    mode records where each node was made, forward AD pushes a tangent."""
    x = cr.tensor([0.5, 1.0], requires_grad=True)
    packed: list[cr.Tensor] = []

    def pack(t: cr.Tensor) -> cr.Tensor:
        packed.append(t)
        return t

    with cr.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = x.sin() * 2.0
    assert len(packed) == 1 and packed[0] is x
    with cr.autograd.detect_anomaly():
        z = (x.tanh() + 1.0).grad_fn
    assert "traceback_" in z.metadata
    assert "traceback_" in z.next_functions[0][0].metadata
    with fwad.dual_level():
        d = fwad.make_dual(cr.tensor([0.5, 1.0]), cr.tensor([1.0, 0.0]))
        tangent = fwad.unpack_dual(d.sin() * 2.0).tangent
    np.testing.assert_allclose(tangent.numpy(), [2 * np.cos(0.5), 0.0])
    del y


@pytest.mark.parametrize("name", [*UNARY, "absolute"])
def test_unary_functions_refuse_a_number_in_pytorchs_words(name: str) -> None:
    with pytest.raises(TypeError) as caught:
        getattr(cr, name)(3.0)
    assert str(caught.value) == f"{name}(): argument 'input' (position 1) must be Tensor, not float"


@pytest.mark.parametrize("name", [*UNARY, "absolute"])
def test_unary_functions_refuse_a_number_as_torch_does(torch: Any, name: str) -> None:
    with pytest.raises(TypeError) as theirs:
        getattr(torch, name)(3.0)
    with pytest.raises(TypeError) as ours:
        getattr(cr, name)(3.0)
    assert str(ours.value) == str(theirs.value)


def test_the_lane_serves_the_common_case_and_only_it() -> None:
    """So the comparisons above compare two paths: the lane takes plain float tensors
    laid out as PyTorch would lay out the result, and declines the rest."""
    x = cr.rand(4, 3, dtype=cr.float64, requires_grad=True)
    assert lane.unary(trig._tanh, x) is not None
    assert lane.pair(arithmetic._mul.both, x, x, {"dt": x._data.dtype}) is not None
    assert lane.unary(trig._tanh, cr.rand(4, 1)) is None  # a size-1 dim
    assert lane.unary(trig._tanh, x.detach().t()[::2]) is None  # strided otherwise
    assert lane.unary(trig._tanh, cr.tensor([1, 2])) is None  # integers promote
    assert lane.pair(arithmetic._mul.both, x, cr.rand(3), {"dt": x._data.dtype}) is None
    assert lane.pair(arithmetic._add.both, x, x, {"dt": x._data.dtype, "alpha": 2}) is None
    assert lane.unary(exp_log._expm1, x) is None  # a forward that is not one ufunc
