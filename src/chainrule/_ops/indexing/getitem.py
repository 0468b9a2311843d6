"""Reading with `x[index]` (views for basic indexing, copies for advanced), and ops that
give several views at once (`unbind` here, `split` and `chunk` in rearrange_split).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._autograd import grad_mode, tangents
from ..._tensor import Tensor
from ..primitive import OpNode, Primitive, tensor_method, wrap_dim
from ..shape.views import stack

__all__ = ["MultiView", "getitem", "index_key", "select", "slice_dim", "unbind"]


def _index_pair(name: str, view: bool) -> Primitive:
    """An indexing op and its gradient op (scatter into zeros); each is the other's rule."""

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
        grads=(lambda g, n: forward(g, key=n.key, self_sizes=None, advanced=n.advanced),),
        tangent="linear",
    )
    forward = Primitive(
        name,
        # The trailing `...` keeps an integer-only index a 0-d view, not a NumPy scalar copy.
        (lambda a, key, **_: a[(*key, Ellipsis)]) if view else (lambda a, key, **_: a[key]),
        grads=(lambda g, n: backward(g, key=n.key, self_sizes=n.self_sizes, advanced=n.advanced),),
        view=view,
        tangent="linear",
    )
    return forward


_select = _index_pair("SelectBackward0", view=True)
_slice = _index_pair("SliceBackward0", view=True)
_index = _index_pair("IndexBackward0", view=False)
# `x[...]`, `x[()]`, `x[:, :]`: an index that keeps everything is an alias (a plain view).
_alias = Primitive("AliasBackward0", lambda a: a.view(), grads=(lambda g, n: g,), view=True)
# The grad_fn a view gets after an in-place write to its base (or another view of it):
# a gather of the view's elements from the base, whatever views made it.
_as_strided = _index_pair("AsStridedBackward0", view=False)


def regenerate_view_node(view: Tensor) -> None:
    """Make `view`'s grad_fn take its elements from its base's current place in the graph."""
    base, view_fn = view._base, view._view_fn
    assert base is not None and view_fn is not None
    positions = Tensor._make(np.arange(base._data.size).reshape(base._data.shape))
    with grad_mode.no_grad(), tangents._no_push():
        key = np.unravel_index(view_fn(positions)._data, base._data.shape)
    with grad_mode.enable_grad(), tangents._no_push():
        node = _as_strided(base, key=key, self_sizes=base.shape, advanced=True)._grad_fn
    view._grad_fn, view._output_nr, view._requires_grad = node, 0, True


# The primal `forward_ad.unpack_dual` gives back: an alias named as PyTorch names it.
_identity = Primitive("Identity", lambda a: a.view(), grads=(lambda g, n: g,), view=True)


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


def _check_basic(shape: tuple[int, ...], key: tuple[Any, ...]) -> None:
    """PyTorch's IndexError/ValueError for bad basic indices, before NumPy sees them."""
    dims = sum(1 for k in key if k is not None and k is not Ellipsis)
    if dims > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    d = 0
    for k in key:
        if k is Ellipsis:
            d += len(shape) - dims
            continue
        if k is None:
            continue
        if isinstance(k, slice) and k.step is not None and k.step <= 0:
            raise ValueError("step must be greater than zero")
        if isinstance(k, int | np.integer) and not -shape[d] <= k < shape[d]:
            raise IndexError(f"index {k} is out of bounds for dimension {d} with size {shape[d]}")
        d += 1


def getitem(input: Tensor, index: Any) -> Tensor:
    """`input[index]`: basic indexing gives views (Select/Slice/Unsqueeze), the rest copies."""
    key = index_key(index)
    if any(isinstance(k, np.ndarray) for k in key):
        try:
            input._data[key]
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None
        return _index(input, key=key, self_sizes=input._data.shape, advanced=True)
    _check_basic(input._data.shape, key)
    # One view op per index item, so the graph reads as PyTorch's does.
    if any(k is Ellipsis for k in key):
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        dims = sum(1 for k in key if k is not None and k is not Ellipsis)
        key = key[:at] + (slice(None),) * (input.ndim - dims) + key[at + 1 :]
    out = input
    d = 0
    sub: tuple[Any, ...]
    for k in key:
        if k is None:
            out = out.unsqueeze(d)
            d += 1
        elif isinstance(k, slice):
            # In a tuple, as in PyTorch, a slice keeping the whole dim records nothing.
            whole = k.indices(out._data.shape[d]) == (0, out._data.shape[d], 1)
            if not (whole and isinstance(index, tuple | type(Ellipsis))):
                sub = (slice(None),) * d + (k,)
                out = _slice(out, key=sub, self_sizes=out.shape, advanced=False)
            d += 1
        else:
            sub = (*(slice(None),) * d, int(k))
            out = _select(out, key=sub, self_sizes=out.shape, advanced=False)
    if out is input:
        out = _alias(input)
    return out


setattr(Tensor, "__getitem__", getitem)


@tensor_method
def select(input: Tensor, dim: int, index: int) -> Tensor:
    d = wrap_dim(dim, input.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {dim}"
        )
    key = (*(slice(None),) * d, int(index))
    return _select(input, key=key, self_sizes=input._data.shape, advanced=False)


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
    number of outputs, so one is made per count. Each view records the forward
    that made it (`Split`, `Unbind`) as `_multi_view`, for the in-place check:
    PyTorch forbids modifying these views in place where a gradient is recorded.
    """

    def __init__(self, name: str, forward: Callable[..., tuple[np.ndarray, ...]], rule: MultiRule):
        self.name, self.forward, self.rule = name, forward, rule
        self._prims: dict[int, Primitive] = {}

    def _prim(self, count: int) -> Primitive:
        prim = self._prims.get(count)
        if prim is None:
            forward, rule = self.forward, self.rule
            if count == 1:  # a one-output Primitive gets and gives a lone array and gradient
                prim = Primitive(
                    self.name,
                    lambda a, **params: forward(a, **params)[0],
                    grads=(lambda g, n: rule((g,), n),),
                    view=True,
                )
            else:
                names = tuple(f"result{i}" for i in range(count))
                # The rule gets a tuple of gradients, which the Rule type does not spell.
                prim = Primitive(self.name, forward, grads=(rule,), outputs=names, tangent="linear")  # type: ignore[arg-type]
            self._prims[count] = prim
        return prim

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
        creator = self.name.removesuffix("Backward0")
        for r in results:
            if r._base is not None:
                r.__dict__["_multi_view"] = creator
        return results


def _track_output_view(
    view: Tensor, source: Tensor, prim: Primitive, params: dict[str, Any], i: int
) -> None:
    """Record that output `i` of a MultiView aliases `source` (as Primitive does for one)."""
    view._version_counter = source._version_counter
    view._base = source._base if source._base is not None else source
    parent = source._view_fn

    def view_fn(base: Tensor) -> Tensor:
        return prim(parent(base) if parent is not None else base, **params)[i]

    view._view_fn = view_fn


def _unbind_forward(a: np.ndarray, dim: int, **_: Any) -> tuple[np.ndarray, ...]:
    moved = np.moveaxis(a, dim, 0)
    return tuple(moved[i, ...] for i in range(moved.shape[0]))  # `...`: 0-d views, not scalars


_unbind = MultiView("UnbindBackward0", _unbind_forward, lambda grads, n: stack(grads, n.dim))


@tensor_method
def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along `dim`, as views (one UnbindBackward0 node for all)."""
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _unbind(input, input._data.shape[d], dim=d)
