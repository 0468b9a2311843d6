"""Normalisation: batch, layer, group and instance norm, one primitive each.

Each forward standardises on arrays; the rules recompute the statistics from
the saved input with chainrule's ops (`_standardize`), so the same rules give
second derivatives, including through the mean and variance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.quiet import quietly
from ..._tensor import Tensor
from ._spatial_common import OptionalInputs, shape_list

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm"]

Dims = tuple[int, ...]


@quietly  # (no values: nan, quietly)
def _moments(x: np.ndarray, dims: Dims, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, biased variance and the standardised `x` over `dims` (kept as size 1)."""
    count = math.prod(x.shape[d] for d in dims)
    mean = x.sum(dims, keepdims=True) / x.dtype.type(count)
    centred = x - mean
    var = (centred * centred).sum(dims, keepdims=True) / x.dtype.type(count)
    return mean, var, centred / np.sqrt(var + eps)


def _affine(y: np.ndarray, weight: Any, bias: Any, shape: Sequence[int]) -> np.ndarray:
    y = np.ascontiguousarray(y)  # (NumPy keeps a transposed input's layout; PyTorch does not)
    if weight is not None:
        y *= weight.reshape(shape)
    if bias is not None:
        y += bias.reshape(shape)
    return y


def _standardize(x: Tensor, dims: Dims, eps: float) -> tuple[Tensor, Tensor]:
    """(x - mean) / sqrt(var + eps) over `dims`, and 1 / sqrt(var + eps), in chainrule ops."""
    centred = x - x.mean(dims, keepdim=True)
    invstd = ((centred * centred).mean(dims, keepdim=True) + eps) ** -0.5
    return centred * invstd, invstd


def _through_moments(gy: Tensor, xhat: Tensor, invstd: Tensor, dims: Dims) -> Tensor:
    """The gradient reaching x from `gy` at the standardised output, through mean and var."""
    return invstd * (gy - gy.mean(dims, keepdim=True) - xhat * (gy * xhat).mean(dims, keepdim=True))


def _channel_shape(ndim: int, channels: int) -> tuple[int, ...]:
    return (channels, *(1,) * (ndim - 2))


def _channel_dims(ndim: int) -> Dims:
    return (0, *range(2, ndim))


# --- batch norm ---------------------------------------------------------------------------


def _batch_norm_forward(
    input: Any, weight: Any, bias: Any, eps: float, training: bool, **stats: Any
) -> np.ndarray:
    shape = _channel_shape(input.ndim, input.shape[1])
    if training:
        y = _moments(input, _channel_dims(input.ndim), eps)[2]
    else:  # the running statistics: constants (`mean`, `invstd` tensors)
        y = (input - stats["mean"]._data.reshape(shape)) * stats["invstd"]._data.reshape(shape)
        y = y.astype(input.dtype, copy=False)
    return _affine(y, weight, bias, shape)


def _bn_input_grad(g: Tensor, n: Any) -> Tensor:
    x = n.input
    shape = _channel_shape(x.ndim, x.shape[1])
    if not n.training:
        scale = n.invstd if n.weight is None else n.weight * n.invstd
        return g * scale.reshape(shape)
    dims = _channel_dims(x.ndim)
    xhat, invstd = _standardize(x, dims, n.eps)
    if n.weight is not None:
        g = g * n.weight.reshape(shape)
    return _through_moments(g, xhat, invstd, dims)


def _bn_weight_grad(g: Tensor, n: Any) -> Tensor:
    dims = _channel_dims(n.input.ndim)
    if n.training:
        xhat = _standardize(n.input, dims, n.eps)[0]
    else:
        shape = _channel_shape(g.ndim, g.shape[1])
        xhat = (n.input - n.mean.reshape(shape)) * n.invstd.reshape(shape)
    return (g * xhat).sum(dims)


def _channel_sum(g: Tensor, n: Any) -> Tensor:
    return g.sum(_channel_dims(g.ndim))


# In training the statistics are the batch's; in evaluation the running ones (PyTorch's
# one op for both).
_batch_norm = OptionalInputs(
    "NativeBatchNormBackward0",
    _batch_norm_forward,
    rules={"input": _bn_input_grad, "weight": _bn_weight_grad, "bias": _channel_sum},
    formulas={
        "input": "invstd * (gw - mean(gw) - xhat * mean(gw * xhat)) per channel, "
        "gw = grad * weight, xhat = (input - mean) * invstd",
        "weight": "Σ grad * xhat over all but the channel dim",
        "bias": "Σ grad over all but the channel dim",
    },
    required=("input",),
    optional=("weight", "bias"),
)


def _check_param(name: str, t: Tensor | None, channels: int, input: Tensor) -> None:
    if t is None:
        return
    if t.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if t._data.dtype != input._data.dtype:
        if input._data.dtype == np.float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if name.startswith("running") and t.requires_grad:
        raise RuntimeError(
            f"The function 'native_batch_norm' is not differentiable with respect to argument "
            f"'{name}'. This input cannot have requires_grad True."
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dim 1) over the batch and spatial dims, then scale and shift.

    In training the batch's statistics are used, and `running_mean`/`running_var`
    (when given) move towards them by `momentum`, in place and outside the graph
    (the variance unbiased); in evaluation the running statistics are used.
    """
    if training:
        shape = input._data.shape
        if shape[0] * math.prod(shape[2:]) == 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"torch.Size({shape_list(shape)})"
            )
    if momentum is None or not isinstance(momentum, int | float):
        raise TypeError(
            "batch_norm(): argument 'momentum' (position 7) must be float, not "
            f"{type(momentum).__name__}"
        )
    if (running_mean is None) != (running_var is None) and training:
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    channels = input._data.shape[1] if input.ndim > 1 else 0
    for name, t in (  # (PyTorch's order of checks)
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        _check_param(name, t, channels, input)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{scalar_name(input)}'")
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        assert running_mean is not None and running_var is not None
        invstd = 1 / np.sqrt(running_var._data + eps)
        return _batch_norm(
            input,
            weight,
            bias,
            eps=eps,
            training=False,
            mean=Tensor._make(running_mean._data.copy()),
            invstd=Tensor._make(invstd.astype(input._data.dtype)),
        )
    if running_mean is not None and running_var is not None and input._data.size:
        _update_running(input._data, running_mean, running_var, momentum, eps)
    return _batch_norm(input, weight, bias, eps=eps, training=True)


def _update_running(
    x: np.ndarray, running_mean: Tensor, running_var: Tensor, momentum: float, eps: float
) -> None:
    """Move the running statistics towards the batch's (unbiased variance), in place.

    The arithmetic is PyTorch's CPU kernel's, step for step, so the buffers match it
    to the bit: the momentum in the input's dtype, the variance sum kept in that
    dtype, and the new running variance summed in float64.
    """
    dt = x.dtype.type
    count = x.size // max(x.shape[1], 1)
    mean, var_sum = _batch_sums(x)
    m = dt(momentum)
    keep = dt(1) - m
    unbiased = var_sum / dt(count - 1)  # (PyTorch divides by zero for a single value, too)
    rm, rv = running_mean._data, running_var._data
    rm[...] = (m * mean + keep * rm.reshape(-1)).reshape(rm.shape)
    new_var = np.float64(m) * unbiased.astype(np.float64) + (keep * rv.reshape(-1)).astype(
        np.float64
    )
    rv[...] = new_var.astype(rv.dtype).reshape(rv.shape)


@quietly  # (no values: nan, quietly)
def _batch_sums(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per channel: the mean and the sum of squared deviations, summed in PyTorch's order.

    With spatial dims, each channel is summed element by element in float64; without
    (one value per sample and channel), row by row in the input's dtype, each squared
    deviation fused into the sum (one rounding), as PyTorch's vectorised kernel does
    on one thread.
    """
    dt = x.dtype.type
    channels = x.shape[1]
    count = x.size // max(channels, 1)
    if x.size == x.shape[0] * channels:
        rows = x.reshape(-1, channels)
        mean = (np.cumsum(rows, 0)[-1].astype(np.float64) / count).astype(dt)
        # float64 holds a float32 product exactly; long double stands in for float64's fma.
        wide = np.float64 if dt is np.float32 else np.longdouble
        var_sum = np.zeros(channels, dt)
        for row in rows - mean:
            var_sum = (row.astype(wide) * row + var_sum).astype(dt)
        return mean, var_sum
    per_channel = np.moveaxis(x, 1, 0).reshape(channels, -1)
    mean = (np.cumsum(per_channel.astype(np.float64), 1)[:, -1] / count).astype(dt)
    centred = per_channel - mean[:, None]
    var_sum = np.cumsum((centred * centred).astype(np.float64), 1)[:, -1].astype(dt)
    return mean, var_sum


# --- instance norm ------------------------------------------------------------------------


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each batch element over its spatial dims.

    As in PyTorch: a batch norm of the input seen as one batch of N*C channels,
    whose running statistics (when given) are the per-channel means over the batch.
    """
    shape = tuple(input._data.shape)
    if use_input_stats and math.prod(shape[2:]) == 1:
        raise ValueError(
            "Expected more than 1 spatial element when training, got input size "
            f"torch.Size({shape_list(shape)})"
        )
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    n, c = shape[0], shape[1]
    x = input.reshape(1, n * c, *shape[2:])

    def repeat(t: Tensor | None) -> Tensor | None:
        """`t` once per batch element (N*C values for C channels)."""
        if t is None:
            return None
        return t.reshape(1, t.numel()).expand(n, t.numel()).reshape(n * t.numel())

    # (copies: with one sample a repeat is a read-only view of the buffer)
    stats = [None if t is None else t.detach().repeat(n) for t in (running_mean, running_var)]
    out = batch_norm(
        x, stats[0], stats[1], repeat(weight), repeat(bias), use_input_stats, momentum, eps
    )
    if use_input_stats:
        for t, s in zip((running_mean, running_var), stats, strict=True):
            if t is not None and s is not None:
                t._data[...] = s._data.reshape(n, c).mean(0).astype(t._data.dtype)
                t._version_counter.value += 1  # PyTorch copies into it (batch_norm does not)
    return out.view(shape)


# --- layer norm and group norm ----------------------------------------------------------


def _layer_norm_forward(
    input: Any, weight: Any, bias: Any, dims: Dims, eps: float, **_: Any
) -> np.ndarray:
    y = _moments(input, dims, eps)[2]
    return _affine(y, weight, bias, y.shape[y.ndim - len(dims) :])


def _ln_input_grad(g: Tensor, n: Any) -> Tensor:
    xhat, invstd = _standardize(n.input, n.dims, n.eps)
    return _through_moments(g if n.weight is None else g * n.weight, xhat, invstd, n.dims)


def _ln_weight_grad(g: Tensor, n: Any) -> Tensor:
    xhat = _standardize(n.input, n.dims, n.eps)[0]
    return (g * xhat).sum(tuple(range(g.ndim - len(n.dims))))


_layer_norm = OptionalInputs(
    "NativeLayerNormBackward0",
    _layer_norm_forward,
    rules={
        "input": _ln_input_grad,
        "weight": _ln_weight_grad,
        "bias": lambda g, n: g.sum(tuple(range(g.ndim - len(n.dims)))),
    },
    formulas={
        "input": "invstd * (gw - mean(gw) - xhat * mean(gw * xhat)) over the normalized dims, "
        "gw = grad * weight, xhat = (input - mean) * invstd",
        "weight": "Σ grad * xhat over the leading dims",
        "bias": "Σ grad over the leading dims",
    },
    required=("input",),
    optional=("weight", "bias"),
)


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the last `len(normalized_shape)` dims, then scale and shift elementwise."""
    if isinstance(normalized_shape, int):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int"
        )
    norm = tuple(int(s) for s in normalized_shape)
    if not norm:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._data.shape) != norm:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {shape_list(t.shape)} and normalized_shape = {shape_list(norm)}"
            )
    shape = tuple(input._data.shape)
    if len(shape) < len(norm) or shape[len(shape) - len(norm) :] != norm:
        raise RuntimeError(
            f"Given normalized_shape={shape_list(norm)}, expected input with shape "
            f"[*, {', '.join(map(str, norm))}], but got input of size{shape_list(shape)}"
        )
    _check_float("LayerNormKernelImpl", input, weight, bias)
    dims = tuple(range(len(shape) - len(norm), len(shape)))
    return _layer_norm(input, weight, bias, dims=dims, eps=eps)


def _check_float(kernel: str, input: Tensor, *params: Tensor | None) -> None:
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input)}'")
    for t in params:
        if t is not None and t._data.dtype != input._data.dtype:
            if input._data.dtype == np.float32:
                raise RuntimeError(
                    "mixed dtype (CPU): expect parameter to have scalar type of Float"
                )
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _grouped(x: Any, groups: int) -> Any:
    """`(N, C, *S)` seen as `(N, groups, C/groups * prod(S))`, the group norm's statistics view."""
    return x.reshape(x.shape[0], groups, math.prod(x.shape[1:]) // groups)


def _group_norm_forward(
    input: Any, weight: Any, bias: Any, groups: int, eps: float, **_: Any
) -> np.ndarray:
    y = _moments(_grouped(input, groups), (2,), eps)[2]
    return _affine(y.reshape(input.shape), weight, bias, _channel_shape(input.ndim, input.shape[1]))


def _gn_input_grad(g: Tensor, n: Any) -> Tensor:
    x = n.input
    xhat, invstd = _standardize(_grouped(x, n.groups), (2,), n.eps)
    if n.weight is not None:
        g = g * n.weight.reshape(_channel_shape(x.ndim, x.shape[1]))
    return _through_moments(_grouped(g, n.groups), xhat, invstd, (2,)).reshape(x.shape)


def _gn_weight_grad(g: Tensor, n: Any) -> Tensor:
    x = n.input
    xhat = _standardize(_grouped(x, n.groups), (2,), n.eps)[0].reshape(x.shape)
    return (g * xhat).sum(_channel_dims(x.ndim))


_group_norm = OptionalInputs(
    "NativeGroupNormBackward0",
    _group_norm_forward,
    rules={"input": _gn_input_grad, "weight": _gn_weight_grad, "bias": _channel_sum},
    formulas={
        "input": "invstd * (gw - mean(gw) - xhat * mean(gw * xhat)) per group, "
        "gw = grad * weight, xhat = (input - mean) * invstd",
        "weight": "Σ grad * xhat over all but the channel dim",
        "bias": "Σ grad over all but the channel dim",
    },
    required=("input",),
    optional=("weight", "bias"),
)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each group of `num_groups` channel groups of each batch element, then scale
    and shift per channel."""
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    shape = tuple(input._data.shape)
    if num_groups == 0:
        raise ZeroDivisionError("integer division or modulo by zero")
    if shape[1] % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {shape_list(shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != shape[1]):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {shape_list(t.shape)} and input of shape "
                f"{shape_list(shape)}"
            )
    _check_float("GroupNormKernelImpl", input, weight, bias)
    return _group_norm(input, weight, bias, groups=num_groups, eps=eps)
