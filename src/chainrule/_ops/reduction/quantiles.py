"""Quantiles: quantile and nanquantile, composed of a sort, gathers and a lerp as in PyTorch.

The reduced dim is moved last and sorted; each q becomes a fractional rank into the
sorted values (a slice holding NaN gets the last rank for quantile, which is NaN;
nanquantile counts only the values that are not NaN), and the two neighbouring values
are gathered and interpolated. PyTorch finishes by reshaping its result in place
(`squeeze_`, `unsqueeze_`, `transpose_`), so the last nodes are those in-place forms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ..elementwise.arithmetic import mul_scalar
from ..elementwise.ternary import lerp
from ..indexing.gather_scatter import gather
from ..indexing.masked import masked_fill
from ..primitive import wrap_dim
from ..shape.combining import broadcast_tensors
from ..shape.inplace_views import squeeze_, transpose_, unsqueeze_
from ..shape.views import flatten, transpose, unsqueeze, view
from .common import bind, invalid_arguments
from .introsort import unstable_order
from .sorting import sort_values, stable_order

__all__ = ["nanquantile", "quantile"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")
# How the modes that pick one of the sorted values round a fractional rank (half to even).
_ROUNDING: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "lower": np.floor,
    "higher": np.ceil,
    "nearest": np.round,
}
_SIGNATURES = (
    "Tensor input, Tensor q, int dim = None, bool keepdim = False, *, "
    'str interpolation = "linear", Tensor out = None',
    "Tensor input, float q, int dim = None, bool keepdim = False, *, "
    'str interpolation = "linear", Tensor out = None',
)
_METHOD_SIGNATURES = tuple(
    s.removeprefix("Tensor input, ").removesuffix(", Tensor out = None") for s in _SIGNATURES
)


def _parse(
    name: str, input: Any, args: tuple[Any, ...], kwargs: dict[str, Any], method: bool
) -> Any:
    """(q, dim, keepdim, interpolation) as PyTorch's parser reads them, or its TypeError."""
    params = bind(args, kwargs, ("q", "dim", "keepdim"), {"q", "dim", "keepdim", "interpolation"})
    q = None if params is None else params.get("q")
    dim = None if params is None else params.get("dim")
    keepdim = False if params is None else params.get("keepdim", False)
    interpolation = "linear" if params is None else params.get("interpolation", "linear")
    ok = (
        params is not None
        and isinstance(input, Tensor)
        and "q" in params
        and isinstance(q, Tensor | int | float | np.integer | np.floating)
        and (dim is None or (isinstance(dim, int | np.integer) and not isinstance(dim, bool)))
        and isinstance(keepdim, bool)
        and isinstance(interpolation, str)
    )
    if not ok:
        given = args if method else (input, *args)
        raise invalid_arguments(name, given, kwargs, _METHOD_SIGNATURES if method else _SIGNATURES)
    return q, dim, keepdim, interpolation


def _check(input: Tensor, q: Tensor, interpolation: str) -> None:
    if interpolation not in _MODES:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if input._data.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != input._data.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")


def _sort(input: Tensor) -> Tensor:
    """`input.sort().values`, ties in the order PyTorch's kernel leaves them: that order
    decides which of equal entries a gradient reaches (the values are the same anyway)."""
    if input.requires_grad:
        order = unstable_order(input._data, -1)
    else:
        order = stable_order(input._data, -1, descending=False)
    return sort_values(input, order, -1)


def _sorted_last(input: Tensor, dim: int | None) -> Tensor:
    """The input sorted along the reduced dim, moved last (everything, flattened, if None)."""
    if dim is None:
        return _sort(flatten(input))
    d = wrap_dim(dim, input.ndim)
    if d == input.ndim - 1:
        return _sort(input)
    return _sort(transpose(unsqueeze(input, -1), d, -1))


def _result_shape(input: Tensor, dim: int | None, keepdim: bool) -> list[int]:
    """The result's shape before the q dim is put in front."""
    shape = list(input._data.shape)
    if dim is not None and shape:
        d = wrap_dim(dim, input.ndim)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
        return shape
    return [1] * len(shape) if keepdim else []


def _ranks(sorted: Tensor, q: Tensor, ignore_nan: bool) -> Tensor:
    """Each q as a fractional index into the sorted values of each slice."""
    nan = sorted.isnan()
    if ignore_nan:
        # Only the values that are not NaN count; a slice of NaN gets rank 0 (NaN).
        ranks = q * ((~nan).sum(-1, True) - 1)
        return masked_fill(ranks, ranks < 0, 0)
    last = sorted._data.shape[-1] - 1
    # A slice holding NaN takes the last rank, whose value (NaN sorts last) is NaN.
    spread, has_nan = broadcast_tensors(mul_scalar(q, last), nan.any(-1, True))
    return masked_fill(spread, has_nan, last)


def _compute(
    input: Tensor, q: Tensor, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool
) -> Tensor:
    sorted = _sorted_last(input, dim)
    shape = _result_shape(input, dim, keepdim)
    sorted = view(sorted, *shape, sorted._data.shape[-1])
    ranks = _ranks(sorted, q, ignore_nan)
    if interpolation in ("lower", "higher", "nearest"):
        ranks = Tensor._make(_ROUNDING[interpolation](ranks._data))
    below = ranks.long()
    values = gather(sorted, -1, below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "linear":
            weights = ranks - below
        else:
            weights = Tensor._make(np.full_like(ranks._data, 0.5))
        above = Tensor._make(np.ceil(ranks._data).astype(np.int64))
        values = lerp(values, gather(sorted, -1, above), weights)
    if q.ndim == 0:
        return squeeze_(values, -1)
    return squeeze_(transpose_(unsqueeze_(values, 0), 0, -1), -1)


def _quantile(
    name: str, input: Any, args: tuple[Any, ...], kwargs: dict[str, Any], method: bool
) -> Tensor:
    ignore_nan = name == "nanquantile"
    q, dim, keepdim, interpolation = _parse(name, input, args, kwargs, method)
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q):g}")
        q = Tensor._make(np.asarray(q, dtype=input._data.dtype))
    _check(input, q, interpolation)
    if dim is not None:
        wrap_dim(dim, input.ndim)
    if not bool(np.all((q._data >= 0) & (q._data <= 1))):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return _compute(input, q, dim, bool(keepdim), interpolation, ignore_nan)


def quantile(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`quantile(input, q, dim=None, keepdim=False, *, interpolation='linear')`: the q-th
    quantiles (q a number or a 1-d tensor in [0, 1]) of all entries, or along `dim`.
    A slice holding NaN has NaN quantiles; q's dim comes first in the result."""
    return _quantile("quantile", input, args, kwargs, method=False)


def nanquantile(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """As `quantile`, over the entries that are not NaN (NaN where a slice has none)."""
    return _quantile("nanquantile", input, args, kwargs, method=False)


def quantile_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`x.quantile(q, dim=None, keepdim=False, *, interpolation='linear')`, as `quantile`."""
    return _quantile("quantile", self, args, kwargs, method=True)


def nanquantile_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`x.nanquantile(q, ...)`, as `nanquantile`."""
    return _quantile("nanquantile", self, args, kwargs, method=True)


quantile_method.__name__ = quantile_method.__qualname__ = "quantile"
nanquantile_method.__name__ = nanquantile_method.__qualname__ = "nanquantile"
