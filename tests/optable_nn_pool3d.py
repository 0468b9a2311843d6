"""Op table lines for nn.functional's 3-D pooling, power-average pooling, max unpooling and
channel shuffle. The NumPy references loop over output positions and window offsets in
any number of spatial dims, written from the ops' definitions."""

from __future__ import annotations

from typing import Any

import numpy as np

from op_table import Op
from optable_nn_conv import TIE_NOTE, F, adaptive_ref

Ints = tuple[int, ...]


def pool_ref(
    x: np.ndarray,
    kernel: Ints,
    stride: Ints,
    pad: Ints,
    dilation: Ints,
    ceil: bool,
    reduce: str,
    count_include_pad: bool = True,
    divisor: int | None = None,
) -> Any:
    """Max ("max") or mean ("avg") of each window of the last len(kernel) dims."""
    k = len(kernel)
    size = x.shape[-k:]
    out = []
    for n, kk, s, p, d in zip(size, kernel, stride, pad, dilation, strict=True):
        span = n + 2 * p - d * (kk - 1) - 1
        m = (-(-span // s) if ceil else span // s) + 1
        out.append(m - 1 if ceil and (m - 1) * s >= n + p else m)
    y = np.zeros((*x.shape[:-k], *out))
    for o in np.ndindex(*out):
        starts = [oi * s - p for oi, s, p in zip(o, stride, pad, strict=True)]
        cells = [
            tuple(st + j * d for st, j, d in zip(starts, offset, dilation, strict=True))
            for offset in np.ndindex(*kernel)
        ]

        def within(c: Ints, slack: Ints) -> bool:
            return all(-e <= ci < n + e for ci, n, e in zip(c, size, slack, strict=True))

        inside = [x[(..., *c)] for c in cells if within(c, (0,) * k)]
        if reduce == "max":
            y[(..., *o)] = np.max(np.stack(inside), 0)
        else:
            padded = sum(within(c, pad) for c in cells)
            count = divisor or (padded if count_include_pad else len(inside))
            y[(..., *o)] = sum(inside) / count
    return y


def lp_ref(x: np.ndarray, p: float, kernel: Ints, stride: Ints) -> Any:
    k = len(kernel)
    avg = pool_ref(x**p, kernel, stride, (0,) * k, (1,) * k, False, "avg")
    return (avg * np.prod(kernel)) ** (1 / p)


def unpool_ref(x: np.ndarray, k: int) -> Any:
    """max_unpool(max_pool(x, 2)): x where it is its 2x..x2 window's maximum, else zero."""
    size = x.shape[-k:]
    cut = tuple(slice(0, n - n % 2) for n in size)
    y = np.zeros_like(x)
    core = x[(..., *cut)]
    best = pool_ref(core, (2,) * k, (2,) * k, (0,) * k, (1,) * k, False, "max")
    for axis in range(k):
        best = np.repeat(best, 2, axis=x.ndim - k + axis)
    y[(..., *cut)] = np.where(core == best, core, 0.0)
    return y


def shuffle_ref(x: np.ndarray, groups: int) -> Any:
    n, c = x.shape[:2]
    return x.reshape(n, groups, c // groups, *x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


def _unpool(x: Any, k: int) -> Any:
    pool = getattr(F(x), f"max_pool{k}d")
    values, indices = pool(x, 2, return_indices=True)
    return getattr(F(x), f"max_unpool{k}d")(values, indices, 2, output_size=x.shape[-k:])


# fmt: off
OPS: tuple[Op, ...] = (
    Op("F_max_pool3d", lambda x: F(x).max_pool3d(x, 2, 1, 1),
       lambda x: pool_ref(x, (2,) * 3, (1,) * 3, (1,) * 3, (1,) * 3, False, "max"),
       (((1, 2, 3, 4, 3),), ((2, 3, 3, 2),)), note=TIE_NOTE),
    Op("F_max_pool3d_options",
       lambda x: F(x).max_pool3d(x, (2, 3, 2), (2, 1, 1), (1, 1, 0), (1, 1, 2), True),
       lambda x: pool_ref(x, (2, 3, 2), (2, 1, 1), (1, 1, 0), (1, 1, 2), True, "max"),
       (((1, 2, 4, 3, 4),),), note=TIE_NOTE),
    Op("F_avg_pool3d", lambda x: F(x).avg_pool3d(x, 2, 1, 1, count_include_pad=False),
       lambda x: pool_ref(x, (2,) * 3, (1,) * 3, (1,) * 3, (1,) * 3, False, "avg", False),
       (((1, 2, 3, 4, 3),), ((2, 2, 3, 2),))),
    Op("F_avg_pool3d_divisor",
       lambda x: F(x).avg_pool3d(x, (2, 3, 2), 2, 1, ceil_mode=True, divisor_override=5),
       lambda x: pool_ref(x, (2, 3, 2), (2,) * 3, (1,) * 3, (1,) * 3, True, "avg", divisor=5),
       (((1, 2, 4, 5, 3),),)),
    Op("F_adaptive_avg_pool3d", lambda x: F(x).adaptive_avg_pool3d(x, (2, 3, 2)),
       lambda x: adaptive_ref(x, (2, 3, 2), np.mean), (((1, 2, 3, 5, 4),), ((2, 4, 4, 3),))),
    Op("F_adaptive_max_pool3d", lambda x: F(x).adaptive_max_pool3d(x, (2, 3, 2)),
       lambda x: adaptive_ref(x, (2, 3, 2), np.max), (((1, 2, 3, 5, 4),),), note=TIE_NOTE),
    Op("F_lp_pool1d", lambda x: F(x).lp_pool1d(x, 2, 3, 2),
       lambda x: lp_ref(x, 2, (3,), (2,)), (((2, 3, 7),),),
       layout_differs="torch pools 1-d as 2-d, keeping a channels-last input's layout"),
    Op("F_lp_pool2d", lambda x: F(x).lp_pool2d(x, 2, (2, 3)),
       lambda x: lp_ref(x, 2, (2, 3), (2, 3)), (((1, 2, 4, 6),),)),
    Op("F_lp_pool3d", lambda x: F(x).lp_pool3d(x, 2, 2, 1),
       lambda x: lp_ref(x, 2, (2,) * 3, (1,) * 3), (((1, 2, 3, 3, 3),),)),
    Op("F_max_unpool1d", lambda x: _unpool(x, 1), lambda x: unpool_ref(x, 1),
       (((2, 3, 7),),), note=TIE_NOTE),
    Op("F_max_unpool2d", lambda x: _unpool(x, 2), lambda x: unpool_ref(x, 2),
       (((2, 2, 4, 5),), ((3, 4, 4),)), note=TIE_NOTE),
    Op("F_max_unpool3d", lambda x: _unpool(x, 3), lambda x: unpool_ref(x, 3),
       (((1, 2, 4, 3, 4),),), note=TIE_NOTE),
    Op("F_channel_shuffle", lambda x: F(x).channel_shuffle(x, 2), lambda x: shuffle_ref(x, 2),
       (((2, 4, 3),), ((1, 6, 2, 2),))),
)
# fmt: on
