"""pdist: the p-norm distances between the rows of a matrix, for every pair i < j.

PyTorch records a node of its own (PdistBackward0), whose rule is itself a node
(PdistBackwardBackward0) that has no derivative: so it is here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.forward_mode import unsupported
from ..._ops.primitive import Primitive
from ..._ops.quiet import quietly
from ..._tensor import Tensor

__all__ = ["pdist"]


def _pairs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The row indices i < j (in PyTorch's order) and x[i] - x[j]."""
    i, j = np.triu_indices(x.shape[0], 1)
    return i, j, x[i] - x[j]


@quietly
def _pdist_forward(x: np.ndarray, p: float) -> np.ndarray:
    _, _, diff = _pairs(x)
    a = np.abs(diff)
    if p == 0:
        out = (a != 0).sum(-1).astype(x.dtype)
    elif p == math.inf:
        out = a.max(-1, initial=0.0)
    else:
        out = (a**p).sum(-1) ** (1 / p)
    return np.asarray(out, dtype=x.dtype)


@quietly
def _pdist_grad(g: np.ndarray, x: np.ndarray, dist: np.ndarray, p: float) -> np.ndarray:
    """Each pair's gradient, d|x_i - x_j|_p / d(x_i - x_j), added to row i and taken from j;
    0 where the distance is 0 (and, for p < 1, where a component of the difference is)."""
    i, j, diff = _pairs(x)
    d = dist[:, None]
    if p == 0:
        local = np.zeros_like(diff)
    elif p == 1:
        local = np.sign(diff)
    elif p == math.inf:
        local = np.sign(diff) * (np.abs(diff) == d)
    elif p == 2:
        local = np.where(d == 0, 0.0, diff / np.where(d == 0, 1.0, d))
    else:
        a = np.abs(diff)
        local = np.sign(diff) * a ** (p - 1) / d ** (p - 1)
        local = np.where((d == 0) | ((a == 0) & (p < 1)), 0.0, local)
    step = g[:, None] * local
    out = np.zeros_like(x)
    np.add.at(out, i, step)
    np.add.at(out, j, -step)
    return out.astype(x.dtype)


def _no_derivative(g: Tensor, n: Any) -> Tensor:
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


_pdist_backward = Primitive(
    "PdistBackwardBackward0",
    _pdist_grad,
    inputs=("grad", "self", "result"),
    grads=(_no_derivative, _no_derivative, _no_derivative),
    formulas=("not implemented", "not implemented", "not implemented"),
)
_pdist = Primitive(
    "PdistBackward0",
    _pdist_forward,
    grads=(lambda g, n: _pdist_backward(g, n.self, n.result, p=n.p),),
    tangent=unsupported("_pdist_forward"),
    formulas=("Σ over pairs of grad · ∂|xᵢ - xⱼ|_p, into rows i and j",),
)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distance between each pair of rows i < j of input, in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input._data.dtype == np.float16:
        raise NotImplementedError(f"\"pdist\" not implemented for '{scalar_name(input)}'")
    return _pdist(input, p=float(p))
