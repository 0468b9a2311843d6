"""PyTorch's deprecated linear-algebra forms, each warning once as PyTorch does and then
doing what its replacement does: chain_matmul (linalg.multi_dot), frobenius_norm (the
2-norm over up to two dims) and nuclear_norm (linalg.matrix_norm with 'nuc')."""

from __future__ import annotations

from typing import Any

from ... import _dtype
from ..._tensor import Tensor
from ..reduction.common import dims_of
from ..reduction.product import p_norm
from .decompositions import warn_once
from .norms import matrix_norm
from .products import multi_dot

__all__ = ["chain_matmul", "frobenius_norm", "nuclear_norm"]


def chain_matmul(*matrices: Tensor, out: Any = None) -> Tensor:
    """The product of the matrices, in the cheapest order (linalg.multi_dot)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        if not isinstance(m, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(m).__name__}"
            )
    if len(matrices) == 1:
        if matrices[0].ndim != 2:
            raise RuntimeError(f"Tensor dimension is {matrices[0].ndim}, expected 2 instead.")
        return matrices[0].clone()
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    warn_once(
        "chain_matmul",
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.",
    )
    return multi_dot(matrices)


def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """The 2-norm over `dim` (at most two dims), as torch.norm(input, 2, dim) records it."""
    warn_once(
        "frobenius_norm",
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will "
        "be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
        "keepdim)` instead",
    )
    shown = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(shown) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(shown)} dimensions instead."
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_dtype.scalar_name(input.dtype)} instead."
        )
    dims = dims_of(input, shown, "norm")
    return p_norm(input, 2.0, shown, dims, keepdim, input._data.dtype, node="NormBackward1")


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum of the singular values of each matrix over `dim` (the last two dims by
    default); `nuclear_norm(input, True)` keeps them, as PyTorch's other signature."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    warn_once(
        "nuclear_norm",
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
        "keepdim)` instead",
    )
    if dim is None:
        dim = (-2, -1)
    elif isinstance(dim, int):  # one int stands for both dims, as in PyTorch's parser
        dim = (dim, dim)
    return matrix_norm(input, "nuc", dim, keepdim)
