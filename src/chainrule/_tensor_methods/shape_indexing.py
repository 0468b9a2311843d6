"""Shape, dtype, conversion and indexing methods, and new tensors like this one: `x.view(2, 3)`,
`x.float()`, `x.gather(0, i)`, `x.new_zeros(3)`, ..."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import TYPING, LazyModule
from .._tensor import Tensor

if TYPING:
    from .. import _conversion as conversion
    from .. import _creation as creation
    from .. import _creation_data as creation_data
    from .._ops.indexing import (
        gather_scatter,
        getitem,
        masked,
        reduce_into,
        take_along,
        view_copies,
        writes,
    )
    from .._ops.shape import (
        combining,
        diagonals,
        inplace_views,
        rearrange,
        scatters,
        splitting,
        strided,
        views,
    )
else:  # each family is imported when one of its methods is first used (_lazy.py)
    conversion = LazyModule("chainrule._conversion")
    creation = LazyModule("chainrule._creation")
    creation_data = LazyModule("chainrule._creation_data")
    gather_scatter = LazyModule("chainrule._ops.indexing.gather_scatter")
    getitem = LazyModule("chainrule._ops.indexing.getitem")
    masked = LazyModule("chainrule._ops.indexing.masked")
    take_along = LazyModule("chainrule._ops.indexing.take_along")
    writes = LazyModule("chainrule._ops.indexing.writes")
    view_copies = LazyModule("chainrule._ops.indexing.view_copies")
    combining = LazyModule("chainrule._ops.shape.combining")
    diagonals = LazyModule("chainrule._ops.shape.diagonals")
    rearrange = LazyModule("chainrule._ops.shape.rearrange")
    splitting = LazyModule("chainrule._ops.shape.splitting")
    views = LazyModule("chainrule._ops.shape.views")
    reduce_into = LazyModule("chainrule._ops.indexing.reduce_into")
    scatters = LazyModule("chainrule._ops.shape.scatters")
    strided = LazyModule("chainrule._ops.shape.strided")
    inplace_views = LazyModule("chainrule._ops.shape.inplace_views")

__all__ = ["ShapeIndexingMethods"]


class ShapeIndexingMethods:
    """Part of the table of Tensor's methods (see the package docstring)."""

    __slots__ = ()

    # --- shape: views and copies -----------------------------------------------------------
    view = views.view
    view_as = views.view_as
    reshape = views.reshape
    reshape_as = views.reshape_as
    flatten = views.flatten
    ravel = combining.ravel
    unflatten = rearrange.unflatten
    squeeze = views.squeeze
    unsqueeze = views.unsqueeze
    expand = views.expand
    expand_as = views.expand_as
    broadcast_to = views.expand  # `x.broadcast_to(2, 3)` as well as a tuple, as expand
    transpose = views.transpose
    swapaxes = views.swapaxes
    swapdims = views.swapdims
    t = views.t
    adjoint = inplace_views.adjoint
    t_ = inplace_views.t_
    transpose_ = inplace_views.transpose_
    swapaxes_ = inplace_views.swapaxes_
    swapdims_ = inplace_views.swapdims_
    squeeze_ = inplace_views.squeeze_
    unsqueeze_ = inplace_views.unsqueeze_
    permute = views.permute
    movedim = rearrange.movedim
    moveaxis = rearrange.moveaxis
    narrow = views.narrow
    narrow_copy = view_copies.narrow_copy
    as_strided = strided.as_strided
    as_strided_ = strided.as_strided_
    as_strided_scatter = strided.as_strided_scatter
    unfold = strided.unfold
    clone = views.clone
    contiguous = views.contiguous
    if TYPE_CHECKING:  # (what mypy infers for property(f) is Any)

        @property
        def T(self) -> Tensor:
            """The dims in reverse order (a view)."""

        @property
        def mT(self) -> Tensor:
            """The last two dims swapped (a view)."""

        @property
        def H(self) -> Tensor:
            """A matrix transposed (a view): its conjugate transpose, as it is real."""

        @property
        def mH(self) -> Tensor:
            """The last two dims swapped (a view): the conjugate transpose of each matrix."""

    else:
        T = property(views.reversed_dims)
        mT = property(inplace_views.matrix_transpose_checked)
        H = property(inplace_views.conj_transpose)
        mH = property(inplace_views.matrix_conj_transpose)

    # --- shape: rearranging, repeating, splitting ------------------------------------------
    flip = rearrange.flip_method
    fliplr = rearrange.fliplr
    flipud = rearrange.flipud
    roll = rearrange.roll
    rot90 = rearrange.rot90
    repeat = rearrange.repeat
    repeat_interleave = rearrange.repeat_interleave
    tile = rearrange.tile_method
    split = splitting.split_method
    split_with_sizes = splitting.split_with_sizes_method
    chunk = splitting.chunk
    tensor_split = splitting.tensor_split
    hsplit = splitting.hsplit
    vsplit = splitting.vsplit
    dsplit = splitting.dsplit
    unsafe_split = splitting.unsafe_split_method
    unsafe_chunk = splitting.unsafe_chunk_method
    unsafe_split_with_sizes = splitting.unsafe_split_with_sizes

    # --- shape: diagonals and triangles ----------------------------------------------------
    diag = diagonals.diag
    diag_embed = diagonals.diag_embed
    diagflat = combining.diagflat
    diagonal = diagonals.diagonal
    trace = diagonals.trace
    tril = diagonals.tril
    tril_ = diagonals.tril_
    triu = diagonals.triu
    triu_ = diagonals.triu_
    diagonal_scatter = scatters.diagonal_scatter
    select_scatter = scatters.select_scatter
    slice_scatter = scatters.slice_scatter
    fill_diagonal_ = strided.fill_diagonal_

    # --- dtype conversion ------------------------------------------------------------------
    to = views.to
    type_as = views.type_as
    float = views.to_float
    double = views.to_double
    half = views.to_half
    long = views.to_long
    int = views.to_int
    short = views.to_short
    char = views.to_char
    byte = views.to_byte
    bool = views.to_bool

    # --- conversion to Python and NumPy ---------------------------------------------------
    item = conversion.item
    tolist = conversion.tolist
    numpy = conversion.numpy
    __array__ = conversion.as_array
    cpu = conversion.cpu
    cuda = conversion.cuda
    __len__ = conversion.length
    __iter__ = conversion.iterate
    __bool__ = conversion.as_bool
    __float__ = conversion.as_float
    __int__ = conversion.as_int
    __index__ = conversion.as_index
    __complex__ = conversion.as_complex

    # --- indexing --------------------------------------------------------------------------
    select = getitem.select
    unbind = getitem.unbind
    take = take_along.take
    take_along_dim = take_along.take_along_dim
    put = take_along.put
    put_ = take_along.put_
    gather = gather_scatter.gather
    scatter = gather_scatter.scatter
    scatter_ = gather_scatter.scatter_
    scatter_add = gather_scatter.scatter_add
    scatter_add_ = gather_scatter.scatter_add_
    scatter_reduce = reduce_into.scatter_reduce
    scatter_reduce_ = reduce_into.scatter_reduce_
    index_select = gather_scatter.index_select
    index_add = gather_scatter.index_add
    index_add_ = gather_scatter.index_add_
    index_copy = gather_scatter.index_copy
    index_copy_ = gather_scatter.index_copy_
    index_fill = gather_scatter.index_fill
    index_fill_ = gather_scatter.index_fill_
    index_reduce = reduce_into.index_reduce
    index_reduce_ = reduce_into.index_reduce_
    index_put = masked.index_put
    index_put_ = masked.index_put_
    masked_fill = masked.masked_fill
    masked_fill_ = masked.masked_fill_
    masked_scatter = masked.masked_scatter
    masked_scatter_ = masked.masked_scatter_
    masked_select = masked.masked_select
    nonzero = masked.nonzero
    nonzero_static = masked.nonzero_static
    argwhere = masked.argwhere
    copy_ = writes.copy_
    fill_ = writes.fill_
    zero_ = writes.zero_

    # --- new tensors like this one ---------------------------------------------------------
    new_tensor = creation.new_tensor
    new_full = creation.new_full
    new_zeros = creation.new_zeros
    new_ones = creation.new_ones
    new_empty = creation.new_empty
    new_empty_strided = creation_data.new_empty_strided
