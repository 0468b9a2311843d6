"""The extra spellings PyTorch's argument parser accepts on every native op, added once.

PyTorch's C++ parser takes NumPy's `axis=` for `dim=` and `keepdims=` for `keepdim=` on
every op it binds (not on the few written in Python, such as `torch.norm` or
`Tensor.split`), and `out=` on the `torch.*` functions that have an out form. Rather than
spell these in every signature, the namespaces are wrapped once where they are bound
(`_tensor_methods.bind`, the package root, `linalg`, `special`): `accept_keywords` gives a
function the spellings its PyTorch twin has.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from .._autograd import grad_mode
from .._lazy import TYPING, LazyModule
from .._tensor import Tensor

if TYPING:
    from . import inplace
else:  # only `out=` needs it, and it loads the op machinery
    inplace = LazyModule("chainrule._ops.inplace")

__all__ = ["NUMPY_SPELLINGS", "OUT", "PYTHON_DEFINED", "accept_in", "accept_keywords", "write_out"]

NUMPY_SPELLINGS = {"axis": "dim", "keepdims": "keepdim"}

# Factories take their dtype from `out=` when no dtype is given.
FACTORIES = frozenset(
    {
        "arange",
        "empty",
        "eye",
        "full",
        "linspace",
        "logspace",
        "ones",
        "rand",
        "randint",
        "randn",
        "randperm",
        "range",
        "zeros",
    }
)

# Ops PyTorch writes in Python, by namespace: its parser never sees their arguments, so
# they take no `axis=` (those chainrule has that take a dim; tests/test_keywords.py checks).
PYTHON_DEFINED: dict[str, frozenset[str]] = {
    "torch": frozenset(
        {"norm", "split", "meshgrid", "unique", "unique_consecutive", "broadcast_tensors"}
    ),
    "torch.Tensor": frozenset({"norm", "split", "unflatten", "unique", "unique_consecutive"}),
}

# The torch.*, torch.linalg.* and torch.special.* functions chainrule has whose PyTorch
# twin takes `out=` (tests/test_keywords.py compares it with PyTorch's op schemas).
# fmt: off
OUT: dict[str, frozenset[str]] = {
    "torch": frozenset(
        {
            "abs", "absolute", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul",
            "addmm", "addmv", "all", "amax", "amin", "aminmax", "any", "arange",
            "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
            "argmax", "argmin", "argsort", "asin", "asinh", "atan", "atan2", "atanh",
            "baddbmm", "bernoulli", "bitwise_and", "bitwise_left_shift", "bitwise_not",
            "bitwise_or", "bitwise_right_shift", "bitwise_xor", "bmm", "cat", "ceil",
            "cholesky", "cholesky_inverse", "cholesky_solve",
            "clamp", "clamp_max", "clamp_min", "clip", "column_stack",
            "concat", "concatenate", "copysign", "cos", "cosh", "cross", "cummax",
            "cummin", "cumprod", "cumsum", "deg2rad", "diag", "diff", "digamma", "div",
            "divide", "dot", "dstack", "empty", "eq", "erf", "erfc", "erfinv", "exp",
            "exp2", "expm1", "eye", "fix", "float_power", "floor", "floor_divide",
            "fmax", "fmin", "fmod", "frac", "full", "gather", "ge", "ger", "greater",
            "greater_equal", "gt", "heaviside", "hstack", "hypot", "i0", "index_add",
            "index_copy", "index_select", "inner", "inverse", "isneginf", "isposinf",
            "kron", "kthvalue", "ldexp", "le", "lerp", "less", "less_equal", "lgamma",
            "linspace", "log", "log10", "log1p", "log2", "log_softmax", "logaddexp",
            "logaddexp2", "logcumsumexp", "logical_and", "logical_not", "logical_or",
            "logical_xor", "logit", "logsumexp", "lt", "lu_solve", "lu_unpack",
            "masked_select", "matmul",
            "matrix_power", "max", "maximum", "mean", "median", "min", "minimum", "mm",
            "msort", "mul", "multinomial", "multiply", "mv", "mvlgamma", "nan_to_num",
            "nanmean", "nanmedian", "nansum", "ne", "neg", "negative", "nextafter",
            "nonzero", "norm", "normal", "not_equal", "ones", "orgqr", "outer", "polygamma",
            "pow", "prod", "qr", "rad2deg", "rand", "randint", "randn", "randperm",
            "reciprocal", "remainder", "round", "row_stack", "rsqrt", "scatter",
            "scatter_add", "sgn", "sigmoid", "sign", "signbit", "sin", "sinc", "sinh",
            "slogdet", "softmax", "sort", "sqrt", "square", "stack", "std", "sub",
            "subtract", "sum", "svd", "take", "take_along_dim", "tan", "tanh",
            "tensordot", "topk", "triangular_solve", "tril", "triu", "true_divide",
            "trunc", "var", "vdot",
            "vstack", "where", "xlogy", "zeros",
            "quantile",
            "nanquantile",
            "mode",
            "scatter_reduce", "index_reduce", "slice_scatter",
            "bucketize", "histc", "isin", "logspace", "range", "searchsorted",
            "addr",
            "chain_matmul",
            "frexp",
            "frobenius_norm",
            "gcd",
            "hardshrink",
            "igamma",
            "igammac",
            "lcm",
            "nuclear_norm",
            "renorm",
            "threshold",
            "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
            "narrow_copy", "permute_copy", "select_copy", "slice_copy", "split_copy",
            "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy",
            "unfold_copy", "unsqueeze_copy", "view_copy",
            "histogram", "nonzero_static",
        }
    ),
    "torch.linalg": frozenset(
        {
            "cholesky", "cholesky_ex", "cond", "cross", "det", "eigh", "eigvalsh",
            "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve",
            "lu", "lu_factor", "lu_factor_ex",
            "lu_solve", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
            "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
            "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vecdot",
            "vector_norm",
        }
    ),
    "torch.special": frozenset(
        {
            "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
            "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
            "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
            "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
            "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
            "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "logit",
            "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
            "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
            "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
            "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
            "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc",
            "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
        }
    ),
}
# fmt: on

RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0)."
)


def _tensors(args: Iterable[Any]) -> Iterator[Tensor]:
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, list | tuple):
            yield from _tensors(a)


def _check_overlap(inputs: list[Tensor], out: Tensor) -> None:
    """An input may be `out` itself, but not share only some of its memory."""
    o = out._data
    for a in inputs:
        d = a._data
        same = d.shape == o.shape and d.strides == o.strides and d.ctypes.data == o.ctypes.data
        if not same and np.shares_memory(d, o):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation."
            )


def _write_one(result: Tensor, out: Tensor) -> Tensor:
    inplace.check_castable(result._data.dtype, out._data.dtype)
    shape = result._data.shape
    if out._data.shape != shape:
        if out._data.size:
            warnings.warn(
                RESIZED.format(old=list(out._data.shape), new=list(shape)), UserWarning, 4
            )
        out._data = np.empty(shape, dtype=out._data.dtype)
    with grad_mode.no_grad():
        out.copy_(result)
    return out


def write_out(name: str, fn: Callable[..., Any], args: tuple, kwargs: dict, out: Any) -> Any:
    """`fn(*args, **kwargs)` written into `out` (a tensor, or a tuple of them for an op with
    several results), as PyTorch's out= forms do: not differentiable, `out` resized to fit."""
    inputs = list(_tensors((*args, *kwargs.values())))
    outs = list(_tensors([out]))
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in inputs + outs):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    for o in outs:
        _check_overlap(inputs, o)
    result = fn(*args, **kwargs)
    if isinstance(result, Tensor):
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        return _write_one(result, out)
    if not isinstance(out, tuple | list) or len(out) != len(result):
        raise TypeError(
            f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    written = [_write_one(r, o) for r, o in zip(result, out, strict=True)]
    return type(result)(written)


def _takes(fn: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    kinds = {p.kind for p in params.values()}
    # An op with several signatures parses `*args, **kwargs` itself (`max`, `var`, ...).
    return (
        name in params or {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD} <= kinds
    )


def accept_keywords(fn: Callable[..., Any], label: str, name: str) -> Callable[..., Any]:
    """`fn`, PyTorch's `label.name` ("torch.Tensor.sum", ...), taking `axis=`/`keepdims=`
    where it takes `dim`/`keepdim`, and `out=` where PyTorch's op does. Returns `fn` itself
    when it needs neither."""
    out = name in OUT.get(label, ())
    spellings = (
        ()
        if name in PYTHON_DEFINED.get(label, ())
        else tuple((a, d) for a, d in NUMPY_SPELLINGS.items() if _takes(fn, d))
    )
    if not spellings and not out:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias, real in spellings:
                if alias in kwargs:
                    if real in kwargs:
                        raise TypeError(f"{name}() got an unexpected keyword argument '{alias}'")
                    kwargs[real] = kwargs.pop(alias)
            if out and "out" in kwargs:
                target = kwargs.pop("out")
                if target is not None:
                    if name in FACTORIES and isinstance(target, Tensor):
                        kwargs.setdefault("dtype", target.dtype)
                    return write_out(name, fn, args, kwargs, target)
        return fn(*args, **kwargs)

    return call


def accept_in(namespace: dict[str, Any], label: str, names: Iterable[str]) -> None:
    """Give each op `names` of a module's namespace (`globals()`) PyTorch's extra spellings;
    `label` ("torch", "torch.linalg", ...) picks which of them take `out=`."""
    for name in names:
        fn = namespace[name]
        if inspect.isfunction(fn):
            namespace[name] = accept_keywords(fn, label, name)
