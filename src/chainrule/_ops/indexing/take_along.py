"""Taking elements by index: take (from the flattened tensor), its inverse put, and
take_along_dim (gather with broadcasting).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _strides
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..primitive import Primitive, wrap_dim
from ..shape.views import expand
from .common import inplace_method, require_index, zeros_of

__all__ = ["put", "take", "take_along_dim"]


def _put_forward(
    a: np.ndarray, index: np.ndarray, source: np.ndarray, accumulate: bool, **_: Any
) -> Any:
    flat = a.reshape(-1).copy()  # the elements in PyTorch's (row-major) order
    if accumulate:
        np.add.at(flat, index.reshape(-1), source.reshape(-1))  # repeats add up
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return flat.reshape(a.shape)


# Also the gradient of take: put(accumulate=True) into zeros, as PyTorch computes it.
_put = Primitive(
    "PutBackward0",
    _put_forward,
    inputs=("self", "index", "source"),
    grads=(
        lambda g, n: g if n.accumulate else put(g, n.index, zeros_of(g, n.source_sizes)),
        None,
        lambda g, n: take(g, n.index).reshape(n.source_sizes),
    ),
    formulas=(
        "grad, with zeros at the flat positions index unless accumulate = {accumulate}",
        None,
        "take(grad, index)",
    ),
    tangent="linear",
    layout=_strides.like_first,
)


_take = Primitive(
    "TakeBackward0",
    lambda a, index, **_: np.take(a, index),
    inputs=("self", "index"),
    grads=(lambda g, n: put(zeros_of(g, n.self_sizes), n.index, g, accumulate=True), None),
    formulas=("zeros of shape {in_shape} with grad added at the flat positions index", None),
    tangent="linear",
)


def _check_flat_bounds(idx: np.ndarray, n: int) -> None:
    """PyTorch's error for the first flat position outside `[-n, n)`."""
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        value = int(idx.ravel()[np.argmax(bad.ravel())])
        raise IndexError(
            f"out of range: tried to access index {value} on a tensor of {n} elements."
        )


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of `input`, seen as 1-d, at `index` (negative counts from the end)."""
    message = "take(): Expected a long tensor for index, but got "
    if isinstance(index, Tensor):
        message += scalar_name(index)
    idx = require_index(index, ("int64",), message, "take")
    n = input.numel()
    _check_flat_bounds(idx, n)
    return _take(input, index, self_sizes=tuple(input.shape))


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of `input` with `source`'s elements written (or added, with `accumulate`) at
    the flat positions `index` (negative counts from the end)."""
    if not isinstance(source, Tensor):
        raise TypeError(
            f"put(): argument 'source' (position 2) must be Tensor, not {type(source).__name__}"
        )
    message = "put_(): Expected a long tensor for index, but got "
    if isinstance(index, Tensor):
        message += scalar_name(index)
    idx = require_index(index, ("int64",), message, "put")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_name(input)} and source.dtype = {scalar_name(source)}"
        )
    if idx.size != source.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {idx.size}"
        )
    n = input.numel()
    if n == 0 and idx.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    _check_flat_bounds(idx, n)
    return _put(input, index, source, accumulate=bool(accumulate), source_sizes=source._data.shape)


put_ = inplace_method("put_", put)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """`gather` with broadcasting (or over the flattened tensor when `dim` is None)."""
    if isinstance(indices, Tensor) and indices._data.dtype != np.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            + scalar_name(indices)
        )
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    if indices.ndim != input.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    a, b = list(input._data.shape), list(indices._data.shape)
    a[d] = b[d] = 1
    common = list(broadcast_shapes(tuple(a), tuple(b)))
    want_input = [*common[:d], input._data.shape[d], *common[d + 1 :]]
    want_index = [*common[:d], indices._data.shape[d], *common[d + 1 :]]
    idx = Tensor._make(np.broadcast_to(indices._data, want_index))
    return expand(input, want_input).gather(d, idx)
