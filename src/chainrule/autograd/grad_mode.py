"""Grad modes, public home: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`,
`set_multithreading_enabled`.

Defined below Tensor, in `chainrule._autograd.grad_mode` (every op reads them).
"""

from __future__ import annotations

from .._autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)

__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
    "set_multithreading_enabled",
]
