"""`chainrule.special`: special functions with gradients (PyTorch's torch.special).

Most names here are the package's own ops under torch.special's names; their
errors name the op as PyTorch does (`special_erf(): ...`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ._ops import elementwise as _elementwise
from ._ops.elementwise import arithmetic as _arithmetic
from ._ops.elementwise import rounding as _rounding
from ._ops.elementwise.binary_math import xlog1py, xlogy
from ._ops.elementwise.unary_common import check_tensor
from ._ops.keywords import accept_in
from ._ops.reduction.sum_mean import logsumexp
from ._ops.special import bessel as _bessel
from ._ops.special import functions as _special
from ._ops.special.cylinder import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from ._ops.special.incomplete import gammainc, gammaincc, zeta
from ._ops.special.polynomials import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)
from ._tensor import Tensor
from .nn.functional._activation_softmax import log_softmax as _log_softmax
from .nn.functional._activation_softmax import softmax as _softmax

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]


def _renamed(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    """`fn` under torch.special's name (which its argument errors then use)."""

    def op(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        check_tensor(f"special_{name}", input)
        return fn(input, *args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = fn.__doc__
    return op


erf = _renamed(_special.erf, "erf")
erfc = _renamed(_special.erfc, "erfc")
erfcx = _renamed(_special.special_erfcx, "erfcx")
erfinv = _renamed(_special.erfinv, "erfinv")
expit = _renamed(_elementwise.sigmoid, "expit")
logit = _renamed(_elementwise.logit, "logit")
gammaln = _renamed(_special.lgamma, "gammaln")
digamma = _renamed(_special.digamma, "digamma")
psi = _renamed(_special.digamma, "psi")
multigammaln = _renamed(_special.mvlgamma, "multigammaln")
expm1 = _renamed(_elementwise.expm1, "expm1")
exp2 = _renamed(_elementwise.exp2, "exp2")
log1p = _renamed(_elementwise.log1p, "log1p")
sinc = _renamed(_elementwise.sinc, "sinc")
i0 = _renamed(_bessel.i0, "i0")
i0e = _renamed(_bessel.special_i0e, "i0e")
i1 = _renamed(_bessel.special_i1, "i1")
i1e = _renamed(_bessel.special_i1e, "i1e")
entr = _renamed(_special.special_entr, "entr")
ndtri = _renamed(_special.special_ndtri, "ndtri")
log_ndtr = _renamed(_special.special_log_ndtr, "log_ndtr")


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma."""
    check_tensor("special_polygamma", input, position=2)
    return _special.polygamma(n, input)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round half to even, to `decimals` decimal places."""
    check_tensor("special_round", input)
    if input._data.dtype.kind != "f":  # unlike torch.round, no copy for integers
        _rounding.not_for(input, "round_vml_cpu", "biu")
    return _rounding.round(input, decimals=decimals)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """exp(input) / sum(exp(input)) along dim (as nn.functional.softmax)."""
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """log(softmax(input)) along dim, computed stably (as nn.functional.log_softmax)."""
    return _log_softmax(input, dim, dtype=dtype)


# ndtr is, as in PyTorch, the composition (1 + erf(x / sqrt 2)) * 0.5, with its graph nodes
# for a tensor times (and plus) a number.
def ndtr(input: Tensor) -> Tensor:
    """The standard normal cdf."""
    check_tensor("special_ndtr", input)
    times, plus = _arithmetic.mul_scalar, _arithmetic.add_scalar
    return times(plus(_special.erf(times(input, math.sqrt(0.5))), 1.0), 0.5)


# Every op takes the spellings PyTorch's argument parser adds (`axis=`, `out=`, ...).
accept_in(globals(), "torch.special", __all__)
