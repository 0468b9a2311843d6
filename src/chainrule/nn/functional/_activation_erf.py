"""erf for the exact gelu: chainrule's own when the special functions provide it, else ours.

Ours (the fallback) needs only NumPy: a power series (all terms positive)
below |x| = 3 and a continued fraction for erfc above, both to float64 round-off.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..._ops.primitive import Primitive
from ..._tensor import Tensor

__all__ = ["erf", "erf_array"]

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SERIES_TERMS = 60  # term n is x^(2n+1) 2^n / (2n+1)!!, under 1e-18 of the sum by n = 60
_FRACTION_DEPTH = 80  # the continued fraction for erfc, evaluated from the bottom up


def _erf_series(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2/sqrt(pi) exp(-x^2) sum_n x^(2n+1) 2^n / (1*3*...*(2n+1)), for |x| < 3."""
    x2 = x * x
    term = x.copy()
    total = x.copy()
    for k in range(1, _SERIES_TERMS):
        term *= 2 * x2 / (2 * k + 1)
        total += term
    return _TWO_OVER_SQRT_PI * np.exp(-x2) * total


def _erfc_fraction(x: np.ndarray) -> np.ndarray:
    """erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), for x >= 3."""
    tail = x.copy()
    for k in range(_FRACTION_DEPTH, 0, -1):
        tail = x + (k / 2) / tail
    return np.exp(-x * x) / (math.sqrt(math.pi) * tail)


def _erf_numpy(a: np.ndarray) -> np.ndarray:
    """erf on an array (float64 inside, returned in a's float dtype)."""
    x = np.asarray(a, dtype=np.float64)
    far = np.abs(x) >= 3
    out = np.empty_like(x)
    near = ~far
    out[near] = _erf_series(x[near])
    ax = np.abs(x[far])
    out[far] = np.sign(x[far]) * (1 - _erfc_fraction(ax))
    out[np.isnan(x)] = np.nan
    return out.astype(a.dtype if a.dtype.kind == "f" else np.float64, copy=False)


_erf = Primitive(
    "ErfBackward0",
    _erf_numpy,
    grads=(lambda g, n: g * (-(n.self * n.self)).exp() * _TWO_OVER_SQRT_PI,),
    formulas=("2/√π * exp(-self²)",),
    tangent="elementwise",
)

_library_erf: Callable[[Tensor], Tensor] | None
try:  # chainrule.erf, once the special functions are in
    from ..._ops.special.functions import erf as _library_erf
except ImportError:  # pragma: no cover - depends on the build
    _library_erf = None


def erf(input: Tensor) -> Tensor:
    """The error function, differentiable (the exact gelu and its derivatives use it)."""
    result: Tensor = _library_erf(input) if _library_erf is not None else _erf(input)
    return result


def erf_array(a: np.ndarray) -> np.ndarray:
    """erf on an array, by the same implementation as `erf`."""
    if _library_erf is None:
        return _erf_numpy(a)
    return np.asarray(_library_erf(Tensor._make(a))._data)
