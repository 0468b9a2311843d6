"""scaled_dot_product_attention as PyTorch's math path computes it, and the mask helpers
the attention layers share (`_canonical_mask`, `_none_or_dtype`).

The math path scales query and key each by sqrt(scale) before their product, adds the
mask in place, takes a "safe" softmax (a row that attends to nothing gives zeros, not
NaN), and draws dropout as `dropout` does: one Bernoulli(1 - p) per attention weight.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype
from ..._creation import ones, zeros_like
from ..._dtype import c_type_name, scalar_name
from ..._ops.elementwise.arithmetic import mul_scalar
from ..._ops.primitive import Primitive
from ..._ops.quiet import quietly
from ..._tensor import Tensor
from ._activation_softmax import _softmax_backward, _softmax_np
from ._dropout import dropout

__all__ = ["scaled_dot_product_attention"]


@quietly
def _safe_softmax_np(a: np.ndarray, dim: int) -> np.ndarray:
    """softmax along dim, with rows that are -inf throughout giving zeros."""
    out = _softmax_np(a, dim)
    blocked = np.all(a == -np.inf, axis=dim, keepdims=True)
    return np.where(blocked, np.zeros((), out.dtype), out)


# The zero rows have zero gradient through softmax's own rule, so the rule is softmax's.
_safe_softmax = Primitive(
    "SafeSoftmaxBackward0",
    _safe_softmax_np,
    grads=(lambda g, n: _softmax_backward(g, n.result, dim=n.dim),),
    formulas=("result * (grad - Σ(grad * result) along dim {dim})",),
    tangent=lambda ts, p: _softmax_backward(ts[0], p.result, dim=p.dim),
)


# --- masks ----------------------------------------------------------------------------------


def _none_or_dtype(input: Tensor | None) -> _dtype.dtype | None:
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type: _dtype.dtype | None,
    other_name: str,
    target_type: _dtype.dtype,
    check_other: bool = True,
) -> Tensor | None:
    """A bool mask (True = blocked) as an additive float mask of `target_type`: -inf where
    blocked, 0 elsewhere; a float mask is returned as it is."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype != _dtype.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            UserWarning,
            stacklevel=2,
        )
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _additive(allowed: Tensor, dtype: _dtype.dtype) -> Tensor:
    """SDPA's bool mask (True = attend) as 0 where allowed and -inf elsewhere."""
    return zeros_like(allowed, dtype=dtype).masked_fill_(allowed.logical_not(), float("-inf"))


# --- scaled dot product attention -----------------------------------------------------------


def _check_inputs(
    query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool
) -> None:
    """PyTorch's checks, in its order, before anything is computed."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{c_type_name(query)} key.dtype: {c_type_name(key)} and value.dtype: "
            f"{c_type_name(value)} instead."
        )
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if attn_mask is not None and attn_mask.dtype not in (_dtype.bool_, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {c_type_name(attn_mask)} and  query.dtype: "
            f"{c_type_name(query)} instead."
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {scalar_name(query)}")


def _grouped(query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
    """Key and value heads repeated to the query's head count (grouped-query attention)."""
    heads = query.size(-3)
    if heads % key.size(-3) or heads % value.size(-3):
        # PyTorch's message stops mid-sentence; it is reproduced as it is.
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    key = key.repeat_interleave(heads // key.size(-3), -3)
    value = value.repeat_interleave(heads // value.size(-3), -3)
    return key, value


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query · keyᵀ * scale + mask) · value, with dropout on the weights.

    A bool `attn_mask` says where to attend (True), a float one is added to the scores;
    `is_causal` lets position i attend to positions ≤ i (upper-left aligned).
    """
    _check_inputs(query, key, value, attn_mask, is_causal)
    if dropout_p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p:g}")
    length, source = query.size(-2), key.size(-2)
    root = math.sqrt(1 / math.sqrt(query.size(-1)) if scale is None else scale)
    if is_causal:
        attn_mask = _additive(ones(length, source, dtype=_dtype.bool_).tril(), query.dtype)
    elif attn_mask is not None and attn_mask.dtype == _dtype.bool_:
        attn_mask = _additive(attn_mask, query.dtype)
    if enable_gqa:
        key, value = _grouped(query, key, value)
    scores = mul_scalar(query, root) @ mul_scalar(key.transpose(-2, -1), root)
    if attn_mask is not None:
        scores = scores.add_(attn_mask)
    weights = _safe_softmax(scores, dim=scores.ndim - 1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value
