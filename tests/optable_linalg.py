"""Op table lines of the linear-algebra family (read by tests/test_ops.py).

Inputs the table cannot draw directly are made inside each line from its
unconstrained sample: `shift(a) = a + 3I` (well conditioned), `spd(a) = a a^T + nI`
(positive definite), `sym(a) = a + a^T` (symmetric, distinct eigenvalues for
random a). Eigenvectors and singular vectors are only determined up to sign, so
their lines return sign-free functions of them (v * v, U @ Vh).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from op_table import ANY, NONZERO, POSITIVE, Op, lib

# --- building inputs, on tensors of either library and on NumPy arrays ------------------------


# Where torch's einsum result is a view or a permutation of its bmm's result, its strides
# follow that contraction path; chainrule's einsum is one node with a contiguous result.
EINSUM_LAYOUT = "torch's einsum returns a permuted view of its internal bmm/mul result"
EINSUM_VIEWS = {"diag", "transpose", "hadamard", "ellipsis", "three_way"}
NORM_OF_EMPTY = "not a layout: chainrule's amax over an empty dim raises where torch gives 0"


def LA(x: Any) -> Any:
    """The linalg module of a tensor's library."""
    return lib(x).linalg


def _eye(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return np.eye(a.shape[-1])
    return lib(a).eye(a.shape[-1], dtype=a.dtype)


def _t(a: Any) -> Any:
    return np.swapaxes(a, -1, -2) if isinstance(a, np.ndarray) else a.mT


def shift(a: Any) -> Any:
    return a + 3 * _eye(a)


def spd(a: Any) -> Any:
    return a @ _t(a) + a.shape[-1] * _eye(a)


def sym(a: Any) -> Any:
    return a + _t(a)


def shift_tensor(a: Any) -> Any:
    """a + 3I, for a tensor whose leading dims multiply to its trailing dims' size."""
    n = math.prod(a.shape[-1:]) if a.ndim == 2 else math.prod(a.shape[:-1])
    return a + 3 * _eye(a.reshape(n, n)).reshape(a.shape)


# --- NumPy references -----------------------------------------------------------------------


def np_solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]):
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def np_cdist(x1: np.ndarray, x2: np.ndarray, p: float) -> np.ndarray:
    d = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(float)
    if p == math.inf:
        return d.max(-1)
    return (d**p).sum(-1) ** (1 / p)


def np_vector_norm(x: np.ndarray, p: float, axis: Any = None, keepdims: bool = False) -> Any:
    a = np.abs(x)
    if p == math.inf:
        return a.max(axis=axis, keepdims=keepdims)
    if p == -math.inf:
        return a.min(axis=axis, keepdims=keepdims)
    if p == 0:
        return (a != 0).sum(axis=axis, keepdims=keepdims).astype(float)
    return (a**p).sum(axis=axis, keepdims=keepdims) ** (1 / p)


def np_expm(a: np.ndarray) -> np.ndarray:
    """exp(A) by a long Taylor series on A / 2^8, squared back (accurate for the samples)."""
    x = a / 256.0
    term = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    out = term.copy()
    for k in range(1, 30):
        term = term @ x / k
        out = out + term
    for _ in range(8):
        out = out @ out
    return out


def np_kron(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.kron(a, b)


def np_svd_uvh(a: np.ndarray) -> np.ndarray:
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return u @ vh


def np_lu(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, L, U with A = P L U by partial pivoting (first largest entry), one matrix at a time."""
    if a.ndim > 2:
        parts = [np_lu(x) for x in a]
        return tuple(np.stack([p[i] for p in parts]) for i in range(3))  # type: ignore[return-value]
    m, n = a.shape
    k = min(m, n)
    work, perm = a.astype(float).copy(), np.arange(m)
    for j in range(k):
        p = j + int(np.argmax(np.abs(work[j:, j])))
        work[[j, p]], perm[[j, p]] = work[[p, j]], perm[[p, j]]
        work[j + 1 :, j] /= work[j, j]
        work[j + 1 :, j + 1 :] -= np.outer(work[j + 1 :, j], work[j, j + 1 :])
    low = np.tril(work[:, :k], -1) + np.eye(m, k)
    return np.eye(m)[:, perm], low, np.triu(work[:k])


def np_lu_packed(a: np.ndarray) -> np.ndarray:
    _, low, up = np_lu(a)
    k = min(a.shape[-2:])
    packed = np.zeros(a.shape)
    packed[..., :, :k] += np.tril(low, -1)
    packed[..., :k, :] += up
    return packed


def np_lu_solve(a: np.ndarray, b: np.ndarray, left: bool = True, adjoint: bool = False) -> Any:
    a = _t(a) if adjoint else a
    return np.linalg.solve(a, b) if left else _t(np.linalg.solve(_t(a), _t(b)))


def np_cholesky_inverse(low: np.ndarray) -> np.ndarray:
    return np.linalg.inv(low @ _t(low))


def np_householder(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """H_1 ... H_k times the first n columns of I, H_i = I - tau_i v_i v_iᵀ."""
    m, n = a.shape[-2:]
    q = np.broadcast_to(np.eye(m, n), a.shape).copy()
    for i in range(tau.shape[-1] - 1, -1, -1):
        v = a[..., :, i].copy()
        v[..., :i], v[..., i] = 0, 1
        q -= tau[..., i, None, None] * v[..., :, None] * (v[..., None, :] @ q)
    return q


def _seeded(a: Any, f: Any) -> Any:
    """f(library of a), with the library's generator seeded first."""
    lib(a).manual_seed(0)
    return f(lib(a))


def np_matrix_power(a: np.ndarray, n: int) -> np.ndarray:
    if n < 0:
        a, n = np.linalg.inv(a), -n
    return np.linalg.matrix_power(a, n)


SQ = (((3, 3),), ((2, 3, 3),))
SQ1 = (((3, 3),),)
RECT = (((3, 3),), ((4, 2),), ((2, 4),), ((2, 3, 2),))
LA_TOL = {"rtol32": 1e-4, "atol32": 1e-5}

# fmt: off
OPS: tuple[Op, ...] = (
    # products
    Op("linalg_inner", lambda a, b: a.inner(b), np.inner,
       (((3,), (3,)), ((2, 3), (4, 3)), ((2, 3), (3,)), ((), (2, 3)))),
    Op("linalg_inner_fn", lambda a, b: lib(a).inner(a, b), np.inner, (((2, 2, 3), (3,)),)),
    Op("linalg_vdot", lambda a, b: lib(a).vdot(a, b), np.vdot, (((3,), (3,)),)),
    Op("linalg_kron", lambda a, b: lib(a).kron(a, b), np_kron,
       (((2, 3), (2, 2)), ((3,), (2,)), ((2,), (2, 3)), ((), (2, 2)), ((2, 1, 2), (3, 2)))),
    Op("linalg_tensordot", lambda a, b: lib(a).tensordot(a, b, dims=2),
       lambda a, b: np.tensordot(a, b, axes=2), (((2, 3, 4), (3, 4, 2)), ((3, 4), (3, 4)))),
    Op("linalg_tensordot_lists", lambda a, b: lib(a).tensordot(a, b, dims=([0, 2], [2, 0])),
       lambda a, b: np.tensordot(a, b, axes=([0, 2], [2, 0])), (((2, 3, 4), (4, 3, 2)),)),
    Op("linalg_tensordot_0", lambda a, b: lib(a).tensordot(a, b, dims=0),
       lambda a, b: np.tensordot(a, b, axes=0), (((2, 3), (2,)),)),
    Op("linalg_addmm", lambda c, a, b: lib(a).addmm(c, a, b), lambda c, a, b: c + a @ b,
       (((2, 4), (2, 3), (3, 4)), ((4,), (2, 3), (3, 4)), ((), (2, 3), (3, 4)))),
    Op("linalg_addmm_scaled", lambda c, a, b: c.addmm(a, b, beta=0.5, alpha=-2),
       lambda c, a, b: 0.5 * c - 2 * (a @ b), (((2, 4), (2, 3), (3, 4)),)),
    Op("linalg_addmm_beta0", lambda c, a, b: c.addmm(a, b, beta=0),
       lambda c, a, b: a @ b, (((2, 4), (2, 3), (3, 4)),)),
    # factors stored by columns (transposed views): their gradients come by columns
    Op("linalg_mm_by_columns", lambda a, b: a.t().mm(b.t()), lambda a, b: a.T @ b.T,
       (((3, 2), (4, 3)), ((2, 1), (4, 2)), ((1, 3), (1, 1)))),
    Op("linalg_addmm_by_columns", lambda c, a, b: c.addmm(a.t(), b), lambda c, a, b: c + a.T @ b,
       (((4,), (3, 2), (3, 4)),)),
    Op("linalg_addmv", lambda c, a, b: lib(a).addmv(c, a, b, beta=2, alpha=0.5),
       lambda c, a, b: 2 * c + 0.5 * (a @ b), (((2,), (2, 3), (3,)), ((), (2, 3), (3,))),
       layout_differs="not a layout: a 0-d input with a (0, 3) matrix gives shape () in torch"),
    Op("linalg_baddbmm", lambda c, a, b: lib(a).baddbmm(c, a, b, alpha=1.5),
       lambda c, a, b: c + 1.5 * (a @ b), (((2, 2, 4), (2, 2, 3), (2, 3, 4)),
                                          ((2, 4), (2, 2, 3), (2, 3, 4)))),
    Op("linalg_addbmm", lambda c, a, b: c.addbmm(a, b, beta=-1),
       lambda c, a, b: -c + (a @ b).sum(0), (((2, 4), (3, 2, 3), (3, 3, 4)),)),
    Op("linalg_cross", lambda a, b: LA(a).cross(a, b), lambda a, b: np.cross(a, b),
       (((3,), (3,)), ((2, 3), (1, 3)), ((4, 1, 3), (1, 2, 3)))),
    Op("linalg_cross_dim", lambda a, b: lib(a).cross(a, b, dim=0),
       lambda a, b: np.cross(a, b, axis=0), (((3, 2), (3, 2)),)),
    Op("linalg_cross_method", lambda a, b: a.cross(b, dim=-2),
       lambda a, b: np.cross(a, b, axis=-2), (((2, 3, 2), (1, 3, 2)),)),
    *(Op(f"linalg_cdist_{p}", lambda a, b, p=p: lib(a).cdist(a, b, p=p),
         lambda a, b, p=p: np_cdist(a, b, p), (((3, 2), (4, 2)), ((2, 3, 2), (1, 2, 2))),
         rtol32=1e-4)
      for p in (2.0, 1.0, math.inf, 3.0, 0.5, 0.0)),
    Op("linalg_multi_dot", lambda a, b, c: LA(a).multi_dot([a, b, c]),
       lambda a, b, c: a @ b @ c, (((2, 3), (3, 4), (4, 2)), ((3,), (3, 4), (4,)))),
    Op("linalg_multi_dot_4", lambda a, b, c, d: LA(a).multi_dot([a, b, c, d]),
       lambda a, b, c, d: a @ b @ c @ d, (((4, 2), (2, 4), (4, 3), (3, 1)),)),
    *(Op(f"linalg_matrix_power_{k}", lambda a, k=k: lib(a).matrix_power(shift(a), k),
         lambda a, k=k: np_matrix_power(shift(a), k), SQ, **LA_TOL)
      for k in (0, 1, 2, 3, 5, -2)),
    Op("linalg_matrix_power_method", lambda a: LA(a).matrix_power(a, 2),
       lambda a: a @ a, SQ1),
    # einsum: products, diagonals, broadcasting, ellipses, implicit outputs, several operands
    *(Op(f"linalg_einsum_{name}", lambda *xs, eq=eq: lib(xs[0]).einsum(eq, *xs),
         lambda *xs, eq=eq: np.einsum(eq, *xs), samples,
         name_differs=("EinsumBackward0", "torch reduces einsum to permute/mul/sum/bmm"),
         layout_differs=EINSUM_LAYOUT if name in EINSUM_VIEWS else "")
      for name, eq, samples in (
          ("matmul", "ij,jk->ik", (((2, 3), (3, 4)),)),
          ("trace", "ii", (((3, 3),),)),
          ("diag", "ii->i", (((3, 3),),)),
          ("transpose", "ij->ji", (((2, 3),),)),
          ("sum_rows", "ij->j", (((2, 3),),)),
          ("outer", "i,j->ij", (((2,), (3,)),)),
          ("dot", "i,i", (((3,), (3,)),)),
          ("hadamard", "ij,ij->ij", (((2, 3), (2, 3)), ((2, 1), (1, 3)))),
          ("implicit", "ba,cb", (((2, 3), (4, 2)),)),
          ("batch", "bij,bjk->bik", (((2, 2, 3), (2, 3, 2)),)),
          ("ellipsis", "...ij,...jk->...ik", (((2, 1, 2, 3), (4, 3, 2)),)),
          ("ellipsis_mid", "i...j,j->i...", (((2, 3, 4), (4,)),)),
          ("repeated_3d", "iji->j", (((2, 3, 2),),)),
          ("diag_times", "ii,i->i", (((3, 3), (3,)),)),
          ("spare_letter", "ij,k->ik", (((2, 3), (4,)),)),
          ("chain3", "ij,jk,kl->il", (((2, 3), (3, 4), (4, 2)),)),
          ("chain4", "ab,bc,cd,d->a", (((2, 3), (3, 4), (4, 2), (2,)),)),
          ("three_way", "ijk,jl,kl->il", (((2, 3, 4), (3, 2), (4, 2)),)),
      )),
    Op("linalg_einsum_list", lambda a, b: lib(a).einsum("ij,j", [a, b]),
       lambda a, b: np.einsum("ij,j", a, b), (((2, 3), (3,)),),
       name_differs=("EinsumBackward0", "torch reduces einsum to permute/mul/sum/bmm")),
    Op("linalg_einsum_sublist", lambda a, b: lib(a).einsum(a, [0, 1], b, [1, 2], [0, 2]),
       lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), (((2, 3), (3, 2)),),
       name_differs=("EinsumBackward0", "torch reduces einsum to permute/mul/sum/bmm")),
    # inverses, determinants, solves
    Op("linalg_inv", lambda a: LA(a).inv(shift(a)), lambda a: np.linalg.inv(shift(a)),
       (*SQ, ((1, 1),)), **LA_TOL),
    Op("linalg_inverse", lambda a: shift(a).inverse(), lambda a: np.linalg.inv(shift(a)), SQ1,
       **LA_TOL),
    Op("linalg_inv_ex", lambda a: LA(a).inv_ex(shift(a)).inverse,
       lambda a: np.linalg.inv(shift(a)), SQ1, **LA_TOL),
    Op("linalg_det", lambda a: LA(a).det(a), np.linalg.det, (*SQ, ((1, 1),)), **LA_TOL),
    Op("linalg_det_fn", lambda a: lib(a).det(a), np.linalg.det, SQ1, **LA_TOL),
    Op("linalg_det_method", lambda a: a.det(), np.linalg.det, SQ1, **LA_TOL),
    Op("linalg_slogdet", lambda a: LA(a).slogdet(a).logabsdet,
       lambda a: np.linalg.slogdet(a)[1], SQ, **LA_TOL),
    Op("linalg_logdet", lambda a: lib(a).logdet(spd(a)), lambda a: np.linalg.slogdet(spd(a))[1],
       SQ, **LA_TOL),
    Op("linalg_solve", lambda a, b: LA(a).solve(shift(a), b),
       lambda a, b: np_solve(shift(a), b),
       (((3, 3), (3, 2)), ((3, 3), (3,)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (3, 1)),
        ((2, 1, 3, 3), (3, 3, 2)), ((2, 3, 3), (3,))), **LA_TOL,
       layout_differs="a batch of vectors: torch's result is the columns of one LAPACK matrix"),
    Op("linalg_solve_right", lambda a, b: LA(a).solve(shift(a), b, left=False),
       lambda a, b: _t(np.linalg.solve(_t(shift(a)), _t(b))), (((3, 3), (2, 3)),), **LA_TOL),
    Op("linalg_solve_ex", lambda a, b: LA(a).solve_ex(shift(a), b).result,
       lambda a, b: np_solve(shift(a), b), (((3, 3), (3, 2)),), **LA_TOL),
    *(Op(f"linalg_solve_triangular_{name}",
         lambda a, b, kw=kw: LA(a).solve_triangular(shift(a), b, **kw),
         lambda a, b, kw=kw: _np_triangular(shift(a), b, **kw),
         (((3, 3), (3, 2)), ((2, 3, 3), (3, 3))) if kw.get("left", True)
         else (((3, 3), (2, 3)),), **LA_TOL)
      for name, kw in (("upper", {"upper": True}), ("lower", {"upper": False}),
                       ("right", {"upper": True, "left": False}),
                       ("unit", {"upper": False, "unitriangular": True}))),
    # LU: factors, packed factors, unpacking and solves (pivots come from lu_factor)
    *(Op(f"linalg_lu_{part}", lambda a, i=i: LA(a).lu(a)[i], lambda a, i=i: np_lu(a)[i],
         (((3, 3),), ((4, 3),), ((3, 4),), ((2, 3, 3),)), **LA_TOL)
      for i, part in ((1, "L"), (2, "U"))),
    Op("linalg_lu_factor", lambda a: LA(a).lu_factor(a).LU, np_lu_packed,
       (((3, 3),), ((4, 2),), ((2, 4),), ((2, 3, 3),)), **LA_TOL),
    Op("linalg_lu_factor_ex", lambda a: LA(a).lu_factor_ex(a)[0], np_lu_packed, SQ1, **LA_TOL),
    Op("linalg_lu_legacy", lambda a: lib(a).lu(a)[0], np_lu_packed, SQ1, **LA_TOL),
    Op("linalg_lu_method", lambda a: a.lu(get_infos=True)[0], np_lu_packed, SQ1, **LA_TOL),
    *(Op(f"linalg_lu_unpack_{part}", lambda a, i=i: lib(a).lu_unpack(*LA(a).lu_factor(a))[i],
         lambda a, i=i: np_lu(a)[i], (((3, 3),), ((4, 3),), ((3, 4),), ((2, 3, 3),)), **LA_TOL)
      for i, part in ((1, "L"), (2, "U"))),
    *(Op(f"linalg_lu_solve_{name}",
         lambda a, b, kw=kw: LA(a).lu_solve(*LA(a).lu_factor(shift(a)), b, **kw),
         lambda a, b, kw=kw: np_lu_solve(shift(a), b, **kw),
         (((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)), ((3, 3), (2, 3, 3)))
         if kw.get("left", True) else (((3, 3), (2, 3)),), **LA_TOL)
      for name, kw in (("left", {}), ("adjoint", {"adjoint": True}), ("right", {"left": False}),
                       ("right_adjoint", {"left": False, "adjoint": True}))),
    Op("linalg_lu_solve_legacy", lambda a, b: lib(a).lu_solve(b, *lib(a).lu(shift(a))),
       lambda a, b: np.linalg.solve(shift(a), b), (((3, 3), (3, 2)),), **LA_TOL),
    Op("linalg_lu_solve_method", lambda a, b: b.lu_solve(*LA(a).lu_factor(shift(a))),
       lambda a, b: np.linalg.solve(shift(a), b), (((3, 3), (3, 2)),), **LA_TOL),
    # solves and inverses from a triangular factor (only its triangle is read: the lines pass
    # it through tril/triu, as the gradients of these ops are not restricted to it)
    *(Op(f"linalg_cholesky_inverse{tag}",
         lambda a, up=up: lib(a).cholesky_inverse(shift(a).triu() if up else shift(a).tril(),
                                                  upper=up),
         lambda a, up=up: np_cholesky_inverse(_t(np.triu(shift(a))) if up
                                              else np.tril(shift(a))), SQ, **LA_TOL)
      for tag, up in (("", False), ("_upper", True))),
    Op("linalg_cholesky_inverse_method", lambda a: shift(a).tril().cholesky_inverse(),
       lambda a: np_cholesky_inverse(np.tril(shift(a))), SQ1, **LA_TOL),
    *(Op(f"linalg_cholesky_solve{tag}",
         lambda b, a, up=up: lib(a).cholesky_solve(b, shift(a).triu() if up else shift(a).tril(),
                                                   upper=up),
         lambda b, a, up=up: np.linalg.solve(
             (lambda low: low @ _t(low))(_t(np.triu(shift(a))) if up else np.tril(shift(a))), b),
         (((3, 2), (3, 3)), ((2, 3, 1), (2, 3, 3)), ((3, 2), (2, 3, 3))), **LA_TOL)
      for tag, up in (("", False), ("_upper", True))),
    Op("linalg_cholesky_solve_method", lambda b, a: b.cholesky_solve(shift(a).tril()),
       lambda b, a: np.linalg.solve(np.tril(shift(a)) @ _t(np.tril(shift(a))), b),
       (((3, 2), (3, 3)),), **LA_TOL),
    *(Op(f"linalg_triangular_solve_{name}",
         lambda b, a, kw=kw: lib(a).triangular_solve(b, shift(a), **kw).solution,
         lambda b, a, kw=kw: _np_triangular_legacy(b, shift(a), **kw),
         (((3, 2), (3, 3)), ((2, 3, 1), (2, 3, 3)), ((3, 2), (2, 3, 3)))
         if not kw else (((3, 2), (3, 3)),), **LA_TOL)
      for name, kw in (("upper", {}), ("lower", {"upper": False}),
                       ("transpose", {"transpose": True}),
                       ("lower_transpose", {"upper": False, "transpose": True}),
                       ("unit", {"unitriangular": True}))),
    Op("linalg_triangular_solve_coefficient",
       lambda b, a: (lambda r: r.solution.sum(-1, keepdim=True) * r.cloned_coefficient)(
           b.triangular_solve(shift(a))),
       lambda b, a: _np_triangular_legacy(b, shift(a)).sum(-1, keepdims=True) * shift(a),
       (((3, 2), (3, 3)), ((3, 2), (2, 3, 3))), **LA_TOL),
    # Householder products (the reflectors below the diagonal of A, scaled by tau)
    Op("linalg_householder_product", lambda a, t: LA(a).householder_product(a, t),
       np_householder, (((3, 3), (2,)), ((4, 2), (2,)), ((5, 3), (1,)), ((2, 4, 3), (2, 3))),
       **LA_TOL),
    Op("linalg_orgqr", lambda a, t: lib(a).orgqr(a, t), np_householder, (((3, 2), (2,)),),
       **LA_TOL),
    Op("linalg_orgqr_method", lambda a, t: a.orgqr(t), np_householder, (((3, 3), (3,)),),
       **LA_TOL),
    # randomized low-rank SVD: exact at full rank (q = min(m, n)); the seed is set inside so
    # that every call draws the same test matrix (then torch's and chainrule's are equal)
    Op("linalg_svd_lowrank_S",
       lambda a: _seeded(a, lambda L: L.svd_lowrank(a, q=min(a.shape[-2:]))[1]),
       lambda a: np.linalg.svd(a)[1], RECT, **LA_TOL),
    Op("linalg_svd_lowrank_USV",
       lambda a: _seeded(a, lambda L: (lambda u, s, v: (u * s.unsqueeze(-2)) @ v.mT)(
           *L.svd_lowrank(a, q=min(a.shape[-2:]), niter=1))),
       lambda a: a, RECT, **LA_TOL),
    Op("linalg_svd_lowrank_M", lambda a, m: _seeded(a, lambda L: L.svd_lowrank(a, q=2, M=m)[1]),
       lambda a, m: np.linalg.svd(a - m)[1], (((3, 2), (3, 2)), ((2, 4), (1, 4))), **LA_TOL),
    Op("linalg_pca_lowrank", lambda a: _seeded(a, lambda L: L.pca_lowrank(a)[1]),
       lambda a: np.linalg.svd(a - a.mean(-2, keepdims=True))[1][..., : min(6, *a.shape[-2:])],
       (((4, 3),), ((2, 5, 3),)), **LA_TOL),
    Op("linalg_pca_lowrank_uncentered",
       lambda a: _seeded(a, lambda L: L.pca_lowrank(a, q=2, center=False)[1]),
       lambda a: np.linalg.svd(a)[1], (((4, 2),),), **LA_TOL),
    # factorizations
    Op("linalg_cholesky", lambda a: LA(a).cholesky(spd(a)), lambda a: np.linalg.cholesky(spd(a)),
       SQ, **LA_TOL),
    Op("linalg_cholesky_upper", lambda a: LA(a).cholesky(spd(a), upper=True),
       lambda a: _t(np.linalg.cholesky(spd(a))), SQ1, **LA_TOL),
    Op("linalg_cholesky_ex", lambda a: LA(a).cholesky_ex(spd(a)).L,
       lambda a: np.linalg.cholesky(spd(a)), SQ1, **LA_TOL),
    Op("linalg_cholesky_legacy", lambda a: spd(a).cholesky(),
       lambda a: np.linalg.cholesky(spd(a)), SQ1, **LA_TOL),
    Op("linalg_qr_Q", lambda a: LA(a).qr(a).Q, lambda a: np.linalg.qr(a)[0], RECT, **LA_TOL),
    Op("linalg_qr_R", lambda a: LA(a).qr(a)[1], lambda a: np.linalg.qr(a)[1], RECT, **LA_TOL),
    Op("linalg_qr_complete", lambda a: LA(a).qr(a, mode="complete").Q,
       lambda a: np.linalg.qr(a, mode="complete")[0], (((3, 3),), ((2, 4),)), **LA_TOL),
    Op("linalg_qr_legacy", lambda a: lib(a).qr(a).R, lambda a: np.linalg.qr(a)[1], SQ1, **LA_TOL),
    Op("linalg_eigh_values", lambda a: LA(a).eigh(sym(a)).eigenvalues,
       lambda a: np.linalg.eigh(sym(a))[0], SQ, **LA_TOL),
    Op("linalg_eigh_vectors", lambda a: (lambda v: v * v)(LA(a).eigh(sym(a)).eigenvectors),
       lambda a: np.linalg.eigh(sym(a))[1] ** 2, SQ, **LA_TOL),
    Op("linalg_eigh_upper", lambda a: LA(a).eigh(sym(a), UPLO="U").eigenvalues,
       lambda a: np.linalg.eigh(sym(a), UPLO="U")[0], SQ1, **LA_TOL),
    Op("linalg_eigvalsh", lambda a: LA(a).eigvalsh(sym(a)), lambda a: np.linalg.eigvalsh(sym(a)),
       SQ, **LA_TOL),
    Op("linalg_svd_S", lambda a: LA(a).svd(a).S, lambda a: np.linalg.svd(a)[1], RECT, **LA_TOL),
    Op("linalg_svd_UVh", lambda a: (lambda r: r.U @ r.Vh)(LA(a).svd(a, full_matrices=False)),
       np_svd_uvh, RECT, **LA_TOL),
    Op("linalg_svd_full", lambda a: (lambda r: r.U[..., :, :2] @ r.Vh)(LA(a).svd(a)),
       np_svd_uvh, (((3, 2),),), **LA_TOL),
    Op("linalg_svd_weighted", lambda a: (lambda r: (r.U * r.S.unsqueeze(-2)).exp() @ r.Vh)(
        LA(a).svd(a, full_matrices=False)),
       lambda a: (lambda u, s, vh: np.exp(u * s[..., None, :]) @ vh)(
           *np.linalg.svd(a, full_matrices=False)), ((((3, 3),), ((4, 2),))), **LA_TOL),
    Op("linalg_svd_legacy", lambda a: (lambda r: r.U @ r.V.mT)(lib(a).svd(a)), np_svd_uvh,
       (((3, 2),),), **LA_TOL),
    Op("linalg_svdvals", lambda a: LA(a).svdvals(a), lambda a: np.linalg.svd(a)[1], RECT,
       **LA_TOL),
    Op("linalg_pinv", lambda a: LA(a).pinv(a), np.linalg.pinv, RECT, **LA_TOL),
    Op("linalg_pinv_hermitian", lambda a: LA(a).pinv(sym(a), hermitian=True),
       lambda a: np.linalg.pinv(sym(a)), SQ1, **LA_TOL),
    Op("linalg_pinverse", lambda a: lib(a).pinverse(a), np.linalg.pinv, (((3, 2),),), **LA_TOL),
    Op("linalg_lstsq", lambda a, b: LA(a).lstsq(a, b).solution,
       lambda a, b: np.linalg.pinv(a) @ b, (((4, 2), (4, 3)), ((3, 3), (3, 1)),
                                            ((2, 4, 2), (2, 4, 1))), **LA_TOL,
       layout_differs="torch's solution is a slice of LAPACK's max(m, n)-row work matrix"),
    Op("linalg_lstsq_vector", lambda a, b: LA(a).lstsq(a, b).solution,
       lambda a, b: np.linalg.lstsq(a, b)[0], (((4, 2), (4,)),), **LA_TOL),
    Op("linalg_matrix_exp", lambda a: LA(a).matrix_exp(a), np_expm,
       (*SQ, ((1, 1),), ((0, 0),)), **LA_TOL),
    Op("linalg_matrix_exp_large", lambda a: lib(a).matrix_exp(4 * a), lambda a: np_expm(4 * a),
       SQ1, rtol32=1e-4, atol32=1e-3, note="a large norm: scaling and squaring"),
    Op("linalg_matrix_exp_method", lambda a: (a / 10).matrix_exp(), lambda a: np_expm(a / 10),
       SQ1, **LA_TOL),
    # compositions: vecdot, vander, diagonal, cond, tensorinv, tensorsolve
    Op("linalg_vecdot", lambda a, b: LA(a).vecdot(a, b), lambda a, b: (a * b).sum(-1),
       (((2, 3), (3,)), ((3,), (3,)), ((2, 1, 3), (4, 3)))),
    Op("linalg_vecdot_dim", lambda a, b: LA(a).vecdot(a, b, dim=0),
       lambda a, b: (a * b).sum(0), (((3, 2), (3, 1)),)),
    Op("linalg_diagonal", lambda a: LA(a).diagonal(a, offset=1),
       lambda a: np.diagonal(a, 1, -2, -1), (((3, 4),), ((2, 3, 3),))),
    Op("linalg_vander", lambda a: LA(a).vander(a), lambda a: a[..., None] ** np.arange(a.shape[-1]),
       (((3,),), ((2, 4),))),
    Op("linalg_vander_N", lambda a: LA(a).vander(a, N=4),
       lambda a: np.atleast_1d(a)[..., None] ** np.arange(4), (((3,),), ((),))),
    *(Op(f"linalg_cond_{name}", lambda a, p=p: LA(a).cond(shift(a), p),
         lambda a, p=p: np.linalg.cond(shift(a), p), SQ, **LA_TOL)
      for name, p in (("2", None), ("-2", -2), ("nuc", "nuc"))),
    Op("linalg_cond_rectangular", lambda a: LA(a).cond(a), np.linalg.cond, (((3, 2),),), **LA_TOL),
    Op("linalg_tensorinv", lambda a: LA(a).tensorinv(shift_tensor(a), ind=2),
       lambda a: np.linalg.tensorinv(shift_tensor(a), ind=2), (((2, 3, 6),),), **LA_TOL,
       name_differs=("ViewBackward0", "torch's inverse is column-major, so its reshape is an "
                     "alias (ReshapeAliasBackward0): memory layout is not modelled")),
    Op("linalg_tensorsolve", lambda a, b: LA(a).tensorsolve(shift_tensor(a), b),
       lambda a, b: np.linalg.tensorsolve(shift_tensor(a), b), (((2, 3, 6), (2, 3)),), **LA_TOL),
    # norms
    *(Op(f"linalg_vector_norm_{p}", lambda a, p=p: LA(a).vector_norm(a, p),
         lambda a, p=p: np_vector_norm(a, p), (((2, 3),), ((4,),), ((),)), NONZERO,
         second_order=p != 0, hypothesis="unary" if p == 2 else None,
         note="" if p else "the 0-norm counts: no gradient (None, as in PyTorch)")
      for p in (2, 1, math.inf, -math.inf, 0, 3, 0.5, -1.5)),
    Op("linalg_vector_norm_dim", lambda a: LA(a).vector_norm(a, 3, dim=(0, -1), keepdim=True),
       lambda a: np_vector_norm(a, 3, (0, 2), True), (((2, 3, 2),),), NONZERO),
    Op("linalg_vector_norm_inf_dim", lambda a: LA(a).vector_norm(a, math.inf, dim=1),
       lambda a: np_vector_norm(a, math.inf, 1), (((2, 3, 2),),), NONZERO),
    Op("linalg_vector_norm_dtype", lambda a: LA(a).vector_norm(a, dtype=lib(a).float64),
       lambda a: np_vector_norm(a, 2), (((2, 3),),), NONZERO),
    *(Op(f"linalg_matrix_norm_{name}", lambda a, o=o: LA(a).matrix_norm(a, o),
         lambda a, o=o: np.linalg.norm(a, o, axis=(-2, -1)), RECT, NONZERO, **LA_TOL,
         layout_differs=NORM_OF_EMPTY if name in ("inf", "-inf", "2", "-2") else "")
      for name, o in (("fro", "fro"), ("nuc", "nuc"), ("1", 1), ("-1", -1), ("inf", math.inf),
                      ("-inf", -math.inf), ("2", 2), ("-2", -2))),
    Op("linalg_matrix_norm_dims", lambda a: LA(a).matrix_norm(a, 1, dim=(2, 0), keepdim=True),
       lambda a: np.linalg.norm(a, 1, axis=(2, 0), keepdims=True), (((2, 3, 3),),), NONZERO,
       layout_differs=NORM_OF_EMPTY),
    Op("linalg_matrix_norm_nuc_dims", lambda a: LA(a).matrix_norm(a, "nuc", dim=(0, 2)),
       lambda a: np.linalg.norm(a, "nuc", axis=(0, 2)), (((3, 2, 2),),), **LA_TOL),
    Op("linalg_norm", lambda a: LA(a).norm(a), lambda a: np.linalg.norm(a.reshape(-1)),
       (((2, 3),), ((2, 2, 2),)), NONZERO, hypothesis="unary"),
    Op("linalg_norm_ord", lambda a: LA(a).norm(a, 1), lambda a: np.linalg.norm(a, 1),
       (((2, 3),), ((4,),)), NONZERO),
    Op("linalg_norm_dim", lambda a: LA(a).norm(a, math.inf, dim=(1, 2)),
       lambda a: np.linalg.norm(a, math.inf, axis=(1, 2)), (((2, 3, 3),),), NONZERO),
    # covariance and correlation (compositions)
    Op("linalg_cov", lambda x: x.cov(), np.cov, (((3, 5),), ((4,),))),
    Op("linalg_cov_fn_correction", lambda x: lib(x).cov(x, correction=0),
       lambda x: np.cov(x, ddof=0), (((2, 4),),)),
    Op("linalg_cov_weights",
       lambda x, w: lib(x).cov(x, fweights=lib(x).tensor([1, 2, 1, 3]), aweights=w),
       lambda x, w: np.cov(x, fweights=[1, 2, 1, 3], aweights=w), (((2, 4), (4,)),),
       (ANY, POSITIVE)),
    Op("linalg_corrcoef", lambda x: x.corrcoef(), np.corrcoef, (((3, 5),),)),
    Op("linalg_corrcoef_fn", lambda x: lib(x).corrcoef(x), np.corrcoef, (((2, 4),),)),
)
# fmt: on


def _np_triangular(
    a: np.ndarray, b: np.ndarray, upper: bool, left: bool = True, unitriangular: bool = False
) -> np.ndarray:
    a = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        a = a - a * np.eye(a.shape[-1]) + np.eye(a.shape[-1])
    if left:
        return np.linalg.solve(a, b)
    return _t(np.linalg.solve(_t(a), _t(b)))


def _np_triangular_legacy(
    b: np.ndarray,
    a: np.ndarray,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
) -> np.ndarray:
    a = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        a = a - a * np.eye(a.shape[-1]) + np.eye(a.shape[-1])
    return np.linalg.solve(_t(a) if transpose else a, b)
