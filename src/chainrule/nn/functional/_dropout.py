"""Dropout as functions: dropout, and the channel-wise dropout1d, dropout2d and dropout3d."""

from __future__ import annotations

import warnings

import numpy as np

from ..._ops.inplace import apply_inplace as in_place
from ..._tensor import Tensor
from ...random import default_generator
from ._common import scalar_name

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d"]


# --- dropout ------------------------------------------------------------------------------


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(shape: tuple[int, ...], p: float, dtype: np.dtype) -> Tensor:
    """1 / (1 - p) where an element is kept (probability 1 - p), else 0."""
    if p == 1:
        return Tensor._make(np.zeros(shape, dtype=dtype))
    keep = default_generator._uniform(shape) >= p
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
