"""The `torch.*` forms of nn.functional ops whose signature differs from `F`'s.

PyTorch binds most of these twins once, so `torch.conv1d is F.conv1d` (the package
root re-exports those). The ones here are PyTorch's native ops, which `F` wraps in
Python: they take no `inplace=` or `return_indices=`, and take the arguments the
native op has (`cudnn_enable`, `generator`, a `()` stride), checked as the native op
checks them. They are not part of `F`'s names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._autograd import grad_mode
from ..._tensor import Tensor
from ...random import Generator
from . import (
    _activation,
    _activation_rrelu,
    _activation_smooth,
    _dropout,
    _embedding,
    _embedding_bag,
    _norm,
    _norm_composed,
    _pool,
    _pool3d,
    _pool_adaptive,
)

__all__ = [
    "adaptive_max_pool1d",
    "alpha_dropout",
    "alpha_dropout_",
    "batch_norm",
    "celu",
    "dropout",
    "dropout_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "rms_norm",
    "rrelu",
    "selu",
    "threshold",
]

# The nn.functional ops PyTorch binds once, as `torch.<name>` and `F.<name>`.
TWINS = (
    "adaptive_avg_pool1d",
    "avg_pool1d",
    "bilinear",
    "celu_",
    "channel_shuffle",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_similarity",
    "hardshrink",
    "pairwise_distance",
    "pdist",
    "pixel_shuffle",
    "pixel_unshuffle",
    "prelu",
    "rrelu_",
    "selu_",
    "threshold_",
)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _activation_smooth.celu(input, alpha)


def selu(input: Tensor) -> Tensor:
    return _activation_smooth.selu(input)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return _activation.threshold(input, threshold, value)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Generator | None = None,
) -> Tensor:
    return _activation_rrelu.rrelu_with_noise(input, lower, upper, training, False, generator)


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Tensor:
    """F.layer_norm; `cudnn_enable` picks a GPU kernel, so it changes nothing here."""
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    """F.group_norm, with the native op's checks of the group count and the channel dim."""
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1)"
        )
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    return _norm_composed.rms_norm(input, normalized_shape, weight, eps)


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    return _pool.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    return _pool.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    return _pool3d.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """The pooled values and the positions of the maxima, always both."""
    return _pool_adaptive.adaptive_max_pool1d(input, output_size, True)


def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """F.batch_norm in the native op's argument order; `cudnn_enabled` changes nothing here."""
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1)"
        )
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    return _norm.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """F.embedding with the table first; a `padding_idx` no index can equal (negative, or
    past the table) pads nothing, as the native op takes it."""
    rows = weight._data.shape[0] if weight.ndim else 0
    padding = padding_idx if 0 <= padding_idx < rows else None
    return _embedding.embedding(
        indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse
    )


def embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The native op: 1-D indices cut into bags by `offsets`, `mode` 0 (sum), 1 (mean) or
    2 (max), and beside the result what PyTorch's CPU kernel returns for its backward: the
    bag of each index, the bag sizes and the maximum's row per bag and column.

    Those follow the kernel's conventions: for a sum without padding they are left out
    (an empty tensor and zeros); for a mean, the third output repeats the bag sizes; a
    sum has zero sizes; an empty bag's maximum is row 0.
    """
    if not isinstance(offsets, Tensor):
        raise TypeError(
            "embedding_bag(): argument 'offsets' (position 3) must be Tensor, "
            f"not {type(offsets).__name__}"
        )
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    result = _embedding_bag.embedding_bag(
        indices,
        weight,
        offsets,
        scale_grad_by_freq=scale_grad_by_freq,
        mode=("sum", "mean", "max")[mode],
        sparse=sparse,
        per_sample_weights=per_sample_weights,
        include_last_offset=include_last_offset,
        padding_idx=padding_idx,
    )
    idx, dtype = indices._data.astype(np.int64), indices._data.dtype
    num_bags = result.shape[0]
    bags = _embedding_bag._bag_of_each_index(
        offsets._data.astype(np.int64), idx.size, include_last_offset
    )
    skip = bags < 0
    if padding_idx is not None:
        skip |= idx == padding_idx % weight.shape[0]
    sizes = np.bincount(bags[~skip], minlength=num_bags)[:num_bags]
    if mode == 0:
        # (one zero per offset where no gradient is recorded: PyTorch's forward-only kernel)
        recorded = grad_mode.is_grad_enabled() and (
            weight.requires_grad
            or (per_sample_weights is not None and per_sample_weights.requires_grad)
        )
        zeros = np.zeros(num_bags if recorded else offsets.numel())
        outputs = (bags[:0] if padding_idx is None else bags, zeros, zeros)
    elif mode == 1:
        outputs = (bags, sizes, sizes)
    else:
        rows = _embedding_bag._max_rows(weight._data, idx, bags, num_bags, skip)
        outputs = (bags, sizes, np.maximum(rows, 0))
    made = tuple(Tensor._make(np.ascontiguousarray(a, dtype=dtype)) for a in outputs)
    return result, made[0], made[1], made[2]


# --- dropout: `train` is required, a bad `p` is a RuntimeError ------------------------------


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        # (the number as C++ prints a double: 2.0 as "2")
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")


def _check_feature(input: Tensor, train: bool) -> None:
    if train and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    return _dropout.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    return _dropout.dropout(input, p, train, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Whole channels (dim 1) zeroed together, whatever the number of dims."""
    _check_p(p)
    _check_feature(input, train)
    return _dropout.feature_dropout(input, p, train, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    _check_feature(input, train)
    return _dropout.feature_dropout(input, p, train, True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    return _dropout.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    return _dropout.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    _check_feature(input, train)
    return _dropout.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    _check_p(p)
    _check_feature(input, train)
    return _dropout.feature_alpha_dropout(input, p, train, inplace=True)
