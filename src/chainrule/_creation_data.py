"""Tensors over memory that already exists or is laid out by hand: asarray (sharing with
tensors, arrays and buffers where it can), frombuffer, empty_strided, and scalar_tensor."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype
from ._creation import _finish, _size_args, tensor
from ._device import device as _device
from ._device import require_cpu
from ._tensor import Tensor

__all__ = ["asarray", "empty_strided", "frombuffer", "scalar_tensor"]

_REQUIRES_GRAD_DEFAULT = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this warning."
)
_NOT_WRITABLE = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
    "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
    "You may want to copy the buffer to protect its data or make it writable before converting "
    "it to a tensor. This type of warning will be suppressed for the rest of this program."
)
# Warnings PyTorch gives once per program, and whether each has been given.
_warned: set[str] = set()


def _warn_once(message: str, stacklevel: int) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)


def scalar_tensor(
    s: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """A 0-d tensor holding the number `s`, of the default float dtype unless `dtype` is given."""
    if isinstance(s, Tensor) and s.ndim == 0:
        s = s.item()
    if not isinstance(s, bool | int | float | np.number | np.bool_):
        raise TypeError(
            f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}"
        )
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    return _finish(np.array(s).astype(dt.np), requires_grad, device)


# --- frombuffer ----------------------------------------------------------------------------


def frombuffer(
    buffer: Any,
    *,
    dtype: Any = None,
    count: int = -1,
    offset: int = 0,
    requires_grad: bool = False,
) -> Tensor:
    """A 1-d tensor over the bytes of `buffer` (anything with Python's buffer protocol),
    sharing them: `count` elements of `dtype` from byte `offset` (all that fit if -1)."""
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    return _from_buffer(buffer, _dtype.to_dtype(dtype), count, offset, requires_grad)


def _from_buffer(
    buffer: Any, dt: _dtype.dtype, count: int, offset: int, requires_grad: bool
) -> Tensor:
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, size = view.nbytes, dt.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % size:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be "
                f"a multiple of element size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    if view.readonly:
        _warn_once(_NOT_WRITABLE, 3)  # the caller of frombuffer or asarray
    data = np.frombuffer(view.cast("B"), dtype=dt.np, count=count, offset=offset)
    return _finish(data, requires_grad)


# --- asarray -------------------------------------------------------------------------------


def _alias_error(what: str, have: Any, want: Any) -> ValueError:
    return ValueError(f"can't alias {what} '{have}' into {what.split()[-1]} '{want}'.")


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool | None = None,
) -> Tensor:
    """`obj` as a tensor, sharing memory with it where it can.

    A tensor, a NumPy array or an object with the buffer protocol is used as it is
    unless `copy=True` or `dtype` differs (a copy then; with `copy=False`, an error).
    Other data (numbers, nested sequences) is always copied. `requires_grad` defaults to
    the tensor's own, and is set on the result: on a leaf passed in, that is the leaf.
    """
    force_copy, force_alias = copy is True, copy is False
    want = _dtype.to_dtype(dtype) if dtype is not None else None
    source = obj if isinstance(obj, Tensor) else None
    wants_grad = requires_grad
    if wants_grad is None:
        wants_grad = source is not None and source.requires_grad
        if wants_grad:
            _warn_once(_REQUIRES_GRAD_DEFAULT, 2)
    if source is None and isinstance(obj, np.ndarray | np.generic):
        if isinstance(obj, np.generic):
            if force_alias:
                raise RuntimeError(
                    "can't alias NumPy scalars. Either remove copy=False or transform it in a "
                    "ndarray. "
                )
            source, force_copy = Tensor._make(np.array(obj)), False  # a copy already
        else:
            source = Tensor._make(_dtype_checked(obj))
    if source is None and not isinstance(obj, list | tuple):
        try:
            memoryview(obj)
        except TypeError:
            pass
        else:
            default = want if want is not None else _dtype.get_default_dtype()
            source = _from_buffer(obj, default, -1, 0, False)
    if source is None:
        if force_alias:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        made = tensor(obj, dtype=want, device=device)
        return _finish(made._data, bool(wants_grad))
    if device is not None and _device(device).type != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {_device(device).type} devices")
    out = _aliased(source, want, force_copy, force_alias)
    if not out.is_leaf and not wants_grad:
        return out.detach()
    return out.requires_grad_(bool(wants_grad))


def _dtype_checked(array: np.ndarray) -> np.ndarray:
    _dtype.from_numpy_dtype(array.dtype)  # PyTorch's error for a dtype it lacks
    return array


def _aliased(source: Tensor, want: Any, force_copy: bool, force_alias: bool) -> Tensor:
    """`source` itself, or a copy of it where asked for or where the dtype differs."""
    wrong_dtype = want is not None and want.np != source._data.dtype
    if force_alias and wrong_dtype:
        have = _dtype.scalar_name(source)
        raise _alias_error("tensor with dtype", have, _dtype.scalar_name(want))
    if wrong_dtype:
        return source.to(want, copy=force_copy)
    return source.clone() if force_copy else source


# --- empty_strided -------------------------------------------------------------------------


def _strided_array(size: Sequence[Any], stride: Sequence[Any], dt: _dtype.dtype) -> np.ndarray:
    if not isinstance(size, Sequence):
        raise TypeError(
            "empty_strided(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(size).__name__}"
        )
    shape = _size_args((size,))
    steps = tuple(int(s) for s in stride)
    if len(shape) != len(steps):
        raise RuntimeError(
            f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
            f"({len(steps)})"
        )
    if any(s < 0 for s in steps) and 0 not in shape:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)} and "
            f"strides={list(steps)}"
        )
    needed = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, steps, strict=True))
    storage = np.zeros(needed, dt.np)
    return np.lib.stride_tricks.as_strided(
        storage, shape, tuple(s * dt.itemsize for s in steps), writeable=True
    )


def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A tensor of `size` laid out with `stride` (in elements) over a storage just big enough.

    Uninitialised in PyTorch; zeros here, so results never depend on stale memory.
    """
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if device is not None:
        require_cpu(device)
    return _finish(_strided_array(size, stride, dt), requires_grad)


def new_empty_strided(
    self: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """`empty_strided` of `self`'s dtype unless `dtype` is given."""
    dt = dtype if dtype is not None else _dtype.from_numpy_dtype(self._data.dtype)
    return empty_strided(size, stride, dtype=dt, device=device, requires_grad=requires_grad)
