"""Op table lines for the views by strides and the functional scatters (read by
tests/test_ops.py): as_strided (overlapping windows, a storage offset, a view of a
view), as_strided_, unfold, fill_diagonal_, and diagonal_scatter,
select_scatter and slice_scatter. Views of the base's memory, in-place writes through
them, errors, and as_strided_scatter (whose gradient for the input PyTorch gets wrong:
it keeps the written region, so no finite difference agrees) are checked in
tests/test_strided.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided as np_as_strided

from op_table import Op, lib


def _strided_ref(shape: tuple[int, ...], strides: tuple[int, ...], offset: int = 0):
    """as_strided on a contiguous array's elements, in NumPy."""

    def ref(x: np.ndarray) -> np.ndarray:
        flat = np.ascontiguousarray(x).reshape(-1)[offset:]
        return np_as_strided(flat, shape, tuple(s * flat.itemsize for s in strides)).copy()

    return ref


def _written(x: np.ndarray, key: Any, v: Any) -> np.ndarray:
    out = x.copy()
    out[key] = v
    return out


def _diagonal_written(x: np.ndarray, v: np.ndarray, offset: int) -> np.ndarray:
    out = x.copy()
    i = np.arange(v.shape[-1])
    out[..., i + max(-offset, 0), i + max(offset, 0)] = v
    return out


def _unfold_ref(dim: int, size: int, step: int):
    def ref(x: np.ndarray) -> np.ndarray:
        windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=dim)
        return np.take(windows, np.arange(0, windows.shape[dim], step), axis=dim)

    return ref


def _filled_diagonal(x: np.ndarray, value: float, wrap: bool = False) -> np.ndarray:
    out = x.copy()
    np.fill_diagonal(out, value, wrap=wrap)
    return out


# fmt: off
OPS: tuple[Op, ...] = (
    # views by strides
    Op("as_strided", lambda x: x.as_strided((2, 2), (1, 2), 1), _strided_ref((2, 2), (1, 2), 1),
       (((3, 4),),)),
    Op("as_strided_overlap", lambda x: lib(x).as_strided(x, (3, 3), (1, 1)),
       _strided_ref((3, 3), (1, 1)), (((3, 4),),),
       note="overlapping windows: an element read twice gets both gradients"),
    Op("as_strided_broadcast", lambda x: x.as_strided((2, 3), (0, 2), 5),
       _strided_ref((2, 3), (0, 2), 5), (((3, 4),),)),
    Op("as_strided_of_view", lambda x: (x * 1)[1:].as_strided((2, 2), (1, 4)),
       lambda x: _strided_ref((2, 2), (1, 4), 4)(x), (((3, 4),),)),
    Op("as_strided_of_expanded", lambda x: x.expand(3, 4).as_strided((3,), (1,)),
       _strided_ref((3,), (1,)), (((1, 4),),),
       note="the expanded input sees each place three times: its gradient is averaged"),
    Op("as_strided_", lambda x: (x * 1).as_strided_((2, 3), (1, 3), 2),
       _strided_ref((2, 3), (1, 3), 2), (((3, 4),),)),
    Op("unfold", lambda x: x.unfold(1, 2, 1), _unfold_ref(1, 2, 1), (((3, 4),),)),
    Op("unfold_step", lambda x: x.unfold(0, 2, 2), _unfold_ref(0, 2, 2), (((5, 2),),)),
    Op("unfold_0d", lambda x: x.unfold(0, 1, 1), lambda x: x.reshape(1), (((),),)),
    Op("fill_diagonal_", lambda x: (x * 1).fill_diagonal_(0.5),
       lambda x: _filled_diagonal(x, 0.5), (((3, 4),), ((3, 3, 3),))),
    Op("fill_diagonal_wrap", lambda x: (x * 1).fill_diagonal_(-1.0, wrap=True),
       lambda x: _filled_diagonal(x, -1.0, wrap=True), (((7, 3),),)),
    # a copy with one view replaced
    Op("diagonal_scatter", lambda x, s: lib(x).diagonal_scatter(x, s),
       lambda x, s: _diagonal_written(x, s, 0), (((3, 4), (3,)),)),
    Op("diagonal_scatter_offset", lambda x, s: x.diagonal_scatter(s, -1),
       lambda x, s: _diagonal_written(x, s, -1), (((3, 4), (2,)),)),
    Op("diagonal_scatter_dims", lambda x, s: x.diagonal_scatter(s, 1, 1, 2),
       lambda x, s: _diagonal_written(x, s, 1), (((2, 3, 3), (2, 2)),)),
    Op("select_scatter", lambda x, s: lib(x).select_scatter(x, s, 0, -1),
       lambda x, s: _written(x, -1, s), (((3, 4), (4,)),)),
    Op("select_scatter_dim", lambda x, s: x.select_scatter(s, 1, 2),
       lambda x, s: _written(x, (slice(None), 2), s), (((3, 4), (3,)),)),
    Op("slice_scatter", lambda x, s: lib(x).slice_scatter(x, s, 1, 0, 4, 2),
       lambda x, s: _written(x, (slice(None), slice(0, 4, 2)), s), (((3, 4), (3, 2)),)),
    Op("slice_scatter_default", lambda x, s: x.slice_scatter(s, start=-3, end=-1),
       lambda x, s: _written(x, slice(-3, -1), s), (((5, 2), (2, 2)),)),
)
# fmt: on
