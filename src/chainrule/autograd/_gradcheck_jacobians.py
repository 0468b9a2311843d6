"""Jacobians for `gradcheck`: numerical by central differences, analytical by one VJP per
output element, and the comparison of the two (in full, or one random projection in fast mode).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..random import default_generator
from ._grad import grad

__all__ = [
    "FAILED_NONDET_MSG",
    "FAST_FAIL_SLOW_OK_MSG",
    "JacobianCheck",
    "as_tuple",
    "diff_inputs",
    "float_outputs_of",
    "mismatch_message",
    "not_close",
    "numerical_jacobians",
    "output_vjp",
]

_FAST_MODE_NOTE = (
    "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
    "in fast mode (one random projection u^T J v of each Jacobian). Below, we recompute "
    "numerical and analytical jacobians in slow mode:\n\n"
)
FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""
FAST_FAIL_SLOW_OK_MSG = """Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`"""  # noqa: E501
_NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output "
    "multiple times gives different values, although analytical gradient matches numerical "
    "gradient.The tolerance for nondeterminism was {tol}." + FAILED_NONDET_MSG
)


def as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, tuple | list):
        return tuple(x)
    return (x,)


def diff_inputs(inputs: tuple[Any, ...]) -> list[Tensor]:
    return [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]


def float_outputs_of(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[Tensor]:
    """The outputs of `func(*inputs)` that can carry a gradient (floating-point tensors)."""
    outputs = as_tuple(func(*inputs))
    return [o for o in outputs if isinstance(o, Tensor) and o._data.dtype.kind == "f"]


def _differentiable_only(
    outputs: list[Tensor], numerical: list[list[np.ndarray]]
) -> tuple[list[Tensor], list[list[np.ndarray]]]:
    """The outputs that require grad, and the numerical Jacobians of just those."""
    keep = [o._requires_grad for o in outputs]
    kept_outputs = [o for o, k in zip(outputs, keep, strict=True) if k]
    return kept_outputs, [[n for n, k in zip(row, keep, strict=True) if k] for row in numerical]


# --- numerical Jacobians ------------------------------------------------------------------


def _evaluate(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[np.ndarray]:
    """The float outputs of `func` as float64 copies (an output may alias an input)."""
    return [np.array(o._data, dtype=np.float64) for o in float_outputs_of(func, inputs)]


def numerical_jacobians(
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


def _checked_vjp(
    out: Tensor, diff: list[Tensor], u: np.ndarray, nondet_tol: float, check_grad_dtypes: bool
) -> tuple[list[np.ndarray], bool, str | None]:
    """u^T J for one output, run twice: flat per input, whether the two runs agree within
    `nondet_tol` (reentrancy), and what is wrong with the gradients' dtype or shape, if asked.
    """
    first = output_vjp(out, diff, u)
    again = output_vjp(out, diff, u)
    if check_grad_dtypes:
        problem = _check_grad_attributes(first, diff)
        if problem is not None:
            return [], True, problem
    flat = [_flat(g, x) for g, x in zip(first, diff, strict=True)]
    reentrant = not any(
        np.max(np.abs(a - _flat(g2, x)), initial=0.0) > nondet_tol
        for a, g2, x in zip(flat, again, diff, strict=True)
    )
    return flat, reentrant, None


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
            vjps, agreed, problem = _checked_vjp(out, diff, unit, nondet_tol, check_grad_dtypes)
            if problem is not None:
                return jacobians, problem, reentrant
            reentrant = reentrant and agreed
            for i, vjp in enumerate(vjps):
                jacobians[i][j][:, m] = vjp
    return jacobians, None, reentrant


def _flat(g: np.ndarray | None, x: Tensor) -> np.ndarray:
    if g is None:
        return np.zeros(x._data.size)
    return np.asarray(g, dtype=np.float64).reshape(-1)


# --- comparing ----------------------------------------------------------------------------


def _as_tensor_text(a: np.ndarray) -> str:
    return repr(Tensor._make(np.asarray(a, dtype=np.float64)))


def mismatch_message(
    j: int,
    i: int,
    numerical: np.ndarray,
    analytical: np.ndarray,
    in_shape: tuple[int, ...],
    out_shape: tuple[int, ...],
    bad: np.ndarray,
    forward: bool = False,
) -> str:
    """PyTorch's words, then the first entry that differs; `forward`: from forward mode."""
    mode = "computed with forward mode " if forward else ""
    row, col = (int(k) for k in np.argwhere(bad)[0])
    in_idx = tuple(int(k) for k in np.unravel_index(row, in_shape)) if in_shape else ()
    out_idx = tuple(int(k) for k in np.unravel_index(col, out_shape)) if out_shape else ()
    return (
        f"Jacobian {mode}mismatch for output {j} with respect to input {i},\n"
        f"numerical:{_as_tensor_text(numerical)}\n"
        f"analytical:{_as_tensor_text(analytical)}\n\n"
        f"The first mismatching entry is [{row}, {col}] (d output {j}{list(out_idx)} / "
        f"d input {i}{list(in_idx)}): numerical {float(numerical[row, col])!r}, analytical "
        f"{float(analytical[row, col])!r}.\n"
    )


def not_close(analytical: np.ndarray, numerical: np.ndarray, atol: float, rtol: float) -> Any:
    return ~(np.abs(analytical - numerical) <= atol + rtol * np.abs(numerical))


def _check_nondifferentiable(
    outputs: list[Tensor], numerical: list[list[np.ndarray]], atol: float
) -> str | None:
    """With no differentiable output, the outputs must not change with the inputs."""
    if any(o._requires_grad for o in outputs):
        return None
    if any(np.any(np.abs(n) > atol) for row in numerical for n in row):
        return "Numerical gradient for function expected to be zero"
    return None


def _unit(a: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(a)
    return a / norm if norm > 0 else a


@dataclass(frozen=True)
class JacobianCheck:
    """The Jacobians of `func` at `inputs` with respect to `diff` (the inputs that require
    grad), compared in full (`slow`) or through one random projection (`fast`).

    Each comparison returns the failure message, or None when they match.
    """

    func: Callable[..., Any]
    inputs: tuple[Any, ...]
    diff: list[Tensor]
    eps: float
    atol: float
    rtol: float
    nondet_tol: float
    check_grad_dtypes: bool

    def slow(self) -> str | None:
        """Compare full Jacobians."""
        outputs = float_outputs_of(self.func, self.inputs)
        numerical = numerical_jacobians(self.func, self.inputs, self.diff, self.eps)
        zero_message = _check_nondifferentiable(outputs, numerical, self.atol)
        if zero_message is not None:
            return zero_message
        diff_outputs, numerical = _differentiable_only(outputs, numerical)
        analytical, attr_problem, reentrant = _analytical_jacobians(
            diff_outputs, self.diff, self.nondet_tol, self.check_grad_dtypes
        )
        if attr_problem is not None:
            return attr_problem
        for i, x in enumerate(self.diff):
            for j, out in enumerate(diff_outputs):
                a, n = analytical[i][j], numerical[i][j]
                bad = not_close(a, n, self.atol, self.rtol)
                if bad.any():
                    return mismatch_message(j, i, n, a, x._data.shape, out._data.shape, bad)
        if not reentrant:
            return _NOT_REENTRANT.format(tol=self.nondet_tol)
        return None

    def fast(self) -> str | None:
        """Compare u^T (J v) by finite differences with (u^T J) v by one VJP, per output/input."""
        outputs = float_outputs_of(self.func, self.inputs)
        vs = [_unit(default_generator._normal(x._data.shape)) for x in self.diff]
        us = [_unit(default_generator._normal(o._data.shape)) for o in outputs]
        jv = [
            _directional(self.func, self.inputs, x, v, self.eps)
            for x, v in zip(self.diff, vs, strict=True)
        ]
        zero_message = _check_nondifferentiable(outputs, jv, self.atol)
        if zero_message is not None:
            return zero_message
        reentrant = True
        jo = -1  # the output's number among the differentiable outputs
        for j, (out, u) in enumerate(zip(outputs, us, strict=True)):
            if not out._requires_grad:
                continue
            jo += 1
            vjps, agreed, problem = _checked_vjp(
                out, self.diff, u, self.nondet_tol, self.check_grad_dtypes
            )
            if problem is not None:
                return problem
            reentrant = reentrant and agreed
            for i in range(len(self.diff)):
                analytical = float(vjps[i] @ vs[i].reshape(-1))
                numerical = float(u.reshape(-1) @ jv[i][j])
                # Entrywise allclose, bounded through the projection: sum |u_m| |v_k| atol.
                tol = self.atol * np.abs(u).sum() * np.abs(vs[i]).sum() + self.rtol * abs(numerical)
                if not abs(analytical - numerical) <= tol:
                    return self._fastmismatch_message(jo, i, numerical, analytical)
        if not reentrant:
            return _NOT_REENTRANT.format(tol=self.nondet_tol)
        return None

    def _fastmismatch_message(self, j: int, i: int, numerical: float, analytical: float) -> str:
        """The fast-mode numbers, then the full Jacobians recomputed in slow mode."""
        outputs = float_outputs_of(self.func, self.inputs)
        slow_n = numerical_jacobians(self.func, self.inputs, [self.diff[i]], self.eps)
        diff_outputs, slow_n = _differentiable_only(outputs, slow_n)
        slow_a, _, _ = _analytical_jacobians([diff_outputs[j]], [self.diff[i]], np.inf, False)
        n, a = slow_n[0][j], slow_a[0][0]
        text = (
            f"Jacobian mismatch for output {j} with respect to input {i},\n"
            f"numerical:{numerical!r}\nanalytical:{analytical!r}\n{_FAST_MODE_NOTE}"
            f"Numerical:\n {_as_tensor_text(n)}\nAnalytical:\n{_as_tensor_text(a)}\n\n"
            f"The max per-element difference (slow mode) is: "
            f"{float(np.max(np.abs(a - n), initial=0.0))!r}.\n"
        )
        bad = not_close(a, n, self.atol, self.rtol)
        if bad.any():
            row, col = (int(k) for k in np.argwhere(bad)[0])
            text += (
                f"The first mismatching entry (slow mode) is [{row}, {col}]: numerical "
                f"{float(n[row, col])!r}, analytical {float(a[row, col])!r}.\n"
            )
        else:
            text += FAST_FAIL_SLOW_OK_MSG
        return text
