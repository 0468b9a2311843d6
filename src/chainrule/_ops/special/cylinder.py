"""torch.special's Bessel functions J, Y, I, K (orders 0 and 1), the spherical j0 and
Airy's Ai: values only, as PyTorch gives them no derivative."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import cylinder_kernels as ck
from .bessel import modified_i
from .common import values_only

__all__: list[str] = []  # torch.special's names only: see chainrule.special


def _modified_i(order: int) -> Callable[..., np.ndarray]:
    def kernel(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        # Unlike torch.i0, PyTorch's modified_bessel_i0 and i1 give nan at +-inf.
        values = modified_i(order, np.where(np.isinf(x), 0.0, x)) + 0.0  # I1(-0) is +0 here
        return np.where(np.isinf(x), np.nan, values)

    return kernel


def _spherical_j0(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    safe = np.where(x == 0, 1.0, x)
    near = np.abs(x) < 0.5  # sin(x)/x loses nothing, but its series is PyTorch's choice here
    u = x * x
    series = 1 + u * (-1 / 6 + u * (1 / 120 + u * (-1 / 5040 + u * (1 / 362880))))
    out = np.where(near, series + u**5 * (-1 / 39916800 + u / 6227020800), np.sin(safe) / safe)
    return np.where(np.isinf(x), 0.0, out)


airy_ai = values_only("airy_ai", lambda x, dtype: ck.airy_ai(x), "Airy's function Ai(input).")
bessel_j0 = values_only(
    "bessel_j0", lambda x, dtype: ck.bessel_j(0, x), "The Bessel function of the first kind J_0."
)
bessel_j1 = values_only(
    "bessel_j1", lambda x, dtype: ck.bessel_j(1, x), "The Bessel function of the first kind J_1."
)
bessel_y0 = values_only(
    "bessel_y0", lambda x, dtype: ck.bessel_y(0, x), "The Bessel function of the second kind Y_0."
)
bessel_y1 = values_only(
    "bessel_y1", lambda x, dtype: ck.bessel_y(1, x), "The Bessel function of the second kind Y_1."
)
modified_bessel_i0 = values_only(
    "modified_bessel_i0", _modified_i(0), "The modified Bessel function of the first kind I_0."
)
modified_bessel_i1 = values_only(
    "modified_bessel_i1", _modified_i(1), "The modified Bessel function of the first kind I_1."
)
modified_bessel_k0 = values_only(
    "modified_bessel_k0",
    lambda x, dtype: ck.scaled_bessel_k(0, x) * np.exp(-x),
    "The modified Bessel function of the second kind K_0.",
)
modified_bessel_k1 = values_only(
    "modified_bessel_k1",
    lambda x, dtype: ck.scaled_bessel_k(1, x) * np.exp(-x),
    "The modified Bessel function of the second kind K_1.",
)
scaled_modified_bessel_k0 = values_only(
    "scaled_modified_bessel_k0", lambda x, dtype: ck.scaled_bessel_k(0, x), "exp(x) * K_0(x)."
)
scaled_modified_bessel_k1 = values_only(
    "scaled_modified_bessel_k1", lambda x, dtype: ck.scaled_bessel_k(1, x), "exp(x) * K_1(x)."
)
spherical_bessel_j0 = values_only(
    "spherical_bessel_j0", _spherical_j0, "The spherical Bessel function j_0 = sin(x)/x."
)
