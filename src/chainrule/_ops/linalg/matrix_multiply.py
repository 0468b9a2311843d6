"""Matrix products: mm, mv, dot and matmul (batched and broadcasting)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ... import _dtype, _strides
from ..._tensor import Tensor
from ..primitive import Primitive
from ..shape.inplace_views import squeeze_
from ..shape.views import t, transposed, unsafe_view

__all__ = ["bmm", "dot", "matmul", "mm", "mv", "outer"]


# The products' forwards. Every caller has checked that the dtypes agree (PyTorch
# refuses a mix), so neither casts.


def _mat(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    return np.matmul(a, b)


def _dot_forward(a: np.ndarray, b: np.ndarray, dt: np.dtype, **layouts: Any) -> np.ndarray:
    # mm, mv and dot: the BLAS call np.matmul makes, at half its overhead; but a large
    # first factor stored by columns (a gradient's transpose) goes faster through
    # np.matmul (the same call: the same bits). (`layouts`: the factors' sizes and
    # strides, which only the backward reads.)
    if a.size > 4096 and a.flags.f_contiguous and not a.flags.c_contiguous:
        return np.matmul(a, b)
    return a.dot(b)


# --- the gradients of a matrix product's two factors ----------------------------------------
#
# PyTorch lays out a factor's gradient as the factor was laid out: a factor stored by
# columns (a transposed contiguous matrix, like the `weight.t()` of a linear layer) gets
# a gradient stored by columns, computed as the transpose of the transposed product. So
# after the transpose back to the weight, the gradient is contiguous, as `.grad` must
# be. The node keeps each factor's sizes and strides from the forward for this
# (`_saved_mat2_sym_strides`, ...), as PyTorch's does. Each rule takes the product and
# the transpose to use, so one formula serves tensors (create_graph) and arrays.

M = TypeVar("M", Tensor, np.ndarray)


def layout_of(m: Tensor) -> tuple[int, ...]:
    """A factor's strides as its node keeps them: only for a factor that needs a
    gradient (PyTorch keeps `()` for the others)."""
    return _strides.of(m._data) if m._requires_grad else ()


def by_columns(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether a matrix with these sizes and strides is stored by columns (PyTorch's test)."""
    return len(strides) == 2 and strides[0] == 1 and strides[1] == sizes[0]


def first_factor_grad(
    g: M,
    second: M,
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    mm: Callable[[M, M], M],
    t: Callable[[M], M],
) -> M:
    """grad · secondᵀ, by columns when the first factor was: (second · gradᵀ)ᵀ."""
    return t(mm(second, t(g))) if by_columns(sizes, strides) else mm(g, t(second))


def second_factor_grad(
    g: M,
    first: M,
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    mm: Callable[[M, M], M],
    t: Callable[[M], M],
) -> M:
    """firstᵀ · grad, by columns when the second factor was: (gradᵀ · first)ᵀ."""
    return t(mm(t(g), first)) if by_columns(sizes, strides) else mm(t(first), g)


def _mm_tangent(tangents: tuple[Tensor | None, ...], p: Any) -> Tensor | None:
    """The product rule, each product laid out (and its node made) as its own call is."""
    t_self, t_mat2 = tangents
    total = None if t_self is None else mm(t_self, p.mat2)
    if t_mat2 is not None:
        term = mm(p.self, t_mat2)
        total = term if total is None else total + term
    return total


_mm = Primitive(
    "MmBackward0",
    _dot_forward,
    inputs=("self", "mat2"),
    grads=(
        lambda g, n: first_factor_grad(g, n.mat2, n.self_sym_sizes, n.self_sym_strides, mm, t),
        lambda g, n: second_factor_grad(g, n.self, n.mat2_sym_sizes, n.mat2_sym_strides, mm, t),
    ),
    formulas=("grad · mat2ᵀ", "selfᵀ · grad"),
    tangent=_mm_tangent,
    array_grads=(
        lambda g, n: first_factor_grad(
            g, n._array("mat2"), n.self_sym_sizes, n.self_sym_strides, mm_arrays, transposed
        ),
        lambda g, n: second_factor_grad(
            g, n._array("self"), n.mat2_sym_sizes, n.mat2_sym_strides, mm_arrays, transposed
        ),
    ),
)


def mm_arrays(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a.mm(b)` for two matrices of one dtype, on arrays (for array rules)."""
    return _mm.on_arrays(a, b, dt=a.dtype)


_mv = Primitive(
    "MvBackward0",
    _dot_forward,
    inputs=("self", "vec"),
    grads=(lambda g, n: g.unsqueeze(1) * n.vec, lambda g, n: n.self.t().mv(g)),
    formulas=("grad ⊗ vec (outer product)", "selfᵀ · grad"),
    tangent="multilinear",
)
_dot = Primitive(
    "DotBackward0",
    _dot_forward,
    inputs=("self", "tensor"),
    grads=(lambda g, n: g * n.tensor, lambda g, n: g * n.self),
    formulas=("tensor", "self"),
    tangent="multilinear",
)
_bmm = Primitive(
    "BmmBackward0",
    _mat,
    inputs=("self", "mat2"),
    grads=(lambda g, n: g.bmm(n.mat2.mT), lambda g, n: n.self.mT.bmm(g)),
    formulas=("grad · mat2ᵀ, batch by batch", "selfᵀ · grad, batch by batch"),
    tangent="multilinear",
)
# Batched, broadcasting products; the engine sums gradients back over broadcast batch dims.
_matmul = Primitive(
    "UnsafeViewBackward0",
    _mat,
    inputs=("self", "other"),
    grads=(lambda g, n: g.matmul(n.other.mT), lambda g, n: n.self.mT.matmul(g)),
    formulas=(
        "grad · otherᵀ, summed over broadcast batch dims",
        "selfᵀ · grad, summed over broadcast batch dims",
    ),
    tangent="multilinear",
)


def _shape_text(t: Tensor) -> str:
    return "x".join(map(str, t._data.shape))


def _same_dtype(kernel: str, a: Tensor, b: Tensor) -> None:
    """PyTorch's error for a product of two dtypes, in the words of the kernel that
    does the work ("mm", "mv" or "bmm")."""
    if a._data.dtype == b._data.dtype:
        return
    if kernel == "mm":
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_dtype.c_type_name(a)} != "
            f"{_dtype.c_type_name(b)}"
        )
    if kernel == "mv":
        vec, mat = _dtype.scalar_name(b), _dtype.scalar_name(a)
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {vec}, {mat}, and {vec}"
        )
    raise RuntimeError(
        f"expected scalar type {_dtype.scalar_name(a)} but found {_dtype.scalar_name(b)}"
    )


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """Matrix product of two 2-D tensors."""
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(input)} and "
            f"{_shape_text(mat2)})"
        )
    _same_dtype("mm", input, mat2)
    return _mm(
        input,
        mat2,
        dt=input._data.dtype,
        self_sym_sizes=input._data.shape,
        self_sym_strides=layout_of(input),
        mat2_sym_sizes=mat2._data.shape,
        mat2_sym_strides=layout_of(mat2),
    )


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix-vector product."""
    a, v = input._data, vec._data
    if a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({input._data.shape[0] if input.ndim else 0}), mat "
            f"({_shape_text(input)}), vec ({_shape_text(vec)})"
        )
    _same_dtype("mv", input, vec)
    return _mv(input, vec, dt=a.dtype)


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """Inner product of two 1-D tensors of the same length."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    if input._data.shape[0] != tensor._data.shape[0]:
        n, m = input._data.shape[0], tensor._data.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{_dtype.scalar_name(input)} and {_dtype.scalar_name(tensor)}"
        )
    return _dot(input, tensor, dt=input._data.dtype)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors with the same batch size."""
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    a, b = input._data.shape, mat2._data.shape
    if a[0] != b[0] or a[2] != b[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a[0]}, {a[2]}] "
            f"but got: [{b[0]}, {b[1]}]."
        )
    _same_dtype("bmm", input, mat2)
    return _bmm(input, mat2, dt=input._data.dtype)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """The `@` product: dot, mv, mm or a batched, broadcasting product by the inputs' dims."""
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        raise TypeError("matmul(): argument 'other' (position 2) must be Tensor")
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return squeeze_(mm(input.unsqueeze(0), other), 0)  # as PyTorch: in place
    if da == 2 and db == 2:
        return mm(input, other)
    a = input.unsqueeze(0) if da == 1 else input
    b = other.unsqueeze(-1) if db == 1 else other
    if a._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b._data.shape[0]}, {a._data.shape[-1]}] but got: [{b._data.shape[0]}, "
            f"{b._data.shape[-2]}]."
        )
    try:
        np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({a._data.shape[-3]}) must match the size of tensor b "
            f"({b._data.shape[-3]}) at non-singleton dimension "
            f"{max(a.ndim, b.ndim) - 3}"
        ) from None
    # PyTorch folds N-d @ 2-d into one mm and N-d @ 1-d into one mv.
    _same_dtype("mm" if db == 2 else "mv" if db == 1 else "bmm", a, b)
    out = _matmul(a, b, dt=a._data.dtype)
    if da == 1 or db == 1:
        shape = list(out._data.shape)
        del shape[-2 if da == 1 else -1]
        out = unsafe_view(out, shape)
    elif da == 2:
        out = out.clone()  # PyTorch ends matrix @ batch with a copy (CloneBackward0)
    return out


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two vectors."""
    return input.unsqueeze(1) * vec2


ger = outer


def matmul_operator(self: Tensor, other: Tensor) -> Tensor:
    """`self @ other` (other types are not ours: NotImplemented)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


def rmatmul_operator(self: Tensor, other: Tensor) -> Tensor:
    """`other @ self`."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)
