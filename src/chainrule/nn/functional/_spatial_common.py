"""Helpers of the conv, pool, norm and sampling functions: argument parsing, messages,
and primitives whose trailing tensor inputs (weight, bias) are optional."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..._ops.indexing.gather_scatter import gather
from ..._ops.primitive import Primitive, Rule
from ..._tensor import Tensor
from . import _windows

__all__: list[str] = []


def ints(value: Any, n: int, name: str) -> tuple[int, ...]:
    """An int, or a sequence of ints (one of them repeats), as `n` ints."""
    if isinstance(value, int | np.integer):
        return (int(value),) * n
    if isinstance(value, Tensor):
        value = value.tolist()
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise TypeError(f"argument '{name}' must be tuple of ints, not {type(value).__name__}")
    try:
        out = tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(
            f"argument '{name}' must be tuple of ints, not {type(value).__name__}"
        ) from None
    return out * n if len(out) == 1 else out


def shape_list(shape: Sequence[int]) -> str:
    return f"[{', '.join(map(str, shape))}]"


def by_x(values: Sequence[int]) -> str:
    """`(2 x 3)`, the way PyTorch prints spatial sizes in messages."""
    return f"({' x '.join(map(str, values))})"


class OptionalInputs:
    """An op whose trailing tensor inputs (weight, bias, ...) may each be None.

    One Primitive per combination of present inputs, all with the same name and
    rules. The forward receives every input by name (absent ones as None) and so
    do the rules: `n.weight` is None when no weight was given. `tangent` is the
    Primitives' forward-mode rule and `formulas` say the rules (see `Primitive`).
    """

    def __init__(
        self,
        name: str,
        forward: Callable[..., Any],
        rules: dict[str, Rule | None],
        formulas: dict[str, str | None],
        required: Sequence[str],
        optional: Sequence[str],
        tangent: str | Callable[..., Any] | None = None,
    ) -> None:
        self._optional = tuple(optional)
        self._prims: dict[tuple[bool, ...], Primitive] = {}
        for present in itertools.product((False, True), repeat=len(optional)):
            names = (*required, *(o for o, p in zip(optional, present, strict=True) if p))
            self._prims[present] = Primitive(
                name,
                _by_name(forward, names),
                grads=[rules[k] for k in names],
                formulas=[formulas[k] for k in names],
                inputs=names,
                tangent=tangent,
            )
        self._required = len(required)

    def __call__(self, *tensors: Tensor | None, **params: Any) -> Any:
        extra = tensors[self._required :]
        present = tuple(t is not None for t in extra)
        for name, t in zip(self._optional, extra, strict=True):
            if t is None:
                params[name] = None
        given = [t for t in tensors if t is not None]
        return self._prims[present](*given, **params)


def _by_name(forward: Callable[..., Any], names: Sequence[str]) -> Callable[..., Any]:
    def call(*arrays: np.ndarray, **params: Any) -> Any:
        return forward(**dict(zip(names, arrays, strict=True)), **params)

    return call


def check_not_bool(name: str, input: Tensor) -> None:
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


def plane_scatter(name: str) -> Primitive:
    """A max pool's rule: the gradient added into zeros of the input's plane at `indices`
    (named `name` with BackwardBackward0, as PyTorch names a max pool's backward).

    Its own rule is the gather back at `indices` (`gather_plane`).
    """
    return Primitive(
        name.replace("Backward0", "BackwardBackward0"),
        lambda g, indices, size, unique: _windows.scatter_plane(g, indices, size, unique),
        inputs=("grad_output",),
        grads=(lambda g, n: gather_plane(g, n.indices, len(n.size)),),
        formulas=("grad at indices (where each window's maximum was)",),
        tangent="linear",
    )


def gather_plane(a: Tensor, indices: np.ndarray, k: int) -> Tensor:
    """The entries of `a` at the flat positions `indices` of its last `k` dims, as PyTorch
    writes a max pool's double backward: flatten, gather, view."""
    lead = indices.shape[: indices.ndim - k]
    index = Tensor._make(indices.reshape(*lead, -1).astype(np.int64, copy=False))
    return gather(a.flatten(a.ndim - k), -1, index).reshape(indices.shape)
