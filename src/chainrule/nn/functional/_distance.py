"""Distances and normalising by a norm along a dim: normalize, cosine_similarity,
pairwise_distance (all on the reductions' p-norm)."""

from __future__ import annotations

from typing import Any

from ..._ops.broadcasting import broadcast_shapes
from ..._ops.elementwise.clamping import clamp_min, clamp_min_
from ..._ops.primitive import wrap_dim
from ..._ops.reduction.product import norm, p_norm
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["cosine_similarity", "normalize", "pairwise_distance"]


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """input / max(norm_p(input, dim), eps)."""
    return input / clamp_min(norm(input, p, dim, keepdim=True), eps).expand_as(input)


def _broadcast(x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    a, b = x1._data.shape, x2._data.shape
    if a == b:
        return x1, x2
    shape = broadcast_shapes(a, b)
    return x1.expand(shape), x2.expand(shape)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim."""
    x1, x2 = _broadcast(x1, x2)
    d = wrap_dim(dim, x1.ndim)
    n1, n2 = (_norm_at_least(x, d, eps) for x in (x1, x2))
    return ((x1 / n1) * (x2 / n2)).sum(d)


def _norm_at_least(x: Tensor, dim: int, eps: float) -> Tensor:
    """The 2-norm along `dim`, raised to `eps` as PyTorch does it: in place on a clone,
    outside the graph, so the gradient is the unclamped norm's."""
    clamped = p_norm(x, 2.0, dim, (dim,), True, x._data.dtype).clone()
    with no_grad():
        clamp_min_(clamped, eps)
    return clamped


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The p-norm of x1 - x2 + eps along the last dim."""
    ndim = max(x1.ndim, x2.ndim)
    diff = x1 - x2 + eps
    d = wrap_dim(-1, ndim)
    return p_norm(diff, float(p), d, (d,), keepdim, diff._data.dtype, node="NormBackward1")
