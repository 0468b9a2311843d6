"""Pooling: max, average and adaptive pooling in 1-D and 2-D, one primitive per op.

Max pooling records the flat index of each window's maximum; its gradient
scatters into those positions (`plane_scatter`) and the scatter's gradient
gathers from them (`gather_plane`). Average pooling is a separable linear
map (`_taps`). The 1-D ops run the 2-D ones on a height-1 input, as PyTorch
does, so their grad_fn is `SqueezeBackward1`. Adaptive pooling: `_pool_adaptive`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..._ops.primitive import Primitive
from ..._tensor import Tensor
from . import _taps, _windows
from ._pool_adaptive import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
)
from ._spatial_common import check_not_bool, gather_plane, plane_scatter, shape_list

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
]

Ints = tuple[int, ...]


# --- max pooling: values and indices, scatter and gather by index -----------------------


_max_scatter = plane_scatter("MaxPool2DWithIndicesBackward0")

_max_pool2d = Primitive(
    "MaxPool2DWithIndicesBackward0",
    lambda a, kernel, stride, lo, dilation, out, **_: _windows.max_pool(
        a, kernel, stride, lo, dilation, out
    ),
    grads=(lambda g, n: _max_scatter(g[0], indices=n.indices._data, size=n.size, unique=n.unique),),
    formulas=("grad[0] added where each window's maximum was (indices), zeros elsewhere",),
    outputs=("result", "indices"),
    # Forward mode: each window's tangent is that of its maximum (the indices get none).
    tangent=lambda ts, p: (
        gather_plane(ts[0], p.indices._data, len(p.size)),
        None,
    ),
)


_WORDS = {2: "two", 3: "three"}


def _pool_args(
    name: str, kernel_size: Any, stride: Any, padding: Any, dilation: Any, n: int = 2
) -> Any:
    """kernel, stride, padding, dilation as n-tuples, with PyTorch's messages."""
    # avg_pool3d words its messages without "either".
    either = "" if name == "avg_pool3d" else "either "

    def spread(value: Any, what: str, phrase: str) -> Ints:
        if isinstance(value, int | np.integer):
            return (int(value),) * n
        if isinstance(value, float) or not hasattr(value, "__len__"):
            position = ("kernel_size", "stride", "padding", "dilation").index(what) + 2
            raise TypeError(
                f"{name}(): argument '{what}' (position {position}) must be tuple of ints, not "
                f"{type(value).__name__}"
            )
        if len(value) not in (1, n):
            raise RuntimeError(f"{name}: {what} {phrase} {_WORDS[n]} ints")
        return tuple(int(v) for v in value) * (n + 1 - len(value))

    kernel = spread(kernel_size, "kernel_size", f"must {either}be a single int, or a tuple of")
    strides = (
        kernel
        if stride is None or (hasattr(stride, "__len__") and len(stride) == 0)
        else spread(stride, "stride", f"must {either}be omitted, a single int, or a tuple of")
    )
    pads = spread(padding, "padding", f"must {either}be a single int, or a tuple of")
    dils = spread(dilation, "dilation", "must be either a single int, or a tuple of")
    return kernel, strides, pads, dils


def _check_pool(
    input: Tensor,
    kernel: Ints,
    stride: Ints,
    pad: Ints,
    dilation: Ints,
    ceil_mode: bool,
    name: str = "",
) -> Ints:
    """PyTorch's checks of a 2-D or 3-D pool (input of the right rank); the output size.

    `name` is the op as a 3-D pool's messages call it."""
    k = len(kernel)
    dims = ("T", "H", "W")[-k:]
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in kernel):
        got = " ".join(f"k{d}: {v}" for d, v in zip(dims, kernel, strict=True))
        raise RuntimeError(f"kernel size should be greater than zero, but got {got}")
    if any(s < 0 for s in stride):
        got = " ".join(f"d{d}: {v}" for d, v in zip(dims, stride, strict=True))
        raise RuntimeError(f"stride should be greater than zero, but got {got}")
    if any(d <= 0 for d in dilation):
        got = " ".join(f"dilation{d}: {v}" for d, v in zip(dims, dilation, strict=True))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
    for p, kk, d in zip(pad, kernel, dilation, strict=True):
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > ((kk - 1) * d + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={kk} and dilation={d}"
            )
    shape = input._data.shape
    if k == 3:
        _check_3d(input, kernel, pad, name)
    elif any(p > kk // 2 for p, kk in zip(pad, kernel, strict=True)):
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {pad[1]}, padH = {pad[0]}, kW = {kernel[1]}, kH = {kernel[0]}"
        )
    if k == 2 and any(s == 0 for s in shape[-3:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{shape_list(shape)}"
        )
    out = tuple(
        _windows.out_size(n, kk, s, d, p, ceil_mode)
        for n, kk, s, d, p in zip(shape[-k:], kernel, stride, dilation, pad, strict=True)
    )
    if any(o < 1 for o in out):
        plane = "x".join(map(str, shape[-k - 1 :]))
        sizes = "x".join(map(str, (shape[-k - 1], *out)))
        raise RuntimeError(
            f"Given input size: ({plane}). Calculated output size: ({sizes}). "
            "Output size is too small"
        )
    return out


def _check_3d(input: Tensor, kernel: Ints, pad: Ints, name: str) -> None:
    """The checks a 3-D pool makes that a 2-D one words differently."""
    shape = input._data.shape
    if 0 in shape[-4:]:
        # (PyTorch's message names dimension 0 whichever is empty.)
        raise RuntimeError(
            f"{name}(): Expected input's non-batch dimensions to have positive length, but "
            f"input has a shape of {shape_list(shape)} and non-batch dimension 0 has "
            "length zero!"
        )
    if name == "avg_pool3d" and any(s < kk for s, kk in zip(shape[-3:], kernel, strict=True)):
        raise RuntimeError(
            f"input image (T: {shape[-3]} H: {shape[-2]} W: {shape[-1]}) smaller than kernel "
            f"size (kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})"
        )
    if any(p > kk // 2 for p, kk in zip(pad, kernel, strict=True)):
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: {pad[0]} padW: {pad[2]} "
            f"padH: {pad[1]}"
        )


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window of `(N, C, H, W)` or `(C, H, W)`.

    With `return_indices`, also each maximum's flat index into its H*W plane.
    """
    kernel, strides, pads, dils = _pool_args("max_pool2d", kernel_size, stride, padding, dilation)
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = _check_pool(input, kernel, strides, pads, dils, ceil_mode)
    check_not_bool("max_pool2d", input)
    # Indices are unique (so the gradient can be assigned) when windows cannot overlap.
    unique = all(s >= (k - 1) * d + 1 for k, s, d in zip(kernel, strides, dils, strict=True))
    values, indices = _max_pool2d(
        input,
        kernel=kernel,
        stride=strides,
        lo=pads,
        dilation=dils,
        out=out,
        size=tuple(input._data.shape[-2:]),
        unique=unique,
    )
    return (values, indices) if return_indices else values


def _one(name: str, value: Any, what: str) -> int:
    """A max_pool1d argument: an int or a sequence of one int."""
    if isinstance(value, int | np.integer):
        return int(value)
    if len(value) != 1:
        raise RuntimeError(
            f"{name}() {what} must be an int, list of ints or tuple of ints of size 1 but got "
            f"size {len(value)}"
        )
    return int(value[0])


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window of `(N, C, L)` or `(C, L)` (a max_pool2d of height 1)."""
    name = "max_pool1d"
    k = _one(name, kernel_size, "kernel_size")
    empty = stride is None or (hasattr(stride, "__len__") and len(stride) == 0)
    s = k if empty else _one(name, stride, "stride")
    p = _one(name, padding, "padding")
    d = _one(name, dilation, "dilation")
    shape = input._data.shape
    if input.ndim not in (2, 3) or any(n == 0 for n in shape[-2:]):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{shape_list(shape)}"
        )
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={p} and kernel_size={k}"
        )
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _windows.out_size(shape[-1], k, s, d, p, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    result = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, True)
    values, indices = result[0].squeeze(-2), result[1].squeeze(-2)
    return (values, indices) if return_indices else values


# --- average pooling ----------------------------------------------------------------------

_avg_pool2d = _taps.linear_pair("AvgPool2DBackward0", "grad / window size, spread over each window")


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window of `(N, C, H, W)` or `(C, H, W)`.

    `count_include_pad` counts zero padding in the mean; `divisor_override`
    divides every window's sum by that number instead.
    """
    kernel, strides, pads, _ = _pool_args("avg_pool2d", kernel_size, stride, padding, 1)
    if input.ndim < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got -3)"
        )
    if input.ndim > 4:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{shape_list(input.shape)}"
        )
    out = _check_pool(input, kernel, strides, pads, (1, 1), ceil_mode)
    check_not_bool("avg_pool2d", input)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input._data.dtype.kind in "iu":
        return _integer_avg_pool(
            input, kernel, strides, pads, out, count_include_pad, divisor_override
        )
    size = input._data.shape[-2:]
    # A divisor override divides along the first dim; the second then just sums.
    scales = [None, None] if divisor_override is None else [1 / divisor_override, 1.0]
    taps = tuple(
        _taps.window_taps(n, o, k, s, p, count_include_pad, scale)
        for n, o, k, s, p, scale in zip(size, out, kernel, strides, pads, scales, strict=True)
    )
    return _avg_pool2d(input, taps=taps)


def _integer_avg_pool(
    input: Tensor,
    kernel: Ints,
    stride: Ints,
    pad: Ints,
    out: Ints,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    """Integer inputs: window sums divided with truncation toward zero, as in PyTorch."""
    data = input._data
    taps, counts = [], []
    for n, o, k, s, p in zip(data.shape[-len(out) :], out, kernel, stride, pad, strict=True):
        index, inside = _taps.window_positions(n, o, k, s, p)
        taps.append(_taps.Taps(index, inside.astype(np.int64), n))
        counts.append(_taps.window_counts(n, o, k, s, p, count_include_pad))
    sums = _taps.apply(data.astype(np.int64), taps)
    divisor = (
        functools.reduce(np.multiply.outer, counts)
        if divisor_override is None
        else np.int64(divisor_override)
    )
    quotient = np.abs(sums) // np.abs(divisor)
    signed = np.where((sums < 0) != (divisor < 0), -quotient, quotient)
    return Tensor._make(signed.astype(data.dtype))


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """The mean of each window of `(N, C, L)` or `(C, L)` (an avg_pool2d of height 1)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for avg_pool1d)"
        )
    args = []
    for what, value in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
        if hasattr(value, "__len__") and not (what == "stride" and len(value) == 0):
            if len(value) != 1:
                raise RuntimeError(
                    f"avg_pool1d() argument '{what}' should contain one int (got {len(value)})"
                )
            value = value[0]
        args.append(value)
    k, s, p = args
    stride2 = None if s is None or hasattr(s, "__len__") else (1, s)
    out = avg_pool2d(
        input.unsqueeze(-2), (1, k), stride2 or (1, k), (0, p), ceil_mode, count_include_pad
    )
    return out.squeeze(-2)


# --- the `_with_indices` spellings: always (values, indices) --------------------------------


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = max_pool1d(
        input, kernel_size, stride, padding, dilation, ceil_mode, True
    )
    return result


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = max_pool2d(
        input, kernel_size, stride, padding, dilation, ceil_mode, True
    )
    return result


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = adaptive_max_pool1d(input, output_size, True)
    return result


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = adaptive_max_pool2d(input, output_size, True)
    return result
