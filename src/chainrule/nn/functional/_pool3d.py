"""Pooling in 3-D: max, average and adaptive pooling of `(N, C, D, H, W)` or `(C, D, H, W)`.

The same kernels as the 2-D ops (`_windows.max_pool`, `_taps`) run over three
spatial dims, under PyTorch's 3-D node names and messages.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.primitive import Primitive
from ..._tensor import Tensor
from . import _taps, _windows
from ._pool import _check_pool, _integer_avg_pool, _pool_args
from ._pool_adaptive import adaptive_max_forward
from ._spatial_common import check_not_bool, gather_plane, plane_scatter, shape_list

__all__ = [
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool3d",
    "max_pool3d",
    "max_pool3d_with_indices",
]

Ints = tuple[int, ...]
_MAX_FORMULA = "grad[0] added where each window's maximum was (indices), zeros elsewhere"


def _with_indices(name: str, forward: Any) -> Primitive:
    """A max pool recording each maximum's flat index: its rule scatters there."""
    scatter = plane_scatter(name)
    return Primitive(
        name,
        forward,
        grads=(lambda g, n: scatter(g[0], indices=n.indices._data, size=n.size, unique=n.unique),),
        formulas=(_MAX_FORMULA,),
        outputs=("result", "indices"),
        # Forward mode: each window's tangent is that of its maximum (the indices get none).
        tangent=lambda ts, p: (gather_plane(ts[0], p.indices._data, len(p.size)), None),
    )


_max_pool3d = _with_indices(
    "MaxPool3DWithIndicesBackward0",
    lambda a, kernel, stride, lo, dilation, out, **_: _windows.max_pool(
        a, kernel, stride, lo, dilation, out
    ),
)


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each window of `(N, C, D, H, W)` or `(C, D, H, W)`.

    With `return_indices`, also each maximum's flat index into its D*H*W volume.
    """
    kernel, strides, pads, dils = _pool_args(
        "max_pool3d", kernel_size, stride, padding, dilation, 3
    )
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    name = "max_pool3d_with_indices_out_cpu_template"
    out = _check_pool(input, kernel, strides, pads, dils, ceil_mode, name)
    check_not_bool("max_pool3d", input)
    # Indices are unique (so the gradient can be assigned) when windows cannot overlap.
    unique = all(s >= (k - 1) * d + 1 for k, s, d in zip(kernel, strides, dils, strict=True))
    values, indices = _max_pool3d(
        input,
        kernel=kernel,
        stride=strides,
        lo=pads,
        dilation=dils,
        out=out,
        size=tuple(input._data.shape[-3:]),
        unique=unique,
    )
    return (values, indices) if return_indices else values


_avg_pool3d = _taps.linear_pair("AvgPool3DBackward0", "grad / window size, spread over each window")


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window of `(N, C, D, H, W)` or `(C, D, H, W)` (see avg_pool2d)."""
    kernel, strides, pads, _ = _pool_args("avg_pool3d", kernel_size, stride, padding, 1, 3)
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = _check_pool(input, kernel, strides, pads, (1, 1, 1), ceil_mode, "avg_pool3d")
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"avg_pool3d_out_frame\" not implemented for 'Bool'")
    if input._data.dtype.kind in "iu":
        return _integer_avg_pool(
            input, kernel, strides, pads, out, count_include_pad, divisor_override
        )
    size = input._data.shape[-3:]
    # A divisor override divides along the first dim; the others then just sum.
    scales = [None] * 3 if divisor_override is None else [1 / divisor_override, 1.0, 1.0]
    taps = tuple(
        _taps.window_taps(n, o, k, s, p, count_include_pad, scale)
        for n, o, k, s, p, scale in zip(size, out, kernel, strides, pads, scales, strict=True)
    )
    return _avg_pool3d(input, taps=taps)


# --- adaptive pooling ---------------------------------------------------------------------

_adaptive_avg_pool3d = _taps.linear_pair(
    "AdaptiveAvgPool3DBackward0", "grad / window size, spread over each window"
)
_adaptive_max_pool3d = _with_indices("AdaptiveMaxPool3DBackward0", adaptive_max_forward)


def _adaptive_size(name: str, input: Tensor, output_size: Any) -> Ints:
    """PyTorch's checks of a 3-D adaptive pool; the output size (None keeps a dim)."""
    if isinstance(output_size, list | tuple) and input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    shape = input._data.shape
    if input.ndim not in (4, 5):
        got = "but got: " if "max" in name else "but got "
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, {got}{shape_list(shape)}")
    for d in range(1, input.ndim):
        if shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape_list(shape)} with dimension {d} being empty"
            )
    size = (output_size,) * 3 if isinstance(output_size, int | np.integer | None) else output_size
    if len(size) != 3:
        if "max" in name:
            raise RuntimeError(f"{name}(): internal error: output_size.size() must be 3")
        raise RuntimeError(f"{name}: output_size must be 3")
    return tuple(int(s) if s is not None else int(n) for s, n in zip(size, shape[-3:], strict=True))


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed `output_size` (D_out, H_out, W_out; None keeps that dim)."""
    out = _adaptive_size("adaptive_avg_pool3d", input, output_size)
    if any(o < 0 for o in out):
        raise RuntimeError(
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{out[0]}, {out[1]},{out[2]}}}"
        )
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"adaptive_avg_pool3d_cpu\" not implemented for '{scalar_name(input)}'"
        )
    if out == (1, 1, 1):  # PyTorch takes the mean here
        return input.mean((-3, -2, -1), keepdim=True)
    size = input._data.shape[-3:]
    taps = tuple(_taps.adaptive_taps(n, o) for n, o in zip(size, out, strict=True))
    return _adaptive_avg_pool3d(input, taps=taps)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to a fixed `output_size` (None keeps that dim); optionally the indices."""
    out = _adaptive_size("adaptive_max_pool3d", input, output_size)
    if any(o < 0 for o in out):
        shape = (*input._data.shape[:-3], *out)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(out)}: {shape_list(shape)}"
        )
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"adaptive_max_pool3d_cpu\" not implemented for '{scalar_name(input)}'"
        )
    size = tuple(input._data.shape[-3:])
    taps = tuple(_taps.adaptive_taps(n, o) for n, o in zip(size, out, strict=True))
    values, indices = _adaptive_max_pool3d(input, taps=taps, size=size, unique=False)
    return (values, indices) if return_indices else values


# --- the `_with_indices` spellings: always (values, indices) --------------------------------


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = max_pool3d(
        input, kernel_size, stride, padding, dilation, ceil_mode, True
    )
    return result


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    result: tuple[Tensor, Tensor] = adaptive_max_pool3d(input, output_size, True)
    return result
