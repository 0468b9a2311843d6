"""In-place ops (`add_`, `x[i] = v`, `+=`, ...): write into memory, then rebase the graph.

Note: an in-place op is computed out of place on an alias that carries the
tensor's old value and graph position, and the result is written back. The
tensor (or, for a view, its base through a `CopySlices` node) then takes the
result's place in the graph, and its version counter is bumped so nodes that
saved the old value refuse to use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._autograd import grad_mode
from .._autograd import tangents as _tangents
from .._creation import zeros_like
from .._tensor import Tensor
from .elementwise.arithmetic import add, div, mul, sub
from .indexing.getitem import index_key, regenerate_view_node
from .primitive import Primitive, as_operands, tensor_method

__all__ = ["apply_inplace", "setitem"]

_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
_LEAF_VIEW_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def _check_multi_view(t: Tensor, records: bool) -> None:
    """Views from unbind/split share one node, which can't be rebased for just one of them.

    `records`: whether the in-place op would record a gradient into a view that has none.
    """
    creator = t.__dict__.get("_multi_view") if t._base is not None else None
    if creator is None:
        return
    if t._grad_fn is not None:
        what = f"Output {t._output_nr} of {creator} is a view and is being modified inplace."
    elif records:
        what = (
            "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled."
        )
    else:
        return
    raise RuntimeError(
        f"{what} This view is the output of a function that returns multiple views. Such "
        "functions do not allow the output views to be modified inplace. You should replace "
        "the inplace operation by an out-of-place one."
    )


def _check_writable(t: Tensor) -> None:
    inference = t._inference or (t._base is not None and t._base._inference)
    if inference and not grad_mode._state.inference:
        raise RuntimeError(grad_mode._INFERENCE_WRITE)
    if not grad_mode.is_grad_enabled():
        return
    _check_multi_view(t, records=False)
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError(_LEAF_INPLACE)
    base = t._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError(_LEAF_VIEW_INPLACE)


def _check_castable(t: Tensor, new: np.ndarray) -> None:
    src, dst = new.dtype, t._data.dtype
    if (src.kind == "f" and dst.kind in "iub") or (src.kind in "iu" and dst.kind == "b"):
        names = {"f": "Float", "i": "Long", "u": "Byte", "b": "Bool"}
        raise RuntimeError(
            f"result type {_scalar_name(src)} can't be cast to the desired output type "
            f"{_scalar_name(dst) if dst.kind != 'b' else names['b']}"
        )


def _scalar_name(d: np.dtype) -> str:
    return _dtype.scalar_name(d)


_copy_slices = Primitive(
    "CopySlices",
    lambda base, src, **_: base,
    inputs=("self", "src"),
    grads=(lambda g, n: g * n.keep, lambda g, n: n.region(g)),
)
# `t[arrays] = v` with no view taken first writes into `t` itself (PyTorch's index_put_).
_index_put = Primitive(
    "IndexPutBackward0",
    lambda base, src, **_: base,
    inputs=("self", "values"),
    grads=_copy_slices.grads,
)


def _puts_in_place(key: tuple[Any, ...]) -> bool:
    """Advanced indices, and otherwise only whole dims (`:` or `...`): no view is taken."""
    return any(isinstance(k, np.ndarray) for k in key) and all(
        isinstance(k, np.ndarray) or k is Ellipsis or k == slice(None) for k in key
    )


def _rebase(t: Tensor, new: Tensor) -> None:
    """Make `t` (already holding `new`'s values) take `new`'s place in the graph."""
    if t._base is None:
        t._grad_fn, t._output_nr = new._grad_fn, new._output_nr
        t._requires_grad = t._requires_grad or new._requires_grad
        return
    base, view_fn = t._base, t._view_fn
    assert view_fn is not None
    keep = np.ones(base._data.shape, dtype=base._data.dtype)
    view_fn(Tensor._make(keep))._data[...] = 0
    _into_base(base, new, lambda b: view_fn(b), keep)  # `t`'s own node: see bump_version


def _into_base(
    base: Tensor,
    src: Tensor,
    region: Callable[[Tensor], Tensor],
    keep: Any,
    prim: Primitive = _copy_slices,
) -> None:
    """Record that `region` of `base` now holds `src` (a `CopySlices` node on the base)."""
    alias = Tensor._make(base._data, base._requires_grad, base._grad_fn, base._output_nr)
    alias._accumulator = base._accumulator
    out = prim(alias, src, region=region, keep=Tensor._make(keep))
    base._grad_fn, base._output_nr = out._grad_fn, 0
    base._requires_grad = True


def apply_inplace(t: Tensor, compute: Callable[[Tensor], Tensor]) -> Tensor:
    """Run `compute` on `t`'s current value and write the result into `t` (see the Note)."""
    _check_writable(t)
    if not grad_mode.is_grad_enabled():
        new = compute(t)
        _check_castable(t, new._data)
        t._data[...] = new._data
        _update_tangent(t, new, ...)
        bump_version(t)
        return t
    old = Tensor._make(t._data.copy(), t._requires_grad, t._grad_fn, t._output_nr)
    if _tangents._active and (tangent := _tangents.tangent_of(t)) is not None:
        # A copy: `t`'s tangent is about to be overwritten, and nodes may save `old`.
        _tangents.set_tangent(old, _tangents._without_push(tangent.clone))
    new = compute(old)
    _check_castable(t, new._data)
    if new._requires_grad:
        _check_multi_view(t, records=True)
    t._data[...] = new._data
    _update_tangent(t, new, ...)
    if new._requires_grad or t._requires_grad:
        _rebase(t, new)
    bump_version(t)
    return t


def bump_version(t: Tensor) -> None:
    """Count an in-place write to `t`, and remake the grad_fn of every view of its memory.

    Note: a view's node takes its values from the base as they were when the view was
    made; after a write through the base or any view, each view (the written one too)
    gets an `AsStridedBackward0` node on the base's new place in the graph, as in
    PyTorch. Views of several outputs (`split`, `unbind`) keep theirs, and so do other
    views made without grad mode.
    """
    counter = t._version_counter
    counter.value += 1
    views = [] if t._base is None else [t]  # the written view, even one made without grad
    alive = []
    for ref in counter.views or ():
        view = ref()
        if view is not None:
            alive.append(ref)
            if view is not t:
                views.append(view)
    if counter.views:
        counter.views = alive
    for view in views:
        base = view._base
        if base is not None and base._requires_grad and "_multi_view" not in view.__dict__:
            regenerate_view_node(view)


def _update_tangent(t: Tensor, src: Tensor, key: Any) -> None:
    """Forward mode: write `src`'s tangent (zeros if it has none) into `t`'s, at `key`.

    `t`'s tangent is updated in place, so a view's tangent stays a view of its base's.
    """
    if not _tangents._active:
        return
    new = _tangents.tangent_of(src)
    if new is None and _tangents.tangent_of(t) is None:
        return
    target = _tangent_to_write(t)
    if new is not None and (new._requires_grad or target._requires_grad):
        region = target if key is ... else target[key]  # keep the tangent's own graph
        _tangents._without_push(lambda: region.copy_(new))
        return
    target._data[key] = 0 if new is None else new._data


def _tangent_to_write(t: Tensor) -> Tensor:
    """`t`'s tangent, made (zeros) when missing; a view's is a view of its base's."""
    tangent = _tangents.tangent_of(t)
    if tangent is not None:
        return tangent
    if t._base is None:
        tangent = zeros_like(t)
    else:
        base, view_fn = t._base, t._view_fn
        assert view_fn is not None
        base_tangent = _tangents.tangent_of(base)
        if base_tangent is None:
            base_tangent = zeros_like(base)
            _tangents.set_tangent(base, base_tangent)
        tangent = _tangents._without_push(lambda: view_fn(base_tangent))
    _tangents.set_tangent(t, tangent)
    return tangent


def _writes_view(key: tuple[Any, ...]) -> bool:
    """Whether `t[key] = v` is, in PyTorch, a copy into a view of `t` (basic indexing)."""
    if any(isinstance(k, np.ndarray) and (k.ndim or k.dtype.kind == "b") for k in key):
        return False  # advanced indexing writes into `t` itself
    return any(k is not Ellipsis and k != slice(None) for k in key)


def _check_put(t: Tensor, key: tuple[Any, ...], src: Tensor) -> None:
    """Advanced indexing writes with PyTorch's index_put_, which won't cast a tensor value.

    The exception: a 0-d value through one boolean mask is PyTorch's masked_fill_.
    """
    if src._data.dtype == t._data.dtype or not any(isinstance(k, np.ndarray) for k in key):
        return
    if src.ndim == 0 and len(key) == 1 and key[0].dtype == np.bool_:
        return
    target, shape = t._data[key].shape, src._data.shape
    while len(shape) > len(target) and shape[0] == 1:  # as NumPy, leading 1s are dropped
        shape = shape[1:]
    if len(shape) > len(target) or np.broadcast_shapes(shape, target) != target:
        raise RuntimeError(_shape_mismatch(t, key, src))  # reported before the dtype
    raise RuntimeError(
        "Index put requires the source and destination dtypes match, got "
        f"{_scalar_name(t._data.dtype)} for the destination and {_scalar_name(src._data.dtype)} "
        "for the source."
    )


def _shape_mismatch(t: Tensor, key: tuple[Any, ...], src: Tensor) -> str:
    """PyTorch's message for a value that doesn't broadcast to the indexed region."""
    target = t._data[key].shape
    if any(isinstance(k, np.ndarray) for k in key):
        return (
            f"shape mismatch: value tensor of shape {list(src.shape)} cannot be broadcast to "
            f"indexing result of shape {list(target)}"
        )
    try:  # basic indexing copies into a view, expanding the value: expand's message
        src.expand(target)
    except RuntimeError as e:
        return str(e)
    return f"could not broadcast {list(src.shape)} to {list(target)}"


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """`t[index] = value`: a `CopySlices` node when grad is recorded."""
    key = index_key(index)
    leaf = grad_mode.is_grad_enabled() and t._requires_grad and t._grad_fn is None
    if leaf and _writes_view(key):  # PyTorch writes through a view of the leaf, and says so
        raise RuntimeError(_LEAF_VIEW_INPLACE)
    _check_writable(t)
    if isinstance(value, list | tuple):
        raise TypeError(f"can't assign a {type(value).__name__} to a {t.type()}")
    if isinstance(value, Tensor):
        src = value
    else:
        src = Tensor._make(np.asarray(value, dtype=t._data.dtype))
    if grad_mode.is_grad_enabled() and src._requires_grad:
        _check_multi_view(t, records=True)
    _check_put(t, key, src)
    try:
        t._data[key] = src._data
    except IndexError as e:
        raise IndexError(str(e).replace("axis", "dimension")) from None
    except ValueError:
        raise RuntimeError(_shape_mismatch(t, key, src)) from None
    if grad_mode.is_grad_enabled() and (src._requires_grad or t._requires_grad):
        if t._base is None:
            keep = np.ones(t._data.shape, dtype=t._data.dtype)
            keep[key] = 0
            prim = _index_put if _puts_in_place(key) else _copy_slices
            _into_base(t, src, lambda b: b[index], keep, prim)
        else:
            base, view_fn = t._base, t._view_fn
            assert view_fn is not None
            keep = np.ones(base._data.shape, dtype=base._data.dtype)
            view_fn(Tensor._make(keep))._data[key] = 0
            _into_base(base, src, lambda b: view_fn(b)[index], keep)
    _update_tangent(t, src, key)
    bump_version(t)


setattr(Tensor, "__setitem__", setitem)


# --- the op_ forms ----------------------------------------------------------------------

_zero = Primitive(
    "ZeroBackward0",
    lambda a: np.zeros_like(a),
    grads=(lambda g, n: g * 0,),
    tangent="elementwise",
)
_fill = Primitive(
    "FillBackward2",
    lambda a, value: np.full_like(a, value),
    grads=(lambda g, n: g * 0,),
    tangent="elementwise",
)
_fill_tensor = Primitive(
    "FillBackward3",
    lambda a, value: np.full_like(a, value),
    inputs=("self", "value"),
    grads=(lambda g, n: g * 0, lambda g, n: g.sum()),
)
_copy = Primitive(
    "CopyBackwards",
    lambda a, src: np.broadcast_to(src, a.shape).astype(a.dtype, copy=True),
    inputs=("self", "src"),
    grads=(lambda g, n: g * 0, lambda g, n: g),
    tangent="elementwise",
)


@tensor_method
def zero_(self: Tensor) -> Tensor:
    return apply_inplace(self, _zero)


@tensor_method
def fill_(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        return apply_inplace(self, lambda old: _fill_tensor(old, value))
    return apply_inplace(self, lambda old: _fill(old, value=value))


@tensor_method
def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy `src`'s values (broadcast and cast) into this tensor; gradients flow to `src`."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
        if np.broadcast_shapes(src._data.shape, self._data.shape) != self._data.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1] if self.ndim else 1}) must match the "
            f"size of tensor b ({src._data.shape[-1] if src.ndim else 1}) at non-singleton "
            "dimension 0"
        ) from None
    return apply_inplace(self, lambda old: _copy(old, src))


def _inplace_binary(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    def op(self: Tensor, other: Any, **kwargs: Any) -> Tensor:
        dt, _ = as_operands(self, other)
        if dt._category > self.dtype._category:
            raise RuntimeError(
                f"result type {_scalar_name(dt.np)} can't be cast to the desired output type "
                f"{_scalar_name(self._data.dtype)}"
            )
        return apply_inplace(self, lambda old: fn(old, other, **kwargs))

    op.__name__ = name
    return op


for _name, _fn in (("add_", add), ("sub_", sub), ("mul_", mul), ("div_", div)):
    setattr(Tensor, _name, _inplace_binary(_fn, _name))
for _alias, _name in (
    ("__iadd__", "add_"),
    ("__isub__", "sub_"),
    ("__imul__", "mul_"),
    ("__itruediv__", "div_"),
    ("subtract_", "sub_"),
    ("multiply_", "mul_"),
    ("divide_", "div_"),
):
    setattr(Tensor, _alias, getattr(Tensor, _name))
