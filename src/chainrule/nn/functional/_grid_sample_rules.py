"""Grid sampling's grid gradient, differentiated: the rules of its backward's own node,
written with chainrule's ops so that every higher derivative follows.

Near a grid, sampling is `out = sum over taps of input[tap] * W_tap(grid)`: which
pixels each tap reads and the slope of each padded position are fixed, and each
dim's weight is a polynomial in its fractional position `f = grid * slope + const`.
So the grid gradient `G_j = slope_j * sum_taps (grad_output . input[tap]) dW_tap/df_j`
is an op of (grad_output, input, grid) whose derivatives are, for an incoming `v`
shaped like the grid:
  in grad_output: sum_taps input[tap] * c_tap,   c_tap = sum_j v_j dW_tap/dgrid_j
  in input:       grad_output * c_tap added where each tap reads
  in grid:        sum_taps (grad_output . input[tap]) * dc_tap/dgrid
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._creation import zeros
from ..._ops.shape.views import stack
from ..._tensor import Tensor
from . import _grid_sample_kernels as kernels

__all__: list[str] = []


def _const(a: np.ndarray) -> Tensor:
    return Tensor._make(np.ascontiguousarray(a))


def _poly(f: Tensor, p: np.poly1d) -> Tensor:
    """The polynomial `p` at `f`, by Horner's rule in chainrule's ops."""
    coeffs = [float(c) for c in p.coeffs]
    if len(coeffs) == 1:
        return _const(np.full(f._data.shape, coeffs[0], f._data.dtype))
    out = f * coeffs[0] + coeffs[1]
    for c in coeffs[2:]:
        out = out * f + c
    return out


class _Local:
    """The sampling near `grid`: each dim's weights and their first two derivatives in the
    grid, as ops of it, and where each combination of taps reads."""

    def __init__(self, grid: Tensor, size: tuple[int, ...], params: dict[str, Any]) -> None:
        mode = params["mode"]
        g = grid._data
        self.k = k = len(size)
        self.n = g.shape[0]
        self.points = math.prod(g.shape[1:-1])
        self.axes = kernels.plan(g, size, mode, params["padding"], params["align"])
        coords = grid.reshape(self.n, self.points, k)
        polys = kernels.POLYS[mode]
        self.w: list[list[Tensor]] = []  # [dim][tap]: weight
        self.dw: list[list[Tensor]] = []  # d weight / d grid coordinate
        self.ddw: list[list[Tensor]] = []
        for j, ax in enumerate(self.axes):
            raw = g.reshape(self.n, self.points, k)[..., k - 1 - j]
            f = coords[..., k - 1 - j] * _const(ax.slope) + _const(ax.frac - raw * ax.slope)
            slope = _const(ax.slope)
            self.w.append([_poly(f, p) for p in polys])
            self.dw.append([_poly(f, p.deriv()) * slope for p in polys])
            self.ddw.append([_poly(f, p.deriv(2)) * slope * slope for p in polys])
        self.taps = kernels.tap_product(self.axes)
        self.size = size
        reads = [kernels.reads(self.axes, size, t) for t in self.taps]
        self.index = np.concatenate([r[0] for r in reads], 1)  # (N, T * P)
        self.inside = np.concatenate([r[1] for r in reads], 1)

    def _product(self, taps: tuple[int, ...], factors: dict[int, Tensor]) -> Tensor:
        """The product over dims of the taps' weights, with `factors[j]` in place of dim j's."""
        terms = [factors.get(j, self.w[j][t]) for j, t in enumerate(taps)]
        out = terms[0]
        for term in terms[1:]:
            out = out * term
        return out

    def coefficients(self, v: Tensor) -> Tensor:
        """c_tap = sum_j v_j dW_tap/dgrid_j for every tap: (N, T, P)."""
        vs = v.reshape(self.n, self.points, self.k)
        rows = []
        for taps in self.taps:
            terms = [
                vs[..., self.k - 1 - j] * self._product(taps, {j: self.dw[j][taps[j]]})
                for j in range(self.k)
            ]
            rows.append(sum(terms[1:], terms[0]))
        return stack(rows, 1)

    def coefficient_slopes(self, v: Tensor) -> list[Tensor]:
        """dc_tap/dgrid_e for each dim e: (N, T, P) each."""
        vs = v.reshape(self.n, self.points, self.k)
        out = []
        for e in range(self.k):
            rows = []
            for taps in self.taps:
                terms = []
                for j in range(self.k):
                    if j == e:
                        factors = {j: self.ddw[j][taps[j]]}
                    else:
                        factors = {j: self.dw[j][taps[j]], e: self.dw[e][taps[e]]}
                    terms.append(vs[..., self.k - 1 - j] * self._product(taps, factors))
                rows.append(sum(terms[1:], terms[0]))
            out.append(stack(rows, 1))
        return out

    def read(self, a: Tensor) -> Tensor:
        """The input at every tap of every point: (N, C, T, P), zero where not inside."""
        n, c = a.shape[:2]
        flat = a.reshape(n, c, -1)
        index = _const(np.broadcast_to(self.index[:, None, :], (n, c, self.index.shape[1])))
        values = flat.gather(2, index) * _const(self.inside[:, None, :].astype(a._data.dtype))
        return values.reshape(n, c, len(self.taps), self.points)

    def spread(self, amounts: Tensor, shape: tuple[int, ...]) -> Tensor:
        """Amounts (N, C, T, P) added where each tap reads, into zeros of the input's shape."""
        n, c = shape[:2]
        index = _const(np.broadcast_to(self.index[:, None, :], (n, c, self.index.shape[1])))
        mask = _const(self.inside[:, None, :].astype(amounts._data.dtype))
        src = amounts.reshape(n, c, -1) * mask
        base = zeros(n, c, math.prod(shape[2:]), dtype=amounts.dtype)
        return base.scatter_add(2, index, src).reshape(shape)


def grad_output_rule(a: Tensor, grid: Tensor, v: Tensor, params: dict[str, Any]) -> Tensor:
    """d<v, G>/d grad_output: the input read at the taps, weighted by c_tap."""
    local = _Local(grid, tuple(a.shape[2:]), params)
    coefficients = local.coefficients(v).unsqueeze(1)
    out = (local.read(a) * coefficients).sum(2)
    return out.reshape(*a.shape[:2], *grid.shape[1:-1])


def input_rule(
    grad_output: Tensor, a_shape: tuple[int, ...], grid: Tensor, v: Tensor, params: dict[str, Any]
) -> Tensor:
    """d<v, G>/d input: grad_output times c_tap, added where each tap reads."""
    local = _Local(grid, tuple(a_shape[2:]), params)
    n, c = a_shape[:2]
    g = grad_output.reshape(n, c, 1, local.points)
    return local.spread(g * local.coefficients(v).unsqueeze(1), a_shape)


def grid_rule(
    grad_output: Tensor, a: Tensor, grid: Tensor, v: Tensor, params: dict[str, Any]
) -> Tensor:
    """d<v, G>/d grid: (grad_output . input[tap]) times dc_tap/dgrid, per coordinate."""
    local = _Local(grid, tuple(a.shape[2:]), params)
    n, c = a.shape[:2]
    seen = (local.read(a) * grad_output.reshape(n, c, 1, local.points)).sum(1)
    per_dim = [(seen * slope).sum(1) for slope in local.coefficient_slopes(v)]
    out = stack(per_dim[::-1], -1)
    return out.reshape(grid.shape)
