"""Jacobians for `gradcheck`: numerical by central differences, analytical by one VJP per
output element, and the comparison of the two (in full, or one random projection in fast mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..random import default_generator
from ._grad import grad

__all__ = ["as_tuple", "diff_inputs", "fast_check", "float_outputs", "output_vjp", "slow_check"]

_FAST_MODE_NOTE = (
    "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode (one random projection u^T J v of each Jacobian). Below, we recompute "
    "numerical and analytical jacobians in slow mode:\n\n"
)
_NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was {tol}.\n\nNOTE: if the backward is "
    "non-deterministic on purpose, call gradcheck/gradgradcheck with `nondet_tol=<tol>`.\n"
)


def as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, tuple | list):
        return tuple(x)
    return (x,)


def diff_inputs(inputs: tuple[Any, ...]) -> list[Tensor]:
    return [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]


def float_outputs(outputs: tuple[Any, ...]) -> list[Tensor]:
    """Outputs that can carry a gradient (floating-point tensors), in order."""
    return [o for o in outputs if isinstance(o, Tensor) and o._data.dtype.kind == "f"]


# --- numerical Jacobians ------------------------------------------------------------------


def _evaluate(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[np.ndarray]:
    """The float outputs of `func` as float64 copies (an output may alias an input)."""
    outputs = float_outputs(as_tuple(func(*inputs)))
    return [np.array(o._data, dtype=np.float64) for o in outputs]


def _numerical_jacobians(
    func: Callable[..., Any], inputs: tuple[Any, ...], diff: list[Tensor], eps: float
) -> list[list[np.ndarray]]:
    """Central differences: `J[i][j]` is the Jacobian of float output j w.r.t. `diff[i]`.

    Each input element is perturbed in place (the function sees its own tensors);
    the divisor is the perturbation as actually stored, which matters below float64.
    """
    out_sizes = [o.size for o in _evaluate(func, inputs)]
    jacobians = []
    for x in diff:
        data = x._data
        cols = [np.zeros((data.size, m)) for m in out_sizes]
        for k, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].copy()
            data[idx] = orig + eps
            hi = data[idx].astype(np.float64)
            plus = _evaluate(func, inputs)
            data[idx] = orig - eps
            lo = data[idx].astype(np.float64)
            minus = _evaluate(func, inputs)
            data[idx] = orig
            step = (hi - lo) or 2 * eps  # a step lost to rounding changes nothing: slope 0
            for j, (p, m) in enumerate(zip(plus, minus, strict=True)):
                cols[j][k] = (p - m).reshape(-1) / step
        jacobians.append(cols)
    return jacobians


def _directional(
    func: Callable[..., Any], inputs: tuple[Any, ...], x: Tensor, v: np.ndarray, eps: float
) -> list[np.ndarray]:
    """J v for every float output, by central differences along `v` (fast mode)."""
    data = x._data
    orig = data.copy()
    try:
        data[...] = orig + eps * v
        plus = _evaluate(func, inputs)
        data[...] = orig - eps * v
        minus = _evaluate(func, inputs)
    finally:
        data[...] = orig
    return [((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus, strict=True)]


# --- analytical Jacobians -----------------------------------------------------------------


def output_vjp(out: Tensor, diff: list[Tensor], grad_output: np.ndarray) -> list[np.ndarray | None]:
    """u^T J for one output, as arrays shaped like the inputs (None: no gradient)."""
    go = Tensor._make(grad_output.astype(out._data.dtype))
    grads = grad(out, diff, go, retain_graph=True, allow_unused=True)
    return [None if g is None else g._data for g in grads]


def _check_grad_attributes(grads: list[np.ndarray | None], diff: list[Tensor]) -> str | None:
    for g, x in zip(grads, diff, strict=True):
        if g is None:
            continue
        if g.dtype != x._data.dtype:
            return "Gradient has dtype mismatch"
        if g.shape != x._data.shape:
            return "Gradient has shape mismatch"
    return None


def _analytical_jacobians(
    outputs: list[Tensor], diff: list[Tensor], nondet_tol: float, check_grad_dtypes: bool
) -> tuple[list[list[np.ndarray]], str | None, bool]:
    """`J[i][j]` from one VJP per output element; also a dtype message and reentrancy."""
    jacobians = [[np.zeros((x._data.size, o._data.size)) for o in outputs] for x in diff]
    reentrant = True
    for j, out in enumerate(outputs):
        for m in range(out._data.size):
            unit = np.zeros(out._data.shape)
            unit.reshape(-1)[m] = 1.0
            first = output_vjp(out, diff, unit)
            again = output_vjp(out, diff, unit)
            if check_grad_dtypes:
                problem = _check_grad_attributes(first, diff)
                if problem is not None:
                    return jacobians, problem, reentrant
            for i, (g, g2) in enumerate(zip(first, again, strict=True)):
                a = _flat(g, diff[i])
                if np.max(np.abs(a - _flat(g2, diff[i])), initial=0.0) > nondet_tol:
                    reentrant = False
                jacobians[i][j][:, m] = a
    return jacobians, None, reentrant


def _flat(g: np.ndarray | None, x: Tensor) -> np.ndarray:
    if g is None:
        return np.zeros(x._data.size)
    return np.asarray(g, dtype=np.float64).reshape(-1)


# --- comparing ----------------------------------------------------------------------------


def _as_tensor_text(a: np.ndarray) -> str:
    return repr(Tensor._make(np.asarray(a, dtype=np.float64)))


def _mismatch_message(
    j: int,
    i: int,
    numerical: np.ndarray,
    analytical: np.ndarray,
    in_shape: tuple[int, ...],
    out_shape: tuple[int, ...],
    bad: np.ndarray,
) -> str:
    row, col = (int(k) for k in np.argwhere(bad)[0])
    in_idx = tuple(int(k) for k in np.unravel_index(row, in_shape)) if in_shape else ()
    out_idx = tuple(int(k) for k in np.unravel_index(col, out_shape)) if out_shape else ()
    return (
        f"Jacobian mismatch for output {j} with respect to input {i},\n"
        f"numerical:{_as_tensor_text(numerical)}\n"
        f"analytical:{_as_tensor_text(analytical)}\n\n"
        f"The first mismatching entry is [{row}, {col}] (d output {j}{list(out_idx)} / "
        f"d input {i}{list(in_idx)}): numerical {float(numerical[row, col])!r}, analytical "
        f"{float(analytical[row, col])!r}.\n"
    )


def _not_close(analytical: np.ndarray, numerical: np.ndarray, atol: float, rtol: float) -> Any:
    return ~(np.abs(analytical - numerical) <= atol + rtol * np.abs(numerical))


def slow_check(
    func: Callable[..., Any],
    inputs: tuple[Any, ...],
    diff: list[Tensor],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
    check_grad_dtypes: bool,
) -> str | None:
    """Compare full Jacobians; the failure message, or None when they match."""
    outputs = float_outputs(as_tuple(func(*inputs)))
    numerical = _numerical_jacobians(func, inputs, diff, eps)
    zero_message = _check_nondifferentiable(outputs, numerical, atol)
    if zero_message is not None:
        return zero_message
    diff_outputs = [o for o in outputs if o._requires_grad]
    numerical = [
        [n for n, o in zip(row, outputs, strict=True) if o._requires_grad] for row in numerical
    ]
    analytical, attr_problem, reentrant = _analytical_jacobians(
        diff_outputs, diff, nondet_tol, check_grad_dtypes
    )
    if attr_problem is not None:
        return attr_problem
    for i, x in enumerate(diff):
        for j, out in enumerate(diff_outputs):
            a, n = analytical[i][j], numerical[i][j]
            bad = _not_close(a, n, atol, rtol)
            if bad.any():
                return _mismatch_message(j, i, n, a, x._data.shape, out._data.shape, bad)
    if not reentrant:
        return _NOT_REENTRANT.format(tol=nondet_tol)
    return None


def _check_nondifferentiable(
    outputs: list[Tensor], numerical: list[list[np.ndarray]], atol: float
) -> str | None:
    """With no differentiable output, the outputs must not change with the inputs."""
    if any(o._requires_grad for o in outputs):
        return None
    if any(np.any(np.abs(n) > atol) for row in numerical for n in row):
        return "Numerical gradient for function expected to be zero"
    return None


def fast_check(
    func: Callable[..., Any],
    inputs: tuple[Any, ...],
    diff: list[Tensor],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
    check_grad_dtypes: bool,
) -> str | None:
    """Compare u^T (J v) by finite differences with (u^T J) v by one VJP, per output/input."""
    outputs = float_outputs(as_tuple(func(*inputs)))
    vs = [_unit(default_generator._normal(x._data.shape)) for x in diff]
    us = [_unit(default_generator._normal(o._data.shape)) for o in outputs]
    jv = [_directional(func, inputs, x, v, eps) for x, v in zip(diff, vs, strict=True)]
    zero_message = _check_nondifferentiable(outputs, jv, atol)
    if zero_message is not None:
        return zero_message
    reentrant = True
    jo = -1  # the output's number among the differentiable outputs
    for j, (out, u) in enumerate(zip(outputs, us, strict=True)):
        if not out._requires_grad:
            continue
        jo += 1
        first = output_vjp(out, diff, u)
        again = output_vjp(out, diff, u)
        if check_grad_dtypes:
            problem = _check_grad_attributes(first, diff)
            if problem is not None:
                return problem
        for i, x in enumerate(diff):
            a_vec, a2_vec = _flat(first[i], x), _flat(again[i], x)
            if np.max(np.abs(a_vec - a2_vec), initial=0.0) > nondet_tol:
                reentrant = False
            analytical = float(a_vec @ vs[i].reshape(-1))
            numerical = float(u.reshape(-1) @ jv[i][j])
            # Entrywise allclose, bounded through the projection: sum |u_m| |v_k| atol.
            tol = atol * np.abs(u).sum() * np.abs(vs[i]).sum() + rtol * abs(numerical)
            if not abs(analytical - numerical) <= tol:
                return _fast_mismatch_message(
                    func, inputs, diff, eps, atol, rtol, jo, i, numerical, analytical
                )
    if not reentrant:
        return _NOT_REENTRANT.format(tol=nondet_tol)
    return None


def _unit(a: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(a)
    return a / norm if norm > 0 else a


def _fast_mismatch_message(
    func: Callable[..., Any],
    inputs: tuple[Any, ...],
    diff: list[Tensor],
    eps: float,
    atol: float,
    rtol: float,
    j: int,
    i: int,
    numerical: float,
    analytical: float,
) -> str:
    """The fast-mode numbers, then the full Jacobians recomputed in slow mode."""
    outputs = float_outputs(as_tuple(func(*inputs)))
    slow_n = _numerical_jacobians(func, inputs, [diff[i]], eps)[0]
    slow_n = [n for n, o in zip(slow_n, outputs, strict=True) if o._requires_grad]
    diff_outputs = [o for o in outputs if o._requires_grad]
    slow_a, _, _ = _analytical_jacobians([diff_outputs[j]], [diff[i]], np.inf, False)
    n, a = slow_n[j], slow_a[0][0]
    text = (
        f"Jacobian mismatch for output {j} with respect to input {i},\n"
        f"numerical:{numerical!r}\nanalytical:{analytical!r}\n{_FAST_MODE_NOTE}"
        f"Numerical:\n {_as_tensor_text(n)}\nAnalytical:\n{_as_tensor_text(a)}\n\n"
        f"The max per-element difference (slow mode) is: "
        f"{float(np.max(np.abs(a - n), initial=0.0))!r}.\n"
    )
    bad = _not_close(a, n, atol, rtol)
    if bad.any():
        row, col = (int(k) for k in np.argwhere(bad)[0])
        text += (
            f"The first mismatching entry (slow mode) is [{row}, {col}]: numerical "
            f"{float(n[row, col])!r}, analytical {float(a[row, col])!r}.\n"
        )
    return text
