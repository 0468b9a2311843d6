"""Max unpooling: the values a max pool kept, put back where `indices` says, zeros elsewhere.

The forward is a max pool's gradient scatter (`_windows.scatter_plane`); its
rule gathers the gradient back at the indices (`gather_plane`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.primitive import Primitive
from ..._tensor import Tensor
from . import _windows
from ._spatial_common import gather_plane, shape_list

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]

Ints = tuple[int, ...]


def _unpool_primitive(k: int) -> Primitive:
    return Primitive(
        f"MaxUnpool{k}DBackward0",
        lambda a, indices, size: _windows.scatter_plane(a, indices, size, unique=True),
        grads=(lambda g, n: gather_plane(g, n.indices, len(n.size)),),
        formulas=("grad at indices (where each value was put)",),
        tangent="linear",
    )


_unpool = {2: _unpool_primitive(2), 3: _unpool_primitive(3)}


def _spread(value: Any, n: int) -> Ints:
    if isinstance(value, int | np.integer):
        return (int(value),) * n
    return tuple(int(v) for v in value)


def _output_size(
    input: Tensor, kernel: Ints, stride: Ints, padding: Ints, output_size: Any
) -> list[int]:
    """The unpooled size: the one the pool came from, or `output_size` if it is one of
    the sizes a pool with this geometry maps to the input's size."""
    k = len(kernel)
    shape = input._data.shape
    default = [
        (shape[input.ndim - k + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(k)
    ]
    if output_size is None:
        size = default
    else:
        if len(output_size) == k + 2:
            output_size = output_size[2:]
        if len(output_size) != k:
            raise ValueError(
                f"output_size should be a sequence containing {k} or {k + 2} elements, but it "
                f"has a length of '{len(output_size)}'"
            )
        for d in range(k):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {low} and '
                    f"{high})"
                )
        size = list(output_size)
    for d in range(k):
        if size[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={size[d]}"
            )
    return size


def _max_unpool(input: Tensor, indices: Tensor, size: list[int], stride: Ints) -> Tensor:
    """PyTorch's checks of max_unpool2d/3d (by `len(size)`), then the unpooling."""
    k = len(size)
    if indices._data.dtype != np.int64:
        got = f" but got: {scalar_name(indices)}" if k == 2 else ""
        raise RuntimeError(f"elements in indices should be type int64{got}")
    if k == 3 and any(s <= 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(
            f"Input to max_unpooling{k}d should be a {k + 1}d or {k + 2}d Tensor, but got a "
            f"tensor with {input.ndim} dimensions."
        )
    if tuple(input._data.shape) != tuple(indices._data.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({shape_list(input.shape)}) but got indices tensor with shape: "
            f"{shape_list(indices.shape)}"
        )
    shape = input._data.shape
    for d in range(1, input.ndim):
        if shape[d] == 0:
            raise RuntimeError(
                f"max_unpooling{k}d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {shape_list(shape)} with dimension {d} being empty."
            )
    index = indices._data
    # (PyTorch names one of the invalid indices, which one depending on its threads.)
    bad = (index < 0) | (index >= math.prod(size))
    if bad.any():
        raise RuntimeError(
            f"Found an invalid max index: {int(index[bad].flat[0])} (output volumes are of size "
            f"{'x'.join(map(str, size))})"
        )
    return _unpool[k](input, indices=index, size=tuple(size))


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The inverse of max_pool1d: values back at their indices in `(N, C, L)`, zeros elsewhere."""
    kernel = _spread(kernel_size, 1)
    strides = kernel if stride is None else _spread(stride, 1)
    size = _output_size(input, kernel, strides, _spread(padding, 1), output_size)
    # As PyTorch: a max_unpool2d of width 1.
    out = _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), [*size, 1], (*strides, 1))
    return out.squeeze(-1)


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The inverse of max_pool2d: values back at their indices in `(N, C, H, W)`, zeros
    elsewhere."""
    kernel = _spread(kernel_size, 2)
    strides = kernel if stride is None else _spread(stride, 2)
    size = _output_size(input, kernel, strides, _spread(padding, 2), output_size)
    return _max_unpool(input, indices, size, strides)


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The inverse of max_pool3d: values back at their indices in `(N, C, D, H, W)`, zeros
    elsewhere."""
    kernel = _spread(kernel_size, 3)
    strides = kernel if stride is None else _spread(stride, 3)
    size = _output_size(input, kernel, strides, _spread(padding, 3), output_size)
    return _max_unpool(input, indices, size, strides)
