"""The `*_copy` forms of the view ops (permute_copy, select_copy, split_copy, ...).

Each gives what its view gives, in fresh contiguous memory, under one node named as
PyTorch names it: the view's node name with `_copy` after it (`PermuteBackward0_copy`),
whose rules are the view's own. Rather than spell each op twice, the view op runs once on
a stand-in for the input (so its argument checks and errors are the view's), and the
Primitive and parameters it recorded are replayed as a copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..._autograd import grad_mode
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..primitive import Primitive, tracks, wrap_dim
from ..shape import diagonals, splitting, strided, views
from ..view_tracking import _slice as _slice_view
from . import getitem

__all__ = [
    "alias_copy",
    "as_strided_copy",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "narrow_copy",
    "permute_copy",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_copy",
]

Result = Tensor | tuple[Tensor, ...]


def _fresh(out: Any) -> Any:
    """The view's array(s) copied into new memory."""
    if isinstance(out, tuple):
        return tuple(np.array(a, order="C") for a in out)
    return np.array(out, order="C")


_copy_prims: dict[tuple[Primitive, str], Primitive] = {}


def _copy_of(view: Primitive, name: str, any_layout: bool) -> Primitive:
    """The Primitive giving a fresh copy of what `view` gives, with its rules, as `name`
    (`any_layout`: of a contiguous copy of the input, which any view can see)."""
    prim = _copy_prims.get((view, name))
    if prim is None:
        forward = view.forward
        if any_layout:
            forward = lambda a, **params: view.forward(np.ascontiguousarray(a), **params)  # noqa: E731
        prim = _copy_prims[view, name] = Primitive(
            name,
            lambda *arrays, **params: _fresh(forward(*arrays, **params)),
            grads=view.grads,
            inputs=view.inputs,
            outputs=view.outputs,
            tangent="linear",
            formulas=view.formulas,
            layout=contiguous_array,
        )
    return prim


def _copied(
    view_op: Callable[..., Result],
    input: Tensor,
    *args: Any,
    name: str = "",
    any_layout: bool = False,
) -> Any:
    """`view_op(input, *args)` in fresh memory, recorded as one node named `name` (the
    view's node name with `_copy`, when empty); `any_layout`: of the input made
    contiguous first (view_copy, which needs no view of the input's own memory)."""
    if any_layout:
        input_seen = input.detach().contiguous() if tracks(input) else input.contiguous()
    else:
        input_seen = input
    if not tracks(input):
        made = view_op(input_seen, *args)
        if isinstance(made, tuple):
            return tuple(Tensor._make(contiguous_array(_fresh(t._data))) for t in made)
        return Tensor._make(contiguous_array(_fresh(made._data)))
    stand_in = input_seen.detach().requires_grad_()
    with grad_mode.enable_grad():
        made = view_op(stand_in, *args)
    node = (made[0] if isinstance(made, tuple) else made).grad_fn
    if node is None:  # no pieces (splitting an empty dim): nothing to record
        return made
    view = node._prim  # type: ignore[attr-defined]
    copy = _copy_of(view, name or f"{view.name}_copy", any_layout)
    return copy(input, **node._params)  # type: ignore[attr-defined]


def _not_implemented(g: Tensor, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::detach_copy is not implemented")


# PyTorch records detach_copy of a tensor that requires grad, with no derivative.
_detach_copy = Primitive(
    "torch::autograd::NotImplemented",
    lambda a: _fresh(a),
    grads=(_not_implemented,),
    formulas=("not implemented",),
    layout=contiguous_array,
)
_alias_copy = Primitive(
    "AliasBackward0_copy",
    lambda a: _fresh(a),
    grads=(lambda g, n: g,),
    formulas=("1",),
    tangent="linear",
    layout=contiguous_array,
)


def alias_copy(input: Tensor) -> Tensor:
    return _alias_copy(input)


def detach_copy(input: Tensor) -> Tensor:
    return _detach_copy(input)


def as_strided_copy(
    input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    return _copied(strided.as_strided, input, size, stride, storage_offset)


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _copied(diagonals.diagonal, input, offset, dim1, dim2)


def expand_copy(input: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    """`implicit` marks an expand PyTorch inserted itself; it changes nothing here."""
    return _copied(views.expand, input, size)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return _copied(views.narrow, input, dim, start, length, name="NarrowCopyBackward0")


def permute_copy(input: Tensor, dims: Sequence[int]) -> Tensor:
    return _copied(views.permute, input, dims)


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    return _copied(getitem.select, input, dim, index)


def _slice(input: Tensor, dim: int, start: int | None, end: int | None, step: int) -> Tensor:
    d = wrap_dim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (*(slice(None),) * d, slice(start, end, step))
    return _slice_view(input, key=key, self_sizes=input._data.shape, advanced=False)


def slice_copy(
    input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    return _copied(_slice, input, dim, start, end, step)


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    if not isinstance(split_size, int):
        raise TypeError(
            "split_copy(): argument 'split_size' (position 2) must be int, "
            f"not {type(split_size).__name__}"
        )
    return _copied(splitting.split, input, split_size, dim)


def split_with_sizes_copy(
    input: Tensor, split_sizes: Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    return _copied(splitting.split_with_sizes, input, split_sizes, dim)


def squeeze_copy(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    # Squeezing a list of dims is its own node in PyTorch (the view here shares dim's).
    name = "SqueezeBackward2_copy" if isinstance(dim, list | tuple) else ""
    return _copied(views.squeeze, input, dim, name=name)


def t_copy(input: Tensor) -> Tensor:
    return _copied(views.t, input)


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _copied(views.transpose, input, dim0, dim1)


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    return _copied(getitem.unbind, input, dim)


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return _copied(strided.unfold, input, dimension, size, step)


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return _copied(views.unsqueeze, input, dim)


def view_copy(input: Tensor, size: Any) -> Tensor:
    return _copied(views.view, input, size, any_layout=True)
