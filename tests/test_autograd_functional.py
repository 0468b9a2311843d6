"""`chainrule.autograd.functional`: analytic results, then comparisons with PyTorch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import functional as F

A = np.array([[1.0, -2.0, 0.5], [0.3, 4.0, -1.0]])
S = np.array([[2.0, 1.0, -0.5], [0.0, 3.0, 1.5], [1.0, -2.0, 0.7]])
X = np.array([0.3, -1.2, 0.7])
Y = np.array([1.1, 0.4, -0.6])


def t(a: Any, lib: Any = chainrule) -> Any:
    return lib.tensor(np.asarray(a, dtype=np.float64).tolist(), dtype=lib.float64)


def npy(x: Any) -> Any:
    """Nested tuples of tensors to nested tuples of arrays."""
    if isinstance(x, tuple | list):
        return type(x)(npy(e) for e in x)
    return x.detach().numpy()


def assert_close(a: Any, b: Any) -> None:
    if isinstance(a, tuple | list):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_close(x, y)
    else:
        assert not isinstance(b, tuple | list)
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# --- analytic results (no torch needed) ---


def test_jacobian_of_linear_map_is_the_matrix() -> None:
    a = t(A)
    for strategy, vec in (("reverse-mode", False), ("forward-mode", True)):
        jac = F.jacobian(lambda x: a @ x, t(X), strategy=strategy, vectorize=vec)
        assert isinstance(jac, chainrule.Tensor) and not jac.requires_grad
        np.testing.assert_allclose(jac.numpy(), A)


def test_hessian_of_quadratic_form() -> None:
    s = t(S)
    h = F.hessian(lambda x: x @ s @ x, t(X))
    np.testing.assert_allclose(h.numpy(), S + S.T)
    h = F.hessian(lambda x: x @ s @ x, t(X), vectorize=True, outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(h.numpy(), S + S.T)


def _tanh_loss_and_hessian(w: Any, x: Any) -> tuple[Any, Any]:
    """f(x) = sum(tanh(Wx)^2): gradient W^T (2 t (1 - t^2)), Hessian W^T diag(d) W."""
    th = np.tanh(w @ x)
    d = 2 * (1 - th**2) ** 2 - 4 * th**2 * (1 - th**2)
    return (th**2).sum(), w.T @ np.diag(d) @ w


def test_hvp_vhp_of_tanh_loss() -> None:
    w, v = t(A), t(Y)
    val, hess = _tanh_loss_and_hessian(A, X)
    for fn in (F.hvp, F.vhp):
        out, prod = fn(lambda x: (chainrule.tanh(w @ x) ** 2).sum(), t(X), v)
        np.testing.assert_allclose(out.item(), val)
        np.testing.assert_allclose(prod.numpy(), hess @ Y, rtol=1e-12)


def test_vjp_jvp_of_linear_map() -> None:
    a = t(A)
    out, vj = F.vjp(lambda x: a @ x, t(X), t([1.0, -1.0]))
    np.testing.assert_allclose(out.numpy(), A @ X)
    np.testing.assert_allclose(vj.numpy(), A.T @ [1.0, -1.0])
    out, jv = F.jvp(lambda x: a @ x, t(X), t(Y))
    np.testing.assert_allclose(jv.numpy(), A @ Y)


def test_structure_of_several_inputs_and_outputs() -> None:
    x, y = t(X), t(Y)
    jac = F.jacobian(lambda a, b: (a * b, a.sum()), (x, y))
    assert isinstance(jac, tuple) and len(jac) == 2 and all(len(r) == 2 for r in jac)
    np.testing.assert_allclose(jac[0][0].numpy(), np.diag(Y))
    np.testing.assert_allclose(jac[0][1].numpy(), np.diag(X))
    np.testing.assert_allclose(jac[1][0].numpy(), np.ones(3))
    np.testing.assert_allclose(jac[1][1].numpy(), np.zeros(3))  # unused: zeros, not None
    assert F.jacobian(lambda a: (a * 2,), x)[0].shape == (3, 3)
    assert F.jacobian(lambda a, b: a * 2, (x, y))[1].shape == (3, 3)
    h = F.hessian(lambda a, b: (a * a * b).sum(), (x, y))
    np.testing.assert_allclose(h[0][1].numpy(), np.diag(2 * X))
    np.testing.assert_allclose(h[1][1].numpy(), np.zeros((3, 3)))


def test_create_graph_allows_a_further_backward() -> None:
    x = t(X).requires_grad_()
    jac = F.jacobian(lambda a: a**3, x, create_graph=True)
    assert jac.requires_grad
    jac.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X)
    _, g = F.vjp(lambda a: (a**3).sum(), x)
    assert not g.requires_grad and g.grad_fn is None


def test_errors() -> None:
    x = t(X)
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        F.vjp(lambda a: a * 2, x)
    with pytest.raises(TypeError, match="value at index 0 has type <class 'int'>"):
        F.jvp(lambda a: a, (3,), (x,))
    with pytest.raises(RuntimeError, match="v has invalid size"):
        F.jvp(lambda a: a, x, t([1.0]))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.vjp(lambda a, b: a.sum(), (x, t(Y)), strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not"):
        F.hvp(lambda a: chainrule.tensor(1.0), x, x, strict=True)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.jacobian(lambda a: a, x, strategy="forward-mode")
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        F.hessian(lambda a: (a.sum(),), x)


# --- comparisons with PyTorch ---

FUNCS: list[tuple[str, Callable[..., Any], int, bool]] = [
    # name, function (given the library), number of inputs, scalar output
    ("exp_sum", lambda L: lambda a: (a.exp() * a).sum(), 1, True),
    ("tanh_mat", lambda L: lambda a: L.tanh(t(A, L) @ a) ** 2, 1, False),
    ("two_in", lambda L: lambda a, b: (a * b.sin()).sum() + (a**3).sum(), 2, True),
    ("two_out", lambda L: lambda a, b: (a * b, (a**2).sum() * b), 2, False),
    ("unused", lambda L: lambda a, b: (a.cos() * a).sum(), 2, True),
]


def _args(lib: Any, n: int) -> Any:
    return t(X, lib) if n == 1 else (t(X, lib), t(Y, lib))


def _vec(lib: Any, n: int, seed: int = 0) -> Any:
    return t(Y[::-1], lib) if n == 1 else (t(Y[::-1], lib), t(X * 0.5, lib))


def _out_v(lib: Any, fn: Any, n: int) -> Any:
    out = fn(*((_args(lib, n),) if n == 1 else _args(lib, n)))
    if isinstance(out, tuple):
        return tuple(lib.ones_like(o) * 0.7 for o in out)
    return lib.ones_like(out) * 0.7


def _both(run: Callable[[Any], Any]) -> tuple[Any, Any]:
    torch = pytest.importorskip("torch")
    return run(chainrule), run(torch)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize(("name", "make", "n", "scalar"), FUNCS, ids=[f[0] for f in FUNCS])
def test_vs_torch(name: str, make: Any, n: int, scalar: bool, create_graph: bool) -> None:
    def run(lib: Any) -> dict[str, Any]:
        fn = make(lib)
        fs = lib.autograd.functional
        res = {
            "vjp": fs.vjp(fn, _args(lib, n), _out_v(lib, fn, n), create_graph=create_graph),
            "jvp": fs.jvp(fn, _args(lib, n), _vec(lib, n), create_graph=create_graph),
            "jac": fs.jacobian(fn, _args(lib, n), create_graph=create_graph),
        }
        if not create_graph:
            res["jac_fwd"] = fs.jacobian(fn, _args(lib, n), vectorize=True, strategy="forward-mode")
        if scalar:
            res["hess"] = fs.hessian(fn, _args(lib, n), create_graph=create_graph)
            res["vhp"] = fs.vhp(fn, _args(lib, n), _vec(lib, n), create_graph=create_graph)
            res["hvp"] = fs.hvp(fn, _args(lib, n), _vec(lib, n), create_graph=create_graph)
        return res

    mine, theirs = _both(run)
    assert mine.keys() == theirs.keys()
    for key in mine:
        assert_close(npy(mine[key]), npy(theirs[key]))


@pytest.mark.parametrize("fn_name", ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"])
def test_create_graph_then_backward_vs_torch(fn_name: str) -> None:
    def run(lib: Any) -> Any:
        x = t(X, lib).requires_grad_()
        y = t(Y, lib).requires_grad_()
        f = getattr(lib.autograd.functional, fn_name)
        fn = lambda a, b: (a.sin() * b * b).sum()  # noqa: E731
        if fn_name in ("jacobian", "hessian"):
            res = f(fn, (x, y), create_graph=True)
        elif fn_name == "vjp":
            res = f(fn, (x, y), None, create_graph=True)[1]
        else:
            res = f(fn, (x, y), (t(Y, lib), t(X, lib)), create_graph=True)[1]
        flat: list[Any] = []
        stack = [res]
        while stack:
            r = stack.pop()
            if isinstance(r, tuple):
                stack.extend(r)
            elif r.requires_grad:
                flat.append(r)
        total = sum((r**2).sum() for r in flat)
        total.backward()
        return x.grad, y.grad

    mine, theirs = _both(run)
    assert_close(npy(mine), npy(theirs))


def _message(run: Callable[[Any], Any], lib: Any) -> tuple[str, str]:
    try:
        run(lib)
    except Exception as e:
        return type(e).__name__, str(e).replace("chainrule.", "torch.")
    return "no error", ""


ERROR_CASES: list[tuple[str, Callable[[Any], Any]]] = [
    ("vjp_no_v", lambda L: L.autograd.functional.vjp(lambda a: a * 2, t(X, L))),
    ("vjp_list", lambda L: L.autograd.functional.vjp(lambda a: a, [t(X, L)])),
    ("vjp_out_int", lambda L: L.autograd.functional.vjp(lambda a: (a, 3), t(X, L))),
    (
        "vjp_v_len",
        lambda L: L.autograd.functional.vjp(lambda a: a, t(X, L), (t(X, L), t(X, L))),
    ),
    ("vjp_v_size", lambda L: L.autograd.functional.vjp(lambda a: a, t(X, L), t([1.0], L))),
    (
        "vjp_strict_const",
        lambda L: L.autograd.functional.vjp(lambda a: L.ones(3), t(X, L), t(X, L), strict=True),
    ),
    (
        "vjp_strict_unused",
        lambda L: L.autograd.functional.vjp(
            lambda a, b: a * 2, (t(X, L), t(Y, L)), t(X, L), strict=True
        ),
    ),
    (
        "vjp_strict_cg",
        lambda L: L.autograd.functional.vjp(
            lambda a: a * 2, t(X, L), t(X, L), strict=True, create_graph=True
        ),
    ),
    ("jvp_no_v", lambda L: L.autograd.functional.jvp(lambda a: a * 2, t(X, L))),
    (
        "jvp_v_len",
        lambda L: L.autograd.functional.jvp(lambda a, b: a, (t(X, L), t(Y, L)), t(X, L)),
    ),
    (
        "jvp_strict_cg",
        lambda L: L.autograd.functional.jvp(
            lambda a: a * 2, t(X, L), t(X, L), strict=True, create_graph=True
        ),
    ),
    (
        "jac_strict_unused",
        lambda L: L.autograd.functional.jacobian(
            lambda a, b: (a * b, a.sum()), (t(X, L), t(Y, L)), strict=True
        ),
    ),
    (
        "jac_strict_cg",
        lambda L: L.autograd.functional.jacobian(
            lambda a: (a * a, a.sum()), t(X, L), strict=True, create_graph=True
        ),
    ),
    (
        "jac_strategy",
        lambda L: L.autograd.functional.jacobian(lambda a: a, t(X, L), strategy="bad"),
    ),
    (
        "jac_fwd_cg",
        lambda L: L.autograd.functional.jacobian(
            lambda a: a, t(X, L), strategy="forward-mode", create_graph=True
        ),
    ),
    (
        "jac_fwd_strict",
        lambda L: L.autograd.functional.jacobian(
            lambda a: a, t(X, L), strategy="forward-mode", strict=True
        ),
    ),
    (
        "jac_vec_strict",
        lambda L: L.autograd.functional.jacobian(
            lambda a: a * 2, t(X, L), strict=True, vectorize=True
        ),
    ),
    ("hess_vector", lambda L: L.autograd.functional.hessian(lambda a: a * 2, t(X, L))),
    (
        "hess_linear_strict",
        lambda L: L.autograd.functional.hessian(lambda a: a.sum(), t(X, L), strict=True),
    ),
    (
        "hess_unused_strict",
        lambda L: L.autograd.functional.hessian(
            lambda a, b: (a**2).sum(), (t(X, L), t(Y, L)), strict=True
        ),
    ),
    (
        "hess_fwd_novec",
        lambda L: L.autograd.functional.hessian(
            lambda a: (a**3).sum(), t(X, L), outer_jacobian_strategy="forward-mode"
        ),
    ),
    ("vhp_vector", lambda L: L.autograd.functional.vhp(lambda a: a**3, t(X, L), t(X, L))),
    ("hvp_tuple", lambda L: L.autograd.functional.hvp(lambda a: (a.sum(),), t(X, L), t(X, L))),
    (
        "vhp_linear_strict",
        lambda L: L.autograd.functional.vhp(lambda a: a.sum(), t(X, L), t(X, L), strict=True),
    ),
    (
        "hvp_cg_strict",
        lambda L: L.autograd.functional.hvp(
            lambda a, b: (a * b).sum() + (a**3).sum(),
            (t(X, L), t(Y, L)),
            (t(X, L), t(Y, L)),
            strict=True,
            create_graph=True,
        ),
    ),
    (
        "vhp_cg_strict",
        lambda L: L.autograd.functional.vhp(
            lambda a, b: (a * b).sum() + (a**3).sum(),
            (t(X, L), t(Y, L)),
            (t(X, L), t(Y, L)),
            strict=True,
            create_graph=True,
        ),
    ),
]


@pytest.mark.parametrize(("name", "run"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_vs_torch(name: str, run: Callable[[Any], Any]) -> None:
    torch = pytest.importorskip("torch")
    assert _message(run, chainrule) == _message(run, torch)


def test_printing_vs_torch() -> None:
    def run(lib: Any) -> str:
        fs = lib.autograd.functional
        x, y = t(X, lib).float(), t(Y, lib).float()
        parts = [
            fs.jacobian(lambda a, b: (a * b, a.sum()), (x, y)),
            fs.hessian(lambda a: (a**3).sum(), x),
            fs.vjp(lambda a: a.sum(), x),
            fs.hvp(lambda a, b: (a**2 * b).sum(), (x, y), (y, x)),
        ]
        return "\n".join(repr(p) for p in parts)

    mine, theirs = _both(run)
    assert mine == theirs
