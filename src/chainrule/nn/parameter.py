"""`Parameter` (a tensor a Module learns) and `Buffer` (a tensor a Module keeps as state).

A Parameter is a Tensor subclass: a leaf that shares its data and version counter
with the tensor it was made from and requires grad by default. Ops on it return
plain Tensors, as in PyTorch. A Buffer is a plain Tensor marked `_is_buffer`;
`isinstance(t, Buffer)` reads that mark.
"""

from __future__ import annotations

from typing import Any

from .._creation import empty
from .._tensor import Tensor

__all__ = ["Buffer", "Parameter", "is_lazy"]

# Per-tensor autograd state that Tensor keeps in its instance dict: not a parameter's data.
_NOT_PICKLED = frozenset({"_post_accumulate_grad_hooks", "_multi_view"})

_FLOAT_ONLY = "Only Tensors of floating point and complex dtype can require gradients"


class Parameter(Tensor):
    """A tensor that is a Module's parameter: assigning it to a Module attribute registers it."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = empty(0)
        if requires_grad and not data.is_floating_point():
            raise RuntimeError(_FLOAT_ONLY)
        # A new leaf over the same memory: writes through either show in both, and
        # both count them in one version counter (as `detach()` does).
        param = Tensor._make(data._data, requires_grad)
        param.__class__ = cls  # the same layout (no new slots), so this is a plain retag
        param._version_counter = data._version_counter
        param._inference = data._inference
        return param  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        # Unlike a Tensor's deepcopy, a Parameter's leaves its gradient and hooks behind,
        # as PyTorch's does.
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:
        # The data travels as a plain Tensor (which pickles its array); copy.copy shares it.
        # Attributes set on the parameter go with it; its hooks do not (as PyTorch).
        state = {k: v for k, v in self.__dict__.items() if k not in _NOT_PICKLED}
        return (_rebuild_parameter, (type(self), self.data, self.requires_grad, state))


def _rebuild_parameter(
    cls: type[Parameter], data: Tensor, requires_grad: bool, state: dict[str, Any]
) -> Parameter:
    param = cls(data, requires_grad)
    param.__dict__.update(state)
    return param


class _BufferMeta(type):
    """Makes `isinstance(t, Buffer)` true for the tensors `Buffer(...)` returned."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and bool(instance.__dict__.get("_is_buffer", False))


class Buffer(metaclass=_BufferMeta):
    """A tensor a Module keeps as state: assigning it to a Module attribute registers a buffer.

    `Buffer(t)` returns a plain Tensor (detached from `t`'s graph, same requires_grad)
    marked as a buffer; `persistent=False` keeps it out of the module's `state_dict`.
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:  # type: ignore[misc]
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.__dict__["persistent"] = persistent
        t.__dict__["_is_buffer"] = True
        return t


def is_lazy(param: Any) -> bool:
    """Whether `param` is an uninitialized (lazy) parameter or buffer; chainrule has none."""
    return False
