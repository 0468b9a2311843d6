"""The orthogonal polynomials of torch.special: Chebyshev (T, U, V, W, and shifted to
[0, 1]), Hermite (H, He), Laguerre L and Legendre P, of a degree n given per element.

PyTorch gives them no derivative (results never require grad). Each is its
three-term recurrence P_(m+1) = a_m P_m - b_m P_(m-1), run over the whole array
at once, with PyTorch's special cases: degree n is truncated to an integer (nan,
inf and out-of-range degrees count as negative, giving 0), the ends of the
interval have closed forms, and the Chebyshev families switch to their
trigonometric forms inside (-1, 1) beyond a small degree, as PyTorch's kernels
do, so the values agree to rounding.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._tensor import Tensor
from .common import values_only_pair

__all__: list[str] = []  # torch.special's names only: see chainrule.special

Step = Callable[[int, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _degrees(n: np.ndarray) -> np.ndarray:
    """n as PyTorch's kernels cast it to int64: truncated; nan, inf and values past int64
    become int64's minimum (negative)."""
    finite = np.isfinite(n) & (np.abs(n) < 2.0**63)
    return np.where(finite, np.trunc(np.where(finite, n, 0.0)), -1.0).astype(np.int64)


def _recurrence(x: np.ndarray, n: np.ndarray, first: np.ndarray, step: Step) -> np.ndarray:
    """P_n(x) from P_0 = 1 and P_1 = first, by P_(m+1) = step(m, x, P_m, P_(m-1))."""
    p = np.ones_like(x)
    q = np.asarray(first, dtype=x.dtype)
    top = int(n.max(initial=1))
    for m in range(1, top):
        live = (n > m) & ~np.isnan(q)  # PyTorch's loop stops at a nan, as at the degree
        if not live.any():
            break
        r = step(m, x, q, p)
        p, q = np.where(live, q, p), np.where(live, r, q)
    return np.where(n <= 0, 1.0, q)


def _polynomial(first: Callable[[np.ndarray], np.ndarray], step: Step) -> Callable[..., np.ndarray]:
    def kernel(x: np.ndarray, n: np.ndarray, dtype: np.dtype) -> np.ndarray:
        k = _degrees(n)
        x = x.astype(dtype)  # in the result's dtype, to overflow (then give nan) where it does
        return np.where(k < 0, 0.0, _recurrence(x, k, first(x), step))

    return kernel


def _twice(x: np.ndarray) -> np.ndarray:
    return x + x


def _chebyshev_step(m: int, x: np.ndarray, q: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (x + x) * q - p


def _shifted_step(m: int, x: np.ndarray, q: np.ndarray, p: np.ndarray) -> np.ndarray:
    y = x + x - 1.0
    return (y + y) * q - p


def _parity(k: np.ndarray, even: np.ndarray | float, odd: np.ndarray | float) -> np.ndarray:
    return np.where(k % 2 == 0, even, odd)


# --- Chebyshev polynomials on [-1, 1] ---------------------------------------------------------

_T_BASE = _polynomial(lambda x: x, _chebyshev_step)
_U_BASE = _polynomial(_twice, _chebyshev_step)
_V_BASE = _polynomial(lambda x: x + x - 1.0, _chebyshev_step)
_W_BASE = _polynomial(lambda x: x + x + 1.0, _chebyshev_step)


def _chebyshev(
    base: Callable[..., np.ndarray],
    ends: Callable[[np.ndarray, np.ndarray], np.ndarray],
    trig: Callable[[np.ndarray, np.ndarray], np.ndarray],
    trig_from: int,
    shifted: bool,
) -> Callable[..., np.ndarray]:
    """A Chebyshev family: `ends(y, k)` at the interval's ends, `trig(y, k)` inside it for
    degrees above `trig_from`, else the recurrence; y = 2x - 1 for the shifted ones."""

    def kernel(x: np.ndarray, n: np.ndarray, dtype: np.dtype) -> np.ndarray:
        k = _degrees(n)
        y = x + x - 1.0 if shifted else x
        inside = (k > trig_from) & (np.abs(y) < 1.0)
        end = (x == 1.0) | (x == 0.0) if shifted else np.abs(x) == 1.0
        out = base(x, np.where(inside | end, 0.0, n), dtype)  # the rest by the recurrence
        out = np.where(inside, trig(np.where(inside, y, 0.0), k), out)
        out = np.where(end, ends(y, k), out)
        return np.where(k < 0, 0.0, out)

    return kernel


def _t_trig(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    return np.cos(k * np.arccos(y))


def _u_trig(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    theta = np.arccos(y)
    s = np.sin(theta)
    return np.where(s != 0, np.sin((k + 1) * theta) / s, (k + 1) * np.cos((k + 1) * theta) / y)


def _v_trig(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    theta = np.arccos(y)
    at_end = np.sin(theta / 2) == 1.0
    return np.where(
        at_end, _parity(k, 2 * k + 1, -(2 * k + 1)), np.cos((k + 0.5) * theta) / np.cos(theta / 2)
    )


def _w_trig(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    theta = np.arccos(y)
    at_end = np.cos(theta / 2) == 1.0
    end = np.where(y > 0, 2 * k + 1, _parity(k, 1.0, -1.0))
    return np.where(at_end, end, np.sin((k + 0.5) * theta) / np.sin(theta / 2))


def _t_ends(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    return np.where(y > 0, 1.0, _parity(k, 1.0, -1.0))


def _u_ends(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    return np.where(y > 0, k + 1.0, _parity(k, k + 1.0, -(k + 1.0)))


def _v_ends(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    return np.where(y > 0, 1.0, _parity(k, 2 * k + 1.0, -(2 * k + 1.0)))


def _w_ends(y: np.ndarray, k: np.ndarray) -> np.ndarray:
    return np.where(y > 0, 2 * k + 1.0, _parity(k, 1.0, -1.0))


_SHIFTED_T = _polynomial(lambda x: x + x - 1.0, _shifted_step)
_SHIFTED_U = _polynomial(lambda x: (x + x - 1.0) * 2, _shifted_step)
_SHIFTED_V = _polynomial(lambda x: (x + x - 1.0) * 2 - 1.0, _shifted_step)
_SHIFTED_W = _polynomial(lambda x: (x + x - 1.0) * 2 + 1.0, _shifted_step)

# --- Hermite, Laguerre, Legendre ---------------------------------------------------------------


def _hermite(first: Callable[[np.ndarray], np.ndarray], step: Step) -> Callable[..., np.ndarray]:
    base = _polynomial(first, step)

    def kernel(x: np.ndarray, n: np.ndarray, dtype: np.dtype) -> np.ndarray:
        # Past this degree PyTorch gives nan (float32's limit is lower than float64's).
        limit = 128 if dtype.itemsize <= 4 else 512
        k = _degrees(n)
        return np.where(k > limit, np.nan, base(x, np.where(k > limit, 0.0, n), dtype))

    return kernel


def _laguerre(x: np.ndarray, n: np.ndarray, dtype: np.dtype) -> np.ndarray:
    k = _degrees(n)
    out = _polynomial(
        lambda x: 1.0 - x, lambda m, x, q, p: ((m + m + (1.0 - x)) * q - m * p) / (m + 1)
    )(x, n, dtype)
    return np.where((k >= 0) & (x == 0), 1.0, out)


def _legendre(x: np.ndarray, n: np.ndarray, dtype: np.dtype) -> np.ndarray:
    k = _degrees(n)
    out = _polynomial(lambda x: x, lambda m, x, q, p: ((m + m + 1) * x * q - m * p) / (m + 1))(
        x, n, dtype
    )
    return np.where((k >= 0) & (np.abs(x) == 1.0), _t_ends(x, k), out)


def _op(name: str, kernel: Callable[..., np.ndarray], what: str) -> Callable[..., Tensor]:
    return values_only_pair(name, kernel, f"{what} of degree n at input (no gradient).")


chebyshev_polynomial_t = _op(
    "chebyshev_polynomial_t",
    _chebyshev(_T_BASE, _t_ends, _t_trig, 6, False),
    "The Chebyshev polynomial of the first kind, T_n,",
)
chebyshev_polynomial_u = _op(
    "chebyshev_polynomial_u",
    _chebyshev(_U_BASE, _u_ends, _u_trig, 8, False),
    "The Chebyshev polynomial of the second kind, U_n,",
)
chebyshev_polynomial_v = _op(
    "chebyshev_polynomial_v",
    _chebyshev(_V_BASE, _v_ends, _v_trig, 8, False),
    "The Chebyshev polynomial of the third kind, V_n,",
)
chebyshev_polynomial_w = _op(
    "chebyshev_polynomial_w",
    _chebyshev(_W_BASE, _w_ends, _w_trig, 8, False),
    "The Chebyshev polynomial of the fourth kind, W_n,",
)
shifted_chebyshev_polynomial_t = _op(
    "shifted_chebyshev_polynomial_t",
    _chebyshev(_SHIFTED_T, _t_ends, _t_trig, 6, True),
    "T_n(2x - 1), the shifted Chebyshev polynomial of the first kind,",
)
shifted_chebyshev_polynomial_u = _op(
    "shifted_chebyshev_polynomial_u",
    _chebyshev(_SHIFTED_U, _u_ends, _u_trig, 6, True),
    "U_n(2x - 1), the shifted Chebyshev polynomial of the second kind,",
)
shifted_chebyshev_polynomial_v = _op(
    "shifted_chebyshev_polynomial_v",
    _chebyshev(_SHIFTED_V, _v_ends, _v_trig, 6, True),
    "V_n(2x - 1), the shifted Chebyshev polynomial of the third kind,",
)
shifted_chebyshev_polynomial_w = _op(
    "shifted_chebyshev_polynomial_w",
    _chebyshev(_SHIFTED_W, _w_ends, _w_trig, 4, True),
    "W_n(2x - 1), the shifted Chebyshev polynomial of the fourth kind,",
)
hermite_polynomial_h = _op(
    "hermite_polynomial_h",
    _hermite(_twice, lambda m, x, q, p: (x + x) * q - (2 * m) * p),
    "The physicists' Hermite polynomial H_n",
)
hermite_polynomial_he = _op(
    "hermite_polynomial_he",
    _hermite(lambda x: x, lambda m, x, q, p: x * q - m * p),
    "The probabilists' Hermite polynomial He_n",
)
laguerre_polynomial_l = _op("laguerre_polynomial_l", _laguerre, "The Laguerre polynomial L_n")
legendre_polynomial_p = _op("legendre_polynomial_p", _legendre, "The Legendre polynomial P_n")
