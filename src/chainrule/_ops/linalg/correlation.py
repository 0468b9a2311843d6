"""Covariance and correlation matrices: cov and corrcoef, composed as PyTorch composes them.

Rows are variables and columns observations. cov centres each row on its (weighted)
mean and multiplies the centred matrix by its weighted transpose, then divides by the
degrees of freedom; corrcoef divides cov by the outer product of the standard
deviations and clips to [-1, 1]. Both record only the nodes of those ops.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._tensor import Tensor
from ..elementwise.arithmetic import mul_scalar
from ..shape.views import view
from .matrix_multiply import mm

__all__ = ["corrcoef", "cov"]

_OBSERVATIONS = 1  # the dim that holds a variable's observations


def _int_correction(correction: Any) -> int:
    if isinstance(correction, bool) or not isinstance(correction, int | np.integer):
        raise TypeError(
            f"cov(): argument 'correction' must be int, not {type(correction).__name__}"
        )
    return operator.index(correction)


def _check_weights(kind: str, w: Tensor, observations: int) -> None:
    """PyTorch's checks of `fweights` (integral counts) or `aweights` (float weights)."""
    if w.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {kind} to have one or fewer dimensions but got {kind} with "
            f"{w.ndim} dimensions"
        )
    integral = w._data.dtype.kind in "iu"
    if kind == "fweights" and not integral:
        raise RuntimeError(
            "cov(): expected fweights to have integral dtype but got fweights with "
            f"{scalar_name(w)} dtype"
        )
    if kind == "aweights" and w._data.dtype.kind != "f":
        raise RuntimeError(
            "cov(): expected aweights to have floating point dtype but got aweights with "
            f"{scalar_name(w)} dtype"
        )
    if w._data.size != observations:
        raise RuntimeError(
            f"cov(): expected {kind} to have the same numel as there are observations in the "
            f"input but got {w._data.size} != {observations}"
        )
    if observations and not w._data.min() >= 0:
        raise RuntimeError(f"cov(): {kind} cannot be negative")


def _long(value: int) -> Tensor:
    return Tensor._make(np.asarray(value, dtype=np.int64))


def cov(
    input: Tensor,
    *,
    correction: int = 1,
    fweights: Tensor | None = None,
    aweights: Tensor | None = None,
) -> Tensor:
    """The covariance matrix of the rows of `input` (variables) over its columns
    (observations), with `correction` degrees of freedom taken off, observations counted
    `fweights` times and weighted by `aweights`."""
    correction = _int_correction(correction)
    if input.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    if input._data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = view(input, 1, -1) if input.ndim < 2 else input
    n = x._data.shape[_OBSERVATIONS]
    w: Tensor | None = None
    if fweights is not None:
        _check_weights("fweights", fweights, n)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n)
        w = aweights if w is None else w * aweights
    w_sum = _long(n) if w is None else w.sum()
    if w is not None and not bool(w_sum._data != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(_OBSERVATIONS) / w_sum

    if w is None:
        norm = _long(n - correction)
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    elif fweights is None and n == 1 and correction == 1:
        norm = _long(0)  # PyTorch's exact 0 here, where rounding would leave a tiny number
    else:
        norm = w_sum - mul_scalar((w * aweights).sum(), correction) / w_sum
    if bool(norm._data <= 0):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm = norm.zero_()

    if n == 1 and (fweights is None) != (aweights is None):
        # One observation with one kind of weights: its mean is itself, so PyTorch writes
        # the exact zero deviation into the input (in place, as it does).
        x.zero_()
        if x._data.dtype.kind in "iub":
            x = x.float()
    else:
        x = x - avg.unsqueeze(1)
    c = mm(x, (x if w is None else x * w).t())
    return c.true_divide(norm).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the rows of `input`, clipped to [-1, 1]."""
    if input.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    c = cov(input)
    if c.ndim == 0:  # one variable: 1, or NaN where its variance is 0, inf or NaN
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)
