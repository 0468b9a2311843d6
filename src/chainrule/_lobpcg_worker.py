"""The LOBPCG iteration (Knyazev's locally optimal block preconditioned conjugate gradient,
with the robust orthogonalization of Duersch et al., 2018) for a few extreme eigenpairs of
a symmetric (generalized) eigenproblem A X = B X E. Written in chainrule ops in PyTorch's
order, so that from the same start it takes PyTorch's steps."""

from __future__ import annotations

from typing import Any

from ._creation import eye, zeros
from ._ops.linalg.decompositions import linalg_cholesky, linalg_qr
from ._ops.linalg.solve import solve_triangular
from ._ops.linalg.spectral import eigh
from ._tensor import Tensor

__all__ = ["LOBPCG"]


def matmul(a: Tensor | None, b: Tensor) -> Tensor:
    """a @ b, with None standing for the identity (B = I, no preconditioner)."""
    return b if a is None else a @ b


def qform(a: Tensor | None, s: Tensor) -> Tensor:
    """sᵀ a s."""
    return s.mT @ matmul(a, s)


def symeig(a: Tensor, largest: bool | None = False) -> tuple[Tensor, Tensor]:
    """Eigenpairs of a symmetric matrix (its upper triangle), largest first if asked."""
    e, z = eigh(a, UPLO="U")
    if largest:
        e, z = e.flip(dims=(-1,)), z.flip(dims=(-1,))
    return e, z


class LOBPCG:
    """One LOBPCG run: `run()` iterates until k eigenpairs converge or niter steps pass;
    `E` and `X` then hold the eigenvalues and eigenvectors. A `tracker(worker)` is called
    after every step, and may stop the run by setting `worker.bvars["force_stop"]`."""

    def __init__(
        self,
        A: Tensor | None,
        B: Tensor | None,
        X: Tensor,
        iK: Tensor | None,
        iparams: dict[str, int],
        fparams: dict[str, float],
        bparams: dict[str, bool],
        method: str,
        tracker: Any,
    ) -> None:
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = zeros((n,), dtype=X.dtype)
        self.R = zeros((m, n), dtype=X.dtype)
        self.S = zeros((m, 3 * n), dtype=X.dtype)  # [X, P, W]: the search subspace
        self.tvars: dict[str, Tensor] = {}
        self.ivars: dict[str, int] = {"istep": 0}
        self.fvars: dict[str, float] = {"_": 0.0}
        self.bvars: dict[str, bool] = {"_": False}

    def __str__(self) -> str:
        lines = ["LOBPCG:"]
        for name in ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars"):
            lines.append(f"  {name}={getattr(self, name)}")
        for name in ("A", "B", "iK", "X", "E"):
            lines.append(f"  {name}={getattr(self, name)}")
        return "".join(line + "\n" for line in lines)

    def run(self) -> None:
        self.update()
        if self.tracker is not None:
            self.tracker(self)
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.tracker(self)

    def stop_iteration(self) -> bool:
        return (
            self.bvars.get("force_stop", False)
            or self.ivars["iterations_left"] == 0
            or self.ivars["converged_count"] >= self.iparams["k"]
        )

    def update(self) -> None:
        """One step; the first also measures the norms the convergence test is relative to."""
        if self.ivars["istep"] == 0:
            x_norm = float(self.X.norm())
            ix_norm = x_norm**-1
            self.fvars["X_norm"] = x_norm
            self.fvars["A_norm"] = float(matmul(self.A, self.X).norm()) * ix_norm
            self.fvars["B_norm"] = float(matmul(self.B, self.X).norm()) * ix_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] = self.ivars["iterations_left"] - 1
        self.ivars["istep"] = self.ivars["istep"] + 1

    def update_residual(self) -> None:
        self.R = matmul(self.A, self.X) - matmul(self.B, self.X) * self.E

    def update_converged_count(self) -> int:
        """How many leading eigenpairs have a small backward error (Duersch et al., 4.3)."""
        prev_count = self.ivars["converged_count"]
        a_norm, b_norm = self.fvars["A_norm"], self.fvars["B_norm"]
        x, r = self.X, self.R
        rerr = r.norm(2, (0,)) / (x.norm(2, (0,)) * (a_norm + self.E[: x.shape[-1]].abs() * b_norm))
        count = 0
        for converged in (rerr < self.fparams["tol"]).tolist():
            if not converged:
                break
            count += 1
        if count < prev_count:
            raise AssertionError(
                f"the number of converged eigenpairs (was {prev_count}, got {count}) cannot "
                "decrease"
            )
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def _update_basic(self) -> None:
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            ri = self._rayleigh_ritz_transform(self.X)
            e, z = symeig(qform(qform(self.A, self.X), ri), largest)
            self.X[:] = self.X @ (ri @ z)
            self.E[:] = e
            np_ = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            w = matmul(self.iK, self.R)
        else:
            s_ = self.S[:, nc:ns]
            ri = self._rayleigh_ritz_transform(s_)
            e_, z = symeig(qform(qform(self.A, s_), ri), largest)
            self.X[:, nc:] = s_ @ (ri @ z[:, : n - nc])
            self.E[nc:] = e_[: n - nc]
            p = s_ @ (ri @ z[:, n : 2 * n - nc])
            np_ = p.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n : n + np_] = p
            w = matmul(self.iK, self.R[:, nc:])
        self.ivars["converged_end"] = ns = n + np_ + w.shape[-1]
        self.S[:, n + np_ : ns] = w

    def _update_ortho(self) -> None:
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            ri = self._rayleigh_ritz_transform(self.X)
            _, z = symeig(qform(qform(self.A, self.X), ri), largest)
            self.X = self.X @ (ri @ z)
            self.update_residual()
            np_ = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            w = self._get_ortho(self.R, self.X)
        else:
            s_ = self.S[:, nc:ns]
            e_, z = symeig(qform(self.A, s_), largest)
            self.X[:, nc:] = s_ @ z[:, : n - nc]
            self.E[nc:] = e_[: n - nc]
            p = s_ @ (z[:, n - nc :] @ linalg_qr(z[: n - nc, n - nc :].mT).Q)
            np_ = p.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n : n + np_] = p
            w = self._get_ortho(self.R[:, nc:], self.S[:, : n + np_])
        ns = self.ivars["converged_end"] = n + np_ + w.shape[-1]
        self.S[:, n + np_ : ns] = w

    def _rayleigh_ritz_transform(self, s: Tensor) -> Tensor:
        """Ri, upper triangular, with Riᵀ (sᵀ B s) Ri = I: the generalized problem on span(s)
        becomes a standard one, Riᵀ sᵀ A s Ri z = z e (the diagonal scaled to one first)."""
        sbs = qform(self.B, s)
        d_row = sbs.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        r = linalg_cholesky((sbs * d_row) * d_col, upper=True)
        return solve_triangular(r, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, u: Tensor, drop: bool, tau: float) -> Tensor:
        """u with B-orthonormal columns (Duersch, algorithm 4); with `drop`, the columns that
        add little to the span are dropped, else their tiny eigenvalues are raised to tau."""
        if u.numel() == 0:
            return u
        ubu = qform(self.B, u)
        d = ubu.diagonal(0, -2, -1)
        nz = (d.abs() != 0.0).nonzero(as_tuple=True)
        if len(nz[0]) < len(d):
            u = u[:, nz[0]]
            if u.numel() == 0:
                return u
            ubu = qform(self.B, u)
            d = ubu.diagonal(0, -2, -1)
        d_col = (d**-0.5).reshape(d.shape[0], 1)
        e, z = symeig((ubu * d_col) * d_col.mT)
        t = tau * e.abs().max()
        if drop:
            keep = (e > t).nonzero(as_tuple=True)
            e, z, d_col = e[keep[0]], z[:, keep[0]], d_col[keep[0]]
        else:
            e[(e < t).nonzero(as_tuple=True)[0]] = t
        return (u * d_col.mT) @ (z * e**-0.5)

    def _get_ortho(self, u: Tensor, v: Tensor) -> Tensor:
        """u with B-orthonormal columns, B-orthogonal to v (Duersch, algorithms 3 and 6)."""
        m = self.iparams["m"]
        tau_ortho, tau_drop = self.fparams["ortho_tol"], self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in list(self.fvars):
            if key.startswith("ortho_") and key.endswith("_rerr"):
                self.fvars.pop(key)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        bv_norm = matmul(self.B, v).norm()
        bu = matmul(self.B, u)
        vbu = v.mT @ bu
        i = j = 0
        for i in range(i_max):
            u = u - v @ vbu
            drop, tau_svqb = False, tau_drop
            for j in range(j_max):
                if use_drop:
                    u = self._get_svqb(u, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    u = self._get_svqb(u, False, tau_replace)
                if u.numel() == 0:  # every column of u lies in span(v)
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return u
                bu = matmul(self.B, u)
                ubu = u.mT @ bu
                residual = ubu - eye(ubu.shape[-1], dtype=ubu.dtype)
                rerr = float(residual.norm()) * float(bu.norm() * u.norm()) ** -1
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            vbu = v.mT @ bu
            rerr = float(vbu.norm()) * float(bv_norm * u.norm()) ** -1
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < u.shape[-1] + v.shape[-1]:
                b = self.B
                if b is None:
                    raise AssertionError("B must not be None")
                raise ValueError(
                    f"Overdetermined shape of U: #B-cols(={b.shape[-1]}) >= "
                    f"#U-cols(={u.shape[-1]}) + #V-cols(={v.shape[-1]}) must hold"
                )
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return u
