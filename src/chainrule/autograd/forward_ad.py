"""Forward-mode AD: inside a `dual_level`, a dual tensor carries a tangent that every op
pushes forward, so one pass gives a Jacobian-vector product.

Each op's tangent comes from its `Primitive` (see `chainrule._ops.forward_mode`): a
written tangent rule, or one derived from the reverse rules. Views share their tangent
with their base, and in-place ops update the tangent in place, as in PyTorch. Only one
level exists at a time (PyTorch does not support nested levels either); leaving it
strips every tangent made in it. The level and the tangents are kept below Tensor, in
`chainrule._autograd.tangents`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from .._autograd import tangents as _tangents
from .._autograd.tangents import (
    _without_push,
    check_level,
    enter_dual_level,
    exit_dual_level,
    set_tangent,
    tangent_of,
)
from .._ops.view_tracking import identity_view
from .._tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

# The level's state, read where it lives (it is rebound as levels open and close).
_LEVEL_STATE = ("_active", "_duals", "_generation", "_level")


def __getattr__(name: str) -> Any:
    if name in _LEVEL_STATE:
        return getattr(_tangents, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal (a view without tangent) and the tangent."""

    primal: Any
    tangent: Any


class dual_level:
    """Context manager (and decorator) for a forward-AD level: `with dual_level(): ...`."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` whose tangent is `tangent` (used as is, not copied)."""
    if _tangents._level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    check_level(level, "_make_dual")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        bad = tensor if not isinstance(tensor, Tensor) else tangent
        raise TypeError(f"make_dual(): expected Tensor, but got {type(bad).__name__}")
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if t._data.dtype.kind not in "fc":
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            "same level 0 is not supported."
        )
    dual = _without_push(lambda: tensor.view(tensor.shape))
    set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """`(primal, tangent)`: the primal as a view without tangent; tangent None if it has none."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"unpack_dual(): expected Tensor, but got {type(tensor).__name__}")
    check_level(level, "_fw_primal")
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_without_push(lambda: identity_view(tensor)), tangent)
