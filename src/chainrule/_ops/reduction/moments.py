"""Spread: var, std, var_mean, std_mean, with Bessel's `correction` (or the legacy `unbiased`)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..elementwise.conditional import where
from ..primitive import Primitive
from ..quiet import quiet, quietly
from .common import dims_of, invalid_arguments, restore

__all__ = ["std", "std_mean", "var", "var_mean"]


@quietly  # nothing to reduce, or too few entries: nan or inf, as in PyTorch
def _var_forward(
    a: np.ndarray, dim: tuple[int, ...], keepdim: bool, correction: float, count: int, **_: Any
) -> np.ndarray:
    # Two passes (the mean, then squared deviations from it): no cancellation. The data
    # is first shifted by one of its entries, so a constant slice has exactly 0 spread.
    if count:
        a = a - a[tuple(slice(0, 1) if d in dim else slice(None) for d in range(a.ndim))]
    mean = np.sum(a, axis=dim, keepdims=True) / count
    dev = a - mean
    squares = np.sum(dev * dev, axis=dim, keepdims=keepdim)
    return np.divide(squares, max(count - correction, 0), dtype=a.dtype)


def _var_grad(g: Tensor, x: Tensor, n: Any) -> Tensor:
    """d var / dx = 2 (x - mean) / (N - correction), spread back over the reduced dims."""
    g = restore(g, n.dim, n.keepdim, n.self_sizes)
    return g * 2 * (x - x.mean(n.dim, keepdim=True)) / max(n.count - n.correction, 0)


def _std_to_var(g: Tensor, std: Tensor) -> Tensor:
    """The gradient of var from that of std = sqrt(var); zero where std is (as PyTorch)."""
    flat = std == 0
    return where(flat, 0, g / (2 * where(flat, 1, std)))


def _std_forward(a: np.ndarray, **params: Any) -> np.ndarray:
    return np.sqrt(_var_forward(a, **params))


def _mean_forward(a: np.ndarray, dim: tuple[int, ...], keepdim: bool, count: int) -> np.ndarray:
    return quiet(np.divide, np.sum(a, axis=dim, keepdims=keepdim), count, dtype=a.dtype)


def _mean_grad(g: Tensor, n: Any) -> Tensor:
    return restore(g, n.dim, n.keepdim, n.self_sizes) / n.count


_var = Primitive(
    "VarBackward0",
    _var_forward,
    grads=(lambda g, n: _var_grad(g, n.self, n),),
    formulas=("2 * (self - mean)/(n - correction), n = {count}, correction = {correction}",),
    layout=contiguous_array,
)
_std = Primitive(
    "StdBackward0",
    _std_forward,
    grads=(lambda g, n: _var_grad(_std_to_var(g, n.result), n.self, n),),
    formulas=(
        "(self - mean)/((n - correction) * result), 0 where result = 0, "
        "n = {count}, correction = {correction}",
    ),
    layout=contiguous_array,
)
_var_mean = Primitive(
    "VarMeanBackward0",
    lambda a, **p: (_var_forward(a, **p), _mean_forward(a, p["dim"], p["keepdim"], p["count"])),
    outputs=("result0", "result1"),
    grads=(lambda g, n: _var_grad(g[0], n.self, n) + _mean_grad(g[1], n),),
    formulas=(
        "grad[0] * 2 * (self - mean)/(n - correction) + grad[1]/n, "
        "n = {count}, correction = {correction}",
    ),
    layout=contiguous_array,
)
_std_mean = Primitive(
    "StdMeanBackward0",
    lambda a, **p: (_std_forward(a, **p), _mean_forward(a, p["dim"], p["keepdim"], p["count"])),
    outputs=("result0", "result1"),
    grads=(lambda g, n: _var_grad(_std_to_var(g[0], n.result0), n.self, n) + _mean_grad(g[1], n),),
    formulas=(
        "grad[0] * (self - mean)/((n - correction) * result0) + grad[1]/n, "
        "n = {count}, correction = {correction}",
    ),
    layout=contiguous_array,
)

_SIGNATURES = (
    "tuple of ints dim, bool unbiased = True, bool keepdim = False",
    "tuple of ints dim = None, *, Number correction = None, bool keepdim = False",
    "bool unbiased = True",
)


def _spread(
    name: str,
    prim: Primitive,
    input: Tensor,
    dim: Any,
    unbiased: Any,
    keepdim: bool,
    correction: Any,
) -> Any:
    """Check and normalise the arguments of var/std/var_mean/std_mean, then run `prim`."""
    if isinstance(dim, bool):  # `x.var(False)`: the only argument is `unbiased`
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        given = {"correction": correction, "unbiased": unbiased}
        raise invalid_arguments(name, () if dim is None else (dim,), given, _SIGNATURES)
    if input._data.dtype.kind != "f":
        what = "std and var" if name in ("std", "var") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = dims_of(input, dim, name)
    count = math.prod(input._data.shape[d] for d in dims)
    if count - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
            "less than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return prim(
        input,
        dim=dims,
        keepdim=keepdim,
        correction=correction,
        count=count,
        self_sizes=input._data.shape,
    )


def var(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """Variance over `dim` (all dims when None), dividing by N - correction (default 1)."""
    return _spread("var", _var, input, dim, unbiased, keepdim, correction)


def std(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """Standard deviation over `dim`: the square root of `var`; its gradient is 0 where it is 0."""
    return _spread("std", _std, input, dim, unbiased, keepdim, correction)


def var_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple[Tensor, Tensor]:
    """(var, mean) over `dim`, as one op."""
    return _spread("var_mean", _var_mean, input, dim, unbiased, keepdim, correction)


def std_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple[Tensor, Tensor]:
    """(std, mean) over `dim`, as one op."""
    return _spread("std_mean", _std_mean, input, dim, unbiased, keepdim, correction)
