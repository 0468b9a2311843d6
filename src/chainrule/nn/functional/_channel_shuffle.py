"""Channel shuffle: `(N, C, *)` with C = g * k channels reordered from g groups of k to k of g."""

from __future__ import annotations

import numpy as np

from ..._ops.primitive import Primitive
from ..._tensor import Tensor
from ._spatial_common import shape_list

__all__ = ["channel_shuffle", "native_channel_shuffle"]


def _shuffle(a: np.ndarray, groups: int) -> np.ndarray:
    n, c = a.shape[:2]
    split = a.reshape(n, groups, c // groups, *a.shape[2:])
    return np.ascontiguousarray(split.swapaxes(1, 2)).reshape(a.shape)


# Shuffling k groups of g undoes shuffling g groups of k: the rule is a shuffle too.
_channel_shuffle: Primitive
_channel_shuffle = Primitive(
    "ChannelShuffleBackward0",
    _shuffle,
    grads=(lambda g, n: _channel_shuffle(g, groups=g.shape[1] // n.groups),),
    formulas=("channel_shuffle(grad, C / groups)",),
    tangent="linear",
)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Split the channels of `(N, C, *)` into `groups` groups and interleave them."""
    if input.ndim <= 2:
        raise RuntimeError(
            "channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{shape_list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = input._data.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    return _channel_shuffle(input, groups=groups)


native_channel_shuffle = channel_shuffle
