"""The multi-class hinge losses: multi_margin_loss (one target class per sample) and
multilabel_margin_loss (a list of target classes per sample), each one op as in PyTorch.

Both compare, within a sample, a target class's score with every other class's:
a term max(0, margin - x[target] + x[other]) per pair, summed and divided by the
number of classes. Their gradients are ops PyTorch cannot differentiate again
(its `NotImplemented` node), and so are they here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._ops.forward_mode import unsupported
from ..._ops.primitive import Primitive
from ..._ops.quiet import quiet
from ..._tensor import Tensor
from ._common import check_reduction, legacy_reduction

__all__ = ["multi_margin_loss", "multilabel_margin_loss"]


def _as_matrix(input: Tensor) -> np.ndarray:
    """The input as (samples, classes); PyTorch's error for anything but a vector or matrix."""
    shape = input._data.shape
    if input.ndim > 2 or 0 in shape[-1:]:
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(shape)}"
        )
    return input._data.reshape(-1, shape[-1] if shape else 1)


def _reduced(per_sample: np.ndarray, reduction: str, shape: tuple[int, ...]) -> np.ndarray:
    if reduction == "none":
        return per_sample.reshape(shape)
    total = np.sum(per_sample, dtype=per_sample.dtype)
    if reduction == "mean":
        total = quiet(np.divide, total, per_sample.dtype.type(per_sample.size))
    return np.asarray(total)


def _grad_scale(g: np.ndarray, reduction: str, samples: int) -> np.ndarray:
    """The incoming gradient per sample, as a column."""
    if reduction == "none":
        return g.reshape(-1, 1)
    per = g / g.dtype.type(samples) if reduction == "mean" else g
    return np.full((samples, 1), per, dtype=g.dtype)


def _not_implemented(backward: str) -> Any:
    def rule(g: Tensor, n: Any) -> Tensor:
        raise RuntimeError(f"derivative for aten::{backward} is not implemented")

    return rule


# --- multi_margin_loss ----------------------------------------------------------------------


def _multi_margin_terms(
    x: np.ndarray, target: np.ndarray, p: int, margin: float, weight: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """margin - x[target] + x[other] per (sample, class), and each pair's loss term."""
    rows = np.arange(x.shape[0])
    z = margin - x[rows, target][:, None] + x
    z[rows, target] = 0  # a class is not compared with itself
    hinge = np.maximum(z, 0)
    terms = hinge if p == 1 else hinge * hinge
    if weight is not None:
        terms = terms * weight[target][:, None]
    return z, terms


def _multi_margin_forward(a: np.ndarray, target: np.ndarray, **params: Any) -> np.ndarray:
    x = params["matrix"](a)
    _, terms = _multi_margin_terms(x, target, params["p"], params["margin"], params["weight"])
    per_sample = np.sum(terms, axis=1, dtype=a.dtype) / a.dtype.type(x.shape[1])
    return _reduced(per_sample, params["reduction"], params["out_shape"])


def _multi_margin_grad(g: np.ndarray, a: np.ndarray, target: np.ndarray, **params: Any) -> Any:
    x = params["matrix"](a)
    z, _ = _multi_margin_terms(x, target, params["p"], params["margin"], params["weight"])
    slope = (z > 0).astype(a.dtype) if params["p"] == 1 else 2 * np.maximum(z, 0)
    if params["weight"] is not None:
        slope = slope * params["weight"][target][:, None]
    slope = slope * _grad_scale(g, params["reduction"], x.shape[0]) / a.dtype.type(x.shape[1])
    rows = np.arange(x.shape[0])
    # 0 - Σ, so that a sample with no active term keeps +0.0 (as PyTorch)
    slope[rows, target] = 0 - (np.sum(slope, axis=1) - slope[rows, target])
    return slope.reshape(a.shape).astype(a.dtype, copy=False)


_multi_margin_backward = Primitive(
    "torch::autograd::NotImplemented",
    lambda g, a, **params: _multi_margin_grad(g, a, **params),
    inputs=("grad_output", "self"),
    grads=(_not_implemented("multi_margin_loss_backward"),) * 2,
    formulas=("not implemented", "not implemented"),
)
_multi_margin = Primitive(
    "MultiMarginLossBackward0",
    _multi_margin_forward,
    grads=(lambda g, n: _multi_margin_backward(g, n.self, **n._params),),
    tangent=unsupported("multi_margin_loss"),
    formulas=("grad · ∂ Σ max(0, margin - self[target] + self[i])^p / C",),
)


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Σ over classes i ≠ y of w[y] * max(0, margin - x[y] + x[i])^p, / C; reduced."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x = _as_matrix(input)
    samples, classes = x.shape
    if (input.ndim == 2 and target._data.shape != (samples,)) or target.ndim > 1:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{samples}], but got "
            f"{list(target._data.shape)}. Input has shape {list(input._data.shape)}."
        )
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_name(target)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"multi_margin_loss_cpu_kernel\" not implemented for '{scalar_name(input)}'"
        )
    if weight is not None and weight._data.shape[0] != classes:
        raise RuntimeError(
            f"inconsistent weight size, expected {classes} but got {list(weight._data.shape)}"
        )
    picked = target._data.reshape(-1)
    if np.any((picked < 0) | (picked >= classes)):
        raise RuntimeError("target out of range")
    return _multi_margin(
        input,
        target=picked,
        p=p,
        margin=margin,
        weight=None if weight is None else weight._data.astype(input._data.dtype),
        reduction=reduction,
        out_shape=target._data.shape if input.ndim < 2 else (samples,),
        matrix=lambda a: a.reshape(samples, classes),
    )


# --- multilabel_margin_loss -----------------------------------------------------------------


def _multilabel_pairs(x: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each (sample, listed target j, class i): 1 - x[j] + x[i] where it counts, else 0.

    A sample's targets are its list up to the first -1; a pair counts when i is none of
    them (a class listed twice counts twice as j)."""
    samples, classes = x.shape
    before_end = np.cumprod(target != -1, axis=1).astype(bool)
    listed = np.zeros((samples, classes), dtype=bool)
    rows = np.nonzero(before_end)[0]
    listed[rows, target[before_end]] = True
    safe = np.where(before_end, target, 0)
    x_j = np.take_along_axis(x, safe, axis=1)
    z = 1 - x_j[:, :, None] + x[:, None, :]
    counts = before_end[:, :, None] & ~listed[:, None, :]
    return z, counts & (z > 0)


def _multilabel_forward(a: np.ndarray, target: np.ndarray, **params: Any) -> np.ndarray:
    x: np.ndarray = a.reshape(target.shape)
    z, active = _multilabel_pairs(x, target)
    per_sample = np.sum(np.where(active, z, 0), axis=(1, 2), dtype=a.dtype)
    per_sample = per_sample / a.dtype.type(x.shape[1])
    return _reduced(per_sample, params["reduction"], params["out_shape"])


def _multilabel_grad(g: np.ndarray, a: np.ndarray, target: np.ndarray, **params: Any) -> Any:
    x: np.ndarray = a.reshape(target.shape)
    _, active = _multilabel_pairs(x, target)
    scale = _grad_scale(g, params["reduction"], x.shape[0]) / a.dtype.type(x.shape[1])
    out = active.sum(axis=1).astype(a.dtype)  # + once per pair where the class is i
    safe = np.where(target == -1, 0, target)
    np.add.at(out, (np.arange(x.shape[0])[:, None], safe), -active.sum(axis=2))
    return (out * scale).reshape(a.shape).astype(a.dtype, copy=False)


_multilabel_backward = Primitive(
    "torch::autograd::NotImplemented",
    lambda g, a, **params: _multilabel_grad(g, a, **params),
    inputs=("grad_output", "self"),
    grads=(_not_implemented("multilabel_margin_loss_backward"),) * 2,
    formulas=("not implemented", "not implemented"),
)
_multilabel = Primitive(
    "MultilabelMarginLossBackward0",
    _multilabel_forward,
    grads=(lambda g, n: _multilabel_backward(g, n.self, **n._params),),
    tangent=unsupported("multilabel_margin_loss_forward"),
    formulas=("grad · ∂ Σ max(0, 1 - self[j] + self[i]) / C, j targets, i not",),
)


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Σ over listed targets j and unlisted classes i of max(0, 1 - x[j] + x[i]), / C."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    x = _as_matrix(input)
    if target._data.shape != input._data.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(target._data.shape)} for input of size: "
            f"{list(input._data.shape)}"
        )
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_name(target)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f'"multilabel_margin_loss_forward_out_frame" not implemented for '
            f"'{scalar_name(input)}'"
        )
    labels = target._data.reshape(x.shape)
    if np.any((labels < -1) | (labels >= x.shape[1])):
        raise RuntimeError("argument #2 'target' is out of range")
    return _multilabel(
        input,
        target=labels,
        reduction=reduction,
        out_shape=() if input.ndim < 2 else (x.shape[0],),
    )
