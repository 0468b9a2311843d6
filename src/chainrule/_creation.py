"""Making tensors: from data, filled, ranges, `*_like`, and the legacy constructors."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype, _strides
from ._device import require_cpu
from ._float_math import fma
from ._ops.quiet import quiet
from ._tensor import Tensor

__all__ = [
    "arange",
    "as_tensor",
    "empty",
    "empty_like",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "linspace",
    "ones",
    "ones_like",
    "tensor",
    "zeros",
    "zeros_like",
]


def _finish(data: np.ndarray, requires_grad: bool, dev: Any = None) -> Tensor:
    if dev is not None:
        require_cpu(dev)
    if requires_grad and data.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return Tensor._make(data, requires_grad=bool(requires_grad))


def _unwrap(obj: Any) -> Any:
    """Nested data with tensors replaced by their arrays (so NumPy can stack them)."""
    if isinstance(obj, Tensor):
        return obj._data
    if isinstance(obj, list | tuple):
        return [_unwrap(o) for o in obj]
    return obj


def _infer_array(data: Any, dtype: np.dtype | None = None) -> np.ndarray:
    """Python data as an array: of `dtype` if given, else of PyTorch's inferred dtype.

    With an explicit dtype the values go straight to it (so `tensor([0.1],
    dtype=float64)` is not rounded through float32 first).
    """
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return data
    if isinstance(data, np.generic):
        return np.asarray(data)
    try:
        arr = np.array(_unwrap(data))
    except ValueError:
        _check_ragged(data)
        raise
    if arr.dtype == object or arr.dtype.kind in "USc":
        raise TypeError(
            f"new(): invalid data type '{type(_first_leaf(data)).__name__}'"
            if arr.dtype.kind != "c"
            else "complex tensors are not supported"
        )
    inferred = _infer_dtype(data)
    # A value too big for the dtype becomes inf quietly, as in PyTorch.
    if dtype is not None:
        arr = quiet(arr.astype, dtype, copy=False)
    elif inferred is not None:
        arr = quiet(arr.astype, inferred.np, copy=False)
    elif arr.dtype.kind == "f":
        arr = quiet(arr.astype, _dtype.get_default_dtype().np)
    return arr


def _first_leaf(data: Any) -> Any:
    """The first element of nested lists that is not a number (what PyTorch's error names)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif not isinstance(item, bool | int | float | Tensor | np.ndarray | np.generic):
            return item
    return data


def _check_ragged(data: Any) -> None:
    """PyTorch's error for nested sequences whose lengths disagree with the first ones."""
    sizes = []
    item = data
    while isinstance(item, list | tuple):
        sizes.append(len(item))
        if not item:
            break
        item = item[0]
    stack = [(data, 0)]
    while stack:
        seq, dim = stack.pop()
        if dim == len(sizes):
            if isinstance(seq, list | tuple):
                raise TypeError("'list' object cannot be interpreted as an integer")
            continue
        if not isinstance(seq, list | tuple):
            raise TypeError("not a sequence")
        if len(seq) != sizes[dim]:
            raise ValueError(
                f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})"
            )
        stack.extend((s, dim + 1) for s in reversed(seq))


def _infer_dtype(data: Any) -> _dtype.dtype | None:
    """PyTorch's dtype for nested data: its elements' dtypes promoted together.

    A Python bool/int/float counts as bool/int64/the default float; a tensor or
    array element as its own dtype.
    """
    if isinstance(data, Tensor):
        return _dtype.from_numpy_dtype(data._data.dtype)
    if isinstance(data, np.ndarray | np.generic):
        return _dtype.from_numpy_dtype(data.dtype)
    if isinstance(data, list | tuple):
        out = None
        for item in data:
            d = _infer_dtype(item)
            if d is not None:
                out = d if out is None else _dtype.promote_types(out, d)
        return out
    if isinstance(data, bool):
        return _dtype.bool_
    if isinstance(data, int):
        return _dtype.int64
    if isinstance(data, float):
        return _dtype.get_default_dtype()
    return None


# PyTorch's warning when `tensor` or `Tensor.new_tensor` is given a tensor to copy.
_COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use "
    "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
    "requires_grad_(True), rather than {call}(sourceTensor)."
)


def tensor(
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of `data` (a number, nested lists, an array or a tensor)."""
    if isinstance(data, Tensor):
        warnings.warn(_COPY_CONSTRUCT.format(call="torch.tensor"), UserWarning, stacklevel=2)
    want = _dtype.to_dtype(dtype).np if dtype is not None else None
    arr = _infer_array(data, want)
    dt = want if want is not None else arr.dtype
    return _finish(np.array(arr, dtype=dt, copy=True), requires_grad, device)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like `tensor`, but shares memory with a tensor or array when no conversion is needed."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dtype.to_dtype(dtype).np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (writes to either show in both)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def _size_args(size: tuple[Any, ...]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], Sequence | np.ndarray):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, int | np.integer):
            raise TypeError(
                f"zeros(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(s).__name__}"
            )
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def _float_dtype(dtype: Any) -> np.dtype:
    return (_dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()).np


def zeros(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None
) -> Tensor:
    dims = size[0] if len(size) == 1 and isinstance(size[0], Sequence) else size
    if any(isinstance(d, int) and d < 0 for d in dims):
        raise RuntimeError("zeros: Dimension size must be non-negative.")  # as PyTorch words it
    return _finish(np.zeros(_size_args(size), _float_dtype(dtype)), requires_grad, device)


def ones(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None
) -> Tensor:
    return _finish(np.ones(_size_args(size), _float_dtype(dtype)), requires_grad, device)


def empty(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    # Uninitialised in PyTorch; zeros here, so results never depend on stale memory.
    return _finish(np.zeros(_size_args(size), _float_dtype(dtype)), requires_grad, device)


def full(
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.result_type(fill_value)
    return _finish(np.full(_size_args((size,)), fill_value, dt.np), requires_grad, device)


def _like(input: Tensor, dtype: Any) -> np.dtype:
    return _dtype.to_dtype(dtype).np if dtype is not None else input._data.dtype


def filled_like(input: Tensor, value: Any, dtype: np.dtype) -> np.ndarray:
    """An array shaped like `input` holding `value`, laid out as `input` is (PyTorch's
    preserve_format: a dense input's own strides)."""
    data = input._data
    if data.flags.c_contiguous or data.ndim < 2:
        return np.full(data.shape, value, dtype)
    out = _strides.laid_out(data.shape, _strides.preserving(data), dtype)
    out[...] = value
    return out


def zeros_like(
    input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    return _finish(filled_like(input, 0, _like(input, dtype)), requires_grad, device)


def ones_like(
    input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    return _finish(filled_like(input, 1, _like(input, dtype)), requires_grad, device)


def empty_like(
    input: Tensor, *, dtype: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


def full_like(
    input: Tensor, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    return _finish(filled_like(input, fill_value, _like(input, dtype)), requires_grad)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from `start` up to (not including) `end`, `step` apart."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is not None:
        dt = _dtype.to_dtype(dtype)
    elif all(isinstance(v, int) for v in values):
        dt = _dtype.int64
    else:
        dt = _dtype.get_default_dtype()
    n = math.ceil((end - start) / step)
    data = (start + np.arange(n, dtype=np.float64) * step) if dt.is_floating_point else None
    if data is None:
        data = np.arange(start, end, step, dtype=np.int64)[:n]
    return _finish(data.astype(dt.np), requires_grad, device)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`steps` evenly spaced values from `start` to `end`, both included."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _finish(_evenly_spaced(start, end, steps, _float_dtype(dtype)), requires_grad, device)


def _evenly_spaced(start: Any, end: Any, steps: int, dtype: np.dtype) -> np.ndarray:
    """PyTorch's linspace: the first half stepped up from `start`, the second half stepped
    down from `end`, each value one fused multiply-add (integer dtypes step in float64)."""
    if dtype.kind == "c":
        return np.linspace(complex(start), complex(end), steps).astype(dtype)
    if dtype.kind in "iub":  # PyTorch truncates the ends to integers first
        start, end = int(start), int(end)
    # float16 is stepped in float32 (close to PyTorch's, which differs in the last bit).
    work = np.dtype(np.float32) if dtype == np.float16 else dtype if dtype.kind == "f" else None
    work = np.dtype(np.float64) if work is None else work
    first, last = work.type(start), work.type(end)
    if steps <= 1:
        return np.full(steps, first).astype(dtype)
    step = (last - first) / work.type(steps - 1)
    index = np.arange(steps)
    up = fma(index.astype(work), step, first)
    down = fma(-(steps - 1 - index).astype(work), step, last)
    return np.where(index < steps // 2, up, down).astype(dtype)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    return _finish(np.eye(n, m if m is not None else n, dtype=_float_dtype(dtype)), requires_grad)


# --- the legacy constructors ---------------------------------------------------------------


def legacy_new(
    cls: type, dt: _dtype.dtype, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Tensor:
    """`Tensor(data)` copies data as `dt`; `Tensor(2, 3)` makes a (zero-filled) 2x3 tensor."""
    kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not args:
        data = np.zeros((0,), dt.np)
    elif all(isinstance(a, int | np.integer) for a in args) or (
        len(args) == 1 and type(args[0]).__name__ == "Size"
    ):
        data = np.zeros(_size_args(args), dt.np)
    elif len(args) == 1 and isinstance(args[0], float):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    elif len(args) == 1:
        data = np.array(_infer_array(args[0], dt.np), dtype=dt.np, copy=True)
    else:
        raise TypeError("new() received an invalid combination of arguments")
    t = Tensor._make(data)
    if cls is not Tensor:
        t.__class__ = cls
    return t


def _tensor_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """`Tensor([1, 2])` (float data) or `Tensor(2, 3)` (a shape): `Tensor.__new__`."""
    return legacy_new(cls, _dtype.get_default_dtype(), args, kwargs)


# The legacy constructor needs this module's data handling, which sits above Tensor.
_tensor_new.__name__, _tensor_new.__qualname__ = "__new__", "Tensor.__new__"
Tensor.__new__ = staticmethod(_tensor_new)  # type: ignore[method-assign]


class _LegacyTensorType(type):
    """`FloatTensor([1, 2])` builds a float32 tensor; `isinstance(t, FloatTensor)` checks dtype."""

    _dtype: _dtype.dtype

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return legacy_new(Tensor, cls._dtype, args, kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls._dtype.np


def _legacy(name: str, dt: _dtype.dtype) -> type:
    return _LegacyTensorType(name, (), {"_dtype": dt, "__module__": "chainrule"})


FloatTensor = _legacy("FloatTensor", _dtype.float32)
DoubleTensor = _legacy("DoubleTensor", _dtype.float64)
HalfTensor = _legacy("HalfTensor", _dtype.float16)
LongTensor = _legacy("LongTensor", _dtype.int64)
IntTensor = _legacy("IntTensor", _dtype.int32)
ShortTensor = _legacy("ShortTensor", _dtype.int16)
CharTensor = _legacy("CharTensor", _dtype.int8)
ByteTensor = _legacy("ByteTensor", _dtype.uint8)
BoolTensor = _legacy("BoolTensor", _dtype.bool_)


# --- Tensor.new_*: factories whose dtype defaults to the tensor's own ----------------


def _new_dtype(self: Tensor, dtype: Any) -> Any:
    return dtype if dtype is not None else _dtype.from_numpy_dtype(self._data.dtype)


def new_tensor(
    self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """`data` as a new tensor, of `self`'s dtype unless `dtype` is given."""
    if isinstance(data, Tensor):
        warnings.warn(_COPY_CONSTRUCT.format(call="tensor.new_tensor"), UserWarning, stacklevel=2)
        data = data._data
    return tensor(data, dtype=_new_dtype(self, dtype), device=device, requires_grad=requires_grad)


def new_zeros(
    self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """Zeros of `size`, of `self`'s dtype unless `dtype` is given."""
    return zeros(*size, dtype=_new_dtype(self, dtype), device=device, requires_grad=requires_grad)


def new_ones(
    self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """Ones of `size`, of `self`'s dtype unless `dtype` is given."""
    return ones(*size, dtype=_new_dtype(self, dtype), device=device, requires_grad=requires_grad)


def new_empty(
    self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """An uninitialized tensor of `size`, of `self`'s dtype unless `dtype` is given."""
    return empty(*size, dtype=_new_dtype(self, dtype), device=device, requires_grad=requires_grad)


def new_full(
    self: Tensor,
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`fill_value` everywhere in `size`, of `self`'s dtype unless `dtype` is given."""
    return full(
        size, fill_value, dtype=_new_dtype(self, dtype), device=device, requires_grad=requires_grad
    )
