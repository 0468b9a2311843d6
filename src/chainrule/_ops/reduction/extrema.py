"""Extremes: max, min (of all, over a dim, or of two tensors), amax, amin, argmax, argmin, aminmax.

Where several entries tie for the extreme, a whole-tensor reduction (and amax,
amin, aminmax) shares the gradient evenly among them; a reduction over one dim
gives it all to the index it returns (the first), as PyTorch does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import return_types
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..elementwise.compare import maximum, minimum
from ..elementwise.conditional import where
from ..primitive import Primitive, wrap_dim
from .common import (
    bind,
    check_int_dim,
    dims_of,
    index_tensor,
    invalid_arguments,
    is_int,
    restore,
    selecting,
)

__all__ = ["amax", "amin", "aminmax", "argmax", "argmin", "max", "min"]


# --- gradients shared among ties ----------------------------------------------------------


def share_among_ties(g: Tensor, input: Tensor, value: Tensor, n: Any) -> Tensor:
    """amax's rule: the gradient of each reduced slot split evenly over the entries equal to it."""
    g = restore(g, n.dim, n.keepdim, n.self_sizes)
    mask = input == restore(value, n.dim, n.keepdim, n.self_sizes)
    return g / mask.sum(n.dim, keepdim=True) * mask


def share_evenly(g: Tensor, input: Tensor, value: Tensor) -> Tensor:
    """A whole-tensor extreme or median: its gradient split over the entries equal to it.

    A NaN result came from the NaN entries, which share its gradient.
    """
    mask = input != input if bool((value != value).item()) else input == value
    return where(mask, g / mask.sum(), 0)


def _reduce_forward(np_fn: Any) -> Any:
    def forward(a: np.ndarray, dim: tuple[int, ...], keepdim: bool, **_: Any) -> Any:
        return np_fn(a, axis=dim, keepdims=keepdim)

    return forward


_amax = Primitive(
    "AmaxBackward0",
    _reduce_forward(np.amax),
    grads=(lambda g, n: share_among_ties(g, n.self, n.result, n),),
    formulas=("1/k at the k entries equal to the extreme along dim {dim}, else 0",),
    layout=contiguous_array,
)
_amin = Primitive(
    "AminBackward0",
    _reduce_forward(np.amin),
    grads=(lambda g, n: share_among_ties(g, n.self, n.result, n),),
    formulas=("1/k at the k entries equal to the extreme along dim {dim}, else 0",),
    layout=contiguous_array,
)
_max_all = Primitive(
    "MaxBackward1",
    lambda a: np.max(a),
    grads=(lambda g, n: share_evenly(g, n.self, n.result),),
    formulas=("1/k at the k entries equal to result, else 0",),
    layout=contiguous_array,
)
_min_all = Primitive(
    "MinBackward1",
    lambda a: np.min(a),
    grads=(lambda g, n: share_evenly(g, n.self, n.result),),
    formulas=("1/k at the k entries equal to result, else 0",),
    layout=contiguous_array,
)
_max_values = selecting("MaxBackward0")
_min_values = selecting("MinBackward0")


def _check_nonempty(name: str, input: Tensor, dims: tuple[int, ...], shown: Any) -> None:
    """PyTorch's errors for an extreme over nothing (it has no identity); no `dims`: all."""
    if input.numel() != 0:
        return
    if not dims:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for d, s in zip(dims, shown, strict=True):
        if input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {s} to have non-zero size.")


def _amax_or_amin(name: str, prim: Primitive, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    dims = dims_of(input, dim, name)
    shown = (dim,) if isinstance(dim, int | np.integer) else tuple(dim or ())
    _check_nonempty(name, input, dims if shown else (), shown)
    return prim(input, dim=dims, keepdim=keepdim, self_sizes=input._data.shape)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The largest entry over `dim` (all dims by default); ties share the gradient."""
    return _amax_or_amin("amax", _amax, input, dim, keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The smallest entry over `dim` (all dims by default); ties share the gradient."""
    return _amax_or_amin("amin", _amin, input, dim, keepdim)


# --- max and min --------------------------------------------------------------------------


_SIGNATURES = {
    False: (
        "Tensor input, *, Tensor out = None",
        "Tensor input, Tensor other, *, Tensor out = None",
        "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None",
    ),
    True: ("", "Tensor other", "int dim, bool keepdim = False"),
}


def _extreme(
    name: str, input: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any], method: bool
) -> Any:
    """max/min: of the whole tensor, over a dim (values and indices), or of two tensors."""

    def refused() -> TypeError:
        return invalid_arguments(
            name, args if method else (input, *args), kwargs, _SIGNATURES[method]
        )

    bound = bind(args, kwargs, ("dim", "keepdim"), {"dim", "keepdim", "other"})
    if bound is None:
        raise refused()
    if "other" in bound or isinstance(bound.get("dim"), Tensor):  # max(x, y): maximum
        other = bound.pop("other") if "other" in bound else bound.pop("dim")
        if bound or not isinstance(other, Tensor) or not isinstance(input, Tensor):
            raise refused()
        return (maximum if name == "max" else minimum)(input, other)
    if not bound:
        _check_nonempty(name, input, (), ())
        return (_max_all if name == "max" else _min_all)(input)
    dim: Any = bound.get("dim")
    keepdim = bound.get("keepdim", False)
    if not is_int(dim) or not isinstance(keepdim, bool):
        raise refused()
    d = wrap_dim(dim, input.ndim)
    _check_nonempty(name, input, (d,), (d,))
    arg_fn = np.argmax if name == "max" else np.argmin
    index = np.expand_dims(arg_fn(input._data, axis=d), d) if input.ndim else np.zeros((), np.int64)
    values = (_max_values if name == "max" else _min_values)(input, index, d, keepdim=keepdim)
    named = return_types.max if name == "max" else return_types.min
    return named((values, index_tensor(index, d, keepdim)))


def max(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`max(x)`: the largest entry; `max(x, dim)`: (values, indices); `max(x, y)`: maximum."""
    return _extreme("max", input, args, kwargs, method=False)


def min(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`min(x)`: the smallest entry; `min(x, dim)`: (values, indices); `min(x, y)`: minimum."""
    return _extreme("min", input, args, kwargs, method=False)


# The methods: their errors list the method's signatures.


def max_method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`x.max()`, `x.max(dim)` or `x.max(other)`, as `max`."""
    return _extreme("max", self, args, kwargs, method=True)


max_method.__name__ = max_method.__qualname__ = "max"


def min_method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`x.min()`, `x.min(dim)` or `x.min(other)`, as `min`."""
    return _extreme("min", self, args, kwargs, method=True)


min_method.__name__ = min_method.__qualname__ = "min"


# --- argmax and argmin --------------------------------------------------------------------


def _arg_extreme(name: str, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if input._data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    arg_fn = np.argmax if name == "argmax" else np.argmin
    data = input._data
    if dim is None:
        if data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        flat = np.asarray(arg_fn(data), dtype=np.int64)
        return Tensor._make(flat.reshape((1,) * data.ndim) if keepdim else flat)
    d = wrap_dim(check_int_dim(name, dim), data.ndim)
    if data.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    if data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return Tensor._make(np.asarray(arg_fn(data, axis=d, keepdims=keepdim), dtype=np.int64))


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the (first) largest entry, flattened when `dim` is None; int64."""
    return _arg_extreme("argmax", input, dim, keepdim)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the (first) smallest entry, flattened when `dim` is None; int64."""
    return _arg_extreme("argmin", input, dim, keepdim)


# --- aminmax ------------------------------------------------------------------------------


def _aminmax_forward(a: np.ndarray, dim: tuple[int, ...], keepdim: bool, **_: Any) -> Any:
    return np.amin(a, axis=dim, keepdims=keepdim), np.amax(a, axis=dim, keepdims=keepdim)


_aminmax = Primitive(
    "AminmaxBackward0",
    _aminmax_forward,
    outputs=("min", "max"),
    grads=(
        lambda g, n: (
            share_among_ties(g[0], n.self, n.min, n) + share_among_ties(g[1], n.self, n.max, n)
        ),
    ),
    formulas=(
        "grad[0] shared among the entries equal to min, plus grad[1] among those equal to max",
    ),
    layout=contiguous_array,
)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """(min, max) in one pass, over `dim` or the whole tensor."""
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                "no identity."
            )
        dims = tuple(range(input.ndim))
    else:
        d = wrap_dim(check_int_dim("aminmax", dim), input.ndim)
        if input.ndim and input._data.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims = (d,) if input.ndim else ()
    mn, mx = _aminmax(input, dim=dims, keepdim=keepdim, self_sizes=input._data.shape)
    return return_types.aminmax((mn, mx))
