"""Ops built on the p-norm with nodes of their own: dist (the p-norm of a difference) and
renorm (slices scaled down to a largest p-norm)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from ... import _dtype
from ..._dims import wrap_dim
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..elementwise.binary_common import check_pair
from ..elementwise.conditional import where
from ..inplace import apply_inplace
from ..primitive import Primitive
from ..quiet import quietly
from .product import _norm_grad, _vector_norm_forward, p_norm

__all__ = ["dist", "renorm"]


def _norm_of_all(shape: tuple[int, ...], p: float) -> SimpleNamespace:
    """What the p-norm's gradient reads from its node, for a norm over every dim."""
    return SimpleNamespace(ord=p, dim=tuple(range(len(shape))), keepdim=False, self_sizes=shape)


def _dist_forward(a: np.ndarray, b: np.ndarray, p: float, dt: np.dtype) -> np.ndarray:
    diff = quietly(np.subtract)(a.astype(dt, copy=False), b.astype(dt, copy=False))
    single = diff.size == 1
    return _vector_norm_forward(diff, p, None, False, dt, single)


def _dist_grad(g: Tensor, n: Any) -> Tensor | None:
    diff = n.self - n.other
    return _norm_grad(g, diff, n.result, _norm_of_all(tuple(diff.shape), n.p))


def _dist_other_grad(g: Tensor, n: Any) -> Tensor:
    grad = _dist_grad(g, n)
    if grad is None:  # p = 0: PyTorch negates the missing gradient, and fails
        raise RuntimeError(
            "Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
            "argument #0 'self'"
        )
    return -grad


_dist = Primitive(
    "DistBackward0",
    _dist_forward,
    inputs=("self", "other"),
    grads=(_dist_grad, _dist_other_grad),
    formulas=(
        "the p-norm's gradient at self - other, p = {p}",
        "minus the p-norm's gradient at self - other, p = {p}",
    ),
)


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of `input - other` (broadcast together), over all their entries."""
    check_pair("dist", input, other, "tensors")
    return _dist_checked(input, other, p)


def dist_method(self: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """`x.dist(other, p)`: as `dist`, its errors naming `other` alone."""
    check_pair("dist", self, other, "tensors", method=True)
    return _dist_checked(self, other, p)


dist_method.__name__ = dist_method.__qualname__ = "dist"


def _dist_checked(input: Tensor, other: Tensor, p: float) -> Tensor:
    broadcast_shapes(input._data.shape, other._data.shape)
    dt = _dtype.result_type(input, other)
    if not dt.is_floating_point:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_dtype.scalar_name(dt)} instead."
        )
    return _dist(input, other, p=float(p), dt=dt.np)


# --- renorm ----------------------------------------------------------------------------------

_EPS = 1e-7  # PyTorch's guard against dividing by a norm of 0


@quietly
def _renorm_forward(a: np.ndarray, p: float, dim: int, maxnorm: float) -> np.ndarray:
    others = tuple(d for d in range(a.ndim) if d != dim)
    norm = _vector_norm_forward(a, p, others, True, a.dtype, False)
    factor = np.where(norm > maxnorm, maxnorm / (norm.astype(np.float64) + _EPS), 1.0)
    return a * factor.astype(a.dtype)


def _renorm_grad(g: Tensor, n: Any) -> Tensor:
    x = n.self
    others = tuple(d for d in range(x.ndim) if d != n.dim)
    norm = p_norm(x, n.p, others, others, True, x._data.dtype)
    through = (x * g).sum(others, keepdim=True)
    shape = SimpleNamespace(ord=n.p, dim=others, keepdim=True, self_sizes=tuple(x.shape))
    moved = _norm_grad(through, x, norm, shape)
    inverse = (norm + _EPS).reciprocal()
    scaled = g * (inverse * n.maxnorm)
    if moved is not None:
        scaled = scaled - (inverse * inverse * n.maxnorm) * moved
    return where(norm > n.maxnorm, scaled, g)


_renorm = Primitive(
    "RenormBackward0",
    _renorm_forward,
    grads=(_renorm_grad,),
    formulas=("grad scaled as the slice was, less its share of the norm's change",),
    layout=contiguous_array,
)


def _check_renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> int:
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim <= 1:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"
        )
    d = wrap_dim(dim, input.ndim)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_dtype.scalar_name(input.dtype)}"
        )
    return d


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """`input` with each slice along `dim` whose p-norm exceeds `maxnorm` scaled down to it."""
    d = _check_renorm(input, p, dim, maxnorm)
    return _renorm(input, p=float(p), dim=d, maxnorm=float(maxnorm))


def renorm_(self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    d = _check_renorm(self, p, dim, maxnorm)
    return apply_inplace(self, lambda old: _renorm(old, p=float(p), dim=d, maxnorm=float(maxnorm)))
