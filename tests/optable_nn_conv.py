"""Op table lines for nn.functional: convolution, pooling, normalisation and resampling.

Options live inside each line's `fn` (`F(x)` is the nn.functional of the
tensor's library, so one line runs on chainrule and on torch). The NumPy
references below are slow loops over output positions and kernel offsets,
written from the ops' definitions, not from chainrule's vectorised kernels.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from op_table import Op, lib

Ints = tuple[int, ...]


def F(x: Any) -> Any:
    """The nn.functional module of a tensor's library."""
    return lib(x).nn.functional


def _k(v: Any, k: int) -> Ints:
    return (v,) * k if isinstance(v, int) else tuple(v)


# --- references: convolution ----------------------------------------------------------------


def conv_ref(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> np.ndarray:
    """out[n, o, p] = sum_{c in o's group, j} x_padded[n, c, p*stride + j*dilation] w[o, c, j]."""
    k = w.ndim - 2
    s, d = _k(stride, k), _k(dilation, k)
    if padding == "same":
        total = [dd * (kk - 1) for dd, kk in zip(d, w.shape[2:], strict=True)]
        pads = [(t // 2, t - t // 2) for t in total]
    else:
        pads = [(p, p) for p in _k(padding, k)]
    xp = np.pad(x, [(0, 0), (0, 0), *pads])
    out = [
        (n - dd * (kk - 1) - 1) // ss + 1
        for n, kk, ss, dd in zip(xp.shape[2:], w.shape[2:], s, d, strict=True)
    ]
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for p in np.ndindex(*out):
        for j in np.ndindex(*w.shape[2:]):
            at = tuple(pi * si + ji * di for pi, si, ji, di in zip(p, s, j, d, strict=True))
            for g in range(groups):
                patch = xp[(slice(None), slice(g * cg, (g + 1) * cg), *at)]
                y[(slice(None), slice(g * og, (g + 1) * og), *p)] += (
                    patch @ w[g * og : (g + 1) * og][(slice(None), slice(None), *j)].T
                )
    if b is not None:
        y += b.reshape(-1, *(1,) * k)
    return y


def conv_transpose_ref(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> np.ndarray:
    """Every input value spreads through the kernel: full[n, o, i*stride + j*dilation] += ..."""
    k = w.ndim - 2
    s, p, e, d = _k(stride, k), _k(padding, k), _k(output_padding, k), _k(dilation, k)
    cg, og = x.shape[1] // groups, w.shape[1]
    size = [
        (i - 1) * ss - 2 * pp + dd * (kk - 1) + ee + 1
        for i, ss, pp, dd, kk, ee in zip(x.shape[2:], s, p, d, w.shape[2:], e, strict=True)
    ]
    full = np.zeros((x.shape[0], og * groups, *(n + 2 * pp for n, pp in zip(size, p, strict=True))))
    for i in np.ndindex(*x.shape[2:]):
        for j in np.ndindex(*w.shape[2:]):
            at = tuple(a * ss + c * dd for a, ss, c, dd in zip(i, s, j, d, strict=True))
            if any(a >= n for a, n in zip(at, full.shape[2:], strict=True)):
                continue
            for g in range(groups):
                v = x[(slice(None), slice(g * cg, (g + 1) * cg), *i)]
                wg = w[(slice(g * cg, (g + 1) * cg), slice(None), *j)]
                full[(slice(None), slice(g * og, (g + 1) * og), *at)] += v @ wg
    y = full[(Ellipsis, *(slice(pp, pp + n) for pp, n in zip(p, size, strict=True)))]
    return y if b is None else y + b.reshape(-1, *(1,) * k)


def unfold_ref(x: np.ndarray, kernel: Ints, dilation: Ints, padding: Ints, stride: Ints) -> Any:
    xp = np.pad(x, [(0, 0)] * (x.ndim - 2) + [(p, p) for p in padding])
    out = [
        (n - d * (k - 1) - 1) // s + 1
        for n, k, d, s in zip(xp.shape[-2:], kernel, dilation, stride, strict=True)
    ]
    cols = []
    for c in range(x.shape[-3]):
        for j in np.ndindex(*kernel):
            col = [
                xp[
                    ...,
                    c,
                    p[0] * stride[0] + j[0] * dilation[0],
                    p[1] * stride[1] + j[1] * dilation[1],
                ]
                for p in np.ndindex(*out)
            ]
            cols.append(np.stack(col, -1))
    return np.stack(cols, -2)


def fold_ref(
    cols: np.ndarray, size: Ints, kernel: Ints, dilation: Ints, padding: Ints, stride: Ints
) -> Any:
    out = [
        (n + 2 * p - d * (k - 1) - 1) // s + 1
        for n, k, d, p, s in zip(size, kernel, dilation, padding, stride, strict=True)
    ]
    c = cols.shape[-2] // math.prod(kernel)
    y = np.zeros((*cols.shape[:-2], c, *(n + 2 * p for n, p in zip(size, padding, strict=True))))
    row = 0
    for ci in range(c):
        for j in np.ndindex(*kernel):
            for li, p in enumerate(np.ndindex(*out)):
                at = tuple(
                    pi * si + ji * di for pi, si, ji, di in zip(p, stride, j, dilation, strict=True)
                )
                y[(..., ci, *at)] += cols[..., row, li]
            row += 1
    return y[(..., *(slice(p, p + n) for p, n in zip(padding, size, strict=True)))]


# --- references: pooling ---------------------------------------------------------------------


def _pool_windows(
    size: Ints, kernel: Ints, stride: Ints, pad: Ints, dilation: Ints, ceil: bool
) -> list[tuple[Ints, list[Ints]]]:
    """(output position, the input positions of its window, padding included) for 2-D pools."""
    out = []
    for n, k, s, p, d in zip(size, kernel, stride, pad, dilation, strict=True):
        span = n + 2 * p - d * (k - 1) - 1
        m = (-(-span // s) if ceil else span // s) + 1
        if ceil and (m - 1) * s >= n + p:
            m -= 1
        out.append(m)
    result = []
    for o in np.ndindex(*out):
        starts = [oi * s - p for oi, s, p in zip(o, stride, pad, strict=True)]
        cells = [
            tuple(st + ji * d for st, ji, d in zip(starts, j, dilation, strict=True))
            for j in np.ndindex(*kernel)
        ]
        result.append((o, cells))
    return result


def max_pool_ref(
    x: np.ndarray,
    kernel: Ints,
    stride: Ints,
    pad: Ints = (0, 0),
    dilation: Ints = (1, 1),
    ceil: bool = False,
) -> Any:
    wins = _pool_windows(x.shape[-2:], kernel, stride, pad, dilation, ceil)
    out = np.zeros((*x.shape[:-2], *(max(o[i] for o, _ in wins) + 1 for i in range(2))))
    for o, cells in wins:
        inside = [
            c for c in cells if all(0 <= ci < n for ci, n in zip(c, x.shape[-2:], strict=True))
        ]
        out[(..., *o)] = np.max(np.stack([x[(..., *c)] for c in inside]), 0)
    return out


def avg_pool_ref(
    x: np.ndarray,
    kernel: Ints,
    stride: Ints,
    pad: Ints = (0, 0),
    ceil: bool = False,
    count_include_pad: bool = True,
    divisor: int | None = None,
) -> Any:
    size = x.shape[-2:]
    wins = _pool_windows(size, kernel, stride, pad, (1, 1), ceil)
    out = np.zeros((*x.shape[:-2], *(max(o[i] for o, _ in wins) + 1 for i in range(2))))
    for o, cells in wins:
        inside = [c for c in cells if all(0 <= ci < n for ci, n in zip(c, size, strict=True))]
        padded = [
            c for c in cells if all(-p <= ci < n + p for ci, n, p in zip(c, size, pad, strict=True))
        ]
        count = divisor or (len(padded) if count_include_pad else len(inside))
        out[(..., *o)] = sum(x[(..., *c)] for c in inside) / count
    return out


def _adaptive(size: int, out: int) -> list[range]:
    return [range(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def adaptive_ref(x: np.ndarray, out: Ints, reduce: Any) -> Any:
    k = len(out)
    y = np.zeros((*x.shape[:-k], *out))
    for o in np.ndindex(*out):
        ranges = [_adaptive(n, m)[i] for n, m, i in zip(x.shape[-k:], out, o, strict=True)]
        cells = np.stack([x[(..., *c)] for c in itertools.product(*ranges)])
        y[(..., *o)] = reduce(cells, 0)
    return y


# --- references: normalisation and resampling ---------------------------------------------------


def normalize_ref(x: np.ndarray, axes: Sequence[int], eps: float = 1e-5) -> Any:
    mean = x.mean(tuple(axes), keepdims=True)
    var = ((x - mean) ** 2).mean(tuple(axes), keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def per_channel(v: np.ndarray, x: np.ndarray) -> Any:
    return v.reshape(-1, *(1,) * (x.ndim - 2))


def batch_norm_ref(x: np.ndarray, w: Any = None, b: Any = None) -> Any:
    y = normalize_ref(x, (0, *range(2, x.ndim)))
    return y * (1 if w is None else per_channel(w, x)) + (0 if b is None else per_channel(b, x))


def batch_norm_eval_ref(x: np.ndarray, mean: Any, var: Any, w: Any, b: Any) -> Any:
    m, v = per_channel(np.array(mean), x), per_channel(np.array(var), x)
    return (x - m) / np.sqrt(v + 1e-5) * per_channel(w, x) + per_channel(b, x)


def group_norm_ref(x: np.ndarray, groups: int, w: np.ndarray, b: np.ndarray) -> Any:
    y = normalize_ref(x.reshape(x.shape[0], groups, -1), (2,)).reshape(x.shape)
    return y * per_channel(w, x) + per_channel(b, x)


def local_response_norm_ref(x: np.ndarray, size: int, alpha: float, beta: float, k: float) -> Any:
    """x / (k + alpha * mean of x² over the channels c - size//2 .. c + (size-1)//2) ** beta."""
    c = x.shape[1]
    div = np.zeros_like(x)
    for ch in range(c):
        lo, hi = ch - size // 2, ch + (size - 1) // 2
        window = [j for j in range(lo, hi + 1) if 0 <= j < c]
        div[:, ch] = (x[:, window] ** 2).sum(1) / size
    return x / (k + alpha * div) ** beta


def pixel_shuffle_ref(x: np.ndarray, r: int) -> Any:
    *lead, c, h, w = x.shape
    y = np.zeros((*lead, c // (r * r), h * r, w * r))
    for ci, i, j, hi, wi in np.ndindex(c // (r * r), r, r, h, w):
        y[..., ci, hi * r + i, wi * r + j] = x[..., ci * r * r + i * r + j, hi, wi]
    return y


def linear_resize_ref(x: np.ndarray, out: Ints, align_corners: bool) -> Any:
    """Separable linear interpolation, one dim at a time, written per output position."""
    for axis, m in zip(range(x.ndim - len(out), x.ndim), out, strict=True):
        n = x.shape[axis]
        rows = []
        for o in range(m):
            if align_corners:
                src = o * (n - 1) / (m - 1) if m > 1 else 0.0
            else:
                src = max((o + 0.5) * n / m - 0.5, 0.0)
            i0 = min(math.floor(src), n - 1)
            i1 = min(i0 + 1, n - 1)
            t = src - i0
            rows.append((1 - t) * np.take(x, i0, axis) + t * np.take(x, i1, axis))
        x = np.stack(rows, axis)
    return x


def nearest_ref(x: np.ndarray, out: Ints) -> Any:
    for axis, m in zip(range(x.ndim - len(out), x.ndim), out, strict=True):
        n = x.shape[axis]
        x = np.take(x, [min(o * n // m, n - 1) for o in range(m)], axis)
    return x


def circular_ref(x: np.ndarray, pads: Sequence[tuple[int, int]]) -> Any:
    return np.pad(x, [(0, 0)] * (x.ndim - len(pads)) + list(pads), mode="wrap")


def _lead(x: np.ndarray, k: int) -> list[tuple[int, int]]:
    return [(0, 0)] * (x.ndim - k)


# --- the table ------------------------------------------------------------------------------

# Why some results' strides differ from torch's (tests/test_op_layouts.py).
ONE_D_AS_2D = (
    "torch runs 1-d convolution and pooling as 2-d, keeping a channels-last input's layout"
)
FOLD_LAYOUT = "a size-1 dim's stride: torch's fold result is a view of its padded work tensor"
RMS_NORM_LAYOUT = "torch's fused rms_norm writes a contiguous result; chainrule composes it"
UNSHUFFLE_EMPTY = "not a layout: torch's pixel_unshuffle returns an empty input's shape unchanged"

CONV_TOL = {"rtol32": 1e-4, "atol32": 1e-5}
TIE_NOTE = "random inputs: window maxima are distinct with probability 1"

# fmt: off
OPS: tuple[Op, ...] = (
    # convolution
    Op("F_conv2d", lambda x, w, b: F(x).conv2d(x, w, b), conv_ref,
       (((2, 2, 5, 4), (3, 2, 2, 3), (3,)),), **CONV_TOL),
    Op("F_conv2d_options",
       lambda x, w, b: F(x).conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
       lambda x, w, b: conv_ref(x, w, b, (2, 1), 1, (1, 2), 2),
       (((1, 4, 5, 6), (4, 2, 2, 2), (4,)),), **CONV_TOL),
    Op("F_conv2d_same", lambda x, w: F(x).conv2d(x, w, padding="same", dilation=2),
       lambda x, w: conv_ref(x, w, padding="same", dilation=2),
       (((1, 2, 5, 5), (2, 2, 2, 3)),), **CONV_TOL),
    Op("F_conv2d_unbatched", lambda x, w: F(x).conv2d(x, w, padding="valid"),
       lambda x, w: conv_ref(x[None], w)[0], (((2, 4, 4), (3, 2, 3, 3)),), **CONV_TOL),
    Op("F_conv1d", lambda x, w, b: F(x).conv1d(x, w, b, stride=2, padding=1),
       lambda x, w, b: conv_ref(x, w, b, 2, 1), (((2, 2, 7), (3, 2, 3), (3,)),), **CONV_TOL,
       layout_differs=ONE_D_AS_2D),
    Op("F_conv1d_groups", lambda x, w: F(x).conv1d(x, w, groups=2, dilation=2),
       lambda x, w: conv_ref(x, w, dilation=2, groups=2), (((2, 4, 6), (4, 2, 2)),), **CONV_TOL,
       layout_differs=ONE_D_AS_2D),
    Op("F_conv3d", lambda x, w: F(x).conv3d(x, w, padding=(0, 1, 0)),
       lambda x, w: conv_ref(x, w, padding=(0, 1, 0)), (((1, 2, 3, 2, 3), (2, 2, 2, 2, 2)),),
       **CONV_TOL),
    Op("F_conv_transpose2d",
       lambda x, w, b: F(x).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
       lambda x, w, b: conv_transpose_ref(x, w, b, 2, 1, 1), (((1, 2, 3, 3), (2, 3, 2, 2), (3,)),),
       **CONV_TOL),
    Op("F_conv_transpose2d_groups",
       lambda x, w: F(x).conv_transpose2d(x, w, groups=2, dilation=(2, 1), stride=(1, 2)),
       lambda x, w: conv_transpose_ref(x, w, stride=(1, 2), groups=2, dilation=(2, 1)),
       (((1, 4, 3, 2), (4, 1, 2, 2)),), **CONV_TOL),
    Op("F_conv_transpose1d",
       lambda x, w, b: F(x).conv_transpose1d(x, w, b, stride=2, output_padding=1),
       lambda x, w, b: conv_transpose_ref(x, w, b, 2, 0, 1), (((2, 2, 4), (2, 3, 3), (3,)),),
       **CONV_TOL,
       layout_differs=ONE_D_AS_2D),
    Op("F_unfold", lambda x: F(x).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
       lambda x: unfold_ref(x, (2, 3), (1, 2), (1, 1), (2, 1)), (((2, 2, 4, 5),), ((2, 3, 3),))),
    Op("F_fold", lambda x: F(x).fold(x, (4, 5), 2, padding=(1, 0), stride=(1, 2)),
       lambda x: fold_ref(x, (4, 5), (2, 2), (1, 1), (1, 0), (1, 2)), (((2, 8, 10),), ((4, 10),)),
       layout_differs=FOLD_LAYOUT),
    # pooling
    Op("F_max_pool2d", lambda x: F(x).max_pool2d(x, 2), lambda x: max_pool_ref(x, (2, 2), (2, 2)),
       (((2, 2, 4, 5),), ((3, 4, 4),)), note=TIE_NOTE),
    Op("F_max_pool2d_options",
       lambda x: F(x).max_pool2d(x, (3, 2), (2, 1), (1, 1), dilation=(1, 2), ceil_mode=True),
       lambda x: max_pool_ref(x, (3, 2), (2, 1), (1, 1), (1, 2), True), (((1, 2, 6, 5),),),
       note=TIE_NOTE),
    Op("F_max_pool2d_indices", lambda x: F(x).max_pool2d(x, 3, 2, 1, return_indices=True)[0],
       lambda x: max_pool_ref(x, (3, 3), (2, 2), (1, 1)), (((1, 2, 5, 5),),), note=TIE_NOTE),
    Op("F_max_pool1d", lambda x: F(x).max_pool1d(x, 3, 2, 1, ceil_mode=True),
       lambda x: max_pool_ref(x[..., None, :], (1, 3), (1, 2), (0, 1), ceil=True)[..., 0, :],
       (((2, 3, 8),), ((2, 6),)), note=TIE_NOTE,
       layout_differs=ONE_D_AS_2D),
    Op("F_adaptive_max_pool2d", lambda x: F(x).adaptive_max_pool2d(x, (2, 3)),
       lambda x: adaptive_ref(x, (2, 3), np.max), (((2, 2, 5, 7),),), note=TIE_NOTE),
    Op("F_adaptive_max_pool1d", lambda x: F(x).adaptive_max_pool1d(x, 3),
       lambda x: adaptive_ref(x, (3,), np.max), (((2, 2, 7),),), note=TIE_NOTE,
       layout_differs=ONE_D_AS_2D),
    Op("F_avg_pool2d", lambda x: F(x).avg_pool2d(x, 2), lambda x: avg_pool_ref(x, (2, 2), (2, 2)),
       (((2, 2, 4, 5),), ((3, 4, 4),))),
    Op("F_avg_pool2d_options",
       lambda x: F(x).avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
       lambda x: avg_pool_ref(x, (3, 3), (2, 2), (1, 1), True, False), (((1, 2, 6, 5),),)),
    Op("F_avg_pool2d_divisor", lambda x: F(x).avg_pool2d(x, (2, 3), 2, (1, 1), divisor_override=4),
       lambda x: avg_pool_ref(x, (2, 3), (2, 2), (1, 1), divisor=4), (((1, 2, 5, 5),),)),
    Op("F_avg_pool1d", lambda x: F(x).avg_pool1d(x, 3, 2, 1, ceil_mode=True),
       lambda x: avg_pool_ref(x[..., None, :], (1, 3), (1, 2), (0, 1), True)[..., 0, :],
       (((2, 3, 8),),),
       layout_differs=ONE_D_AS_2D),
    Op("F_adaptive_avg_pool2d", lambda x: F(x).adaptive_avg_pool2d(x, (2, 3)),
       lambda x: adaptive_ref(x, (2, 3), np.mean), (((2, 2, 5, 7),), ((2, 3, 4),))),
    Op("F_adaptive_avg_pool2d_mean", lambda x: F(x).adaptive_avg_pool2d(x, 1),
       lambda x: adaptive_ref(x, (1, 1), np.mean), (((2, 2, 3, 4),),)),
    Op("F_adaptive_avg_pool1d", lambda x: F(x).adaptive_avg_pool1d(x, 4),
       lambda x: adaptive_ref(x, (4,), np.mean), (((2, 2, 7),),),
       layout_differs=ONE_D_AS_2D),
    # normalisation
    Op("F_batch_norm", lambda x, w, b: F(x).batch_norm(x, None, None, w, b, training=True),
       batch_norm_ref, (((4, 3, 2, 2), (3,), (3,)), ((5, 2), (2,), (2,)))),
    Op("F_batch_norm_plain", lambda x: F(x).batch_norm(x, None, None, training=True),
       batch_norm_ref, (((3, 2, 4),),)),
    Op("F_batch_norm_eval",
       lambda x, w, b: F(x).batch_norm(
           x, lib(x).tensor([0.5, -1.0], dtype=x.dtype), lib(x).tensor([2.0, 0.5], dtype=x.dtype),
           w, b),
       lambda x, w, b: batch_norm_eval_ref(x, [0.5, -1.0], [2.0, 0.5], w, b),
       (((3, 2, 3), (2,), (2,)),)),
    Op("F_layer_norm", lambda x, w, b: F(x).layer_norm(x, (2, 3), w, b),
       lambda x, w, b: normalize_ref(x, (-2, -1)) * w + b, (((3, 2, 3), (2, 3), (2, 3)),)),
    Op("F_layer_norm_plain", lambda x: F(x).layer_norm(x, (4,), eps=1e-3),
       lambda x: normalize_ref(x, (-1,), 1e-3), (((3, 4),), ((2, 2, 4),))),
    Op("F_group_norm", lambda x, w, b: F(x).group_norm(x, 2, w, b),
       lambda x, w, b: group_norm_ref(x, 2, w, b), (((2, 4, 3), (4,), (4,)),)),
    Op("F_instance_norm", lambda x, w, b: F(x).instance_norm(x, weight=w, bias=b),
       lambda x, w, b: normalize_ref(x, (2, 3)) * per_channel(w, x) + per_channel(b, x),
       (((2, 3, 2, 3), (3,), (3,)),)),
    Op("F_rms_norm", lambda x, w: F(x).rms_norm(x, (2, 3), w, eps=1e-3),
       lambda x, w: x / np.sqrt((x * x).mean((-2, -1), keepdims=True) + 1e-3) * w,
       (((3, 2, 3), (2, 3)),),
       layout_differs=RMS_NORM_LAYOUT),
    Op("F_rms_norm_plain", lambda x: F(x).rms_norm(x, [4]),
       lambda x: x / np.sqrt((x * x).mean(-1, keepdims=True) + np.finfo(x.dtype).eps),
       (((3, 4),),),
       layout_differs=RMS_NORM_LAYOUT),
    Op("F_local_response_norm", lambda x: F(x).local_response_norm(x, 3, alpha=0.5, k=2.0),
       lambda x: local_response_norm_ref(x, 3, 0.5, 0.75, 2.0), (((2, 5, 3),), ((2, 4, 2, 3),))),
    # padding
    Op("F_pad_constant", lambda x: F(x).pad(x, (1, 2, 0, 1), value=0.5),
       lambda x: np.pad(x, [*_lead(x, 2), (0, 1), (1, 2)], constant_values=0.5),
       (((2, 3, 4),), ((3, 2),))),
    Op("F_pad_crop", lambda x: F(x).pad(x, (-1, 2, 1, -2)),
       lambda x: np.pad(x, [*_lead(x, 2), (1, 0), (0, 2)])[..., :-2, 1:], (((2, 4, 5),),)),
    Op("F_pad_reflect", lambda x: F(x).pad(x, (2, 1, 1, 3), mode="reflect"),
       lambda x: np.pad(x, [*_lead(x, 2), (1, 3), (2, 1)], mode="reflect"),
       (((1, 2, 4, 3),), ((2, 4, 3),))),
    Op("F_pad_reflect1d", lambda x: F(x).pad(x, (2, 3), mode="reflect"),
       lambda x: np.pad(x, [*_lead(x, 1), (2, 3)], mode="reflect"), (((2, 3, 5),),)),
    Op("F_pad_replicate", lambda x: F(x).pad(x, (3, 1, 0, 2), mode="replicate"),
       lambda x: np.pad(x, [*_lead(x, 2), (0, 2), (3, 1)], mode="edge"), (((2, 2, 3, 3),),)),
    Op("F_pad_circular", lambda x: F(x).pad(x, (2, 1, 1, 3), mode="circular"),
       lambda x: circular_ref(x, [(1, 3), (2, 1)]), (((1, 2, 4, 3),),)),
    # interpolation
    Op("F_interpolate_nearest", lambda x: F(x).interpolate(x, size=(5, 2)),
       lambda x: nearest_ref(x, (5, 2)), (((1, 2, 3, 4),),)),
    Op("F_interpolate_nearest1d", lambda x: F(x).interpolate(x, scale_factor=2),
       lambda x: nearest_ref(x, (x.shape[-1] * 2,)), (((2, 2, 3),),)),
    Op("F_interpolate_bilinear",
       lambda x: F(x).interpolate(x, size=(5, 3), mode="bilinear"),
       lambda x: linear_resize_ref(x, (5, 3), False), (((1, 2, 3, 4),),)),
    Op("F_interpolate_bilinear_corners",
       lambda x: F(x).interpolate(x, size=(4, 6), mode="bilinear", align_corners=True),
       lambda x: linear_resize_ref(x, (4, 6), True), (((1, 2, 3, 4),),)),
    Op("F_interpolate_linear", lambda x: F(x).interpolate(x, size=7, mode="linear"),
       lambda x: linear_resize_ref(x, (7,), False), (((2, 2, 4),),)),
    Op("F_interpolate_trilinear", lambda x: F(x).interpolate(x, size=(3, 2, 3), mode="trilinear"),
       lambda x: linear_resize_ref(x, (3, 2, 3), False), (((1, 1, 2, 3, 2),),)),
    Op("F_interpolate_area", lambda x: F(x).interpolate(x, size=(2, 3), mode="area"),
       lambda x: adaptive_ref(x, (2, 3), np.mean), (((1, 2, 5, 4),),)),
    # rearranging
    Op("F_pixel_shuffle", lambda x: F(x).pixel_shuffle(x, 2), lambda x: pixel_shuffle_ref(x, 2),
       (((2, 8, 2, 3),), ((4, 1, 2),))),
    Op("F_pixel_unshuffle", lambda x: F(x).pixel_unshuffle(F(x).pixel_shuffle(x, 2), 2),
       lambda x: x, (((1, 4, 2, 3),),),
       layout_differs=UNSHUFFLE_EMPTY),
)
# fmt: on
