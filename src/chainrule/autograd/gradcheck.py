"""Checking derivative rules against finite differences: `gradcheck` and `gradgradcheck`.

Jacobians here are laid out as PyTorch prints them: one row per element of the
input, one column per element of the output (`J[k, m] = d out[m] / d in[k]`).
Inputs and outputs are numbered among the differentiable ones only (tensors
that require grad), as in PyTorch's messages.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import grad_mode

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by `gradcheck` and `gradgradcheck` when a check fails."""


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
_UNDEFINED_GRAD = (
    "Expected backward function to handle undefined output grads. A backward that receives "
    "None (or, with materialize_grads, zeros) for every grad_output must return None or "
    "zeros for every input."
)


def _as_tuple(x: Any) -> tuple[Any, ...]:
    from .._tensor import Tensor

    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, tuple | list):
        return tuple(x)
    return (x,)


def _is_tensor(x: Any) -> bool:
    from .._tensor import Tensor

    return isinstance(x, Tensor)


def _diff_inputs(inputs: tuple[Any, ...]) -> list[Tensor]:
    return [x for x in inputs if _is_tensor(x) and x._requires_grad]


def _float_outputs(outputs: tuple[Any, ...]) -> list[Tensor]:
    """Outputs that can carry a gradient (floating-point tensors), in order."""
    return [o for o in outputs if _is_tensor(o) and o._data.dtype.kind == "f"]


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def _check_inputs(inputs: tuple[Any, ...]) -> list[Tensor]:
    """The inputs gradients are checked for, after PyTorch's warnings and errors."""
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    for i, x in enumerate(inputs):
        if not _is_tensor(x) or not x._requires_grad:
            continue
        if x._data.dtype != np.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=3,
            )
        strides = zip(x._data.strides, x._data.shape, strict=True)
        if x._data.size and any(s == 0 and n > 1 for s, n in strides):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
    return diff


# --- numerical Jacobians ------------------------------------------------------------------


def _evaluate(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[np.ndarray]:
    """The float outputs of `func` as float64 copies (an output may alias an input)."""
    outputs = _float_outputs(_as_tuple(func(*inputs)))
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


def _vjp(out: Tensor, diff: list[Tensor], grad_output: np.ndarray) -> list[np.ndarray | None]:
    """u^T J for one output, as arrays shaped like the inputs (None: no gradient)."""
    from .._tensor import Tensor
    from . import grad as autograd_grad

    go = Tensor._make(grad_output.astype(out._data.dtype))
    grads = autograd_grad(out, diff, go, retain_graph=True, allow_unused=True)
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
            first = _vjp(out, diff, unit)
            again = _vjp(out, diff, unit)
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
    from .._tensor import Tensor

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


def _slow_check(
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
    outputs = _float_outputs(_as_tuple(func(*inputs)))
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


def _fast_check(
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
    from ..random import default_generator

    outputs = _float_outputs(_as_tuple(func(*inputs)))
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
        first = _vjp(out, diff, u)
        again = _vjp(out, diff, u)
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
    outputs = _float_outputs(_as_tuple(func(*inputs)))
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


# --- backward attributes ------------------------------------------------------------------


def _check_zero_grad_output(func: Callable[..., Any], inputs: tuple[Any, ...]) -> str | None:
    """A backward must be linear in grad_output: zeros in, zeros out."""
    diff = _diff_inputs(inputs)
    for out in _float_outputs(_as_tuple(func(*inputs))):
        if not out._requires_grad:
            continue
        for g in _vjp(out, diff, np.zeros(out._data.shape)):
            if g is not None and np.any(g != 0):
                return "backward not multiplied by grad_output"
    return None


def _check_undefined_grad(func: Callable[..., Any], inputs: tuple[Any, ...]) -> str | None:
    """Each output's node, given no gradient at all, must give none (or zeros) back."""
    for out in _float_outputs(_as_tuple(func(*inputs))):
        node = out._grad_fn
        if node is None:
            continue
        n_outputs = len(getattr(node, "_output_meta", ())) or 1
        try:
            with grad_mode.no_grad():
                grads = node._apply([None] * n_outputs)
        except (RuntimeError, TypeError) as e:
            return f"{_UNDEFINED_GRAD}\n{type(e).__name__}: {e}"
        for g in grads:
            if g is not None and _is_tensor(g) and np.any(g._data != 0):
                return _UNDEFINED_GRAD
    return None


# --- the public checks --------------------------------------------------------------------


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of `func` at `inputs` against central finite differences.

    Every input tensor that requires grad is checked against every output
    (Jacobian entries must satisfy |analytical - numerical| <= atol + rtol *
    |numerical|). Returns True, or raises `GradcheckError` (returns False when
    `raise_exception=False`). The defaults are meant for float64 inputs.
    `fast_mode` compares one random projection u^T J v per output and input
    instead of whole Jacobians. `masked` is accepted for compatibility: chainrule
    has no sparse tensors. `check_batched_grad=True` needs vmap, which it lacks.
    """
    if not check_backward_ad:
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    tupled = _as_tuple(inputs)
    diff = _check_inputs(tupled)
    return _run_checks(
        func,
        tupled,
        diff,
        eps,
        atol,
        rtol,
        raise_exception,
        nondet_tol,
        check_undefined_grad,
        check_grad_dtypes,
        check_batched_grad,
        fast_mode,
    )


def _run_checks(
    func: Callable[..., Any],
    tupled: tuple[Any, ...],
    diff: list[Tensor],
    eps: float,
    atol: float,
    rtol: float,
    raise_exception: bool,
    nondet_tol: float,
    check_undefined_grad: bool,
    check_grad_dtypes: bool,
    check_batched_grad: bool,
    fast_mode: bool,
) -> bool:
    if check_batched_grad:
        raise NotImplementedError(
            "check_batched_grad=True needs batched gradients (vmap), which chainrule does not "
            "implement; call gradcheck with check_batched_grad=False"
        )
    check = _fast_check if fast_mode else _slow_check
    message = check(func, tupled, diff, eps, atol, rtol, nondet_tol, check_grad_dtypes)
    if message is None:
        message = _check_zero_grad_output(func, tupled)
    if message is None and check_undefined_grad:
        message = _check_undefined_grad(func, tupled)
    if message is not None:
        return _fail(message, raise_exception)
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: `gradcheck` on the map (inputs, grad_outputs) -> grads.

    The gradients are computed with `create_graph=True`, so this checks that
    backward is itself differentiable, with respect to the inputs and to the
    grad_outputs (random, in [-1, 1), when not given).
    """
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    if grad_outputs is None:
        outputs = _float_outputs(_as_tuple(func(*tupled)))
        gos = tuple(
            _random_grad_output(o, gen_non_contig_grad_outputs) for o in outputs if o._requires_grad
        )
    else:
        gos = _as_tuple(grad_outputs)
    n_inputs = len(tupled)

    def first_derivatives(*args: Any) -> tuple[Tensor, ...]:
        from . import grad as autograd_grad

        ins, gs = args[:n_inputs], args[n_inputs:]
        outputs = [o for o in _float_outputs(_as_tuple(func(*ins))) if o._requires_grad]
        if not outputs:
            return ()
        grads = autograd_grad(outputs, _diff_inputs(ins), gs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    # The inputs were checked (and warned about) above; grad_outputs need not require grad.
    args = tupled + gos
    return _run_checks(
        first_derivatives,
        args,
        _diff_inputs(args),
        eps,
        atol,
        rtol,
        raise_exception,
        nondet_tol,
        check_undefined_grad,
        check_grad_dtypes,
        check_batched_grad,
        fast_mode,
    )


def _random_grad_output(out: Tensor, non_contiguous: bool) -> Tensor:
    """Uniform in [-1, 1), shaped and typed like `out`, requiring grad."""
    from .._tensor import Tensor
    from ..random import default_generator

    values = default_generator._uniform(out._data.shape, -1.0, 1.0).astype(out._data.dtype)
    if non_contiguous and values.size > 1:
        # Every other element of a buffer twice as long in the last dim: same values, strided.
        buffer = np.zeros((*values.shape[:-1], 2 * values.shape[-1]), dtype=values.dtype)
        buffer[..., ::2] = values
        values = buffer[..., ::2]
    return Tensor._make(values, requires_grad=True)
