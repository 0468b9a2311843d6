"""The local derivative of every input of a node, as readable math and, when cheap, as numbers.

Elementwise rules give a derivative per entry (`∂result/∂self = other`); the others are
written as the vector-Jacobian product itself (`grad_self = grad · mat2ᵀ`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._ops.primitive import OpNode
from .._ops.quiet import mute, unmute
from ..autograd.function import BackwardCFunction
from ..autograd.graph import AccumulateGrad, Node
from ._summary import format_key, format_number

__all__ = ["Derivative", "derivatives", "input_names", "local_derivatives"]


@dataclass(frozen=True, slots=True)
class Derivative:
    """What a node's rule does for one of its inputs."""

    input: str  # the input's torch name: "self", "other", "tensors[1]", "input 0"
    formula: str  # "∂result/∂self = other", or "grad_self = grad · mat2ᵀ"
    elementwise: bool  # grad_input = grad_output * value, entry by entry (broadcast undone after)
    value: np.ndarray | None  # that local derivative as numbers, when cheap and exact
    saved: tuple[str, ...]  # the saved tensors the rule reads

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


def derivatives(node: Node, with_values: bool = True) -> list[Derivative]:
    """A `Derivative` per input of `node`; `with_values=False` skips computing the numbers."""
    if isinstance(node, OpNode):
        return _op_derivatives(node, with_values)
    names = input_names(node)
    if isinstance(node, BackwardCFunction):
        return _custom(node, names)
    return [_generic(node, name, ()) for name in names]


@dataclass(frozen=True, slots=True)
class _Input:
    """How one input of an op is explained; the same for every node of that op."""

    name: str
    reads: tuple[str, ...]
    entry: _Entry | None  # None: no formula written, say where the rule lives
    fixed: Derivative | None  # the whole answer when it depends on nothing but the op


_plans: dict[tuple[int, int], list[_Input]] = {}


def _plan(node: OpNode) -> list[_Input]:
    """The per-input plan of `node`'s op (cached: primitives live as long as the program)."""
    prim = node._prim
    key = (id(prim), len(node._next))
    plan = _plans.get(key)
    if plan is not None:
        return plan
    table = _RULES.get(f"{node.name()}/{len(prim.inputs)}") or _RULES.get(node.name(), ())
    plan = []
    for i, name in enumerate(input_names(node)):
        k = 0 if prim.variadic else i  # the rule (and table entry) input i uses
        reads = tuple(sorted(prim._reads[k])) if k < len(prim._reads) else ()
        entry = table[k] if k < len(table) else None
        fixed = None
        if k >= len(prim.grads) or prim.grads[k] is None:
            fixed = Derivative(name, f"no gradient flows to {name}", False, None, ())
        elif entry is None:
            fixed = _generic(node, name, reads)
        elif isinstance(entry.rhs, str) and not entry.template and not entry.elementwise:
            fixed = Derivative(name, f"grad_{_ident(name)} = {entry.rhs}", False, None, reads)
        plan.append(_Input(name, reads, entry, fixed))
    _plans[key] = plan
    return plan


def _op_derivatives(node: OpNode, with_values: bool) -> list[Derivative]:
    saved = Saved(node)
    fields: dict[str, str] | None = None  # the parameters as text, made when a formula needs them
    out: list[Derivative] = []
    token = mute()  # 1/0 gives inf here, as it does in the rule itself
    try:
        for i, step in enumerate(_plan(node)):
            entry = step.entry
            if step.fixed is not None or entry is None:
                out.append(step.fixed or _generic(node, step.name, step.reads))
                continue
            if entry.template:
                if fields is None:
                    fields = _fields(node)
                meta = node._input_meta
                fields["i"] = str(i)
                fields["in_shape"] = (
                    str(tuple(int(n) for n in meta[i][0])) if i < len(meta) else "?"
                )
            text = _fill(entry.rhs, fields, saved)
            if not entry.elementwise:
                formula = f"grad_{_ident(step.name)} = {text}"
                out.append(Derivative(step.name, formula, False, None, step.reads))
                continue
            # An input that needs no gradient (a constant) needs no number either.
            value = None
            if with_values and node._next[i][0] is not None:
                value = _value(entry.value, saved)
            formula = f"∂result/∂{step.name} = {text}"
            out.append(Derivative(step.name, formula, True, value, step.reads))
    finally:
        unmute(token)
    return out


# --- reading a node ------------------------------------------------------------------


class Unavailable(Exception):
    """A value the node no longer holds: freed by a backward, changed in place, or hooked."""


_REQUIRED: Any = object()  # `Saved.p` without a default: a missing parameter is Unavailable


class Saved:
    """A node's saved tensors and parameters as NumPy arrays: `s("other")`, `s.p("alpha")`."""

    __slots__ = ("_node",)

    def __init__(self, node: OpNode) -> None:
        self._node = node

    def __call__(self, name: str) -> np.ndarray:
        saved = self._node._saved
        entry = saved.get(name) if saved is not None else None
        # Hooked tensors would run the user's unpack hook; modified ones are no longer the value.
        if entry is None or isinstance(entry, list) or entry.hooked is not None:
            raise Unavailable(name)
        if entry.version.value != entry.expected_version:
            raise Unavailable(name)
        data = entry.tensor._data if entry.tensor is not None else entry.data
        if data is None:
            raise Unavailable(name)
        return data

    def p(self, *names: str, default: Any = _REQUIRED) -> Any:
        """The first of the parameters `names` the node has (a tensor parameter as an array)."""
        params = self._node._params
        for name in names:
            if name in params:
                value = params[name]
                return value._data if hasattr(value, "_data") else value
        if default is _REQUIRED:
            raise Unavailable(names[0])
        return default

    def expanded(self, name: str) -> np.ndarray:
        """A saved reduction result with its reduced dims put back (size 1), to broadcast."""
        data = self(name)
        if not self.p("keepdim", default=False) and data.ndim < len(self.p("self_sizes")):
            data = np.expand_dims(data, tuple(sorted(self.p("dim"))))
        return data


@dataclass(frozen=True, slots=True)
class _Entry:
    rhs: str | Callable[[Saved], str]  # the right-hand side; `{param}` fields are filled in
    elementwise: bool
    value: Callable[[Saved], Any] | None = None

    @property
    def template(self) -> bool:
        return isinstance(self.rhs, str) and "{" in self.rhs


def E(rhs: str | Callable[[Saved], str], value: Callable[[Saved], Any] | None = None) -> _Entry:
    """An elementwise rule: `∂result/∂input = rhs`, numerically `value(saved)`."""
    return _Entry(rhs, True, value)


def V(rhs: str | Callable[[Saved], str]) -> _Entry:
    """A rule written as its vector-Jacobian product: `grad_input = rhs`."""
    return _Entry(rhs, False)


def _fill(rhs: str | Callable[[Saved], str], fields: dict[str, str] | None, saved: Saved) -> str:
    """A formula with the node's parameters filled in (`{count}` -> `2`)."""
    try:
        if callable(rhs):
            return rhs(saved)
        return rhs.format(**fields) if fields is not None else rhs
    except (Unavailable, KeyError, IndexError):  # a parameter this variant of the op lacks
        return rhs if isinstance(rhs, str) else "(a formula that needs values no longer held)"


def _value(fn: Callable[[Saved], Any] | None, saved: Saved) -> np.ndarray | None:
    """The local derivative as an array, or None when it needs what the node no longer has."""
    if fn is None:
        return None
    try:
        return np.asarray(fn(saved))
    except (Unavailable, KeyError, TypeError, ValueError):
        return None


def _fields(node: OpNode) -> dict[str, str]:
    """The node's parameters as text, for the `{name}` fields of formulas."""
    fields: dict[str, str] = {}
    for key, value in node._params.items():
        if isinstance(value, bool | str) or value is None:
            fields[key] = str(value)
        elif isinstance(value, int | float | np.number):
            fields[key] = format_number(value)
        elif isinstance(value, tuple) and all(isinstance(v, int) for v in value):
            # One reduced dim reads as `dim 1`, several as `dims (0, 1)`.
            fields[key] = str(value[0]) if len(value) == 1 else str(tuple(value))
        elif hasattr(value, "_data") and value._data.size == 1:  # a number kept as a tensor
            fields[key] = format_number(value._data.reshape(-1)[0])
    if "key" in node._params:
        fields["key"] = format_key(node._params["key"])
    return fields


def _ident(name: str) -> str:
    """An input name usable after `grad_`: `input 0` becomes `input0`."""
    return name.replace(" ", "")


def _generic(node: Node, name: str, reads: tuple[str, ...]) -> Derivative:
    """The fallback: say where the rule lives, so a reader can look it up."""
    op = node.name().rsplit("::", 1)[-1]
    where = ""
    if isinstance(node, OpNode):
        rule = next((r for r in node._prim.grads if r is not None), None)
        module = getattr(rule, "__module__", None) or ""
        if module.startswith("chainrule."):
            where = f" (rule in {module.replace('.', '/')}.py)"
    formula = f"grad_{_ident(name)} = vector-Jacobian product of {op}{where}"
    return Derivative(name, formula, False, None, reads)


def _custom(node: BackwardCFunction, names: list[str]) -> list[Derivative]:
    """A custom Function: its backward is the user's code, one result per forward argument."""
    fn = node._forward_cls.__name__
    saved = ("ctx.saved_tensors",) if node._saved else ()
    positions = node._tensor_positions or list(range(len(names)))
    return [
        Derivative(
            name, f"grad_{_ident(name)} = {fn}.backward(ctx, grad)[{pos}]", False, None, saved
        )
        for name, pos in zip(names, positions, strict=False)
    ]


# --- the rules ---------------------------------------------------------------------------


def _scale(s: Saved, key: str, sign: str = "") -> str:
    """`1`, or `alpha = 2` when the op scales this input (add's alpha, addmm's beta)."""
    value = s.p(key, default=1)
    return f"{sign}1" if value == 1 else f"{sign}{key} = {sign}{format_number(value)}"


def _vjp_scaled(text: str, key: str = "alpha") -> Callable[[Saved], str]:
    return lambda s: text if s.p(key, default=1) == 1 else f"{text} * {_scale(s, key)}"


def _ties(sign: str, wins: Any) -> tuple[_Entry, _Entry]:
    """maximum/minimum: 1 where this input wins, 1/2 at a tie, else 0."""

    def entry(me: str, them: str) -> _Entry:
        rhs = f"1 where {me} {sign} {them}, 1/2 where equal, else 0"
        return E(rhs, lambda s: np.where(s(me) == s(them), 0.5, 1.0 * wins(s(me), s(them))))

    return entry("self", "other"), entry("other", "self")


def _extreme_share(s: Saved) -> np.ndarray:
    """max/min/amax/amin: the gradient shared evenly among the entries equal to the extreme."""
    mask = s("self") == (s.expanded("result") if "dim" in s._node._params else s("result"))
    axis = tuple(s.p("dim")) if "dim" in s._node._params else None
    return mask / np.sum(mask, axis=axis, keepdims=True)


def _bounds(s: Saved) -> tuple[Any, Any]:
    """clamp's bounds (None: unbounded), by either of the names the clamp ops use."""
    return s.p("lo", "min", default=None), s.p("hi", "max", default=None)


def _clamp_text(s: Saved) -> str:
    lo, hi = (None if v is None else format_number(v) for v in _bounds(s))
    where = (
        f"self ≥ {lo}" if hi is None else f"self ≤ {hi}" if lo is None else f"{lo} ≤ self ≤ {hi}"
    )
    return f"1 where {where}, else 0"


def _clamp_value(s: Saved) -> np.ndarray:
    (lo, hi), x = _bounds(s), s("self")
    keep = np.ones(x.shape, bool)
    if lo is not None:
        keep &= x >= lo
    if hi is not None:
        keep &= x <= hi
    return keep.astype(x.dtype)


def _mse(sign: str) -> _Entry:
    def rhs(s: Saved) -> str:
        mean = s.p("reduction") == "mean"
        per = f" / n (n = {format_number(s.p('count'))})" if mean else ""
        return f"{sign}2 * (self - target){per}"

    def value(s: Saved) -> Any:
        d = 2 * (s("self") - s("target")) * (-1 if sign else 1)
        return d / s.p("count") if s.p("reduction") == "mean" else d

    return E(rhs, value)


def _norm_value(s: Saved) -> np.ndarray:
    p = s.p("ord")
    if not 1 <= p < math.inf:
        raise Unavailable("ord")
    x, r = s("self"), s.expanded("result")
    return np.abs(x) ** (p - 1) * np.sign(x) / r ** (p - 1)


def _prod_value(s: Saved) -> np.ndarray:
    x = s("self")
    if np.any(x == 0):  # result / self is 0/0 there; the rule takes the long way round
        raise Unavailable("self")
    return np.prod(x) / x


def _saved_value(name: str) -> Callable[[Saved], np.ndarray]:
    """A local derivative that is one of the saved tensors (mul: `∂/∂self = other`)."""
    return lambda s: s(name)


def _leaky(s: Saved) -> np.ndarray:
    return np.where(s("self") > 0, 1.0, s.p("negative_slope"))


def _softmax_value(s: Saved) -> np.ndarray:
    return np.exp(s("self") - s.expanded("result"))


def _of_self(rhs: str, fn: Callable[[np.ndarray], Any]) -> tuple[_Entry]:
    """A unary rule whose local derivative is a function of the input."""
    return (E(rhs, lambda s: fn(s("self"))),)


def _of_result(rhs: str, fn: Callable[[np.ndarray], Any]) -> tuple[_Entry]:
    """A unary rule whose local derivative is a function of the output."""
    return (E(rhs, lambda s: fn(s("result"))),)


def _pow_value(s: Saved) -> Any:
    p = s.p("exponent")
    return s("self") * 0 if p == 0 else p * s("self") ** (p - 1)


def _pow_self_value(s: Saved) -> Any:
    x, y = s("self"), s("exponent")
    return np.where(y == 0, 0, y * x ** (y - 1))


def _pow_exponent_value(s: Saved) -> Any:
    x, y = s("self"), s("exponent")
    return np.where((x == 0) & (y >= 0), 0, s("result") * np.log(x))


_ONE = E("1", lambda s: 1)
_ALPHA = E(lambda s: _scale(s, "alpha"), lambda s: s.p("alpha", default=1))
_MINUS_ALPHA = E(lambda s: _scale(s, "alpha", "-"), lambda s: -s.p("alpha", default=1))
_BETA = E(lambda s: _scale(s, "beta"), lambda s: s.p("beta", default=1))
_MINUS_ONE = E("-1", lambda s: -1)
_CLAMP = (E(_clamp_text, _clamp_value),)
_RESHAPE = (V("grad reshaped back to {in_shape}"),)
_UNSQUEEZE = (V("grad unsqueezed back to {in_shape}"),)
_PLACE = (V("zeros of shape {in_shape} with grad at self{key}"),)
_EXTREME = (E("1/k at the k entries equal to result, else 0", _extreme_share),)
_EXTREME_DIM = (
    E("1/k at the k entries equal to the extreme along dim {dim}, else 0", _extreme_share),
)
_PICKED = (V("grad placed where the extreme along dim {dim} was, zeros elsewhere"),)
_MEAN = (E("1/n (n = {count})", lambda s: 1 / s.p("count")),)
_SAVED = {name: E(name, _saved_value(name)) for name in ("self", "other", "tensor")}

# Keyed by node name, or by "name/number of inputs" where one name serves several ops.
_RULES: dict[str, tuple[_Entry, ...]] = {
    "AddBackward0": (_ONE, _ALPHA),
    "AddBackward1": (_ONE,),
    "SubBackward0": (_ONE, _MINUS_ALPHA),
    "RsubBackward0": (_MINUS_ALPHA, _ONE),
    "RsubBackward1": (_MINUS_ONE,),
    "NegBackward0": (_MINUS_ONE,),
    "MulBackward0": (_SAVED["other"], _SAVED["self"]),
    "MulBackward1": (E(lambda s: format_number(s.p("other")), lambda s: s.p("other")),),
    "DivBackward0": (
        E("1/other", lambda s: 1 / s("other")),
        E("-self/other²", lambda s: -s("self") / s("other") ** 2),
    ),
    "DivBackward1": (E(lambda s: f"1/{format_number(s.p('other'))}", lambda s: 1 / s.p("other")),),
    "PowBackward0": (E("exponent * self^(exponent - 1), exponent = {exponent}", _pow_value),),
    "PowBackward1": (
        E("exponent * self^(exponent - 1)", _pow_self_value),
        E("result * log(self)", _pow_exponent_value),
    ),
    "PowBackward2": (
        E("result * log(base), base = {base}", lambda s: s("result") * np.log(s.p("base"))),
    ),
    "ExpBackward0": _of_result("exp(self) = result", lambda r: r),
    "Expm1Backward0": _of_result("result + 1", lambda r: r + 1),
    "LogBackward0": _of_self("1/self", lambda x: 1 / x),
    "Log1PBackward0": _of_self("1/(1 + self)", lambda x: 1 / (1 + x)),
    "Log2Backward0": _of_self("1/(self * ln 2)", lambda x: 1 / (x * math.log(2))),
    "SinBackward0": _of_self("cos(self)", np.cos),
    "CosBackward0": _of_self("-sin(self)", lambda x: -np.sin(x)),
    "TanBackward0": _of_result("1 + result²", lambda r: 1 + r**2),
    "TanhBackward0": _of_result("1 - result²", lambda r: 1 - r**2),
    "SigmoidBackward0": _of_result("result * (1 - result)", lambda r: r * (1 - r)),
    "ReluBackward0": _of_result("1 where result > 0, else 0", lambda r: (r > 0).astype(r.dtype)),
    "SqrtBackward0": _of_result("1/(2 * result)", lambda r: 1 / (2 * r)),
    "RsqrtBackward0": _of_result("-result³/2", lambda r: -(r**3) / 2),
    "ReciprocalBackward0": _of_result("-result²", lambda r: -(r**2)),
    "AbsBackward0": _of_self("sign(self)", np.sign),
    "SignBackward0": (E("0", lambda s: 0),),
    "AtanBackward0": _of_self("1/(1 + self²)", lambda x: 1 / (1 + x**2)),
    "ErfBackward0": _of_self("2/√π * exp(-self²)", lambda x: 1.1283791671 * np.exp(-(x**2))),
    "LeakyReluBackward0": (E("1 where self > 0, else negative_slope = {negative_slope}", _leaky),),
    "ClampBackward1": _CLAMP,
    "ClampMinBackward0": _CLAMP,
    "ClampMaxBackward0": _CLAMP,
    "MaximumBackward0": _ties(">", np.greater),
    "MinimumBackward0": _ties("<", np.less),
    "WhereBackward0": (
        _ONE,  # the condition: its rule is None, so this entry is never used
        E("1 where condition, else 0", lambda s: s("condition").astype(np.float64)),
        E("0 where condition, else 1", lambda s: (~s("condition")).astype(np.float64)),
    ),
    "DotBackward0": (_SAVED["tensor"], _SAVED["self"]),
    "VdotBackward0": (_SAVED["other"], _SAVED["self"]),
    "MeanBackward0": _MEAN,
    "MeanBackward1": _MEAN,
    "SumBackward0": (_ONE,),
    "SumBackward1": (_ONE,),
    "CloneBackward0": (_ONE,),
    "AliasBackward0": (_ONE,),
    "ToCopyBackward0": (E("1 (grad cast back to the input's dtype)", lambda s: 1),),
    "MseLossBackward0": (_mse(""), _mse("-")),
    "LinalgVectorNormBackward0": (
        E("|self|^(p - 1) * sign(self) / result^(p - 1), p = {ord}", _norm_value),
    ),
    "LogsumexpBackward0": (E("exp(self - result), a softmax along dim {dim}", _softmax_value),),
    "ProdBackward0": (E("the product of the other entries", _prod_value),),
    "MaxBackward1": _EXTREME,
    "MinBackward1": _EXTREME,
    "AmaxBackward0": _EXTREME_DIM,
    "AminBackward0": _EXTREME_DIM,
    "MaxBackward0": _PICKED,
    "MinBackward0": _PICKED,
    "MmBackward0": (V("grad · mat2ᵀ"), V("selfᵀ · grad")),
    "BmmBackward0": (V("grad · mat2ᵀ, batch by batch"), V("selfᵀ · grad, batch by batch")),
    "MvBackward0": (V("grad ⊗ vec (outer product)"), V("selfᵀ · grad")),
    "UnsafeViewBackward0/2": (
        V("grad · otherᵀ, summed over broadcast batch dims"),
        V("selfᵀ · grad, summed over broadcast batch dims"),
    ),
    "UnsafeViewBackward0/1": _RESHAPE,
    "AddmmBackward0": (_BETA, V(_vjp_scaled("grad · mat2ᵀ")), V(_vjp_scaled("mat1ᵀ · grad"))),
    "AddmvBackward0": (_BETA, V(_vjp_scaled("grad ⊗ vec")), V(_vjp_scaled("matᵀ · grad"))),
    "ViewBackward0": _RESHAPE,
    "ExpandBackward0": (V("grad summed over the expanded dims, back to {in_shape}"),),
    "TransposeBackward0": (V("grad with dims {dim0} and {dim1} swapped back"),),
    "TBackward0": (V("gradᵀ"),),
    "PermuteBackward0": (V("grad permuted back (undoing dims {dims})"),),
    "UnsqueezeBackward0": (V("grad with dim {dim} removed, back to {in_shape}"),),
    "SqueezeBackward0": _UNSQUEEZE,
    "SqueezeBackward1": _UNSQUEEZE,
    "SqueezeBackward4": _UNSQUEEZE,
    "SelectBackward0": _PLACE,
    "SliceBackward0": _PLACE,
    "IndexBackward0": (V("zeros of shape {in_shape} with grad added at self{key}"),),
    "SoftmaxBackward0": (V("result * (grad - Σ(grad * result) along dim {dim})"),),
    "LogSoftmaxBackward0": (V("grad - exp(result) * Σ grad along dim {dim}"),),
    "CatBackward0": (V("the part of grad along dim {dim} that tensors[{i}] filled"),),
    "StackBackward0": (V("grad.select({dim}, {i})"),),
    "NllLossBackward0": (V("-grad at each row's target class (/ total weight if mean), else 0"),),
    "CumsumBackward0": (V("cumulative sum of grad along dim {dim}, from the end"),),
    "RepeatBackward0": (V("grad summed over the repeated copies, back to {in_shape}"),),
    "IndexSelectBackward0": (V("zeros of shape {in_shape} with grad added at index (dim {dim})"),),
    "EmbeddingBackward0": (V("grad rows added into the looked-up rows of weight"),),
}
