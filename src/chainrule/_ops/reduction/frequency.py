"""Equal values counted: mode, unique and unique_consecutive.

mode sorts each slice as PyTorch's kernel does (C++'s `std::sort` on the values with
a plain `<`) and takes the first longest run of equal values, reporting the index of
the run's last entry in that order; its values' gradient goes back to that entry.
unique and unique_consecutive have no derivative in PyTorch: their nodes say so when
backward reaches them. NaN never equals NaN, so each NaN is its own value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import return_types
from ..._tensor import Tensor
from ..primitive import Primitive, wrap_dim
from .common import bind, check_int_dim, index_tensor, selecting
from .introsort import introsort, plain_less, unstable_order

__all__ = ["mode", "unique", "unique_consecutive"]

# --- mode ---------------------------------------------------------------------------------

_mode_values = selecting("ModeBackward0")


def _mode_index(a: np.ndarray, d: int) -> np.ndarray:
    """Per slice along `d` (kept as a size-1 dim): the index PyTorch's mode reports."""
    order = np.moveaxis(unstable_order(a, d, plain_less), d, -1)
    ranked = np.take_along_axis(np.moveaxis(a, d, -1), order, axis=-1)
    n = ranked.shape[-1]
    # A run ends where the next value differs (NaN differs from everything, itself too).
    ends = np.ones(ranked.shape, bool)
    ends[..., :-1] = ranked[..., 1:] != ranked[..., :-1]
    position = np.broadcast_to(np.arange(n), ranked.shape)
    # The end of the run before each position: a running max of the ends seen so far.
    seen = np.where(ends, position, -1)
    before = np.concatenate([np.full((*ranked.shape[:-1], 1), -1), seen[..., :-1]], axis=-1)
    lengths = np.where(ends, position - np.maximum.accumulate(before, axis=-1), 0)
    best_end = np.argmax(lengths, axis=-1)  # the first longest run wins
    index = np.take_along_axis(order, best_end[..., None], axis=-1)
    return np.moveaxis(index, -1, d)


def _mode(input: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any], first: int) -> Any:
    """mode's arguments read as PyTorch's parser reads them (`first`: dim's position)."""
    params = bind(args, kwargs, ("dim", "keepdim"), {"dim", "keepdim"})
    if params is None:
        raise TypeError(f"mode() takes at most {first + 1} arguments ({len(args) + first} given)")
    dim = params.get("dim", -1)
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        where = "" if "dim" in kwargs else f" (position {first})"
        raise TypeError(f"mode(): argument 'dim'{where} must be int, not {type(dim).__name__}")
    return _mode_of(input, wrap_dim(int(dim), input.ndim), bool(params.get("keepdim", False)))


def mode(input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`mode(input, dim=-1, keepdim=False)`: the most frequent value along `dim` (the
    smallest if several are) and an index of it."""
    return _mode(input, args, kwargs, first=2)


def mode_method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """`x.mode(dim=-1, keepdim=False)`, as `mode`."""
    return _mode(self, args, kwargs, first=1)


mode_method.__name__ = mode_method.__qualname__ = "mode"


def _mode_of(input: Tensor, d: int, keepdim: bool) -> Any:
    if input.ndim == 0:
        index = np.zeros((), np.int64)
        return return_types.mode((_mode_values(input, index, 0), Tensor._make(index)))
    if input._data.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if input._data.size == 0:
        index = np.zeros((*input._data.shape[:d], 1, *input._data.shape[d + 1 :]), np.int64)
    else:
        index = _mode_index(input._data, d)
    values = _mode_values(input, index, d, keepdim=keepdim)
    return return_types.mode((values, index_tensor(index, d, keepdim)))


# --- unique and unique_consecutive --------------------------------------------------------


def _no_derivative(op: str) -> Any:
    def rule(g: Tensor, n: Any) -> Tensor:
        raise NotImplementedError(f"the derivative for '{op}' is not implemented.")

    return rule


_unique_flat = Primitive(
    "Unique2Backward0",
    lambda a, values: values,
    grads=(_no_derivative("_unique2"),),
    formulas=("none: PyTorch has no derivative for unique",),
)
_unique_dim = Primitive(
    "UniqueDimBackward0",
    lambda a, values: values,
    grads=(_no_derivative("unique_dim"),),
    formulas=("none: PyTorch has no derivative for unique",),
)
_unique_consecutive = Primitive(
    "UniqueConsecutiveBackward0",
    lambda a, values: values,
    grads=(_no_derivative("unique_consecutive"),),
    formulas=("none: PyTorch has no derivative for unique_consecutive",),
)


def _as_rows(a: np.ndarray, d: int) -> np.ndarray:
    """The slices along `d`, each flattened into one row."""
    return np.moveaxis(a, d, 0).reshape(a.shape[d], -1)


def _from_rows(rows: np.ndarray, a: np.ndarray, d: int) -> np.ndarray:
    moved = np.moveaxis(a, d, 0).shape
    return np.moveaxis(rows.reshape((rows.shape[0], *moved[1:])), 0, d)


def _check_bool(name: str, value: Any, arg: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name}(): argument '{arg}' must be bool, not {type(value).__name__}")
    return bool(value)


def _results(
    values: Tensor, inverse: np.ndarray, counts: np.ndarray, want_inverse: bool, want_counts: bool
) -> Any:
    extra = [Tensor._make(inverse.astype(np.int64))] if want_inverse else []
    if want_counts:
        extra.append(Tensor._make(counts.astype(np.int64)))
    return (values, *extra) if extra else values


def _unique_all(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    flat = a.reshape(-1)
    values, inverse, counts = np.unique(
        flat, return_inverse=True, return_counts=True, equal_nan=False
    )
    return values, inverse.reshape(a.shape), counts


def _row_less(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """PyTorch's order of slices for unique: the first entry that is `<` or `>` decides
    (a NaN is neither, so it is stepped over)."""
    for x, y in zip(a, b, strict=True):
        if x < y:
            return True
        if x > y:
            return False
    return False


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows in lexicographic order, each row's place among them, and counts."""
    if rows.dtype.kind == "f" and np.isnan(rows).any():
        # NaN makes the order depend on the sorting algorithm: follow PyTorch's.
        order = np.array(introsort([tuple(r) for r in rows.tolist()], _row_less), np.int64)
    else:  # equal rows merge, so any sort that is lexicographic gives the same result
        order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
    ranked = rows[order]
    new = np.ones(len(ranked), bool)
    new[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(rows), np.int64)
    inverse[order] = group
    return ranked[new], inverse, np.bincount(group)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct values of `input` in ascending order (or its distinct slices along
    `dim`), with where each entry went (`return_inverse`) and how often each occurs."""
    name = "_unique2" if dim is None else "unique_dim"
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    _check_bool(name, sorted, "sorted")
    want_inverse = _check_bool(name, return_inverse, "return_inverse")
    want_counts = _check_bool(name, return_counts, "return_counts")
    a = input._data
    if dim is None:
        values, inverse, counts = _unique_all(a)
        out = _unique_flat(input, values=values)
        return _results(out, inverse, counts, want_inverse, want_counts)
    d = _dim(name, input, dim)
    if _nothing_to_compare(a, d):
        empty = np.empty(0, np.int64)
        out = _unique_dim(input, values=a.copy())
        return _results(out, empty, empty, want_inverse, want_counts)
    rows, inverse, counts = _unique_rows(_as_rows(a, d))
    out = _unique_dim(input, values=_from_rows(rows, a, d))
    return _results(out, inverse, counts, want_inverse, want_counts)


def _nothing_to_compare(a: np.ndarray, d: int) -> bool:
    """No slices along `d` (the result is the empty input); slices of no entries are an error."""
    if a.size and a.shape[d]:
        return False
    if a.shape[d] != 0:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    return True


def _dim(name: str, input: Tensor, dim: Any) -> int:
    dim = check_int_dim(name, dim, 2)
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, input.ndim)


def unique_consecutive(
    input: Tensor,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """`input` with each run of equal consecutive values (or slices along `dim`) kept once,
    with each entry's run (`return_inverse`) and the runs' lengths (`return_counts`)."""
    name = "unique_consecutive"
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    want_inverse = _check_bool(name, return_inverse, "return_inverse")
    want_counts = _check_bool(name, return_counts, "return_counts")
    a = input._data
    d = None if dim is None else _dim(name, input, dim)
    if d is not None and _nothing_to_compare(a, d):
        empty = np.empty(0, np.int64)
        out = _unique_consecutive(input, values=a.copy())
        return _results(out, empty, empty, want_inverse, want_counts)
    rows = a.reshape(-1, 1) if d is None else _as_rows(a, d)
    new = np.ones(rows.shape[0], bool)
    new[1:] = (rows[1:] != rows[:-1]).any(axis=1) if rows.shape[1] else False
    inverse = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, rows.shape[0]))
    if d is None:
        values = a.reshape(-1)[new]
        inverse = inverse.reshape(a.shape)
    else:
        values = _from_rows(rows[new], a, d)
    out = _unique_consecutive(input, values=values)
    return _results(out, inverse, counts, want_inverse, want_counts)
