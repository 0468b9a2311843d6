"""Shared by reductions, scans and sorts: selecting along a dim, restoring reduced dims, errors.

A value-selecting op (max over a dim, sort, topk, cummax, ...) computes its
indices outside the graph and its values by picking along a dim, whose gradient
scatters into zeros (and that scatter's gradient gathers again).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _strides
from ..._tensor import Tensor
from ..indexing.gather_scatter import scatter, scatter_add
from ..primitive import Primitive, wrap_dims

__all__ = [
    "bind",
    "check_int_dim",
    "dims_of",
    "index_tensor",
    "invalid_arguments",
    "is_int",
    "restore",
    "selecting",
]


# --- restoring reduced dims ---------------------------------------------------------------


def restore(t: Tensor, dims: Sequence[int], keepdim: bool, sizes: Sequence[int]) -> Tensor:
    """A reduced tensor (a gradient or a result) broadcast back over the reduced dims."""
    if not keepdim:
        for d in sorted(dims):
            t = t.unsqueeze(d)
    return t.expand(tuple(sizes))


def dims_of(input: Tensor, dim: Any, name: str) -> tuple[int, ...]:
    """`dim` (None, an int, or a sequence of ints; empty meaning all) as wrapped dims.

    A 0-d tensor accepts dim 0 or -1 and reduces over nothing.
    """
    if isinstance(dim, np.integer):
        dim = int(dim)
    if dim is not None and not isinstance(dim, int | Sequence):
        raise TypeError(
            f"{name}(): argument 'dim' (position 1) must be tuple of ints, not {type(dim).__name__}"
        )
    return wrap_dims(dim, input.ndim)[: input.ndim]


def check_int_dim(name: str, dim: Any, position: int = 1) -> int:
    """`dim` must be one int (cumsum, sort, max over a dim, ...), as PyTorch checks it."""
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError(
            f"{name}(): argument 'dim' (position {position}) must be int, not {type(dim).__name__}"
        )
    return operator.index(dim)


def is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def bind(
    args: tuple[Any, ...], kwargs: dict[str, Any], positional: Sequence[str], keywords: set[str]
) -> dict[str, Any] | None:
    """Arguments bound to names (`positional` in order, then `keywords`), or None if they
    do not fit: too many, unknown or given twice. Overloaded ops then pick by what is bound."""
    bound = dict(zip(positional, args, strict=False))
    if len(args) > len(positional) or set(kwargs) - keywords or set(bound) & set(kwargs):
        return None
    bound.update(kwargs)
    return bound


def invalid_arguments(
    name: str, args: Sequence[Any], kwargs: dict[str, Any], signatures: Sequence[str]
) -> TypeError:
    """PyTorch's TypeError for arguments that match none of an op's signatures."""

    def kind(v: Any) -> str:
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    given = [kind(a) for a in args]
    named = [f"{k}={kind(v)}" for k, v in kwargs.items()]
    got = ", ".join(given + named) if given else "".join(f"{n}, " for n in named)
    lines = [
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:"
    ]
    lines += [f" * ({s})" for s in signatures]
    return TypeError("\n".join(lines) + "\n")


# --- selecting along a dim ----------------------------------------------------------------


def _gather_forward(a: np.ndarray, index: np.ndarray, dim: int, keepdim: bool, **_: Any) -> Any:
    if a.ndim == 0:
        return a.copy()
    out = np.take_along_axis(a, index, axis=dim)
    return out if keepdim else np.squeeze(out, dim)


def _selection_grad(g: Tensor, n: Any) -> Tensor:
    """The gradient scattered into zeros where the values were picked (added up where an
    entry was picked more than once), as PyTorch writes it: scatter, or scatter_add."""
    if not n.self_sizes:  # a 0-d input picks itself
        return g
    if not n.keepdim:
        g = g.unsqueeze(n.dim)
    zeros = Tensor._make(np.zeros(n.self_sizes, dtype=g._data.dtype))
    index = Tensor._make(n.index.astype(np.int64, copy=False))
    if n.accumulate:
        return scatter_add(zeros, n.dim, index, g)
    return scatter(zeros, n.dim, index, g)


def selecting(name: str, layout: Any = _strides.contiguous_array) -> Any:
    """The values op of a value-selecting op called `name` (its grad_fn is `name`).

    `op(input, index, dim, keepdim=True, accumulate=False)`: `index` (the input's
    shape except along `dim`) picks the values, `keepdim=False` then drops `dim`;
    `accumulate` says an entry may be picked more than once (its gradients add).
    """
    prim = Primitive(
        name,
        _gather_forward,
        grads=(_selection_grad,),
        formulas=("grad put back where the picked values were along dim {dim}, zeros elsewhere",),
        tangent="linear",
        layout=layout,
    )

    def select(
        input: Tensor, index: np.ndarray, dim: int, keepdim: bool = True, accumulate: bool = False
    ) -> Tensor:
        return prim(
            input,
            index=index,
            dim=dim,
            keepdim=keepdim,
            self_sizes=tuple(input._data.shape),
            accumulate=accumulate,
        )

    return select


def index_tensor(
    index: np.ndarray, dim: int, keepdim: bool, like: np.ndarray | None = None
) -> Tensor:
    """The indices half of a (values, indices) result, as int64: contiguous, or laid
    out as a copy of `like` would be."""
    out = index.astype(np.int64, copy=False)
    if not keepdim and out.ndim:
        out = np.squeeze(out, dim)
    if like is not None:
        return Tensor._make(_strides.like_first(out, like))
    return Tensor._make(_strides.contiguous_array(out))
