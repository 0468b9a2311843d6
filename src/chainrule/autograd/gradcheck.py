"""Checking derivative rules against finite differences: `gradcheck` and `gradgradcheck`.

Jacobians here are laid out as PyTorch prints them: one row per element of the
input, one column per element of the output (`J[k, m] = d out[m] / d in[k]`).
Inputs and outputs are numbered among the differentiable ones only (tensors
that require grad), as in PyTorch's messages.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._autograd import grad_mode
from .._tensor import Tensor
from ..random import default_generator
from ._grad import grad
from ._gradcheck_jacobians import (
    FAILED_NONDET_MSG,
    FAST_FAIL_SLOW_OK_MSG,
    JacobianCheck,
    as_tuple,
    diff_inputs,
    float_outputs_of,
    numerical_jacobians,
    output_vjp,
)
from ._gradcheck_legacy import (
    get_analytical_jacobian,
    get_numerical_jacobian,
    get_numerical_jacobian_wrt_specific_input,
)
from ._gradcheck_modes import (
    FAILED_BATCHED_GRAD_MSG,
    FAILED_BATCHED_GRAD_MSG_FWD_AD,
    batched_forward_message,
    batched_grad_message,
    forward_message,
)

__all__ = [
    "FAILED_BATCHED_GRAD_MSG",
    "FAILED_BATCHED_GRAD_MSG_FWD_AD",
    "FAILED_NONDET_MSG",
    "FAST_FAIL_SLOW_OK_MSG",
    "GradcheckError",
    "get_analytical_jacobian",
    "get_numerical_jacobian",
    "get_numerical_jacobian_wrt_specific_input",
    "gradcheck",
    "gradgradcheck",
]


class GradcheckError(RuntimeError):
    """Raised by `gradcheck` and `gradgradcheck` when a check fails."""


_UNDEFINED_GRAD = (
    "Expected backward function to handle undefined output grads. A backward that receives "
    "None (or, with materialize_grads, zeros) for every grad_output must return None or "
    "zeros for every input."
)


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def _check_inputs(inputs: tuple[Any, ...]) -> list[Tensor]:
    """The inputs gradients are checked for, after PyTorch's warnings and errors."""
    diff = diff_inputs(inputs)
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor) or not x._requires_grad:
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


# --- backward attributes ------------------------------------------------------------------


def _check_zero_grad_output(func: Callable[..., Any], inputs: tuple[Any, ...]) -> str | None:
    """A backward must be linear in grad_output: zeros in, zeros out."""
    diff = diff_inputs(inputs)
    for out in float_outputs_of(func, inputs):
        if not out._requires_grad:
            continue
        for g in output_vjp(out, diff, np.zeros(out._data.shape)):
            if g is not None and np.any(g != 0):
                return "backward not multiplied by grad_output"
    return None


def _check_undefined_grad(func: Callable[..., Any], inputs: tuple[Any, ...]) -> str | None:
    """Each output's node, given no gradient at all, must give none (or zeros) back."""
    for out in float_outputs_of(func, inputs):
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
            if g is not None and isinstance(g, Tensor) and np.any(g._data != 0):
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
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of `func` at `inputs` against central finite differences.

    Every input tensor that requires grad is checked against every output
    (Jacobian entries must satisfy |analytical - numerical| <= atol + rtol *
    |numerical|). Returns True, or raises `GradcheckError` (returns False when
    `raise_exception=False`). The defaults are meant for float64 inputs.

    `check_backward_ad` checks the reverse-mode Jacobian, `check_forward_ad` the
    forward-mode one; `check_batched_grad` (and `check_batched_forward_grad`) check
    that gradients for a batch of grad_outputs (of tangents) equal those computed one
    by one. `fast_mode` compares one random projection u^T J v per output and input
    instead of whole Jacobians (for the reverse mode). `masked` is accepted for
    compatibility: chainrule has no sparse tensors.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    tupled = as_tuple(inputs)
    check = JacobianCheck(
        func, tupled, _check_inputs(tupled), eps, atol, rtol, nondet_tol, check_grad_dtypes
    )
    message = None
    if check_backward_ad:
        message = _backward_checks(check, fast_mode, check_undefined_grad, check_batched_grad)
    if message is None and check_forward_ad:
        message = _forward_checks(check, check_batched_forward_grad)
    if message is not None:
        return _fail(message, raise_exception)
    return True


def _backward_checks(
    check: JacobianCheck, fast_mode: bool, check_undefined_grad: bool, check_batched_grad: bool
) -> str | None:
    message = check.fast() if fast_mode else check.slow()
    if message is None and check_batched_grad:
        outputs = [o for o in float_outputs_of(check.func, check.inputs) if o._requires_grad]
        message = batched_grad_message(outputs, check.diff)
    if message is None:
        message = _check_zero_grad_output(check.func, check.inputs)
    if message is None and check_undefined_grad:
        message = _check_undefined_grad(check.func, check.inputs)
    return message


def _forward_checks(check: JacobianCheck, check_batched_forward_grad: bool) -> str | None:
    numerical = numerical_jacobians(check.func, check.inputs, check.diff, check.eps)
    message = forward_message(check.func, check.inputs, numerical, check.atol, check.rtol)
    if message is None and check_batched_forward_grad:
        message = batched_forward_message(check.func, check.inputs, check.atol, check.rtol)
    return message


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
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: `gradcheck` on the map (inputs, grad_outputs) -> grads.

    The gradients are computed with `create_graph=True`, so this checks that
    backward is itself differentiable, with respect to the inputs and to the
    grad_outputs that require grad (random ones, in [-1, 1), when not given, do), in
    reverse mode (`check_rev_over_rev`) and in forward mode (`check_fwd_over_rev`).
    The grad_outputs are checked and numbered as inputs after `inputs`: a float32
    one is warned about, an expanded one refused.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    tupled = as_tuple(inputs)
    if grad_outputs is None:
        gos = tuple(
            _random_grad_output(o, gen_non_contig_grad_outputs)
            for o in float_outputs_of(func, tupled)
            if o._requires_grad
        )
    else:
        gos = as_tuple(grad_outputs)
    n_inputs = len(tupled)
    wants_grad = [isinstance(a, Tensor) and a._requires_grad for a in tupled + gos]

    def first_derivatives(*args: Any) -> tuple[Tensor, ...]:
        # Forward mode passes detached duals: requires_grad is restored, as PyTorch does.
        args = tuple(
            a.requires_grad_() if w and not a._requires_grad else a
            for a, w in zip(args, wants_grad, strict=True)
        )
        ins, gs = args[:n_inputs], args[n_inputs:]
        outputs = [o for o in float_outputs_of(func, ins) if o._requires_grad]
        if not outputs:
            return ()
        with grad_mode.enable_grad():
            grads = grad(outputs, diff_inputs(ins), gs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    # The grad_outputs are inputs of the check like the others (numbered after them): the
    # backward must be differentiable in its incoming gradient too, as jvp and hvp need.
    args = tupled + gos
    check = JacobianCheck(
        first_derivatives, args, _check_inputs(args), eps, atol, rtol, nondet_tol, check_grad_dtypes
    )
    message = None
    if check_rev_over_rev:
        message = _backward_checks(check, fast_mode, check_undefined_grad, check_batched_grad)
    if message is None and check_fwd_over_rev:
        message = _forward_checks(check, False)
    if message is not None:
        return _fail(message, raise_exception)
    return True


def _random_grad_output(out: Tensor, non_contiguous: bool) -> Tensor:
    """Uniform in [-1, 1), shaped and typed like `out`, requiring grad."""
    values = default_generator._uniform(out._data.shape, -1.0, 1.0).astype(out._data.dtype)
    if non_contiguous and values.size > 1:
        # Every other element of a buffer twice as long in the last dim: same values, strided.
        buffer = np.zeros((*values.shape[:-1], 2 * values.shape[-1]), dtype=values.dtype)
        buffer[..., ::2] = values
        values = buffer[..., ::2]
    return Tensor._make(values, requires_grad=True)
