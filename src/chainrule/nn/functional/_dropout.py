"""Simple layers as functions: linear, bilinear, embedding, one_hot, dropout.

`linear` on a matrix is one op (PyTorch's addmm: `bias + input @ weight.T`), so
the forward is a product and an add, and the backward two products and a sum.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _creation
from ..._ops.primitive import Primitive
from ..._tensor import Tensor, legacy_type_name
from ._common import in_place, scalar_name

__all__ = [
    "bilinear",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "embedding",
    "linear",
    "one_hot",
]


# --- linear, bilinear ---------------------------------------------------------------------


def _addmm_forward(bias: np.ndarray, mat1: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    out = np.matmul(mat1, mat2)
    out += bias
    return out


def _linear_tangent(tangents: Sequence[Tensor | None], p: Any) -> Tensor:
    """Forward mode's rule for bias + mat1 @ mat2: the bias's tangent plus the product rule.

    (Not "multilinear": the bias is added, not multiplied.)
    """
    t_bias, t_mat1, t_mat2 = tangents
    terms = []
    if t_mat1 is not None:
        terms.append(t_mat1.mm(p.mat2))
    if t_mat2 is not None:
        terms.append(p.mat1.mm(t_mat2))
    if t_bias is not None:
        terms.append(t_bias)
    return sum(terms[1:], terms[0])


_addmm = Primitive(
    "AddmmBackward0",
    _addmm_forward,
    inputs=("self", "mat1", "mat2"),
    grads=(
        lambda g, n: g,
        lambda g, n: g.mm(n.mat2.t()),
        lambda g, n: n.mat1.t().mm(g),
    ),
    tangent=_linear_tangent,
)


def _check_bias(bias: Tensor, rows: int, cols: int) -> None:
    """PyTorch's message when the bias does not broadcast to the (rows, cols) output."""
    have = bias._data.shape
    target = (rows, cols)
    if len(have) > 2:
        raise RuntimeError(
            f"The expanded size of the tensor ({cols}) must match the existing size "
            f"({have[-1]}) at non-singleton dimension 1.  Target sizes: {list(target)}.  "
            f"Tensor sizes: {list(have)}"
        )
    for i in range(1, len(have) + 1):
        if have[-i] != 1 and have[-i] != target[-i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[-i]}) must match the existing size "
                f"({have[-i]}) at non-singleton dimension {2 - i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(have)}"
            )


def _addmm_checked(bias: Tensor, input: Tensor, weight: Tensor) -> Tensor:
    rows, inner = input._data.shape
    cols, k = weight._data.shape
    if inner != k:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and {k}x{cols})"
        )
    if bias._data.dtype != weight._data.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {scalar_name(bias)} and "
            f"{scalar_name(weight)}"
        )
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_c_name(input)} != "
            f"{_c_name(weight)}"
        )
    _check_bias(bias, rows, cols)
    return _addmm(bias, input, weight.t())


def _c_name(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(
        t._data.dtype.name, t._data.dtype.name
    )


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, over any leading dims of input."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
            f"{weight.ndim}D"
        )
    if bias is None:
        return input.matmul(weight.t())
    if weight.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {weight.ndim}-D tensor")
    if input.ndim == 2:
        return _addmm_checked(bias, input, weight)
    # Other shapes go through a matrix, as in PyTorch (its graph shows the two views).
    flat = input.reshape(-1, input._data.shape[-1])
    out = _addmm_checked(bias, flat, weight)
    return out.reshape(*input._data.shape[:-1], weight._data.shape[0])


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    a, b, w = input1._data.shape, input2._data.shape, weight._data.shape
    if input1.ndim != input2.ndim:
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}"
        )
    for d, (x, y) in enumerate(zip(a[:-1], b[:-1], strict=True)):
        if x != y:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got {x} and {y}"
            )
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.ndim}D")
    if a[-1] != w[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {a[-1]} but expected {w[1]}"
        )
    if b[-1] != w[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {b[-1]} but expected {w[2]}"
        )
    # (..., 1, 1, I) @ (O, I, J) -> (..., O, 1, J), then contract J with input2.
    left = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight).squeeze(-2)
    out = (left * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias


# --- one_hot, embedding -------------------------------------------------------------------


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 tensor with a trailing dim of num_classes: 1 at each value, 0 elsewhere."""
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size and data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((data[..., None] == np.arange(num_classes)).astype(np.int64))


def _gather_rows(
    w: np.ndarray, indices: np.ndarray, scale: np.ndarray | None, scaled: bool, **_: Any
) -> np.ndarray:
    rows = np.take(w, indices, axis=0)
    if scaled and scale is not None:
        rows *= scale[..., None]
    return rows


def _scatter_rows(
    g: np.ndarray, indices: np.ndarray, scale: np.ndarray | None, num_weights: int
) -> np.ndarray:
    flat = g.reshape(-1, g.shape[-1])
    if scale is not None:
        flat = flat * scale.reshape(-1, 1)
    out = np.zeros((num_weights, g.shape[-1]), dtype=g.dtype)
    np.add.at(out, indices.reshape(-1), flat)  # repeated indices accumulate
    return out


# The lookup and its gradient (a scatter-add of rows) are each other's derivatives.
# `scale` zeroes the padding row's gradient and divides by frequency when asked.
_embedding_backward: Primitive = Primitive(
    "EmbeddingDenseBackwardBackward0",
    _scatter_rows,
    inputs=("grad_output",),
    grads=(
        lambda g, n: _embedding(
            g, indices=n.indices, scale=n.scale, num_weights=n.num_weights, scaled=True
        ),
    ),
    tangent="linear",
)
_embedding: Primitive = Primitive(
    "EmbeddingBackward0",
    _gather_rows,
    inputs=("weight",),
    grads=(
        lambda g, n: _embedding_backward(
            g, indices=n.indices, scale=n.scale, num_weights=n.num_weights
        ),
    ),
    tangent="linear",
)


def _renorm_rows(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Scale the looked-up rows of weight, in place, to norms of at most max_norm."""
    rows = np.unique(indices)
    w = weight._data
    norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    w[rows] *= scale[:, None].astype(w.dtype)
    weight._version_counter.value += 1


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of weight picked by the integer input; the padding row gets no gradient."""
    num_weights = weight._data.shape[0] if weight.ndim else 0
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num_weights
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = input._data
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {legacy_type_name(idx)} instead (while checking "
            "arguments for embedding)"
        )
    if idx.size and (idx.min() < 0 or idx.max() >= num_weights):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    scale = None
    if padding_idx is not None or scale_grad_by_freq:
        scale = np.ones(idx.shape, dtype=weight._data.dtype)
        if scale_grad_by_freq:
            counts = np.bincount(idx.reshape(-1), minlength=num_weights)
            scale /= counts[idx]
        if padding_idx is not None:
            scale[idx == padding_idx] = 0
    return _embedding(weight, indices=idx, scale=scale, num_weights=num_weights, scaled=False)


# --- dropout ------------------------------------------------------------------------------


def _generator() -> np.random.Generator:
    """chainrule's global generator (read on each call: `manual_seed` replaces it)."""
    return _creation._rng


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(shape: tuple[int, ...], p: float, dtype: np.dtype) -> Tensor:
    """1 / (1 - p) where an element is kept (probability 1 - p), else 0."""
    if p == 1:
        return Tensor._make(np.zeros(shape, dtype=dtype))
    keep = _generator().random(shape) >= p
    return Tensor._make(keep.astype(dtype) / np.asarray(1 - p, dtype=dtype))


def _apply_mask(input: Tensor, mask: Tensor, inplace: bool) -> Tensor:
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {scalar_name(input)}"
        )
    if inplace:
        return in_place(input, lambda old: old * mask)
    return input * mask


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1 / (1 - p), in training."""
    _check_p(p)
    if not training or p == 0:
        return input
    return _apply_mask(input, _keep_mask(input._data.shape, p, input._data.dtype), inplace)


def _feature_dropout(
    input: Tensor, p: float, training: bool, inplace: bool, batched: bool
) -> Tensor:
    """Whole channels (dim 1, or dim 0 without a batch dim) zeroed together."""
    _check_p(p)
    if not training or p == 0:
        return input
    shape = input._data.shape
    lead = 2 if batched else 1
    mask_shape = shape[:lead] + (1,) * (len(shape) - lead)
    return _apply_mask(input, _keep_mask(mask_shape, p, input._data.dtype), inplace)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Channel-wise dropout of (N, C, L) or (C, L) inputs."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return _feature_dropout(input, p, training, inplace, batched=input.ndim == 3)


def _deprecated_rank(name: str, ndim: int, spatial: int) -> None:
    words = {2: "2", 3: "3"}[spatial]
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in "
        "an error in a future release. To retain the behavior and silence this warning, please "
        f"use dropout instead. Note that {name} exists to provide channel-wise dropout on "
        f"inputs with {words} spatial dimensions, a channel dimension, and an optional batch "
        f"dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        UserWarning,
        stacklevel=3,
    )


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Channel-wise dropout of (N, C, H, W) inputs (3-D inputs are read as (N, C, L))."""
    if input.ndim not in (3, 4):
        _deprecated_rank("dropout2d", input.ndim, 2)
    elif input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, batched=input.ndim >= 2)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Channel-wise dropout of (N, C, D, H, W) or (C, D, H, W) inputs."""
    if input.ndim not in (4, 5):
        _deprecated_rank("dropout3d", input.ndim, 3)
    return _feature_dropout(input, p, training, inplace, batched=input.ndim != 4)
