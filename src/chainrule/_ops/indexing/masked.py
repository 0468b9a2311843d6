"""Writing and reading through a boolean mask (masked_fill, masked_select, masked_scatter),
the positions of nonzero elements (nonzero, argwhere, one-argument where), and index_put.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import _strides
from ..._dtype import c_type_name, scalar_name
from ..._tensor import Tensor
from ..broadcasting import broadcast_shapes
from ..elementwise import arithmetic as elementwise
from ..primitive import Primitive
from .common import fill_value, inplace_method, pad_to, zeros_of
from .getitem import index_key

__all__ = [
    "argwhere",
    "index_put",
    "index_put_",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "nonzero",
    "nonzero_static",
    "where",
]


def _common_shape(input: Tensor, mask: Tensor) -> tuple[int, ...]:
    return broadcast_shapes(mask._data.shape, input._data.shape)  # PyTorch names the mask first


def _check_mask(mask: Any, message: str) -> None:
    if not isinstance(mask, Tensor):
        raise TypeError(f"argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(message)


# --- masked_fill ------------------------------------------------------------------------------


def _masked_fill_forward(a: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    return np.where(mask, np.asarray(value).astype(a.dtype), a)


def _filled(g: Tensor, n: Any) -> Tensor:
    """The value's gradient: the sum of `g` where the mask holds."""
    return (g - g.masked_fill(n.mask, 0)).sum()


_masked_fill = Primitive(
    "MaskedFillBackward0",
    _masked_fill_forward,
    inputs=("self", "mask"),
    grads=(lambda g, n: g.masked_fill(n.mask, 0), None),
    formulas=("0 where mask, else 1", None),
    tangent="elementwise",
    layout=_strides.contiguous_array,
)
_masked_fill_tensor = Primitive(
    "MaskedFillBackward1",
    _masked_fill_forward,
    inputs=("self", "mask", "value"),
    grads=(lambda g, n: g.masked_fill(n.mask, 0), None, _filled),
    formulas=("0 where mask, else 1", None, "Σ grad where mask"),
    layout=_strides.contiguous_array,
)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy of `input` with `value` where `mask` holds (`mask` broadcasts with `input`)."""
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    message = "masked_fill_ only supports boolean masks, but got mask with dtype "
    _check_mask(mask, message + (c_type_name(mask) if isinstance(mask, Tensor) else ""))
    _common_shape(input, mask)
    if isinstance(value, Tensor):
        return _masked_fill_tensor(input, mask, value)
    return _masked_fill(input, mask, value=fill_value("masked_fill", input, value))


# --- masked_select and masked_scatter -----------------------------------------------------------


def _select_forward(a: np.ndarray, mask: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


_masked_select = Primitive(
    "MaskedSelectBackward0",
    _select_forward,
    inputs=("self", "mask"),
    grads=(lambda g, n: zeros_of(g, n.shape).masked_scatter(n.mask, g), None),
    formulas=("zeros with grad placed in order where mask holds", None),
    tangent="linear",
)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of `input` where `mask` holds, as a 1-d tensor (the two broadcast)."""
    _check_mask(mask, "masked_select: expected BoolTensor for mask")
    return _masked_select(input, mask, shape=_common_shape(input, mask))


def _scatter_forward(
    a: np.ndarray, mask: np.ndarray, source: np.ndarray, shape: tuple[int, ...]
) -> np.ndarray:
    out = np.broadcast_to(a, shape).copy()
    where = np.broadcast_to(mask, shape)
    out[where] = source.reshape(-1)[: np.count_nonzero(where)]
    return out


def _source_grad(g: Tensor, n: Any) -> Tensor:
    """`source` is read in order, as far as the mask needs; the rest gets no gradient."""
    used = g.masked_select(n.mask)
    return pad_to(used, (n.source.numel(),)).reshape(n.source.shape)


_masked_scatter = Primitive(
    "MaskedScatterBackward0",
    _scatter_forward,
    inputs=("self", "mask", "source"),
    grads=(lambda g, n: g.masked_fill(n.mask, 0), None, _source_grad),
    formulas=(
        "0 where mask, else 1",
        None,
        "grad where mask holds, in order (0 for the rest of source)",
    ),
    tangent="linear",
    layout=_strides.contiguous_array,
)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of `input` with the elements of `source`, in order, where `mask` holds."""
    message = "masked_scatter_ only supports boolean masks, but got mask with dtype "
    _check_mask(mask, message + (scalar_name(mask) if isinstance(mask, Tensor) else ""))
    if not isinstance(source, Tensor):
        raise TypeError(f"argument 'source' must be Tensor, not {type(source).__name__}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{scalar_name(input)} and {scalar_name(source)}"
        )
    shape = _common_shape(input, mask)
    if np.count_nonzero(np.broadcast_to(mask._data, shape)) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return _masked_scatter(input, mask, source, shape=shape)


# --- positions of nonzero elements ------------------------------------------------------------


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of nonzero elements: one row each, or one 1-d tensor per dim (`as_tuple`)."""
    a = input._data
    if as_tuple:
        return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(a)))
    return Tensor._make(np.argwhere(a).astype(np.int64))


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """`nonzero` with exactly `size` rows: the first `size` found, then rows of `fill_value`."""
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not {type(size).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(input._data)[:size]
    out = np.full((size, input.ndim), fill_value, dtype=np.int64)
    out[: len(found)] = found
    return Tensor._make(out)


def argwhere(input: Tensor) -> Tensor:
    """The indices of nonzero elements, one row each (as `nonzero`)."""
    return nonzero(input)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """`where(condition, input, other)` elementwise; `where(condition)` is `nonzero(as_tuple)`."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError(
            "where() received an invalid combination of arguments - got (Tensor, Tensor), but "
            "expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, "
            "Tensor other)"
        )
    return elementwise.where(condition, input, other)


# --- index_put -------------------------------------------------------------------------------


def _put_forward(
    a: np.ndarray, values: np.ndarray, key: Any, accumulate: bool, **_: Any
) -> np.ndarray:
    out = a.copy()
    if accumulate:
        np.add.at(out, key, values)  # repeated indices add up
    else:
        out[key] = values
    return out


# Also `t[indices] = values` with advanced indices (indexing/writes.py): `key` is the
# indices as NumPy takes them, `indices` as they were given.
index_put_node: Primitive = Primitive(
    "IndexPutBackward0",
    _put_forward,
    inputs=("self", "values"),
    grads=(
        lambda g, n: (
            g
            if n.accumulate
            else index_put_node(g, zeros_of(g, ()), key=n.key, indices=n.indices, accumulate=False)
        ),
        lambda g, n: g[n.indices],
    ),
    formulas=("grad, with zeros at indices unless accumulate = {accumulate}", "grad[indices]"),
    tangent="linear",
    layout=_strides.like_first,
)


def index_put(
    input: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False
) -> Tensor:
    """A copy of `input` with `input[indices] = values` (or `+=`, adding up repeats)."""
    if not isinstance(values, Tensor):
        raise TypeError(
            f"index_put(): argument 'values' (position 2) must be Tensor, not "
            f"{type(values).__name__}"
        )
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_name(input)} for the destination and {scalar_name(values)} for the source."
        )
    key = index_key(tuple(indices))
    used = sum(k.ndim if k.dtype == np.bool_ else 1 for k in key)
    if used > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {used})")
    try:
        target = input._data[key].shape
    except IndexError as e:
        raise IndexError(str(e).replace("axis", "dimension")) from None
    try:
        np.broadcast_to(values._data, target)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
            f"indexing result of shape {list(target)}"
        ) from None
    return index_put_node(
        input, values, key=key, indices=tuple(indices), accumulate=bool(accumulate)
    )


masked_fill_ = inplace_method("masked_fill_", masked_fill)
masked_scatter_ = inplace_method("masked_scatter_", masked_scatter)
index_put_ = inplace_method("index_put_", index_put)
