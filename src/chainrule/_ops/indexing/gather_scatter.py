"""Reading and writing along a dim with an index tensor: gather, scatter, scatter_add,
index_select, index_add, index_copy, index_fill, and their `_` forms. Masks, nonzero and
index_put live in scatter_masked, take and take_along_dim in scatter_take.

Each gather-like op's gradient is the matching scatter-like op into zeros and
the other way round, so second derivatives come from the same pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _strides
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..primitive import Primitive, wrap_dim
from .common import (
    INT_INDEX,
    check_bounds,
    fill_value,
    inplace_method,
    pad_to,
    require_index,
    zeros_of,
)

__all__ = [
    "gather",
    "index_add",
    "index_copy",
    "index_fill",
    "index_select",
    "scatter",
    "scatter_add",
]


def _coords(index: np.ndarray, dim: int) -> tuple[np.ndarray, ...]:
    """Where each element of `index` points: its own position, with its value at `dim`."""
    grid: list[np.ndarray] = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _corner(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The leading `shape` block of `a` (scatter reads only that much of `src`)."""
    return a[tuple(slice(n) for n in shape)]


# --- gather and scatter ---------------------------------------------------------------------


def _gather_forward(a: np.ndarray, index: np.ndarray, dim: int, **_: Any) -> np.ndarray:
    return np.atleast_1d(a)[_coords(np.atleast_1d(index), dim)].reshape(index.shape)


def _scatter_forward(
    a: np.ndarray, index: np.ndarray, src: Any, dim: int, reduce: str | None = None, **_: Any
) -> np.ndarray:
    out = np.atleast_1d(a).copy()
    index = np.atleast_1d(index)
    where = _coords(index, dim)
    values = _corner(np.atleast_1d(src), index.shape) if isinstance(src, np.ndarray) else src
    if reduce is None:
        out[where] = values
    else:
        (np.add if reduce == "add" else np.multiply).at(out, where, values)
    return out.reshape(a.shape)


def _gather_grad(g: Tensor, n: Any) -> Tensor:
    return zeros_of(g, n.self_sizes).scatter_add(n.dim, n.index, g)


def _src_grad(g: Tensor, n: Any) -> Tensor:
    """`src` is read only where `index` reaches: its gradient is zero elsewhere."""
    picked = g.gather(n.dim, n.index)
    return picked if picked.shape == n.src.shape else pad_to(picked, n.src.shape)


_gather = Primitive(
    "GatherBackward0",
    _gather_forward,
    inputs=("self", "index"),
    grads=(_gather_grad, None),
    formulas=("zeros of shape {in_shape} with grad added at index along dim {dim}", None),
    tangent="linear",
)
_scatter = Primitive(
    "ScatterBackward0",
    _scatter_forward,
    inputs=("self", "index", "src"),
    grads=(lambda g, n: g.scatter(n.dim, n.index, 0), None, _src_grad),
    formulas=(
        "grad with zeros where index wrote (dim {dim})",
        None,
        "grad at index along dim {dim}",
    ),
    tangent="linear",
    layout=_strides.contiguous_array,
)
_scatter_value = Primitive(
    "ScatterBackward1",
    lambda a, index, value, dim: _scatter_forward(a, index, value, dim),
    inputs=("self", "index"),
    grads=(lambda g, n: g.scatter(n.dim, n.index, 0), None),
    formulas=("grad with zeros where index wrote (dim {dim})", None),
    tangent="elementwise",
    layout=_strides.contiguous_array,
)
_scatter_add = Primitive(
    "ScatterAddBackward0",
    lambda a, index, src, dim: _scatter_forward(a, index, src, dim, "add"),
    inputs=("self", "index", "src"),
    grads=(lambda g, n: g, None, _src_grad),
    formulas=("1", None, "grad at index along dim {dim}"),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def _not_implemented(g: Tensor, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::scatter is not implemented")


# PyTorch has no derivative for scatter with `reduce`; its node says so when reached.
_scatter_reduce = Primitive(
    "torch::autograd::NotImplemented",
    _scatter_forward,
    inputs=("self", "index", "src"),
    grads=(_not_implemented, None, _not_implemented),
    formulas=("none: aten::scatter has no derivative with reduce", None, "none"),
    layout=_strides.contiguous_array,
)


def _check_gather_like(fn: str, input: Tensor, dim: int, index: Any, src: Any = None) -> int:
    """dim, dtype, rank, size and bounds checks shared by gather and the scatters."""
    d = wrap_dim(dim, input.ndim)
    idx = require_index(index, INT_INDEX, f"{fn}(): Expected dtype int32/int64 for index", fn)
    shape = input._data.shape or (1,)
    ishape = idx.shape or (1,)
    what = "input" if fn == "gather" else "self"
    if len(ishape) != len(shape):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")
    if isinstance(src, Tensor) and len(ishape) != len(src._data.shape or (1,)):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    sshape = src._data.shape or (1,) if isinstance(src, Tensor) else None
    too_big = any(i > s for k, (i, s) in enumerate(zip(ishape, shape, strict=True)) if k != d)
    if sshape is not None:
        too_big = too_big or any(i > s for i, s in zip(ishape, sshape, strict=True))
    if too_big:
        if fn == "gather":
            k = next(k for k in range(len(shape)) if k != d and ishape[k] > shape[k])
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no "
                f"larger than self {list(input.shape)} apart from dimension {d}"
            )
        message = (
            f"Expected index {list(idx.shape)} to be no larger than self {list(input.shape)} "
            f"apart from dimension {d}"
        )
        if sshape is not None:
            message += f" and to be no larger size than src {list(src.shape)}"
        raise RuntimeError(message)
    check_bounds(idx, shape[d], d)
    return d


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """`out[i][j] = input[index[i][j]][j]` for dim 0 (and likewise along any dim)."""
    d = _check_gather_like("gather", input, dim, index)
    return _gather(input, index, dim=d, self_sizes=input._data.shape)


def _check_src(fn: str, input: Tensor, src: Tensor) -> None:
    if src._data.dtype != input._data.dtype:
        raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype")


def scatter(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
) -> Tensor:
    """A copy of `input` with `src` (or `value`) written where `index` points along `dim`."""
    if src is None:
        src = value
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):
        d = _check_gather_like("scatter", input, dim, index, src)
        _check_src("scatter", input, src)
        if reduce is not None:
            return _scatter_reduce(input, index, src, dim=d, reduce=reduce)
        return _scatter(input, index, src, dim=d)
    d = _check_gather_like("scatter", input, dim, index)
    number = fill_value("scatter", input, src)
    if reduce is not None:
        values = Tensor._make(np.full(index.shape, number))
        return _scatter_reduce(input, index, values, dim=d, reduce=reduce)
    return _scatter_value(input, index, value=number[()], dim=d)  # a NumPy scalar


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of `input` with `src` added where `index` points along `dim` (repeats add up)."""
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}"
        )
    d = _check_gather_like("scatter", input, dim, index, src)
    _check_src("scatter", input, src)
    return _scatter_add(input, index, src, dim=d)


# --- along a dim with a vector of indices -----------------------------------------------------


def _along(dim: int, index: np.ndarray) -> tuple[Any, ...]:
    return (*(slice(None),) * dim, index)


def _index_add_forward(
    a: np.ndarray, index: np.ndarray, source: np.ndarray, dim: int, alpha: Any
) -> np.ndarray:
    out = np.atleast_1d(a).copy()
    scaled = source if alpha == 1 else np.asarray(source * alpha).astype(a.dtype)
    np.add.at(
        out,
        _along(dim, np.atleast_1d(index)),
        np.atleast_1d(scaled).reshape(_rows(out, index, dim)),
    )
    return out.reshape(a.shape)


def _rows(out: np.ndarray, index: np.ndarray, dim: int) -> tuple[int, ...]:
    """The shape of `out` with `index.size` rows along `dim` (a 0-d source is one row)."""
    return (*out.shape[:dim], index.size, *out.shape[dim + 1 :])


def _index_copy_forward(
    a: np.ndarray, index: np.ndarray, source: np.ndarray, dim: int
) -> np.ndarray:
    out = np.atleast_1d(a).copy()
    out[_along(dim, np.atleast_1d(index))] = np.reshape(source, _rows(out, index, dim))
    return out.reshape(a.shape)


def _index_fill_forward(a: np.ndarray, index: np.ndarray, value: Any, dim: int) -> np.ndarray:
    out = np.atleast_1d(a).copy()
    out[_along(dim, np.atleast_1d(index))] = value
    return out.reshape(a.shape)


def _index_select_forward(a: np.ndarray, index: np.ndarray, dim: int, **_: Any) -> np.ndarray:
    if a.ndim == 0:
        return a.copy()
    return np.take(a, index.reshape(-1), axis=dim)


def _scaled(g: Tensor, alpha: Any) -> Tensor:
    return g if alpha == 1 else g * alpha


def _filled(g: Tensor, n: Any) -> Tensor:
    """The gradient of a fill: the sum of `g` where the fill wrote (each place once)."""
    return (g - g.index_fill(n.dim, n.index, 0)).sum()


_index_select = Primitive(
    "IndexSelectBackward0",
    _index_select_forward,
    inputs=("self", "index"),
    grads=(lambda g, n: zeros_of(g, n.self_sizes).index_add(n.dim, n.index, g), None),
    formulas=("zeros of shape {in_shape} with grad added at index (dim {dim})", None),
    tangent="linear",
)
_index_add = Primitive(
    "IndexAddBackward0",
    _index_add_forward,
    inputs=("self", "index", "source"),
    grads=(lambda g, n: g, None, lambda g, n: _scaled(g.index_select(n.dim, n.index), n.alpha)),
    formulas=("1", None, "alpha * grad at index along dim {dim}, alpha = {alpha}"),
    tangent="linear",
    layout=_strides.contiguous_array,
)
_index_copy = Primitive(
    "IndexCopyBackward0",
    _index_copy_forward,
    inputs=("self", "index", "source"),
    grads=(
        lambda g, n: g.index_fill(n.dim, n.index, 0),
        None,
        lambda g, n: g.index_select(n.dim, n.index),
    ),
    formulas=("grad with zeros at index along dim {dim}", None, "grad at index along dim {dim}"),
    tangent="linear",
    layout=_strides.contiguous_array,
)
_index_fill = Primitive(
    "IndexFillBackward0",
    _index_fill_forward,
    inputs=("self", "index"),
    grads=(lambda g, n: g.index_fill(n.dim, n.index, 0), None),
    formulas=("grad with zeros at index along dim {dim}", None),
    tangent="elementwise",
    layout=_strides.like_first,
)
_index_fill_tensor = Primitive(
    "IndexFillBackward1",
    _index_fill_forward,
    inputs=("self", "index", "value"),
    grads=(lambda g, n: g.index_fill(n.dim, n.index, 0), None, _filled),
    formulas=("grad with zeros at index along dim {dim}", None, "Σ grad at index along dim {dim}"),
    layout=_strides.like_first,
)


def _vector_dim(input: Tensor, dim: int) -> int:
    """`dim` wrapped; a 0-d tensor is treated as one of shape (1,)."""
    return wrap_dim(dim, input.ndim) if input.ndim else wrap_dim(dim, 1)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices `index[0], index[1], ...` of `input` along `dim`, in that order."""
    d = _vector_dim(input, dim)
    idx = require_index(index, INT_INDEX, "index_select(): Expected dtype int32 or int64 for index")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if input.ndim == 0 and idx.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
        )
    size = input._data.shape[d] if input.ndim else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    return _index_select(input, index, dim=d, self_sizes=input._data.shape)


def _check_source(fn: str, input: Tensor, d: int, idx: np.ndarray, source: Tensor) -> None:
    """index_add/index_copy: one source slice per index, shaped like `input`'s slices."""
    if not isinstance(source, Tensor):
        raise TypeError(
            f"{fn}(): argument 'source' (position 3) must be Tensor, not {type(source).__name__}"
        )
    shape, sshape = input._data.shape or (1,), source._data.shape or (1,)
    rows = sshape[d] if len(sshape) > d else 1
    if fn == "index_copy_":
        if source._data.dtype != input._data.dtype:
            raise RuntimeError(
                "index_copy_(): self and source expected to have the same dtype, but got (self) "
                f"{scalar_name(input)} and (source) {scalar_name(source)}"
            )
        if source.ndim and input.ndim and source.ndim != input.ndim:
            raise IndexError(
                "index_copy_(): When source and destination are not scalars, their "
                f"dimensionality must match. Source dimensionality ({source.ndim}), destination "
                f"dimensionality ({input.ndim})"
            )
        if idx.size != rows:
            raise IndexError(
                f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                f"source.size(dim) ({rows})"
            )
        slices = (shape[:d] + shape[d + 1 :], sshape[:d] + sshape[d + 1 :])
        for k, (a, b) in enumerate(zip(*slices, strict=False)):
            if a != b:
                raise RuntimeError(
                    "index_copy_(): Source/destination tensor must have same slice shapes. "
                    f"Destination slice shape: {a} at dimension {k} and source slice shape: {b} "
                    f"at dimension {k}."
                )
        return
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{fn}(): self ({scalar_name(input)}) and source ({scalar_name(source)}) must "
            "have the same scalar type"
        )
    if idx.size != rows:
        raise RuntimeError(
            f"{fn}(): Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({rows}), for dim: {d}"
        )
    if len(sshape) != len(shape) or any(
        k != d and a != b for k, (a, b) in enumerate(zip(shape, sshape, strict=True))
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )


def _vector_index(fn: str, index: Any, ok: tuple[str, ...], message: str, exc: Any) -> np.ndarray:
    idx = require_index(index, ok, message, fn, exc=exc)
    if idx.ndim > 1:
        if fn in ("index_add_", "index_reduce_"):
            raise IndexError(
                f"{fn}(): Index is supposed to be a vector, but got dim: {idx.ndim} with "
                f"type: {scalar_name(index)} and size: {list(index.shape)}"
            )
        if fn == "index_copy_":
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
        raise RuntimeError("Index has to be a vector/scalar")
    return idx


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """A copy of `input` with `alpha * source[i]` added to slice `index[i]` along `dim`."""
    d = _vector_dim(input, dim)
    message = "index_add_(): Expected dtype int32/int64 for index but got: "
    if isinstance(index, Tensor):
        message += scalar_name(index)
    idx = _vector_index("index_add_", index, INT_INDEX, message, RuntimeError)
    _check_source("index_add_", input, d, idx, source)
    check_bounds(idx, input._data.shape[d] if input.ndim else 1, d)
    if input._data.dtype.kind != "f":
        alpha = int(alpha)
    return _index_add(input, index, source, dim=d, alpha=alpha)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of `input` with slice `index[i]` along `dim` replaced by `source[i]`."""
    d = _vector_dim(input, dim)
    message = "index_copy_(): Expected a long tensor for index, but got "
    if isinstance(index, Tensor):
        message += scalar_name(index)
    idx = _vector_index("index_copy_", index, ("int64",), message, RuntimeError)
    _check_source("index_copy_", input, d, idx, source)
    size = input._data.shape[d] if input.ndim else 1
    check_bounds(idx, size, d, exc=IndexError, prefix="index_copy_(): ")
    return _index_copy(input, index, source, dim=d)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of `input` with the slices `index` along `dim` set to `value`."""
    d = _vector_dim(input, dim)
    message = "index_fill_(): Expected dtype int64 for index."
    idx = _vector_index("index_fill_", index, ("int64",), message, IndexError)
    size = input._data.shape[d] if input.ndim else 1
    check_bounds(idx, size, d, negative=True, exc=IndexError)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return _index_fill_tensor(input, index, value, dim=d)
    number = fill_value("index_fill", input, value)
    return _index_fill(input, index, value=number, dim=d)


# --- in place -------------------------------------------------------------------------------

scatter_ = inplace_method("scatter_", scatter)
scatter_add_ = inplace_method("scatter_add_", scatter_add)
index_add_ = inplace_method("index_add_", index_add)
index_copy_ = inplace_method("index_copy_", index_copy)
index_fill_ = inplace_method("index_fill_", index_fill)
