"""Random tensors drawn from other tensors: `normal` (all four forms), `bernoulli` and
`multinomial`, each drawing what PyTorch draws, in the same order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtype
from ._creation import _finish, _size_args
from ._ops.broadcasting import broadcast_shapes
from ._ops.primitive import Primitive
from ._random_samplers import (
    bernoulli_,
    bernoulli_draws,
    exponential_,
    normal_,
    resampled_node,
)
from ._tensor import Tensor
from .random import Generator, _generator_or_default

__all__ = ["bernoulli", "multinomial", "normal"]


def _not_implemented(g: Tensor, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


_normal_mean = resampled_node("NormalBackward1", ("mean",))
_normal_std = resampled_node("NormalBackward2", ("std",))
_normal_both = resampled_node("NormalBackward3", ("mean", "std"))
_bernoulli = resampled_node("BernoulliBackward0", ("self",))
# PyTorch records bernoulli(input, p) without a derivative: backward through it raises.
_bernoulli_p = Primitive(
    "torch::autograd::NotImplemented",
    lambda a, values: values,
    grads=(_not_implemented,),
    formulas=("not implemented",),
)


# --- normal ------------------------------------------------------------------------------


def normal(
    mean: Any = 0.0,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    """Normal samples: with a tensor of means and/or of standard deviations, one sample per
    element (broadcast); with two numbers, a tensor of `size`."""
    source = _generator_or_default(generator, "normal")
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_is_tensor and not std_is_tensor:
        if size is None:
            raise TypeError("normal() missing required argument 'size'")
        dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
        out = _finish(np.empty(_size_args((size,)), dtype=dt.np), False, device)
        normal_(out, mean, std, generator=source)
        out._requires_grad = bool(requires_grad)
        return out
    if std_is_tensor:
        _check_std_tensor(std)
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if mean_is_tensor and not std_is_tensor:
        # PyTorch: normal_(0, std) and then the mean added.
        values = source._normal(mean._data.shape, mean._data.dtype, 0.0, std)
        return _normal_mean(mean, values=(values + mean._data).astype(mean._data.dtype))
    if not mean_is_tensor:
        # PyTorch: standard normals, times std, plus the mean, each rounded.
        z = source._normal(std._data.shape, std._data.dtype)
        values = (z * std._data + std._data.dtype.type(mean)).astype(std._data.dtype)
        return _normal_std(std, values=values)
    shape = broadcast_shapes(mean._data.shape, std._data.shape)
    out_dtype = mean._data.dtype
    z = source._normal(shape, out_dtype)
    values = ((z * std._data).astype(out_dtype) + mean._data).astype(out_dtype)
    return _normal_both(mean, std, values=values)


def _check_std_tensor(std: Tensor) -> None:
    if std._data.dtype.kind == "c":
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std._data.size and not (std._data >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")


# --- bernoulli ---------------------------------------------------------------------------


def bernoulli(
    input: Tensor, p: float | None = None, *, generator: Generator | None = None, **_: Any
) -> Tensor:
    """1 with probability `input` (elementwise), else 0; or with probability `p` if given."""
    source = _generator_or_default(generator, "bernoulli")
    out = np.empty_like(input._data)
    if p is not None:
        drawn = bernoulli_(Tensor._make(out), p, generator=source)
        return _bernoulli_p(input, values=drawn._data)
    return _bernoulli(input, values=bernoulli_draws(source, out, input._data))


# --- multinomial -------------------------------------------------------------------------

_MAX_CATEGORIES = 2**24


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
    **_: Any,
) -> Tensor:
    """Indices drawn from the categories of each row of `input` (weights, not necessarily
    normalised): with replacement by inverting the cumulative sums, without by sorting
    weight / Exp(1) (PyTorch's trick)."""
    source = _generator_or_default(generator, "multinomial")
    probs = input._data
    _check_multinomial(probs, num_samples, replacement)
    rows = probs.reshape(-1, probs.shape[-1]) if probs.ndim == 2 else probs[None]
    out_shape = (*probs.shape[:-1], num_samples)
    if rows.shape[0] == 0:
        return Tensor._make(np.empty(out_shape, dtype=np.int64))
    if not replacement or num_samples == 1:
        indices = _by_exponential_race(input, rows, num_samples, source)
    else:
        indices = _by_inversion(rows, num_samples, source)
    return Tensor._make(indices.reshape(out_shape))


def _check_multinomial(probs: np.ndarray, num_samples: int, replacement: bool) -> None:
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if probs.dtype.kind != "f":
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            + _dtype.scalar_name(probs.dtype)
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if probs.shape[-1] > _MAX_CATEGORIES:
        raise RuntimeError("number of categories cannot exceed 2^24")


_INVALID_SUM = "invalid multinomial distribution (sum of probabilities <= 0)"


def _by_exponential_race(
    input: Tensor, rows: np.ndarray, num_samples: int, source: Generator
) -> np.ndarray:
    """argmax / top-k of weight / Exp(1): each category wins with its weight's share."""
    if rows.size and not (np.isfinite(rows).all() and (rows >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(axis=1) == 0).any():
        raise RuntimeError(_INVALID_SUM)
    waits = Tensor._make(np.empty_like(input._data))
    exponential_(waits, 1.0, generator=source)
    with np.errstate(divide="ignore", invalid="ignore"):
        race = (input._data / waits._data).astype(input._data.dtype).reshape(rows.shape)
    if num_samples == 1:
        return np.argmax(race, axis=1)[:, None]
    return np.argsort(-race, axis=1, kind="stable")[:, :num_samples]


def _by_inversion(rows: np.ndarray, num_samples: int, source: Generator) -> np.ndarray:
    """Each sample: the first category whose normalised cumulative weight reaches a uniform."""
    work = np.float32 if rows.dtype == np.float16 else rows.dtype
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows.astype(work)):
        if (row < 0).any():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0)"
            )
        if not np.isfinite(row).all():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity "
                "or NaN)"
            )
        cumulative = np.add.accumulate(row, dtype=work)
        total = cumulative[-1]
        if not total > 0:
            raise RuntimeError(_INVALID_SUM)
        cumulative = cumulative / total
        cumulative[-1] = 1
        uniforms = source._uniform((num_samples,))
        out[i] = np.searchsorted(cumulative.astype(np.float64), uniforms, side="left")
    return out
