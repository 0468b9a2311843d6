"""Triangles and diagonals: tril/triu, diagonal (a view), diag, diag_embed and trace."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _strides
from ..._tensor import Tensor
from ..inplace import apply_inplace
from ..primitive import Primitive, wrap_dim

__all__ = ["diag", "diag_embed", "diagonal", "trace", "tril", "triu"]


def _check_int(value: Any, fn: str, arg: str, pos: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(
            f"{fn}(): argument '{arg}' (position {pos}) must be int, not {type(value).__name__}"
        )
    return int(value)


# --- triangles ------------------------------------------------------------------------------

_tril = Primitive(
    "TrilBackward0",
    lambda a, diagonal: np.tril(a, diagonal),
    grads=(lambda g, n: tril(g, n.diagonal),),
    formulas=("the lower triangle of grad (on and below diagonal {diagonal})",),
    tangent="linear",
    layout=_strides.contiguous_array,
)
_triu = Primitive(
    "TriuBackward0",
    lambda a, diagonal: np.triu(a, diagonal),
    grads=(lambda g, n: triu(g, n.diagonal),),
    formulas=("the upper triangle of grad (on and above diagonal {diagonal})",),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def _triangle(prim: Primitive, name: str, input: Tensor, diagonal: Any) -> Tensor:
    k = _check_int(diagonal, name, "diagonal", 1)
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return prim(input, diagonal=k)


def tril(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    """The lower triangle (on and below the `diagonal`-th diagonal) of the last two dims."""
    return _triangle(_tril, "tril", input, diagonal)


def triu(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    """The upper triangle (on and above the `diagonal`-th diagonal) of the last two dims."""
    return _triangle(_triu, "triu", input, diagonal)


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    _triangle(_tril, "tril", self.detach(), diagonal)  # the checks, before anything changes
    return apply_inplace(self, lambda old: tril(old, diagonal))


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    _triangle(_triu, "triu", self.detach(), diagonal)
    return apply_inplace(self, lambda old: triu(old, diagonal))


# --- diagonals ------------------------------------------------------------------------------


def diagonal_view(a: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """A writable view of a diagonal (np.diagonal's is read-only): the other dims, then it."""
    n1, n2 = a.shape[dim1], a.shape[dim2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    start = [slice(None)] * a.ndim
    if length:
        start[dim1], start[dim2] = slice(max(-offset, 0), None), slice(max(offset, 0), None)
    b = a[tuple(start)]
    rest = [d for d in range(a.ndim) if d not in (dim1, dim2)]
    shape = (*(a.shape[d] for d in rest), length)
    strides = (*(b.strides[d] for d in rest), b.strides[dim1] + b.strides[dim2])
    return np.lib.stride_tricks.as_strided(b, shape, strides)


def _embed(a: np.ndarray, shape: tuple[int, ...], offset: int, dim1: int, dim2: int) -> np.ndarray:
    """Zeros of `shape`, with `a` on the diagonal (`offset`, `dim1`, `dim2`)."""
    out = np.zeros(shape, dtype=a.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = a
    return out


def _diagonal_grad(g: Tensor, n: Any) -> Tensor:
    return _diagonal_backward(g, self_sizes=n.self_sizes, offset=n.offset, dim1=n.dim1, dim2=n.dim2)


_diagonal = Primitive(
    "DiagonalBackward0",
    lambda a, offset, dim1, dim2, **_: diagonal_view(a, offset, dim1, dim2),
    grads=(_diagonal_grad,),
    formulas=("zeros of shape {in_shape} with grad on diagonal {offset} of dims {dim1}, {dim2}",),
    view=True,
)
# The gradient of a diagonal: zeros of the input's shape with the gradient on the diagonal.
_diagonal_backward = Primitive(
    "DiagonalBackwardBackward0",
    lambda g, self_sizes, offset, dim1, dim2: _embed(g, tuple(self_sizes), offset, dim1, dim2),
    inputs=("grad",),
    grads=(lambda g, n: diagonal(g, n.offset, n.dim1, n.dim2),),
    formulas=("diagonal {offset} of grad (dims {dim1}, {dim2})",),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def _diagonal_dims(name: str, ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The `offset`-th diagonal of the matrices in dims (dim1, dim2), as a last dim; a view."""
    k = _check_int(offset, "diagonal", "offset", 2)
    d1, d2 = _diagonal_dims("diagonal", input.ndim, dim1, dim2)
    return _diagonal(input, offset=k, dim1=d1, dim2=d2, self_sizes=input._data.shape)


_diag_embed = Primitive(
    "DiagEmbedBackward0",
    lambda a, shape, offset, dim1, dim2: _embed(a, shape, offset, dim1, dim2),
    grads=(lambda g, n: diagonal(g, n.offset, n.dim1, n.dim2),),
    formulas=("diagonal {offset} of grad (dims {dim1}, {dim2})",),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in the new dims dim1, dim2) with the last dim of `input` on a diagonal."""
    k = _check_int(offset, "diag_embed", "offset", 2)
    ndim = input.ndim + 1
    d1, d2 = _diagonal_dims("diag_embed", ndim, dim1, dim2)
    size = (input._data.shape[-1] if input.ndim else 1) + abs(k)
    rest = iter(input._data.shape[:-1])
    shape = tuple(size if d in (d1, d2) else next(rest) for d in range(ndim))
    return _diag_embed(input, shape=shape, offset=k, dim1=d1, dim2=d2)


_diag_copy = Primitive(
    "DiagonalBackward0_copy",  # PyTorch's diag of a matrix is diagonal_copy
    lambda a, offset, **_: np.diagonal(a, offset).copy(),
    grads=(_diagonal_grad,),
    formulas=("zeros of shape {in_shape} with grad on diagonal {offset}",),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def diag(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    """A vector's square diagonal matrix, or a matrix's diagonal (both at offset `diagonal`)."""
    k = _check_int(diagonal, "diag", "diagonal", 2)
    if input.ndim == 1:
        return diag_embed(input, k, 0, 1)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return _diag_copy(input, offset=k, dim1=0, dim2=1, self_sizes=input._data.shape)


def _trace_forward(a: np.ndarray, **_: Any) -> np.ndarray:
    dt = np.int64 if a.dtype.kind in "iu" else a.dtype
    return np.asarray(np.trace(a, dtype=dt))


_trace = Primitive(
    "TraceBackward0",
    _trace_forward,
    grads=(
        lambda g, n: _diagonal_backward(
            g.expand(n.length), self_sizes=n.self_sizes, offset=0, dim1=0, dim2=1
        ),
    ),
    formulas=("zeros of shape {in_shape} with grad on the main diagonal",),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's main diagonal (integer matrices sum to int64)."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    length = min(input._data.shape)
    return _trace(input, length=length, self_sizes=input._data.shape)
