"""householder_product (and its old name orgqr): the first n columns of
H_1 H_2 ... H_k, H_i = I - tau_i v_i v_iᵀ, with v_i read from below A's diagonal."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._strides import column_major
from ..._tensor import Tensor
from ..primitive import Primitive
from ..shape.views import cat, stack
from .common import const

__all__ = ["orgqr"]


def _reflector_arrays(a: np.ndarray, i: int) -> np.ndarray:
    """v_i: 0 above row i, 1 at row i, A's column i below it."""
    v = np.array(a[..., :, i], copy=True)
    v[..., :i] = 0
    v[..., i] = 1
    return v


def _householder_forward(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    m, n = a.shape[-2:]
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    for i in range(tau.shape[-1] - 1, -1, -1):  # H_i (H_{i+1} ... E), right to left
        v = _reflector_arrays(a, i)
        vq = np.einsum("...m,...mn->...n", v, q)
        q -= tau[..., i, None, None] * v[..., :, None] * vq[..., None, :]
    return column_major(q)


def _reflector(a: Tensor, i: int) -> Tensor:
    """v_i in chainrule ops, so the gradient reaches A's column i below the diagonal."""
    m = a._data.shape[-2]
    below = np.arange(m) > i
    unit = np.zeros(m, dtype=a._data.dtype)
    unit[i] = 1
    return a[..., :, i] * const(below.astype(a._data.dtype)) + const(unit)


def _householder_grads(g: Tensor, a: Tensor, tau: Tensor) -> tuple[Tensor, Tensor]:
    """Q = L_i H_i R_i with L_i = H_1..H_{i-1}, R_i = H_{i+1}..H_k E. For H = I - t v vᵀ:
    grad_t = -(L_i v)ᵀ G (R_iᵀ v), grad_v = -t (L_iᵀ G R_iᵀ v + R_i Gᵀ L_i v)."""
    m, n = a._data.shape[-2:]
    k = tau._data.shape[-1]
    if k == 0:
        return a * 0, tau * 0
    vs = [_reflector(a, i) for i in range(k)]
    ts = [tau[..., i].unsqueeze(-1).unsqueeze(-1) for i in range(k)]

    def reflect(i: int, x: Tensor) -> Tensor:  # H_i x
        return x - ts[i] * (vs[i].unsqueeze(-1) @ (vs[i].unsqueeze(-2) @ x))

    rights: list[Tensor] = [const(np.eye(m, n, dtype=a._data.dtype))] * k
    for i in range(k - 1, 0, -1):
        rights[i - 1] = reflect(i, rights[i])
    left = const(np.eye(m, dtype=a._data.dtype))
    g_tau, g_cols = [], []
    for i in range(k):
        v = vs[i].unsqueeze(-1)
        lv = left @ v
        rv = rights[i].mT @ v
        g_tau.append(-(lv.mT @ g @ rv)[..., 0, 0])
        gv = left.mT @ (g @ rv) + rights[i] @ (g.mT @ lv)
        g_cols.append(-(ts[i] * gv)[..., 0] * const((np.arange(m) > i).astype(a._data.dtype)))
        left = left - (lv * ts[i]) @ v.mT  # L_{i+1} = L_i H_i
    g_a = stack(g_cols, -1)
    if k < n:
        g_a = cat([g_a, const(np.zeros((*g_a._data.shape[:-1], n - k), dtype=g._data.dtype))], -1)
    return g_a, stack(g_tau, -1)


_householder = Primitive(
    "LinalgHouseholderProductBackward0",
    _householder_forward,
    inputs=("input", "tau"),
    grads=(
        lambda g, n: _householder_grads(g, n.input, n.tau)[0],
        lambda g, n: _householder_grads(g, n.input, n.tau)[1],
    ),
    formulas=(
        "-tau_i (L_iᵀ · grad · R_iᵀ v_i + R_i · gradᵀ · L_i v_i) below the diagonal of column i",
        "-(L_i v_i)ᵀ · grad · R_iᵀ v_i, L_i, R_i: the reflectors before and after H_i",
    ),
)


def householder_product(A: Tensor, tau: Tensor, *, out: Any = None) -> Tensor:
    """Q's first n columns, Q = H_1 ... H_k from the reflectors geqrf leaves in A and tau."""
    op = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    m, n = A._data.shape[-2:]
    if m < n:
        raise RuntimeError(
            f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if n < tau._data.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {tau.ndim} and input.ndim is equal to {A.ndim}"
        )
    if tau._data.shape[:-1] != A._data.shape[:-2]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(tau._data.shape[:-1])}"
        )
    if tau._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"{op}: tau dtype {scalar_name(tau)} does not match input dtype {scalar_name(A)}"
        )
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{scalar_name(A)}'")
    return _householder(A, tau)


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """householder_product under LAPACK's name."""
    return householder_product(input, tau)
