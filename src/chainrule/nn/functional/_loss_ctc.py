"""`F.ctc_loss`: the connectionist temporal classification loss, one op as in PyTorch.

For a target sequence l, the extended sequence l' puts a blank before, between and
after its labels. The forward (alpha) recursion sums, in log space, the
probabilities of every path through l' that reaches position s at time t; the
loss is minus the log of the paths that end on l''s last label or last blank.
The backward (beta) recursion does the same from the end, and alpha + beta at
(t, s) is the log probability of the paths through s at t, from which the
gradient follows. PyTorch's gradient is written for log_probs that come from a
log_softmax: `exp(log_probs) - posterior` per class (its sum over classes is 0),
and it cannot be differentiated again; nor can it here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._ops.elementwise.conditional import where
from ..._ops.primitive import Primitive
from ..._ops.quiet import quietly
from ..._tensor import Tensor
from ._common import check_reduction, float_only

__all__ = ["ctc_loss"]

_CHECKING = " (while checking arguments for ctc_loss_allocate_outputs)"


def _extended(labels: np.ndarray, blank: int) -> np.ndarray:
    """l': the labels with a blank before, between and after them."""
    out = np.full(2 * labels.size + 1, blank, dtype=np.int64)
    out[1::2] = labels
    return out


def _can_skip(ext: np.ndarray) -> np.ndarray:
    """Where a path may jump from s - 2 to s: a label differing from the one before the blank."""
    skip = np.zeros(ext.size, dtype=bool)
    skip[2:] = ext[2:] != ext[:-2]
    return skip


def _alphas(lp: np.ndarray, ext: np.ndarray, steps: int) -> np.ndarray:
    """log alpha[t, s] for t < steps (lp: (T, C) of one sample, in float64)."""
    alpha = np.full((max(steps, 1), ext.size), -np.inf)
    if steps == 0:
        return alpha
    skip = _can_skip(ext)
    alpha[0, : min(2, ext.size)] = lp[0, ext[:2]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        total = prev.copy()
        total[1:] = np.logaddexp(total[1:], prev[:-1])
        total[2:] = np.where(skip[2:], np.logaddexp(total[2:], prev[:-2]), total[2:])
        alpha[t] = total + lp[t, ext]
    return alpha


def _betas(lp: np.ndarray, ext: np.ndarray, steps: int) -> np.ndarray:
    """log beta[t, s] for t < steps: the paths from (t, s) to the end, (t, s) included."""
    beta = np.full((steps, ext.size), -np.inf)
    last = ext.size - 1
    beta[steps - 1, max(last - 1, 0) :] = lp[steps - 1, ext[max(last - 1, 0) :]]
    skip_ahead = np.zeros(ext.size, dtype=bool)
    skip_ahead[:-2] = _can_skip(ext)[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        total = nxt.copy()
        total[:-1] = np.logaddexp(total[:-1], nxt[1:])
        total[:-2] = np.where(skip_ahead[:-2], np.logaddexp(total[:-2], nxt[2:]), total[:-2])
        beta[t] = total + lp[t, ext]
    return beta


def _nll(alpha: np.ndarray, ext: np.ndarray, steps: int) -> float:
    """-log of the paths that end on the last label or the last blank at time steps - 1."""
    if steps == 0:
        return 0.0 if ext.size == 1 else np.inf
    ends = alpha[steps - 1, max(ext.size - 2, 0) :]
    return float(-np.logaddexp.reduce(ends))


def _samples(params: dict[str, Any]) -> Any:
    """(sample, its labels, its input length) for each sample of the batch."""
    labels, inputs = params["labels"], params["input_lengths"]
    for b, (found, steps) in enumerate(zip(labels, inputs, strict=True)):
        yield b, _extended(found, params["blank"]), steps


def _ctc_forward(lp: np.ndarray, **params: Any) -> np.ndarray:
    wide = lp.astype(np.float64)
    losses = np.empty(wide.shape[1])
    for b, ext, steps in _samples(params):
        losses[b] = _nll(_alphas(wide[:, b], ext, steps), ext, steps)
    return losses.astype(lp.dtype)


def _ctc_grad(g: np.ndarray, lp: np.ndarray, **params: Any) -> np.ndarray:
    wide = lp.astype(np.float64)
    out = np.zeros(wide.shape)
    for b, ext, steps in _samples(params):
        if steps == 0:
            continue
        sample = wide[:, b]
        alpha = _alphas(sample, ext, steps)
        nll = _nll(alpha, ext, steps)
        if params["zero_infinity"] and nll == np.inf:
            continue  # PyTorch zeroes the whole sample's gradient
        both = alpha + _betas(sample, ext, steps)
        through = np.full((steps, wide.shape[2]), -np.inf)
        for s, c in enumerate(ext):
            through[:, c] = np.logaddexp(through[:, c], both[:, s])
        seen = sample[:steps]
        out[:steps, b] = (np.exp(seen) - _posterior(through, nll, seen)) * g[b]
    return out.astype(lp.dtype)


@quietly  # a sample no path can explain (nll = inf) gives nan, as in PyTorch
def _posterior(through: np.ndarray, nll: float, seen: np.ndarray) -> np.ndarray:
    """p(the path passes class c at t | the target), divided by exp(log_probs)."""
    return np.exp(through + nll - seen)


def _not_implemented(g: Tensor, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


_ctc_backward = Primitive(
    "torch::autograd::NotImplemented",
    lambda g, lp, **params: _ctc_grad(g, lp, **params),
    inputs=("grad", "log_probs"),
    grads=(_not_implemented, _not_implemented),
    formulas=("not implemented", "not implemented"),
)
_ctc = Primitive(
    "CtcLossBackward0",
    _ctc_forward,
    inputs=("log_probs",),
    grads=(lambda g, n: _ctc_backward(g, n.log_probs, **n._params),),
    formulas=("grad * (exp(log_probs) - posterior of each class at each step)",),
)


def _lengths(value: Any, name: str) -> np.ndarray:
    if isinstance(value, Tensor):
        if value._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return value._data.reshape(-1).astype(np.int64)
    if isinstance(value, list | tuple):
        return np.asarray(value, dtype=np.int64).reshape(-1)
    raise TypeError(
        f"ctc_loss(): argument '{name}' must be tuple of ints or Tensor, not {type(value).__name__}"
    )


def _sample_labels(
    targets: np.ndarray, target_lengths: np.ndarray, input_lengths: np.ndarray, steps: int
) -> list[np.ndarray]:
    """Each sample's labels (targets padded per row, or all in a row), checked as PyTorch."""
    labels, start = [], 0
    for b, (count, length) in enumerate(zip(target_lengths, input_lengths, strict=True)):
        if count < 0:
            raise RuntimeError(
                f"Expected target_lengths to have value at least 0, but got value {count}"
                + _CHECKING
            )
        if targets.ndim == 1:
            labels.append(targets[start : start + count])
            start += count
        else:
            if count > targets.shape[1]:
                raise RuntimeError(
                    f"Expected tensor to have size at least {count} at dimension 1, but got "
                    f"size {targets.shape[1]} for argument #2 'targets'" + _CHECKING
                )
            labels.append(targets[b, :count])
        if length > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value {length}"
                + _CHECKING
            )
    return labels


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Any,
    target_lengths: Tensor | Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """-log p(target | log_probs) over all alignments; log_probs is (T, N, C) or (T, C).

    'mean' divides each sample's loss by its target length (at least 1) before
    averaging over the batch."""
    check_reduction(reduction)
    float_only(log_probs, "ctc_loss_cpu")
    batched = log_probs.ndim == 3
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional tensor for "
            "argument #1 'log_probs'" + _CHECKING
        )
    inputs = _lengths(input_lengths, "input_lengths")
    counts = _lengths(target_lengths, "target_lengths")
    if not batched:
        log_probs = log_probs.unsqueeze(1)
    steps, batch, classes = log_probs._data.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if inputs.size != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if counts.size != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    labels_data = targets._data.astype(np.int64)
    if not batched and labels_data.ndim == 1 and counts.size == 1:
        labels_data = labels_data.reshape(1, -1)
    labels = _sample_labels(labels_data, counts, inputs, steps)
    losses = _ctc(
        log_probs,
        labels=labels,
        input_lengths=tuple(int(n) for n in inputs),
        blank=blank,
        zero_infinity=zero_infinity,
    )
    if zero_infinity:
        losses = where(losses == np.inf, Tensor._make(np.zeros((), losses._data.dtype)), losses)
    if reduction == "mean":
        divisors = Tensor._make(np.maximum(counts, 1).astype(losses._data.dtype))
        return (losses / divisors).mean()
    if reduction == "sum":
        return losses.sum()
    # An unbatched input gives one loss; PyTorch squeezes only the unreduced one.
    return losses if batched else losses.squeeze(0)
