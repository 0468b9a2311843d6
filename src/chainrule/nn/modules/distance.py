"""Distance layers: `PairwiseDistance` (the p-norm of x1 - x2) and `CosineSimilarity`."""

from __future__ import annotations

from typing import ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class PairwiseDistance(Module):
    """‖x1 - x2 + eps‖_p along the last dim (PyTorch keeps p as the attribute `norm`)."""

    __constants__: ClassVar[list[str]] = ["norm", "eps", "keepdim"]
    norm: float
    eps: float
    keepdim: bool

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """x1 · x2 / (max(‖x1‖, eps) * max(‖x2‖, eps)) along `dim`."""

    __constants__: ClassVar[list[str]] = ["dim", "eps"]
    dim: int
    eps: float

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
