"""Shared by `chainrule.autograd.functional`: argument checks, (un)tupling, strict-mode errors,
and the vector-Jacobian product every function there is built from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._creation import zeros_like
from .._tensor import Tensor
from ._grad import grad

__all__ = [
    "V_FOR_INPUT",
    "V_FOR_OUTPUT",
    "call_checked",
    "constant_msg",
    "finish",
    "prepare",
    "prepared_inputs",
    "restructure",
    "scalar_output",
    "strict_jacobian",
    "to_tuple",
    "vector",
    "vjp_filled",
    "vjp_raw",
]


def to_tuple(obj: Any, what: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """`obj` as a tuple of Tensors, and whether it was a tuple (TypeError otherwise)."""
    prefix = f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but"
    if isinstance(obj, Tensor):
        return False, (obj,)
    if not isinstance(obj, tuple):
        raise TypeError(f"{prefix} the given {what} has type {type(obj)}.")
    for i, el in enumerate(obj):
        if not isinstance(el, Tensor):
            raise TypeError(f"{prefix} the value at index {i} has type {type(el)}.")
    return True, obj


def restructure(res: Any, is_tuple: bool | tuple[bool, bool]) -> Any:
    """Undo `to_tuple`: one level, or two levels for (outer, inner) flags."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if is_tuple else res[0]


def prepare(tensors: tuple[Tensor, ...], create_graph: bool, need_graph: bool) -> tuple:
    """Fresh graph roots for `tensors`; with `create_graph`, stay connected to their graph."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def prepared_inputs(inputs: Any, fn_name: str, create_graph: bool) -> tuple[bool, tuple]:
    """The checked `inputs` as fresh graph roots, and whether they were a tuple."""
    is_tuple, ins = to_tuple(inputs, "inputs", fn_name)
    return is_tuple, prepare(ins, create_graph, need_graph=True)


def call_checked(
    func: Callable[..., Any], args: Sequence[Tensor], fn_name: str, strict: bool
) -> tuple[bool, tuple[Tensor, ...]]:
    """`func(*args)` as a tuple of Tensors, and whether it returned a tuple.

    In strict mode every output must require grad.
    """
    is_tuple, outs = to_tuple(func(*args), "outputs of the user-provided function", fn_name)
    strict_outputs(outs, strict)
    return is_tuple, outs


def scalar_output(
    func: Callable[..., Any], args: Sequence[Tensor], fn_name: str, strict: bool
) -> Tensor:
    """`func(*args)`, which must be a single one-element Tensor (what a Hessian is taken of)."""
    is_tuple, outs = call_checked(func, args, fn_name, strict)
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    return outs[0]


def _detached(res: Any) -> Any:
    if isinstance(res, Tensor):
        return res.detach()
    return tuple(_detached(r) for r in res)


def finish(res: Any, create_graph: bool, is_tuple: bool | tuple[bool, bool]) -> Any:
    """Results as the user gets them: detached unless a graph was asked for.

    `is_tuple` gives them the structure of the arguments (see `restructure`).
    """
    return restructure(res if create_graph else _detached(res), is_tuple)


def check_v(v: tuple[Tensor, ...], ref: tuple[Tensor, ...], ref_is_tuple: bool) -> None:
    if len(v) != len(ref):
        if ref_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(ref)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for vi, ri in zip(v, ref, strict=True):
        if vi.size() != ri.size():
            raise RuntimeError(
                f"v has invalid size: should be {ri.size()!r} but got {vi.size()!r}."
            )


V_FOR_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single "
    "Tensor with a single element."
)
V_FOR_OUTPUT = (
    "The vector v can only be None if the user-provided function returns a single Tensor "
    "with a single element."
)


def vector(
    v: Any,
    ref: tuple[Tensor, ...],
    ref_is_tuple: bool,
    create_graph: bool,
    fn_name: str,
    missing: str,
) -> tuple[Tensor, ...] | None:
    """The checked vector `v` matching `ref`; None is allowed only for one 1-element tensor."""
    if v is None:
        if len(ref) != 1 or ref[0].nelement() != 1:
            raise RuntimeError(missing)
        return None
    _, vs = to_tuple(v, "v", fn_name)
    vs = prepare(vs, create_graph, need_graph=False)
    check_v(vs, ref, ref_is_tuple)
    return vs


def strict_outputs(outputs: Sequence[Tensor], strict: bool) -> None:
    if strict:
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(
                    f"Output {i} of the user-provided function does not require gradients. "
                    "The outputs must be computed in a differentiable manner from the input "
                    "when running in strict mode."
                )


def strict_jacobian(jac: Sequence[Tensor], strict: bool) -> None:
    if strict:
        for i, j in enumerate(jac):
            if not j.requires_grad:
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided "
                    f"function with respect to input {i} is independent of the input. This is "
                    "not allowed in strict mode. You should ensure that your function is twice "
                    "differentiable and that the jacobian depends on the inputs (this would be "
                    "violated by a linear function for example)."
                )


def vjp_raw(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    v: Sequence[Tensor | None] | None,
    create_graph: bool,
) -> tuple[Tensor | None, ...]:
    """`autograd.grad` that skips outputs not requiring grad (None for unreached inputs)."""
    if v is None:
        v = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, v, strict=True) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )


# What strict mode reports for a missing (None) gradient, per stage.
_MISSING = {
    "back": "The output of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def constant_msg(kind: str, i: int) -> str:
    return (
        f"The {kind} of the user-provided function is independent of input {i}. This is not "
        "allowed in strict mode when create_graph=True."
    )


def vjp_filled(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    v: Sequence[Tensor | None] | None,
    strict: bool,
    create_graph: bool,
    stage: str,
    keep_graph: bool = False,
) -> tuple[Tensor, ...]:
    """`vjp_raw`, with zeros for the inputs it does not reach (in strict mode, an error).

    `stage` says which product this is, for strict mode's messages; with `create_graph`,
    strict mode also rejects a gradient that does not require grad. `keep_graph` records
    the graph without `create_graph`, for a product that is differentiated again.
    """
    grads = vjp_raw(outputs, inputs, v, create_graph or keep_graph)
    out = []
    for i, (g, ref) in enumerate(zip(grads, inputs, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=i))
            g = zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            raise RuntimeError(constant_msg("hessian" if "double" in stage else "jacobian", i))
        out.append(g)
    return tuple(out)
