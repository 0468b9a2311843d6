"""Reductions (sum, mean) and their inverse, expanding a reduced gradient back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..primitive import Primitive, tensor_method, wrap_dims
from ..quiet import mute, unmute

__all__ = ["mean", "sum", "sum_to_size"]

_py_sum = sum


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
    "SumBackward0", _sum_forward, grads=(lambda g, n: _restore(g, n),), tangent="linear"
)
_sum_dim = Primitive(
    "SumBackward1", _sum_forward, grads=(lambda g, n: _restore(g, n),), tangent="linear"
)


def _mean_forward(a: np.ndarray, dim: Any, keepdim: bool, dt: Any, count: int, **_: Any) -> Any:
    # The mean of nothing is nan, quietly (NumPy's np.mean would warn).
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.divide(np.sum(a, axis=dim, keepdims=keepdim, dtype=dt), count, dtype=dt)


_mean_all = Primitive(
    "MeanBackward0", _mean_forward, grads=(lambda g, n: _restore(g, n) / n.count,), tangent="linear"
)
_mean_dim = Primitive(
    "MeanBackward1", _mean_forward, grads=(lambda g, n: _restore(g, n) / n.count,), tangent="linear"
)


def _sum_dtype(input: Tensor, dtype: Any) -> np.dtype:
    if dtype is not None:
        return _dtype.to_dtype(dtype).np
    # Integers and bools sum to int64, as in PyTorch.
    return np.dtype(np.int64) if input._data.dtype.kind in "iub" else input._data.dtype


@tensor_method
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


@tensor_method
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


@tensor_method
def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """Sum `input` down to `size`, undoing broadcasting (the inverse of `expand`)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    if tuple(input._data.shape) == tuple(shape):
        return input
    lead = input.ndim - len(shape)
    if lead < 0 or any(
        s != 1 and s != gs for s, gs in zip(shape, input._data.shape[lead:], strict=True)
    ):
        raise RuntimeError(
            f"size {{{', '.join(map(str, shape))}}} is not expandable to size "
            f"{{{', '.join(map(str, input._data.shape))}}}."
        )
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and input._data.shape[lead + i] != 1
    )
    out = input.sum(dims, keepdim=True) if dims else input
    return out.reshape(shape) if lead else out
