"""Special functions: erf, gamma and Bessel families, with their derivatives.

functions  the ops: erf, erfc, erfinv, lgamma, digamma, polygamma, mvlgamma, ...
bessel     modified Bessel functions i0, i1, i0e, i1e
incomplete gammainc, gammaincc (torch.igamma, torch.igammac), zeta
polynomials  the orthogonal polynomials (Chebyshev, Hermite, Laguerre, Legendre), no gradient
common     ops PyTorch computes without a graph, from a float64 kernel
kernels    the NumPy-only float64 kernels behind them
"""

from __future__ import annotations

from . import bessel, functions, incomplete
from .bessel import *  # noqa: F403
from .functions import *  # noqa: F403
from .incomplete import *  # noqa: F403

__all__ = [
    *bessel.__all__,
    *functions.__all__,
    *incomplete.__all__,
]
