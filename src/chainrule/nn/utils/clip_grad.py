"""Gradient clipping: scale gradients to a maximum total norm, or clamp them to a range.

`clip_grad_norm_` is `get_total_norm` of the gradients followed by
`clip_grads_with_norm_`; all three work under `no_grad` on `.grad` in place.
chainrule has one code path, so `foreach` is accepted and changes nothing.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable

from ..._autograd.grad_mode import no_grad
from ..._creation import tensor as make_tensor
from ..._ops.elementwise.clamping import clamp
from ..._ops.linalg.norms import vector_norm
from ..._ops.shape.views import stack
from ..._tensor import Tensor

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(
    tensors: TensorOrTensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The norm of all `tensors` together, as if concatenated into one vector.

    It is the norm of their norms: each tensor's norm first, then the norm of those.
    """
    items = _as_list(tensors)
    norm_type = float(norm_type)
    if not items:
        return make_tensor(0.0)
    with no_grad():
        norms = [vector_norm(t, norm_type) for t in items]
        total = vector_norm(stack(norms), norm_type)
        if error_if_nonfinite and (total.isnan() | total.isinf()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
    return total


def clip_grads_with_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale every gradient by `max_norm / (total_norm + 1e-6)` when that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        # The 1e-6 keeps the division finite when every gradient is zero.
        coef = clamp(max_norm / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients of `parameters` so that their total norm is at most `max_norm`.

    Returns the total norm before clipping.
    """
    if isinstance(parameters, Tensor):
        params = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        params = list(parameters)
        if is_generator and not params:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=2,
            )
    grads = [p.grad for p in params if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated: use `clip_grad_norm_`."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient of `parameters` to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
