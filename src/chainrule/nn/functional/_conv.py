"""Convolutions (conv1d/2d/3d) and their transposes, each a double-differentiable primitive.

Note: three primitives close under differentiation. `_conv` (cross-correlation),
`_conv_transpose` (its adjoint in the input) and `_conv_weight` (its adjoint in
the weight) are each linear in both tensor arguments, and every derivative of
one is another of the three with the arguments' roles exchanged. So backward
costs one array kernel per input, and second (and higher) derivatives need no
new code. `Geometry` describes the *forward* convolution that relates the
arguments; `size` is the spatial size of that convolution's input.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._dtype import c_type_name, scalar_name
from ..._ops.primitive import Primitive
from ..._tensor import Tensor
from . import _conv_kernels
from ._fold import fold, unfold
from ._spatial_common import OptionalInputs, by_x, ints, shape_list

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "fold",
    "unfold",
]


@dataclass(frozen=True)
class Geometry:
    """How a convolution places its windows: per spatial dim, and the channel groups."""

    stride: tuple[int, ...]
    lo: tuple[int, ...]  # padding before
    hi: tuple[int, ...]  # padding after
    dilation: tuple[int, ...]
    groups: int
    kernel: tuple[int, ...]


def _bias_grad(g: Tensor, n: Any) -> Tensor:
    return g.sum((0, *range(2, g.ndim)))


def _with_bias(y: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    if bias is not None:
        y += bias.reshape(-1, *(1,) * (y.ndim - 2))
    return y


def _convolution_forward(
    input: Any, weight: Any, bias: Any, geo: Geometry, size: Any, transposed: bool
) -> np.ndarray:
    if transposed:
        y = _conv_kernels.conv_transpose(
            input, weight, geo.stride, geo.lo, size, geo.dilation, geo.groups
        )
    else:
        y = _conv_kernels.conv(input, weight, geo.stride, geo.lo, geo.hi, geo.dilation, geo.groups)
    return _with_bias(y, bias)


def _conv_weight_forward(a: np.ndarray, b: np.ndarray, geo: Geometry, size: Any) -> np.ndarray:
    return _conv_kernels.conv_weight(
        a, b, geo.stride, geo.lo, geo.hi, geo.dilation, geo.groups, geo.kernel
    )


def _conv_tangent(tangents: Sequence[Tensor | None], p: Any) -> Tensor:
    """Forward mode's rule for a convolution (or its transpose) with an optional bias.

    It is linear in input and in weight separately (the product rule), and adds
    the bias, so it is not "multilinear": the bias's tangent is added as it is.
    """
    t_input, t_weight, t_bias = (*tangents, None)[:3]
    same = {"geo": p.geo, "size": p.size, "transposed": p.transposed}
    terms = []
    if t_input is not None:
        terms.append(_conv(t_input, p.weight, None, **same))
    if t_weight is not None:
        terms.append(_conv(p.input, t_weight, None, **same))
    if t_bias is not None:
        terms.append(t_bias.reshape(-1, *(1,) * (p.input.ndim - 2)))
    return sum(terms[1:], terms[0])


def _weight_grad(g: Tensor, n: Any) -> Tensor:
    # The convolution of input by g (by the transpose's rule, of g by input).
    first, second = (g, n.input) if n.transposed else (n.input, g)
    return _conv_weight(first, second, geo=n.geo, size=n.size)


_conv_weight: Primitive
# A convolution, or with `transposed` its transpose (PyTorch's one op for both): the
# input's gradient is the other of the two.
_conv: OptionalInputs = OptionalInputs(
    "ConvolutionBackward0",
    _convolution_forward,
    rules={
        "input": lambda g, n: _conv(
            g, n.weight, None, geo=n.geo, size=n.size, transposed=not n.transposed
        ),
        "weight": _weight_grad,
        "bias": _bias_grad,
    },
    formulas={
        "input": "conv_transpose(grad, weight)",
        "weight": "each weight tap's input window correlated with grad",
        "bias": "Σ grad over all but the channel dim",
    },
    required=("input", "weight"),
    optional=("bias",),
    tangent=_conv_tangent,
)
# The weight gradient of `conv(input, w)` at `grad_output`, as a function of both.
_conv_weight = Primitive(
    "ConvolutionBackwardBackward0",
    _conv_weight_forward,
    inputs=("input", "grad_output"),
    grads=(
        lambda g, n: _conv(n.grad_output, g, None, geo=n.geo, size=n.size, transposed=True),
        lambda g, n: _conv(n.input, g, None, geo=n.geo, size=n.size, transposed=False),
    ),
    formulas=("conv_transpose(grad_output, grad)", "conv(input, grad)"),
    tangent="multilinear",
)


# --- checks ---------------------------------------------------------------------------


def _check_input(name: str, dims: int, input: Tensor) -> tuple[int, ...]:
    """The input's shape with a batch dim (unbatched inputs get one), or PyTorch's error."""
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but got "
            f"input of size: {shape_list(input.shape)}"
        )
    shape = tuple(input._data.shape)
    return shape if input.ndim == dims + 2 else (1, *shape)


def _spatial_arg(value: Any, dims: int, k: int, name: str) -> tuple[int, ...]:
    out = ints(value, dims, name)
    if len(out) != k:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {k} values to match the "
            f"convolution dimensions, but got {name}={shape_list(out)}"
        )
    return out


def _check_common(
    stride: tuple[int, ...], padding: tuple[int, ...], dilation: tuple[int, ...]
) -> None:
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")


def _check_groups(weight: Tensor, groups: int) -> None:
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    o = weight._data.shape[0]
    if o < 1:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least 1 at dimension 0, but got "
            f"weight of size {shape_list(weight.shape)} instead"
        )
    if o % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{shape_list(weight.shape)}] instead"
        )


def _check_dtypes(input: Tensor, weight: Tensor, bias: Tensor | None, transposed: bool) -> None:
    a, w = input._data.dtype, weight._data.dtype
    if a != w:
        if a == np.float32 and w == np.float64 and not transposed:
            raise RuntimeError(
                "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the "
                "same or input should be a MKLDNN tensor and weight is a dense tensor"
            )
        raise RuntimeError(
            f"expected scalar type {scalar_name(input)} but found {scalar_name(weight)}"
        )
    if bias is not None and bias._data.dtype != a:
        raise RuntimeError(
            f"Input type ({c_type_name(input)}) and bias type ({c_type_name(bias)}) should be "
            "the same"
        )
    if a == np.bool_:
        kernel = "slow_conv_transpose2d_out_cpu" if transposed else "slow_conv2d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_bias(weight: Tensor, bias: Tensor | None, channels: int, transposed: bool) -> None:
    if bias is not None and (bias.ndim != 1 or bias._data.shape[0] != channels):
        given = "Given transposed=1, weight" if transposed else "Given weight"
        raise RuntimeError(
            f"{given} of size {shape_list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{channels} elements, but got bias of size {shape_list(bias.shape)} instead"
        )


def _same_padding(kernel: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[Any, Any]:
    """'same': pad the total `d * (k - 1)` evenly, the odd one after (as PyTorch)."""
    total = [d * (k - 1) for k, d in zip(kernel, dilation, strict=True)]
    return tuple(t // 2 for t in total), tuple(t - t // 2 for t in total)


# --- convolution ------------------------------------------------------------------------


def _convolution(
    name: str,
    dims: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Tensor:
    shape = _check_input(name, dims, input)
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    k = weight.ndim - 2
    strides = _spatial_arg(stride, dims, k, "stride")
    dilations = _spatial_arg(dilation, dims, k, "dilation")
    kernel = tuple(weight._data.shape[2:])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in strides):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        lo, hi = _same_padding(kernel, dilations) if padding == "same" else ((0,) * k,) * 2
        if lo != hi:
            warnings.warn(
                "Using padding='same' with even kernel lengths and odd dilation may require a "
                "zero-padded copy of the input be created",
                UserWarning,
                stacklevel=3,
            )
    else:
        lo = hi = _spatial_arg(padding, dims, k, "padding")
    _check_common(strides, lo, dilations)
    _check_groups(weight, groups)
    if shape[1] != weight._data.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {shape_list(weight.shape)}, expected "
            f"input{shape_list(shape)} to have {weight._data.shape[1] * groups} channels, but got "
            f"{shape[1]} channels instead"
        )
    _check_bias(weight, bias, weight._data.shape[0], transposed=False)
    padded = tuple(s + b + e for s, b, e in zip(shape[2:], lo, hi, strict=True))
    reach = tuple(d * (kk - 1) + 1 for kk, d in zip(kernel, dilations, strict=True))
    if any(r > p for r, p in zip(reach, padded, strict=True)):
        raise RuntimeError(
            f"Calculated padded input size per channel: {by_x(padded)}. Kernel size: "
            f"{by_x(reach)}. Kernel size can't be greater than actual input size"
        )
    _check_dtypes(input, weight, bias, transposed=False)
    geo = Geometry(strides, lo, hi, dilations, groups, kernel)
    x = input if input.ndim == dims + 2 else input.unsqueeze(0)
    y = _conv(x, weight, bias, geo=geo, size=shape[2:], transposed=False)
    return y if input.ndim == dims + 2 else y.squeeze(0)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D cross-correlation of `(N, C, L)` (or `(C, L)`) with `(O, C/groups, k)`."""
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D cross-correlation of `(N, C, H, W)` (or `(C, H, W)`) with `(O, C/groups, kh, kw)`.

    `padding` is an int, a pair, "valid" (none) or "same" (output size = input size).
    """
    return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-D cross-correlation of `(N, C, D, H, W)` with `(O, C/groups, kd, kh, kw)`."""
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


# --- transposed convolution --------------------------------------------------------------


def _transposed(
    name: str,
    dims: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
) -> Tensor:
    shape = _check_input(name, dims, input)
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    k = weight.ndim - 2
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    strides = _spatial_arg(stride, dims, k, "stride")
    pads = _spatial_arg(padding, dims, k, "padding")
    dilations = _spatial_arg(dilation, dims, k, "dilation")
    extra = _spatial_arg(output_padding, dims, k, "output_padding")
    _check_common(strides, pads, dilations)
    _check_groups(weight, groups)
    if shape[1] != weight._data.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {shape_list(weight.shape)}, expected "
            f"input{shape_list(shape)} to have {weight._data.shape[0]} channels, but got "
            f"{shape[1]} channels instead"
        )
    _check_bias(weight, bias, weight._data.shape[1] * groups, transposed=True)
    if any(e >= s and e >= d for e, s, d in zip(extra, strides, dilations, strict=True)):
        # Messages name height and width, a 1-d transposed conv being a 2-d one of height 1.
        vals = [(0, 1, 1) if k == 1 else None, *zip(extra, strides, dilations, strict=True)]
        h, w = [v for v in vals if v is not None][-2:]
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {h[0]} output_padding_width: {w[0]} stride_height: {h[1]} "
            f"stride_width: {w[1]} dilation_height: {h[2]} dilation_width: {w[2]}"
        )
    kernel = tuple(weight._data.shape[2:])
    size = tuple(
        (i - 1) * s - 2 * p + d * (kk - 1) + e + 1
        for i, s, p, d, kk, e in zip(
            shape[2:], strides, pads, dilations, kernel, extra, strict=True
        )
    )
    # As PyTorch, an empty input may give an output of size 0 (not a negative one).
    if any(s < 0 for s in size) or (0 in size and 0 not in shape):
        pre = (1,) if k == 1 else ()
        raise RuntimeError(
            f"Given input size per channel: {by_x(pre + shape[2:])}. Calculated output size per "
            f"channel: {by_x(pre + size)}. Output size is too small"
        )
    _check_dtypes(input, weight, bias, transposed=True)
    geo = Geometry(strides, pads, pads, dilations, groups, kernel)
    x = input if input.ndim == dims + 2 else input.unsqueeze(0)
    y = _conv(x, weight, bias, geo=geo, size=size, transposed=True)
    return y if input.ndim == dims + 2 else y.squeeze(0)


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The transpose (input gradient) of conv1d; weight `(C, O/groups, k)`."""
    return _transposed(
        "conv_transpose1d",
        1,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The transpose (input gradient) of conv2d; weight `(C, O/groups, kh, kw)`.

    `output_padding` adds that many rows/columns after the output, to pick one
    of the input sizes that a strided conv2d maps to the same output size.
    """
    return _transposed(
        "conv_transpose2d",
        2,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The transpose (input gradient) of conv3d; weight `(C, O/groups, kd, kh, kw)`."""
    return _transposed(
        "conv_transpose3d",
        3,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )
