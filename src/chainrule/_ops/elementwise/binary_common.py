"""Shared pieces of the binary family: torch's argument errors, the one way to declare a
binary op (`Binary`), and the function, method and in-place method made from it.

Also the three graph nodes one binary op may record, as torch does: one for two
tensors, one for a tensor and a number (the number is no input, so the node has
one edge), one for a number and a tensor; and torch's `NotImplemented` node for
ops it does not differentiate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..inplace import apply_inplace
from ..operands import Number, as_operands, scalar_tensor
from ..primitive import ArrayRule, OpNode, Primitive, Rule

__all__ = [
    "NUMBER",
    "Binary",
    "OperandPair",
    "TensorOperandPair",
    "TensorPair",
    "Undifferentiable",
    "check_pair",
    "dunder",
    "float_result",
    "inplace_pair_op",
    "invalid_arguments",
    "is_number",
    "not_implemented_for",
    "pair_method",
    "pair_op",
    "require_tensors",
]

NUMBER = (bool, int, float, np.number, np.bool_)


def is_number(value: Any) -> bool:
    return isinstance(value, NUMBER)


def _type_name(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


# --- torch's argument errors -------------------------------------------------------------


def require_tensors(op: str, **args: Any) -> None:
    """torch's TypeError when an op that takes tensors only is given something else.

    Name the arguments as the call form sees them: `input, other` for
    `chainrule.op(input, other)`, just `other` for the method `input.op(other)`.
    """
    for position, (name, value) in enumerate(args.items(), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be Tensor, "
                f"not {_type_name(value)}"
            )


def invalid_arguments(
    op: str,
    args: Sequence[Any],
    kwargs: dict[str, Any],
    expected: Sequence[str],
    method: bool = False,
) -> TypeError:
    """torch's TypeError for an op with several signatures when none of them fits.

    `expected` lists the function's signatures (`Tensor input, Number other`);
    for a method (`args` without the tensor itself) the first parameter goes.
    """
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    if method:
        expected = [s.split(", ", 1)[1] for s in expected if s.startswith("Tensor input, ")]
    lines = "".join(f"\n * ({signature})" for signature in expected)
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({', '.join(got)}), "
        f"but expected one of:{lines}\n"
    )


def not_implemented_for(kernel: str, dt: _dtype.dtype) -> NotImplementedError:
    """torch's error for a kernel that has no version for a dtype (`"hypot_cpu" ... 'Long'`)."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype.scalar_name(dt)}'")


def check_pair(
    op: str,
    input: Any,
    other: Any,
    accepts: str,
    expected: Sequence[str] = (),
    method: bool = False,
    names: tuple[str, str] = ("input", "other"),
) -> None:
    """torch's TypeError unless the operands fit the op's signatures.

    `accepts` is "tensors" (two tensors only), "number second" (a tensor and a
    tensor or number), "numbers" (also a number and a tensor) or "any" (also two
    numbers).
    """
    if accepts == "tensors":
        if method:
            require_tensors(op, **{names[1]: other})
        else:
            require_tensors(op, **{names[0]: input, names[1]: other})
        return
    if isinstance(input, Tensor) and (isinstance(other, Tensor) or is_number(other)):
        return
    if accepts in ("numbers", "any") and is_number(input) and isinstance(other, Tensor):
        return
    if accepts == "any" and is_number(input) and is_number(other):
        return
    raise invalid_arguments(op, (other,) if method else (input, other), {}, expected, method)


# What a binary op accepts, as its function and its method are typed. "tensors": two
# tensors; "number second": a tensor, then a tensor or number; "numbers": also a number
# first; "any": also two numbers. A method's first operand is always the tensor itself.
TensorPair = Callable[[Tensor, Tensor], Tensor]
TensorOperandPair = Callable[[Tensor, Tensor | Number], Tensor]
OperandPair = Callable[[Tensor | Number, Tensor | Number], Tensor]


@overload
def pair_op(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: Literal["tensors"],
    expected: Sequence[str] = (),
    doc: str | None = "",
) -> TensorPair: ...
@overload
def pair_op(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: Literal["number second"],
    expected: Sequence[str] = (),
    doc: str | None = "",
) -> TensorOperandPair: ...
@overload
def pair_op(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: Literal["numbers", "any"],
    expected: Sequence[str] = (),
    doc: str | None = "",
) -> OperandPair: ...
def pair_op(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: str,
    expected: Sequence[str] = (),
    doc: str | None = "",
) -> Callable[[Any, Any], Tensor]:
    """The function `op(input, other)`: torch's checks of both operands, then `impl`."""

    def function(input: Any, other: Any) -> Tensor:
        check_pair(op, input, other, accepts, expected)
        return impl(input, other)

    function.__name__ = function.__qualname__ = op
    function.__doc__ = doc
    return function


@overload
def pair_method(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: Literal["tensors"],
    expected: Sequence[str] = (),
    doc: str | None = "",
) -> TensorPair: ...
@overload
def pair_method(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: Literal["number second", "numbers", "any"],
    expected: Sequence[str] = (),
    doc: str | None = "",
) -> TensorOperandPair: ...
def pair_method(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: str,
    expected: Sequence[str] = (),
    doc: str | None = "",
) -> Callable[[Tensor, Any], Tensor]:
    """The method `input.op(other)`: as `pair_op`, its errors naming `other` alone."""

    def method(self: Tensor, other: Any) -> Tensor:
        check_pair(op, self, other, accepts, expected, method=True)
        return impl(self, other)

    method.__name__ = method.__qualname__ = op
    method.__doc__ = doc
    return method


@overload
def inplace_pair_op(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: Literal["tensors"],
    expected: Sequence[str] = (),
    names: tuple[str, str] = ("input", "other"),
    check_promotion: bool = True,
) -> TensorPair: ...
@overload
def inplace_pair_op(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: Literal["number second"],
    expected: Sequence[str] = (),
    names: tuple[str, str] = ("input", "other"),
    check_promotion: bool = True,
) -> TensorOperandPair: ...
def inplace_pair_op(
    op: str,
    impl: Callable[[Any, Any], Tensor],
    accepts: str,
    expected: Sequence[str] = (),
    names: tuple[str, str] = ("input", "other"),
    check_promotion: bool = True,
) -> Callable[[Tensor, Any], Tensor]:
    """The method `input.op_(other)`: `op` computed, then written into `input`.

    Like torch, first refuse operands whose promoted dtype `input` cannot hold
    (unless `check_promotion` is off, for ops that check their dtypes themselves).
    """

    def method(self: Tensor, other: Any) -> Tensor:
        check_pair(f"{op}_", self, other, accepts, expected, method=True, names=names)
        promoted = as_operands(self, other)[0] if check_promotion else None
        return apply_inplace(self, lambda old: impl(old, other), (other,), promoted)

    method.__name__ = method.__qualname__ = f"{op}_"
    return method


# --- dtypes ---------------------------------------------------------------------------------


def float_result(dt: _dtype.dtype) -> _dtype.dtype:
    """The result dtype of an op that always gives floats (integers give the default float)."""
    return dt if dt.is_floating_point else _dtype.get_default_dtype()


# --- nodes ---------------------------------------------------------------------------------


class _NotImplementedNode(OpNode):
    """torch's node for an op it cannot differentiate: backward through it raises."""

    __slots__ = ()

    def name(self) -> str:
        return "torch::autograd::NotImplemented"


_NotImplementedNode.__name__ = _NotImplementedNode.__qualname__ = "NotImplemented"
_NotImplementedNode.__module__ = "chainrule.autograd.graph"


class Undifferentiable:
    """An op torch records with a `NotImplemented` node: its values, but no derivative.

    Called like a Primitive. The node's edges are the inputs that require grad
    only (torch's node has no edge for the others); backward through it raises.
    """

    def __init__(self, aten: str, forward: Callable[..., Any], inputs: Sequence[str]) -> None:
        self.aten, self.forward, self.inputs = aten, forward, tuple(inputs)
        self._prims: dict[tuple[bool, ...], Primitive] = {}

    def _rule(self, g: Tensor, n: Any) -> Tensor:
        raise RuntimeError(f"derivative for aten::{self.aten} is not implemented")

    def __call__(self, *tensors: Tensor, **params: Any) -> Tensor:
        key = tuple([t._requires_grad for t in tensors])
        prim = self._prims.get(key)
        if prim is None:
            forward = self.forward
            rule = self._rule
            prim = Primitive(
                "NotImplemented",
                lambda *_, arrays, **p: forward(*arrays, **p),
                grads=[lambda g, n: rule(g, n) for r in key if r],
                formulas=[f"none: aten::{self.aten} has no derivative" for r in key if r],
                inputs=[name for name, r in zip(self.inputs, key, strict=True) if r],
            )
            prim.node_cls = _NotImplementedNode
            self._prims[key] = prim
        edges = [t for t in tensors if t._requires_grad]
        return prim(*edges, arrays=[t._data for t in tensors], **params)


Kernel = Callable[..., np.ndarray]


def _node(
    name: str | None,
    aten: str,
    forward: Callable[..., Any],
    inputs: tuple[str, ...],
    rules: Sequence[Rule | None],
    formulas: Sequence[str | None],
    tangent: Any = "elementwise",  # forward mode applies each rule to its input's tangent
    layout: Any = None,
    array_rules: Sequence[ArrayRule | None] | None = None,
) -> Any:
    if name is None:
        return None
    if name == "NotImplemented":
        return Undifferentiable(aten, forward, inputs)
    return Primitive(
        name,
        forward,
        grads=rules,
        inputs=inputs,
        tangent=tangent,
        formulas=formulas,
        layout=layout,
        array_grads=array_rules,
    )


@dataclass
class Binary:
    """An elementwise binary op as torch records it, with a node for each operand pattern:
    the one way to declare a binary op.

    `kernel(a, b, dt, **params)` computes on arrays in dtype `dt` (`binary_forward`
    makes one from a NumPy ufunc). The two `rules` read the inputs by their names,
    `inputs` (`n.self` and `n.other`): a saved input or, when that side was a
    number, a 0-d tensor among the node's parameters. When the number comes first,
    the tensor's rule is `first_rule`, which reads the number by the name
    `first_number` (`n.input`: a parameter cannot be called `self`). A node name of
    None means torch has no such form; "NotImplemented" that it has no derivative
    for it. `tangent` is forward mode's rule for the two-tensor node (see
    `Primitive`); the others are elementwise. `formulas` (and `first_formula`) say
    the rules as Primitive's `formulas` do, `array_rules` as its `array_grads` (for
    the two-tensor node). `first_layout` lays out the result when
    the number comes first, where torch's kernel does not follow the tensor's layout
    (see `Primitive`).

    `both`, `second` and `first` are the nodes for two tensors, a number second
    and a number first; calling the Binary picks one.
    """

    kernel: Kernel
    rules: tuple[Rule | None, Rule | None]
    tensors: str
    number_second: str | None = None
    number_first: str | None = None
    first_rule: Rule | None = None
    aten: str = ""
    inputs: tuple[str, str] = ("self", "other")
    tangent: Any = "elementwise"
    first_number: str = "input"
    formulas: tuple[str | None, str | None] = (None, None)
    first_formula: str | None = None
    first_layout: Any = None
    array_rules: tuple[ArrayRule | None, ArrayRule | None] | None = None

    def __post_init__(self) -> None:
        k, (self_rule, other_rule) = self.kernel, self.rules
        # Two tensors: the kernel is the forward itself (no call in between: `a * b` runs it).
        self.both = _node(
            self.tensors,
            self.aten,
            k,
            self.inputs,
            (self_rule, other_rule),
            self.formulas,
            self.tangent,
            array_rules=self.array_rules,
        )
        self.second = _node(
            self.number_second,
            self.aten,
            lambda a, other, dt, **p: k(a, other._data, dt, **p),
            self.inputs[:1],
            (self_rule,),
            self.formulas[:1],
        )
        number = self.first_number
        self.first = _node(
            self.number_first,
            self.aten,
            lambda b, dt, **p: k(p.pop(number)._data, b, dt, **p),
            self.inputs[1:],
            (self.first_rule,),
            (self.first_formula,),
            layout=self.first_layout,
        )

    def __call__(self, input: Any, other: Any, dt: _dtype.dtype, **params: Any) -> Tensor:
        """The op on tensors or a tensor and a number (either side), computing in `dt`."""
        if isinstance(other, Tensor):
            if isinstance(input, Tensor):
                assert self.both is not None
                return self.both(input, other, dt=dt.np, **params)
            assert self.first is not None
            number = {self.first_number: scalar_tensor(input, dt)}
            return self.first(other, dt=dt.np, **number, **params)
        assert self.second is not None
        return self.second(input, other=scalar_tensor(other, dt), dt=dt.np, **params)


def dunder(fn: Callable[[Any, Any], Tensor], reflected: bool = False) -> TensorOperandPair:
    """A Tensor dunder (`__mod__`, `__rmod__`, ...) calling `fn`; other types are not ours."""

    def op(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, *NUMBER)):
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    return op
