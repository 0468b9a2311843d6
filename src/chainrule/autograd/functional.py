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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .grad_mode import enable_grad

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _is_tensor(obj: Any) -> bool:
    from .._tensor import Tensor

    return isinstance(obj, Tensor)


def _zeros_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    from .._creation import zeros_like

    return zeros_like(t, requires_grad=requires_grad)


def _zeros(shape: tuple[int, ...], like: Tensor) -> Tensor:
    from .._creation import zeros

    return zeros(shape, dtype=like.dtype)


def _stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    from .._ops.shape.views import stack

    return stack(list(tensors), dim=dim)


def _to_tuple(obj: Any, what: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """`obj` as a tuple of Tensors, and whether it was a tuple (TypeError otherwise)."""
    prefix = f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but"
    if _is_tensor(obj):
        return False, (obj,)
    if not isinstance(obj, tuple):
        raise TypeError(f"{prefix} the given {what} has type {type(obj)}.")
    for i, el in enumerate(obj):
        if not _is_tensor(el):
            raise TypeError(f"{prefix} the value at index {i} has type {type(el)}.")
    return True, obj


def _restructure(res: Any, is_tuple: bool | tuple[bool, bool]) -> Any:
    """Undo `_to_tuple`: one level, or two levels for (outer, inner) flags."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if is_tuple else res[0]


def _prepare(tensors: tuple[Tensor, ...], create_graph: bool, need_graph: bool) -> tuple:
    """Fresh graph roots for `tensors`; with `create_graph`, stay connected to their graph."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(res: Any, create_graph: bool) -> Any:
    """Detach (nested tuples of) results unless a graph was asked for."""
    if create_graph:
        return res
    if _is_tensor(res):
        return res.detach()
    return tuple(_finish(r, create_graph) for r in res)


def _check_v(v: tuple[Tensor, ...], ref: tuple[Tensor, ...], ref_is_tuple: bool) -> None:
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


_V_FOR_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single "
    "Tensor with a single element."
)
_V_FOR_OUTPUT = (
    "The vector v can only be None if the user-provided function returns a single Tensor "
    "with a single element."
)


def _vector(
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
    _, vs = _to_tuple(v, "v", fn_name)
    vs = _prepare(vs, create_graph, need_graph=False)
    _check_v(vs, ref, ref_is_tuple)
    return vs


def _strict_outputs(outputs: Sequence[Tensor], strict: bool) -> None:
    if strict:
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(
                    f"Output {i} of the user-provided function does not require gradients. "
                    "The outputs must be computed in a differentiable manner from the input "
                    "when running in strict mode."
                )


def _strict_jacobian(jac: Sequence[Tensor], strict: bool) -> None:
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


def _vjp_raw(
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
    from . import grad

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


def _constant_msg(kind: str, i: int) -> str:
    return (
        f"The {kind} of the user-provided function is independent of input {i}. This is not "
        "allowed in strict mode when create_graph=True."
    )


def _zeros_for_missing(
    grads: Sequence[Tensor | None],
    refs: Sequence[Tensor],
    strict: bool,
    create_graph: bool,
    stage: str,
) -> tuple[Tensor, ...]:
    """Replace missing gradients by zeros shaped like `refs`, or raise in strict mode."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=i))
            g = _zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            raise RuntimeError(_constant_msg("hessian" if "double" in stage else "jacobian", i))
        out.append(g)
    return tuple(out)


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
        in_tuple, ins = _to_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph, need_graph=True)
        out_tuple, outs = _to_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        _strict_outputs(outs, strict)
        vs = _vector(v, outs, out_tuple, create_graph, "vjp", _V_FOR_OUTPUT)
        res = _vjp_raw(outs, ins, vs, create_graph)
        grads = _zeros_for_missing(res, ins, strict, create_graph, "back")
    return (
        _restructure(_finish(outs, create_graph), out_tuple),
        _restructure(_finish(grads, create_graph), in_tuple),
    )


def _linearize(
    outs: tuple[Tensor, ...], ins: tuple[Tensor, ...], strict: bool, create_graph: bool
) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...]]:
    """Dummy vectors `u` and ``J^T u`` (differentiable in `u`), for the double-vjp trick."""
    us = tuple(_zeros_like(o, requires_grad=True) for o in outs)
    res = _vjp_raw(outs, ins, us, create_graph=True)
    return us, _zeros_for_missing(res, ins, strict, create_graph, "back")


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
        in_tuple, ins = _to_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph, need_graph=True)
        vs = _vector(v, ins, in_tuple, create_graph, "jvp", _V_FOR_INPUT)
        out_tuple, outs = _to_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        _strict_outputs(outs, strict)
        us, jtu = _linearize(outs, ins, strict, create_graph)
        res = _vjp_raw(jtu, us, vs, create_graph)
        jv = _zeros_for_missing(res, outs, strict, create_graph, "back_trick")
    return (
        _restructure(_finish(outs, create_graph), out_tuple),
        _restructure(_finish(jv, create_graph), out_tuple),
    )


def _jacobian_reverse(
    outs: tuple[Tensor, ...], ins: tuple[Tensor, ...], strict: bool, create_graph: bool
) -> tuple[tuple[Tensor, ...], ...]:
    """Row by row: one vector-Jacobian product per output element."""
    jac = []
    for i, out in enumerate(outs):
        rows: list[list[Tensor | None]] = [[] for _ in ins]
        flat = out.reshape(-1)
        for k in range(out.nelement()):
            res = _vjp_raw((flat[k],), ins, None, create_graph)
            for j, g in enumerate(res):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of "
                            f"input {j}. This is not allowed in strict mode."
                        )
                elif strict and create_graph and not g.requires_grad:
                    # Reported with the output's index, as PyTorch does.
                    raise RuntimeError(_constant_msg("jacobian", i))
                rows[j].append(g)
        blocks = []
        for j, inp in enumerate(ins):
            filled = [_zeros_like(inp) if g is None else g for g in rows[j]]
            if filled:
                blocks.append(_stack(filled).reshape(out.shape + inp.shape))
            else:
                blocks.append(_zeros(out.shape + inp.shape, inp))
        jac.append(tuple(blocks))
    return tuple(jac)


def _jacobian_forward(
    func: Callable[..., Any], ins: tuple[Tensor, ...]
) -> tuple[bool, tuple[tuple[Tensor, ...], ...]]:
    """Column by column: one forward-mode pass of `func` per input element.

    Returns whether `func` returns a tuple, and the Jacobian blocks.
    """
    from . import forward_ad

    what = "outputs of the user-provided function"
    cols: list[list[list[Tensor]]] | None = None
    outs: tuple[Tensor, ...] = ()
    out_tuple = False
    for j, inp in enumerate(ins):
        for k in range(inp.nelement()):
            tangent = _zeros_like(inp).reshape(-1)
            tangent[k] = 1
            with forward_ad.dual_level():
                duals = [
                    forward_ad.make_dual(t, tangent.reshape(inp.shape)) if i == j else t
                    for i, t in enumerate(ins)
                ]
                out_tuple, outs = _to_tuple(func(*duals), what, "jacobian")
                tangents = [forward_ad.unpack_dual(o).tangent for o in outs]
            if cols is None:
                cols = [[[] for _ in ins] for _ in outs]
            for i, (out, tan) in enumerate(zip(outs, tangents, strict=True)):
                cols[i][j].append(_zeros_like(out) if tan is None else tan)
    if cols is None:  # no input elements at all: evaluate once for the output shapes
        out_tuple, outs = _to_tuple(func(*ins), what, "jacobian")
        cols = [[[] for _ in ins] for _ in outs]
    jac = []
    for i, out in enumerate(outs):
        blocks = []
        for j, inp in enumerate(ins):
            if cols[i][j]:
                # Columns stack on the last axis: (out..., n) -> out.shape + inp.shape.
                block = _stack(cols[i][j], dim=-1).reshape(out.shape + inp.shape)
            else:
                block = _zeros(out.shape + inp.shape, out)
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
        in_tuple, ins = _to_tuple(inputs, "inputs", "jacobian")
        if forward:
            out_tuple, jac = _jacobian_forward(func, ins)
        else:
            ins = _prepare(ins, create_graph, need_graph=True)
            out_tuple, outs = _to_tuple(
                func(*ins), "outputs of the user-provided function", "jacobian"
            )
            _strict_outputs(outs, strict)
            if vectorize and strict:
                raise RuntimeError(
                    "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                    "not supported together. Please either set `strict=False` or `vectorize=False`."
                )
            jac = _jacobian_reverse(outs, ins, strict, create_graph)
    res = _restructure(_finish(jac, create_graph), (out_tuple, in_tuple))
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
    in_tuple, ins = _to_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*args: Tensor) -> Tensor:
        out = func(*args)
        out_tuple, outs = _to_tuple(out, "outputs of the user-provided function", "hessian")
        _strict_outputs(outs, strict)
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
        _strict_jacobian(jac, strict)
        return jac

    res = jacobian(
        gradient,
        ins,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _restructure(res, (in_tuple, in_tuple))


def _hessian_setup(
    fn_name: str,
    func: Callable[..., Any],
    inputs: Any,
    v: Any,
    create_graph: bool,
    strict: bool,
) -> tuple[bool, tuple[Tensor, ...], Tensor, tuple[Tensor, ...] | None, tuple[Tensor, ...]]:
    """Common part of `vhp` and `hvp`: checked inputs, output, `v` and the gradient."""
    in_tuple, ins = _to_tuple(inputs, "inputs", fn_name)
    ins = _prepare(ins, create_graph, need_graph=True)
    vs = _vector(v, ins, in_tuple, create_graph, fn_name, _V_FOR_INPUT)
    out_tuple, outs = _to_tuple(func(*ins), "outputs of the user-provided function", fn_name)
    _strict_outputs(outs, strict)
    if out_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    res = _vjp_raw(outs, ins, None, create_graph=True)
    jac = _zeros_for_missing(res, ins, strict, False, "back")
    _strict_jacobian(jac, strict)
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
        res = _vjp_raw(jac, ins, vs, create_graph)
        prod = _zeros_for_missing(res, ins, strict, create_graph, "double_back")
    return _finish(out, create_graph), _restructure(_finish(prod, create_graph), in_tuple)


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
        us = tuple(_zeros_like(t, requires_grad=True) for t in ins)
        res = _vjp_raw(jac, ins, us, create_graph=True)
        htu = _zeros_for_missing(res, ins, strict, create_graph, "double_back_trick")
        res = _vjp_raw(htu, us, vs, create_graph)
        prod = _zeros_for_missing(res, ins, strict, create_graph, "double_back")
    return _finish(out, create_graph), _restructure(_finish(prod, create_graph), in_tuple)
