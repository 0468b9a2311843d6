"""Shape ops that bring several tensors to one shape: broadcast_tensors, meshgrid,
cartesian_prod, and the flattening ones (ravel, diagflat), composed of views as in PyTorch;
and block_diag, its own node (BlockDiagBackward0) as in PyTorch."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype
from ..._size import Size
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes as _broadcast
from ..primitive import Primitive, tangents_or_zeros
from ..view_tracking import slice_dim
from .diagonals import diag_embed
from .views import expand, reshape, stack, view

__all__ = [
    "block_diag",
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


# --- block_diag -------------------------------------------------------------------------------


def _as_block(shape: tuple[int, ...]) -> tuple[int, int]:
    """A tensor's block: a number is 1x1, a vector one row."""
    return (1, 1) if len(shape) == 0 else (1, shape[0]) if len(shape) == 1 else shape  # type: ignore[return-value]


def _corners(shapes: Sequence[tuple[int, ...]]) -> list[tuple[int, int]]:
    """Where each block's top-left corner sits in the result."""
    blocks = [_as_block(s) for s in shapes]
    rows = np.cumsum([0] + [b[0] for b in blocks])
    cols = np.cumsum([0] + [b[1] for b in blocks])
    return [(int(r), int(c)) for r, c in zip(rows, cols, strict=False)]


def _block_diag_forward(arrays: list[np.ndarray], dt: np.dtype, **_: Any) -> np.ndarray:
    corners = _corners([a.shape for a in arrays])
    out = np.zeros(corners[-1], dt)
    for a, (r, c) in zip(arrays, corners, strict=False):
        rows, cols = _as_block(a.shape)
        out[r : r + rows, c : c + cols] = a.reshape(rows, cols)
    return out


def _block_of(g: Tensor, n: Any, i: int) -> Tensor:
    """The part of grad that input i filled, in the input's shape."""
    (r, c), shape = _corners(n.shapes)[i], n.shapes[i]
    rows, cols = _as_block(shape)
    return reshape(slice_dim(slice_dim(g, 0, r, r + rows), 1, c, c + cols), shape)


_block_diag: Primitive = Primitive(
    "BlockDiagBackward0",
    _block_diag_forward,
    inputs=("tensors",),
    grads=(_block_of,),  # type: ignore[arg-type]
    formulas=("the block of grad that tensors[{i}] filled",),
    variadic=True,
    tangent=lambda ts, p: _block_diag(*tangents_or_zeros(ts, p.tensors), dt=p.dt, shapes=p.shapes),
)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors as blocks along a diagonal (a number is a 1x1 block, a vector a row),
    zeros elsewhere; of the dtype they promote to."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
        if t.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                f"Input {i} has {t.ndim} dimensions"
            )
    if not tensors:
        return Tensor._make(np.zeros((1, 0), _dtype.get_default_dtype().np))
    dt = _dtype.result_type(*tensors)  # a 0-d tensor counts less, as in elementwise ops
    shapes = tuple(t._data.shape for t in tensors)
    return _block_diag(*tensors, dt=dt.np, shapes=shapes)
