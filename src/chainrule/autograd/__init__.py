"""Reverse-mode automatic differentiation: `backward`, `grad`, custom `Function`s, grad modes.

The public autograd layer, above Tensor (see the Layers section of `chainrule._autograd`).
"""

from __future__ import annotations

from typing import Any

from .. import _creation
from .._autograd.node import Node
from .._backward.saved import SavedTensor
from .._tensor import Tensor
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph
from ._grad import backward, grad
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function, FunctionCtx, NestedIOFunction, once_differentiable
from .grad_mode import (
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    is_view_replay_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "NestedIOFunction",
    "SavedTensor",
    "Variable",
    "anomaly_mode",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "enforce_grad_layout_policy",
    "forward_ad",
    "function",
    "functional",
    "grad",
    "grad_mode",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "is_view_replay_enabled",
    "no_grad",
    "once_differentiable",
    "set_anomaly_enabled",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
    "variable",
]


def variable(*args: Any, **kwargs: Any) -> Any:
    """The pre-0.4 constructor; it only raises now, as in PyTorch. (The module
    `chainrule.autograd.variable` is still importable by name: importing goes by module path.)"""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


variable.Variable = Variable  # type: ignore[attr-defined]  # as PyTorch, for code reading it here


# --- methods of Tensor and Node that need this layer, bound here once -------------------


def _tensor_backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Accumulate d(self)/d(leaf), weighted by `gradient`, into every leaf's `.grad`."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _node_call(self: Node, *grad_outputs: Any) -> Any:
    """Run the node's backward on `grad_outputs` (numbers and lists become tensors, as PyTorch)."""
    grads = self._apply([_as_grad(g) for g in grad_outputs])
    return grads[0] if len(grads) == 1 else tuple(grads)


def _as_grad(value: Any) -> Any:
    """A user-given gradient as a Tensor (numbers and lists are accepted, as in PyTorch)."""
    if value is None or isinstance(value, Tensor):
        return value
    return _creation.tensor(value)


_tensor_backward.__name__, _tensor_backward.__qualname__ = "backward", "Tensor.backward"
_node_call.__name__, _node_call.__qualname__ = "__call__", "Node.__call__"
Tensor.backward = _tensor_backward  # type: ignore[method-assign]
Node.__call__ = _node_call  # type: ignore[method-assign]
