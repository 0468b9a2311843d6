"""Op table lines of the shape and indexing family (read by tests/test_ops.py).

Index tensors are fixed inside each line (built with `lib(x)`), chosen so that
scatter-like writes never hit one place twice (PyTorch leaves the winner of a
repeated write unspecified); repeated indices are tested where they add up.
`y[idx] += v` with a repeated index is in tests/test_shape_indexing.py: PyTorch's
gradient there counts the overwritten reads, which finite differences don't.
Errors, views, dtypes and keyword forms are checked in tests/test_shape_indexing.py.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from op_table import Mask, Op, lib

IDX = [[0, 2, 1, 0], [1, 0, 2, 2]]  # rows of a (3, 4) target, no column repeated
ADD_IDX = [[0, 0, 2, 0], [0, 2, 0, 1]]  # repeats: scatter_add sums them
MASK = Mask((2, 3))


def _t(x: Any, data: Any) -> Any:
    return lib(x).tensor(data)


def _scatter_ref(x: np.ndarray, dim: int, index: Any, src: Any, add: bool = False) -> np.ndarray:
    index = np.asarray(index)
    out = x.copy()
    where = list(np.indices(index.shape, sparse=True))
    where[dim] = index
    values = src[tuple(slice(n) for n in index.shape)] if isinstance(src, np.ndarray) else src
    if add:
        np.add.at(out, tuple(where), values)
    else:
        out[tuple(where)] = values
    return out


def _index_add_ref(x: np.ndarray, dim: int, index: list[int], src: np.ndarray, alpha: float):
    out = x.copy()
    np.add.at(out, (slice(None),) * dim + (index,), alpha * src)
    return out


def _assigned(x: np.ndarray, key: Any, v: Any) -> np.ndarray:
    out = x.copy()
    out[key] = v
    return out


def _diag_embed_ref(x: np.ndarray, offset: int = 0) -> np.ndarray:
    n = x.shape[-1] + abs(offset)
    out = np.zeros((*x.shape[:-1], n, n))
    i = np.arange(x.shape[-1])
    out[..., i + max(-offset, 0), i + max(offset, 0)] = x
    return out


def _masked_scatter_ref(c: np.ndarray, x: np.ndarray, src: np.ndarray) -> np.ndarray:
    shape = np.broadcast_shapes(c.shape, x.shape)
    out = np.broadcast_to(x, shape).copy()
    mask = np.broadcast_to(c, shape)
    out[mask] = src.reshape(-1)[: mask.sum()]
    return out


def _weighted_pieces(pieces: Any) -> Any:
    """Every piece of a split in one result, each scaled by its position."""
    return sum((p.sum() * (i + 1) for i, p in enumerate(pieces)), start=pieces[0].sum() * 0)


def _block_diag_ref(*arrays: np.ndarray) -> np.ndarray:
    blocks = [a.reshape(1, -1) if a.ndim < 2 else a for a in arrays]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    r = c = 0
    for b in blocks:
        out[r : r + b.shape[0], c : c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _combinations_ref(x: np.ndarray, r: int, with_replacement: bool) -> np.ndarray:
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = [[x[i] for i in c] for c in pick(range(len(x)), r)]
    return np.array(rows).reshape(-1, r)


# fmt: off
OPS: tuple[Op, ...] = (
    # reshaping a dim and moving dims
    Op("unflatten", lambda x: x.unflatten(1, (2, -1)), lambda x: x.reshape(2, 2, 2), (((2, 4),),)),
    Op("unflatten_fn", lambda x: lib(x).unflatten(x, 0, (1, 2)), lambda x: x.reshape(1, 2, 3),
       (((2, 3),),)),
    Op("movedim", lambda x: x.movedim((0, 1), (2, 0)), lambda x: np.moveaxis(x, (0, 1), (2, 0)),
       (((2, 3, 4),),)),
    Op("moveaxis_fn", lambda x: lib(x).moveaxis(x, -1, 0), lambda x: np.moveaxis(x, -1, 0),
       (((2, 3, 2),),)),
    # repeating
    Op("repeat", lambda x: x.repeat(2, 1, 3), lambda x: np.tile(x, (2, 1, 3)),
       (((2, 3),), ((),))),
    Op("repeat_zero", lambda x: x.repeat(0, 2), lambda x: np.tile(x, (0, 2)), (((2, 3),),)),
    Op("tile", lambda x: x.tile((2,)), lambda x: np.tile(x, 2), (((2, 3),), ((3,),))),
    Op("tile_fn", lambda x: lib(x).tile(x, (2, 1, 1)), lambda x: np.tile(x, (2, 1, 1)),
       (((2, 3),),)),
    Op("repeat_interleave", lambda x: x.repeat_interleave(2), lambda x: np.repeat(x, 2),
       (((2, 3),), ((),), ((3,),))),
    Op("repeat_interleave_dim", lambda x: x.repeat_interleave(3, dim=1),
       lambda x: np.repeat(x, 3, axis=1), (((2, 3),),)),
    Op("repeat_interleave_tensor", lambda x: x.repeat_interleave(_t(x, [1, 0, 2]), dim=0),
       lambda x: np.repeat(x, [1, 0, 2], axis=0), (((3, 2),),)),
    # flipping, rolling, rotating
    Op("flip", lambda x: x.flip(0, -1), lambda x: np.flip(x, (0, -1)), (((2, 3),), ((2, 3, 2),))),
    Op("flip_fn", lambda x: lib(x).flip(x, [1]), lambda x: np.flip(x, 1), (((2, 3),),)),
    Op("fliplr", lambda x: x.fliplr(), np.fliplr, (((2, 3),),)),
    Op("flipud", lambda x: lib(x).flipud(x), np.flipud, (((3,),), ((2, 3),))),
    Op("roll", lambda x: x.roll(1, 0), lambda x: np.roll(x, 1, 0), (((3, 2),),)),
    Op("roll_dims", lambda x: x.roll((1, -2), (1, 0)), lambda x: np.roll(x, (1, -2), (1, 0)),
       (((3, 4),),)),
    Op("roll_flat", lambda x: lib(x).roll(x, 4), lambda x: np.roll(x, 4), (((2, 3),),)),
    Op("rot90", lambda x: x.rot90(), np.rot90, (((2, 3),),)),
    Op("rot90_k", lambda x: lib(x).rot90(x, -1, (2, 0)), lambda x: np.rot90(x, -1, (2, 0)),
       (((2, 3, 2),),)),
    Op("rot90_2", lambda x: x.rot90(2, [0, 1]), lambda x: np.rot90(x, 2), (((2, 3),),)),
    # stacking
    Op("hstack", lambda x, y: lib(x).hstack([x, y]), lambda x, y: np.hstack([x, y]),
       (((2, 3), (2, 1)), ((3,), (2,)))),
    Op("vstack", lambda x, y: lib(x).vstack([x, y]), lambda x, y: np.vstack([x, y]),
       (((3,), (2, 3)),)),
    Op("dstack", lambda x, y: lib(x).dstack([x, y]), lambda x, y: np.dstack([x, y]),
       (((2, 3), (2, 3)), ((3,), (3,)))),
    Op("column_stack", lambda x, y: lib(x).column_stack([x, y]),
       lambda x, y: np.column_stack([x, y]), (((3,), (3, 2)), ((), ()))),
    Op("atleast_3d", lambda x: lib(x).atleast_3d(x), np.atleast_3d, (((),), ((3,),), ((2, 3),))),
    # splitting (one node for all pieces; pieces that get no gradient count as zeros)
    Op("split", lambda x: x.split(2)[1], lambda x: x[2:4], (((5, 3),),)),
    Op("split_sizes", lambda x: lib(x).split(x, [1, 3], 1)[1], lambda x: x[:, 1:4], (((2, 4),),)),
    Op("split_all", lambda x: _weighted_pieces(x.split(2)),
       lambda x: sum(x[i:i + 2].sum() * (i // 2 + 1) for i in range(0, 5, 2)), (((5,),),)),
    Op("split_with_sizes", lambda x: lib(x).split_with_sizes(x, [3, 1], -1)[0],
       lambda x: x[:, :3], (((2, 4),),)),
    Op("chunk", lambda x: x.chunk(3, 1)[2], lambda x: x[:, 4:5], (((2, 5),),)),
    Op("tensor_split", lambda x: x.tensor_split(3)[0], lambda x: x[0:2], (((5, 2),),)),
    Op("tensor_split_indices", lambda x: lib(x).tensor_split(x, [1, 9], dim=1)[1],
       lambda x: x[:, 1:9], (((2, 4),),)),
    Op("hsplit", lambda x: x.hsplit(2)[1], lambda x: x[:, 2:], (((2, 4),),)),
    # the unsafe forms: the same pieces from their own nodes, not views
    Op("unsafe_split", lambda x: lib(x).unsafe_split(x, 2)[1], lambda x: x[2:4], (((5, 3),),)),
    Op("unsafe_split_all", lambda x: _weighted_pieces(x.unsafe_split(2, 1)),
       lambda x: x[:, :2].sum() + 2 * x[:, 2:].sum(), (((2, 3),),)),
    Op("unsafe_split_one", lambda x: x.unsafe_split(4)[0], lambda x: x, (((3, 2),),)),
    Op("unsafe_split_with_sizes", lambda x: _weighted_pieces(
        lib(x).unsafe_split_with_sizes(x, [1, 3], 1)),
       lambda x: x[:, :1].sum() + 2 * x[:, 1:].sum(), (((2, 4),),)),
    Op("unsafe_chunk", lambda x: x.unsafe_chunk(3, 1)[2], lambda x: x[:, 4:5], (((2, 5),),)),
    Op("unbind", lambda x: x.unbind(1)[2], lambda x: x[:, 2], (((2, 3),),)),
    Op("unbind_all", lambda x: lib(x).stack([t * (i + 1) for i, t in enumerate(x.unbind())]),
       lambda x: x * np.arange(1, x.shape[0] + 1).reshape(-1, *([1] * (x.ndim - 1))),
       (((3, 2),), ((4,),))),
    # triangles and diagonals
    Op("tril", lambda x: x.tril(), np.tril, (((3, 4),),)),
    Op("triu_batched", lambda x: lib(x).triu(x, -1), lambda x: np.triu(x, -1), (((2, 3, 4),),)),
    Op("tril_", lambda x: (x * 1).tril_(1), lambda x: np.tril(x, 1), (((3, 3),),)),
    Op("triu_", lambda x: (x * 1).triu_(), np.triu, (((3, 2),),)),
    Op("diagonal", lambda x: x.diagonal(), np.diagonal, (((3, 4),),)),
    Op("diagonal_dims", lambda x: x.diagonal(1, 2, 0), lambda x: np.diagonal(x, 1, 2, 0),
       (((2, 3, 4),),)),
    Op("diagonal_neg", lambda x: lib(x).diagonal(x, -1, -1, -2),
       lambda x: np.diagonal(x, -1, -1, -2), (((2, 3, 4),),)),
    Op("diag_vector", lambda x: x.diag(), np.diag, (((3,),),)),
    Op("diag_vector_offset", lambda x: lib(x).diag(x, -1), lambda x: np.diag(x, -1), (((3,),),)),
    Op("diag_matrix", lambda x: x.diag(1), lambda x: np.diag(x, 1), (((3, 4),),)),
    Op("diag_embed", lambda x: x.diag_embed(), _diag_embed_ref, (((2, 3),), ((3,),))),
    Op("diag_embed_offset", lambda x: x.diag_embed(1), lambda x: _diag_embed_ref(x, 1),
       (((2, 2),),)),
    Op("trace", lambda x: x.trace(), np.trace, (((3, 4),), ((2, 2),))),
    # gather and scatter
    Op("gather", lambda x: x.gather(1, _t(x, [[0, 0], [3, 1], [2, 2]])),
       lambda x: np.take_along_axis(x, np.array([[0, 0], [3, 1], [2, 2]]), 1), (((3, 4),),),
       note="repeated indices: gradients add up"),
    Op("gather_narrow", lambda x: lib(x).gather(x, 0, _t(x, [[2, 0]])),
       lambda x: np.take_along_axis(x[:, :2], np.array([[2, 0]]), 0), (((3, 4),),)),
    Op("scatter", lambda x, s: x.scatter(0, _t(x, IDX), s), lambda x, s: _scatter_ref(x, 0, IDX, s),
       (((3, 4), (2, 4)),)),
    Op("scatter_value", lambda x: x.scatter(1, _t(x, [[3], [0]]), 1.5),
       lambda x: _scatter_ref(x, 1, [[3], [0]], 1.5), (((3, 4),),)),
    Op("scatter_add", lambda x, s: x.scatter_add(0, _t(x, ADD_IDX), s),
       lambda x, s: _scatter_ref(x, 0, ADD_IDX, s, add=True), (((3, 4), (2, 4)),)),
    Op("scatter_", lambda x, s: (x * 1).scatter_(0, _t(x, IDX), s),
       lambda x, s: _scatter_ref(x, 0, IDX, s), (((3, 4), (2, 4)),)),
    Op("scatter_value_", lambda x: (x * 1).scatter_(1, _t(x, [[1], [0]]), value=-1.0),
       lambda x: _scatter_ref(x, 1, [[1], [0]], -1.0), (((3, 4),),)),
    Op("scatter_add_", lambda x, s: (x * 1).scatter_add_(0, _t(x, ADD_IDX), s),
       lambda x, s: _scatter_ref(x, 0, ADD_IDX, s, add=True), (((3, 4), (2, 4)),)),
    # along a dim with a vector of indices
    Op("index_select", lambda x: x.index_select(0, _t(x, [2, 0, 2])),
       lambda x: x[[2, 0, 2]], (((3, 2),),)),
    Op("index_select_fn", lambda x: lib(x).index_select(x, -1, _t(x, [1])),
       lambda x: x[..., [1]], (((2, 3),), ((3,),))),
    Op("index_add", lambda x, s: x.index_add(1, _t(x, [0, 0, 2]), s, alpha=2),
       lambda x, s: _index_add_ref(x, 1, [0, 0, 2], s, 2.0), (((2, 3), (2, 3)),)),
    Op("index_add_", lambda x, s: (x * 1).index_add_(0, _t(x, [1, 1]), s),
       lambda x, s: _index_add_ref(x, 0, [1, 1], s, 1.0), (((3, 2), (2, 2)),)),
    Op("index_copy", lambda x, s: x.index_copy(1, _t(x, [2, 0]), s),
       lambda x, s: _assigned(x, (slice(None), [2, 0]), s), (((2, 3), (2, 2)),)),
    Op("index_copy_", lambda x, s: (x * 1).index_copy_(0, _t(x, [1]), s),
       lambda x, s: _assigned(x, [1], s), (((3, 2), (1, 2)),)),
    Op("index_fill", lambda x: x.index_fill(1, _t(x, [2, 0, 2]), -1.0),
       lambda x: _assigned(x, (slice(None), [2, 0]), -1.0), (((2, 3),),)),
    Op("index_fill_tensor", lambda x, v: x.index_fill(0, _t(x, [1, 1]), v),
       lambda x, v: _assigned(x, [1], v), (((3, 2), ()),)),
    Op("index_fill_", lambda x: (x * 1).index_fill_(0, _t(x, [-1]), 2.0),
       lambda x: _assigned(x, -1, 2.0), (((3, 2),),)),
    Op("take", lambda x: x.take(_t(x, [[0, 5], [-1, 0]])),
       lambda x: np.take(x, [[0, 5], [-1, 0]]), (((2, 3),),)),
    Op("take_along_dim", lambda x: x.take_along_dim(_t(x, [[0], [3], [1]]), 1),
       lambda x: np.take_along_axis(x, np.array([[0], [3], [1]]), 1), (((3, 4),),)),
    Op("take_along_dim_broadcast", lambda x: lib(x).take_along_dim(x, _t(x, [[0], [2]]), dim=0),
       lambda x: np.take_along_axis(x, np.array([[0], [2]]), 0), (((3, 4),),)),
    Op("take_along_dim_flat", lambda x: x.take_along_dim(_t(x, [5, 0, 5])),
       lambda x: x.reshape(-1)[[5, 0, 5]], (((2, 3),),)),
    # masks (the mask broadcasts with the input, both ways)
    Op("masked_fill", lambda c, x: x.masked_fill(c, 0.5), lambda c, x: np.where(c, 0.5, x),
       ((MASK, (2, 3)), (Mask((3,)), (2, 3)), (MASK, (2, 1)))),
    Op("masked_fill_tensor", lambda c, x, v: x.masked_fill(c, v), lambda c, x, v: np.where(c, v, x),
       ((MASK, (2, 3), ()),)),
    Op("masked_fill_", lambda c, x, v: (x * 1).masked_fill_(c, v),
       lambda c, x, v: np.where(c, v, x), ((Mask((3,)), (2, 3), ()),)),
    Op("masked_select", lambda c, x: x.masked_select(c),
       lambda c, x: np.broadcast_to(x, np.broadcast_shapes(c.shape, x.shape))[
           np.broadcast_to(c, np.broadcast_shapes(c.shape, x.shape))],
       ((MASK, (2, 3)), (MASK, (3,)))),
    Op("masked_scatter", lambda c, x, s: x.masked_scatter(c, s), _masked_scatter_ref,
       ((MASK, (2, 3), (2, 3)), (Mask((3,)), (2, 3), (7,)))),
    Op("masked_scatter_", lambda c, x, s: (x * 1).masked_scatter_(c, s), _masked_scatter_ref,
       ((MASK, (2, 3), (5,)),)),
    # index_put and assignment through an index
    Op("index_put", lambda x, v: x.index_put((_t(x, [0, 2]), _t(x, [1, 1])), v),
       lambda x, v: _assigned(x, ([0, 2], [1, 1]), v), (((3, 2), (2,)), ((3, 2), ()))),
    Op("index_put_accumulate", lambda x, v: (x * 1).index_put_((_t(x, [0, 0, 2]),), v, True),
       lambda x, v: _index_add_ref(x, 0, [0, 0, 2], v, 1.0), (((3, 2), (3, 2)), ((3, 2), (2,)))),
    Op("index_put_mask", lambda c, x, v: x.index_put((c,), v),
       lambda c, x, v: _assigned(x, c, v), ((MASK, (2, 3), ()),)),

    # bringing tensors to one shape (views and a stack, as PyTorch composes them)
    Op("broadcast_tensors", lambda x, y: _weighted_pieces(lib(x).broadcast_tensors(x, y)),
       lambda x, y: _weighted_pieces(np.broadcast_arrays(x, y)), (((2, 1), (3,)),)),
    Op("meshgrid_ij", lambda x, y: _weighted_pieces(lib(x).meshgrid(x, y, indexing="ij")),
       lambda x, y: _weighted_pieces(np.meshgrid(x, y, indexing="ij")), (((2,), (3,)),)),
    Op("meshgrid_xy", lambda x, y, z: _weighted_pieces(lib(x).meshgrid([x, y, z], indexing="xy")),
       lambda x, y, z: _weighted_pieces(np.meshgrid(x, y, z, indexing="xy")),
       (((2,), (3,), (2,)),)),
    Op("cartesian_prod", lambda x, y: lib(x).cartesian_prod(x, y),
       lambda x, y: np.stack([g.reshape(-1) for g in np.meshgrid(x, y, indexing="ij")], 1),
       (((2,), (3,)),)),
    Op("block_diag", lambda x, y, z: lib(x).block_diag(x, y, z),
       lambda x, y, z: _block_diag_ref(x, y, z), (((2, 3), (2,), ()), ((1, 1), (0, 2), (3,)))),
    Op("block_diag_one", lambda x: lib(x).block_diag(x), lambda x: x.reshape(1, -1),
       (((3,),),)),
    Op("combinations", lambda x: lib(x).combinations(x), lambda x: _combinations_ref(x, 2, False),
       (((4,),), ((1,),))),
    Op("combinations_r3", lambda x: lib(x).combinations(x, 3, with_replacement=True),
       lambda x: _combinations_ref(x, 3, True), (((3,),),)),
    Op("combinations_r1", lambda x: lib(x).combinations(x, r=1),
       lambda x: _combinations_ref(x, 1, False), (((3,),),)),
    Op("ravel", lambda x: x.t().ravel(), lambda x: x.T.reshape(-1), (((2, 3),),)),
    Op("ravel_fn", lambda x: lib(x).ravel(x), lambda x: x.reshape(-1), (((2, 3),),)),
    Op("diagflat", lambda x: x.diagflat(), lambda x: np.diagflat(x), (((2, 2),), ((3,),))),
    Op("diagflat_offset", lambda x: lib(x).diagflat(x, -1), lambda x: np.diagflat(x, -1),
       (((3,),),)),
    Op("broadcast_to_method", lambda x: x.broadcast_to(2, 3), lambda x: np.broadcast_to(x, (2, 3)),
       (((3,),),)),
)
# fmt: on
