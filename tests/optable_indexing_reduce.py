"""Op table lines for reducing values into a tensor by index (read by tests/test_ops.py):
scatter_reduce, index_reduce (each reduction, with and without include_self) and put.

The index tensors send several values to one place, so every reduction meets more
than one value somewhere; the drawn values have no ties and no zeros, where the
gradients are smooth. Ties, zeros, integer dtypes and errors are checked in
tests/test_indexing_reduce.py.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from op_table import Op, lib

SCATTER_IDX = [[0, 1, 2, 0], [0, 0, 2, 2]]  # into a (3, 4) tensor along dim 0
INDEX_IDX = [0, 2, 0]  # slices along dim 0 of a (3, 4) tensor (or dim 1 of a (2, 3) one)
FLAT_IDX = [[0, 5], [-1, 5]]  # flat positions in a (2, 3) tensor

_NP_REDUCE = {
    "sum": np.sum,
    "prod": np.prod,
    "mean": np.mean,
    "amax": np.max,
    "amin": np.min,
}


def _reduced(x: np.ndarray, groups: dict[Any, list[float]], reduce: str, include: bool):
    """`x` with each place in `groups` replaced by the reduction of its values (and its own)."""
    out = x.copy()
    for place, values in groups.items():
        out[place] = _NP_REDUCE[reduce](([x[place]] if include else []) + values)
    return out


def _scatter_reduce_ref(reduce: str, include: bool):
    def ref(x: np.ndarray, s: np.ndarray) -> np.ndarray:
        groups: dict[Any, list[float]] = {}
        for i, j in itertools.product(range(2), range(4)):
            groups.setdefault((SCATTER_IDX[i][j], j), []).append(s[i, j])
        return _reduced(x, groups, reduce, include)

    return ref


def _index_reduce_ref(reduce: str, include: bool, dim: int):
    def ref(x: np.ndarray, s: np.ndarray) -> np.ndarray:
        xm, sm = np.moveaxis(x, dim, 0), np.moveaxis(s, dim, 0)
        groups: dict[Any, list[float]] = {}
        for k, row in enumerate(INDEX_IDX):
            for rest in np.ndindex(xm.shape[1:]):
                groups.setdefault((row, *rest), []).append(sm[(k, *rest)])
        return np.moveaxis(_reduced(xm, groups, reduce, include), 0, dim)

    return ref


def _put_accumulate_ref(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1).copy()
    np.add.at(flat, np.ravel(FLAT_IDX), s.reshape(-1))
    return flat.reshape(x.shape)


def _scatter_line(reduce: str, include: bool) -> Op:
    def fn(x: Any, s: Any) -> Any:
        return x.scatter_reduce(0, lib(x).tensor(SCATTER_IDX), s, reduce, include_self=include)

    suffix = "" if include else "_exclude_self"
    return Op(
        f"scatter_reduce_{reduce}{suffix}",
        fn,
        _scatter_reduce_ref(reduce, include),
        (((3, 4), (2, 4)),),
    )


def _index_line(reduce: str, include: bool) -> Op:
    def fn(x: Any, s: Any) -> Any:
        index = lib(x).tensor(INDEX_IDX)
        dim = 0 if x.shape[0] == 3 else 1
        return lib(x).index_reduce(x, dim, index, s, reduce, include_self=include)

    def ref(x: np.ndarray, s: np.ndarray) -> np.ndarray:
        return _index_reduce_ref(reduce, include, 0 if x.shape[0] == 3 else 1)(x, s)

    suffix = "" if include else "_exclude_self"
    return Op(
        f"index_reduce_{reduce}{suffix}",
        fn,
        ref,
        (((3, 4), (3, 4)), ((2, 3), (2, 3))),
        forward_ad=False,
    )


# fmt: off
OPS: tuple[Op, ...] = (
    *(_scatter_line(r, inc) for r in _NP_REDUCE for inc in (True, False)),
    Op("scatter_reduce_", lambda x, s: (x * 1).scatter_reduce_(
        0, lib(x).tensor(SCATTER_IDX), s, "mean", include_self=False),
       _scatter_reduce_ref("mean", False), (((3, 4), (2, 4)),)),
    Op("scatter_reduce_fn", lambda x, s: lib(x).scatter_reduce(
        x, 0, lib(x).tensor(SCATTER_IDX), s, reduce="mean"),
       _scatter_reduce_ref("mean", True), (((3, 4), (2, 4)),)),
    *(_index_line(r, inc) for r in ("prod", "mean", "amax", "amin") for inc in (True, False)),
    Op("index_reduce_", lambda x, s: (x * 1).index_reduce_(0, lib(x).tensor(INDEX_IDX), s, "amax"),
       _index_reduce_ref("amax", True, 0), (((3, 4), (3, 4)),), forward_ad=False),
    Op("put", lambda x, s: x.put(lib(x).tensor([[0, 5], [-2, 1]]), s),
       lambda x, s: _assigned_flat(x, [0, 5, -2, 1], s), (((2, 3), (2, 2)), ((2, 3), (4,)))),
    Op("put_accumulate", lambda x, s: lib(x).put(x, lib(x).tensor(FLAT_IDX), s, True),
       _put_accumulate_ref, (((2, 3), (4,)),)),
    Op("put_", lambda x, s: (x * 1).put_(lib(x).tensor([4, 0]), s, accumulate=False),
       lambda x, s: _assigned_flat(x, [4, 0], s), (((2, 3), (2,)),)),
)
# fmt: on


def _assigned_flat(x: np.ndarray, index: list[int], s: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1).copy()
    flat[index] = s.reshape(-1)
    return flat.reshape(x.shape)
