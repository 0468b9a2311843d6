"""Reading with `x[index]` (views for basic indexing, copies for advanced), and ops that
give several views at once (`unbind` here, `split` and `chunk` in rearrange_split).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..primitive import wrap_dim
from ..shape.views import stack
from ..view_tracking import MultiView, _alias, _index, _select, _slice, index_key

__all__ = ["select", "unbind"]


def _check_basic(shape: tuple[int, ...], key: tuple[Any, ...]) -> None:
    """PyTorch's IndexError/ValueError for bad basic indices, before NumPy sees them."""
    dims = sum(1 for k in key if k is not None and k is not Ellipsis)
    if dims > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    d = 0
    for k in key:
        if k is Ellipsis:
            d += len(shape) - dims
            continue
        if k is None:
            continue
        if isinstance(k, slice) and k.step is not None and k.step <= 0:
            raise ValueError("step must be greater than zero")
        if isinstance(k, int | np.integer) and not -shape[d] <= k < shape[d]:
            raise IndexError(f"index {k} is out of bounds for dimension {d} with size {shape[d]}")
        d += 1


def getitem(input: Tensor, index: Any) -> Tensor:
    """`input[index]`: basic indexing gives views (Select/Slice/Unsqueeze), the rest copies."""
    key = index_key(index)
    if any(isinstance(k, np.ndarray) for k in key):
        try:
            input._data[key]
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None
        return _index(input, key=key, self_sizes=input._data.shape, advanced=True)
    _check_basic(input._data.shape, key)
    # One view op per index item, so the graph reads as PyTorch's does.
    if any(k is Ellipsis for k in key):
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        dims = sum(1 for k in key if k is not None and k is not Ellipsis)
        key = key[:at] + (slice(None),) * (input.ndim - dims) + key[at + 1 :]
    out = input
    d = 0
    sub: tuple[Any, ...]
    for k in key:
        if k is None:
            out = out.unsqueeze(d)
            d += 1
        elif isinstance(k, slice):
            # In a tuple, as in PyTorch, a slice keeping the whole dim records nothing.
            whole = k.indices(out._data.shape[d]) == (0, out._data.shape[d], 1)
            if not (whole and isinstance(index, tuple | type(Ellipsis))):
                sub = (slice(None),) * d + (k,)
                out = _slice(out, key=sub, self_sizes=out.shape, advanced=False)
            d += 1
        else:
            sub = (*(slice(None),) * d, int(k))
            out = _select(out, key=sub, self_sizes=out.shape, advanced=False)
    if out is input:
        out = _alias(input)
    return out


def select(input: Tensor, dim: int, index: int) -> Tensor:
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {dim}"
        )
    key = (*(slice(None),) * d, int(index))
    return _select(input, key=key, self_sizes=input._data.shape, advanced=False)


def _unbind_forward(a: np.ndarray, dim: int, **_: Any) -> tuple[np.ndarray, ...]:
    moved = np.moveaxis(a, dim, 0)
    return tuple(moved[i, ...] for i in range(moved.shape[0]))  # `...`: 0-d views, not scalars


_unbind = MultiView(
    "UnbindBackward0",
    _unbind_forward,
    lambda grads, n: stack(grads, n.dim),
    "the grad of each piece, stacked along dim {dim}",
)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along `dim`, as views (one UnbindBackward0 node for all)."""
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _unbind(input, input._data.shape[d], dim=d)
