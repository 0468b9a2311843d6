"""Writing into a tensor: `x[index] = value`, `copy_`, `fill_` and `zero_`; and `fill`,
a filled copy, with the torch.* forms of `detach` and `detach_`.

Each goes through the one in-place path (`_ops/inplace.py`), which rebases the
graph after the write.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtype
from ..._autograd import grad_mode
from ..._strides import like_first
from ..._tensor import Tensor
from ..inplace import (
    LEAF_VIEW_INPLACE,
    apply_inplace,
    bump_version,
    check_writable,
    into_base,
    puts_in_place,
    update_tangent,
)
from ..primitive import Primitive
from ..view_errors import check_view_write
from ..view_tracking import index_key
from .masked import index_put_node

# torch's functions; the rest are Tensor methods only (x[i] = v, x.copy_(y), ...)
__all__ = ["detach", "detach_", "fill", "fill_", "zero_"]


def _writes_view(key: tuple[Any, ...]) -> bool:
    """Whether `t[key] = v` is, in PyTorch, a copy into a view of `t` (basic indexing)."""
    if any(isinstance(k, np.ndarray) and (k.ndim or k.dtype.kind == "b") for k in key):
        return False  # advanced indexing writes into `t` itself
    return any(k is not Ellipsis and k != slice(None) for k in key)


def _check_put(t: Tensor, key: tuple[Any, ...], src: Tensor) -> None:
    """Advanced indexing writes with PyTorch's index_put_, which won't cast a tensor value.

    The exception: a 0-d value through one boolean mask is PyTorch's masked_fill_.
    """
    if src._data.dtype == t._data.dtype or not any(isinstance(k, np.ndarray) for k in key):
        return
    if src.ndim == 0 and len(key) == 1 and key[0].dtype == np.bool_:
        return
    target, shape = t._data[key].shape, src._data.shape
    while len(shape) > len(target) and shape[0] == 1:  # as NumPy, leading 1s are dropped
        shape = shape[1:]
    if len(shape) > len(target) or np.broadcast_shapes(shape, target) != target:
        raise RuntimeError(_shape_mismatch(t, key, src))  # reported before the dtype
    raise RuntimeError(
        "Index put requires the source and destination dtypes match, got "
        f"{_dtype.scalar_name(t._data.dtype)} for the destination and "
        f"{_dtype.scalar_name(src._data.dtype)} for the source."
    )


def _shape_mismatch(t: Tensor, key: tuple[Any, ...], src: Tensor) -> str:
    """PyTorch's message for a value that doesn't broadcast to the indexed region."""
    target = t._data[key].shape
    if any(isinstance(k, np.ndarray) for k in key):
        return (
            f"shape mismatch: value tensor of shape {list(src.shape)} cannot be broadcast to "
            f"indexing result of shape {list(target)}"
        )
    try:  # basic indexing copies into a view, expanding the value: expand's message
        src.expand(target)
    except RuntimeError as e:
        return str(e)
    return f"could not broadcast {list(src.shape)} to {list(target)}"


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """`t[index] = value`: a `CopySlices` node when grad is recorded."""
    key = index_key(index)
    leaf = grad_mode.is_grad_enabled() and t._requires_grad and t._grad_fn is None
    if leaf and _writes_view(key):  # PyTorch writes through a view of the leaf, and says so
        raise RuntimeError(LEAF_VIEW_INPLACE)
    check_writable(t)
    if isinstance(value, list | tuple):
        raise TypeError(f"can't assign a {type(value).__name__} to a {t.type()}")
    if isinstance(value, Tensor):
        src = value
    else:
        src = Tensor._make(np.asarray(value, dtype=t._data.dtype))
    if grad_mode.is_grad_enabled() and src._requires_grad:
        check_view_write(t, records=True)
    _check_put(t, key, src)
    try:
        t._data[key] = src._data
    except IndexError as e:
        raise IndexError(str(e).replace("axis", "dimension")) from None
    except ValueError:
        raise RuntimeError(_shape_mismatch(t, key, src)) from None
    if grad_mode.is_grad_enabled() and (src._requires_grad or t._requires_grad):
        if t._base is None:
            keep = np.ones(t._data.shape, dtype=t._data.dtype)
            keep[key] = 0
            if puts_in_place(key):  # no view taken first: PyTorch's index_put_ into `t`
                params = {"key": key, "indices": index, "accumulate": False}
                into_base(t, src, lambda b: b[index], keep, index_put_node, **params)
            else:
                into_base(t, src, lambda b: b[index], keep)
        else:
            base, view_fn = t._base, t._view_fn
            assert view_fn is not None
            keep = np.ones_like(base._data)  # laid out as the base: see inplace_views
            view_fn(Tensor._make(keep))._data[key] = 0
            into_base(base, src, lambda b: view_fn(b)[index], keep)
    update_tangent(t, src, key)
    bump_version(t)


# --- the op_ forms ----------------------------------------------------------------------

_zero = Primitive(
    "ZeroBackward0",
    lambda a: np.zeros_like(a),
    grads=(lambda g, n: g * 0,),
    formulas=("0",),
    tangent="elementwise",
)
_fill = Primitive(
    "FillBackward2",
    lambda a, value: np.full_like(a, value),
    grads=(lambda g, n: g * 0,),
    formulas=("0",),
    tangent="elementwise",
)
_fill_tensor = Primitive(
    "FillBackward3",
    lambda a, value: np.full_like(a, value),
    inputs=("self", "value"),
    grads=(lambda g, n: g * 0, lambda g, n: g.sum()),
    formulas=("0", "Σ grad"),
)
_copy = Primitive(
    "CopyBackwards",
    lambda a, src: np.broadcast_to(src, a.shape).astype(a.dtype, copy=True),
    inputs=("self", "src"),
    grads=(lambda g, n: g * 0, lambda g, n: g),
    formulas=("0", "1"),
    tangent="elementwise",
)


# Out of place, PyTorch's nodes for a number and for a 0-d tensor value; the result is laid
# out as the input.
_filled = Primitive(
    "FillBackward0",
    lambda a, value: np.full_like(a, value),
    grads=(lambda g, n: g * 0,),
    formulas=("0",),
    tangent="elementwise",
    layout=like_first,
)
_filled_tensor = Primitive(
    "FillBackward1",
    lambda a, value: np.full_like(a, value),
    inputs=("self", "value"),
    grads=(lambda g, n: g * 0, lambda g, n: g.sum()),
    formulas=("0", "Σ grad"),
    layout=like_first,
)


def zero_(self: Tensor) -> Tensor:
    return apply_inplace(self, _zero)


def _check_value(value: Any) -> None:
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value.ndim} dimensions."
        )


def fill_(self: Tensor, value: Any) -> Tensor:
    _check_value(value)
    if isinstance(value, Tensor):
        return apply_inplace(self, lambda old: _fill_tensor(old, value))
    return apply_inplace(self, lambda old: _fill(old, value=value))


def fill(input: Tensor, value: Any) -> Tensor:
    """A tensor like `input` (its shape, dtype and layout) holding `value` everywhere."""
    _check_value(value)
    if isinstance(value, Tensor):
        return _filled_tensor(input, value)
    return _filled(input, value=value)


def detach(input: Tensor) -> Tensor:
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    return input.detach_()


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy `src`'s values (broadcast and cast) into this tensor; gradients flow to `src`."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1] if self.ndim else 1}) must match the "
            f"size of tensor b ({src._data.shape[-1] if src.ndim else 1}) at non-singleton "
            "dimension 0"
        ) from None
    return apply_inplace(self, lambda old: _copy(old, src))
