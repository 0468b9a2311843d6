"""Vector geometry: cross products (torch.cross, linalg.cross) and pairwise p-norm distances
(cdist, whose gradient is 0 where two points coincide, as in PyTorch)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import _dtype, _strides
from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..elementwise.conditional import where
from ..primitive import Primitive, wrap_dim

__all__ = ["cdist", "cross"]


# --- cross --------------------------------------------------------------------------------


def _cross_forward(a: np.ndarray, b: np.ndarray, dim: int, dt: np.dtype) -> np.ndarray:
    a, b = np.broadcast_arrays(a.astype(dt, copy=False), b.astype(dt, copy=False))
    return np.cross(a, b, axis=dim)


# `dim` is kept negative, so the rules' broadcasting operands find the same dim.
_cross: Primitive = Primitive(
    "LinalgCrossBackward0",
    _cross_forward,
    inputs=("self", "other"),
    grads=(
        lambda g, n: _cross(n.other, g, dim=n.dim, dt=g._data.dtype),
        lambda g, n: _cross(g, n.self, dim=n.dim, dt=g._data.dtype),
    ),
    formulas=("cross(other, grad) along dim {dim}", "cross(grad, self) along dim {dim}"),
    tangent="multilinear",
    layout=_strides.contiguous_array,
)


def _linalg_cross(input: Tensor, other: Tensor, dim: int, shown: Any) -> Tensor:
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = _broadcast_shape(input, other)
    d = wrap_dim(dim, len(shape))
    sa, sb = input._data.shape[d], other._data.shape[d]
    if sa != 3 or sb != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {shown} must have length 3. Got {sa} and {sb}"
        )
    dt = _dtype.result_type(input, other)
    return _cross(input, other, dim=d - len(shape), dt=dt.np)


def _broadcast_shape(a: Tensor, b: Tensor) -> tuple[int, ...]:
    return broadcast_shapes(a._data.shape, b._data.shape)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """The cross product of 3-vectors along `dim` (inputs broadcast)."""
    return _linalg_cross(input, other, dim, dim)


def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out: Any = None) -> Tensor:
    """The cross product along `dim` (default: the first dim of size 3, deprecated)."""
    if dim is None:
        shape = _broadcast_shape(input, other)
        found = [i for i, s in enumerate(shape) if s == 3]
        if not found:
            raise RuntimeError("no dimension of size 3 in input")
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        dim = found[0]
    return _linalg_cross(input, other, dim, dim)


# --- cdist ----------------------------------------------------------------------------------


def _cdist_forward(x1: np.ndarray, x2: np.ndarray, p: float) -> np.ndarray:
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return np.sum(diff != 0, axis=-1).astype(diff.dtype)
    if p == 1:
        return np.sum(diff, axis=-1)
    if p == 2:
        return np.sqrt(np.sum(diff * diff, axis=-1))
    if p == np.inf:
        return np.max(diff, axis=-1, initial=0).astype(diff.dtype)
    return np.sum(diff**p, axis=-1) ** (1 / p)


def _cdist_weights(g: Tensor, x1: Tensor, x2: Tensor, dist: Tensor, p: float) -> Tensor:
    """g times d dist / d x1 for every pair: shape (..., P, R, M); 0 where dist is 0."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    g = g.unsqueeze(-1)
    if p == 1:
        return g * diff.sign()
    d = dist.unsqueeze(-1)
    zero = d == 0
    if p == 2:
        return where(zero, 0, g * diff / where(zero, 1, d))
    if p == np.inf:
        return g * diff.sign() * (diff.abs() == d)
    # sign(x) |x|^(p-1) / dist^(p-1), with 0 where x is 0 (for p < 1 the power blows up)
    flat = diff == 0
    scaled = diff.sign() * (where(flat, 1, diff.abs()) / where(zero, 1, d)) ** (p - 1)
    return where(zero | flat, 0, g * scaled)


def _cdist_grad(g: Tensor, x1: Tensor, x2: Tensor, dist: Tensor, p: float, first: bool) -> Tensor:
    if p == 0:  # the 0-"norm" counts: its gradient is zero (PyTorch gives zeros, not None)
        return (x1 if first else x2) * 0
    weights = _cdist_weights(g, x1, x2, dist, p)
    return weights.sum(-2) if first else -weights.sum(-3)


_cdist = Primitive(
    "CdistBackward0",
    _cdist_forward,
    inputs=("x1", "x2"),
    grads=(
        lambda g, n: _cdist_grad(g, n.x1, n.x2, n.result, n.p, first=True),
        lambda g, n: _cdist_grad(g, n.x1, n.x2, n.result, n.p, first=False),
    ),
    formulas=(
        "Σ_j grad[i, j] * sign(d) * |d|^(p - 1) / result[i, j]^(p - 1), d = x1[i] - x2[j], p = {p}",
        "-Σ_i grad[i, j] * sign(d) * |d|^(p - 1) / result[i, j]^(p - 1), d = x1[i] - x2[j], "
        "p = {p}",
    ),
    layout=_strides.contiguous_array,
)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M): (..., P, R)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.dtype.kind != "f":
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {scalar_name(x)}"
            )
    if np.float16 in (x1._data.dtype, x2._data.dtype):
        raise NotImplementedError("\"cdist\" not implemented for 'Half'")
    m1, m2 = x1._data.shape[-1], x2._data.shape[-1]
    if m1 != m2:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {m1} X2: {m2}")
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_name(x1)} but found {scalar_name(x2)}")
    broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2])
    return _cdist(x1, x2, p=float(p))
