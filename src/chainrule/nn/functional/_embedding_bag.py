"""embedding_bag: the rows picked by each bag of indices, summed, averaged or maxed, in one
node (`EmbeddingBagBackward0`) whose rules scatter the gradient back to the rows."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..._creation import zeros
from ..._dtype import int64, legacy_type_name
from ..._ops.indexing.gather_scatter import index_select, scatter_add
from ..._tensor import Tensor
from ._embedding import _embedding_backward, _renorm_rows
from ._spatial_common import OptionalInputs

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


def _bag_forward(
    weight: np.ndarray,
    per_sample_weights: np.ndarray | None,
    indices: np.ndarray,
    bags: np.ndarray,
    num_bags: int,
    mode: str,
    counts: np.ndarray,
    argmax: np.ndarray | None,
    **_: Any,
) -> np.ndarray:
    out = np.zeros((num_bags, weight.shape[1]), dtype=weight.dtype)
    if mode == "max":
        assert argmax is not None
        filled = argmax >= 0
        out[filled] = weight[argmax[filled], np.nonzero(filled)[1]]
        return out
    used = bags >= 0
    rows = weight[indices[used]]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[used][:, None]
    np.add.at(out, bags[used], rows)  # in input order, bag by bag
    if mode == "mean":
        nonempty = counts > 0
        out[nonempty] /= counts[nonempty, None].astype(out.dtype)
    return out


def _element_grads(g: Tensor, n: Any) -> Tensor:
    """The output gradient of each index's bag, one row per index (zero where unused)."""
    return index_select(g, 0, Tensor._make(np.maximum(n.bags, 0)))


def _weight_grad(g: Tensor, n: Any) -> Tensor:
    if n.mode == "max":
        filled = Tensor._make((n.argmax >= 0).astype(g._data.dtype))
        return scatter_add(
            zeros(n.num_weights, g.shape[1], dtype=g.dtype),
            0,
            Tensor._make(np.maximum(n.argmax, 0)),
            g * filled,
        )
    rows = _element_grads(g, n)
    if n.mode == "mean":  # (divided by the bag's size, as PyTorch does, not times 1/size)
        rows = rows / Tensor._make(np.maximum(n.counts, 1)[np.maximum(n.bags, 0), None])
    if n.per_sample_weights is not None:
        rows = rows * n.per_sample_weights.unsqueeze(1)
    return _embedding_backward(rows, indices=n.indices, scale=n.scale, num_weights=n.num_weights)


def _per_sample_weights_grad(g: Tensor, n: Any) -> Tensor:
    picked = index_select(n.weight, 0, Tensor._make(n.indices))
    keep = Tensor._make((n.scale != 0).astype(g._data.dtype))
    return (_element_grads(g, n) * picked).sum(1) * keep


_embedding_bag = OptionalInputs(
    "EmbeddingBagBackward0",
    _bag_forward,
    rules={"weight": _weight_grad, "per_sample_weights": _per_sample_weights_grad},
    formulas={
        "weight": "grad rows of each bag added into its rows of weight (times the sample "
        "weight, 1/bag size for mean; to the maximum's row for max)",
        "per_sample_weights": "Σ grad[bag] * weight[index] over the embedding dim",
    },
    required=("weight",),
    optional=("per_sample_weights",),
)


def _check_offsets(offsets: np.ndarray, length: int) -> None:
    if offsets.size and offsets[0] != 0:
        # (PyTorch's text ends with the offset printed as a C++ tensor)
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {offsets[0]}\n[ {legacy_type_name(offsets)}{{}} ]"
        )
    if offsets.size and offsets[-1] > length:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {length} but got "
            f"offsets[-1] of {offsets[-1]}"
        )


def _bag_of_each_index(offsets: np.ndarray, length: int, include_last_offset: bool) -> np.ndarray:
    """The bag each position of the input falls in; the last bag runs to the input's end
    (with `include_last_offset` too, as PyTorch's CPU kernel reads it)."""
    starts = offsets[:-1] if include_last_offset else offsets
    return np.searchsorted(starts, np.arange(length), side="right") - 1


def _max_rows(
    w: np.ndarray, idx: np.ndarray, bags: np.ndarray, num_bags: int, skip: np.ndarray
) -> np.ndarray:
    """Per bag and column, the row holding the largest value (the first of equals), or -1."""
    argmax = np.full((num_bags, w.shape[1]), -1, dtype=np.int64)
    for b in range(num_bags):
        rows = idx[(bags == b) & ~skip]
        if rows.size:
            argmax[b] = rows[np.argmax(w[rows], axis=0)]
    return argmax


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Sum, mean or max of the rows of `weight` picked by each bag of indices.

    A 2-D input is one bag per row; a 1-D input is cut into bags where `offsets` say
    (with `include_last_offset`, the last offset closes the last bag). Indices equal to
    `padding_idx` are skipped; an empty bag gives zeros.
    """
    if weight.dtype == int64 and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if input.dim() == 2:
        if offsets is not None:
            type_name = "<class 'torch.Tensor'>" if isinstance(offsets, Tensor) else type(offsets)
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type_name}"
            )
        offset_data = np.arange(0, input.numel(), max(input.size(1), 1), dtype=np.int64)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offset_data = offsets._data
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    idx = input._data
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {legacy_type_name(idx)} instead (while checking "
            "arguments for embedding_bag)"
        )
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
            "on GitHub."
        )
    return _bag(
        idx.astype(np.int64), weight, offset_data, scale_grad_by_freq, mode,
        per_sample_weights, include_last_offset, padding_idx,
    )  # fmt: skip


def _bag(
    idx: np.ndarray,
    weight: Tensor,
    offsets: np.ndarray,
    scale_grad_by_freq: bool,
    mode: str,
    per_sample_weights: Tensor | None,
    include_last_offset: bool,
    padding_idx: int | None,
) -> Tensor:
    """The native op: the checks on indices and offsets, then the one node."""
    num_weights = weight.shape[0]
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            f"argument #1 'per_sample_weights'; but type {legacy_type_name(weight._data)} does "
            f"not equal {legacy_type_name(per_sample_weights._data)} (while checking arguments "
            "for embedding_bag)"
        )
    _check_offsets(offsets, idx.size)
    offsets = offsets.astype(np.int64)
    bad = np.nonzero((idx < 0) | (idx >= num_weights))[0]
    if bad.size:
        raise RuntimeError(
            f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not in the valid "
            f"range [0, {num_weights})"
        )
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise RuntimeError(
                "padding_idx must be within the number of embeddings, "
                f"{-num_weights} through {num_weights - 1}, but got {padding_idx}"
            )
        padding_idx %= num_weights
    num_bags = max(offsets.size - 1, 0) if include_last_offset else offsets.size
    bags = _bag_of_each_index(offsets, idx.size, include_last_offset)
    skip = (idx == padding_idx) | (bags < 0)
    counts = np.bincount(bags[~skip], minlength=num_bags)[:num_bags]
    if include_last_offset and padding_idx is None and mode != "max" and offsets.size:
        # PyTorch's CPU kernel for these leaves the indices past the last offset out of the
        # sum, though they count in the last bag's size (which a mean divides by). (Its
        # backward differs: a mean sends them a share of the gradient all the same, and a
        # sum's gradient there is whatever memory held; here they get none.)
        skip = skip | (np.arange(idx.size) >= offsets[-1])
    # Each index's share of its bag's gradient: 0 if skipped, else 1 (or 1/frequency).
    scale = np.where(skip, 0.0, 1.0).astype(weight._data.dtype)
    if scale_grad_by_freq:
        freq = np.bincount(idx, minlength=num_weights)
        scale /= freq[idx]
    argmax = _max_rows(weight._data, idx, bags, num_bags, skip) if mode == "max" else None
    return _embedding_bag(
        weight,
        per_sample_weights,
        indices=idx,
        bags=np.where(skip, -1, bags),
        num_bags=num_bags,
        mode=mode,
        counts=counts,
        argmax=argmax,
        scale=scale,
        num_weights=num_weights,
    )
