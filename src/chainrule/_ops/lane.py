"""The common case of an elementwise op, spelled out: one NumPy ufunc on plain arrays.

Most ops a program records are elementwise ops whose forward is a single ufunc
(`Primitive.ufunc`: `tanh`, `sin`, `a * b`, `y + 1.5`, ...) on tensors of one float
dtype. For those, `unary` and `pair` do what `Primitive.__call__` and
`OpNode.__init__` do, without the cases such an op never meets (views, layouts,
several outputs, lists of inputs): the ufunc, muted, then the result tensor, then
the node in its lean form (`OpNode._record`). They return None whenever the general
path has something to add: a result NumPy lays out otherwise than PyTorch (size-1
dims, other strides, empty arrays), another dtype, an alpha other than 1.

The caller checks that no forward-mode tangents are active. A node is recorded here
only when nothing else watches its making: no saved-tensor hooks, no anomaly mode,
no graph watchers; otherwise the node class's own constructor makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._autograd import anomaly_mode as _anomaly
from .._autograd import grad_mode
from .._autograd.node import node_watchers
from .._backward.saved import _saved_hooks
from .._tensor import Tensor
from .op_node import _NO_PARAMS, _shared_meta
from .quiet import mute, unmute

if TYPE_CHECKING:
    from .primitive import Primitive

__all__ = ["apply1", "apply2", "by_ufunc", "pair", "unary"]

_new = object.__new__
_REQUIRES_GRAD = (True,)  # the requires-grad pattern of a unary op's node


def unary(prim: Primitive, t: Tensor) -> Tensor | None:
    """`prim(t)` for an op whose forward is `prim.ufunc` (None: not such an op), or None
    for the general path."""
    a = t._data
    ufunc = prim.ufunc
    if ufunc is None or a.dtype.kind != "f":
        return None
    token = mute()
    try:
        data = apply1(ufunc, a)
    finally:
        unmute(token)
    if data is None:
        return None
    result = Tensor._make(data)
    if t._requires_grad and (not grad_mode.threads_without_grad or grad_mode._state.grad_enabled):
        result._requires_grad = True
        if _watched():
            result._grad_fn = prim.node_cls(prim, (t,), _NO_PARAMS, (result,))
        else:  # OpNode._record with the edge known: 0.25 µs less per op than calling it
            node = result._grad_fn = _new(prim.node_cls)
            fn = t._grad_fn
            node._next = (fn, t._output_nr) if fn is not None else t._gradient_edge()
            node._input_meta = _shared_meta((a.shape, a.dtype))
            node._fill(prim, _REQUIRES_GRAD, (t,), _NO_PARAMS, result)
    return result


def pair(prim: Primitive, a: Tensor, b: Tensor, params: dict[str, Any]) -> Tensor | None:
    """`prim(a, b, **params)` for a binary op whose forward is `prim.ufunc`, with `b` a
    tensor of `a`'s shape or 0-d (or a NumberOperand), both of the op's float dtype
    `params["dt"]` and no parameter but an alpha of 1; else None, for the general path."""
    x, y = a._data, b._data
    dt = params["dt"]
    ufunc = prim.ufunc
    if ufunc is None or not (x.dtype is y.dtype is dt and dt.kind == "f" and by_ufunc(params)):
        return None
    with_alpha = len(params) == 2
    # (an alpha of 1.0 or True keeps its own dict: it shows as given)
    shared = params if with_alpha and type(params["alpha"]) is not int else None
    token = mute()
    try:
        data = apply2(ufunc, x, y)
    finally:
        unmute(token)
    if data is None:
        return None
    result = Tensor._make(data)
    if (a._requires_grad or b._requires_grad) and (
        not grad_mode.threads_without_grad or grad_mode._state.grad_enabled
    ):
        if shared is None:
            shared = _pair_params.get((dt, with_alpha)) or _pair_params.setdefault(
                (dt, with_alpha), dict(params)
            )
        result._requires_grad = True
        if _watched():
            result._grad_fn = prim.node_cls(prim, (a, b), shared, (result,))
        else:
            node = result._grad_fn = _new(prim.node_cls)
            node._fill(prim, node._link((a, b)), (a, b), shared, result)
    return result


def by_ufunc(params: dict[str, Any]) -> bool:
    """Whether a binary op's parameters leave its ufunc the whole work: the dtype `dt`
    alone, or with an alpha of 1."""
    return len(params) == 1 or (len(params) == 2 and params.get("alpha", 0) == 1)


def apply1(ufunc: Callable[..., Any], a: np.ndarray) -> np.ndarray | None:
    """`ufunc(a)` when NumPy lays the result out as PyTorch does: laid out as the input,
    no size-1 dims, not empty (`_strides.elementwise`'s first case); else None. (Warnings
    are the caller's to mute.)"""
    data = ufunc(a)
    shape = data.shape
    if data.strides != a.strides or 1 in shape or 0 in shape:
        return None
    return data if type(data) is np.ndarray else np.asarray(data)  # (a 0-d array's scalar)


def apply2(ufunc: Callable[..., Any], a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """`apply1` for two arrays of one shape and layout, or an array and a 0-d one (no
    broadcasting: the forward gives its layout and its errors); else None."""
    if not b.ndim:
        st = a.strides
    elif not a.ndim or a.shape == b.shape:
        st = b.strides
        if a.ndim and a.strides != st:
            return None
    else:
        return None
    data = ufunc(a, b)
    shape = data.shape
    if data.strides != st or 1 in shape or 0 in shape:
        return None
    return data if type(data) is np.ndarray else np.asarray(data)


# The parameters a binary op's node keeps here, `{dt}` or `{dt, alpha: 1}`: one dict per
# form and dtype, shared by all such nodes (a node never changes them), not one per node.
_pair_params: dict[tuple[np.dtype, bool], dict[str, Any]] = {}


def _watched() -> bool:
    """Whether something watches nodes being made (then the node's own constructor runs)."""
    return _saved_hooks.top is not None or _anomaly._enabled or bool(node_watchers)
