"""Shared pieces of the unary and special op modules: forwards, argument checks, in-place forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

import numpy as np

from ... import _dtype
from ..._autograd import tangents as _tangents
from ..._strides import elementwise
from ..._tensor import Tensor
from .. import lane
from ..inplace import apply_inplace
from ..op_node import _NO_PARAMS
from ..primitive import Primitive
from ..quiet import quietly

P = ParamSpec("P")

__all__ = [
    "check_tensor",
    "compute_dtype",
    "float64_forward",
    "float_forward",
    "inplace_form",
    "unary_function",
]


def float_forward(np_fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """A forward in the input's float dtype (integers and bools: the default float).

    float16 is computed in float32 and rounded, as PyTorch's CPU kernels do. Values
    outside the domain give nan or inf quietly, as in PyTorch.
    """

    @quietly
    def forward(a: np.ndarray, **params: Any) -> np.ndarray:
        dt = a.dtype if a.dtype.kind == "f" else _dtype.get_default_dtype().np
        out = np.asarray(np_fn(a.astype(compute_dtype(dt), copy=False), **params), dtype=dt)
        return elementwise(out, a)

    return forward


def compute_dtype(dt: np.dtype) -> np.dtype:
    """The dtype a float op computes in: float16 goes through float32."""
    return np.dtype(np.float32) if dt == np.float16 else dt


def float64_forward(kernel: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """A forward by a float64 kernel of `special_math`, rounded to the input's float dtype."""

    @quietly  # nan and inf quietly; so is an overflow to dt
    def forward(a: np.ndarray, **params: Any) -> np.ndarray:
        dt = a.dtype if a.dtype.kind == "f" else _dtype.get_default_dtype().np
        flat = kernel(a.astype(np.float64).ravel(), **params)
        return elementwise(flat.reshape(a.shape).astype(dt, copy=False), a)

    return forward


def unary_function(
    prim: Primitive, name: str, doc: str | None = None
) -> Callable[[Tensor], Tensor]:
    """The function `name` running `prim` on one tensor (through the lane, where the
    op's forward is one ufunc: see `_ops/lane.py`)."""

    def op(input: Tensor) -> Tensor:
        if type(input) is Tensor and not _tangents._active:
            result = lane.unary(prim, input)
            return result if result is not None else prim.general((input,), _NO_PARAMS)
        check_tensor(name, input)
        return prim(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def check_tensor(name: str, value: Any, arg: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError for a non-tensor where its signature wants a Tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
            f"not {type(value).__name__}"
        )


def inplace_form(
    fn: Callable[Concatenate[Tensor, P], Tensor], name: str
) -> Callable[Concatenate[Tensor, P], Tensor]:
    """The in-place form `name` (e.g. "exp_") of `fn`: computed, then written into `input`."""

    def op(input: Tensor, *args: P.args, **kwargs: P.kwargs) -> Tensor:
        return apply_inplace(input, lambda old: fn(old, *args, **kwargs))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place `{fn.__name__}`: writes the result into `input` and returns it."
    return op
