"""gradcheck's deprecated Jacobian helpers (`get_numerical_jacobian`, ...), kept because
PyTorch still exports them: each warns that it is going away, then answers."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ._gradcheck_jacobians import as_tuple, diff_inputs, numerical_jacobians, output_vjp

__all__ = [
    "get_analytical_jacobian",
    "get_numerical_jacobian",
    "get_numerical_jacobian_wrt_specific_input",
]


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are "
        "deprecating it and it will be removed in a future version of PyTorch. If you have a "
        "specific use for this or feature request for this to be a stable API, please file "
        "us an issue at https://github.com/pytorch/pytorch/issues/new",
        FutureWarning,
        stacklevel=3,
    )


def _check_grad_out(grad_out: float, name: str) -> None:
    if grad_out != 1.0:
        raise ValueError(
            f"Expected grad_out to be 1.0. {name} no longer supports values of grad_out != 1.0."
        )


def _as_tensor(jacobian: np.ndarray, like: Tensor) -> Tensor:
    return Tensor._make(np.ascontiguousarray(jacobian, dtype=like._data.dtype))


def get_numerical_jacobian(
    fn: Callable[..., Any],
    inputs: Any,
    target: Any = None,
    eps: float = 1e-3,
    grad_out: float = 1.0,
) -> tuple[Tensor, ...]:
    """Jacobians of `fn(inputs)`'s first output (`fn` takes the inputs as one tuple) with
    respect to each of `target` (default: the inputs that require grad), by differences."""
    _deprecated("get_numerical_jacobian")
    _check_grad_out(grad_out, "get_numerical_jacobian")
    tupled = as_tuple(inputs)
    targets = diff_inputs(tupled) if target is None else list(as_tuple(target))
    jacobians = numerical_jacobians(lambda *xs: fn(xs), tupled, targets, eps)
    return tuple(_as_tensor(row[0], x) for row, x in zip(jacobians, targets, strict=True))


def get_numerical_jacobian_wrt_specific_input(
    fn: Callable[..., Any],
    input_idx: int,
    inputs: Any,
    outputs: Any,
    eps: float,
    input: Tensor | None = None,
    is_forward_ad: bool = False,
) -> tuple[Tensor, ...]:
    """Jacobians of each float output of `fn(*inputs)` with respect to `inputs[input_idx]`
    (or `input`), by differences. `is_forward_ad` only matters for complex inputs."""
    _deprecated("get_numerical_jacobian_wrt_specific_input")
    tupled = as_tuple(inputs)
    x = tupled[input_idx] if input is None else input
    (row,) = numerical_jacobians(fn, tupled, [x], eps)
    return tuple(_as_tensor(j, x) for j in row)


def get_analytical_jacobian(
    inputs: Any, output: Tensor, nondet_tol: float = 0.0, grad_out: float = 1.0
) -> tuple[tuple[Tensor, ...], bool, bool, bool]:
    """Jacobians of `output` with respect to each input that requires grad, one VJP per
    output element; with whether backward gave the same twice (within `nondet_tol`), and
    whether the gradients had the inputs' sizes and dtypes."""
    _deprecated("get_analytical_jacobian")
    _check_grad_out(grad_out, "get_analytical_jacobian")
    diff = diff_inputs(as_tuple(inputs))
    jacobians = [np.zeros((x._data.size, output._data.size)) for x in diff]
    reentrant = sizes_ok = types_ok = True
    for m in range(output._data.size):
        unit = np.zeros(output._data.shape)
        unit.reshape(-1)[m] = 1.0
        first, again = output_vjp(output, diff, unit), output_vjp(output, diff, unit)
        for i, (g, g2, x) in enumerate(zip(first, again, diff, strict=True)):
            if g is None:
                continue
            sizes_ok = sizes_ok and g.shape == x._data.shape
            types_ok = types_ok and g.dtype == x._data.dtype
            assert g2 is not None
            if np.max(np.abs(g - g2), initial=0.0) > nondet_tol:
                reentrant = False
            jacobians[i][:, m] = np.asarray(g, dtype=np.float64).reshape(-1)
    result = tuple(_as_tensor(j, x) for j, x in zip(jacobians, diff, strict=True))
    return result, reentrant, sizes_ok, types_ok
