"""Padding layers: constant (and zero), reflection, replication and circular padding, 1-D to 3-D.

`padding` is an int (every side) or one amount per side, last dim first:
(left, right), then (top, bottom), then (front, back), as `F.pad` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ..._tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]

_sextuple = _ntuple(6)
_AMOUNTS: dict[int, Callable[[Any], tuple[Any, ...]]] = {1: _pair, 2: _quadruple, 3: _sextuple}


class _PadNd(Module):
    """A padding layer of `mode`, padding the last `_dims` dims."""

    __constants__: ClassVar[list[str]] = ["padding"]
    _dims: ClassVar[int]
    _mode: ClassVar[str]
    padding: tuple[int, ...]

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _AMOUNTS[self._dims](padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    """Circular padding checks the input's rank itself, before padding."""

    _mode = "circular"

    def _check_input_dim(self, input: Tensor) -> None:
        k = self._dims
        if input.dim() not in (k + 1, k + 2):
            raise ValueError(f"expected {k + 1}D or {k + 2}D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Wraps `(N, C, W)` or `(C, W)` around: the left pad copies the right end."""

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Wraps `(N, C, H, W)` or `(C, H, W)` around."""

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Wraps `(N, C, D, H, W)` or `(C, D, H, W)` around."""

    _dims = 3


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Mirrors `(N, C, W)` or `(C, W)` at its ends, without repeating the edge."""

    _dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Mirrors `(N, C, H, W)` or `(C, H, W)` at its edges."""

    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Mirrors `(N, C, D, H, W)` or `(C, D, H, W)` at its faces."""

    _dims = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Repeats the end values of `(N, C, W)` or `(C, W)`."""

    _dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Repeats the edge values of `(N, C, H, W)` or `(C, H, W)`."""

    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Repeats the face values of `(N, C, D, H, W)` or `(C, D, H, W)`."""

    _dims = 3


class _ConstantPadNd(_PadNd):
    """Pads with a constant `value`."""

    __constants__: ClassVar[list[str]] = ["padding", "value"]
    _mode = "constant"
    value: float

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with `value`."""

    _dims = 1

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with `value`."""

    _dims = 2

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with `value`."""

    _dims = 3

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dims with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
