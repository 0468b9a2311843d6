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
    call_checked,
    constant_msg,
    finish,
    prepared_inputs,
    restructure,
    scalar_output,
    strict_jacobian,
    to_tuple,
    vjp_raw,
)
from .grad_mode import enable_grad

__all__ = ["hessian", "jacobian"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _blocks(
    out: Tensor, ins: tuple[Tensor, ...], pieces: list[list[Tensor]], dim: int
) -> tuple[Tensor, ...]:
    """The Jacobian blocks of `out`, one per input, from `pieces[j]`: its rows (`dim=0`, one
    per element of `out`) or columns (`dim=-1`, one per element of input j).

    A block with no pieces is zeros, of the dtype its pieces would have had: the input's
    for rows (gradients), the output's for columns (tangents).
    """
    blocks = []
    for inp, parts in zip(ins, pieces, strict=True):
        shape = out.shape + inp.shape
        if parts:
            blocks.append(stack(parts, dim=dim).reshape(shape))
        else:
            blocks.append(zeros(shape, dtype=(inp if dim == 0 else out).dtype))
    return tuple(blocks)


def _jacobian_reverse(
    outs: tuple[Tensor, ...], ins: tuple[Tensor, ...], strict: bool, create_graph: bool
) -> tuple[tuple[Tensor, ...], ...]:
    """Row by row: one vector-Jacobian product per output element."""
    jac = []
    for i, out in enumerate(outs):
        rows: list[list[Tensor]] = [[] for _ in ins]
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
                    g = zeros_like(ins[j])
                elif strict and create_graph and not g.requires_grad:
                    # Reported with the output's index, as PyTorch does.
                    raise RuntimeError(constant_msg("jacobian", i))
                rows[j].append(g)
        jac.append(_blocks(out, ins, rows, dim=0))
    return tuple(jac)


def _jacobian_forward(
    func: Callable[..., Any], ins: tuple[Tensor, ...]
) -> tuple[bool, tuple[tuple[Tensor, ...], ...]]:
    """Column by column: one forward-mode pass of `func` per input element.

    Returns whether `func` returns a tuple, and the Jacobian blocks.
    """
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
                out_tuple, outs = call_checked(func, duals, "jacobian", strict=False)
                tangents = [forward_ad.unpack_dual(o).tangent for o in outs]
            if cols is None:
                cols = [[[] for _ in ins] for _ in outs]
            for i, (out, tan) in enumerate(zip(outs, tangents, strict=True)):
                cols[i][j].append(zeros_like(out) if tan is None else tan)
    if cols is None:  # no input elements at all: evaluate once for the output shapes
        out_tuple, outs = call_checked(func, ins, "jacobian", strict=False)
        cols = [[[] for _ in ins] for _ in outs]
    return out_tuple, tuple(_blocks(out, ins, cols[i], dim=-1) for i, out in enumerate(outs))


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
        if forward:
            in_tuple, ins = to_tuple(inputs, "inputs", "jacobian")
            out_tuple, jac = _jacobian_forward(func, ins)
        else:
            in_tuple, ins = prepared_inputs(inputs, "jacobian", create_graph)
            out_tuple, outs = call_checked(func, ins, "jacobian", strict)
            if vectorize and strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                    "not supported together. Please either set `strict=False` or `vectorize=False`."
                )
            jac = _jacobian_reverse(outs, ins, strict, create_graph)
    res = finish(jac, create_graph, (out_tuple, in_tuple))
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
        return scalar_output(func, args, "hessian", strict).squeeze()

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
