"""The grad_fn of a built-in op (OpNode, a subclass per node name) and how its rules
read what it saved: `node.<name>` gives a saved tensor or a parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._autograd import anomaly_mode as _anomaly
from .._autograd.node import SECOND_BACKWARD_MESSAGE, Node, _sequence, node_watchers
from .._backward.engine import validate_grads
from .._backward.saved import RawSavedTensor, SavedTensor, _saved_hooks
from .._tensor import Tensor

if TYPE_CHECKING:
    from .primitive import Primitive

__all__ = ["OpNode", "add_field", "node_class"]

# The dtypes the array rules serve (float16 and bfloat16 go through float32 in the ops).
_ARRAY_DTYPES = frozenset([np.dtype(np.float32), np.dtype(np.float64)])


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
                add_field(type(self), name)  # the next lookup of this name is direct
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
        if dt not in _ARRAY_DTYPES:
            return None
        for _, input_dtype in self._input_meta:
            if input_dtype != dt:
                return None
        out: list[Any] = []
        exact = True  # every gradient has its input's shape and dtype already
        for i, rule in enumerate(prim.grads):
            if rule is None or not (self._next[i][0] is not None if needed is None else needed[i]):
                out.append(None)
                continue
            array_rule = array_rules[i]
            r = array_rule(g, self) if array_rule is not None else None
            if r is None:  # a case left to the tensor rule
                t = rule(Tensor._make(g), self)
                r = None if t is None else t._data
            elif type(r) is not np.ndarray:
                r = np.asarray(r)
            if r is not None and (r.shape != self._input_meta[i][0] or r.dtype != dt):
                exact = False
            out.append(r)
        if exact:
            return out
        # Broadcasting (or a dtype) to undo: validate_grads does it, on tensors.
        checked = validate_grads(self, [None if r is None else Tensor._make(r) for r in out])
        return [None if t is None else t._data for t in checked]

    def _array(self, name: str) -> np.ndarray:
        """A saved tensor's array, for the array rules (checked as `node.<name>` is)."""
        saved = self._saved
        value = saved.get(name) if saved is not None else None
        if type(value) is SavedTensor:
            return value.array(self)
        return self.__getattr__(name)._data

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


_node_classes: dict[str, type[OpNode]] = {}


def node_class(name: str) -> type[OpNode]:
    """The OpNode subclass called `name` (one class per name, as PyTorch has)."""
    cls = _node_classes.get(name)
    if cls is None:
        cls = type(name, (OpNode,), {"__slots__": (), "__module__": "chainrule.autograd.graph"})
        _node_classes[name] = cls
    return cls
