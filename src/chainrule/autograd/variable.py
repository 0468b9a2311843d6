"""`Variable`: the pre-0.4 wrapper, now an alias that makes a tensor (as in PyTorch)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)

    def __call__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = data.detach()
        if requires_grad and not t.is_floating_point():
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = bool(requires_grad)
        return t


class Variable(metaclass=_VariableMeta):
    """`Variable(tensor, requires_grad=True)` is a new leaf sharing `tensor`'s data."""
