"""Op table lines of the reductions, scans and sorting family (read by tests/test_ops.py).

Sample values are random, so extremes, medians and sorted orders have no ties
there; ties, zeros (prod, cumprod) and NaN are checked in tests/test_reductions.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from op_table import ANY, NONZERO, POSITIVE, Domain, Op, lib

M23 = (((2, 3),),)
M234 = (((2, 3, 4),),)
SMALL = (((2, 3),), ((4,),), ((),))


def _lower_median(a: np.ndarray) -> Any:
    return np.sort(a.reshape(-1))[(a.size - 1) // 2]


def _lower_median_dim(a: np.ndarray, dim: int) -> Any:
    return np.take(np.sort(a, axis=dim), (a.shape[dim] - 1) // 2, axis=dim)


def _topk(a: np.ndarray, k: int) -> np.ndarray:
    return -np.sort(-a, axis=-1)[..., :k]


def _norm(a: np.ndarray, p: float, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    if p == np.inf:
        return np.max(np.abs(a), axis=axis, keepdims=keepdims)
    if p == -np.inf:
        return np.min(np.abs(a), axis=axis, keepdims=keepdims)
    if p == 0:
        return np.sum(a != 0, axis=axis, keepdims=keepdims).astype(a.dtype)
    return np.sum(np.abs(a) ** p, axis=axis, keepdims=keepdims) ** (1 / p)


def _logsumexp(a: np.ndarray, axis: Any, keepdims: bool = False) -> np.ndarray:
    return np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims))


def _cumulative_trapezoid(y: np.ndarray, x: np.ndarray | None = None, axis: int = -1) -> Any:
    pairs = np.take(y, range(1, y.shape[axis]), axis) + np.take(y, range(y.shape[axis] - 1), axis)
    if x is None:
        return np.cumsum(pairs / 2, axis)
    return np.cumsum(pairs * np.diff(x, axis=axis) / 2, axis)


def _coordinates(x: Any, values: list[float]) -> Any:
    """A 1-d tensor of sample coordinates in x's library and dtype."""
    return lib(x).tensor(values, dtype=x.dtype)


def _diff(a: np.ndarray) -> np.ndarray:
    return np.diff(a, axis=-1)


# fmt: off
OPS: tuple[Op, ...] = (
    # prod (zeros: see test_reductions.py)
    Op("prod", lambda x: x.prod(), np.prod, SMALL, hypothesis="unary"),
    Op("prod_dim", lambda x: x.prod(1), lambda x: x.prod(1), (((2, 3),), ((2, 3, 2),))),
    Op("prod_keepdim", lambda x: x.prod(-1, keepdim=True), lambda x: x.prod(-1, keepdims=True),
       M23),
    Op("prod_fn", lambda x: lib(x).prod(x, 0), lambda x: x.prod(0), M23),
    # extremes
    Op("max", lambda x: x.max(), np.max, SMALL),
    Op("min", lambda x: x.min(), np.min, SMALL),
    Op("max_dim", lambda x: x.max(1).values, lambda x: x.max(1), (((2, 3),), ((2, 3, 2),))),
    Op("min_dim_keepdim", lambda x: x.min(0, keepdim=True)[0], lambda x: x.min(0, keepdims=True),
       M23),
    Op("max_fn_dim", lambda x: lib(x).max(x, dim=-1).values, lambda x: x.max(-1), M23),
    Op("max_binary", lambda x, y: lib(x).max(x, y), np.maximum, (((2, 3), (2, 3)), ((2, 3), (3,)))),
    Op("min_binary", lambda x, y: x.min(y), np.minimum, (((2, 3), (2, 3)), ((), (3,)))),
    Op("amax", lambda x: x.amax(), np.max, SMALL),
    Op("amax_dims", lambda x: x.amax((0, 2)), lambda x: x.max((0, 2)), M234),
    Op("amin_keepdim", lambda x: x.amin(-1, keepdim=True), lambda x: x.min(-1, keepdims=True), M23),
    Op("aminmax_min", lambda x: lib(x).aminmax(x).min, np.min, M23),
    Op("aminmax_dim", lambda x: x.aminmax(dim=1).max, lambda x: x.max(1), M23),
    Op("aminmax_both", lambda x: sum(x.aminmax(dim=0, keepdim=True)),
       lambda x: x.min(0, keepdims=True) + x.max(0, keepdims=True), M23),
    # spread
    Op("var", lambda x: x.var(), lambda x: np.var(x, ddof=1), (((2, 3),), ((4,),))),
    Op("var_dim", lambda x: x.var(1), lambda x: np.var(x, 1, ddof=1), M23),
    Op("var_correction", lambda x: x.var((0, 2), correction=0, keepdim=True),
       lambda x: np.var(x, (0, 2), keepdims=True), M234),
    Op("var_unbiased_false", lambda x: x.var(0, False), lambda x: np.var(x, 0), M23),
    Op("std", lambda x: x.std(), lambda x: np.std(x, ddof=1), (((2, 3),), ((4,),))),
    Op("std_dim", lambda x: x.std(-1, keepdim=True), lambda x: np.std(x, -1, ddof=1, keepdims=True),
       M23),
    Op("std_correction", lambda x: x.std(0, correction=2), lambda x: np.std(x, 0, ddof=2),
       (((4, 2),),)),
    Op("var_mean_var", lambda x: lib(x).var_mean(x, 1)[0], lambda x: np.var(x, 1, ddof=1), M23),
    Op("var_mean_both", lambda x: sum(lib(x).var_mean(x, 0, keepdim=True)),
       lambda x: np.var(x, 0, ddof=1, keepdims=True) + x.mean(0, keepdims=True), M23),
    Op("std_mean_std", lambda x: lib(x).std_mean(x)[0], lambda x: np.std(x, ddof=1), M23),
    Op("std_mean_both", lambda x: sum(lib(x).std_mean(x, -1)),
       lambda x: np.std(x, -1, ddof=1) + x.mean(-1), M23),
    # norms
    Op("norm", lambda x: x.norm(), lambda x: _norm(x, 2), SMALL),
    Op("norm_1", lambda x: x.norm(1), lambda x: _norm(x, 1), M23, NONZERO),
    Op("norm_inf", lambda x: x.norm(float("inf")), lambda x: _norm(x, np.inf), M23),
    Op("norm_-inf", lambda x: x.norm(float("-inf")), lambda x: _norm(x, -np.inf), M23),
    Op("norm_3", lambda x: x.norm(3), lambda x: _norm(x, 3), M23),
    Op("norm_1.5", lambda x: x.norm(1.5), lambda x: _norm(x, 1.5), M23, NONZERO),
    Op("norm_0.5", lambda x: x.norm(0.5), lambda x: _norm(x, 0.5), M23, NONZERO),
    Op("norm_0", lambda x: x.norm(0), lambda x: _norm(x, 0), M23,
       note="piecewise constant: no gradient at all (None), as in PyTorch"),
    Op("norm_-1", lambda x: x.norm(-1), lambda x: _norm(x, -1), M23, NONZERO),
    Op("norm_dim", lambda x: x.norm(dim=1), lambda x: _norm(x, 2, 1), M23),
    Op("norm_fro_dims", lambda x: x.norm("fro", dim=(0, 2), keepdim=True),
       lambda x: _norm(x, 2, (0, 2), True), M234),
    Op("norm_inf_dim", lambda x: lib(x).norm(x, float("inf"), 0), lambda x: _norm(x, np.inf, 0),
       M23),
    Op("norm_1_dim_keepdim", lambda x: x.norm(p=1, dim=-1, keepdim=True),
       lambda x: _norm(x, 1, -1, True), M23, NONZERO),
    # logsumexp
    Op("logsumexp", lambda x: x.logsumexp(1), lambda x: _logsumexp(x, 1),
       (((2, 3),), ((2, 3, 2),))),
    Op("logsumexp_dims", lambda x: lib(x).logsumexp(x, (0, -1), keepdim=True),
       lambda x: _logsumexp(x, (0, 2), True), M234),
    Op("logsumexp_last", lambda x: x.logsumexp(-1), lambda x: _logsumexp(x, -1), SMALL[1:]),
    # NaN-aware sums (NaN inputs: see test_reductions.py)
    Op("nansum", lambda x: x.nansum(), np.nansum, SMALL, hypothesis="unary"),
    Op("nansum_dim", lambda x: x.nansum(1, keepdim=True), lambda x: x.sum(1, keepdims=True), M23),
    Op("nanmean", lambda x: x.nanmean(), np.mean, SMALL),
    Op("nanmean_dim", lambda x: lib(x).nanmean(x, (0, 1)), lambda x: x.mean((0, 1)), M234),
    # scans
    Op("cumsum", lambda x: x.cumsum(1), lambda x: x.cumsum(1), (((2, 3),), ((2, 3, 2),))),
    Op("cumsum_", lambda x: (x * 1).cumsum_(0), lambda x: x.cumsum(0), M23),
    Op("cumprod_", lambda x: (x * 1).cumprod_(1), lambda x: x.cumprod(1), M23),
    Op("cumsum_last", lambda x: x.cumsum(-1), lambda x: np.cumsum(x, -1) if x.ndim else x, SMALL,
       hypothesis="unary"),
    Op("cumsum_fn", lambda x: lib(x).cumsum(x, dim=0), lambda x: x.cumsum(0), M23),
    Op("cumprod", lambda x: x.cumprod(1), lambda x: x.cumprod(1), (((2, 3),), ((2, 4, 2),))),
    Op("cumprod_last", lambda x: x.cumprod(-1), lambda x: np.cumprod(x, -1) if x.ndim else x, SMALL,
       hypothesis="unary"),
    Op("cummax", lambda x: x.cummax(1).values, lambda x: np.maximum.accumulate(x, 1), M23),
    Op("cummin", lambda x: lib(x).cummin(x, 0)[0], lambda x: np.minimum.accumulate(x, 0),
       (((4, 2),),)),
    Op("logcumsumexp", lambda x: x.logcumsumexp(1), lambda x: np.logaddexp.accumulate(x, 1),
       (((2, 3),), ((2, 4, 2),))),
    Op("logcumsumexp_last", lambda x: x.logcumsumexp(-1),
       lambda x: np.logaddexp.accumulate(x, -1) if x.ndim else x, SMALL, hypothesis="unary"),
    Op("diff", lambda x: x.diff(), _diff, (((2, 3),), ((4,),))),
    Op("diff_n2_dim0", lambda x: lib(x).diff(x, n=2, dim=0), lambda x: np.diff(x, 2, 0),
       (((4, 2),),)),
    Op("diff_prepend_append", lambda x, y: x.diff(prepend=y, append=y * 2),
       lambda x, y: np.diff(np.concatenate([y, x, y * 2], -1)), (((2, 3), (2, 1)),)),
    # integration
    Op("trapezoid", lambda y: lib(y).trapezoid(y), np.trapezoid, (((2, 3),), ((4,),), ((2, 1),))),
    Op("trapezoid_dx_dim0", lambda y: lib(y).trapezoid(y, dx=0.5, dim=0),
       lambda y: np.trapezoid(y, dx=0.5, axis=0), (((3, 2),),)),
    Op("trapezoid_x", lambda y, x: lib(y).trapezoid(y, x), lambda y, x: np.trapezoid(y, x),
       (((2, 3), (3,)), ((2, 3), (2, 3)), ((4,), (4,)))),
    Op("trapezoid_x_dim", lambda y, x: lib(y).trapezoid(y, x=x, dim=1),
       lambda y, x: np.trapezoid(y, x, axis=1), (((2, 3, 4), (1, 3, 1)), ((2, 3), (3,)))),
    Op("trapz_x", lambda y, x: lib(y).trapz(y, x), lambda y, x: np.trapezoid(y, x),
       (((2, 3), (3,)), ((4,), (4,)))),
    Op("trapz_dx_dim0", lambda y: lib(y).trapz(y, dx=0.5, dim=0),
       lambda y: np.trapezoid(y, dx=0.5, axis=0), (((3, 2),),)),
    Op("cumulative_trapezoid", lambda y: lib(y).cumulative_trapezoid(y),
       _cumulative_trapezoid, (((2, 3),), ((4,),))),
    Op("cumulative_trapezoid_dx_dim0", lambda y: lib(y).cumulative_trapezoid(y, dx=0.5, dim=0),
       lambda y: _cumulative_trapezoid(y, axis=0) * 0.5, (((3, 2),),)),
    Op("cumulative_trapezoid_x", lambda y, x: lib(y).cumulative_trapezoid(y, x),
       lambda y, x: _cumulative_trapezoid(y, x), (((2, 3), (2, 3)), ((4,), (4,)))),
    # finite differences
    Op("gradient", lambda x: sum(lib(x).gradient(x)), lambda x: sum(np.gradient(x)), M23),
    Op("gradient_dim_spacing", lambda x: lib(x).gradient(x, spacing=0.5, dim=1)[0],
       lambda x: np.gradient(x, 0.5, axis=1), M23),
    Op("gradient_edge2", lambda x: lib(x).gradient(x, dim=0, edge_order=2)[0],
       lambda x: np.gradient(x, axis=0, edge_order=2), (((4, 2),),)),
    Op("gradient_coordinates",
       lambda x: lib(x).gradient(x, spacing=(_coordinates(x, [0, 1, 3, 4.5]),), dim=1)[0],
       lambda x: np.gradient(x, [0, 1, 3, 4.5], axis=1), (((2, 4),),)),
    Op("gradient_coordinates_edge2",
       lambda x: lib(x).gradient(x, spacing=[_coordinates(x, [0, 1, 3, 4.5])], dim=[-1],
                                 edge_order=2)[0],
       lambda x: np.gradient(x, [0, 1, 3, 4.5], axis=-1, edge_order=2), (((2, 4),),)),
    # sorting and order statistics
    Op("sort", lambda x: x.sort().values, lambda x: np.sort(x, -1), (((2, 3),), ((4,),))),
    Op("sort_descending", lambda x: x.sort(0, descending=True)[0], lambda x: -np.sort(-x, 0), M23),
    Op("sort_fn_stable", lambda x: lib(x).sort(x, stable=True, dim=1).values,
       lambda x: np.sort(x, 1), M234),
    Op("msort", lambda x: x.msort(), lambda x: np.sort(x, 0), (((3, 2),),)),
    Op("topk", lambda x: x.topk(2).values, lambda x: _topk(x, 2), (((2, 3),), ((4,),))),
    Op("topk_smallest", lambda x: x.topk(2, dim=0, largest=False)[0], lambda x: np.sort(x, 0)[:2],
       (((3, 2),),)),
    Op("kthvalue", lambda x: x.kthvalue(2).values, lambda x: np.sort(x, -1)[..., 1], M23),
    Op("kthvalue_keepdim", lambda x: lib(x).kthvalue(x, 3, 0, keepdim=True)[0],
       lambda x: np.sort(x, 0)[2:3], (((4, 2),),)),
    Op("median", lambda x: x.median(), _lower_median, (((2, 3),), ((4,),), ((),))),
    Op("median_dim", lambda x: x.median(1).values, lambda x: _lower_median_dim(x, 1),
       (((2, 4),), ((2, 3),))),
    Op("median_fn_keepdim", lambda x: lib(x).median(x, 0, keepdim=True)[0],
       lambda x: np.expand_dims(_lower_median_dim(x, 0), 0), (((4, 2),),)),
    Op("nanmedian", lambda x: x.nanmedian(), _lower_median, (((2, 3),), ((4,),))),
    Op("nanmedian_dim", lambda x: x.nanmedian(-1)[0], lambda x: _lower_median_dim(x, -1), M23),
    # quantiles (ranks chosen away from .5, where `nearest` would round to even)
    Op("quantile", lambda x: x.quantile(0.3), lambda x: np.quantile(x, 0.3), SMALL),
    Op("quantile_dim_keepdim", lambda x: lib(x).quantile(x, 0.7, dim=0, keepdim=True),
       lambda x: np.quantile(x, 0.7, axis=0, keepdims=True), (((3, 2),), ((2, 3, 4),))),
    Op("quantile_q_tensor", lambda x, q: lib(x).quantile(x, q, dim=1),
       lambda x, q: np.quantile(x, q, axis=1), (((2, 5), (3,)),), (ANY, Domain(0.05, 0.95))),
    *(Op(f"quantile_{how}", lambda x, how=how: x.quantile(0.3, -1, interpolation=how),
         lambda x, how=how: np.quantile(x, 0.3, axis=-1, method=how), (((2, 5),),))
      for how in ("linear", "lower", "higher", "midpoint", "nearest")),
    Op("nanquantile", lambda x: x.nanquantile(0.4), lambda x: np.nanquantile(x, 0.4), SMALL),
    Op("nanquantile_dim", lambda x: lib(x).nanquantile(x, 0.6, dim=-1),
       lambda x: np.nanquantile(x, 0.6, axis=-1), M23),
    # mode (random values are distinct: every count is 1, so the mode is the smallest)
    Op("mode", lambda x: x.mode().values, lambda x: np.min(x, -1), (((2, 3),), ((4,),), ((),))),
    Op("mode_fn_keepdim", lambda x: lib(x).mode(x, 0, keepdim=True)[0],
       lambda x: np.min(x, 0, keepdims=True), (((3, 2),),)),
    # positive inputs keep the division-free forms well conditioned
    Op("prod_positive", lambda x: x.prod(0), lambda x: x.prod(0), (((5, 2),),), POSITIVE),
)
# fmt: on
