"""Reductions, scans and order statistics: many elements to fewer, along dims.

sum_mean     sum, mean, nansum, nanmean, logsumexp, sum_to_size
product      prod, norm
norm_forms   dist, renorm (their own nodes, on the p-norm)
logical      all, any, count_nonzero
extrema      max, min, amax, amin, argmax, argmin, aminmax
moments      var, std, var_mean, std_mean
scans        cumsum, cumprod, cummax, cummin, logcumsumexp, diff
sorting      sort, argsort, msort, topk, kthvalue, median, nanmedian
integration  trapezoid, trapz, cumulative_trapezoid
finite_differences  gradient
frequency    mode, unique, unique_consecutive
introsort    the order PyTorch's unstable sorts leave ties in
quantiles    quantile, nanquantile
counting     bincount, histc
histograms   histogram, histogramdd (with their bin edges)
searching    searchsorted, bucketize, isin
common       selecting along a dim, restoring reduced dims, argument errors
"""

from __future__ import annotations

from . import (
    counting,
    extrema,
    finite_differences,
    frequency,
    histograms,
    integration,
    logical,
    moments,
    norm_forms,
    product,
    quantiles,
    scans,
    searching,
    sorting,
    sum_mean,
)
from .counting import *  # noqa: F403
from .extrema import *  # noqa: F403
from .finite_differences import *  # noqa: F403
from .frequency import *  # noqa: F403
from .histograms import *  # noqa: F403
from .integration import *  # noqa: F403
from .logical import *  # noqa: F403
from .moments import *  # noqa: F403
from .norm_forms import *  # noqa: F403
from .product import *  # noqa: F403
from .quantiles import *  # noqa: F403
from .scans import *  # noqa: F403
from .searching import *  # noqa: F403
from .sorting import *  # noqa: F403
from .sum_mean import *  # noqa: F403

__all__ = [
    *counting.__all__,
    *searching.__all__,
    *extrema.__all__,
    *finite_differences.__all__,
    *frequency.__all__,
    *histograms.__all__,
    *integration.__all__,
    *logical.__all__,
    *moments.__all__,
    *norm_forms.__all__,
    *product.__all__,
    *quantiles.__all__,
    *scans.__all__,
    *sorting.__all__,
    *sum_mean.__all__,
]
