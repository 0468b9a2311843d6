"""Op table lines for nn.functional: activations, softmax, simple layers and losses.

Integer targets and fixed options live inside each line's `fn` (built with
`lib(x)`, so the same line runs on chainrule and on torch); the NumPy
references below recompute every op from its definition.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from op_table import ANY, NONZERO, POSITIVE, UNARY, Domain, Op, lib

# --- NumPy references ----------------------------------------------------------------------


def F(x: Any) -> Any:
    """The nn.functional module of a tensor's library."""
    return lib(x).nn.functional


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def softplus(x: np.ndarray) -> np.ndarray:
    return np.log1p(np.exp(x))


def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.zeros_like(x)
    if x.shape[axis] == 0:
        return x.copy()
    z = x - x.max(axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis, keepdims=True))


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    return np.exp(log_softmax(x, axis))


_erf = np.vectorize(math.erf, otypes=[float])


def elu(x: np.ndarray, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Any:
    return np.where(x > 0, scale * x, alpha * scale * (np.exp(x * input_scale) - 1))


SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)


def attention(q: Any, k: Any, v: Any, mask: Any = 0.0, scale: float | None = None) -> Any:
    """softmax(q kᵀ * scale + mask) v, the scale 1/sqrt(E) unless given."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    return softmax(q @ np.swapaxes(k, -1, -2) * scale + mask, -1) @ v


def channels(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A per-channel weight shaped to broadcast along dim 1 of x."""
    return w.reshape(-1, *[1] * (x.ndim - 2)) if x.ndim > 1 else w


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def hardsigmoid(x: np.ndarray) -> np.ndarray:
    return np.clip(x + 3, 0, 6) / 6


def reduce(loss: np.ndarray, reduction: str = "mean") -> np.ndarray:
    return {"mean": np.mean, "sum": np.sum}.get(reduction, np.asarray)(loss)


def nll(
    logp: np.ndarray,
    target: np.ndarray,
    weight: Any = None,
    ignore: int = -100,
    reduction: str = "mean",
) -> Any:
    """nll_loss on log-probabilities of shape (N, C, ...) or (C,), by its definition."""
    cdim = 1 if logp.ndim > 1 else 0
    keep = target != ignore
    safe = np.where(keep, target, 0)
    picked = np.take_along_axis(logp, np.expand_dims(safe, cdim), cdim).squeeze(cdim)
    w = (np.ones(logp.shape[cdim]) if weight is None else np.asarray(weight))[safe] * keep
    if reduction == "none":
        return -w * picked
    total = -(w * picked).sum()
    return total if reduction == "sum" else total / w.sum()


def cross_entropy(x: np.ndarray, target: np.ndarray, **kw: Any) -> Any:
    return nll(log_softmax(x, 1 if x.ndim > 1 else 0), target, **kw)


def smoothed_ce(
    x: np.ndarray,
    target: np.ndarray,
    s: float,
    weight: Any = None,
    ignore: int = -100,
    reduction: str = "mean",
) -> Any:
    """Label smoothing as PyTorch defines it: (1 - s) nll + s/C * uniform part."""
    logp = log_softmax(x, 1)
    c = x.shape[1]
    w = np.ones(c) if weight is None else np.asarray(weight)
    keep = target != ignore
    uniform = -(logp * w).sum(1) * keep
    part = nll(logp, target, weight, ignore, reduction)
    if reduction == "mean":
        u = uniform.sum() / (w[np.where(keep, target, 0)] * keep).sum()
    else:
        u = reduce(uniform, reduction)
    return (1 - s) * part + u * s / c


def prob_ce(x: np.ndarray, t: np.ndarray, reduction: str = "mean", s: float = 0.0) -> Any:
    c = x.shape[1]
    t = t * (1 - s) + s / c
    per = -(log_softmax(x, 1) * t).sum(1)
    return {"mean": lambda a: a.sum() / (x.size / c), "sum": np.sum}.get(reduction, np.asarray)(per)


def bce(x: np.ndarray, t: np.ndarray, w: Any = 1.0, reduction: str = "mean") -> Any:
    return reduce(-w * (t * np.log(x) + (1 - t) * np.log(1 - x)), reduction)


def bce_logits(
    x: np.ndarray, t: np.ndarray, w: Any = 1.0, pw: Any = 1.0, reduction: str = "mean"
) -> Any:
    log_p, log_1mp = -np.logaddexp(0, -x), -np.logaddexp(0, x)  # log sigmoid(+-x)
    return reduce(-w * (pw * t * log_p + (1 - t) * log_1mp), reduction)


def huber(d: np.ndarray, delta: float) -> np.ndarray:
    a = np.abs(d)
    return np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


def pdist(a: np.ndarray, b: np.ndarray, p: float = 2.0, eps: float = 1e-6) -> np.ndarray:
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


def cos_sim(a: np.ndarray, b: np.ndarray, axis: int = 1) -> np.ndarray:
    return (a * b).sum(axis) / np.sqrt((a * a).sum(axis) * (b * b).sum(axis))


def cos_embedding(a: np.ndarray, b: np.ndarray, y: np.ndarray, margin: float) -> Any:
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))
    return np.mean(np.where(y == 1, 1 - cos, np.maximum(cos - margin, 0)))


def multilabel(x: np.ndarray, t: np.ndarray, w: Any = 1.0) -> Any:
    per = -(t * np.log(sigmoid(x)) + (1 - t) * np.log(sigmoid(-x))) * w
    return (per.sum(-1) / x.shape[-1]).mean()


def margins(x: np.ndarray, t: Any, p: int = 1, margin: float = 1.0) -> Any:
    """multi_margin_loss (t: one class per row) or, for t of lists, multilabel_margin_loss."""
    per = []
    for row, target in zip(x, t, strict=True):
        if np.ndim(target) == 0:
            pairs = [(target, i, margin) for i in range(row.size) if i != target]
        else:
            listed = list(target[: list(target).index(-1)] if -1 in target else target)
            pairs = [(j, i, 1.0) for j in listed for i in range(row.size) if i not in listed]
        per.append(sum(max(m - row[j] + row[i], 0) ** p for j, i, m in pairs) / row.size)
    return np.mean(per)


def tensor(x: Any, values: Any, float_: bool = True) -> Any:
    """Fixed values as a tensor of x's library (and dtype, for floats)."""
    if float_:
        return lib(x).tensor(values, dtype=x.dtype)
    return lib(x).tensor(values)


# --- fixed targets and options -----------------------------------------------------------

T4 = np.array([0, 2, 1, 1])  # class indices for (4, 3) inputs
T4_IGNORE = np.array([0, -100, 2, 1])
LISTS4 = np.array([[0, 2, -1], [1, -1, 0], [2, 1, 0], [-1, 0, 0]])  # multilabel targets
T_KDIM = np.array([[0, 2, 1, 1], [2, 2, 0, 1]])  # for (2, 3, 4) inputs
T_5D = np.array([[[[0, 2], [1, 1]], [[2, 0], [0, 1]]]])  # for (1, 3, 2, 2, 2) inputs
W3 = np.array([0.2, 1.0, 0.7])
SIGNS4 = np.array([1.0, -1.0, 1.0, -1.0])
SIGNS43 = np.array([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0]])
IDX = np.array([[0, 2], [2, 3]])  # embedding lookups into 4 rows
BAG_OFFSETS = np.array([0, 1])  # two bags of IDX.ravel(): one index, then three

# --- domains ------------------------------------------------------------------------------

RELU6 = Domain(-2.0, 8.0, avoid=(0.0, 6.0))
UNIT_KINKS = Domain(avoid=(-1.0, 1.0))
HALF_KINKS = Domain(avoid=(-0.5, 0.5))
HARD = Domain(-5.0, 5.0, avoid=(-3.0, 3.0))
PROB = Domain(0.05, 0.95)
RATE = Domain(0.5, 3.0)

U23 = (((2, 3),), ((4,),))
MAT = (((4, 3),),)
PAIR = (((4, 3), (4, 3)),)

# fmt: off
OPS: tuple[Op, ...] = (
    # activations
    Op("F_relu", lambda x: F(x).relu(x), lambda x: np.maximum(x, 0), UNARY, NONZERO,
       hypothesis="unary"),
    Op("F_relu_inplace", lambda x: F(x).relu(x * 1, inplace=True), lambda x: np.maximum(x, 0),
       U23, NONZERO),
    Op("F_relu_", lambda x: F(x).relu_(x * 1), lambda x: np.maximum(x, 0), U23[:1], NONZERO),
    Op("F_relu6", lambda x: F(x).relu6(x), lambda x: np.clip(x, 0, 6), UNARY, RELU6,
       hypothesis="unary"),
    Op("F_hardtanh", lambda x: F(x).hardtanh(x), lambda x: np.clip(x, -1, 1), UNARY, UNIT_KINKS,
       hypothesis="unary"),
    Op("F_hardtanh_args", lambda x: F(x).hardtanh(x, -0.5, 1.5), lambda x: np.clip(x, -0.5, 1.5),
       U23, Domain(avoid=(-0.5, 1.5))),
    Op("F_hardtanh_", lambda x: F(x).hardtanh_(x * 1), lambda x: np.clip(x, -1, 1), U23,
       UNIT_KINKS),
    Op("F_leaky_relu", lambda x: F(x).leaky_relu(x), lambda x: np.where(x > 0, x, 0.01 * x),
       UNARY, NONZERO, hypothesis="unary"),
    Op("F_leaky_relu_slope", lambda x: F(x).leaky_relu(x, 0.2),
       lambda x: np.where(x > 0, x, 0.2 * x), U23, NONZERO),
    Op("F_rrelu_eval", lambda x: F(x).rrelu(x, 0.1, 0.3),
       lambda x: np.where(x > 0, x, 0.2 * x), UNARY, NONZERO),
    Op("F_leaky_relu_inplace", lambda x: F(x).leaky_relu(x * 1, 0.2, inplace=True),
       lambda x: np.where(x > 0, x, 0.2 * x), U23, NONZERO),
    Op("F_elu", lambda x: F(x).elu(x), elu, UNARY, NONZERO, hypothesis="unary"),
    Op("F_elu_alpha", lambda x: F(x).elu(x, 0.5), lambda x: elu(x, 0.5), U23, NONZERO),
    Op("F_elu_", lambda x: F(x).elu_(x * 1, 0.5), lambda x: elu(x, 0.5), U23, NONZERO),
    Op("F_selu", lambda x: F(x).selu(x), lambda x: elu(x, *SELU), UNARY, NONZERO,
       hypothesis="unary"),
    Op("F_selu_inplace", lambda x: F(x).selu(x * 1, inplace=True), lambda x: elu(x, *SELU), U23,
       NONZERO),
    Op("F_celu", lambda x: F(x).celu(x, 0.7), lambda x: elu(x, 0.7, 1.0, 1 / 0.7), UNARY,
       NONZERO, hypothesis="unary"),
    Op("F_celu_", lambda x: F(x).celu_(x * 1, 0.7), lambda x: elu(x, 0.7, 1.0, 1 / 0.7), U23,
       NONZERO),
    Op("F_gelu", lambda x: F(x).gelu(x), lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))), UNARY,
       hypothesis="unary"),
    Op("F_gelu_tanh", lambda x: F(x).gelu(x, approximate="tanh"), gelu_tanh, UNARY,
       hypothesis="unary"),
    Op("F_silu", lambda x: F(x).silu(x), lambda x: x * sigmoid(x), UNARY, hypothesis="unary"),
    Op("F_silu_inplace", lambda x: F(x).silu(x * 1, inplace=True), lambda x: x * sigmoid(x), U23),
    Op("F_mish", lambda x: F(x).mish(x), lambda x: x * np.tanh(softplus(x)), UNARY,
       hypothesis="unary"),
    Op("F_mish_inplace", lambda x: F(x).mish(x * 1, inplace=True),
       lambda x: x * np.tanh(softplus(x)), U23),
    Op("F_softplus", lambda x: F(x).softplus(x), softplus, UNARY, hypothesis="unary"),
    Op("F_softplus_beta", lambda x: F(x).softplus(x, beta=2, threshold=1),
       lambda x: np.where(2 * x > 1, x, softplus(2 * x) / 2), U23, Domain(avoid=(0.5,))),
    Op("F_softsign", lambda x: F(x).softsign(x), lambda x: x / (1 + np.abs(x)), UNARY, NONZERO,
       hypothesis="unary"),
    Op("F_hardsigmoid", lambda x: F(x).hardsigmoid(x), hardsigmoid, UNARY, HARD,
       hypothesis="unary"),
    Op("F_hardsigmoid_inplace", lambda x: F(x).hardsigmoid(x * 1, inplace=True), hardsigmoid,
       U23, HARD),
    Op("F_hardswish", lambda x: F(x).hardswish(x), lambda x: x * hardsigmoid(x), UNARY, HARD,
       hypothesis="unary"),
    Op("F_hardswish_inplace", lambda x: F(x).hardswish(x * 1, inplace=True),
       lambda x: x * hardsigmoid(x), U23, HARD),
    Op("F_logsigmoid", lambda x: F(x).logsigmoid(x), lambda x: -softplus(-x), UNARY,
       hypothesis="unary"),
    Op("F_tanhshrink", lambda x: F(x).tanhshrink(x), lambda x: x - np.tanh(x), UNARY,
       hypothesis="unary"),
    Op("F_softshrink", lambda x: F(x).softshrink(x),
       lambda x: np.where(np.abs(x) > 0.5, x - 0.5 * np.sign(x), 0), UNARY, HALF_KINKS,
       hypothesis="unary"),
    Op("F_softshrink_lambd", lambda x: F(x).softshrink(x, 1.0),
       lambda x: np.where(np.abs(x) > 1, x - np.sign(x), 0), U23, UNIT_KINKS),
    Op("F_hardshrink", lambda x: F(x).hardshrink(x), lambda x: np.where(np.abs(x) > 0.5, x, 0),
       UNARY, HALF_KINKS, hypothesis="unary"),
    Op("F_threshold", lambda x: F(x).threshold(x, 0.1, 20.0), lambda x: np.where(x > 0.1, x, 20),
       UNARY, Domain(avoid=(0.1,)), hypothesis="unary"),
    Op("F_threshold_", lambda x: F(x).threshold_(x * 1, 0.1, -1.0),
       lambda x: np.where(x > 0.1, x, -1.0), U23, Domain(avoid=(0.1,))),
    Op("F_prelu", lambda x, w: F(x).prelu(x, w),
       lambda x, w: np.where(x > 0, x, x * channels(w, x)),
       (((2, 3, 4), (3,)), ((2, 3), (1,)), ((4,), (1,))), (NONZERO, ANY)),
    Op("F_glu", lambda x: F(x).glu(x), lambda x: x[..., :2] * sigmoid(x[..., 2:]),
       (((2, 4),), ((4,),))),
    Op("F_glu_dim0", lambda x: F(x).glu(x, 0), lambda x: x[:2] * sigmoid(x[2:]), (((4, 3),),)),
    Op("F_sigmoid", lambda x: F(x).sigmoid(x), sigmoid, U23),
    Op("F_tanh", lambda x: F(x).tanh(x), np.tanh, U23),
    # softmax family
    Op("F_softmax", lambda x: F(x).softmax(x, 1), lambda x: softmax(x, 1),
       (((2, 3),), ((2, 3, 4),))),
    Op("F_softmax_last", lambda x: F(x).softmax(x, -1), lambda x: softmax(x, -1), UNARY,
       hypothesis="unary"),
    Op("F_softmax_dtype", lambda x: F(x).softmax(x, 0, dtype=lib(x).float64),
       lambda x: softmax(x, 0), U23),
    Op("F_log_softmax", lambda x: F(x).log_softmax(x, 1), lambda x: log_softmax(x, 1),
       (((2, 3),), ((2, 3, 4),))),
    Op("F_log_softmax_last", lambda x: F(x).log_softmax(x, -1), lambda x: log_softmax(x, -1),
       UNARY, hypothesis="unary"),
    Op("F_log_softmax_wide", lambda x: F(x).log_softmax(x, 0), lambda x: log_softmax(x, 0),
       (((3, 2),),), Domain(-30.0, 30.0), note="large logits: computed from the max"),
    Op("F_torch_softmax", lambda x: lib(x).softmax(x, 0), lambda x: softmax(x, 0), U23),
    Op("F_softmax_method", lambda x: x.softmax(-1), lambda x: softmax(x, -1), U23),
    Op("F_log_softmax_method", lambda x: x.log_softmax(0), lambda x: log_softmax(x, 0), U23),
    Op("F_softmin", lambda x: F(x).softmin(x, 1), lambda x: softmax(-x, 1), (((2, 3),),)),
    Op("F_normalize", lambda x: F(x).normalize(x),
       lambda x: x / np.sqrt((x * x).sum(1, keepdims=True)), (((2, 3),), ((2, 3, 2),))),
    Op("F_normalize_p1", lambda x: F(x).normalize(x, p=1, dim=0),
       lambda x: x / np.abs(x).sum(0, keepdims=True), (((3, 2),), ((4,),)), NONZERO),
    Op("F_normalize_inf", lambda x: F(x).normalize(x, p=math.inf, dim=-1),
       lambda x: x / np.abs(x).max(-1, keepdims=True), (((2, 3),),), NONZERO),
    Op("F_normalize_p3", lambda x: F(x).normalize(x, p=3, dim=1),
       lambda x: x / ((np.abs(x) ** 3).sum(1, keepdims=True)) ** (1 / 3), (((2, 3),),), NONZERO),
    # layers
    Op("F_linear", lambda x, w, b: F(x).linear(x, w, b), lambda x, w, b: x @ w.T + b,
       (((4, 3), (2, 3), (2,)), ((2, 4, 3), (2, 3), (2,)), ((3,), (2, 3), (2,)),
        ((4, 3), (2, 3), ()))),
    Op("F_linear_nobias", lambda x, w: F(x).linear(x, w), lambda x, w: x @ w.T,
       (((4, 3), (2, 3)), ((2, 4, 3), (2, 3)), ((3,), (2, 3)), ((4, 3), (3,)))),
    Op("F_bilinear", lambda a, b, w, c: F(a).bilinear(a, b, w, c),
       lambda a, b, w, c: np.einsum("...i,oij,...j->...o", a, w, b) + c,
       (((4, 3), (4, 2), (5, 3, 2), (5,)), ((2, 2, 3), (2, 2, 2), (1, 3, 2), (1,)))),
    Op("F_bilinear_nobias", lambda a, b, w: F(a).bilinear(a, b, w),
       lambda a, b, w: np.einsum("...i,oij,...j->...o", a, w, b),
       (((4, 3), (4, 2), (5, 3, 2)),),
       name_differs=("SumBackward1", "composed of matmul and sum; PyTorch calls _trilinear")),
    Op("F_scaled_dot_product_attention",
       lambda q, k, v: F(q).scaled_dot_product_attention(q, k, v),
       lambda q, k, v: attention(q, k, v),
       (((2, 3, 4), (2, 5, 4), (2, 5, 3)), ((4, 2), (3, 2), (3, 5)),
        ((1, 2, 2, 3), (1, 2, 4, 3), (1, 1, 4, 2)))),
    Op("F_scaled_dot_product_attention_mask",
       lambda q, k, v, m: F(q).scaled_dot_product_attention(q, k, v, m, scale=0.4),
       lambda q, k, v, m: attention(q, k, v, m, scale=0.4),
       (((2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5)),)),
    Op("F_scaled_dot_product_attention_causal",
       lambda q, k, v: F(q).scaled_dot_product_attention(q, k, v, is_causal=True),
       lambda q, k, v: attention(q, k, v, np.triu(np.full((3, 4), -np.inf), 1)),
       (((2, 3, 4), (2, 4, 4), (2, 4, 3)),)),
    Op("F_embedding", lambda w: F(w).embedding(tensor(w, IDX, False), w), lambda w: w[IDX],
       (((4, 3),),)),
    Op("F_embedding_bag_sum",
       lambda w: F(w).embedding_bag(tensor(w, IDX.ravel(), False), w, tensor(w, BAG_OFFSETS, False),
                                    mode="sum"),
       lambda w: np.stack([w[IDX.ravel()[:1]].sum(0), w[IDX.ravel()[1:]].sum(0)]), (((4, 3),),)),
    Op("F_embedding_bag_mean",
       lambda w: F(w).embedding_bag(tensor(w, IDX, False), w),
       lambda w: w[IDX].mean(1), (((4, 3),),)),
    Op("F_dropout_eval", lambda x: F(x).dropout(x, 0.5, training=False), lambda x: x, U23),
    Op("F_cosine_similarity", lambda a, b: F(a).cosine_similarity(a, b), cos_sim,
       (((4, 3), (4, 3)), ((4, 3), (1, 3)))),
    Op("F_cosine_similarity_dim0", lambda a, b: F(a).cosine_similarity(a, b, dim=0),
       lambda a, b: cos_sim(a, b, 0), (((3, 2), (3, 2)),)),
    Op("F_pairwise_distance", lambda a, b: F(a).pairwise_distance(a, b), pdist,
       (((4, 3), (4, 3)), ((3,), (3,)))),
    Op("F_pairwise_distance_p1", lambda a, b: F(a).pairwise_distance(a, b, p=1, keepdim=True),
       lambda a, b: pdist(a, b, 1)[..., None], PAIR),
    Op("F_pairwise_distance_p3", lambda a, b: F(a).pairwise_distance(a, b, p=3),
       lambda a, b: pdist(a, b, 3), PAIR),
    # cross entropy and nll
    Op("F_cross_entropy", lambda x: F(x).cross_entropy(x, tensor(x, T4, False)),
       lambda x: cross_entropy(x, T4), MAT),
    Op("F_cross_entropy_sum", lambda x: F(x).cross_entropy(x, tensor(x, T4, False),
                                                             reduction="sum"),
       lambda x: cross_entropy(x, T4, reduction="sum"), MAT),
    Op("F_cross_entropy_none", lambda x: F(x).cross_entropy(x, tensor(x, T4, False),
                                                              reduction="none"),
       lambda x: cross_entropy(x, T4, reduction="none"), MAT),
    Op("F_cross_entropy_weight_ignore",
       lambda x: F(x).cross_entropy(x, tensor(x, T4_IGNORE, False), weight=tensor(x, W3)),
       lambda x: cross_entropy(x, T4_IGNORE, weight=W3), MAT),
    Op("F_cross_entropy_ignore_index",
       lambda x: F(x).cross_entropy(x, tensor(x, T4, False), ignore_index=1, reduction="none"),
       lambda x: cross_entropy(x, T4, ignore=1, reduction="none"), MAT),
    Op("F_cross_entropy_kdim", lambda x: F(x).cross_entropy(x, tensor(x, T_KDIM, False)),
       lambda x: cross_entropy(x, T_KDIM), (((2, 3, 4),),)),
    Op("F_cross_entropy_5d", lambda x: F(x).cross_entropy(x, tensor(x, T_5D, False),
                                                            reduction="none"),
       lambda x: cross_entropy(x, T_5D, reduction="none"), (((1, 3, 2, 2, 2),),)),
    Op("F_cross_entropy_1d", lambda x: F(x).cross_entropy(x, tensor(x, 2, False)),
       lambda x: cross_entropy(x, np.array(2)), (((3,),),)),
    Op("F_cross_entropy_smooth",
       lambda x: F(x).cross_entropy(x, tensor(x, T4, False), label_smoothing=0.1),
       lambda x: smoothed_ce(x, T4, 0.1), MAT),
    Op("F_cross_entropy_smooth_weight",
       lambda x: F(x).cross_entropy(x, tensor(x, T4_IGNORE, False), weight=tensor(x, W3),
                                    label_smoothing=0.2),
       lambda x: smoothed_ce(x, T4_IGNORE, 0.2, weight=W3), MAT),
    Op("F_cross_entropy_smooth_none",
       lambda x: F(x).cross_entropy(x, tensor(x, T4_IGNORE, False), label_smoothing=0.2,
                                    reduction="none"),
       lambda x: smoothed_ce(x, T4_IGNORE, 0.2, reduction="none"), MAT),
    Op("F_cross_entropy_probs", lambda x, t: F(x).cross_entropy(x, t), prob_ce, PAIR,
       (ANY, POSITIVE)),
    Op("F_cross_entropy_probs_none", lambda x, t: F(x).cross_entropy(x, t, reduction="none"),
       lambda x, t: prob_ce(x, t, "none"), PAIR, (ANY, POSITIVE)),
    Op("F_cross_entropy_probs_smooth",
       lambda x, t: F(x).cross_entropy(x, t, label_smoothing=0.3, reduction="sum"),
       lambda x, t: prob_ce(x, t, "sum", 0.3), PAIR, (ANY, POSITIVE)),
    Op("F_nll_loss", lambda x: F(x).nll_loss(x, tensor(x, T4, False)),
       lambda x: nll(x, T4), MAT),
    Op("F_nll_loss_weight_ignore",
       lambda x: F(x).nll_loss(x, tensor(x, T4_IGNORE, False), weight=tensor(x, W3)),
       lambda x: nll(x, T4_IGNORE, W3), MAT),
    Op("F_nll_loss_none", lambda x: F(x).nll_loss(x, tensor(x, T4_IGNORE, False), reduction="none"),
       lambda x: nll(x, T4_IGNORE, reduction="none"), MAT),
    Op("F_nll_loss_sum_kdim",
       lambda x: F(x).nll_loss(x, tensor(x, T_KDIM, False), weight=tensor(x, W3), reduction="sum"),
       lambda x: nll(x, T_KDIM, W3, reduction="sum"), (((2, 3, 4),),)),
    # regression losses
    Op("F_mse_loss", lambda x, t: F(x).mse_loss(x, t), lambda x, t: np.mean((x - t) ** 2), PAIR),
    Op("F_mse_loss_sum", lambda x, t: F(x).mse_loss(x, t, reduction="sum"),
       lambda x, t: np.sum((x - t) ** 2), PAIR),
    Op("F_mse_loss_none", lambda x, t: F(x).mse_loss(x, t, reduction="none"),
       lambda x, t: (x - t) ** 2, (*PAIR, ((), ()))),
    Op("F_mse_loss_weight", lambda x, t, w: F(x).mse_loss(x, t, weight=w),
       lambda x, t, w: ((x - t) ** 2 * w).sum() / w.sum(), (((4, 3), (4, 3), (4, 3)),),
       (ANY, ANY, POSITIVE)),
    Op("F_l1_loss", lambda x, t: F(x).l1_loss(x, t), lambda x, t: np.mean(np.abs(x - t)), PAIR),
    Op("F_l1_loss_none", lambda x, t: F(x).l1_loss(x, t, reduction="none"),
       lambda x, t: np.abs(x - t), PAIR),
    Op("F_smooth_l1_loss", lambda x, t: F(x).smooth_l1_loss(x, t),
       lambda x, t: np.mean(huber(x - t, 1.0)), PAIR),
    Op("F_smooth_l1_loss_beta", lambda x, t: F(x).smooth_l1_loss(x, t, reduction="none", beta=0.5),
       lambda x, t: huber(x - t, 0.5) / 0.5, PAIR),
    Op("F_huber_loss", lambda x, t: F(x).huber_loss(x, t, delta=0.5),
       lambda x, t: np.mean(huber(x - t, 0.5)), PAIR),
    Op("F_huber_loss_sum", lambda x, t: F(x).huber_loss(x, t, reduction="sum"),
       lambda x, t: np.sum(huber(x - t, 1.0)), PAIR),
    # binary cross entropy
    Op("F_binary_cross_entropy", lambda x, t: F(x).binary_cross_entropy(x, t), bce, PAIR,
       (PROB, PROB)),
    Op("F_binary_cross_entropy_weight",
       lambda x, t: F(x).binary_cross_entropy(x, t, weight=tensor(x, W3), reduction="none"),
       lambda x, t: bce(x, t, W3, "none"), PAIR, (PROB, PROB)),
    Op("F_bce_with_logits", lambda x, t: F(x).binary_cross_entropy_with_logits(x, t),
       bce_logits, PAIR, (ANY, PROB)),
    Op("F_bce_with_logits_weights",
       lambda x, t: F(x).binary_cross_entropy_with_logits(
           x, t, weight=tensor(x, W3), pos_weight=tensor(x, [2.0, 0.5, 1.5]), reduction="sum"),
       lambda x, t: bce_logits(x, t, W3, np.array([2.0, 0.5, 1.5]), "sum"), PAIR, (ANY, PROB)),
    Op("F_bce_with_logits_wide", lambda x, t: F(x).binary_cross_entropy_with_logits(
           x, t, reduction="none"),
       lambda x, t: bce_logits(x, t, reduction="none"), PAIR, (Domain(-40.0, 40.0), PROB),
       note="large logits: the stable form"),
    # kl_div and the other losses
    Op("F_kl_div", lambda x, t: F(x).kl_div(x, t, reduction="batchmean"),
       lambda x, t: (t * (np.log(t) - x)).sum() / x.shape[0], PAIR, (ANY, POSITIVE)),
    Op("F_kl_div_none", lambda x, t: F(x).kl_div(x, t, reduction="none"),
       lambda x, t: t * (np.log(t) - x), PAIR, (ANY, POSITIVE)),
    Op("F_kl_div_log_target", lambda x, t: F(x).kl_div(x, t, reduction="sum", log_target=True),
       lambda x, t: (np.exp(t) * (t - x)).sum(), PAIR),
    Op("F_margin_ranking_loss",
       lambda a, b: F(a).margin_ranking_loss(a, b, tensor(a, SIGNS4), margin=0.5),
       lambda a, b: np.mean(np.maximum(-SIGNS4 * (a - b) + 0.5, 0)), (((4,), (4,)),)),
    Op("F_soft_margin_loss", lambda x: F(x).soft_margin_loss(x, tensor(x, SIGNS43)),
       lambda x: np.mean(np.log1p(np.exp(-SIGNS43 * x))), MAT),
    Op("F_triplet_margin_loss", lambda a, p, n: F(a).triplet_margin_loss(a, p, n),
       lambda a, p, n: np.mean(np.maximum(1 + pdist(a, p) - pdist(a, n), 0)),
       (((4, 3), (4, 3), (4, 3)),)),
    Op("F_triplet_margin_loss_swap",
       lambda a, p, n: F(a).triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True,
                                                reduction="none"),
       lambda a, p, n: np.maximum(2 + pdist(a, p, 1)
                                  - np.minimum(pdist(a, n, 1), pdist(p, n, 1)), 0),
       (((4, 3), (4, 3), (4, 3)),)),
    Op("F_triplet_margin_with_distance_loss",
       lambda a, p, n: F(a).triplet_margin_with_distance_loss(a, p, n, swap=True),
       lambda a, p, n: np.mean(np.maximum(1 + pdist(a, p)
                                          - np.minimum(pdist(a, n), pdist(p, n)), 0)),
       (((4, 3), (4, 3), (4, 3)),)),
    Op("F_multi_margin_loss", lambda x: F(x).multi_margin_loss(x, tensor(x, T4, False), p=2),
       lambda x: margins(x, T4, p=2), MAT, second_order=False, forward_ad=False,
       note="PyTorch has no second derivative (a NotImplemented node) and no forward mode"),
    Op("F_multilabel_margin_loss",
       lambda x: F(x).multilabel_margin_loss(x, tensor(x, LISTS4, False)),
       lambda x: margins(x, LISTS4), MAT, second_order=False, forward_ad=False,
       note="PyTorch has no second derivative (a NotImplemented node) and no forward mode"),
    Op("F_cosine_embedding_loss",
       lambda a, b: F(a).cosine_embedding_loss(a, b, tensor(a, SIGNS4), margin=-0.5),
       lambda a, b: cos_embedding(a, b, SIGNS4, -0.5), PAIR),
    Op("F_hinge_embedding_loss", lambda x: F(x).hinge_embedding_loss(x, tensor(x, SIGNS43)),
       lambda x: np.mean(np.where(SIGNS43 == 1, x, np.maximum(1 - x, 0))), MAT,
       Domain(avoid=(1.0,))),
    Op("F_poisson_nll_loss", lambda x, t: F(x).poisson_nll_loss(x, t),
       lambda x, t: np.mean(np.exp(x) - t * x), PAIR, (ANY, RATE)),
    Op("F_poisson_nll_loss_full",
       lambda x, t: F(x).poisson_nll_loss(x, t, log_input=False, full=True, reduction="sum"),
       lambda x, t: np.sum(x - t * np.log(x + 1e-8) + np.where(
           t > 1, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t), 0)), PAIR, (RATE, RATE)),
    Op("F_gaussian_nll_loss", lambda x, t, v: F(x).gaussian_nll_loss(x, t, v),
       lambda x, t, v: np.mean(0.5 * (np.log(v) + (x - t) ** 2 / v)),
       (((4, 3), (4, 3), (4, 3)),), (ANY, ANY, POSITIVE)),
    Op("F_gaussian_nll_loss_shared_var",
       lambda x, t, v: F(x).gaussian_nll_loss(x, t, v, full=True, reduction="none"),
       lambda x, t, v: 0.5 * (np.log(v[:, None]) + (x - t) ** 2 / v[:, None]
                              + np.log(2 * np.pi)),
       (((4, 3), (4, 3), (4,)),), (ANY, ANY, POSITIVE)),
    Op("F_multilabel_soft_margin_loss",
       lambda x, t: F(x).multilabel_soft_margin_loss(x, t), multilabel, PAIR, (ANY, PROB)),
    Op("F_multilabel_soft_margin_loss_weight",
       lambda x, t: F(x).multilabel_soft_margin_loss(x, t, weight=tensor(x, W3)),
       lambda x, t: multilabel(x, t, W3), PAIR, (ANY, PROB)),
)
# fmt: on
