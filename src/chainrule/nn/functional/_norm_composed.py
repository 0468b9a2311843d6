"""Normalisations PyTorch writes as compositions of other ops: rms_norm and
local_response_norm; their graphs are those ops' nodes, as in PyTorch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..._ops.elementwise.arithmetic import add_scalar
from ..._tensor import Tensor
from ._common import float_only
from ._pool import avg_pool2d
from ._sampling import pad
from ._spatial_common import shape_list

__all__ = ["local_response_norm", "rms_norm"]


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """`input / sqrt(mean(input²) + eps) * weight` over the last `len(normalized_shape)` dims.

    `eps=None` uses the machine epsilon of the input's dtype.
    """
    if isinstance(normalized_shape, int):
        raise TypeError(
            "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"
        )
    norm = tuple(int(s) for s in normalized_shape)
    if not norm:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if weight is not None and tuple(weight.shape) != norm:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{shape_list(weight.shape)} and normalized_shape = {shape_list(norm)}"
        )
    shape = tuple(input.shape)
    if len(shape) < len(norm):
        raise ValueError(
            f"Input tensor must have at least {len(norm)} dimensions, but got {len(shape)}"
        )
    if shape[len(shape) - len(norm) :] != norm:
        raise RuntimeError(
            f"Given normalized_shape={shape_list(norm)}, expected input with shape "
            f"[*{', '.join(map(str, norm))}], but got input of size{shape_list(shape)}"
        )
    float_only(input, "rms_norm")
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    dims = tuple(range(len(shape) - len(norm), len(shape)))
    mean_square = input.pow(2).mean(dims, keepdim=True)
    result = input * add_scalar(mean_square, eps).rsqrt()
    return result if weight is None else result * weight


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """`input / (k + alpha * mean of input² over `size` neighbouring channels) ** beta`.

    The channels are dim 1; the window is centred, zero-padded at the ends.
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        # PyTorch pools (N, 1, C, H, rest) with a (size, 1, 1) window; pooling the
        # same values as (N, 1, C, H * rest) with a (size, 1) window is the same mean.
        # (H and rest may not merge into a view when the input is permuted: reshape.)
        sizes = input.size()
        div = div.reshape(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
