"""where: each element from one tensor or another, as a condition says."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..operands import Number, as_operands
from ..primitive import Primitive, tangents_or_zeros

__all__ = ["where"]


def _where_forward(c: np.ndarray, a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    broadcast_shapes(c.shape, a.shape, b.shape)
    return np.asarray(np.where(c, a, b), dtype=dt)


_where: Primitive = Primitive(
    "WhereBackward0",
    _where_forward,
    inputs=("condition", "self", "other"),
    grads=(None, lambda g, n: where(n.condition, g, 0), lambda g, n: where(n.condition, 0, g)),
    formulas=(None, "1 where condition, else 0", "0 where condition, else 1"),
    tangent=lambda ts, p: _where(
        p.condition, *tangents_or_zeros(ts[1:], (p.self, p.other)), dt=p.dt
    ),
)


def where(condition: Tensor, input: Any, other: Any) -> Tensor:
    """Elements of `input` where `condition` holds, else of `other`."""
    if condition._data.dtype != np.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{str(condition.dtype).split('.')[-1].capitalize()}"
        )
    dt, (a, b) = as_operands(input, other)
    return _where(condition, a, b, dt=dt.np)


def where_method(self: Tensor, condition: Tensor, other: Tensor | Number) -> Tensor:
    """As a method the tensor is the input, not the condition: `x.where(condition, y)`."""
    return where(condition, self, other)


where_method.__name__ = where_method.__qualname__ = "where"
