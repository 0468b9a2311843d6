"""`Variable`: the pre-0.4 wrapper, now an alias that makes a tensor (as in PyTorch), and
`Variable._execution_engine`, the engine's low-level entry points."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._backward.engine import current_graph_task, run_backward
from .._tensor import Tensor
from ._grad import as_outputs, input_edge, root_edges

__all__ = ["ImperativeEngine", "Variable", "VariableMeta"]


class ImperativeEngine:
    """The backward engine as PyTorch's C++ engine shows itself to Python."""

    def queue_callback(self, callback: Callable[[], object]) -> None:
        """Run `callback()` when the backward pass now running has finished every node."""
        task = current_graph_task()
        if task is None:
            raise RuntimeError("Final callbacks can only be installed during backward pass.")
        task.callbacks.append(callback)

    def is_checkpoint_valid(self) -> bool:
        """False inside a backward that captures given inputs (`autograd.grad`,
        `backward(inputs=...)`), where a reentrant checkpoint cannot run."""
        task = current_graph_task()
        return task is None or task.can_checkpoint

    def run_backward(
        self,
        tensors: Sequence[Any],
        grad_tensors: Sequence[Tensor | None],
        keep_graph: bool,
        create_graph: bool,
        inputs: Sequence[Any] = (),
        allow_unreachable: bool = False,
        accumulate_grad: bool = True,
    ) -> tuple[Tensor | None, ...] | None:
        """A backward pass with its arguments already checked: what `backward` (with
        `accumulate_grad`) and `grad` run. Returns the inputs' gradients, for `grad`."""
        outputs = as_outputs(tensors)
        grads: list[Any] = list(grad_tensors)
        for i, (out, g) in enumerate(zip(outputs, grads, strict=True)):
            if g is None and isinstance(out, Tensor) and out._requires_grad:
                raise RuntimeError(
                    f"element {i} of gradients tuple is None, but the corresponding Tensor "
                    "requires grad"
                )
        captures = [input_edge(t) for t in inputs] if inputs else None
        result = run_backward(
            root_edges(outputs), grads, keep_graph, create_graph, captures, accumulate_grad
        )
        if accumulate_grad:
            return None
        if not allow_unreachable:
            for i, g in enumerate(result):
                if g is None:
                    raise RuntimeError(
                        f"The differentiated Tensor at index {i} appears to not have been used "
                        "in the graph. Set allow_unused=True if this is the desired behavior."
                    )
        return tuple(result)


class VariableMeta(type):
    """Makes `isinstance(t, Variable)` true of every tensor, and `Variable(t)` a tensor."""

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


class Variable(metaclass=VariableMeta):
    """`Variable(tensor, requires_grad=True)` is a new leaf sharing `tensor`'s data."""

    _execution_engine = ImperativeEngine()


# Users meet these classes in chainrule.autograd.variable, and so they report it (as PyTorch's).
for _cls in (ImperativeEngine, VariableMeta, Variable):
    _cls.__module__ = "chainrule.autograd.variable"
