"""Pooling layers: max, average and power-average pooling, and max unpooling, in 1-D to 3-D.

Each layer keeps its arguments as given (PyTorch's reprs print them so) and
calls its functional form. Adaptive pooling: `pooling_adaptive.py`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .pooling_adaptive import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
)
from .utils import _pair, _single, _triple

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


# --- max pooling ----------------------------------------------------------------------------


class _MaxPoolNd(Module):
    """The maximum of each window; the stride defaults to the kernel size."""

    __constants__: ClassVar[list[str]] = [
        "kernel_size",
        "stride",
        "padding",
        "dilation",
        "return_indices",
        "ceil_mode",
    ]
    return_indices: bool
    ceil_mode: bool

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )

    def _pool(self, pool: Any, input: Tensor) -> Any:
        return pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class MaxPool1d(_MaxPoolNd):
    """Max pooling of `(N, C, L)` or `(C, L)`; with `return_indices`, (values, indices)."""

    def forward(self, input: Tensor) -> Any:
        return self._pool(F.max_pool1d, input)


class MaxPool2d(_MaxPoolNd):
    """Max pooling of `(N, C, H, W)` or `(C, H, W)`; with `return_indices`, (values, indices)."""

    def forward(self, input: Tensor) -> Any:
        return self._pool(F.max_pool2d, input)


class MaxPool3d(_MaxPoolNd):
    """Max pooling of `(N, C, D, H, W)` or `(C, D, H, W)`; with `return_indices`, also the
    indices."""

    def forward(self, input: Tensor) -> Any:
        return self._pool(F.max_pool3d, input)


# --- max unpooling --------------------------------------------------------------------------


class _MaxUnpoolNd(Module):
    """Puts a max pool's values back where its indices say; zeros elsewhere."""

    kernel_size: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]

    def __init__(self, ntuple: Any, kernel_size: Any, stride: Any, padding: Any) -> None:
        super().__init__()
        self.kernel_size = ntuple(kernel_size)
        self.stride = ntuple(stride if stride is not None else kernel_size)
        self.padding = ntuple(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The inverse of MaxPool1d given its indices."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__(_single, kernel_size, stride, padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool2d(_MaxUnpoolNd):
    """The inverse of MaxPool2d given its indices."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__(_pair, kernel_size, stride, padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool3d(_MaxUnpoolNd):
    """The inverse of MaxPool3d given its indices."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__(_triple, kernel_size, stride, padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return F.max_unpool3d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


# --- average pooling ------------------------------------------------------------------------


class _AvgPoolNd(Module):
    """The mean of each window; the stride defaults to the kernel size."""

    __constants__: ClassVar[list[str]] = [
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
    ]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Average pooling of `(N, C, L)` or `(C, L)`."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class _AvgPoolWithDivisor(_AvgPoolNd):
    """AvgPool2d and AvgPool3d: arguments kept as given, and a `divisor_override`."""

    __constants__: ClassVar[list[str]] = [*_AvgPoolNd.__constants__, "divisor_override"]

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def _pool(self, pool: Any, input: Tensor) -> Tensor:
        result: Tensor = pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )
        return result


class AvgPool2d(_AvgPoolWithDivisor):
    """Average pooling of `(N, C, H, W)` or `(C, H, W)`."""

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(F.avg_pool2d, input)


class AvgPool3d(_AvgPoolWithDivisor):
    """Average pooling of `(N, C, D, H, W)` or `(C, D, H, W)`."""

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(F.avg_pool3d, input)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.__dict__.setdefault("padding", 0)
        self.__dict__.setdefault("ceil_mode", False)
        self.__dict__.setdefault("count_include_pad", True)


# --- power-average pooling ------------------------------------------------------------------


class _LPPoolNd(Module):
    """`(sum of x^p over each window)^(1/p)`; the stride defaults to the kernel size."""

    __constants__: ClassVar[list[str]] = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    norm_type: float
    ceil_mode: bool

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling of `(N, C, L)` or `(C, L)`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )


class LPPool2d(_LPPoolNd):
    """Power-average pooling of `(N, C, H, W)` or `(C, H, W)`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )


class LPPool3d(_LPPoolNd):
    """Power-average pooling of `(N, C, D, H, W)` or `(C, D, H, W)`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )
