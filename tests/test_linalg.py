"""Linear algebra beyond the op table: errors and their messages, named-tuple results,
singular and empty inputs, LAPACK-style info, deprecation warnings, drawn einsum
equations and third derivatives. Lines of the table itself are in optable_linalg.py."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule.autograd import grad, gradcheck, gradgradcheck


def T(lib: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    return lib.tensor(np.asarray(a).astype(dtype), requires_grad=requires_grad)


SING = [[1.0, 2, 3], [2, 4, 6], [1, 1, 1]]
NOT_PD = [[1.0, 2], [2, 1]]
RNG = np.random.default_rng(7)
A3 = RNG.standard_normal((3, 3))
V3 = RNG.standard_normal(3)
R23 = RNG.standard_normal((2, 3))


# --- errors: type and first line of the message, as torch's ----------------------------------

ERRORS: dict[str, Callable[[Any], Any]] = {
    "inv singular": lambda L: L.linalg.inv(T(L, SING)),
    **{  # the products refuse a mix of dtypes (they compute in one)
        f"{name} mixed dtypes": (
            lambda L, f=f, shapes=shapes: f(L)(
                L.ones(*shapes[0]), L.ones(*shapes[1], dtype=L.float64)
            )
        )
        for name, f, shapes in [
            ("mm", lambda L: L.mm, ((2, 3), (3, 4))),
            ("mv", lambda L: L.mv, ((2, 3), (3,))),
            ("dot", lambda L: L.dot, ((3,), (3,))),
            ("bmm", lambda L: L.bmm, ((2, 2, 3), (2, 3, 4))),
            ("matmul", lambda L: L.matmul, ((2, 2, 3), (2, 3, 4))),
            ("matmul folded to mm", lambda L: L.matmul, ((2, 2, 3), (3, 4))),
            ("matmul folded to mv", lambda L: L.matmul, ((2, 2, 3), (3,))),
            ("matmul vector first", lambda L: L.matmul, ((3,), (2, 3, 4))),
        ]
    },
    "inv singular batch": lambda L: L.linalg.inv(T(L, [A3, SING])),
    "inv singular 1-batch": lambda L: L.linalg.inv(T(L, [[[1.0, 2], [2, 4]]])),
    "inverse singular": lambda L: L.inverse(T(L, [[0.0, 0], [0, 0]])),
    "inv not square": lambda L: L.linalg.inv(T(L, R23)),
    "inv 1-d": lambda L: L.linalg.inv(T(L, V3)),
    "inv int": lambda L: L.linalg.inv(T(L, [[1, 2], [3, 4]], "int64")),
    "det not square": lambda L: L.det(T(L, R23)),
    "det int": lambda L: L.linalg.det(T(L, [[1, 2], [3, 4]], "int64")),
    "slogdet 1-d": lambda L: L.linalg.slogdet(T(L, V3)),
    "logdet not square": lambda L: L.logdet(T(L, R23)),
    "solve singular": lambda L: L.linalg.solve(T(L, SING), T(L, A3)),
    "solve singular batch": lambda L: L.linalg.solve(T(L, [A3, SING]), T(L, A3)),
    "solve shapes": lambda L: L.linalg.solve(T(L, A3), T(L, np.ones((4, 2)))),
    "solve shapes vector": lambda L: L.linalg.solve(T(L, A3), T(L, np.ones(4))),
    "solve shapes right": lambda L: L.linalg.solve(T(L, A3), T(L, np.ones((2, 4))), left=False),
    "solve dtypes": lambda L: L.linalg.solve(T(L, A3), T(L, A3, "float32")),
    "solve batches": lambda L: L.linalg.solve(T(L, np.ones((2, 3, 3))), T(L, np.ones((4, 3, 2)))),
    "solve_triangular 1-d B": lambda L: L.linalg.solve_triangular(T(L, A3), T(L, V3), upper=True),
    "solve_triangular shapes": lambda L: L.linalg.solve_triangular(
        T(L, A3), T(L, np.ones((2, 1))), upper=True
    ),
    "cholesky not PD": lambda L: L.linalg.cholesky(T(L, NOT_PD)),
    "cholesky not PD 3": lambda L: L.linalg.cholesky(T(L, np.diag([1.0, 2, -1]))),
    "cholesky not PD batch": lambda L: L.linalg.cholesky(T(L, [np.eye(2), NOT_PD])),
    "cholesky legacy not PD": lambda L: L.cholesky(T(L, NOT_PD)),
    "cholesky_ex check": lambda L: L.linalg.cholesky_ex(T(L, NOT_PD), check_errors=True),
    "cholesky not square": lambda L: L.linalg.cholesky(T(L, R23)),
    "qr 1-d": lambda L: L.linalg.qr(T(L, V3)),
    "qr mode": lambda L: L.linalg.qr(T(L, A3), mode="bad"),
    "qr int": lambda L: L.linalg.qr(T(L, [[1, 2], [3, 4]], "int64")),
    "eigh not square": lambda L: L.linalg.eigh(T(L, R23)),
    "eigh UPLO": lambda L: L.linalg.eigh(T(L, A3), UPLO="X"),
    "eigvalsh 1-d": lambda L: L.linalg.eigvalsh(T(L, V3)),
    "svd 1-d": lambda L: L.linalg.svd(T(L, V3)),
    "svd driver": lambda L: L.linalg.svd(T(L, A3), driver="gesvd"),
    "svdvals int": lambda L: L.linalg.svdvals(T(L, [[1, 2], [3, 4]], "int64")),
    "pinv 1-d": lambda L: L.linalg.pinv(T(L, V3)),
    "matrix_exp not square": lambda L: L.linalg.matrix_exp(T(L, R23)),
    "matrix_exp int": lambda L: L.matrix_exp(T(L, [[1, 2], [3, 4]], "int64")),
    "matrix_power 1-d": lambda L: L.matrix_power(T(L, V3), 2),
    "matrix_power singular": lambda L: L.matrix_power(T(L, SING), -1),
    "matrix_rank 1-d": lambda L: L.linalg.matrix_rank(T(L, V3)),
    "lstsq rows": lambda L: L.linalg.lstsq(T(L, A3), T(L, np.ones((2, 2)))),
    "vector_norm int": lambda L: L.linalg.vector_norm(T(L, [1, 2], "int64")),
    "vector_norm ord str": lambda L: L.linalg.vector_norm(T(L, A3), "fro"),
    "vector_norm empty inf": lambda L: L.linalg.vector_norm(T(L, np.zeros(0)), math.inf),
    "vector_norm empty dim": lambda L: L.linalg.vector_norm(T(L, np.zeros((2, 0))), -1, dim=1),
    "vector_norm dtype int": lambda L: L.linalg.vector_norm(T(L, A3), dtype=L.int64),
    "matrix_norm 1-d": lambda L: L.linalg.matrix_norm(T(L, V3)),
    "matrix_norm order": lambda L: L.linalg.matrix_norm(T(L, A3), 3),
    "matrix_norm order str": lambda L: L.linalg.matrix_norm(T(L, A3), "abc"),
    "matrix_norm same dims": lambda L: L.linalg.matrix_norm(T(L, A3), dim=(1, -1)),
    "norm ord 3-d": lambda L: L.linalg.norm(T(L, np.ones((2, 2, 2))), ord=2),
    "norm fro 1-d": lambda L: L.linalg.norm(T(L, V3), "fro"),
    "norm dims": lambda L: L.linalg.norm(T(L, A3), dim=(0, 1, 1)),
    "cross length": lambda L: L.cross(T(L, np.ones((2, 2))), T(L, np.ones((2, 2))), dim=1),
    "cross no dim of 3": lambda L: L.cross(T(L, np.ones((2, 2))), T(L, np.ones((2, 2)))),
    "linalg.cross length": lambda L: L.linalg.cross(T(L, np.ones((3, 2))), T(L, np.ones((3, 2)))),
    "cross ndim": lambda L: L.linalg.cross(T(L, np.ones((2, 3))), T(L, np.ones(3))),
    "cross broadcast": lambda L: L.cross(T(L, np.ones((2, 3))), T(L, np.ones((3, 3))), dim=1),
    "cdist 1-d": lambda L: L.cdist(T(L, V3), T(L, V3)),
    "cdist columns": lambda L: L.cdist(T(L, R23), T(L, np.ones((2, 4)))),
    "cdist p": lambda L: L.cdist(T(L, A3), T(L, A3), p=-1),
    "cdist int": lambda L: L.cdist(T(L, A3), T(L, [[1, 2, 3]], "int64")),
    "cdist dtypes": lambda L: L.cdist(T(L, A3, "float32"), T(L, A3)),
    "cdist batches": lambda L: L.cdist(T(L, np.ones((2, 3, 3))), T(L, np.ones((4, 3, 3)))),
    "kron number": lambda L: L.kron(T(L, A3), 2.0),
    "vdot 2-d": lambda L: L.vdot(T(L, A3), T(L, A3)),
    "vdot sizes": lambda L: L.vdot(T(L, V3), T(L, np.ones(2))),
    "vdot dtypes": lambda L: L.vdot(T(L, V3), T(L, V3, "float32")),
    "inner last dims": lambda L: L.inner(T(L, A3), T(L, np.ones(2))),
    "tensordot sizes": lambda L: L.tensordot(T(L, A3), T(L, np.ones((2, 2))), dims=1),
    "tensordot negative": lambda L: L.tensordot(T(L, A3), T(L, A3), dims=-1),
    "tensordot too many": lambda L: L.tensordot(T(L, A3), T(L, A3), dims=3),
    "tensordot lists": lambda L: L.tensordot(T(L, A3), T(L, A3), dims=([0, 1], [0])),
    "tensordot dtypes": lambda L: L.tensordot(T(L, A3), T(L, A3, "float32"), dims=1),
    "addmm shapes": lambda L: L.addmm(T(L, A3), T(L, A3), T(L, np.ones((2, 2)))),
    "addmm 1-d": lambda L: L.addmm(T(L, A3), T(L, V3), T(L, A3)),
    "addmm input": lambda L: L.addmm(T(L, np.ones(4)), T(L, A3), T(L, A3)),
    "addmm dtypes": lambda L: L.addmm(T(L, A3), T(L, A3, "float32"), T(L, A3)),
    "addmv shapes": lambda L: L.addmv(T(L, V3), T(L, A3), T(L, np.ones(2))),
    "addmv dims": lambda L: L.addmv(T(L, V3), T(L, V3), T(L, V3)),
    "baddbmm 2-d": lambda L: L.baddbmm(T(L, [A3]), T(L, A3), T(L, [A3])),
    "baddbmm shapes": lambda L: L.baddbmm(T(L, [A3]), T(L, [A3]), T(L, np.ones((2, 3, 3)))),
    "addbmm batches": lambda L: L.addbmm(T(L, A3), T(L, [A3]), T(L, np.ones((2, 3, 3)))),
    "addbmm shapes": lambda L: L.addbmm(T(L, A3), T(L, [A3]), T(L, np.ones((1, 2, 3)))),
    "multi_dot one": lambda L: L.linalg.multi_dot([T(L, A3)]),
    "multi_dot shapes": lambda L: L.linalg.multi_dot([T(L, A3), T(L, np.ones((2, 2)))]),
    "multi_dot 3-d": lambda L: L.linalg.multi_dot([T(L, A3), T(L, np.ones((2, 3, 3)))]),
    "multi_dot middle": lambda L: L.linalg.multi_dot([T(L, A3), T(L, [A3]), T(L, A3)]),
    "multi_dot dtypes": lambda L: L.linalg.multi_dot([T(L, A3), T(L, A3, "float32")]),
    "einsum fewer": lambda L: L.einsum("ij,jk->ik", T(L, A3)),
    "einsum more": lambda L: L.einsum("ij", T(L, A3), T(L, A3)),
    "einsum sizes": lambda L: L.einsum("ij,jk->ik", T(L, A3), T(L, np.ones((2, 2)))),
    "einsum output letter": lambda L: L.einsum("ij->k", T(L, A3)),
    "einsum ndim": lambda L: L.einsum("ijk->i", T(L, A3)),
    "einsum ndim ellipsis": lambda L: L.einsum("...ijk->i", T(L, A3)),
    "einsum repeated output": lambda L: L.einsum("ij->ii", T(L, A3)),
    "einsum character": lambda L: L.einsum("i1->i", T(L, A3)),
    "einsum character output": lambda L: L.einsum("ij->ij->", T(L, A3)),
    "einsum diagonal sizes": lambda L: L.einsum("ii->i", T(L, R23)),
    "einsum dtypes": lambda L: L.einsum("ij,jk->ik", T(L, A3), T(L, A3, "float32")),
    "einsum dot": lambda L: L.einsum("i.j->i", T(L, A3)),
    "einsum two ellipses": lambda L: L.einsum("...i...->i", T(L, A3)),
    "einsum ellipsis broadcast": lambda L: L.einsum(
        "...ij,...jk", T(L, np.ones((2, 3, 3))), T(L, np.ones((4, 3, 3)))
    ),
    "einsum sublist range": lambda L: L.einsum(T(L, R23), [0, 52]),
    "einsum nothing": lambda L: L.einsum("ij"),
    "eigh int": lambda L: L.linalg.eigh(T(L, [[1, 2], [3, 4]], "int64")),
    "qr mode r backward": lambda L: (
        L.linalg.qr(T(L, A3, requires_grad=True), mode="r").R.sum().backward()
    ),
    "qr complete tall backward": lambda L: (
        L.linalg.qr(T(L, R23.T, requires_grad=True), "complete").Q.sum().backward()
    ),
    **{
        f"{name} half": (lambda L, f=f: f(L, T(L, np.eye(2), "float16")))
        for name, f in {
            "inv": lambda L, a: L.linalg.inv(a),
            "inv_ex": lambda L, a: L.linalg.inv_ex(a),
            "det": lambda L, a: L.linalg.det(a),
            "slogdet": lambda L, a: L.linalg.slogdet(a),
            "logdet": lambda L, a: L.logdet(a),
            "solve": lambda L, a: L.linalg.solve(a, a),
            "solve_triangular": lambda L, a: L.linalg.solve_triangular(a, a, upper=True),
            "cholesky": lambda L, a: L.linalg.cholesky(a),
            "cholesky_ex": lambda L, a: L.linalg.cholesky_ex(a),
            "qr": lambda L, a: L.linalg.qr(a),
            "eigh": lambda L, a: L.linalg.eigh(a),
            "eigvalsh": lambda L, a: L.linalg.eigvalsh(a),
            "svd": lambda L, a: L.linalg.svd(a),
            "svdvals": lambda L, a: L.linalg.svdvals(a),
            "pinv": lambda L, a: L.linalg.pinv(a),
            "lstsq": lambda L, a: L.linalg.lstsq(a, a),
            "matrix_rank": lambda L, a: L.linalg.matrix_rank(a),
            "matrix_norm nuc": lambda L, a: L.linalg.matrix_norm(a, "nuc"),
            "cdist": lambda L, a: L.cdist(a, a),
            "matrix_power -1": lambda L, a: L.matrix_power(a, -1),
        }.items()
    },
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(torch: Any, name: str) -> None:
    make = ERRORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            make(torch)
        with pytest.raises(Exception) as mine:
            make(chainrule)
    if isinstance(theirs.value, torch.linalg.LinAlgError):
        assert isinstance(mine.value, chainrule.linalg.LinAlgError)
    else:
        assert type(mine.value).__name__ == type(theirs.value).__name__
    assert str(mine.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_linalg_error_is_a_runtime_error() -> None:
    assert issubclass(chainrule.linalg.LinAlgError, RuntimeError)


def test_errors_leave_no_graph() -> None:
    """A failing op raises before recording anything: its input keeps no new consumers."""
    x = T(chainrule, SING, requires_grad=True)
    with pytest.raises(chainrule.linalg.LinAlgError):
        chainrule.linalg.inv(x)
    assert x.grad is None and x._version == 0


# --- named tuples and LAPACK-style info ---------------------------------------------------------

TUPLES: dict[str, Callable[[Any], Any]] = {
    "slogdet": lambda L: L.linalg.slogdet(T(L, [[2.0, 1], [1, 3]], "float32")),
    "slogdet legacy": lambda L: L.slogdet(T(L, [[2.0, 1], [1, 3]], "float32")),
    "qr": lambda L: L.linalg.qr(T(L, [[2.0, 1], [1, 3]], "float32")),
    "qr r": lambda L: L.linalg.qr(T(L, [[2.0, 1], [1, 3]], "float32"), mode="r"),
    "inv_ex": lambda L: L.linalg.inv_ex(T(L, [[2.0, 1], [1, 3]], "float32")),
    "inv_ex singular": lambda L: L.linalg.inv_ex(T(L, [[1.0, 2], [2, 4]])).info,
    "cholesky_ex": lambda L: L.linalg.cholesky_ex(T(L, [[2.0, 1], [1, 3]], "float32")),
    "cholesky_ex not PD": lambda L: L.linalg.cholesky_ex(T(L, [np.eye(2), NOT_PD])).info,
    "solve_ex": lambda L: L.linalg.solve_ex(T(L, [[2.0, 1], [1, 3]]), T(L, [1.0, 2])),
    "eigh diagonal": lambda L: L.linalg.eigh(T(L, [[3.0, 0], [0, 1]])).eigenvalues,
    "svd diagonal": lambda L: L.linalg.svd(T(L, [[3.0, 0], [0, 1]])).S,
    "lstsq": lambda L: L.linalg.lstsq(T(L, [[1.0, 0], [0, 2]]), T(L, [[1.0], [2]])),
    "lstsq gelsd": lambda L: L.linalg.lstsq(
        T(L, [[1.0, 0], [0, 2], [1, 1]]), T(L, [[1.0], [2], [0]]), driver="gelsd"
    ),
    "matrix_rank": lambda L: L.linalg.matrix_rank(T(L, [np.ones((3, 3)), np.eye(3)])),
    "matrix_rank tol": lambda L: L.linalg.matrix_rank(T(L, np.diag([1.0, 0.1, 0.01])), tol=0.05),
    "matrix_rank hermitian": lambda L: L.linalg.matrix_rank(
        T(L, np.diag([1.0, -0.1, 0])), hermitian=True
    ),
    "svd legacy no uv": lambda L: L.svd(T(L, [[3.0, 0], [0, 1], [0, 0]]), compute_uv=False),
}


@pytest.mark.parametrize("name", list(TUPLES))
def test_result_prints_as_torch(torch: Any, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = repr(TUPLES[name](torch))
        mine = repr(TUPLES[name](chainrule))
    assert mine == theirs.replace("torch.", "chainrule.")


def test_named_tuples_unpack_and_index() -> None:
    a = T(chainrule, [[2.0, 1], [1, 3]])
    sign, logabsdet = chainrule.linalg.slogdet(a)
    r = chainrule.linalg.slogdet(a)
    assert r[0] is r.sign and r[1] is r.logabsdet and len(r) == 2
    assert float(sign) == 1.0 and math.isclose(float(logabsdet), math.log(5))
    u, s, v = chainrule.svd(a)
    np.testing.assert_allclose((u * s) @ v.mT, a.numpy(), atol=1e-12)


def test_empty_matrices_match_torch(torch: Any) -> None:
    for name in ("inv", "det", "matrix_exp", "pinv", "cholesky", "eigvalsh", "svdvals"):
        for shape in ((0, 0), (2, 0, 0)):
            mine = getattr(chainrule.linalg, name)(T(chainrule, np.zeros(shape)))
            theirs = getattr(torch.linalg, name)(T(torch, np.zeros(shape)))
            assert tuple(mine.shape) == tuple(theirs.shape), name
            np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


# --- values and gradients where the table cannot reach -------------------------------------------


def test_det_of_a_singular_matrix_has_the_cofactor_gradient(torch: Any) -> None:
    """d det(A) = cofactor(A), also where det(A) = 0 (PyTorch gives zeros there)."""
    a = np.array([[1.0, 2], [2, 4]])
    x = T(chainrule, a, requires_grad=True)
    chainrule.linalg.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[4.0, -2], [-2, 1]], atol=1e-12)
    y = T(torch, a, requires_grad=True)
    torch.linalg.det(y).backward()
    assert not y.grad.numpy().any(), "torch now gives the cofactor: drop this difference"


def test_singular_slogdet_gradient_is_infinite_as_in_torch(torch: Any) -> None:
    grads = []
    for lib in (chainrule, torch):
        x = T(lib, [[2.0, 0], [0, 0]], requires_grad=True)
        lib.linalg.slogdet(x).logabsdet.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_slogdet_sign_alone_gives_zero_gradient(torch: Any) -> None:
    """A deliberate difference: torch leaves .grad None; a rule cannot tell it from zero."""
    x = T(chainrule, A3, requires_grad=True)
    chainrule.linalg.slogdet(x).sign.backward()
    assert not x.grad.numpy().any()
    y = T(torch, A3, requires_grad=True)
    torch.linalg.slogdet(y).sign.backward()
    assert y.grad is None


def test_eigh_matrix_function_gradients_match_torch(torch: Any) -> None:
    """A gauge-invariant loss through eigenvalues and eigenvectors: V exp(L) V^T."""
    s = A3 + A3.T
    grads = []
    for lib in (chainrule, torch):
        x = T(lib, s, requires_grad=True)
        w, v = lib.linalg.eigh(x)
        ((v * w.exp().unsqueeze(-2)) @ v.mT * T(lib, A3)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-10)

    def f(a: Any) -> Any:
        w, v = chainrule.linalg.eigh(a + a.mT)
        return (v * w.exp().unsqueeze(-2)) @ v.mT

    assert gradgradcheck(f, [T(chainrule, A3, requires_grad=True)])


def test_third_derivatives() -> None:
    """Rules written in chainrule ops differentiate again: matrix_exp and inv, three times."""
    for f in (chainrule.linalg.matrix_exp, chainrule.linalg.inv):

        def second(a: Any, f: Any = f) -> Any:
            (g,) = grad(
                (f(a + 3 * chainrule.eye(3, dtype=a.dtype)) ** 2).sum(), a, create_graph=True
            )
            return g

        x = T(chainrule, A3 / 3, requires_grad=True)
        assert gradgradcheck(second, [x])


def test_matrix_power_zero_is_the_identity_with_zero_gradient(torch: Any) -> None:
    for lib in (chainrule, torch):
        x = T(lib, np.ones((2, 3, 3)), requires_grad=True)
        y = lib.matrix_power(x, 0)
        assert y.grad_fn.name() == "torch::autograd::CopyBackwards"
        y.sum().backward()
        np.testing.assert_array_equal(y.detach().numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
        assert not x.grad.numpy().any()


def test_norm_of_zeros_has_zero_gradient(torch: Any) -> None:
    for ord in (2, 1, 3, 0.5, math.inf):
        grads = []
        for lib in (chainrule, torch):
            x = T(lib, np.zeros(3), requires_grad=True)
            lib.linalg.vector_norm(x, ord).backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])


def test_fast_paths_without_grad_match_the_graph_paths() -> None:
    a = T(chainrule, A3 + A3.T)
    b = T(chainrule, A3 + A3.T, requires_grad=True)
    for f in (chainrule.linalg.eigvalsh, chainrule.linalg.svdvals):
        assert f(a).grad_fn is None
        np.testing.assert_allclose(f(a).numpy(), f(b).detach().numpy(), atol=1e-12)


# --- deprecation warnings, as torch gives them -------------------------------------------------


def test_cross_without_dim_warns() -> None:
    a = T(chainrule, np.ones((3, 2)))
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg"):
        out = chainrule.cross(a, a)
    assert tuple(out.shape) == (3, 2)


def test_legacy_cholesky_and_qr_warn_once() -> None:
    from chainrule._ops.linalg import decompositions

    decompositions._warned.clear()
    a = T(chainrule, np.eye(2))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        chainrule.cholesky(a)
        chainrule.cholesky(a)
        chainrule.qr(a)
    texts = [str(w.message) for w in seen]
    assert len(texts) == 2
    assert texts[0].startswith("torch.cholesky is deprecated in favor of torch.linalg.cholesky")
    assert texts[1].startswith("torch.qr is deprecated in favor of torch.linalg.qr")


# --- the public surface ------------------------------------------------------------------------

FAMILY = (
    "inner",
    "vdot",
    "kron",
    "einsum",
    "tensordot",
    "addmm",
    "addmv",
    "baddbmm",
    "addbmm",
    "cross",
    "cdist",
    "matrix_power",
    "det",
    "inverse",
    "logdet",
    "slogdet",
    "cholesky",
    "qr",
    "svd",
    "pinverse",
    "matrix_exp",
)


def test_functions_and_methods_are_where_torch_has_them(torch: Any) -> None:
    for name in FAMILY:
        assert hasattr(chainrule, name) == hasattr(torch, name), name
        assert hasattr(chainrule.Tensor, name) == hasattr(torch.Tensor, name), name
    mine = set(chainrule.linalg.__all__)
    assert mine <= set(dir(torch.linalg))


# --- einsum on drawn equations -----------------------------------------------------------------


@st.composite
def einsum_cases(draw: st.DrawFn) -> tuple[str, list[np.ndarray]]:
    """An equation over letters a-d (repeats, broadcast size-1 dims), and matching operands."""
    sizes = {c: draw(st.integers(1, 3)) for c in "abcd"}
    terms = draw(st.lists(st.lists(st.sampled_from("abcd"), max_size=3), min_size=1, max_size=3))
    used = sorted({c for t in terms for c in t})
    out = draw(st.permutations(used)) if used else []
    out = out[: draw(st.integers(0, len(out)))]
    operands = []
    for t in terms:
        shape = []
        for c in t:  # a label may be 1 in one operand (broadcast), never within one
            shape.append(
                1 if draw(st.booleans()) and c not in shape and t.count(c) == 1 else sizes[c]
            )
        values = st.floats(-2, 2, allow_nan=False)
        operands.append(draw(hnp.arrays(np.float64, tuple(shape), elements=values)))
    return ",".join("".join(t) for t in terms) + "->" + "".join(out), operands


@given(case=einsum_cases())
def test_drawn_einsum_against_numpy(case: tuple[str, list[np.ndarray]]) -> None:
    equation, arrays = case
    ts = [T(chainrule, a, requires_grad=True) for a in arrays]
    out = chainrule.einsum(equation, *ts)
    np.testing.assert_allclose(out.detach().numpy(), np.einsum(equation, *arrays), atol=1e-12)
    assert gradcheck(lambda *xs: chainrule.einsum(equation, *xs), ts)


@given(case=einsum_cases())
def test_drawn_einsum_gradients_against_torch(
    torch: Any, case: tuple[str, list[np.ndarray]]
) -> None:
    equation, arrays = case
    grads = []
    for lib in (chainrule, torch):
        ts = [T(lib, a, requires_grad=True) for a in arrays]
        out = lib.einsum(equation, *ts)
        out.backward(T(lib, np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))))
        grads.append([t.grad.numpy() for t in ts])
    for mine, theirs in zip(*grads, strict=True):
        np.testing.assert_allclose(mine, theirs, atol=1e-10)


def test_values_alone_are_differentiable_at_repeated_eigenvalues(torch: Any) -> None:
    """Eigenvalues and singular values alone have finite gradients where they repeat."""
    cases = {
        "eigvalsh": lambda L, x: L.linalg.eigvalsh(x),
        "eigh values": lambda L, x: L.linalg.eigh(x).eigenvalues,
        "svdvals": lambda L, x: L.linalg.svdvals(x),
        "svd S": lambda L, x: L.linalg.svd(x).S,
        "nuclear norm": lambda L, x: L.linalg.matrix_norm(x, "nuc"),
        "spectral norm": lambda L, x: L.linalg.matrix_norm(x, 2),
    }
    for name, f in cases.items():
        grads = []
        for lib in (chainrule, torch):
            x = T(lib, 2 * np.eye(3), requires_grad=True)
            out = f(lib, x)
            out.backward(T(lib, np.linspace(1, 2, out.numel()).reshape(tuple(out.shape))))
            grads.append(x.grad.numpy())
        assert np.isfinite(grads[0]).all(), name
        np.testing.assert_allclose(grads[0], grads[1], atol=1e-12, err_msg=name)


def test_named_tuples_pickle() -> None:
    import pickle

    r = chainrule.linalg.qr(T(chainrule, A3))
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and type(r).__module__ == "chainrule.return_types"
    np.testing.assert_array_equal(back.R.numpy(), r.R.numpy())
