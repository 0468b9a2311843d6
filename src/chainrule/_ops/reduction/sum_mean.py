"""Sums and means: sum, mean, nansum, nanmean, logsumexp, and sum_to_size."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype
from ..._dtype import scalar_name
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..broadcasting import sum_to_dims
from ..elementwise.conditional import where
from ..primitive import Primitive, wrap_dims
from ..quiet import mute, quiet, unmute
from ..shape.views import view
from .common import dims_of, restore

__all__ = ["logsumexp", "mean", "nanmean", "nansum", "sum"]

_NO_DIM: Any = object()


def _restore(g: Tensor, n: Any) -> Tensor:
    """A reduced gradient broadcast back over the reduced dims of the input."""
    if not n.keepdim and len(n.dim) < len(n.self_sizes):
        for d in sorted(n.dim):
            g = g.unsqueeze(d)
    # (A full reduction's 0-d gradient broadcasts to any shape as it is.)
    return g.expand(n.self_sizes)


def _sum_forward(a: np.ndarray, dim: tuple[int, ...], keepdim: bool, dt: Any, **_: Any) -> Any:
    # np.sum's own work, without its Python-level dispatch (a microsecond per call);
    # inf + -inf is nan quietly, as in PyTorch.
    token = mute()
    try:
        return np.add.reduce(a, axis=dim, keepdims=keepdim, dtype=dt)  # type: ignore[call-overload]
    finally:
        unmute(token)


_sum_all = Primitive(
    "SumBackward0",
    _sum_forward,
    grads=(lambda g, n: _restore(g, n),),
    formulas=("1",),
    tangent="linear",
    layout=contiguous_array,
)
_sum_dim = Primitive(
    "SumBackward1",
    _sum_forward,
    grads=(lambda g, n: _restore(g, n),),
    formulas=("1",),
    tangent="linear",
    layout=contiguous_array,
)


def _mean_forward(a: np.ndarray, dim: Any, keepdim: bool, dt: Any, count: int, **_: Any) -> Any:
    # The mean of nothing is nan, quietly (NumPy's np.mean would warn).
    return quiet(np.divide, np.sum(a, axis=dim, keepdims=keepdim, dtype=dt), count, dtype=dt)


_mean_all = Primitive(
    "MeanBackward0",
    _mean_forward,
    grads=(lambda g, n: _restore(g, n) / n.count,),
    formulas=("1/n (n = {count})",),
    tangent="linear",
    layout=contiguous_array,
)
_mean_dim = Primitive(
    "MeanBackward1",
    _mean_forward,
    grads=(lambda g, n: _restore(g, n) / n.count,),
    formulas=("1/n (n = {count})",),
    tangent="linear",
    layout=contiguous_array,
)


def _sum_dtype(input: Tensor, dtype: Any) -> np.dtype:
    if dtype is not None:
        return _dtype.to_dtype(dtype).np
    # Integers and bools sum to int64, as in PyTorch.
    return np.dtype(np.int64) if input._data.dtype.kind in "iub" else input._data.dtype


def sum(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """Sum over `dim` (all dims when None), keeping reduced dims as size 1 if `keepdim`."""
    dims = wrap_dims(dim, input.ndim)[: input.ndim]  # a 0-d tensor takes dim 0 or -1
    prim = _sum_all if dim is None else _sum_dim
    return prim(
        input, dim=dims, keepdim=keepdim, dt=_sum_dtype(input, dtype), self_sizes=input._data.shape
    )


def mean(
    input: Tensor,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """Arithmetic mean over `dim` (all dims when None); floating-point inputs only."""
    dt = _dtype.to_dtype(dtype) if dtype is not None else input.dtype
    if not dt.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_dtype.scalar_name(dt)}"
        )
    dims = wrap_dims(dim, input.ndim)[: input.ndim]  # a 0-d tensor takes dim 0 or -1
    count = int(np.prod([input._data.shape[d] for d in dims])) if dims else 1
    prim = _mean_all if dim is None else _mean_dim
    return prim(
        input, dim=dims, keepdim=keepdim, dt=dt.np, self_sizes=input._data.shape, count=count
    )


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """Sum `input` down to `size`, undoing broadcasting (the inverse of `expand`)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    if tuple(input._data.shape) == tuple(shape):
        return input
    dims = sum_to_dims(input._data.shape, shape)
    if dims is None:
        raise RuntimeError(
            f"size {{{', '.join(map(str, shape))}}} is not expandable to size "
            f"{{{', '.join(map(str, input._data.shape))}}}."
        )
    lead = input.ndim - len(shape)
    # PyTorch's sum_to: a keepdim sum (SumBackward1) viewed without the leading dims
    # (ViewBackward0); the ops called directly, as the engine undoes broadcasting here.
    if dims:
        dt = _sum_dtype(input, None)
        input = _sum_dim(input, dim=dims, keepdim=True, dt=dt, self_sizes=input._data.shape)
    return view(input, shape) if lead else input


# --- logsumexp ----------------------------------------------------------------------------


def _logsumexp_forward(a: np.ndarray, dim: tuple[int, ...], keepdim: bool, **_: Any) -> Any:
    # Shift by the largest entry (0 where it is infinite or NaN): exp never overflows.
    top = np.max(a, axis=dim, keepdims=True, initial=-np.inf)
    top = np.where(np.isfinite(top), top, 0)
    out = quiet(np.log, np.sum(np.exp(a - top), axis=dim, keepdims=True)) + top
    return out if keepdim else np.squeeze(out, dim)


_logsumexp = Primitive(
    "LogsumexpBackward0",
    _logsumexp_forward,
    grads=(
        lambda g, n: (
            restore(g, n.dim, n.keepdim, n.self_sizes)
            * (n.self - restore(n.result, n.dim, n.keepdim, n.self_sizes)).exp()
        ),
    ),
    formulas=("exp(self - result), a softmax along dim {dim}",),
    layout=contiguous_array,
)


def logsumexp(input: Tensor, dim: Any = _NO_DIM, keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) over `dim`, computed without overflow; integers give floats."""
    if dim is _NO_DIM:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if dim is None:
        raise TypeError(
            "logsumexp(): argument 'dim' (position 1) must be tuple of ints, not NoneType"
        )
    dims = dims_of(input, dim, "logsumexp")
    if input._data.dtype.kind != "f":
        input = input.to(_dtype.get_default_dtype())
    return _logsumexp(input, dim=dims, keepdim=keepdim, self_sizes=input._data.shape)


# --- nansum and nanmean -------------------------------------------------------------------

_nansum = Primitive(
    "NansumBackward0",
    lambda a, dim, keepdim, dt, **_: np.nansum(a, axis=dim, keepdims=keepdim, dtype=dt),
    grads=(lambda g, n: where(n.self != n.self, 0, restore(g, n.dim, n.keepdim, n.self_sizes)),),
    formulas=("1 where self is not nan, else 0",),
    layout=contiguous_array,
)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum treating NaN as zero (NaN entries get no gradient)."""
    dims = dims_of(input, dim, "nansum")
    return _nansum(
        input, dim=dims, keepdim=keepdim, dt=_sum_dtype(input, dtype), self_sizes=input._data.shape
    )


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the entries that are not NaN (NaN where there are none)."""
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{scalar_name(input._data.dtype)}"
        )
    if dtype is not None:
        input = input.to(dtype)
    dims = dims_of(input, dim, "nanmean")
    counted = (input == input).sum(dims, keepdim=keepdim)
    return nansum(input, dims, keepdim) / counted
