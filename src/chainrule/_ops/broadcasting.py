"""Broadcasting shapes as PyTorch does, with its message for shapes that do not broadcast."""

from __future__ import annotations

import numpy as np

__all__ = ["broadcast_error", "broadcast_shapes", "sum_to_dims"]


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
