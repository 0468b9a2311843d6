"""Helpers shared by the activation, layer and loss modules: checks, messages, reductions.

Nothing here is public.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..._autograd import grad_mode
from ..._dtype import scalar_name
from ..._tensor import Tensor


def float_only(input: Tensor, kernel: str) -> None:
    """PyTorch's error for a floating-point kernel given an integer or bool tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"expected Tensor as input, but got {type(input).__name__}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input)}'")


def not_differentiable(function: str, **inputs: Tensor | None) -> None:
    """PyTorch refuses, at the call, inputs that require grad but have no derivative."""
    if not grad_mode.is_grad_enabled():
        return
    for name, t in inputs.items():
        if t is not None and t._requires_grad:
            raise RuntimeError(
                f"The function '{function}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )


NEGATIVE_SLOPE_INPLACE = (
    "In-place {name} backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead."
)


# --- reductions -----------------------------------------------------------------------

REDUCTIONS = ("none", "mean", "sum")


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """The `reduction` meant by the deprecated `size_average` and `reduce` arguments."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        reduction = "mean"
    elif reduce:
        reduction = "sum"
    else:
        reduction = "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
        "instead.",
        UserWarning,
        stacklevel=3,
    )
    return reduction


def check_reduction(reduction: str, allowed: tuple[str, ...] = REDUCTIONS) -> str:
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """A pointwise loss reduced as asked: 'none', 'mean' or 'sum'."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def size_warning(input: Tensor, target: Tensor) -> None:
    """The warning of PyTorch's regression losses for a target that broadcasts."""
    if input._data.shape != target._data.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
