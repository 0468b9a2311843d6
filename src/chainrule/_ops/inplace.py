"""In-place ops (`add_`, `x[i] = v`, `+=`, ...): write into memory, then rebase the graph.

Note: an in-place op is computed out of place on an alias that carries the
tensor's old value and graph position, and the result is written back. The
tensor (or, for a view, its base through a `CopySlices` node) then takes the
result's place in the graph, and its version counter is bumped so nodes that
saved the old value refuse to use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _dtype
from .._autograd import grad_mode
from .._autograd import tangents as _tangents
from .._autograd.versions import write_watchers
from .._creation import zeros_like
from .._tensor import Tensor
from .broadcasting import broadcast_shapes
from .primitive import Primitive
from .view_errors import check_view_write, goes_stale, invalidate
from .view_tracking import follow_retain_grad, regenerate_view_node

__all__ = [
    "apply_inplace",
    "bump_version",
    "check_castable",
    "check_writable",
    "copy_slices",
    "into_base",
    "puts_in_place",
    "rebase",
    "remake_views",
    "update_tangent",
]

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
LEAF_VIEW_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def check_writable(t: Tensor) -> None:
    if write_watchers:
        for watch in write_watchers:
            watch(t)
    inference = t._inference or (t._base is not None and t._base._inference)
    if inference and not grad_mode._state.inference:
        raise RuntimeError(grad_mode._INFERENCE_WRITE)
    if not grad_mode.is_grad_enabled():
        return
    check_view_write(t, records=False)
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError(LEAF_INPLACE)
    base = t._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError(LEAF_VIEW_INPLACE)


def check_castable(result: Any, out: Any) -> None:
    """PyTorch's error when an in-place op's result dtype is of a higher kind (bool, then
    integer, then float) than the tensor it is written into. Either is a chainrule or a
    NumPy dtype."""
    if _dtype.to_dtype(result)._category > _dtype.to_dtype(out)._category:
        raise RuntimeError(
            f"result type {_dtype.scalar_name(result)} can't be cast to the desired output "
            f"type {_dtype.scalar_name(out)}"
        )


def _check_shape(t: Tensor, shape: tuple[int, ...]) -> None:
    if shape != t._data.shape:
        raise RuntimeError(
            f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
            f"{list(shape)}"
        )


copy_slices = Primitive(
    "CopySlices",
    lambda base, src, **_: base,
    inputs=("self", "src"),
    grads=(lambda g, n: g * n.keep, lambda g, n: n.region(g)),
    formulas=("grad, with zeros where src was written", "grad at the region src was written to"),
)


def puts_in_place(key: tuple[Any, ...]) -> bool:
    """Advanced indices, and otherwise only whole dims (`:` or `...`): no view is taken."""
    return any(isinstance(k, np.ndarray) for k in key) and all(
        isinstance(k, np.ndarray) or k is Ellipsis or k == slice(None) for k in key
    )


def rebase(t: Tensor, new: Tensor) -> None:
    """Make `t` (already holding `new`'s values) take `new`'s place in the graph."""
    if t._base is None:
        old = t._grad_fn, t._output_nr
        t._grad_fn, t._output_nr = new._grad_fn, new._output_nr
        t._requires_grad = t._requires_grad or new._requires_grad
        follow_retain_grad(t, *old)
        return
    base, view_fn = t._base, t._view_fn
    assert view_fn is not None
    keep = np.ones_like(base._data)  # laid out as the base, for views by strides (as_strided)
    view_fn(Tensor._make(keep))._data[...] = 0
    into_base(base, new, lambda b: view_fn(b), keep)  # `t`'s own node: see bump_version


def into_base(
    base: Tensor,
    src: Tensor,
    region: Callable[[Tensor], Tensor],
    keep: Any,
    prim: Primitive = copy_slices,
    **params: Any,
) -> None:
    """Record that `region` of `base` now holds `src` (a `CopySlices` node on the base, or
    `prim`'s, given `params` besides)."""
    alias = Tensor._make(base._data, base._requires_grad, base._grad_fn, base._output_nr)
    alias._accumulator = base._accumulator
    out = prim(alias, src, region=region, keep=Tensor._make(keep), **params)
    old = base._grad_fn, base._output_nr
    base._grad_fn, base._output_nr = out._grad_fn, 0
    base._requires_grad = True
    follow_retain_grad(base, *old)


def apply_inplace(
    t: Tensor,
    compute: Callable[[Tensor], Tensor],
    operands: Sequence[Any] = (),
    promoted: Any = None,
) -> Tensor:
    """PyTorch's in-place op: `compute` run on `t`'s current value, checked as PyTorch
    checks, and written into `t` (see the Note). Every in-place op comes through here.

    Before computing: the op's other inputs (`operands`: tensors or numbers) must
    broadcast to `t`'s shape, and `promoted`, the dtype an op that promotes computes
    in, must cast to `t`'s dtype. After: the result must have `t`'s shape, and a dtype
    `t` can hold.
    """
    check_writable(t)
    if operands:
        shapes = [v._data.shape for v in operands if isinstance(v, Tensor)]
        _check_shape(t, broadcast_shapes(t._data.shape, *shapes))
    if promoted is not None:
        check_castable(promoted, t._data.dtype)
    if not grad_mode.is_grad_enabled():
        new = compute(t)
        _check_result(t, new)
        t._data[...] = new._data
        update_tangent(t, new, ...)
        bump_version(t)
        return t
    old = Tensor._make(t._data.copy(), t._requires_grad, t._grad_fn, t._output_nr)
    if _tangents._active and (tangent := _tangents.tangent_of(t)) is not None:
        # A copy: `t`'s tangent is about to be overwritten, and nodes may save `old`.
        _tangents.set_tangent(old, _tangents._without_push(tangent.clone))
    new = compute(old)
    _check_result(t, new)
    if new._requires_grad:
        check_view_write(t, records=True)
    t._data[...] = new._data
    update_tangent(t, new, ...)
    if new._requires_grad or t._requires_grad:
        rebase(t, new)
    bump_version(t)
    return t


def _check_result(t: Tensor, new: Tensor) -> None:
    _check_shape(t, new._data.shape)
    check_castable(new._data.dtype, t._data.dtype)


def bump_version(t: Tensor) -> None:
    """Count an in-place write to `t`, and remake the grad_fn of every view of its memory.

    Note: a view's node takes its values from the base as they were when the view was
    made; after a write through the base or any view, each view (the written one too)
    gets an `AsStridedBackward0` node on the base's new place in the graph, as in
    PyTorch. Views of several outputs (`split`, `unbind`) and views of them become
    stale instead (see `view_errors`); other views made without grad mode keep theirs.
    """
    t._version_counter.value += 1
    remake_views(t)


def remake_views(t: Tensor) -> None:
    """After a write to `t`'s memory: each view of it takes its elements from the base's
    new place in the graph, or becomes stale (see `bump_version`)."""
    counter = t._version_counter
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
        if goes_stale(view):
            invalidate(view)
        elif base is not None and base._requires_grad:
            regenerate_view_node(view)


def update_tangent(t: Tensor, src: Tensor, key: Any) -> None:
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
