"""Op table lines for the `*_copy` forms of the views (read by tests/test_ops.py): each is
its view in fresh contiguous memory, under the view's node name with `_copy` after it.
detach_copy (no derivative), errors, memory and dtypes are in tests/test_view_copies.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided as np_as_strided

from op_table import Op, lib


def _weighted_pieces(pieces: Any) -> Any:
    """Every piece in one result, each scaled by its position."""
    return sum((p.sum() * (i + 1) for i, p in enumerate(pieces)), start=pieces[0].sum() * 0)


def _strided(x: np.ndarray) -> np.ndarray:
    flat = np.ascontiguousarray(x).reshape(-1)[1:]
    return np_as_strided(flat, (2, 3), (flat.itemsize, 2 * flat.itemsize)).copy()


def _windows(x: np.ndarray) -> np.ndarray:
    return np.lib.stride_tricks.sliding_window_view(x, 2, axis=1)


# fmt: off
OPS: tuple[Op, ...] = (
    Op("alias_copy", lambda x: lib(x).alias_copy(x), lambda x: x.copy(), (((3, 4),),)),
    Op("as_strided_copy", lambda x: lib(x).as_strided_copy(x, (2, 3), (1, 2), 1), _strided,
       (((3, 4),),)),
    Op("diagonal_copy", lambda x: lib(x).diagonal_copy(x, 1, 0, 1),
       lambda x: np.diagonal(x, 1, 0, 1).copy(), (((3, 4),), ((2, 3, 3),))),
    Op("expand_copy", lambda x: lib(x).expand_copy(x, (2, 3, 4)),
       lambda x: np.broadcast_to(x, (2, 3, 4)).copy(), (((3, 1),), ((4,),))),
    Op("narrow_copy", lambda x: lib(x).narrow_copy(x, 1, 1, 2), lambda x: x[:, 1:3],
       (((3, 4),),)),
    Op("narrow_copy_method", lambda x: x.narrow_copy(0, 1, 2), lambda x: x[1:],
       (((3, 4),),)),
    Op("permute_copy", lambda x: lib(x).permute_copy(x, (2, 0, 1)),
       lambda x: np.transpose(x, (2, 0, 1)).copy(), (((2, 3, 4),),)),
    Op("select_copy", lambda x: lib(x).select_copy(x, 1, -1), lambda x: x[:, -1],
       (((3, 4),),)),
    Op("slice_copy", lambda x: lib(x).slice_copy(x, 1, 0, 3, 2), lambda x: x[:, 0:3:2],
       (((3, 4),),)),
    Op("slice_copy_defaults", lambda x: lib(x).slice_copy(x), lambda x: x.copy(),
       (((3, 4),),)),
    Op("split_copy", lambda x: lib(x).split_copy(x, 2)[1], lambda x: x[2:4], (((5, 3),),)),
    Op("split_copy_all", lambda x: _weighted_pieces(lib(x).split_copy(x, 2, 1)),
       lambda x: x[:, 0:2].sum() + 2 * x[:, 2:4].sum() + 3 * x[:, 4:].sum(), (((3, 5),),)),
    Op("split_with_sizes_copy", lambda x: lib(x).split_with_sizes_copy(x, [1, 3], 1)[1],
       lambda x: x[:, 1:], (((2, 4),),)),
    Op("squeeze_copy", lambda x: lib(x).squeeze_copy(x), lambda x: np.squeeze(x),
       (((3, 1, 2),),)),
    Op("squeeze_copy_dim", lambda x: lib(x).squeeze_copy(x, 1), lambda x: np.squeeze(x, 1),
       (((3, 1, 2),),)),
    Op("squeeze_copy_dims", lambda x: lib(x).squeeze_copy(x, (0, 1)),
       lambda x: np.squeeze(x, 1), (((3, 1, 2),),)),
    Op("t_copy", lambda x: lib(x).t_copy(x), lambda x: x.T.copy(), (((3, 4),), ((3,),))),
    Op("transpose_copy", lambda x: lib(x).transpose_copy(x, 0, -1),
       lambda x: np.swapaxes(x, 0, -1).copy(), (((2, 3, 4),),)),
    Op("unbind_copy", lambda x: lib(x).unbind_copy(x, 1)[2], lambda x: x[:, 2], (((2, 3),),)),
    Op("unbind_copy_all", lambda x: _weighted_pieces(lib(x).unbind_copy(x)),
       lambda x: x[0].sum() + 2 * x[1].sum() + 3 * x[2].sum(), (((3, 2),),)),
    Op("unfold_copy", lambda x: lib(x).unfold_copy(x, 1, 2, 1), _windows, (((3, 4),),)),
    Op("unsqueeze_copy", lambda x: lib(x).unsqueeze_copy(x, -1), lambda x: x[..., None],
       (((3, 4),),)),
    Op("view_copy", lambda x: lib(x).view_copy(x, (2, -1)), lambda x: x.reshape(2, -1),
       (((3, 4),),)),
)
# fmt: on
