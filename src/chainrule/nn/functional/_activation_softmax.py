"""softmax, log_softmax and softmin: stable forwards, and their backwards as ops of their own.

Each backward is itself an op (PyTorch's `_softmax_backward_data`), so a plain
backward costs a few NumPy calls, and its own rules give the second derivative.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import _dtype, _strides
from ..._creation import empty_like, zeros_like
from ..._dtype import scalar_name
from ..._ops.primitive import Primitive, wrap_dim
from ..._ops.quiet import quietly
from ..._tensor import Tensor

__all__ = ["gumbel_softmax", "log_softmax", "softmax", "softmin"]


def _along(fn: Any) -> Any:
    """Run `fn(array, axis)` on a 0-d array as on a 1-element vector."""

    def forward(*arrays: np.ndarray, dim: int) -> np.ndarray:
        if arrays[0].ndim:
            return fn(*arrays, dim)
        return fn(*(a.reshape(1) for a in arrays), 0).reshape(())

    return forward


# The reductions are np.sum's and np.max's ufunc calls, without their Python wrappers.


@quietly  # inf - inf: PyTorch gives nan too
def _shifted(a: np.ndarray, dim: int) -> np.ndarray:
    """a minus its max along dim (so exp never overflows; empty dims stay empty)."""
    if a.shape[dim] == 0:
        return a.copy()
    return a - np.maximum.reduce(a, axis=dim, keepdims=True)


@quietly
def _softmax_np(a: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(_shifted(a, dim))
    e /= np.add.reduce(e, axis=dim, keepdims=True)
    return e


@quietly
def _log_softmax_np(a: np.ndarray, dim: int) -> np.ndarray:
    z = _shifted(a, dim)
    z -= np.log(np.add.reduce(np.exp(z), axis=dim, keepdims=True))
    return z


def _softmax_backward_np(g: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    gy = g * y
    return gy - y * np.add.reduce(gy, axis=dim, keepdims=True)


def _log_softmax_backward_np(g: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    return g - np.exp(y) * np.add.reduce(g, axis=dim, keepdims=True)


# y = softmax(x): grad_input = y * (g - sum(g * y)).
_softmax_backward: Primitive = Primitive(
    "SoftmaxBackwardDataBackward0",
    _along(_softmax_backward_np),
    inputs=("grad_output", "output"),
    grads=(
        lambda gg, n: _softmax_backward(gg, n.output, dim=n.dim),
        lambda gg, n: (
            gg * (n.grad_output - (n.grad_output * n.output).sum(n.dim, keepdim=True))
            - (gg * n.output).sum(n.dim, keepdim=True) * n.grad_output
        ),
    ),
    formulas=(
        "output * (grad - Σ(grad * output) along dim {dim})",
        "grad * (grad_output - Σ(grad_output * output)) - Σ(grad * output) * grad_output, "
        "sums along dim {dim}",
    ),
    layout=_strides.contiguous_array,
)
# Its Jacobian diag(y) - y y^T is symmetric, so the rule is also forward mode's rule.
_softmax = Primitive(
    "SoftmaxBackward0",
    _along(_softmax_np),
    grads=(lambda g, n: _softmax_backward(g, n.result, dim=n.dim),),
    formulas=("result * (grad - Σ(grad * result) along dim {dim})",),
    tangent=lambda ts, p: _softmax_backward(ts[0], p.result, dim=p.dim),
    layout=_strides.contiguous_array,
)

# y = log_softmax(x): grad_input = g - exp(y) * sum(g); its transpose takes gg to
# gg - sum(gg * exp(y)).
_log_softmax_backward: Primitive = Primitive(
    "LogSoftmaxBackwardDataBackward0",
    _along(_log_softmax_backward_np),
    inputs=("grad_output", "output"),
    grads=(
        lambda gg, n: gg - (gg * n.output.exp()).sum(n.dim, keepdim=True),
        lambda gg, n: -gg * n.output.exp() * n.grad_output.sum(n.dim, keepdim=True),
    ),
    formulas=(
        "grad - Σ(grad * exp(output)) along dim {dim}",
        "-grad * exp(output) * Σ grad_output along dim {dim}",
    ),
    layout=_strides.contiguous_array,
)
# Forward mode: the tangent t moves y by t - sum(t * exp(y)) (the transpose of the rule).
_log_softmax = Primitive(
    "LogSoftmaxBackward0",
    _along(_log_softmax_np),
    grads=(lambda g, n: _log_softmax_backward(g, n.result, dim=n.dim),),
    formulas=("grad - exp(result) * Σ grad along dim {dim}",),
    tangent=lambda ts, p: ts[0] - (ts[0] * p.result.exp()).sum(p.dim, keepdim=True),
    layout=_strides.contiguous_array,
    array_grads=(lambda g, n: _log_softmax_backward.on_arrays(g, n._array("result"), dim=n.dim),),
)


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _prepare(input: Tensor, dim: int, dtype: Any, kernel: str) -> tuple[Tensor, int]:
    """The input cast to `dtype` (recorded, as in PyTorch) and dim wrapped."""
    d = wrap_dim(dim, input.ndim)
    if dtype is not None:
        input = input.to(_dtype.to_dtype(dtype))
    if input._data.dtype.kind != "f":
        where = "lastdim_" if d == max(input.ndim - 1, 0) else ""
        raise NotImplementedError(
            f"\"{kernel}_{where}kernel_impl\" not implemented for '{scalar_name(input)}'"
        )
    return input, d


def _softmax_op(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    x, d = _prepare(input, dim, dtype, "softmax")
    return _softmax(x, dim=d)


def _log_softmax_op(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    x, d = _prepare(input, dim, dtype, "log_softmax")
    return _log_softmax(x, dim=d)


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """exp(input) / sum(exp(input)) along dim, computed from input minus its max."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return _softmax_op(input, dim, dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """input - logsumexp(input) along dim, computed stably."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return _log_softmax_op(input, dim, dtype)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """softmax(-input) along dim."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    if dtype is not None:
        input = input.to(_dtype.to_dtype(dtype))
    return _softmax_op(-input, dim)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample of the Gumbel-softmax distribution over dim: softmax((logits + g) / tau),
    g = -log(Exponential(1)) drawn as PyTorch draws it; with `hard`, the one-hot vector of
    its largest entry, whose gradient is the soft sample's (the straight-through trick)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _required_dim(name: str, dim: int | None) -> int:
    if dim is None:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    return dim


def tensor_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """`chainrule.softmax(x, dim)` and `x.softmax(dim)`: dim is required (no implicit choice)."""
    return _softmax_op(input, _required_dim("softmax", dim), dtype)


def tensor_log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """`chainrule.log_softmax(x, dim)` and `x.log_softmax(dim)`."""
    return _log_softmax_op(input, _required_dim("log_softmax", dim), dtype)


tensor_softmax.__name__ = tensor_softmax.__qualname__ = "softmax"
tensor_log_softmax.__name__ = tensor_log_softmax.__qualname__ = "log_softmax"
