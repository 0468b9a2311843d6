"""Shared pieces of the unary and special op modules: forwards, argument checks, in-place forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ..inplace import apply_inplace
from ..primitive import Primitive, tensor_method
from ..quiet import quietly

__all__ = [
    "check_tensor",
    "compute_dtype",
    "float64_forward",
    "float_forward",
    "inplace_form",
    "scalar_type_name",
    "unary_function",
    "unary_op",
]


def float_forward(np_fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """A forward in the input's float dtype (integers and bools: the default float).

    float16 is computed in float32 and rounded, as PyTorch's CPU kernels do. Values
    outside the domain give nan or inf quietly, as in PyTorch.
    """

    @quietly
    def forward(a: np.ndarray, **params: Any) -> np.ndarray:
        dt = a.dtype if a.dtype.kind == "f" else _dtype.get_default_dtype().np
        return np.asarray(np_fn(a.astype(compute_dtype(dt), copy=False), **params), dtype=dt)

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
        return flat.reshape(a.shape).astype(dt, copy=False)

    return forward


def unary_function(prim: Primitive, name: str, doc: str) -> Callable[[Tensor], Tensor]:
    """The function `name` running `prim` on one tensor."""

    def op(input: Tensor) -> Tensor:
        check_tensor(name, input)
        return prim(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def unary_op(prim: Primitive, name: str, doc: str) -> Callable[[Tensor], Tensor]:
    """The function and Tensor method `name` running `prim` on one tensor."""
    return tensor_method(unary_function(prim, name, doc))


def check_tensor(name: str, value: Any, arg: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError for a non-tensor where its signature wants a Tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
            f"not {type(value).__name__}"
        )


def scalar_type_name(d: np.dtype) -> str:
    """PyTorch's legacy name of a dtype in kernel errors ('Long', 'Float', 'Bool', ...)."""
    names = {"float16": "Half", "float32": "Float", "float64": "Double", "bool": "Bool"}
    names.update({"int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long"})
    names["uint8"] = "Byte"
    return names.get(np.dtype(d).name, np.dtype(d).name)


def inplace_form(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    """`name` (e.g. "exp_") as a Tensor method and function: `fn` computed, written in place."""

    def op(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return apply_inplace(input, lambda old: fn(old, *args, **kwargs))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place `{fn.__name__}`: writes the result into `input` and returns it."
    setattr(Tensor, name, op)
    return op
