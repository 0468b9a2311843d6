"""Dropout as functions: dropout, the channel-wise dropout1d, dropout2d and dropout3d, and
alpha_dropout and feature_alpha_dropout, each drawing its mask as PyTorch draws it."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..._ops.inplace import apply_inplace as in_place
from ..._random_samplers import bernoulli_
from ..._tensor import Tensor
from ._common import scalar_name

__all__ = [
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]


# --- dropout ------------------------------------------------------------------------------


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input: Tensor, p: float, feature: bool) -> np.ndarray:
    """PyTorch's mask: ones drawn with probability 1 - p (a uniform below 1 - p), laid out
    like the input, or one per (sample, channel) for channel-wise dropout."""
    data = input._data
    shape = data.shape[:2] + (1,) * (data.ndim - 2)
    noise = Tensor._make(np.empty(shape, data.dtype) if feature else np.empty_like(data))
    return bernoulli_(noise, 1 - p)._data


def _keep_mask(input: Tensor, p: float, feature: bool = False) -> Tensor:
    """1 / (1 - p) where an element is kept (probability 1 - p), else 0."""
    dtype = input._data.dtype
    if p == 1:
        return Tensor._make(np.zeros((), dtype=dtype))
    return Tensor._make(_noise(input, p, feature) / np.asarray(1 - p, dtype=dtype))


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
    return _apply_mask(input, _keep_mask(input, p), inplace)


def _feature_dropout(
    input: Tensor, p: float, training: bool, inplace: bool, batched: bool
) -> Tensor:
    """Whole channels (dim 1, or dim 0 without a batch dim) zeroed together."""
    _check_p(p)
    if not batched and not inplace:
        # Without a batch dim PyTorch adds one, drops channels, and takes it away again
        # (so even in evaluation the result is a new tensor, through UnsqueezeBackward0
        # and SqueezeBackward1).
        return _feature_dropout(input.unsqueeze(0), p, training, inplace, True).squeeze(0)
    if not training or p == 0:
        return input
    if batched:
        return _apply_mask(input, _keep_mask(input, p, feature=True), inplace)
    mask = _keep_mask(input.unsqueeze(0), p, feature=True).squeeze(0)
    return _apply_mask(input, mask, inplace)


def feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """Channel-wise dropout of an input with a batch dim and a channel dim first (any
    number of dims after them): what the channel-wise forms above come to."""
    return _feature_dropout(input, p, training, inplace, batched=True)


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
    return _feature_dropout(input, p, training, inplace, batched=input.ndim == 5)


# --- alpha dropout ------------------------------------------------------------------------

# SELU's negative saturation value, -scale * alpha: dropped units are set to it.
_SELU_SATURATION = 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    _check_p(p)
    if not training or p == 0 or input._data.size == 0:
        return input
    if p == 1:
        return _apply_mask(input, _keep_mask(input, p), inplace)
    dtype = input._data.dtype
    noise = _noise(input, p, feature)
    # Keep mean and variance: a * (x * keep + alpha' * (1 - keep)) + b, as PyTorch computes it.
    scale = 1.0 / math.sqrt((_SELU_SATURATION**2 * p + 1) * (1 - p))
    shift = (noise - dtype.type(1)) * dtype.type(_SELU_SATURATION * scale)
    shift = shift + dtype.type(_SELU_SATURATION * scale * p)
    mask = Tensor._make(noise * dtype.type(scale))
    out = _apply_mask(input, mask, inplace)
    return out.add_(Tensor._make(shift.astype(dtype)))


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's saturation value, and the
    result is scaled and shifted to keep the input's mean and variance."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """`alpha_dropout` of whole channels."""
    return _alpha_dropout(input, p, training, inplace, feature=True)
