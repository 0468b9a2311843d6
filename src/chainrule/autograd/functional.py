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
from ._functional_common import (
    V_FOR_INPUT,
    V_FOR_OUTPUT,
    finish,
    prepare,
    restructure,
    strict_jacobian,
    strict_outputs,
    to_tuple,
    vector,
    vjp_raw,
    zeros_for_missing,
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
        in_tuple, ins = to_tuple(inputs, "inputs", "vjp")
        ins = prepare(ins, create_graph, need_graph=True)
        out_tuple, outs = to_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        strict_outputs(outs, strict)
        vs = vector(v, outs, out_tuple, create_graph, "vjp", V_FOR_OUTPUT)
        res = vjp_raw(outs, ins, vs, create_graph)
        grads = zeros_for_missing(res, ins, strict, create_graph, "back")
    return (
        restructure(finish(outs, create_graph), out_tuple),
        restructure(finish(grads, create_graph), in_tuple),
    )


def _linearize(
    outs: tuple[Tensor, ...], ins: tuple[Tensor, ...], strict: bool, create_graph: bool
) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...]]:
    """Dummy vectors `u` and ``J^T u`` (differentiable in `u`), for the double-vjp trick."""
    us = tuple(zeros_like(o, requires_grad=True) for o in outs)
    res = vjp_raw(outs, ins, us, create_graph=True)
    return us, zeros_for_missing(res, ins, strict, create_graph, "back")


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
        in_tuple, ins = to_tuple(inputs, "inputs", "jvp")
        ins = prepare(ins, create_graph, need_graph=True)
        vs = vector(v, ins, in_tuple, create_graph, "jvp", V_FOR_INPUT)
        out_tuple, outs = to_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        strict_outputs(outs, strict)
        us, jtu = _linearize(outs, ins, strict, create_graph)
        res = vjp_raw(jtu, us, vs, create_graph)
        jv = zeros_for_missing(res, outs, strict, create_graph, "back_trick")
    return (
        restructure(finish(outs, create_graph), out_tuple),
        restructure(finish(jv, create_graph), out_tuple),
    )


def _hessian_setup(
    fn_name: str,
    func: Callable[..., Any],
    inputs: Any,
    v: Any,
    create_graph: bool,
    strict: bool,
) -> tuple[bool, tuple[Tensor, ...], Tensor, tuple[Tensor, ...] | None, tuple[Tensor, ...]]:
    """Common part of `vhp` and `hvp`: checked inputs, output, `v` and the gradient."""
    in_tuple, ins = to_tuple(inputs, "inputs", fn_name)
    ins = prepare(ins, create_graph, need_graph=True)
    vs = vector(v, ins, in_tuple, create_graph, fn_name, V_FOR_INPUT)
    out_tuple, outs = to_tuple(func(*ins), "outputs of the user-provided function", fn_name)
    strict_outputs(outs, strict)
    if out_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    res = vjp_raw(outs, ins, None, create_graph=True)
    jac = zeros_for_missing(res, ins, strict, False, "back")
    strict_jacobian(jac, strict)
    return in_tuple, ins, outs[0], vs, jac


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
        res = vjp_raw(jac, ins, vs, create_graph)
        prod = zeros_for_missing(res, ins, strict, create_graph, "double_back")
    return finish(out, create_graph), restructure(finish(prod, create_graph), in_tuple)


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
        us = tuple(zeros_like(t, requires_grad=True) for t in ins)
        res = vjp_raw(jac, ins, us, create_graph=True)
        htu = zeros_for_missing(res, ins, strict, create_graph, "double_back_trick")
        res = vjp_raw(htu, us, vs, create_graph)
        prod = zeros_for_missing(res, ins, strict, create_graph, "double_back")
    return finish(out, create_graph), restructure(finish(prod, create_graph), in_tuple)
