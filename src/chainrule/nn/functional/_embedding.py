"""Index lookups as functions: embedding and one_hot."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dtype import legacy_type_name
from ..._ops.primitive import Primitive
from ..._tensor import Tensor

__all__ = ["embedding", "one_hot"]


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


def _lookup(n: Any) -> dict[str, Any]:
    """What the lookup and its gradient share: the rows picked, and how they are scaled."""
    return {"indices": n.indices, "scale": n.scale, "num_weights": n.num_weights}


# The lookup and its gradient (a scatter-add of rows) are each other's derivatives.
# `scale` zeroes the padding row's gradient and divides by frequency when asked.
def _lookup_grad(g: Tensor, n: Any) -> Tensor:
    return _embedding_backward(g, **_lookup(n))


def _scatter_grad(g: Tensor, n: Any) -> Tensor:
    return _embedding(g, scaled=True, **_lookup(n))


_embedding = Primitive(
    "EmbeddingBackward0",
    _gather_rows,
    inputs=("weight",),
    grads=(_lookup_grad,),
    formulas=("grad rows added into the looked-up rows of weight",),
    tangent="linear",
)
_embedding_backward = Primitive(
    "EmbeddingDenseBackwardBackward0",
    _scatter_rows,
    inputs=("grad_output",),
    grads=(_scatter_grad,),
    formulas=("the rows of grad at indices (times scale, where given)",),
    tangent="linear",
)


def _renorm_rows(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Scale the looked-up rows of weight, in place, to norms of at most max_norm."""
    rows = np.unique(indices)
    w = weight._data
    # PyTorch's row norms: the 2-norm as if in float64 then rounded, others in the dtype.
    picked = w[rows].astype(np.float64) if norm_type == 2 else w[rows]
    norms = np.linalg.norm(picked, ord=norm_type, axis=1).astype(w.dtype).astype(np.float64)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)  # (in float64)
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
