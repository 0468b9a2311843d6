"""Fractional max pooling layers in 2-D and 3-D: each call draws new windows unless
`_random_samples` (kept as a buffer) fixes them."""

from __future__ import annotations

from typing import Any, ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _pair, _triple

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Module):
    """Max pooling over windows of `kernel_size` whose starts step by a random fraction."""

    __constants__: ClassVar[list[str]] = [
        "kernel_size",
        "return_indices",
        "output_size",
        "output_ratio",
    ]
    return_indices: bool
    _dims: ClassVar[int]

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        spread = _pair if self._dims == 2 else _triple
        self.kernel_size = spread(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = spread(output_size) if output_size is not None else None
        self.output_ratio = spread(output_ratio) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = F.fractional_max_pool2d if self._dims == 2 else F.fractional_max_pool3d
        return pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of `(N, C, H, W)` or `(C, H, W)` to `output_size`, or to
    `output_ratio` (each in (0, 1)) of the input's size."""

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of `(N, C, T, H, W)` or `(C, T, H, W)` to `output_size`, or
    to `output_ratio` (each in (0, 1)) of the input's size."""

    _dims = 3

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
            isinstance(kernel_size, tuple | list) and not all(k > 0 for k in kernel_size)
        ):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices, _random_samples)
