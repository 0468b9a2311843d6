"""Norms of chainrule.linalg: vector_norm (the reductions' p-norm), matrix_norm and norm built
on it, on the singular values (nuclear, 2, -2) and on amax/amin (1, -1, inf, -inf)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _dtype
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..primitive import wrap_dim, wrap_dims
from ..reduction.product import p_norm
from .spectral import svdvals

__all__: list[str] = []


def _norm_dtype(op: str, x: Tensor, dtype: Any) -> np.dtype:
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {scalar_name(x)}"
        )
    if dtype is None:
        return x._data.dtype
    dt = _dtype.to_dtype(dtype)
    if not dt.is_floating_point:
        raise RuntimeError(
            f"{op}: dtype should be floating point or complex, but got {scalar_name(dt.np)}"
        )
    if dt.np.itemsize < x._data.dtype.itemsize:
        raise RuntimeError(
            f"{op}: the dtype of the input ({scalar_name(x)}) should be convertible without "
            f"narrowing to the specified dtype ({scalar_name(dt.np)})"
        )
    return dt.np


def vector_norm(
    x: Tensor,
    ord: Any = 2,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Tensor:
    """The p-norm (sum |x|^p)^(1/p) over `dim` (all dims when None); inf, -inf and 0 too."""
    if isinstance(ord, str) or not isinstance(ord, int | float | np.number):
        raise TypeError(
            "linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
            f"{type(ord).__name__}"
        )
    dt = _norm_dtype("linalg.vector_norm", x, dtype)
    dims = wrap_dims(dim, x.ndim)[: x.ndim]  # a 0-d tensor takes dim 0 or -1
    return p_norm(x, float(ord), dim, dims, keepdim, dt)


_MATRIX_ORDERS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(
    A: Tensor,
    ord: Any = "fro",
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Tensor:
    """A matrix norm over the two dims `dim`: 'fro', 'nuc', 1, -1, 2, -2, inf or -inf."""
    op = "linalg.matrix_norm"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    _norm_dtype(op, A, dtype)
    if isinstance(dim, int) or len(dim) != 2:
        shown = dim if isinstance(dim, int) else " ".join(map(str, dim))
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {shown}")
    d0, d1 = (wrap_dim(d, A.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({d0}, {d1})")
    if not any(ord == o and type(ord) is not bool for o in _MATRIX_ORDERS) or (
        isinstance(ord, str) and ord not in ("fro", "nuc")
    ):
        raise RuntimeError(f"{op}: Order {_order_text(ord)} not supported.")
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        if A._data.dtype == np.float16:
            raise RuntimeError(f"{op}: Low precision dtypes not supported. Got Half")
        order = [*(d for d in range(A.ndim) if d not in (d0, d1)), d0, d1]
        s = svdvals(A.permute(*order))
        out_ = s.sum(-1) if ord == "nuc" else s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:  # as PyTorch: two new last dims, permuted back where d0 and d1 were
            out_ = out_.unsqueeze(-1).unsqueeze(-1).permute(*np.argsort(order).tolist())
        return out_
    # 1: the largest column sum of |A| (sum over d0, then max over d1); inf: rows.
    first, second = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = vector_norm(A, 1, first, keepdim)
    if not keepdim and second > first:
        second -= 1
    return sums.amax(second, keepdim) if ord > 0 else sums.amin(second, keepdim)


def _order_text(ord: Any) -> str:
    if isinstance(ord, float) and ord.is_integer():
        return str(int(ord))
    return str(ord)


def norm(
    A: Tensor,
    ord: Any = None,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Tensor:
    """A vector norm (int dim, or a 1-D input) or a matrix norm (two dims, or a 2-D input)."""
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}"
            )
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.ndim}D."
        )
    if A.ndim == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
