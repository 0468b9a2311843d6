"""Shape ops that bring several tensors to one shape: broadcast_tensors, meshgrid,
cartesian_prod, and the flattening ones (ravel, diagflat), composed of views as in PyTorch."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._size import Size
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes as _broadcast
from .diagonals import diag_embed
from .views import expand, reshape, stack, view

__all__ = [
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "diagflat",
    "meshgrid",
    "ravel",
]


def _tensor_list(tensors: tuple[Any, ...]) -> Sequence[Tensor]:
    """`f(a, b)` and `f([a, b])` both mean the tensors a and b."""
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        return tuple(tensors[0])
    return tensors


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape tensors of `shapes` broadcast to (an int is a 1-d shape)."""
    as_tuples = [(s,) if isinstance(s, int | np.integer) else tuple(s) for s in shapes]
    if any(d < 0 for s in as_tuples for d in s):
        raise ValueError("Attempting to broadcast a dimension with negative length!")
    result: tuple[int, ...] = ()
    for i, s in enumerate(as_tuples):
        try:
            result = tuple(np.broadcast_shapes(result, s))
        except ValueError:
            clash = next(
                -k
                for k in range(1, min(len(s), len(result)) + 1)
                if s[-k] != 1 and result[-k] != 1 and s[-k] != result[-k]
            )
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {s[clash]} at {clash}! "
                f"Mismatching argument at index {i} had {tuple(s)}; but expected shape should "
                f"be broadcastable to {list(result)}"
            ) from None
    return Size(result)


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    """Each tensor expanded to the shape they broadcast to (one already of it, as it is)."""
    ts = _tensor_list(tensors)
    shape = _broadcast(*(t._data.shape for t in ts)) if ts else ()
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in ts)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids of 0-d or 1-d tensors: "ij" puts tensor i along dim i, "xy" swaps
    the first two dims (as NumPy's default)."""
    ts = _tensor_list(tensors)
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"
            )
    if indexing not in ("xy", "ij"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    sizes = [int(t.numel()) for t in ts]
    axes = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:
        axes[0], axes[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for t, axis in zip(ts, axes, strict=True):
        shape = [1] * len(ts)
        shape[axis] = -1
        out.append(expand(view(t, shape), sizes))
    return tuple(out)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-d tensor, one per row."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, -1) for g in grids], 1)


def ravel(input: Tensor) -> Tensor:
    """`input` as one dim (a view of it if contiguous, else of a contiguous copy)."""
    return view(input.contiguous(), -1)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened `input` on its `offset` diagonal."""
    return diag_embed(view(input.contiguous(), -1), offset)
