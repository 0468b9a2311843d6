"""Higher-level autograd: `vjp`, `jvp`, `jacobian`, `hessian`, `vhp` and `hvp` of a function.

Same conventions as `torch.autograd.functional`: `inputs` (and `v`) is a Tensor or a
tuple of Tensors and each result has the same structure (a Tensor for a Tensor, a tuple
for a tuple; `jacobian` and `hessian` nest one tuple level per such argument). Results
are detached unless `create_graph=True`; an input the outputs do not depend on gets a
zero result, or an error with `strict=True`.

As in PyTorch, `jvp` and `hvp` use the double-vjp trick: a Jacobian-vector product is
the derivative of the vector-Jacobian product ``u -> J^T u`` (linear in ``u``) with
respect to ``u``. `jacobian(strategy="forward-mode")` and
`hessian(outer_jacobian_strategy="forward-mode")` use forward mode
(`autograd.forward_ad`): one forward pass per input element. ``vectorize=True`` is
accepted, but rows (or columns) are computed one at a time, as with ``vectorize=False``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import zeros_like
from .._tensor import Tensor
from . import forward_ad as fwAD  # noqa: F401  # PyTorch's module has this name too
from ._functional_common import (
    V_FOR_INPUT,
    V_FOR_OUTPUT,
    call_checked,
    finish,
    prepared_inputs,
    scalar_output,
    strict_jacobian,
    vector,
    vjp_filled,
)
from ._jacobian import hessian, jacobian
from .grad_mode import enable_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), v^T J)``: the outputs and the vector-Jacobian product at `inputs`.

    `v` may be omitted only when `func` returns a single one-element Tensor.
    """
    with enable_grad():
        in_tuple, ins = prepared_inputs(inputs, "vjp", create_graph)
        out_tuple, outs = call_checked(func, ins, "vjp", strict)
        vs = vector(v, outs, out_tuple, create_graph, "vjp", V_FOR_OUTPUT)
        grads = vjp_filled(outs, ins, vs, strict, create_graph, "back")
    return finish(outs, create_graph, out_tuple), finish(grads, create_graph, in_tuple)


def _jvp_by_double_vjp(
    outs: tuple[Tensor, ...],
    ins: tuple[Tensor, ...],
    vs: tuple[Tensor, ...] | None,
    strict: bool,
    create_graph: bool,
    stages: tuple[str, str],
) -> tuple[Tensor, ...]:
    """``J v`` for the Jacobian J of `outs` at `ins`: the derivative, with respect to a dummy
    `u`, of the vector-Jacobian product ``J^T u`` (linear in `u`).

    `stages` name the two products (``J^T u``, then its vjp with `v`) in strict mode's errors.
    """
    us = tuple(zeros_like(o, requires_grad=True) for o in outs)
    jtu = vjp_filled(outs, ins, us, strict, create_graph, stages[0], keep_graph=True)
    return vjp_filled(jtu, us, vs, strict, create_graph, stages[1])


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), J v)``: the outputs and the Jacobian-vector product at `inputs`.

    `v` may be omitted only when `inputs` is a single one-element Tensor. Computed as the
    derivative, with respect to `u`, of the (linear in `u`) vector-Jacobian product ``J^T u``.
    """
    with enable_grad():
        in_tuple, ins = prepared_inputs(inputs, "jvp", create_graph)
        vs = vector(v, ins, in_tuple, create_graph, "jvp", V_FOR_INPUT)
        out_tuple, outs = call_checked(func, ins, "jvp", strict)
        jv = _jvp_by_double_vjp(outs, ins, vs, strict, create_graph, ("back", "back_trick"))
    return finish(outs, create_graph, out_tuple), finish(jv, create_graph, out_tuple)


def _hessian_setup(
    fn_name: str,
    func: Callable[..., Any],
    inputs: Any,
    v: Any,
    create_graph: bool,
    strict: bool,
) -> tuple[bool, tuple[Tensor, ...], Tensor, tuple[Tensor, ...] | None, tuple[Tensor, ...]]:
    """Common part of `vhp` and `hvp`: checked inputs, output, `v` and the gradient."""
    in_tuple, ins = prepared_inputs(inputs, fn_name, create_graph)
    vs = vector(v, ins, in_tuple, create_graph, fn_name, V_FOR_INPUT)
    out = scalar_output(func, ins, fn_name, strict)
    # A gradient that does not require grad is reported by strict_jacobian, in its words.
    jac = vjp_filled((out,), ins, None, strict, False, "back", keep_graph=True)
    strict_jacobian(jac, strict)
    return in_tuple, ins, out, vs, jac


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Tensor, Any]:
    """``(func(*inputs), v^T H)`` for a scalar `func`: a vector-Jacobian product of its gradient."""
    with enable_grad():
        in_tuple, ins, out, vs, jac = _hessian_setup("vhp", func, inputs, v, create_graph, strict)
        prod = vjp_filled(jac, ins, vs, strict, create_graph, "double_back")
    return finish((out,), create_graph, False), finish(prod, create_graph, in_tuple)


def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Tensor, Any]:
    """``(func(*inputs), H v)`` for a scalar `func`.

    The Jacobian-vector product of the gradient, via the double-vjp trick (for a twice
    continuously differentiable `func`, H is symmetric and this equals `vhp`).
    """
    with enable_grad():
        in_tuple, ins, out, vs, jac = _hessian_setup("hvp", func, inputs, v, create_graph, strict)
        stages = ("double_back_trick", "double_back")
        prod = _jvp_by_double_vjp(jac, ins, vs, strict, create_graph, stages)
    return finish((out,), create_graph, False), finish(prod, create_graph, in_tuple)
