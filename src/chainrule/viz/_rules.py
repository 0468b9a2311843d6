"""Each input's derivative formula as the node's op declares it (`Primitive.formulas`): per
entry for elementwise rules (`∂result/∂self = other`), else the vector-Jacobian product
(`grad_self = grad · mat2ᵀ`); and its numbers, read off what the engine computed."""

from __future__ import annotations

import re
import string
import weakref
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._ops.primitive import OpNode, Primitive
from .._ops.quiet import quiet
from ..autograd.function import BackwardCFunction
from ..autograd.graph import AccumulateGrad, Node
from ._summary import format_key, format_number

__all__ = [
    "Derivative",
    "derivatives",
    "input_names",
    "local_derivatives",
    "local_value",
    "saved_array",
]


@dataclass(frozen=True, slots=True)
class Derivative:
    """What a node's rule does for one of its inputs."""

    input: str  # the input's torch name: "self", "other", "tensors[1]", "input 0"
    formula: str  # "∂result/∂self = other", or "grad_self = grad · mat2ᵀ"
    elementwise: bool  # grad_input = grad_output * derivative, entry by entry (then summed)
    saved: tuple[str, ...]  # the saved tensors the rule reads
    constant: bool = False  # an elementwise derivative that names no tensor: one number

    @property
    def rhs(self) -> str:
        """The formula's right-hand side: `other`, `grad · mat2ᵀ`."""
        return self.formula.split(" = ", 1)[1]

    def text(self) -> str:
        """The formula, and which saved tensors it uses."""
        if not self.saved:
            return self.formula
        return f"{self.formula}  (uses saved {', '.join(self.saved)})"


def local_derivatives(node: Node) -> list[str]:
    """One readable formula per input of `node` (`next_functions` order).

    `MulBackward0` gives `["∂result/∂self = other  (uses saved other)",
    "∂result/∂other = self  (uses saved self)"]`. An `AccumulateGrad` has no
    inputs: it gives one line saying where its gradient goes.
    """
    if isinstance(node, AccumulateGrad):
        return ["leaf.grad += grad  (adds the gradient into the leaf's .grad)"]
    return [d.text() for d in derivatives(node)]


def input_names(node: Node) -> list[str]:
    """The torch name of each input of `node`: `self`, `other`, `tensors[0]`, `input 0`."""
    count = len(node.next_functions)
    if isinstance(node, OpNode):
        prim = node._prim
        if prim.variadic:
            return [f"{prim.inputs[0]}[{i}]" for i in range(count)]
        names = list(prim.inputs[:count])
        return names + [f"input {i}" for i in range(len(names), count)]
    return [f"input {i}" for i in range(count)]


def derivatives(node: Node) -> list[Derivative]:
    """A `Derivative` per input of `node`."""
    if isinstance(node, OpNode):
        return _op_derivatives(node)
    names = input_names(node)
    if isinstance(node, BackwardCFunction):
        return _custom(node, names)
    return [_generic(node, name, ()) for name in names]


# --- an op's formulas --------------------------------------------------------------------

# A formula that names `grad` is a vector-Jacobian product (`gradᵀ` too, not `grad_output`).
_NAMES_GRAD = re.compile(r"(?<!\w)grad(?![A-Za-z0-9_])")
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True, slots=True)
class _Input:
    """How one input of an op is explained; the same for every node of that op."""

    name: str
    template: str  # the declared formula, with `{param}` fields
    fields: tuple[str, ...]  # the fields it fills in
    elementwise: bool
    constant: bool  # elementwise, naming no tensor: one number
    reads: tuple[str, ...]
    fixed: Derivative | None  # the whole answer when it depends on nothing but the op


# Per op, by number of inputs; weakly, so a Primitive made and dropped leaves no stale plan.
_plans: weakref.WeakKeyDictionary[Primitive, dict[int, list[_Input]]] = weakref.WeakKeyDictionary()


def _plan(node: OpNode) -> list[_Input]:
    """The per-input plan of `node`'s op (the same for every node of the op)."""
    prim = node._prim
    by_count = _plans.get(prim)
    if by_count is None:
        by_count = _plans[prim] = {}
    plan = by_count.get(len(node._next) // 2)
    if plan is not None:
        return plan
    formulas = prim.formulas or ()
    tensors = set(prim.inputs) | set(prim.outputs)
    plan = []
    for i, name in enumerate(input_names(node)):
        k = 0 if prim.variadic else i  # the rule (and formula) input i uses
        reads = tuple(sorted(prim._reads[k])) if k < len(prim._reads) else ()
        template = (formulas[k] if k < len(formulas) else None) or ""
        fields = tuple(f for _, f, _, _ in string.Formatter().parse(template) if f)
        elementwise = not _NAMES_GRAD.search(template)
        constant = elementwise and not tensors.intersection(_WORD.findall(template))
        step = _Input(name, template, fields, elementwise, constant, reads, None)
        if k >= len(prim.grads) or prim.grads[k] is None:
            step = replace(step, fixed=Derivative(name, f"no gradient flows to {name}", False, ()))
        elif not template:
            step = replace(step, fixed=_generic(node, name, reads))
        elif not fields:
            step = replace(step, fixed=_derivative(step, template))
        plan.append(step)
    by_count[len(node._next) // 2] = plan
    return plan


def _derivative(step: _Input, rhs: str) -> Derivative:
    lhs = f"∂result/∂{step.name}" if step.elementwise else f"grad_{_ident(step.name)}"
    return Derivative(step.name, f"{lhs} = {rhs}", step.elementwise, step.reads, step.constant)


def _op_derivatives(node: OpNode) -> list[Derivative]:
    return [
        step.fixed or _derivative(step, _fill(step.template, step.fields, node, i))
        for i, step in enumerate(_plan(node))
    ]


def _fill(template: str, fields: tuple[str, ...], node: OpNode, i: int) -> str:
    """A formula with the node's parameters filled in: `{count}` -> `2`, and `{hi:∞}` -> `∞`
    when `hi` is None (an absent bound); `{i}` and `{in_shape}` say which input this is."""
    values: dict[str, str | None] = {}
    for field in fields:
        if field == "i":
            values[field] = str(i)
        elif field == "in_shape":
            meta = node._input_meta
            values[field] = str(tuple(int(n) for n in meta[i][0])) if i < len(meta) else "?"
        elif field in node._params:
            value = node._params[field]
            values[field] = None if value is None else _param_text(field, value)
        else:
            return template  # a parameter this variant of the op lacks
    return _FIELDS.vformat(template, (), values)


class _Fields(string.Formatter):
    """`{name:text}`: the text in place of a parameter that is None."""

    def format_field(self, value: Any, format_spec: str) -> str:
        return (format_spec or "None") if value is None else str(value)


_FIELDS = _Fields()


def _param_text(field: str, value: Any) -> str:
    """A parameter as text: `2`, `True`, `dim 1` reads `1`, a key `[:, ::2]`."""
    if field == "key":
        return format_key(value)
    if isinstance(value, bool | str) or value is None:
        return str(value)
    if isinstance(value, int | float | np.number):
        return format_number(value)
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        # One reduced dim reads as `dim 1`, several as `dims (0, 1)`.
        return str(value[0]) if len(value) == 1 else str(tuple(value))
    data = getattr(value, "_data", None)
    if data is not None and data.size == 1:  # a number kept as a tensor
        return format_number(data.reshape(-1)[0])
    return str(value)


def _ident(name: str) -> str:
    """An input name usable after `grad_`: `input 0` becomes `input0`."""
    return name.replace(" ", "")


def _generic(node: Node, name: str, reads: tuple[str, ...]) -> Derivative:
    """An op declared without formulas (outside chainrule): one line that says so."""
    op = node.name().rsplit("::", 1)[-1]
    return Derivative(name, f"grad_{_ident(name)} = vector-Jacobian product of {op}", False, reads)


def _custom(node: BackwardCFunction, names: list[str]) -> list[Derivative]:
    """A custom Function: its backward is the user's code, one result per forward argument."""
    fn = node._forward_cls.__name__
    saved = ("ctx.saved_tensors",) if node._saved else ()
    positions = node._tensor_positions or list(range(len(names)))
    return [
        Derivative(name, f"grad_{_ident(name)} = {fn}.backward(ctx, grad)[{pos}]", False, saved)
        for name, pos in zip(names, positions, strict=False)
    ]


# --- numbers, from what the engine computed ---------------------------------------------------


def local_value(node: Node, d: Derivative, g: Any, gi: Any) -> np.ndarray | None:
    """An elementwise derivative as numbers, read off the engine's values; None where it can't be.

    In order: the formula is a number (`3`), or a tensor the node saved (`other`),
    else the ratio grad_input / grad_output, where every entry of it is known (the
    grad_output is not 0 there, and no broadcasting was summed away); a formula that
    names no tensor is one number, read where the grad_output is not 0.
    """
    if not d.elementwise:
        return None
    g, gi = getattr(g, "_data", g), getattr(gi, "_data", gi)  # Tensors or arrays
    rhs = d.rhs
    try:
        return np.asarray(float(rhs))
    except ValueError:
        pass
    saved = saved_array(node, rhs)
    if saved is not None:
        return saved
    if g is None or gi is None or getattr(node, "_hooks", None):  # a hook may change gi
        return None
    return _ratio(_unreduced(g, node, gi.ndim), gi, d.constant)


def saved_array(node: Node, name: str) -> np.ndarray | None:
    """A tensor `node` saved, as an array; None when freed, changed in place, or hooked."""
    saved = getattr(node, "_saved", None)
    entry = saved.get(name) if isinstance(saved, dict) else None
    # Hooked tensors would run the user's unpack hook; modified ones are no longer the value.
    if entry is None or isinstance(entry, list) or entry.hooked is not None:
        return None
    if entry.version.value != entry.expected_version:
        return None
    return entry.tensor._data if entry.tensor is not None else entry.data


def _unreduced(g: np.ndarray, node: Node, ndim: int) -> np.ndarray:
    """A reduction's grad_output with its reduced dims back (size 1), to line up with gi."""
    params = getattr(node, "_params", {})
    dims = params.get("dim")
    if g.ndim == 0 or g.ndim >= ndim or dims is None or params.get("keepdim", False):
        return g
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) + g.ndim != ndim:
        return g
    return np.expand_dims(g, tuple(sorted(d % ndim for d in dims)))


def _ratio(g: np.ndarray, gi: np.ndarray, constant: bool) -> np.ndarray | None:
    try:
        shape = np.broadcast_shapes(g.shape, gi.shape)
    except ValueError:
        return None
    if shape != gi.shape:  # broadcasting was undone by a sum: the entries are mixed
        return None
    known = np.broadcast_to(g != 0, shape)
    ratio = quiet(np.divide, gi, g)  # 0/0 and x/0 where g is 0: masked out below
    if constant:
        seen = ratio[known]
        if seen.size and np.allclose(seen, seen[0], rtol=1e-5, equal_nan=True):
            return np.asarray(seen[0])
    return ratio if known.all() else None
