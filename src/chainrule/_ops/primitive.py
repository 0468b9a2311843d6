"""How an op records itself: a forward on arrays plus one derivative rule per input.

A rule is `rule(grad, node) -> grad_input`, written with chainrule's own ops;
`node.<name>` gives the saved inputs (by their PyTorch names: `self`, `other`,
...), `node.result` the saved output, and `node.<param>` the op's non-tensor
arguments. The engine runs rules with grad mode off for a plain backward and
with grad mode on under `create_graph=True`, so one rule serves every order.
Broadcasting and dtype are undone by the engine, after every rule (see
`engine.validate_grads`), never inside one.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._autograd import grad_mode
from .._autograd import tangents as _tangents
from .._dims import wrap_dim, wrap_dims
from .._strides import with_torch_strides
from .._tensor import Tensor
from . import lane
from .declarations import record_declaration
from .forward_mode import push_forward
from .op_node import _NO_PARAMS, NumberOperand, OpNode, add_field, node_class, slot_name
from .view_creation import mark_view_creation

__all__ = [
    "ArrayRule",
    "NumberOperand",
    "OpNode",
    "Primitive",
    "Rule",
    "tangents_or_zeros",
    "tracks",
    "wrap_dim",
    "wrap_dims",
]

Rule = Callable[[Tensor, "OpNode"], Tensor | None]
# A rule on arrays: `array_rule(grad_output_array, node) -> grad_input_array`.
ArrayRule = Callable[[np.ndarray, "OpNode"], Any]
# How a result is laid out in memory: `layout(result, *input_arrays) -> array`.
Layout = Callable[..., np.ndarray]
# What a node saves: (index, name) of the inputs, then of the outputs (Primitive.save_plan).
SavePlan = tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]
# The same as a node stores it: (index, slot) of the inputs, the output's slot, any saved.
SlotPlan = tuple[tuple[tuple[int, str], ...], str | None, bool]

declared: weakref.WeakSet[Primitive] = weakref.WeakSet()  # every Primitive made, for tools


def tracks(t: Tensor) -> bool:
    """Whether an op on `t` must run through its Primitive (not a raw NumPy shortcut):
    `t` requires grad, or carries a forward-mode tangent."""
    return t._requires_grad or (_tangents._active and _tangents.tangent_of(t) is not None)


class Primitive:
    """A differentiable op: `forward(*arrays, **params) -> array` and one rule per input.

    `inputs` names the tensor arguments (PyTorch's names); what each rule reads
    from the node (`node.self`, `node.result`, ...) is what the node saves, so
    a graph keeps exactly what its backward needs. `view=True` marks ops whose
    result shares memory with their first input. `variadic=True` marks ops on any
    number of tensors (`cat`, `stack`): one rule `rule(grad, node, i)` serves
    input `i`, and the forward receives the arrays as one list. `outputs` names
    the results of an op with several (`("Q", "R")`): its forward returns a tuple
    of arrays, the op a tuple of tensors, and each rule gets the tuple of their
    gradients (zeros for outputs that received none). `formulas` say the rules for
    `viz.explain`, one per input (None where the rule is): ∂result/∂input where the rule
    multiplies grad by it entry by entry (`cos(self)`), else the vector-Jacobian product,
    the only kind that names grad (`grad · mat2ᵀ`); `{param}` shows a parameter's value.
    `layout(result, *input_arrays)` lays each result out in memory as PyTorch does
    (`_strides.contiguous_array`, `_strides.elementwise`, ...), one for all results or
    one per result; None leaves it to the forward.

    `array_grads` (optional, hot ops only) gives the rules again on NumPy arrays, for
    the first-order backward: `array_rule(grad_array, node)` reads saved arrays with
    `node._array(name)` and reaches other ops through their `on_arrays`, so it makes
    the same calls the tensor rule makes, without a tensor per step; None (for an
    input, or returned) leaves a case to the tensor rule. They serve gradients of
    the inputs' float32/float64 dtype; `tests/test_array_rules.py` checks them bit
    for bit against the tensor rules on the op table.
    """

    def __init__(
        self,
        name: str,
        forward: Callable[..., Any],
        grads: Sequence[Rule | None],
        inputs: Sequence[str] = ("self",),
        view: bool = False,
        variadic: bool = False,
        outputs: Sequence[str] = ("result",),
        tangent: str | Callable[..., Any] | None = None,
        formulas: Sequence[str | None] | None = None,
        layout: Layout | tuple[Layout, ...] | None = None,
        array_grads: Sequence[ArrayRule | None] | None = None,
    ) -> None:
        self.variadic = variadic
        self.layout = layout
        # How forward mode gets this op's tangent (see forward_mode.push_forward):
        # "linear" (the op applied to the tangents), "multilinear" (a sum over
        # inputs, like the product rule), "elementwise" (each reverse rule applied
        # to its input's tangent: the Jacobian is diagonal), a rule
        # `tangent(tangents, primals)`, or None: derived by transposing the reverse rules.
        self.tangent = "linear" if view and tangent is None else tangent
        self.outputs = tuple(outputs)
        self._many = len(self.outputs) > 1
        if len(grads) != len(inputs):
            raise ValueError(f"{name}: {len(inputs)} inputs but {len(grads)} rules")
        self.name = name
        record_declaration(name)
        self.forward = forward
        self.grads = tuple(grads)
        self.one_rule = len(self.grads) == 1 and self.grads[0] is not None and not variadic
        self.inputs = tuple(inputs)
        self.view = view
        self.saveable = frozenset((*self.inputs, *self.outputs))
        # What each rule reads from its node, found from the names it uses.
        self._reads = tuple(
            frozenset(rule.__code__.co_names) & self.saveable if rule is not None else frozenset()
            for rule in self.grads
        )
        self.ever_saved = frozenset().union(*self._reads)  # by some pattern of requires_grad
        # The node's slot for each value it may save.
        self.slots = {f: slot_name(f) for f in sorted(self.ever_saved)}
        self.slot_names = tuple(self.slots.values())
        self.node_cls = node_class(name, self.ever_saved)
        for field in self.saveable:
            add_field(self.node_cls, field)
        self._save_plans: dict[tuple[bool, ...], SavePlan] = {}
        self._slot_plans: dict[tuple[bool, ...], SlotPlan] = {}
        self.formulas = None if formulas is None else tuple(formulas)
        if array_grads is not None and (len(array_grads) != len(grads) or variadic or self._many):
            raise ValueError(f"{name}: array_grads needs one entry per rule, one output")
        self.array_grads = None if array_grads is None else tuple(array_grads)
        # The NumPy function the forward amounts to when its arrays share one float dtype
        # (set by `forwards.binary_forward`, `scaled_binary_forward` for an alpha of 1,
        # and `float_unary_forward`): the common case calls it directly, without the
        # forward's checks (see `lane`).
        self.ufunc: Callable[..., Any] | None = (
            getattr(forward, "ufunc", None) if layout is None and not variadic else None
        )
        declared.add(self)

    def save_plan(self, requires_grad: tuple[bool, ...]) -> SavePlan:
        """What a node saves, given which of its inputs require grad: (index, name) of
        the inputs, then of the outputs, that the rules of those inputs read.

        Each group comes sorted by name, the order PyTorch's generated nodes save in
        (and so the order `saved_tensors_hooks` sees): `mul` packs `other` before
        `self`, `addmm` `mat1` before `mat2`. Cached per pattern (a variadic op's
        pattern is whether any input does).
        """
        key = (any(requires_grad),) if self.variadic else requires_grad
        plan = self._save_plans.get(key)
        if plan is None:
            if self.variadic:
                needed = self._reads[0] if key[0] else frozenset()
            else:
                needed = frozenset().union(
                    *(reads for r, reads in zip(key, self._reads, strict=False) if r)
                )
            plan = self._save_plans[key] = (
                tuple(
                    sorted(((i, n) for i, n in enumerate(self.inputs) if n in needed), key=_name)
                ),
                tuple(
                    sorted(((i, n) for i, n in enumerate(self.outputs) if n in needed), key=_name)
                ),
            )
        return plan

    def slot_plan(self, requires_grad: tuple[bool, ...]) -> SlotPlan:
        """`save_plan` as a node stores it in the common case: (input index, slot) of each
        saved input, the slot of a saved output (None if none; one output), and whether
        it saves anything. Cached per pattern."""
        save_inputs, save_outputs = self.save_plan(requires_grad)
        plan = self._slot_plans[requires_grad] = (
            tuple((i, self.slots[name]) for i, name in save_inputs),
            self.slots[save_outputs[0][1]] if save_outputs else None,
            bool(save_inputs or save_outputs),
        )
        return plan

    def __call__(self, *inputs: Tensor, **params: Any) -> Any:
        if self.ufunc is not None and not _tangents._active:  # the common case: see lane
            if len(inputs) == 1:
                result = lane.unary(self, inputs[0])
            else:
                result = lane.pair(self, inputs[0], inputs[1], params)
            if result is not None:
                return result
        return self.general(inputs, params)

    def general(self, inputs: Sequence[Tensor], params: dict[str, Any]) -> Any:
        """The call without the lane: for every case, and for callers that tried the lane
        already (so a declined ufunc is not run again)."""
        if self.variadic:
            data = self.forward([t._data for t in inputs], **params)
        elif len(inputs) == 1:  # most ops: no list to build
            data = self.forward(inputs[0]._data, **params)
        elif len(inputs) == 2:
            data = self.forward(inputs[0]._data, inputs[1]._data, **params)
        else:
            data = self.forward(*[t._data for t in inputs], **params)
        if self._many:
            return self._finish_many(inputs, params, data)
        if type(data) is not np.ndarray:
            data = np.asarray(data)
        if self.layout is not None:
            data = self.layout(data, *[t._data for t in inputs])  # type: ignore[operator]
        result = Tensor._make(data)
        # Only floating-point results can require grad (`x.long()` leaves the graph).
        if (
            not grad_mode.threads_without_grad or grad_mode._state.grad_enabled
        ) and data.dtype.kind == "f":
            for t in inputs:
                if t._requires_grad:
                    result._requires_grad = True
                    result._grad_fn = self.node_cls(self, inputs, params or _NO_PARAMS, (result,))
                    break
        if self.view and np.may_share_memory(data, inputs[0]._data):
            _track_view(result, inputs[0], self, params)
        if _tangents._active:
            push_forward(self, inputs, params, (result,))
        return result

    def on_arrays(self, *arrays: np.ndarray, **params: Any) -> np.ndarray:
        """The op's result array for input arrays, as a call on tensors computes it (for
        array rules, which reach other ops this way). The caller mutes NumPy's warnings
        (the engine does, while array rules run)."""
        ufunc = self.ufunc
        if ufunc is not None:  # where the ufunc is the forward's whole work (see lane)
            a = arrays[0]
            data = None
            if len(arrays) == 1:
                if a.dtype.kind == "f":
                    data = lane.apply1(ufunc, a)
            elif a.dtype is arrays[1].dtype is params["dt"] and lane.by_ufunc(params):
                data = lane.apply2(ufunc, a, arrays[1])
            if data is not None:
                return data
        data = self.forward(*arrays, **params)
        if type(data) is not np.ndarray:
            data = np.asarray(data)
        if self.layout is not None:
            data = self.layout(data, *arrays)  # type: ignore[operator]
        if not data.size:
            data = with_torch_strides(data)
        return data

    def _finish_many(
        self, inputs: Sequence[Tensor], params: dict[str, Any], data: Sequence[Any]
    ) -> tuple[Tensor, ...]:
        arrays = [np.asarray(d) for d in data]
        layout = self.layout
        if layout is not None:
            given = [t._data for t in inputs]
            each = layout if isinstance(layout, tuple) else (layout,) * len(arrays)
            arrays = [lay(a, *given) for lay, a in zip(each, arrays, strict=True)]
        results = tuple(Tensor._make(a, output_nr=i) for i, a in enumerate(arrays))
        if (
            grad_mode._state.grad_enabled
            and any(t._requires_grad for t in inputs)
            and any(r._data.dtype.kind == "f" for r in results)
        ):
            node = self.node_cls(self, inputs, params, results)
            for r in results:
                if r._data.dtype.kind == "f":
                    r._requires_grad, r._grad_fn = True, node
        if _tangents._active:
            push_forward(self, inputs, params, results)
        return results


def _name(entry: tuple[int, str]) -> str:
    return entry[1]


def _track_view(view: Tensor, source: Tensor, prim: Primitive, params: dict[str, Any]) -> None:
    """Record that `view` aliases `source`, and how to redo the view from the base."""
    counter = view._version_counter = source._version_counter
    if grad_mode._state.grad_enabled:
        if counter.views is None:
            counter.views = []
        elif len(counter.views) >= 64 and len(counter.views) & (len(counter.views) - 1) == 0:
            counter.views = [r for r in counter.views if r() is not None]  # at powers of two
        counter.views.append(weakref.ref(view))
    view._inference = source._inference
    view._base = source._base if source._base is not None else source
    if source._base is not None or not grad_mode._state.grad_enabled:
        mark_view_creation(view, source, prim.name)
    parent = source._view_fn

    def view_fn(base: Tensor) -> Tensor:
        return prim(parent(base) if parent is not None else base, **params)

    view._view_fn = view_fn


def tangents_or_zeros(tangents: Sequence[Tensor | None], inputs: Sequence[Tensor]) -> list[Tensor]:
    """Forward mode's arguments for an op linear in its values: their tangents, or zeros.

    Note: add, sub, where, cat and stack are linear, but not tagged "linear": an
    integer tensor among their values is promoted and moves nothing, where
    "linear" would pass the integers themselves, as it passes an index. Their
    tangent is the op applied to these arguments instead.
    """
    return [
        Tensor._make(np.zeros(t._data.shape, t._data.dtype)) if tan is None else tan
        for t, tan in zip(inputs, tangents, strict=True)
    ]
