"""All parameters as one flat vector, and back."""

from __future__ import annotations

from collections.abc import Iterable

from ..._ops.shape.views import cat
from ..._tensor import Tensor
from ..modules.module import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated, in order (differentiable)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Point each parameter's data at its slice of `vec` (the inverse of the above)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n
