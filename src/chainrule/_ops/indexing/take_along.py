"""Taking elements by index: take (from the flattened tensor) and take_along_dim (gather
with broadcasting).
"""

from __future__ import annotations

import numpy as np

from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..primitive import Primitive, wrap_dim
from ..shape.views import expand
from .common import require_index

__all__ = ["take", "take_along_dim"]

_put_accumulate = Primitive(  # the gradient of take: PyTorch's put_(accumulate=True) into zeros
    "PutBackward0",
    lambda g, index, self_sizes: _put_forward(g, index, self_sizes),
    inputs=("grad", "index"),
    grads=(lambda g, n: take(g, n.index), None),
    formulas=("take(grad, index)", None),
    tangent="linear",
)


def _put_forward(g: np.ndarray, index: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(int(np.prod(shape)), dtype=g.dtype)
    np.add.at(out, index.reshape(-1), g.reshape(-1))
    return out.reshape(shape)


_take = Primitive(
    "TakeBackward0",
    lambda a, index, **_: np.take(a, index),
    inputs=("self", "index"),
    grads=(lambda g, n: _put_accumulate(g, n.index, self_sizes=n.self_sizes), None),
    formulas=("zeros of shape {in_shape} with grad added at the flat positions index", None),
    tangent="linear",
)


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of `input`, seen as 1-d, at `index` (negative counts from the end)."""
    message = "take(): Expected a long tensor for index, but got "
    if isinstance(index, Tensor):
        message += scalar_name(index)
    idx = require_index(index, ("int64",), message, "take")
    n = input.numel()
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        value = int(idx.ravel()[np.argmax(bad.ravel())])
        raise IndexError(
            f"out of range: tried to access index {value} on a tensor of {n} elements."
        )
    return _take(input, index, self_sizes=tuple(input.shape))


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
