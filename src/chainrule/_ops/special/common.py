"""Shared pieces of the special family: ops PyTorch computes without recording a graph.

PyTorch declares the Bessel functions of `torch.special` and its orthogonal
polynomials not differentiable: their results never require grad, whatever
their inputs do. `values_only` and `values_only_pair` make such ops from a
float64 kernel, with PyTorch's argument and dtype errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..elementwise.binary_common import check_pair, float_result, not_implemented_for
from ..elementwise.unary_common import check_tensor
from ..quiet import quietly

__all__ = ["values_only", "values_only_pair"]

Kernel = Callable[..., np.ndarray]


def _check_float(kernel: str, dt: _dtype.dtype) -> None:
    if dt == _dtype.float16:  # these CPU kernels have no half-precision version
        raise not_implemented_for(kernel, dt)


@quietly
def _run(kernel: Kernel, arrays: list[np.ndarray], dt: _dtype.dtype) -> np.ndarray:
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    flat = [np.broadcast_to(a.astype(np.float64), shape).ravel() for a in arrays]
    out = kernel(*flat, dtype=dt.np).reshape(shape)
    return out.astype(dt.np)


def values_only(name: str, kernel: Kernel, doc: str) -> Callable[[Tensor], Tensor]:
    """`torch.special.<name>(input)`: `kernel` on float64 values, no graph."""

    def op(input: Tensor) -> Tensor:
        check_tensor(f"special_{name}", input)
        dt = float_result(_dtype.from_numpy_dtype(input._data.dtype))
        _check_float(f"{name}_cpu", dt)
        return Tensor._make(_run(kernel, [input._data], dt))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def values_only_pair(name: str, kernel: Kernel, doc: str) -> Callable[[Any, Any], Tensor]:
    """`torch.special.<name>(input, n)` (either may be a number): `kernel` on float64
    values, broadcast, no graph."""
    signatures = [
        f"{a} x, {b} n, *, Tensor out = None"
        for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"))
    ]

    def op(input: Any, n: Any) -> Tensor:
        check_pair(f"special_{name}", input, n, "numbers", signatures)
        dt = float_result(_dtype.result_type(input, n))
        _check_float(f"{name}_cpu", dt)
        arrays = [v._data if isinstance(v, Tensor) else np.asarray(v) for v in (input, n)]
        broadcast_shapes(arrays[0].shape, arrays[1].shape)  # PyTorch's error if they clash
        return Tensor._make(_run(kernel, arrays, dt))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op
