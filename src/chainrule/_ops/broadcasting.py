"""Broadcasting shapes as PyTorch does, with its message for shapes that do not broadcast."""

from __future__ import annotations

import numpy as np

from .._strides import contiguous_array

__all__ = ["broadcast_error", "broadcast_shapes", "sum_to_dims", "sum_to_shape"]


def broadcast_error(a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """PyTorch's message for shapes that do not broadcast (the last clashing dim is named)."""
    ndim = max(len(a), len(b))
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        sa = a[len(a) - 1 - offset] if offset < len(a) else 1
        sb = b[len(b) - 1 - offset] if offset < len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            return (
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                f"non-singleton dimension {i}"
            )
    return f"shapes {list(a)} and {list(b)} cannot be broadcast together"


def sum_to_dims(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...] | None:
    """The dims to sum a `shape` array over to undo its broadcasting from `target`: the
    leading dims `target` lacks, then the dims where `target` has size 1 and `shape`
    does not. None when `target` does not broadcast to `shape`."""
    lead = len(shape) - len(target)
    if lead < 0:
        return None
    widened = []
    for i, s in enumerate(target):
        size = shape[lead + i]
        if s == 1 and size != 1:
            widened.append(lead + i)
        elif s != size:
            return None
    return (*range(lead), *widened)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape all `shapes` broadcast to, taken left to right; PyTorch's RuntimeError
    (naming the shape so far and the one that clashes with it) if they do not."""
    shape = tuple(shapes[0])
    for s in shapes[1:]:
        try:
            shape = np.broadcast_shapes(shape, s)
        except ValueError:
            raise RuntimeError(broadcast_error(shape, tuple(s))) from None
    return shape


def sum_to_shape(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """`g` summed down to `shape` (undoing broadcasting) as `sum_to_size` sums it, on
    arrays; None if `g` does not broadcast to `shape` (validate_grads then raises).

    The same reduction as sum_to_size's SumBackward1 (NumPy's add.reduce in `g`'s dtype,
    over the same dims): the same bits. Only the leading dims summed away gives a fresh
    array, not a view of one, which AccumulateGrad may then take over."""
    dims = sum_to_dims(g.shape, shape)
    if dims is None:
        return None
    if not dims:
        return g
    lead = g.ndim - len(shape)
    if len(dims) == lead:  # only leading dims: no size-1 dims to keep
        return contiguous_array(np.add.reduce(g, axis=dims, dtype=g.dtype))
    summed = contiguous_array(np.add.reduce(g, axis=dims, keepdims=True, dtype=g.dtype))
    return summed.reshape(shape) if lead else summed
