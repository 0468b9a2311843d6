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

from .. import _dtype
from .._autograd import anomaly_mode as _anomaly
from .._autograd import grad_mode
from .._autograd import tangents as _tangents
from .._autograd.node import SECOND_BACKWARD_MESSAGE, Node, _sequence, node_watchers
from .._backward.saved import RawSavedTensor, SavedTensor, _saved_hooks
from .._dims import wrap_dim, wrap_dims
from .._tensor import Tensor
from .declarations import record_declaration
from .forward_mode import push_forward
from .quiet import quiet
from .view_creation import mark_view_creation

__all__ = [
    "Number",
    "OpNode",
    "Primitive",
    "Rule",
    "as_operands",
    "pair_dtype",
    "scalar_tensor",
    "tangents_or_zeros",
    "tracks",
    "wrap_dim",
    "wrap_dims",
]

Rule = Callable[[Tensor, "OpNode"], Tensor | None]
# How a result is laid out in memory: `layout(result, *input_arrays) -> array`.
Layout = Callable[..., np.ndarray]
# A Python or NumPy number, as ops accept one in place of a tensor.
Number = bool | int | float | np.number | np.bool_
# What a node saves: (index, name) of the inputs, then of the outputs (Primitive.save_plan).
SavePlan = tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]


def tracks(t: Tensor) -> bool:
    """Whether an op on `t` must run through its Primitive (not a raw NumPy shortcut):
    `t` requires grad, or carries a forward-mode tangent."""
    return t._requires_grad or (_tangents._active and _tangents.tangent_of(t) is not None)


class OpNode(Node):
    """The grad_fn of a built-in op. Each op has its own subclass named as PyTorch names it."""

    __slots__ = ("_input_meta", "_output_meta", "_params", "_prim", "_saved")

    _prim: Primitive
    _input_meta: tuple[tuple[tuple[int, ...], np.dtype], ...]

    def __init__(
        self,
        prim: Primitive,
        inputs: Sequence[Tensor],
        params: dict[str, Any],
        results: Sequence[Tensor],
    ) -> None:
        # Node.__init__, inlined: this runs once per recorded op (and one input is the
        # common case, spelled out because it is a third faster than the general one).
        if len(inputs) == 1:
            t = inputs[0]
            if t._grad_fn is not None:
                self._next = ((t._grad_fn, t._output_nr),)  # _gradient_edge, inline
            else:
                self._next = (t._gradient_edge() if t._requires_grad else (None, 0),)
            self._input_meta = ((t._data.shape, t._data.dtype),)
            key: tuple[bool, ...] = (t._requires_grad,)
        else:
            edges: list[tuple[Node | None, int]] = []
            meta, flags = [], []
            for t in inputs:
                flags.append(t._requires_grad)
                if t._grad_fn is not None:
                    edges.append((t._grad_fn, t._output_nr))  # _gradient_edge, inline
                else:
                    edges.append(t._gradient_edge() if t._requires_grad else (None, 0))
                meta.append((t._data.shape, t._data.dtype))
            self._next, self._input_meta, key = tuple(edges), tuple(meta), tuple(flags)
        self._seq = next(_sequence)
        self._pre_hooks = self._hooks = self._tensor_pre_hooks = None
        self._retained = self._metadata = None
        if _anomaly._enabled:
            _anomaly.record(self)
        self._prim = prim
        self._params = params
        saved: dict[str, Any] = {}
        # The cached plan, read directly; save_plan makes it on a miss.
        save_inputs, save_outputs = prim._save_plans.get(key) or prim.save_plan(key)
        if prim.variadic:
            # All the tensors of a variadic op are saved under its one input name.
            if save_inputs:
                saved[prim.inputs[0]] = [SavedTensor(t) for t in inputs]
        else:
            for i, name in save_inputs:
                saved[name] = SavedTensor(inputs[i])
        for i, name in save_outputs:
            r = results[i]
            if _saved_hooks.top is not None and r._data.dtype.kind == "f":
                # Wired now (the caller does the same next) so pack hooks see the grad_fn.
                r._requires_grad, r._grad_fn = True, self
            saved[name] = SavedTensor(r, is_output=True)
        self._saved: dict[str, Any] | None = saved
        self._output_meta = (
            tuple([(r._data.shape, r._data.dtype) for r in results]) if len(results) > 1 else ()
        )
        if node_watchers:
            for watch in node_watchers:
                watch(self, results)

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails: parameters, then saved tensors.
        key = name[7:] if name.startswith("_saved_") else name
        try:
            saved = object.__getattribute__(self, "_saved")
            params = object.__getattribute__(self, "_params")
        except AttributeError:
            raise AttributeError(name) from None
        if name.startswith("_raw_saved_"):
            return self._raw_saved(name[11:], saved)
        if key in params:
            if key == name:
                _add_field(type(self), name)  # the next lookup of this name is direct
            return params[key]
        if saved is None:
            if key in self._prim.saveable:
                raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        elif key in saved:
            return _unpack(saved[key], self)
        elif key != name and key in self._prim.ever_saved:
            return None  # `_saved_self` of an input this node had no need to save, as PyTorch
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _raw_saved(self, key: str, saved: dict[str, Any] | None) -> RawSavedTensor:
        """`_raw_saved_<key>`: a saved tensor to set hooks on (after a backward has freed
        it, one whose `register_hooks` says so). A variadic op's list has none, as PyTorch."""
        value = saved.get(key) if saved is not None else None
        if isinstance(value, SavedTensor) or (saved is None and key in self._prim.saveable):
            return RawSavedTensor(self, value)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '_raw_saved_{key}'")

    def _apply(
        self, grad_outputs: list[Tensor | None], needed: Sequence[bool] | None = None
    ) -> list[Tensor | None]:
        """grad_inputs; `needed[i]` False skips input i's rule (its gradient is not wanted)."""
        prim = self._prim
        if self._output_meta:
            grad: Any = _materialize(grad_outputs, self._output_meta)
            if grad is None:
                return [None] * len(self._next)
        else:
            grad = grad_outputs[0]
            if grad is None:
                return [None] * len(self._next)
        if prim.variadic:
            rule = prim.grads[0]
            assert rule is not None
            wanted = [e[0] is not None for e in self._next] if needed is None else needed
            return [
                rule(grad, self, i) if w else None  # type: ignore[call-arg]
                for i, w in enumerate(wanted)
            ]
        if prim.one_rule:  # one input, and the node runs only when it wants a gradient
            return [prim.grads[0](grad, self)]  # type: ignore[misc]
        out: list[Tensor | None] = []
        for i, rule in enumerate(prim.grads):
            want = self._next[i][0] is not None if needed is None else needed[i]
            out.append(rule(grad, self) if want and rule is not None else None)
        return out

    def _release(self) -> None:
        if self._saved:
            self._saved = None


class _Field:
    """`node.<name>` for a parameter or saved value: the fast way in for rules.

    Without it every such read first fails the normal lookup and then falls back to
    `OpNode.__getattr__`; a class attribute is found at once. Misses (a value
    another node of the class does not have, a freed graph) still end in
    `__getattr__`, which raises the right error.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, node: OpNode | None, owner: type | None = None) -> Any:
        if node is None:
            return self
        name = self.name
        params = node._params
        if name in params:
            return params[name]
        saved = node._saved
        value = saved.get(name) if saved is not None else None
        if type(value) is SavedTensor:  # the common case, without _unpack's call
            return value.unpack(node)
        if value is None:
            return node.__getattr__(name)
        return _unpack(value, node)


def _unpack(value: SavedTensor | list[SavedTensor], node: OpNode) -> Any:
    """A saved value as the rules see it: a tensor, or a variadic op's tuple of them."""
    if isinstance(value, list):
        return tuple([s.unpack(node) for s in value])
    return value.unpack(node)


def _add_field(cls: type[OpNode], name: str) -> None:
    if not hasattr(cls, name):  # never shadow a Node attribute or method
        setattr(cls, name, _Field(name))


def _materialize(
    grads: list[Tensor | None], meta: tuple[tuple[Any, np.dtype], ...]
) -> tuple[Tensor | None, ...] | None:
    """All grad_outputs of a multi-output node, zeros for the missing ones (None if all are)."""
    if all(g is None for g in grads):
        return None
    grads = list(grads) + [None] * (len(meta) - len(grads))
    return tuple(
        g
        if g is not None or dtype.kind != "f"  # integer outputs get no gradient
        else Tensor._make(np.zeros(shape, dtype))
        for g, (shape, dtype) in zip(grads, meta, strict=True)
    )


_node_classes: dict[str, type[OpNode]] = {}
declared: weakref.WeakSet[Primitive] = weakref.WeakSet()  # every Primitive made, for tools


def node_class(name: str) -> type[OpNode]:
    """The OpNode subclass called `name` (one class per name, as PyTorch has)."""
    cls = _node_classes.get(name)
    if cls is None:
        cls = type(name, (OpNode,), {"__slots__": (), "__module__": "chainrule.autograd.graph"})
        _node_classes[name] = cls
    return cls


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
        self.node_cls = node_class(name)
        self.saveable = frozenset((*self.inputs, *self.outputs))
        for field in self.saveable:
            _add_field(self.node_cls, field)
        # What each rule reads from its node, found from the names it uses.
        self._reads = tuple(
            frozenset(rule.__code__.co_names) & self.saveable if rule is not None else frozenset()
            for rule in self.grads
        )
        self.ever_saved = frozenset().union(*self._reads)  # by some pattern of requires_grad
        self._save_plans: dict[tuple[bool, ...], SavePlan] = {}
        self.formulas = None if formulas is None else tuple(formulas)
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

    def __call__(self, *inputs: Tensor, **params: Any) -> Any:
        if self.variadic:
            data = self.forward([t._data for t in inputs], **params)
        elif len(inputs) == 1:  # most ops: no list to build
            data = self.forward(inputs[0]._data, **params)
        elif len(inputs) == 2:
            a, b = inputs
            data = self.forward(a._data, b._data, **params)
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
        if grad_mode._state.grad_enabled and data.dtype.kind == "f":
            for t in inputs:
                if t._requires_grad:
                    result._requires_grad = True
                    result._grad_fn = self.node_cls(self, inputs, params, (result,))
                    break
        if self.view and np.may_share_memory(data, inputs[0]._data):
            _track_view(result, inputs[0], self, params)
        if _tangents._active:
            push_forward(self, inputs, params, (result,))
        return result

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


def scalar_tensor(value: Any, dtype: _dtype.dtype) -> Tensor:
    """A Python number as a 0-d tensor of `dtype` (it never requires grad).

    PyTorch calls such a tensor a wrapped number and gives it to no pack hook when a
    node saves it: under `saved_tensors_hooks` it is marked so (see SavedTensor)."""
    t = Tensor._make(_scalar_array(value, dtype.np))
    if _saved_hooks.top is not None:
        t.__dict__["_wrapped_number"] = True
    return t


def _scalar_array(value: Any, np_dtype: np.dtype) -> np.ndarray:
    """A Python number as a 0-d array; an int out of the dtype's range wraps, as in PyTorch."""
    try:
        return np.asarray(value, dtype=np_dtype)
    except OverflowError:
        return np.asarray(value).astype(np_dtype)


def as_operands(*values: Any) -> tuple[_dtype.dtype, list[Tensor]]:
    """Tensors and Python numbers as tensors of one promoted dtype, and that dtype: the
    one way an op promotes its operands.

    Python numbers become 0-d tensors of the result dtype (see `_number`); tensors
    keep their own dtype (the op casts its arrays, so the graph shows no conversion node).
    """
    if len(values) == 2:
        fast = _same_kind_pair(*values)
        if fast is not None:
            return fast
    for v in values:
        if not isinstance(v, Tensor | bool | int | float | np.number | np.bool_):
            raise TypeError(f"expected Tensor or Number as argument, but got {type(v).__name__}")
    for v in values:
        _check_int(v)
    dt = _dtype.result_type(*values)
    return dt, [v if isinstance(v, Tensor) else _number(v, dt) for v in values]


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _check_int(value: Any) -> None:
    """PyTorch's OverflowError for a Python int no int64 holds."""
    if type(value) is int and not _INT64_MIN <= value <= _INT64_MAX:
        raise OverflowError("int too big to convert")


def _number(value: Any, dt: _dtype.dtype) -> Tensor:
    """A Python number operand as a 0-d tensor of `dt`; a float too large for it is inf,
    quietly, as in PyTorch (1e300 beside a float32 tensor)."""
    if type(value) is float and not -65504.0 <= value <= 65504.0:  # past float16's range
        return quiet(scalar_tensor, value, dt)
    return scalar_tensor(value, dt)


# The tensor kinds that keep their dtype when combined with a Python number of a type.
_SCALAR_KINDS = {bool: "biuf", int: "iuf", float: "f"}


def pair_dtype(a: Any, b: Any) -> _dtype.dtype | None:
    """The result dtype of `a op b` in the common cases, or None for the full rules.

    Two tensors of one dtype, or a tensor and a Python number its dtype already
    holds (a float tensor and an int or float, an int tensor and an int).
    """
    if type(a) is not Tensor:
        return None
    ad = a._data.dtype
    if type(b) is Tensor:
        bd = b._data.dtype
        return _dtype.from_numpy_dtype(ad) if bd is ad or bd == ad else None
    kinds = _SCALAR_KINDS.get(type(b))
    if kinds is None or ad.kind not in kinds:
        return None
    return _dtype.from_numpy_dtype(ad)


def _same_kind_pair(a: Any, b: Any) -> tuple[_dtype.dtype, list[Tensor]] | None:
    """`as_operands` for the cases `pair_dtype` knows."""
    dt = pair_dtype(a, b)
    if dt is None:
        return None
    kind = type(b)
    if kind is Tensor:
        return dt, [a, b]
    # _check_int and _number, spelled out for the common case: a small int or float.
    if kind is int and not _INT64_MIN <= b <= _INT64_MAX:
        raise OverflowError("int too big to convert")
    if kind is float and not -65504.0 <= b <= 65504.0:
        return dt, [a, quiet(scalar_tensor, b, dt)]
    return dt, [a, scalar_tensor(b, dt)]


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
