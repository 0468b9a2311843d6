"""In-place view ops (`t_`, `transpose_`, `squeeze_`, ...), which change a tensor's own shape,
and the conjugate transposes of a real tensor (`adjoint`, `x.H`, `x.mH`).

An in-place view op moves no element: the tensor takes the view's shape and strides
over the same memory, records PyTorch's `...Backward1` node (a plain node, not a
view's) on top of its old place in the graph, and counts a write (version + 1), so
the other views of its memory remake their nodes as after any write. Views of a base
whose shape changed keep reading the same elements: how they were made is redone
from the base's new shape through the inverse op.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..._autograd import grad_mode
from ..._autograd import tangents as _tangents
from ..._dims import wrap_dim
from ..._tensor import Tensor
from ..inplace import bump_version, check_writable
from ..primitive import Primitive
from .views import _unsqueeze_forward, reshape, squeeze, t, transpose, unsqueeze

__all__ = ["adjoint"]  # the rest are Tensor methods and attributes only

_t_inplace = Primitive(
    "TBackward1", lambda a: a.T, grads=(lambda g, n: g.t(),), formulas=("gradᵀ",)
)
_transpose_inplace = Primitive(
    "TransposeBackward1",
    lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
    grads=(lambda g, n: g.transpose(n.dim0, n.dim1),),
    formulas=("grad with dims {dim0} and {dim1} swapped back",),
)
_unsqueeze_inplace = Primitive(
    "UnsqueezeBackward1",
    _unsqueeze_forward,
    grads=(lambda g, n: g.squeeze(n.dim),),
    formulas=("grad with dim {dim} removed",),
)


def _squeezing(name: str) -> Primitive:
    return Primitive(
        name,
        lambda a, dims, **_: np.squeeze(a, axis=dims),
        grads=(lambda g, n: g.reshape(n.self_sizes),),
        formulas=("grad unsqueezed back to {self_sizes}",),
    )


# PyTorch's nodes for squeeze_(), squeeze_(dim) and squeeze_(dims).
_squeeze_all, _squeeze_dim, _squeeze_dims = (_squeezing(f"SqueezeBackward{k}") for k in (3, 4, 5))

View = Callable[[Tensor], Tensor]


def _reshape_in_place(
    self: Tensor, prim: Primitive, forward: View, inverse: View, **params: Any
) -> Tensor:
    """`self` becomes `prim(self, **params)` over the same memory (see the module docstring);
    `forward` and `inverse` are the view op and its inverse, on tensors."""
    check_writable(self)
    records = grad_mode.is_grad_enabled() and self._requires_grad
    if records:
        old = Tensor._make(self._data, True, self._grad_fn, self._output_nr)
        old._accumulator = self._accumulator
        new = prim(old, **params)
        data = new._data
    else:
        data = prim.forward(self._data, **params)
    base = self._base
    if base is None:
        _remake_views_of(self, inverse)
    self._data = data
    if records:
        _take_place(self, new)
    bump_version(self)  # remakes the nodes of the other views from `self`'s new place
    if base is not None:
        if records:
            _take_place(self, new)  # a view keeps its own node, not one remade by the write
        made = self._view_fn
        assert made is not None
        self._view_fn = lambda b: forward(made(b))
    if _tangents._active and (tangent := _tangents.tangent_of(self)) is not None:
        _tangents.set_tangent(self, _tangents._without_push(lambda: forward(tangent)))
    return self


def _take_place(t: Tensor, new: Tensor) -> None:
    # A `retain_grad` stays on the old node here (PyTorch's in-place view ops do not move it).
    t._grad_fn, t._output_nr = new._grad_fn, 0


def _remake_views_of(base: Tensor, inverse: View) -> None:
    """The views of `base` (whose shape is about to change) redo how they were made from
    its old shape, got back from the new one by `inverse`.

    A view of the base taken before (`base.view(6)`) may need the old memory layout: a
    tensor laid out as the base now is (the base itself, or the `ones_like` masks the
    in-place path builds) gets it back through `inverse`; any other (a gradient) is
    copied into the old shape first, which reading it allows.
    """
    old_strides = base._data.strides

    def restored(b: Tensor) -> Tensor:
        back = inverse(b)
        return back if back._data.strides == old_strides else back.contiguous()

    for ref in base._version_counter.views or ():
        view = ref()
        if view is not None and view._base is base and view._view_fn is not None:
            made = view._view_fn
            view._view_fn = lambda b, made=made: made(restored(b))


def t_(self: Tensor) -> Tensor:
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _reshape_in_place(self, _t_inplace, t, t)


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)

    def swap(x: Tensor) -> Tensor:
        return transpose(x, d0, d1)

    return _reshape_in_place(self, _transpose_inplace, swap, swap, dim0=d0, dim1=d1)


def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose_(self, axis0, axis1)


def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return transpose_(self, dim0, dim1)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, self.ndim + 1)
    return _reshape_in_place(
        self, _unsqueeze_inplace, lambda x: unsqueeze(x, d), lambda x: squeeze(x, d), dim=d
    )


def squeeze_(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    shape = self._data.shape
    if dim is None:
        prim, dims = _squeeze_all, tuple(i for i, s in enumerate(shape) if s == 1)
    else:
        prim = _squeeze_dim if isinstance(dim, int | np.integer) else _squeeze_dims
        wanted = (dim,) if isinstance(dim, int | np.integer) else tuple(dim)
        wrapped = (wrap_dim(d, self.ndim) for d in wanted)
        dims = tuple(d for d in wrapped if shape and shape[d] == 1)
    return _reshape_in_place(
        self,
        prim,
        lambda x: squeeze(x, dims),
        lambda x: reshape(x, shape),
        dims=dims,
        self_sizes=shape,
    )


# --- conjugate transposes (a real tensor is its own conjugate) ----------------------------

_warned: set[str] = set()


def _zero_d(input: Tensor, what: str, advice: str) -> Tensor:
    """A 0-d tensor is its own (conjugate) transpose: itself, with PyTorch's warning, which
    it gives once per process."""
    if what not in _warned:
        _warned.add(what)
        warnings.warn(f"{what} is deprecated on 0-D tensors. {advice}", UserWarning, 4)
    return input


def _last_two_swapped(input: Tensor, what: str, advice: str) -> Tensor:
    ndim = input._data.ndim
    if ndim == 0:
        return _zero_d(input, what, advice)
    if ndim < 2:
        name = what.removeprefix("Tensor.")
        name = "adjoint()" if name == "adjoint()" else name
        raise RuntimeError(
            f"tensor.{name} is only supported on matrices or batches of matrices. Got "
            f"{ndim}-D tensor."
        )
    return transpose(input, -2, -1)


def adjoint(input: Tensor) -> Tensor:
    """The last two dims swapped (a view): the conjugate transpose of a real tensor."""
    return _last_two_swapped(input, "adjoint()", "Consider using x.conj().")


def matrix_conj_transpose(input: Tensor) -> Tensor:
    """`x.mH`: the last two dims swapped (a view)."""
    return _last_two_swapped(input, "Tensor.mH", "Consider using x.conj().")


def matrix_transpose_checked(input: Tensor) -> Tensor:
    """`x.mT`: the last two dims swapped (a view), with PyTorch's checks of the dims."""
    return _last_two_swapped(input, "Tensor.mT", "This function is the identity in these cases.")


def conj_transpose(input: Tensor) -> Tensor:
    """`x.H`: a matrix transposed (a view); a 0-d tensor itself, with PyTorch's warning."""
    if input._data.ndim == 0:
        return _zero_d(input, "Tensor.H", "Consider using x.conj().")
    if input._data.ndim != 2:
        raise RuntimeError(
            "tensor.H is only supported on matrices (2-D tensors). Got "
            f"{input.ndim}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if input.ndim > 2 else "")
        )
    return transpose(input, 0, 1)
