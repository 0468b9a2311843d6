"""Reducing values into a tensor by index: scatter_reduce (an index per element, as
scatter) and index_reduce (an index per slice, as index_add), with sum, prod, mean,
amax and amin, and their `_` forms.

The gradients are PyTorch's: prod divides the product by each factor (a lone zero gets
the product of the others), mean divides by how many values met at a place, and amax
and amin share the gradient evenly among the values equal to the result.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import _strides
from ..._autograd import grad_mode
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..elementwise.conditional import where
from ..forward_mode import unsupported
from ..primitive import Primitive
from .common import INT_INDEX, inplace_method
from .gather_scatter import (
    _check_gather_like,
    _check_source,
    _coords,
    _vector_dim,
    _vector_index,
)

__all__ = ["index_reduce", "scatter_reduce"]

_REDUCERS = {
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "amax": np.maximum,
    "amin": np.minimum,
}
# scatter_reduce also takes "max" and "min" for amax and amin; its backward refuses them.
_ALIASES = {"max": "amax", "min": "amin"}


def _start(dtype: np.dtype, reduce: str) -> Any:
    """What a place holds before the first value is reduced into it (include_self=False)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _reduce_into(
    a: np.ndarray, where: tuple[Any, ...], values: Any, counts: Any, reduce: str, include: bool
) -> np.ndarray:
    """A copy of `a` with `values` reduced into it at `where`; `counts(shape)` says how
    many values each place received (for mean)."""
    out = np.atleast_1d(a).copy()
    op = _ALIASES.get(reduce, reduce)
    if not include:
        out[where] = _start(out.dtype, op)
    _REDUCERS[op].at(out, where, values)
    if op == "mean":
        n = counts(out.shape) + int(include)
        n[n == 0] = 1
        out = out // n.astype(out.dtype) if out.dtype.kind in "iu" else (out / n).astype(out.dtype)
    return out.reshape(a.shape)


# --- scatter_reduce -------------------------------------------------------------------------


def _scatter_reduce_forward(
    a: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int, reduce: str, include_self: bool
) -> np.ndarray:
    index = np.atleast_1d(index)
    where = _coords(index, dim)
    values = np.atleast_1d(src)[tuple(slice(n) for n in index.shape)]

    def counts(shape: tuple[int, ...]) -> np.ndarray:
        n = np.zeros(shape, dtype=np.int64)
        np.add.at(n, where, 1)
        return n

    return _reduce_into(a, where, values, counts, reduce, include_self)


def _scatter_self_grad(g: Tensor, n: Any) -> Tensor:
    """PyTorch's scatter_reduce_backward, for self."""
    dim, index, reduce = n.dim, n.index, n.reduce
    if reduce == "sum":
        grad = g
    elif reduce == "prod":
        masked = n.self.masked_fill(n.self == 0, 1)
        others = masked.scatter_reduce(dim, index, n.src, "prod", include_self=n.include_self)
        grad = g * others / masked
    elif reduce == "mean":
        grad = g / _scatter_count(g, n.src, dim, index, n.include_self)
    elif reduce in ("amax", "amin"):
        self_is = n.self == n.result
        grad = self_is * (g / _ties(n.self, self_is, n.src, n.result, dim, index))
    else:
        raise RuntimeError(_UNKNOWN.format(reduce))
    return grad if n.include_self else grad.scatter(dim, index, 0)


def _scatter_src_grad(g: Tensor, n: Any) -> Tensor:
    """PyTorch's scatter_reduce_backward, for src."""
    dim, index, reduce, src = n.dim, n.index, n.reduce, n.src
    if reduce == "sum":
        return g.gather(dim, index)
    if reduce == "prod":
        src_zero = src == 0
        zeros = Tensor._make(np.zeros(n.self._data.shape, n.self._data.dtype))
        zeros_met = zeros.scatter_add(dim, index, src_zero.to(src.dtype)).gather(dim, index)
        lone_zero = src_zero & (zeros_met == 1)
        masked = src.masked_fill(lone_zero, 1)
        others = n.self.scatter_reduce(dim, index, masked, "prod", include_self=n.include_self)
        grad = where(
            lone_zero,
            (g * others).gather(dim, index),
            (g * n.result).gather(dim, index) / src.masked_fill(src_zero, 1),
        )
        if grad_mode.is_grad_enabled() and bool((zeros_met._data > 1).any()):
            grad = _delayed_error(grad, message=_PROD_TWICE.format(op="scatter_reduce", x="src"))
        return grad
    if reduce == "mean":
        return g.gather(dim, index) / _scatter_count(g, src, dim, index, n.include_self).gather(
            dim, index
        )
    if reduce in ("amax", "amin"):
        value = n.result.gather(dim, index)
        ties = _ties(n.self, n.self == n.result, src, n.result, dim, index)
        return (src == value) * (g / ties).gather(dim, index)
    raise RuntimeError(_UNKNOWN.format(reduce))


def _scatter_count(g: Tensor, src: Tensor, dim: int, index: Tensor, include: bool) -> Tensor:
    """How many values met at each place (1 where none did), as a constant."""
    start = Tensor._make(np.full(g._data.shape, int(include), g._data.dtype))
    count = start.scatter_add(dim, index, Tensor._make(np.ones(src._data.shape, g._data.dtype)))
    return count.masked_fill(count == 0, 1)


def _ties(
    self: Tensor, self_is: Tensor, src: Tensor, result: Tensor, dim: int, index: Tensor
) -> Tensor:
    """How many of the values reduced into each place equal the result there."""
    src_is = (src == result.gather(dim, index)).to(self.dtype)
    return self_is.to(self.dtype).scatter_add(dim, index, src_is)


_UNKNOWN = "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {}."


_PROD_TWICE = (
    "{op}(): Double backward is unsupported for {x} when >1 zeros in {x} are scattered to the "
    "same position in self"
)


def _refuse(g: Tensor, n: Any) -> Tensor:
    raise RuntimeError(n.message)


# PyTorch's DelayedError: a gradient that may not be differentiated again.
_delayed_error = Primitive(
    "Error",
    lambda g, message: g,
    inputs=("grad",),
    grads=(_refuse,),
    formulas=("none: raises {message}",),
)

_scatter_reduce = Primitive(
    "ScatterReduceBackward0",
    _scatter_reduce_forward,
    inputs=("self", "index", "src"),
    grads=(
        _scatter_self_grad,
        None,
        _scatter_src_grad,
    ),
    formulas=(
        "grad · ∂ {reduce}(self, src at index along dim {dim}) / ∂ self",
        None,
        "grad · ∂ {reduce}(self, src at index along dim {dim}) / ∂ src",
    ),
    layout=_strides.contiguous_array,
)


def _check_reduce(fn: str, reduce: Any, allowed: tuple[str, ...], message: str) -> str:
    if not isinstance(reduce, str):
        raise TypeError(
            f"{fn}(): argument 'reduce' (position 4) must be str, not {type(reduce).__name__}"
        )
    if reduce not in allowed:
        raise RuntimeError(message.format(reduce))
    return reduce


def _check_mean_dtype(input: Tensor, reduce: str, kernel: str) -> None:
    if reduce == "mean" and input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def scatter_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """A copy of `input` with `src` reduced (sum, prod, mean, amax, amin) into the places
    `index` points at along `dim`; with `include_self=False` `input`'s own values there
    take no part."""
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not "
            f"{type(src).__name__}"
        )
    reduce = _check_reduce(
        "scatter_reduce",
        reduce,
        ("sum", "prod", "mean", "amax", "amin", "max", "min"),
        "reduce argument must be either sum, prod, mean, amax or amin, got {}",
    )
    d = _check_gather_like("scatter", input, dim, index, src)
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_mean_dtype(input, reduce, "scatter_gather_tensor_cpu_reduce_mean")
    return _scatter_reduce(input, index, src, dim=d, reduce=reduce, include_self=include_self)


# --- index_reduce ---------------------------------------------------------------------------


def _index_reduce_forward(
    a: np.ndarray, index: np.ndarray, source: np.ndarray, dim: int, reduce: str, include_self: bool
) -> np.ndarray:
    index = np.atleast_1d(index)
    where = (*(slice(None),) * dim, index)
    out_shape = np.atleast_1d(a).shape
    values = np.reshape(source, (*out_shape[:dim], index.size, *out_shape[dim + 1 :]))

    def counts(shape: tuple[int, ...]) -> np.ndarray:
        n = np.zeros(shape[dim], dtype=np.int64)
        np.add.at(n, index, 1)
        return n.reshape((-1,) + (1,) * (len(shape) - dim - 1))

    return _reduce_into(a, where, values, counts, reduce, include_self)


def _index_self_grad(g: Tensor, n: Any) -> Tensor:
    """PyTorch's index_reduce_backward, for self."""
    dim, index, reduce = n.dim, n.index, n.reduce
    if reduce == "prod":
        masked = n.self.masked_fill(n.self == 0, 1)
        others = masked.index_reduce(dim, index, n.source, "prod", include_self=n.include_self)
        grad = g * others / masked
    elif reduce == "mean":
        grad = g / _index_count(g, n.source, dim, index, n.include_self)
    else:
        self_is = (n.self == n.result).to(n.self.dtype)
        grad = self_is * (g / _index_ties(self_is, n.source, n.result, dim, index))
    return grad if n.include_self else grad.index_fill(dim, index, 0)


def _index_source_grad(g: Tensor, n: Any) -> Tensor:
    """PyTorch's index_reduce_backward, for source."""
    dim, index, reduce, source = n.dim, n.index, n.reduce, n.source
    if reduce == "prod":
        src_zero = source == 0
        zeros = Tensor._make(np.zeros(n.self._data.shape, n.self._data.dtype))
        zeros_met = zeros.index_add(dim, index, src_zero.to(source.dtype)).index_select(dim, index)
        lone_zero = src_zero & (zeros_met == 1)
        masked = source.masked_fill(lone_zero, 1)
        others = n.self.index_reduce(dim, index, masked, "prod", include_self=n.include_self)
        grad = where(
            lone_zero,
            (g * others).index_select(dim, index),
            (g * n.result).index_select(dim, index) / source.masked_fill(src_zero, 1),
        )
        if grad_mode.is_grad_enabled() and bool((zeros_met._data > 1).any()):
            message = _PROD_TWICE.format(op="index_reduce", x="source")
            grad = _delayed_error(grad, message=message)
        return grad
    if reduce == "mean":
        count = _index_count(g, source, dim, index, n.include_self)
        return g.index_select(dim, index) / count.index_select(dim, index)
    self_is = (n.self == n.result).to(n.self.dtype)
    source_is = (source == n.result.index_select(dim, index)).to(n.self.dtype)
    shared = g / _index_ties(self_is, source, n.result, dim, index)
    return source_is * shared.index_select(dim, index)


def _index_count(g: Tensor, source: Tensor, dim: int, index: Tensor, include: bool) -> Tensor:
    """How many slices met at each place (1 where none did), as a constant."""
    start = Tensor._make(np.full(g._data.shape, int(include), g._data.dtype))
    count = start.index_add(dim, index, Tensor._make(np.ones(source._data.shape, g._data.dtype)))
    return count.masked_fill(count == 0, 1)


def _index_ties(self_is: Tensor, source: Tensor, result: Tensor, dim: int, index: Tensor) -> Tensor:
    """How many of the values reduced into each place equal the result there."""
    source_is = (source == result.index_select(dim, index)).to(self_is.dtype)
    return self_is.index_add(dim, index, source_is)


_index_reduce = Primitive(
    "IndexReduceBackward0",
    _index_reduce_forward,
    inputs=("self", "index", "source"),
    grads=(
        _index_self_grad,
        None,
        _index_source_grad,
    ),
    formulas=(
        "grad · ∂ {reduce}(self, source at index along dim {dim}) / ∂ self",
        None,
        "grad · ∂ {reduce}(self, source at index along dim {dim}) / ∂ source",
    ),
    layout=_strides.contiguous_array,
    tangent=unsupported("index_reduce"),
)

_warned = False


def _warn_beta() -> None:
    """PyTorch says once per process that index_reduce is in beta."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(
            "index_reduce() is in beta and the API may change at any time.",
            UserWarning,
            stacklevel=4,  # past the keyword wrapper, at the caller
        )


def index_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Tensor:
    """A copy of `input` with slice `i` of `source` reduced (prod, mean, amax, amin) into
    slice `index[i]` along `dim`; with `include_self=False` `input`'s own values there
    take no part."""
    reduce = _check_reduce(
        "index_reduce",
        reduce,
        ("prod", "mean", "amax", "amin"),
        "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {}.",
    )
    d = _vector_dim(input, dim)
    message = "index_reduce_(): Expected dtype int32/int64 for index but got: "
    if isinstance(index, Tensor):
        message += scalar_name(index)
    idx = _vector_index("index_reduce_", index, INT_INDEX, message, RuntimeError)
    _check_source("index_reduce_", input, d, idx, source)
    if source.ndim != input.ndim:  # index_add lets a 0-d tensor stand for one of shape (1,)
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )
    size = input._data.shape[d] if input.ndim else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    _check_mean_dtype(input, reduce, "div_floor_cpu")
    _warn_beta()
    return _index_reduce(input, index, source, dim=d, reduce=reduce, include_self=include_self)


# --- in place -------------------------------------------------------------------------------

scatter_reduce_ = inplace_method("scatter_reduce_", scatter_reduce)
index_reduce_ = inplace_method("index_reduce_", index_reduce)
