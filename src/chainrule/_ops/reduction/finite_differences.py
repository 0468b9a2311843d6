"""torch.gradient: derivatives estimated by finite differences, composed as in PyTorch.

Inside, each entry gets the central difference of its neighbours (second-order accurate,
also on uneven coordinates); the two edges get one-sided differences of first or second
order (`edge_order`). The three pieces are joined with `cat`, so the graph holds slices,
arithmetic and one CatBackward0 per dim, as PyTorch's does.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..elementwise.arithmetic import div_scalar, mul_scalar
from ..indexing.getitem import select
from ..primitive import wrap_dim, wrap_dims
from ..shape.views import cat, reshape
from ..view_tracking import slice_dim
from .scans import diff

__all__ = ["gradient"]

_SIGNATURES = (
    "Tensor input, *, tuple of ints dim, int edge_order = 1",
    "Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1",
    "Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1",
    "Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1",
    "Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1",
    "Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1",
    "Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1",
)
_NUMBER = (int, float, np.integer, np.floating, np.bool_)


def _invalid(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    def kind(v: Any) -> str:
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    given = [kind(a) for a in args] + [f"{k}={kind(v)}" for k, v in kwargs.items()]
    lines = [
        f"gradient() received an invalid combination of arguments - got ({', '.join(given)}), "
        "but expected one of:"
    ]
    lines += [f" * ({s})" for s in _SIGNATURES]
    return TypeError("\n".join(lines) + "\n")


def _is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, _NUMBER) or (isinstance(v, Tensor) and v.ndim == 0)


def _parse(
    input: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, list[int] | None, int, bool]:
    """(spacing, dims or None, edge_order, whether spacing was given as a list)."""
    spacing = kwargs.get("spacing")
    dim = kwargs.get("dim")
    edge_order = kwargs.get("edge_order", 1)
    listed = isinstance(spacing, list | tuple)
    ok = (
        isinstance(input, Tensor)
        and not args
        and set(kwargs) <= {"spacing", "dim", "edge_order"}
        and _is_int(edge_order)
        and (
            dim is None
            or _is_int(dim)
            or (isinstance(dim, list | tuple) and all(map(_is_int, dim)))
        )
        and (
            spacing is None
            or _is_number(spacing)
            or (
                listed
                and (all(map(_is_number, spacing)) or all(isinstance(s, Tensor) for s in spacing))
            )
        )
    )
    if not ok:
        raise _invalid((input, *args), kwargs)
    dims = None if dim is None else [operator.index(d) for d in ([dim] if _is_int(dim) else dim)]
    return spacing, dims, operator.index(edge_order), listed


def _check(input: Tensor, sizes: int | None, dims: list[int] | None, edge_order: int) -> None:
    """PyTorch's checks, in its order."""
    if input._data.dtype == np.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if sizes is not None and dims is None and sizes != input.ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got "
            f"a list of length {sizes}"
        )
    if sizes is not None and dims is not None and sizes != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length {sizes} "
            f"and a dim argument of length {len(dims)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    shape = input._data.shape
    for d in wrap_dims(dims, input.ndim) if dims is not None else range(input.ndim):
        if shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )


def _part(t: Tensor, d: int, start: int, stop: int | None = None) -> Tensor:
    """`t.slice(d, start, stop)` with PyTorch's negative bounds."""
    n = t._data.shape[d]
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return slice_dim(t, d, start, stop)


def _even(input: Tensor, d: int, h: Any, edge_order: int) -> Tensor:
    """Along `d` with samples `h` apart."""
    center = div_scalar(_part(input, d, 2) - _part(input, d, 0, -2), h)
    if edge_order == 1:
        first = div_scalar(_part(input, d, 1, 2) - _part(input, d, 0, 1), h)
        last = div_scalar(_part(input, d, -1) - _part(input, d, -2, -1), h)
    else:
        first = div_scalar(
            mul_scalar(_part(input, d, 0, 1), -1.5)
            + mul_scalar(_part(input, d, 1, 2), 2)
            - mul_scalar(_part(input, d, 2, 3), 0.5),
            h,
        )
        last = div_scalar(
            mul_scalar(_part(input, d, -3, -2), 0.5)
            - mul_scalar(_part(input, d, -2, -1), 2)
            + mul_scalar(_part(input, d, -1), 1.5),
            h,
        )
    return cat([first, div_scalar(center, 2), last], d)


def _uneven(input: Tensor, d: int, x: Tensor, edge_order: int) -> Tensor:
    """Along `d` at the sample coordinates `x`."""
    if x.ndim != 1:
        raise RuntimeError(
            "torch.gradient expected each element of spacing to have one dimension, but got an "
            f"element with {x.ndim} dimensions!"
        )
    shape = [1] * input.ndim
    shape[d] = -1
    h = diff(x, 1, 0)
    h1, h2 = _part(h, 0, 0, -1), _part(h, 0, 1)
    a = reshape(-h2 / (h1 * (h1 + h2)), shape)
    b = reshape((h2 - h1) / (h1 * h2), shape)
    c = reshape(h1 / (h2 * (h1 + h2)), shape)
    center = a * _part(input, d, 0, -2) + b * _part(input, d, 1, -1) + c * _part(input, d, 2)
    s, t = select(h, 0, 0), select(h, 0, -1)
    if edge_order == 1:
        first = (_part(input, d, 1, 2) - _part(input, d, 0, 1)) / s
        last = (_part(input, d, -1) - _part(input, d, -2, -1)) / t
    else:
        s2, t2 = select(h, 0, 1), select(h, 0, -2)
        a = -(mul_scalar(s, 2.0) + s2) / (s * (s + s2))
        b = (s + s2) / (s * s2)
        c = (-s) / (s2 * (s + s2))
        first = a * _part(input, d, 0, 1) + b * _part(input, d, 1, 2) + c * _part(input, d, 2, 3)
        a = t / (t2 * (t + t2))
        b = -(t + t2) / (t * t2)
        c = (mul_scalar(t, 2) + t2) / (t * (t + t2))
        last = a * _part(input, d, -3, -2) + b * _part(input, d, -2, -1) + c * _part(input, d, -1)
    return cat([first, center, last], d)


def gradient(input: Tensor, *args: Any, **kwargs: Any) -> tuple[Tensor, ...]:
    """`gradient(input, *, spacing=1, dim=None, edge_order=1)`: the derivative of `input`
    along each dim in `dim` (all if None), one tensor per dim. `spacing` is one number (the
    step along every dim), a number per dim, or a 1-d tensor of coordinates per dim."""
    spacing, dims, edge_order, listed = _parse(input, args, kwargs)
    # Only a list of spacings can disagree in length with the dims (one number serves all).
    _check(input, len(spacing) if listed else None, dims, edge_order)
    along = list(range(input.ndim)) if dims is None else dims
    if listed and any(isinstance(x, Tensor) and x.ndim for x in spacing):
        return tuple(
            _uneven(input, wrap_dim(d, input.ndim), x, edge_order)
            for d, x in zip(along, spacing, strict=False)
        )
    steps: Sequence[Any] = spacing if listed else [1.0 if spacing is None else spacing] * len(along)
    steps = [s.item() if isinstance(s, Tensor) else s for s in steps]
    return tuple(
        _even(input, wrap_dim(d, input.ndim), h, edge_order)
        for d, h in zip(along, steps, strict=False)
    )
