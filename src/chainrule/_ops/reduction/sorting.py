"""Order statistics: sort, argsort, msort, topk, kthvalue, median, nanmedian.

Orders are stable (ties keep their input order, NaN counts as the largest value),
descending ones too; the values are gathered from the input with the indices,
so their gradient goes back to the entries they were picked from.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import return_types
from ..._strides import like_first
from ..._tensor import Tensor
from ..primitive import Primitive, wrap_dim
from .common import (
    bind,
    check_int_dim,
    index_tensor,
    invalid_arguments,
    selecting,
)
from .extrema import share_evenly

__all__ = ["argsort", "kthvalue", "median", "msort", "nanmedian", "sort", "topk"]


def stable_order(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Indices that sort `a` along `dim`, ties in input order (NaN last; first if descending)."""
    if a.ndim == 0:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    # Ascending on the reversed input, read backwards: descending, ties still in input order.
    backwards = np.argsort(np.flip(a, dim), axis=dim, kind="stable")
    return a.shape[dim] - 1 - np.flip(backwards, dim)


def _pick(order: np.ndarray, position: Any, dim: int) -> np.ndarray:
    """The entries of `order` at `position` along `dim` (kept as a size-1 dim)."""
    if order.ndim == 0:
        return order
    if isinstance(position, int):
        return np.take(order, [position], axis=dim)
    return np.take_along_axis(order, np.expand_dims(position, dim), axis=dim)


def _dim_of(name: str, input: Tensor, dim: Any) -> int:
    return wrap_dim(check_int_dim(name, dim), input.ndim)


def _size_along(input: Tensor, d: int) -> int:
    return input._data.shape[d] if input.ndim else 1


# --- sort ---------------------------------------------------------------------------------

# PyTorch records the overload with a `stable` argument as SortBackward1.
# Sorted values and their indices are laid out as the input is.
sort_values = selecting("SortBackward0", layout=like_first)
_stable_sort_values = selecting("SortBackward1", layout=like_first)
_SIGNATURES = {
    False: (
        "Tensor input, *, bool stable, int dim = -1, bool descending = False",
        "Tensor input, int dim = -1, bool descending = False",
    ),
    True: (
        "*, bool stable, int dim = -1, bool descending = False",
        "int dim = -1, bool descending = False",
    ),
}


def _sort_arguments(
    name: str, input: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any], method: bool
) -> tuple[int, bool, bool]:
    """(dim, descending, whether `stable` was given): `stable` only with keyword arguments."""
    params = bind(args, kwargs, ("dim", "descending"), {"dim", "descending", "stable"})
    if params is None or ("stable" in kwargs and args):
        raise invalid_arguments(
            name, args if method else (input, *args), kwargs, _SIGNATURES[method]
        )
    d = _dim_of(name, input, params.get("dim", -1))
    return d, bool(params.get("descending", False)), "stable" in params


def _sort(
    name: str, input: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any], method: bool
) -> Any:
    d, descending, stable = _sort_arguments(name, input, args, kwargs, method)
    order = stable_order(input._data, d, descending)
    if name == "argsort":
        return index_tensor(order, d, keepdim=True, like=input._data)
    values = (_stable_sort_values if stable else sort_values)(input, order, d)
    return return_types.sort((values, index_tensor(order, d, keepdim=True, like=input._data)))


def sort(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`sort(input, dim=-1, descending=False)` or with `stable=` (keywords only): (values, indices).

    Always stable: ties keep their input order.
    """
    return _sort("sort", input, args, kwargs, method=False)


def argsort(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The indices that sort `input` along `dim` (stable); int64. Arguments as for `sort`."""
    return _sort("argsort", input, args, kwargs, method=False)


# The methods: their errors list the method's signatures.


def sort_method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`x.sort(dim=-1, descending=False)`, as `sort`: (values, indices)."""
    return _sort("sort", self, args, kwargs, method=True)


sort_method.__name__ = sort_method.__qualname__ = "sort"


def argsort_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The indices that sort `x` along `dim`, as `argsort`."""
    return _sort("argsort", self, args, kwargs, method=True)


argsort_method.__name__ = argsort_method.__qualname__ = "argsort"


def msort(input: Tensor) -> Tensor:
    """`input` sorted along its first dim."""
    return _sort("sort", input, (0,), {}, method=False).values


# --- topk and kthvalue --------------------------------------------------------------------

_topk_values = selecting("TopkBackward0")
_kthvalue_values = selecting("KthvalueBackward0")


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """The `k` largest (smallest) entries along `dim` and their indices, always in order."""
    d = _dim_of("topk", input, dim)
    if input._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if not 0 <= k <= _size_along(input, d):
        raise RuntimeError("selected index k out of range")
    order = stable_order(input._data, d, descending=largest)
    if order.ndim:
        order = np.take(order, np.arange(k), axis=d)
    values = _topk_values(input, order, d)
    return return_types.topk((values, index_tensor(order, d, keepdim=True)))


def _check_reducible(name: str, input: Tensor, d: int) -> None:
    if input.ndim and input._data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The `k`-th smallest entry along `dim` (k counts from 1) and its index."""
    d = _dim_of("kthvalue", input, dim)
    _check_reducible("kthvalue", input, d)
    if not 1 <= k <= _size_along(input, d):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    index = _pick(stable_order(input._data, d, descending=False), k - 1, d)
    values = _kthvalue_values(input, index, d, keepdim=keepdim)
    return return_types.kthvalue((values, index_tensor(index, d, keepdim)))


# --- median and nanmedian -----------------------------------------------------------------


def _lower_median(a: np.ndarray, skip_nan: bool) -> np.ndarray:
    """The lower median of all of `a`: NaN if any entry is (unless skipped) or there is none."""
    flat = np.sort(a.reshape(-1))  # NaN sorts last
    nan = np.isnan(flat) if flat.dtype.kind == "f" else np.zeros(flat.shape, bool)
    count = flat.size - int(nan.sum()) if skip_nan else flat.size
    if flat.size == 0 or (nan.any() and not skip_nan):
        return np.asarray(np.nan, dtype=a.dtype if a.dtype.kind == "f" else np.float32)
    return np.asarray(flat[(max(count, 1) - 1) // 2])


_median_all = Primitive(
    "MedianBackward0",
    lambda a: _lower_median(a, skip_nan=False),
    grads=(lambda g, n: share_evenly(g, n.self, n.result),),
    formulas=("1/k at the k entries equal to result, else 0",),
)
_nanmedian_all = Primitive(
    "NanmedianBackward0",
    lambda a: _lower_median(a, skip_nan=True),
    grads=(lambda g, n: share_evenly(g, n.self, n.result),),
    formulas=("1/k at the k entries equal to result, else 0",),
)
_median_values = selecting("MedianBackward1")
_nanmedian_values = selecting("NanmedianBackward1")


def _median_index(a: np.ndarray, d: int, skip_nan: bool) -> np.ndarray:
    """Per slice along `d`: where the lower median is; with NaN (not skipped), the first NaN."""
    order = stable_order(a, d, descending=False)
    if a.ndim == 0:
        return order
    nan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    if skip_nan:
        count = a.shape[d] - nan.sum(axis=d)
        return _pick(order, (np.maximum(count, 1) - 1) // 2, d)
    index = _pick(order, (a.shape[d] - 1) // 2, d)
    first_nan = np.expand_dims(np.argmax(nan, axis=d), d)
    return np.where(np.expand_dims(nan.any(axis=d), d), first_nan, index)


def _median(name: str, input: Tensor, dim: Any, keepdim: bool) -> Any:
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    skip_nan = name == "nanmedian"
    if dim is None:
        return (_nanmedian_all if skip_nan else _median_all)(input)
    d = _dim_of(name, input, dim)
    _check_reducible("median", input, d)
    index = _median_index(input._data, d, skip_nan)
    values = (_nanmedian_values if skip_nan else _median_values)(input, index, d, keepdim=keepdim)
    named = return_types.nanmedian if skip_nan else return_types.median
    return named((values, index_tensor(index, d, keepdim)))


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median (of all entries, or along `dim` with its index); NaN if any is NaN."""
    return _median("median", input, dim, keepdim)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median of the entries that are not NaN (of all, or along `dim`)."""
    return _median("nanmedian", input, dim, keepdim)
