"""Power-average pooling: `(sum over each window of x^p)^(1/p)`, in 1-D, 2-D and 3-D.

Composed as PyTorch composes it (an average pool of `x^p` scaled back to a sum),
so its graph has PyTorch's nodes; p = ±inf is a max pool of |x|.
"""

from __future__ import annotations

import math
from typing import Any

from ..._ops.elementwise.rounding import abs, sign
from ..._tensor import Tensor
from ._activation import relu
from ._pool import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from ._pool3d import avg_pool3d, max_pool3d

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]

_POOLS: dict[int, Any] = {
    1: (avg_pool1d, max_pool1d),
    2: (avg_pool2d, max_pool2d),
    3: (avg_pool3d, max_pool3d),
}


def _lp_pool(
    dims: int, input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool
) -> Tensor:
    avg_pool, max_pool = _POOLS[dims]
    # The number of entries a window sums: a 1-D kernel is used as it is.
    count = (
        kernel_size
        if dims == 1
        else math.prod((kernel_size,) * dims if isinstance(kernel_size, int) else kernel_size)
    )
    if isinstance(norm_type, int | float):
        if norm_type == math.inf:
            result: Tensor = max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
            return result
        if norm_type == -math.inf:
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (sign(out) * relu(abs(out))).mul(count).pow(1.0 / norm_type)


def lp_pool1d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """The p-norm of each window of `(N, C, L)` or `(C, L)`."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """The p-norm of each window of `(N, C, H, W)` or `(C, H, W)`."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """The p-norm of each window of `(N, C, D, H, W)` or `(C, D, H, W)`."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
