"""Norms along a dim and what is built on them: normalize, cosine_similarity, pairwise_distance."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._ops.elementwise.conditional import where
from ..._ops.elementwise.forwards import broadcast_error
from ..._ops.primitive import Primitive, wrap_dim
from ..._tensor import Tensor
from ._common import clamp_min

__all__ = ["cosine_similarity", "normalize", "pairwise_distance"]


def _norm_forward(a: np.ndarray, p: float, dim: int, keepdim: bool) -> np.ndarray:
    if p == 2:
        out = np.sqrt(np.sum(a * a, axis=dim, keepdims=keepdim))
    elif p == math.inf:
        out = np.max(np.abs(a), axis=dim, keepdims=keepdim, initial=0)
    elif p == 1:
        out = np.sum(np.abs(a), axis=dim, keepdims=keepdim)
    elif p == 0:
        out = np.sum(a != 0, axis=dim, keepdims=keepdim)
    else:
        out = np.sum(np.abs(a) ** p, axis=dim, keepdims=keepdim) ** (1 / p)
    return np.asarray(out, dtype=a.dtype)


def _norm_rule(g: Tensor, n: Any) -> Tensor:
    x, norm, p = n.self, n.result, n.p
    if not n.keepdim:
        g, norm = g.unsqueeze(n.dim), norm.unsqueeze(n.dim)
    if p == 0:
        return x * 0 * g
    if p == 1:
        return g * x.sign()
    if p == math.inf:  # shared evenly among the entries that reach the max
        hit = (x.abs() == norm).to(x.dtype)
        return g * x.sign() * hit / hit.sum(n.dim, keepdim=True)
    safe = where(norm == 0, 1, norm)
    if p == 2:
        return g * x / safe
    ax = x.abs()
    return g * x * where(ax == 0, 0, where(ax == 0, 1, ax) ** (p - 2)) / safe ** (p - 1)


# A p-norm over one dim (PyTorch's `norm(input, p, dim)`); no gradient where it is 0.
_norm = Primitive("NormBackward1", _norm_forward, grads=(_norm_rule,))


def _clamped_norm_forward(a: np.ndarray, dim: int, eps: float) -> np.ndarray:
    return np.maximum(np.sqrt(np.sum(a * a, axis=dim, keepdims=True)), np.asarray(eps, a.dtype))


def _clamped_norm_rule(g: Tensor, n: Any) -> Tensor:
    norm = (n.self * n.self).sum(n.dim, keepdim=True).sqrt()
    return g * n.self / where(norm == 0, 1, norm)


# Note: cosine_similarity clamps its norms to eps in place, outside the graph, so the
# value is max(norm, eps) while the gradient is that of the unclamped norm.
_clamped_norm = Primitive(
    "LinalgVectorNormBackward0", _clamped_norm_forward, grads=(_clamped_norm_rule,)
)


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """input / max(norm_p(input, dim), eps)."""
    d = wrap_dim(dim, input.ndim)
    norm = _norm(input, p=float(p), dim=d, keepdim=True)
    return input / clamp_min(norm, eps).expand_as(input)


def _broadcast(x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    a, b = x1._data.shape, x2._data.shape
    if a == b:
        return x1, x2
    try:
        shape = np.broadcast_shapes(a, b)
    except ValueError:
        raise RuntimeError(broadcast_error(a, b)) from None
    return x1.expand(shape), x2.expand(shape)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim."""
    x1, x2 = _broadcast(x1, x2)
    d = wrap_dim(dim, x1.ndim)
    n1 = _clamped_norm(x1, dim=d, eps=eps)
    n2 = _clamped_norm(x2, dim=d, eps=eps)
    return ((x1 / n1) * (x2 / n2)).sum(d)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The p-norm of x1 - x2 + eps along the last dim."""
    ndim = max(x1.ndim, x2.ndim)
    diff = x1 - x2 + eps
    return _norm(diff, p=float(p), dim=wrap_dim(-1, ndim), keepdim=keepdim)
