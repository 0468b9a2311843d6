"""`jacobian` and `hessian` of a function, row by row (reverse mode) or column by column
(forward mode); public in `chainrule.autograd.functional`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import zeros, zeros_like
from .._ops.shape.views import stack
from .._tensor import Tensor
from . import forward_ad
from ._functional_common import (
    constant_msg,
    finish,
    prepare,
    restructure,
    strict_jacobian,
    strict_outputs,
    to_tuple,
    vjp_raw,
)
from .grad_mode import enable_grad

__all__ = ["hessian", "jacobian"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _jacobian_reverse(
    outs: tuple[Tensor, ...], ins: tuple[Tensor, ...], strict: bool, create_graph: bool
) -> tuple[tuple[Tensor, ...], ...]:
    """Row by row: one vector-Jacobian product per output element."""
    jac = []
    for i, out in enumerate(outs):
        rows: list[list[Tensor | None]] = [[] for _ in ins]
        flat = out.reshape(-1)
        for k in range(out.nelement()):
            res = vjp_raw((flat[k],), ins, None, create_graph)
            for j, g in enumerate(res):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of "
                            f"input {j}. This is not allowed in strict mode."
                        )
                elif strict and create_graph and not g.requires_grad:
                    # Reported with the output's index, as PyTorch does.
                    raise RuntimeError(constant_msg("jacobian", i))
                rows[j].append(g)
        blocks = []
        for j, inp in enumerate(ins):
            filled = [zeros_like(inp) if g is None else g for g in rows[j]]
            if filled:
                blocks.append(stack(filled).reshape(out.shape + inp.shape))
            else:
                blocks.append(zeros(out.shape + inp.shape, dtype=inp.dtype))
        jac.append(tuple(blocks))
    return tuple(jac)


def _jacobian_forward(
    func: Callable[..., Any], ins: tuple[Tensor, ...]
) -> tuple[bool, tuple[tuple[Tensor, ...], ...]]:
    """Column by column: one forward-mode pass of `func` per input element.

    Returns whether `func` returns a tuple, and the Jacobian blocks.
    """
    what = "outputs of the user-provided function"
    cols: list[list[list[Tensor]]] | None = None
    outs: tuple[Tensor, ...] = ()
    out_tuple = False
    for j, inp in enumerate(ins):
        for k in range(inp.nelement()):
            tangent = zeros_like(inp).reshape(-1)
            tangent[k] = 1
            with forward_ad.dual_level():
                duals = [
                    forward_ad.make_dual(t, tangent.reshape(inp.shape)) if i == j else t
                    for i, t in enumerate(ins)
                ]
                out_tuple, outs = to_tuple(func(*duals), what, "jacobian")
                tangents = [forward_ad.unpack_dual(o).tangent for o in outs]
            if cols is None:
                cols = [[[] for _ in ins] for _ in outs]
            for i, (out, tan) in enumerate(zip(outs, tangents, strict=True)):
                cols[i][j].append(zeros_like(out) if tan is None else tan)
    if cols is None:  # no input elements at all: evaluate once for the output shapes
        out_tuple, outs = to_tuple(func(*ins), what, "jacobian")
        cols = [[[] for _ in ins] for _ in outs]
    jac = []
    for i, out in enumerate(outs):
        blocks = []
        for j, inp in enumerate(ins):
            if cols[i][j]:
                # Columns stack on the last axis: (out..., n) -> out.shape + inp.shape.
                block = stack(cols[i][j], dim=-1).reshape(out.shape + inp.shape)
            else:
                block = zeros(out.shape + inp.shape, dtype=out.dtype)
            blocks.append(block)
        jac.append(tuple(blocks))
    return out_tuple, tuple(jac)


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of `func` at `inputs`.

    Block ``[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``; the outer (inner)
    tuple level is dropped when `func` returns a Tensor (`inputs` is a Tensor).
    ``strategy="forward-mode"`` needs ``vectorize=True`` (as in PyTorch) and computes one
    column per input element (with several inputs its results are lists, as PyTorch's);
    ``vectorize`` itself does not batch anything here.
    """
    if strategy not in _STRATEGIES:
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    forward = strategy == "forward-mode"
    if forward:
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                "are not supported together (yet). Please either set `strict=False` or "
                '`strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."
            )
    with enable_grad():
        in_tuple, ins = to_tuple(inputs, "inputs", "jacobian")
        if forward:
            out_tuple, jac = _jacobian_forward(func, ins)
        else:
            ins = prepare(ins, create_graph, need_graph=True)
            out_tuple, outs = to_tuple(
                func(*ins), "outputs of the user-provided function", "jacobian"
            )
            strict_outputs(outs, strict)
            if vectorize and strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                    "not supported together. Please either set `strict=False` or `vectorize=False`."
                )
            jac = _jacobian_reverse(outs, ins, strict, create_graph)
    res = restructure(finish(jac, create_graph), (out_tuple, in_tuple))
    if forward and in_tuple:
        # As PyTorch: forward mode gives lists (not tuples) for several inputs.
        res = [list(r) for r in res] if out_tuple else list(res)
    return res


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of the scalar function `func` at `inputs`.

    The Jacobian (with `outer_jacobian_strategy`) of the reverse-mode gradient of `func`.
    Block ``[i][j]`` has shape ``inputs[i].shape + inputs[j].shape``; for a single Tensor
    input the result is one Tensor.
    """
    in_tuple, ins = to_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*args: Tensor) -> Tensor:
        out = func(*args)
        out_tuple, outs = to_tuple(out, "outputs of the user-provided function", "hessian")
        strict_outputs(outs, strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def gradient(*args: Tensor) -> tuple[Tensor, ...]:
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(a.requires_grad_(True) for a in args)
        jac = jacobian(scalar_func, args, create_graph=True)
        strict_jacobian(jac, strict)
        return jac

    res = jacobian(
        gradient,
        ins,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return restructure(res, (in_tuple, in_tuple))
