"""unfold (im2col) and fold (col2im): sliding blocks to columns and back, each the other's rule."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..._dtype import scalar_name
from ..._ops.primitive import Primitive
from ..._ops.shape.padding import pad_spatial
from ..._tensor import Tensor
from . import _windows
from ._spatial_common import shape_list

__all__ = ["fold", "unfold"]

Ints = tuple[int, ...]


class Blocks(NamedTuple):
    """Where the sliding blocks of a `size` image lie."""

    kernel: Ints
    dilation: Ints
    padding: Ints
    stride: Ints
    size: Ints


def _blocks(size: Ints, kernel: Ints, dilation: Ints, padding: Ints, stride: Ints) -> Ints:
    return tuple(
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, d, p, st in zip(size, kernel, dilation, padding, stride, strict=True)
    )


def _unfold_array(a: np.ndarray, blocks: Blocks) -> np.ndarray:
    """`(N, C, *size)` -> `(N, C * K, L)`: every block's values as a column."""
    kernel, dilation, padding, stride, size = blocks
    batched = a.ndim == 4
    x = a if batched else a[None]
    out = _blocks(size, kernel, dilation, padding, stride)
    win = _windows.windows(pad_spatial(x, padding, padding), kernel, stride, dilation, out)
    n, c = x.shape[:2]
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * math.prod(kernel), math.prod(out))
    return cols if batched else cols[0]


def _fold_array(a: np.ndarray, blocks: Blocks) -> np.ndarray:
    """`(N, C * K, L)` -> `(N, C, *size)`: columns summed back into the blocks they came from."""
    kernel, dilation, padding, stride, size = blocks
    batched = a.ndim == 3
    cols = a if batched else a[None]
    out = _blocks(size, kernel, dilation, padding, stride)
    n, ck = cols.shape[:2]
    c = ck // math.prod(kernel)
    padded = tuple(s + 2 * p for s, p in zip(size, padding, strict=True))
    full = _windows.col2im(cols.reshape(n, c, *kernel, *out), 2, padded, stride, dilation)
    y = np.ascontiguousarray(pad_spatial(full, [-p for p in padding], [-p for p in padding]))
    return y if batched else y[0]


_fold: Primitive
_unfold = Primitive(
    "Im2ColBackward0",
    _unfold_array,
    grads=(lambda g, n: _fold(g, blocks=n.blocks),),
    formulas=("fold(grad): the columns of grad summed back into the blocks they came from",),
    tangent="linear",
)
_fold = Primitive(
    "Col2ImBackward0",
    _fold_array,
    grads=(lambda g, n: _unfold(g, blocks=n.blocks),),
    formulas=("unfold(grad): the blocks of grad as columns",),
    tangent="linear",
)


def _pairs(name: str, **values: Any) -> list[Ints]:
    out: list[Ints] = []
    for what, v in values.items():
        t = (int(v),) * 2 if isinstance(v, int | np.integer) else tuple(int(i) for i in v)
        if len(t) != 2:
            raise RuntimeError(f"It is expected {what} equals to 2, but got size {len(t)}")
        out.append(t)
    return out


def _check_geometry(kernel: Ints, dilation: Ints, padding: Ints, stride: Ints) -> None:
    for what, v, short, ok in (
        ("kernel size", kernel, "kernel", all(x > 0 for x in kernel)),
        ("stride", stride, "stride", all(x > 0 for x in stride)),
        ("dilation", dilation, "dilation", all(x > 0 for x in dilation)),
    ):
        if not ok:
            raise RuntimeError(
                f"{what} should be greater than zero, but got {short}_height: {v[0]} "
                f"{short}_width: {v[1]}"
            )
    if any(p < 0 for p in padding):
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {padding[0]} "
            f"pad_width: {padding[1]}"
        )


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """Sliding blocks of `(N, C, H, W)` (or `(C, H, W)`) as columns: `(N, C * kh * kw, L)`."""
    if input.ndim < 3:
        n = max(input.ndim, 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 2)"
        )
    kernel, dils, pads, strides = _pairs(
        "unfold", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride
    )
    _check_geometry(kernel, dils, pads, strides)
    shape = tuple(input._data.shape)
    batch = 1 if input.ndim == 4 else 0
    if input.ndim > 4 or any(s == 0 for s in shape[batch:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {shape_list(shape)}"
        )
    size = (int(shape[-2]), int(shape[-1]))
    blocks = _blocks(size, kernel, dils, pads, strides)
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given input with spatial size {size}, kernel_size={kernel}, dilation={dils}, "
            f"padding={pads}, calculated shape of the array of sliding blocks as {blocks}, but "
            "its components must be at least one."
        )
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for '{scalar_name(input)}'")
    return _unfold(input, blocks=Blocks(kernel, dils, pads, strides, size))


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Sum columns `(N, C * kh * kw, L)` back into `(N, C, *output_size)` (overlaps add up)."""
    shape = tuple(input._data.shape)
    if input.ndim not in (2, 3) or any(s == 0 for s in shape[input.ndim - 2 :]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {shape_list(shape)}"
        )
    size, kernel, dils, pads, strides = _pairs(
        "fold",
        output_size=output_size,
        kernel_size=kernel_size,
        dilation=dilation,
        padding=padding,
        stride=stride,
    )
    _check_geometry(kernel, dils, pads, strides)
    ck, length = shape[-2:]
    if ck % math.prod(kernel):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={ck} and kernel_size={kernel}."
        )
    blocks = _blocks(size, kernel, dils, pads, strides)
    if math.prod(blocks) != length or any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dils}, padding={pads}, "
            f"stride={strides}, expected size of input's dimension 2 to match the calculated "
            f"number of sliding blocks {blocks[0]} * {blocks[1]} = {math.prod(blocks)}, but got "
            f"input.size(2)={length}."
        )
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"col2im_out_cpu\" not implemented for '{scalar_name(input)}'")
    return _fold(input, blocks=Blocks(kernel, dils, pads, strides, size))
