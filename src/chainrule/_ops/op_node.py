"""The grad_fn of a built-in op (OpNode, a subclass per node name) and how its rules
read what it saved: `node.<name>` gives a saved tensor or a parameter.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._autograd import anomaly_mode as _anomaly
from .._autograd import tangents as _tangents
from .._autograd.node import SECOND_BACKWARD_MESSAGE, Node, _sequence, node_watchers
from .._autograd.versions import VersionCounter
from .._backward.engine import validate_grads
from .._backward.saved import RawSavedTensor, SavedTensor, _saved_hooks
from .._tensor import Tensor
from .broadcasting import sum_to_shape

if TYPE_CHECKING:
    from .primitive import Primitive

__all__ = ["NumberOperand", "OpNode", "add_field", "node_class", "slot_name"]

# The dtypes the array rules serve (float16 and bfloat16 go through float32 in the ops).
_ARRAY_DTYPES = frozenset([np.dtype(np.float32), np.dtype(np.float64)])
_FLOAT64 = np.dtype(np.float64)
# The parameters of every node of an op called without any (one dict for all; never changed).
_NO_PARAMS: dict[str, Any] = {}
_NO_EDGE = (None, 0)  # the edge of an input that does not require grad (one shared tuple)
_ONE_KEYS = {False: (False,), True: (True,)}
_TWO_KEYS = {(a, b): (a, b) for a in (False, True) for b in (False, True)}


class NumberOperand:
    """A Python number as the operand of a recorded op (`y * 1.5`), without the 0-d
    tensor PyTorch wraps it in: it shows a node what that tensor would (`_data`, the 0-d
    array of the op's dtype, read-only when shared; no grad, no grad_fn), and a node
    saves that array. A rule or `_saved_other` reading it gets a 0-d tensor of it then
    (see `_unpack`). Only where nothing else would see the operand: no forward-mode
    tangents, no saved-tensor hooks (which see wrapped numbers as PyTorch shows them).
    """

    __slots__ = ("_data",)
    _requires_grad = False
    _grad_fn = None
    _vc = None
    _inference = False

    def __init__(self, value: np.ndarray) -> None:
        self._data = value


class OpNode(Node):
    """The grad_fn of a built-in op. Each op has its own subclass named as PyTorch names it,
    with a slot per value the op may save (see `node_class`).

    Note: a saved value is kept in its slot in one of two forms. The lean form, for
    the common case (no saved-tensor hooks, no forward-mode tangents, one output, a
    plain Tensor never written in place so far): an input as the Tensor itself, the
    node's own output as its array (with the output's version counter in
    `_out_version`), both saved at version 0, and a NumberOperand as its 0-d array
    (an array in an input's slot; the garbage collector does not track arrays). The
    general form is a `SavedTensor` (a list of them for a variadic op). A lean value
    becomes a `SavedTensor` on the first use that needs one (`_saved`, an error
    message, hooks set on it); until then no object is made per saved value.
    """

    __slots__ = ("_holds", "_input_meta", "_out_version", "_output_meta", "_params", "_prim")

    _prim: Primitive
    _params: dict[str, Any]
    _input_meta: tuple[tuple[tuple[int, ...], np.dtype], ...]
    _holds: bool | None

    def __init__(
        self,
        prim: Primitive,
        inputs: Sequence[Tensor],
        params: dict[str, Any],
        results: Sequence[Tensor],
    ) -> None:
        if len(results) > 1 or prim.variadic or _saved_hooks.top is not None or _tangents._active:
            key = self._link(inputs)
            self._prim, self._params, self._rare = prim, params, None
            self._seq = next(_sequence)
            self._holds = (prim._slot_plans.get(key) or prim.slot_plan(key))[2]
            self._output_meta = (
                tuple([(r._data.shape, r._data.dtype) for r in results]) if len(results) > 1 else ()
            )
            self._save_general(prim, inputs, results, *prim.save_plan(key))
        else:
            self._record(prim, inputs, params, results[0])
        if _anomaly._enabled:
            _anomaly.record(self)
        if node_watchers:
            for watch in node_watchers:
                watch(self, results)

    def _record(
        self, prim: Primitive, inputs: Sequence[Tensor], params: dict[str, Any], result: Tensor
    ) -> None:
        """The node of `result = prim(*inputs)` in the common case, saved in the lean form:
        one output, no saved-tensor hooks, no forward-mode tangents (the caller knows).
        `_ops.lane` sets the edges itself and calls `_fill`."""
        self._fill(prim, self._link(inputs), inputs, params, result)

    def _fill(
        self,
        prim: Primitive,
        key: tuple[bool, ...],
        inputs: Sequence[Tensor],
        params: dict[str, Any],
        result: Tensor,
    ) -> None:
        """`_record` after the edges: `key` says which inputs require grad."""
        self._seq = next(_sequence)
        self._rare = None
        self._prim = prim
        self._params = params
        self._output_meta = ()
        # The cached plan, read directly; slot_plan makes it on a miss.
        input_slots, output_slot, holds = prim._slot_plans.get(key) or prim.slot_plan(key)
        # True: holds saved values; False: saved none; None: freed by a backward.
        self._holds = holds
        if holds:
            for i, slot in input_slots:
                t = inputs[i]
                counter = t._vc
                if (
                    t._inference
                    or (counter is not None and counter.value)
                    or type(t) is not Tensor  # a Parameter or another subclass
                ):
                    if type(t) is NumberOperand:  # saved as its 0-d array
                        setattr(self, slot, t._data)
                    else:
                        # (SavedTensor raises for an inference tensor, as PyTorch does.)
                        setattr(self, slot, SavedTensor(t))
                else:
                    setattr(self, slot, t)
            if output_slot is not None:
                # (`result` is new: its version counter is made here, at version 0)
                self._out_version = result._vc = VersionCounter()
                setattr(self, output_slot, result._data)

    def _link(self, inputs: Sequence[Tensor]) -> tuple[bool, ...]:
        """Set the edges to the inputs and their metadata; returns which require grad.
        (One or two inputs are the common cases, spelled out: a third faster than the loop.)"""
        n = len(inputs)
        if n == 1:
            t = inputs[0]
            if t._grad_fn is not None:
                self._next = (t._grad_fn, t._output_nr)  # _gradient_edge, inline
            else:
                self._next = t._gradient_edge() if t._requires_grad else _NO_EDGE
            d = t._data
            self._input_meta = _shared_meta((d.shape, d.dtype))
            return _ONE_KEYS[t._requires_grad]
        if n == 2:
            a, b = inputs
            fa: Node | None
            fb: Node | None
            if a._grad_fn is not None:
                fa, na = a._grad_fn, a._output_nr  # _gradient_edge, inline
            else:
                fa, na = a._gradient_edge() if a._requires_grad else _NO_EDGE
            if b._grad_fn is not None:
                fb, nb = b._grad_fn, b._output_nr
            else:
                fb, nb = b._gradient_edge() if b._requires_grad else _NO_EDGE
            self._next = (fa, na, fb, nb)
            da, db = a._data, b._data
            self._input_meta = _shared_meta((da.shape, da.dtype, db.shape, db.dtype))
            return _TWO_KEYS[a._requires_grad, b._requires_grad]
        edges: list[Any] = []
        meta, flags = [], []
        for t in inputs:
            flags.append(t._requires_grad)
            if t._grad_fn is not None:
                edges += (t._grad_fn, t._output_nr)  # _gradient_edge, inline
            else:
                edges += t._gradient_edge() if t._requires_grad else _NO_EDGE
            meta.append((t._data.shape, t._data.dtype))
        self._next, self._input_meta = tuple(edges), tuple(meta)
        return tuple(flags)

    def _save_general(
        self,
        prim: Primitive,
        inputs: Sequence[Tensor],
        results: Sequence[Tensor],
        save_inputs: tuple[tuple[int, str], ...],
        save_outputs: tuple[tuple[int, str], ...],
    ) -> None:
        """Save as SavedTensors (the general form): under saved-tensor hooks (which see
        them in this order), with forward-mode tangents, for variadic and multi-output ops."""
        slots = prim.slots
        if prim.variadic:
            # All the tensors of a variadic op are saved under its one input name.
            if save_inputs:
                setattr(self, slots[prim.inputs[0]], [SavedTensor(t) for t in inputs])
        else:
            for i, name in save_inputs:
                setattr(self, slots[name], SavedTensor(inputs[i]))
        for i, name in save_outputs:
            r = results[i]
            if _saved_hooks.top is not None and r._data.dtype.kind == "f":
                # Wired now (the caller does the same next) so pack hooks see the grad_fn.
                r._requires_grad, r._grad_fn = True, self
            setattr(self, slots[name], SavedTensor(r, is_output=True))

    def _stored(self, name: str) -> Any:
        """What the slot of saved value `name` holds (None: not saved, or freed)."""
        slot = self._prim.slots.get(name)
        return None if slot is None else getattr(self, slot, None)

    def _general(self, name: str) -> Any:
        """Saved value `name` in the general form (a lean one is converted, in its slot)."""
        value = self._stored(name)
        kind = type(value)
        if kind is np.ndarray:
            if name in self._prim.inputs:  # a number operand: its 0-d tensor, from now on
                t = Tensor._make(value.copy())  # (its own: NumberOperands are shared)
                value = SavedTensor.kept(t, None, t._version_counter, False, 0)
            else:
                value = SavedTensor.kept(None, value, self._out_version, True, 0)
        elif isinstance(value, Tensor):  # (its class may have been retagged since)
            value = SavedTensor.kept(value, None, value._version_counter, False, 0)
        else:
            return value
        setattr(self, self._prim.slots[name], value)
        return value

    @property
    def _saved(self) -> dict[str, Any] | None:
        """The saved values by name, in the general form; None once a backward freed them."""
        if self._holds is None:
            return None
        saved = {}
        for name in self._prim.slots:
            value = self._general(name)
            if value is not None:
                saved[name] = value
        return saved

    def _saved_names(self) -> set[str] | None:
        """The names of the saved values (None once freed), without converting them."""
        if self._holds is None:
            return None
        return {name for name in self._prim.slots if self._stored(name) is not None}

    def _unpack(self, name: str, value: Any) -> Any:
        """A saved value as the rules see it: a tensor, or a variadic op's tuple of them."""
        kind = type(value)
        if kind is SavedTensor:
            return value.unpack(self)
        if kind is np.ndarray:  # lean: this node's own output, saved at version 0
            if name in self._prim.inputs:  # no: a number operand (one tensor from now on)
                return self._general(name).unpack(self)
            if not self._out_version.value:
                if value.dtype.kind != "f":  # integer outputs (indices) are outside the graph
                    return Tensor._make(value)
                return Tensor._make(value, True, self, 0)
        elif kind is list:
            return tuple([s.unpack(self) for s in value])
        else:  # lean: an input saved at version 0 (a Tensor, or a subclass it became since)
            counter = value._vc
            if counter is None or not counter.value:
                return value
        return self._general(name).unpack(self)  # written in place since: its error

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails: parameters, then saved tensors.
        key = name[7:] if name.startswith("_saved_") else name
        try:
            holds = object.__getattribute__(self, "_holds")
            params = object.__getattribute__(self, "_params")
        except AttributeError:
            raise AttributeError(name) from None
        if name.startswith("_raw_saved_"):
            return self._raw_saved(name[11:])
        if key in params:
            if key == name:
                add_field(type(self), name)  # the next lookup of this name is direct
            return params[key]
        value = self._stored(key)
        if holds is None:
            if key in self._prim.saveable:
                raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        elif value is not None:
            return self._unpack(key, value)
        elif key != name and key in self._prim.ever_saved:
            return None  # `_saved_self` of an input this node had no need to save, as PyTorch
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _raw_saved(self, key: str) -> RawSavedTensor:
        """`_raw_saved_<key>`: a saved tensor to set hooks on (after a backward has freed
        it, one whose `register_hooks` says so). A variadic op's list has none, as PyTorch."""
        freed = self._holds is None
        value = None if freed else self._general(key)
        if isinstance(value, SavedTensor) or (freed and key in self._prim.saveable):
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
                return [None] * (len(self._next) // 2)
        else:
            grad = grad_outputs[0]
            if grad is None:
                return [None] * (len(self._next) // 2)
        if prim.variadic:
            rule = prim.grads[0]
            assert rule is not None
            wanted = [c is not None for c in self._next[::2]] if needed is None else needed
            return [
                rule(grad, self, i) if w else None  # type: ignore[call-arg]
                for i, w in enumerate(wanted)
            ]
        if prim.one_rule:  # one input, and the node runs only when it wants a gradient
            return [prim.grads[0](grad, self)]  # type: ignore[misc]
        out: list[Tensor | None] = []
        for i, rule in enumerate(prim.grads):
            want = self._next[2 * i] is not None if needed is None else needed[i]
            out.append(rule(grad, self) if want and rule is not None else None)
        return out

    def _apply_arrays(
        self, grad_outputs: list[Any], needed: Sequence[bool] | None
    ) -> list[np.ndarray | None] | None:
        """grad_inputs of a first-order backward as arrays (checked as `validate_grads`
        checks), from grad_outputs as arrays, through the op's array rules (see
        Primitive). None where they do not apply: no array rules, several outputs, or
        a gradient or input of another dtype than the rest (the tensor rules promote
        it) or of half precision."""
        prim = self._prim
        array_rules = prim.array_grads
        if array_rules is None or self._output_meta:
            return None
        g = grad_outputs[0]
        dt = g.dtype
        if dt is not _FLOAT64 and dt not in _ARRAY_DTYPES:
            return None
        meta = self._input_meta
        if prim.one_rule:  # one input: its rule, and the result as it is when it fits
            if meta[0][1] != dt:
                return None
            array_rule = array_rules[0]
            r = array_rule(g, self) if array_rule is not None else None
            if r is not None:
                if type(r) is not np.ndarray:
                    r = np.asarray(r)
                if r.shape == meta[0][0] and r.dtype == dt:
                    return [r]
                return self._fitted([r], dt)
        edges, rules = self._next, prim.grads
        out: list[Any] = [None] * len(meta)
        exact = True  # every gradient has its input's shape and dtype already
        for i, (shape, input_dtype) in enumerate(meta):
            if input_dtype is not dt and input_dtype != dt:
                return None  # (the tensor rules promote it)
            if edges[2 * i] is None or rules[i] is None or (needed is not None and not needed[i]):
                continue  # (no gradient wanted for this input)
            array_rule = array_rules[i]
            r = array_rule(g, self) if array_rule is not None else None
            if r is None:  # a case left to the tensor rule
                t = rules[i](Tensor._make(g), self)  # type: ignore[misc]
                if t is None:
                    continue
                r = t._data
            elif type(r) is not np.ndarray:
                r = np.asarray(r)
            if r.shape != shape or r.dtype != dt:
                exact = False
            out[i] = r
        return out if exact else self._fitted(out, dt)

    def _fitted(self, out: list[Any], dt: np.dtype) -> list[np.ndarray | None]:
        """Array gradients `out` given their inputs' shapes: broadcasting undone here on
        arrays; another dtype, or a gradient that does not fit, left to validate_grads
        (on tensors: it casts, or raises PyTorch's error)."""
        meta = self._input_meta
        for i, r in enumerate(out):
            if r is not None and r.shape != meta[i][0] and r.dtype == dt:
                summed = sum_to_shape(r, meta[i][0])
                if summed is not None:
                    out[i] = r = summed
            if r is not None and (r.shape != meta[i][0] or r.dtype != dt):
                break
        else:
            return out
        checked = validate_grads(self, [None if r is None else Tensor._make(r) for r in out])
        return [None if t is None else t._data for t in checked]

    def _array(self, name: str) -> np.ndarray:
        """A saved tensor's array, for the array rules (checked as `node.<name>` is)."""
        value: Any = getattr(self, self._prim.slots[name], None)
        kind = type(value)
        if kind is SavedTensor:
            return value.array(self)
        if kind is np.ndarray:
            if name in self._prim.inputs or not self._out_version.value:
                return value  # a number operand, or the output at version 0
        elif value is not None:  # lean: an input (a Tensor, or a subclass it became since)
            counter = value._vc
            if counter is None or not counter.value:
                return value._data
        return self.__getattr__(name)._data

    def _release(self) -> None:
        if self._holds:
            self._holds = None
            for slot in self._prim.slot_names:
                setattr(self, slot, None)


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
        slot = node._prim.slots.get(name)
        value = getattr(node, slot, None) if slot is not None else None
        if type(value) is Tensor:  # the common case, without the call
            counter = value._vc
            if counter is None or not counter.value:
                return value
        if value is None:
            return node.__getattr__(name)
        return node._unpack(name, value)


def add_field(cls: type[OpNode], name: str) -> None:
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


# Input metadata tuples, shared by the nodes of inputs of one shapes and dtypes: a
# node then keeps no tuples of its own for them (fewer objects for memory and for the
# garbage collector to walk). Emptied when it grows large (shapes seen once).
_metas: dict[tuple[Any, ...], tuple[tuple[tuple[int, ...], np.dtype], ...]] = {}


def _shared_meta(key: tuple[Any, ...]) -> tuple[tuple[tuple[int, ...], np.dtype], ...]:
    """`((shape, dtype), ...)` for `key` = (shape, dtype, shape, dtype, ...)."""
    meta = _metas.get(key)
    if meta is None:
        if len(_metas) >= 4096:
            _metas.clear()
        meta = _metas[key] = tuple(zip(key[::2], key[1::2], strict=True))
    return meta


_node_classes: dict[str, type[OpNode]] = {}


def node_class(name: str, saveable: Collection[str] = ()) -> type[OpNode]:
    """The OpNode subclass called `name` (one class per name, as PyTorch has), with a slot
    `_keep_<field>` for each value in `saveable` (a subclass of the same name adds
    the slots an earlier class of that name lacks)."""
    cls = _node_classes.get(name)
    slots = tuple(sorted(slot_name(f) for f in saveable))
    if cls is None or not set(slots) <= _slots_of(cls):
        base = OpNode if cls is None else cls
        new = tuple(s for s in slots if cls is None or s not in _slots_of(cls))
        cls = type(name, (base,), {"__slots__": new, "__module__": "chainrule.autograd.graph"})
        _node_classes[name] = cls
    return cls


def slot_name(field: str) -> str:
    return f"_keep_{field}"


def _slots_of(cls: type) -> set[str]:
    return {s for c in cls.__mro__ for s in getattr(c, "__slots__", ())}
