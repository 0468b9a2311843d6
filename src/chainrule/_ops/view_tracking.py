"""How views are recorded and remade: the indexing node pair (a view and its scatter
back), the AsStrided node a view gets after an in-place write to its base, and ops that
give several views at once (`MultiView`).

Below the op families: getitem, split and the in-place path all build on it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _strides
from .._autograd import grad_mode, tangents
from .._autograd.node import Node
from .._tensor import Tensor
from .primitive import OpNode, Primitive
from .view_creation import mark_multi_view, mark_view_creation

__all__ = [
    "MultiView",
    "follow_retain_grad",
    "identity_view",
    "index_key",
    "regenerate_view_node",
    "slice_dim",
]


def _index_pair(name: str, view: bool, formula: str) -> Primitive:
    """An indexing op and its gradient op (scatter into zeros); each is the other's rule.

    `formula` says the indexing op's rule (the scatter), as Primitive's `formulas` do."""

    def scatter(g: np.ndarray, key: Any, self_sizes: Any, advanced: bool) -> np.ndarray:
        out = np.zeros(tuple(self_sizes), dtype=g.dtype)
        if advanced:
            np.add.at(out, key, g)  # repeated indices accumulate
        else:
            out[key] = g
        return out

    backward = Primitive(
        name.replace("Backward0", "BackwardBackward0"),
        scatter,
        inputs=("grad",),
        # The gather this rule records keeps the sizes it scatters back into: its own
        # gradient (a third derivative, as in hvp) is this scatter again.
        grads=(lambda g, n: forward(g, key=n.key, self_sizes=n.self_sizes, advanced=n.advanced),),
        formulas=("grad{key}",),
        tangent="linear",
    )
    forward = Primitive(
        name,
        # The trailing `...` keeps an integer-only index a 0-d view, not a NumPy scalar copy.
        (lambda a, key, **_: a[(*key, Ellipsis)]) if view else (lambda a, key, **_: a[key]),
        grads=(lambda g, n: backward(g, key=n.key, self_sizes=n.self_sizes, advanced=n.advanced),),
        formulas=(formula,),
        view=view,
        tangent="linear",
        layout=None if view else _strides.contiguous_array,
    )
    return forward


_select = _index_pair(
    "SelectBackward0", view=True, formula="zeros of shape {in_shape} with grad at self{key}"
)
_slice = _index_pair(
    "SliceBackward0", view=True, formula="zeros of shape {in_shape} with grad at self{key}"
)
_index = _index_pair(
    "IndexBackward0", view=False, formula="zeros of shape {in_shape} with grad added at self{key}"
)
# `x[...]`, `x[()]`, `x[:, :]`: an index that keeps everything is an alias (a plain view).
# Its tangent is the input's tangent itself, as PyTorch's.
_alias = Primitive(
    "AliasBackward0",
    lambda a: a.view(),
    grads=(lambda g, n: g,),
    formulas=("1",),
    view=True,
    tangent=lambda tangents, primals: tangents[0],
)
# The grad_fn a view gets after an in-place write to its base (or another view of it):
# a gather of the view's elements from the base, whatever views made it.
_as_strided = _index_pair(
    "AsStridedBackward0",
    view=False,
    formula="zeros of the base's shape with grad added where the view was",
)


def regenerate_view_node(view: Tensor) -> None:
    """Make `view`'s grad_fn take its elements from its base's current place in the graph."""
    base, view_fn = view._base, view._view_fn
    assert base is not None and view_fn is not None
    # laid out as the base is, for views by strides (as_strided) to read the same places
    positions = Tensor._make(
        _strides.copy(
            np.arange(base._data.size).reshape(base._data.shape), _strides.preserving(base._data)
        )
    )
    with grad_mode.no_grad(), tangents._no_push():
        key = np.unravel_index(view_fn(positions)._data, base._data.shape)
    with grad_mode.enable_grad(), tangents._no_push():
        node = _as_strided(base, key=key, self_sizes=base.shape, advanced=True)._grad_fn
    old = view._grad_fn, view._output_nr
    view._grad_fn, view._output_nr, view._requires_grad = node, 0, True
    follow_retain_grad(view, *old)


def follow_retain_grad(t: Tensor, old_node: Node | None, old_nr: int) -> None:
    """`t` was written in place and has a new grad_fn: a `retain_grad` moves with it (as in
    PyTorch; the hooks `register_hook` put on the old grad_fn stay there)."""
    if not t._retains_grad or t._grad_fn is None or t._grad_fn is old_node:
        return
    if old_node is not None and old_node._retained:
        ref = old_node._retained.get(old_nr)
        if ref is not None and ref() is t:
            del old_node._retained[old_nr]
    t._grad_fn._retain_grad(t._output_nr, t)


# The primal `forward_ad.unpack_dual` gives back: an alias named as PyTorch names it.
_identity = Primitive(
    "Identity", lambda a: a.view(), grads=(lambda g, n: g,), formulas=("1",), view=True
)


def identity_view(t: Tensor) -> Tensor:
    """A view of all of `t` whose grad_fn is `Identity`."""
    return _identity(t)


def index_key(index: Any) -> tuple[Any, ...]:
    """An index as a tuple NumPy understands (tensors become arrays)."""
    items = index if isinstance(index, tuple) else (index,)
    out = []
    for item in items:
        if isinstance(item, Tensor):
            if item._data.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(item._data)
        elif isinstance(item, list):
            arr = np.asarray([i._data if isinstance(i, Tensor) else i for i in item])
            if arr.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(arr)
        elif isinstance(item, bool | np.bool_):
            out.append(np.asarray(item))
        else:
            out.append(item)
    return tuple(out)


def slice_dim(input: Tensor, dim: int, start: int, stop: int) -> Tensor:
    """`input[..., start:stop, ...]` at a wrapped `dim`: always a SliceBackward0 view (narrow)."""
    key = (*(slice(None),) * dim, slice(start, stop))
    return _slice(input, key=key, self_sizes=input._data.shape, advanced=False)


# --- several views at once ---------------------------------------------------------------

MultiRule = Callable[[tuple[Tensor, ...], OpNode], Tensor]


class MultiView:
    """An op returning several views of its input (unbind, split) from one node.

    Its grad_fn is shared by all outputs, and its rule gets the tuple of their
    gradients (zeros for outputs that received none). A Primitive has a fixed
    number of outputs, so one is made per count. Each view made in grad mode is
    marked (`view_creation.mark_multi_view`): PyTorch forbids modifying these views in
    place where a gradient is recorded, and using them once their memory was written
    (`view_errors`). In forward mode, the outputs' tangents are the same views of the
    input's tangent. `formula` says the rule, as Primitive's `formulas` do.
    """

    def __init__(
        self,
        name: str,
        forward: Callable[..., tuple[np.ndarray, ...]],
        rule: MultiRule,
        formula: str,
    ):
        self.name, self.forward, self.rule = name, forward, rule
        self.formula = formula
        self._prims: dict[int, Primitive] = {}

    def _prim(self, count: int) -> Primitive:
        prim = self._prims.get(count)
        if prim is None:
            forward, rule = self.forward, self.rule
            # One Primitive(...) line for every count, so the name has one declaration site
            # (tests/test_node_names.py) whichever counts a program happens to use first.
            # A one-output Primitive gets and gives a lone array and gradient.
            single = count == 1
            prim = Primitive(
                self.name,
                (lambda a, **params: forward(a, **params)[0]) if single else forward,
                # The rule gets a tuple of gradients, which the Rule type does not spell.
                grads=((lambda g, n: rule((g,), n)) if single else rule,),  # type: ignore[arg-type]
                formulas=(self.formula,),
                view=True,  # its outputs' tangents are views of the input's, too
                outputs=("result",) if single else tuple(f"result{i}" for i in range(count)),
                tangent=None if single else self._tangents,
            )
            self._prims[count] = prim
        return prim

    def _tangents(self, tangents: list[Tensor | None], primals: Any) -> tuple[Tensor, ...]:
        """Forward mode: the same views of the input's tangent, tracked as views (one
        output alone is a plain view op, which the Primitive tracks itself)."""
        (tangent,) = tangents
        assert tangent is not None  # an op of one input runs this only when it has one
        return self(tangent, len(primals._results), **primals._params)

    def __call__(self, input: Tensor, count: int, **params: Any) -> tuple[Tensor, ...]:
        if count == 0:
            return ()
        prim = self._prim(count)
        results: tuple[Tensor, ...]
        if count == 1:
            results = (prim(input, **params),)
        else:
            results = prim(input, **params)
            for i, r in enumerate(results):
                if np.may_share_memory(r._data, input._data):
                    _track_output_view(r, input, prim, params, i)
        for r in results:
            if r._base is not None:
                mark_multi_view(r, self.name)
        return results


def _track_output_view(
    view: Tensor, source: Tensor, prim: Primitive, params: dict[str, Any], i: int
) -> None:
    """Record that output `i` of a MultiView aliases `source` (as Primitive does for one)."""
    counter = view._version_counter = source._version_counter
    if grad_mode._state.grad_enabled:  # so that a write to its memory reaches it
        if counter.views is None:
            counter.views = []
        counter.views.append(weakref.ref(view))
    view._base = source._base if source._base is not None else source
    if source._base is not None or not grad_mode.is_grad_enabled():
        mark_view_creation(view, source, prim.name)
    parent = source._view_fn

    def view_fn(base: Tensor) -> Tensor:
        return prim(parent(base) if parent is not None else base, **params)[i]

    view._view_fn = view_fn
