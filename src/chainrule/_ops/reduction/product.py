"""prod, and the p-norm `norm` of a tensor."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _dtype
from ..._creation import ones_like
from ..._dtype import scalar_name
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..elementwise.conditional import where
from ..primitive import Primitive, wrap_dim
from ..quiet import quietly
from ..shape.rearrange import flip
from ..shape.views import cat
from .common import (
    bind,
    dims_of,
    invalid_arguments,
    is_int,
    restore,
)
from .sum_mean import _sum_dtype

__all__ = ["norm", "prod"]


# --- prod ---------------------------------------------------------------------------------


def _product_of_others(x: Tensor, dim: int) -> Tensor:
    """prod_{j != k} x_j along `dim` for every k, without dividing (zeros are fine).

    The product of the entries before k times that of the entries after k: two
    exclusive running products, so its own derivative comes from cumprod's rule.
    """
    size = x.shape[dim]
    if size == 0:
        return ones_like(x)
    one = ones_like(x.narrow(dim, 0, 1))
    before = cat([one, x.narrow(dim, 0, size - 1)], dim).cumprod(dim)
    backwards = flip(x, dims=(dim,))
    after = flip(cat([one, backwards.narrow(dim, 0, size - 1)], dim).cumprod(dim), dims=(dim,))
    return before * after


def _prod_grad(g: Tensor, x: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    """g times the product of the other entries (never result / x: zeros and underflow)."""
    if x.ndim == 0:
        return g
    if dim is None:
        return g * _product_of_others(x.reshape(-1), 0).reshape(x.shape)
    return restore(g, (dim,), keepdim, x.shape) * _product_of_others(x, dim)


_prod_all = Primitive(
    "ProdBackward0",
    lambda a, dt: np.asarray(np.prod(a, dtype=dt)),
    grads=(lambda g, n: _prod_grad(g, n.self, None, False),),
    formulas=("the product of the other entries",),
    layout=contiguous_array,
)
_prod_dim = Primitive(
    "ProdBackward1",
    lambda a, dim, keepdim, dt: np.prod(a, axis=dim, keepdims=keepdim, dtype=dt),
    grads=(lambda g, n: _prod_grad(g, n.self, n.dim, n.keepdim),),
    formulas=("the product of the other entries along dim {dim}",),
    layout=contiguous_array,
)
_PROD_SIGNATURES = {
    False: (
        "Tensor input, *, torch.dtype dtype = None",
        "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
        "Tensor out = None",
    ),
    True: (
        "*, torch.dtype dtype = None",
        "int dim, bool keepdim = False, *, torch.dtype dtype = None",
    ),
}


def _prod(
    name: str, input: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any], method: bool
) -> Tensor:
    """prod(input, *, dtype) or prod(input, dim, keepdim=False, *, dtype): dim is one int."""
    bound = bind(args, kwargs, ("dim", "keepdim"), {"dim", "keepdim", "dtype"})
    dt = _sum_dtype(input, (bound or {}).pop("dtype", None))
    if bound == {}:
        return _prod_all(input, dt=dt)
    if (
        bound is None
        or not is_int(bound.get("dim"))
        or not isinstance(bound.get("keepdim", False), bool)
    ):
        shown = args if method else (input, *args)
        raise invalid_arguments(name, shown, kwargs, _PROD_SIGNATURES[method])
    d = wrap_dim(bound["dim"], input.ndim)
    return _prod_dim(input, dim=d if input.ndim else (), keepdim=bound.get("keepdim", False), dt=dt)


def prod(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The product of all entries, or over one `dim`; integers and bools give int64."""
    return _prod("prod", input, args, kwargs, method=False)


def prod_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`x.prod()` or `x.prod(dim)`, as `prod` (its errors list the method's signatures)."""
    return _prod("prod", self, args, kwargs, method=True)


prod_method.__name__ = prod_method.__qualname__ = "prod"


# --- norm ---------------------------------------------------------------------------------


@quietly  # 0 ** negative order is inf, and large entries overflow to it, as in PyTorch
def _vector_norm_forward(
    a: np.ndarray, ord: float, dim: Any, keepdim: bool, dt: Any, single: bool, **_: Any
) -> Any:
    a = np.abs(a.astype(dt, copy=False))
    if ord == math.inf or (single and ord != 0):  # the norm of one number is its size
        return np.max(a, axis=dim, keepdims=keepdim, initial=0)
    if ord == -math.inf:
        return np.min(a, axis=dim, keepdims=keepdim, initial=math.inf)
    if ord == 0:
        return np.sum(a != 0, axis=dim, keepdims=keepdim, dtype=dt)
    if ord == 1:
        return np.sum(a, axis=dim, keepdims=keepdim)
    if ord == 2:
        return np.sqrt(np.sum(a * a, axis=dim, keepdims=keepdim))
    return np.sum(a**ord, axis=dim, keepdims=keepdim) ** (1 / ord)


def _norm_grad(g: Tensor, x: Tensor, norm: Tensor, n: Any) -> Tensor | None:
    """PyTorch's gradient of a p-norm; where the norm (or an entry) is 0 it is taken as 0."""
    p = n.ord
    if p == 0:
        return None  # piecewise constant: PyTorch gives no gradient at all
    g = restore(g, n.dim, n.keepdim, n.self_sizes)
    if p == 1:
        return g * x.sign()
    norm = restore(norm, n.dim, n.keepdim, n.self_sizes)
    if math.isinf(p):  # the entries of largest (smallest) size share it, with their sign
        hits = x.abs() == norm
        return g * x.sign() * hits / hits.sum(n.dim, keepdim=True)
    vanished = norm == 0
    if p == 2:
        return x * where(vanished, 0, g / where(vanished, 1, norm))
    if p < 2:  # |x|^(p - 1) is infinite at x = 0, whose gradient is 0
        zero = x == 0
        scaled = where(zero, 0, x.sign() * where(zero, 1, x.abs()) ** (p - 1))
    else:
        scaled = x * x.abs() ** (p - 2)
    return scaled * where(vanished, 0, g / where(vanished, 1, norm) ** (p - 1))


_vector_norm = Primitive(
    "LinalgVectorNormBackward0",
    _vector_norm_forward,
    grads=(lambda g, n: _norm_grad(g, n.self, n.result, n),),
    formulas=("|self|^(p - 1) * sign(self) / result^(p - 1), p = {ord}",),
    layout=contiguous_array,
)
# The same norm as PyTorch's `norm(input, p, dim)` records it (pairwise_distance's).
_norm_over_dims = Primitive(
    "NormBackward1",
    _vector_norm_forward,
    grads=(lambda g, n: _norm_grad(g, n.self, n.result, n),),
    formulas=("|self|^(p - 1) * sign(self) / result^(p - 1), p = {ord}",),
    layout=contiguous_array,
)


def _norm_order(p: Any, dim: Any) -> float:
    """The vector norm order of `p`; 'fro' (and None) is the 2-norm, over at most two dims."""
    if p is None:
        return 2.0
    if not isinstance(p, str):
        return float(p)
    if p == "fro":
        if dim is not None and not isinstance(dim, int | np.integer) and len(dim) > 2:
            raise RuntimeError(
                f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
            )
        return 2.0
    if p == "nuc":
        raise NotImplementedError("norm(p='nuc'): the nuclear norm is not supported by chainrule")
    raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")


def _check_norm_identity(input: Tensor, p: float, dim: Any, dims: tuple[int, ...]) -> None:
    """Norms with no identity (inf and negative orders) refuse to reduce over nothing."""
    if not (p < 0 or p == math.inf):
        return
    shape = input._data.shape
    if dim is None and input.numel() == 0:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
            "operation does not have an identity"
        )
    shown = (dim,) if isinstance(dim, int | np.integer) else tuple(dim or ())
    for d, s in zip(dims, shown, strict=False):
        if shape[d] == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {p:g} norm on the dimension {s}because "
                "this dimension is empty and the operation does not have an identity"
            )


def norm(
    input: Tensor,
    p: Any = "fro",
    dim: Any = None,
    keepdim: bool = False,
    out: Any = None,
    dtype: Any = None,
) -> Tensor:
    """The vector p-norm over `dim` (all dims when None): p = 2 ('fro'), 1, inf, -inf, 0, any."""
    if out is not None:
        raise NotImplementedError("norm(): the out= argument is not supported by chainrule")
    ord = _norm_order(p, dim)
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(input._data.dtype)}"
        )
    dims = dims_of(input, dim, "norm")
    dt = _dtype.to_dtype(dtype).np if dtype is not None else input._data.dtype
    return p_norm(input, ord, dim, dims, keepdim, dt)


def p_norm(
    input: Tensor,
    ord: float,
    dim: Any,
    dims: tuple[int, ...],
    keepdim: bool,
    dt: np.dtype,
    node: str = "LinalgVectorNormBackward0",
) -> Tensor:
    """The `ord`-norm of `input` over `dims` (`dim` as the caller gave it), in dtype `dt`:
    the one p-norm, under `node` (torch.norm, Tensor.norm, linalg.vector_norm and
    normalize record LinalgVectorNormBackward0; pairwise_distance NormBackward1)."""
    _check_norm_identity(input, ord, dim, dims)
    # As in PyTorch, a norm of one entry is its size (no under/overflow in squaring it),
    # except for a 0-d tensor reduced over an explicit dim.
    single = math.prod(input._data.shape[d] for d in dims) == 1 and (input.ndim or dim is None)
    prim = _vector_norm if node == "LinalgVectorNormBackward0" else _norm_over_dims
    return prim(
        input,
        ord=ord,
        dim=dims,
        keepdim=keepdim,
        dt=dt,
        single=single,
        self_sizes=input._data.shape,
    )
