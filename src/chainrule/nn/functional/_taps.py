"""Separable linear maps on arrays: average pooling, interpolation and reflect/replicate padding.

Note: each of those ops maps every spatial dim on its own, output position `o`
reading a few input positions with fixed weights: `out[o] = sum_t w[t, o] *
in[i[t, o]]` (`Taps`). The ops apply one `Taps` per spatial dim; their gradient
is the adjoint map (the same taps, scattered back with their weights), and the
adjoint's gradient is the map again: `linear_pair` makes the two primitives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._ops.primitive import Primitive

__all__: list[str] = []


@dataclass(frozen=True, eq=False)
class Taps:
    """A linear map along one dim: `out[o] = sum_t weight[t, o] * in[index[t, o]]`.

    `weight` None means all ones. The adjoint's plan (the taps sorted by the
    input position they read) is computed once, when first needed.
    """

    index: np.ndarray  # (taps, out) ints in [0, size)
    weight: np.ndarray | None  # (taps, out) or None
    size: int  # the input length
    _plan: list[Any] = field(default_factory=list, repr=False)

    @property
    def is_identity(self) -> bool:
        return (
            self.weight is None
            and self.index.shape == (1, self.size)
            and bool(np.array_equal(self.index[0], np.arange(self.size)))
        )

    def plan(self) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """(order, starts, positions): sort the taps by input position, where runs start, whose."""
        if not self._plan:
            flat = self.index.ravel()
            order = np.argsort(flat, kind="stable")
            ordered = flat[order]
            starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
            sorted_already = bool(np.all(order == np.arange(order.size)))
            self._plan.append((None if sorted_already else order, starts, ordered[starts]))
        plan: tuple[np.ndarray | None, np.ndarray, np.ndarray] = self._plan[0]
        return plan


def _along(w: np.ndarray, ndim: int, axis: int, dtype: np.dtype) -> np.ndarray:
    """A vector of weights shaped to broadcast along `axis` of an `ndim`-d array."""
    shape = [1] * ndim
    shape[axis] = w.shape[0]
    return w.astype(dtype, copy=False).reshape(shape)


def apply(a: np.ndarray, taps: Sequence[Taps]) -> np.ndarray:
    """Map the last `len(taps)` dims of `a`, one `Taps` each."""
    lead = a.ndim - len(taps)
    for i, t in enumerate(taps):
        if t.is_identity:
            continue
        axis = lead + i
        if t.index.shape[0] == 0:  # no window reads anything (an empty output)
            shape = list(a.shape)
            shape[axis] = t.index.shape[1]
            a = np.zeros(shape, a.dtype)
            continue
        acc = None
        for k in range(t.index.shape[0]):
            v = np.take(a, t.index[k], axis=axis)
            if t.weight is not None:
                v *= _along(t.weight[k], a.ndim, axis, a.dtype)
            if acc is None:
                acc = v
            else:
                acc += v
        assert acc is not None
        a = acc
    return a


def adjoint(g: np.ndarray, taps: Sequence[Taps]) -> np.ndarray:
    """The transpose of `apply`: each output value goes back to the inputs it read, weighted."""
    lead = g.ndim - len(taps)
    for i, t in enumerate(taps):
        if t.is_identity:
            continue
        axis = lead + i
        shape = list(g.shape)
        shape[axis] = t.size
        if t.index.size == 0 or g.size == 0:
            g = np.zeros(shape, g.dtype)
            continue
        parts = [g] * t.index.shape[0]
        if t.weight is not None:
            parts = [g * _along(w, g.ndim, axis, g.dtype) for w in t.weight]
        vals = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=axis)
        order, starts, positions = t.plan()
        if order is not None:
            vals = np.take(vals, order, axis=axis)
        sums = np.add.reduceat(vals, starts, axis=axis)
        if positions.size == t.size:  # every input position is read: sums is the result
            g = sums
            continue
        out = np.zeros(shape, g.dtype)
        out[(slice(None),) * axis + (positions,)] = sums
        g = out
    return g


def linear_pair(name: str, formula: str) -> Primitive:
    """The primitive `name` applying `taps`, whose rule is the adjoint (and vice versa).

    `formula` says that rule, the adjoint, as Primitive's `formulas` do."""
    backward = Primitive(
        name.replace("Backward0", "BackwardBackward0"),
        lambda g, taps: adjoint(g, taps),
        inputs=("grad_output",),
        grads=(lambda g, n: forward(g, taps=n.taps),),
        formulas=("the op's taps applied to grad (the op itself)",),
        tangent="linear",
    )
    forward = Primitive(
        name,
        lambda a, taps: apply(a, taps),
        grads=(lambda g, n: backward(g, taps=n.taps),),
        formulas=(formula,),
        tangent="linear",
    )
    return forward


# --- the taps of the ops ------------------------------------------------------------------


def window_positions(
    size: int, out: int, kernel: int, stride: int, pad: int
) -> tuple[np.ndarray, np.ndarray]:
    """The (clipped) input positions each pooling window reads, and which are inside the input."""
    pos = (np.arange(out) * stride - pad)[None, :] + np.arange(kernel)[:, None]
    inside = (pos >= 0) & (pos < size)
    return np.clip(pos, 0, max(size - 1, 0)), inside


def window_counts(
    size: int, out: int, kernel: int, stride: int, pad: int, count_include_pad: bool
) -> np.ndarray:
    """How many entries each window's mean divides by, along one dim.

    Counting padding means counting up to the padded input's end, not beyond.
    """
    start = np.arange(out) * stride - pad
    if count_include_pad:
        return np.minimum(start + kernel, size + pad) - start
    return window_positions(size, out, kernel, stride, pad)[1].sum(0)


def window_taps(
    size: int,
    out: int,
    kernel: int,
    stride: int,
    pad: int,
    count_include_pad: bool,
    scale: float | None,
) -> Taps:
    """Average pooling along a dim: each window's in-bounds entries weighted by 1/count
    (or by `scale`, a divisor override's share)."""
    index, inside = window_positions(size, out, kernel, stride, pad)
    if scale is not None:
        return Taps(index, inside * scale, size)
    return Taps(
        index, inside / window_counts(size, out, kernel, stride, pad, count_include_pad), size
    )


def adaptive_taps(size: int, out: int) -> Taps:
    """Adaptive average pooling: window o covers [floor(o*size/out), ceil((o+1)*size/out))."""
    o = np.arange(out)
    start = (o * size) // out
    end = -((-(o + 1) * size) // out)
    count = end - start
    width = int(count.max()) if out else 0
    t = np.arange(width)[:, None]
    index = np.minimum(start + t, end - 1)
    return Taps(index, (t < count) / count, size)
