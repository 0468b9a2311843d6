"""lobpcg: from one seed it takes PyTorch's iteration step for step (values compared with
PyTorch up to eigenvector signs); without PyTorch, its eigenpairs and gradients against
NumPy's eigh and chainrule's own eigh; its settings, tracker and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule


def T(lib: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    return lib.tensor(np.asarray(a).astype(dtype), requires_grad=requires_grad)


def spd(m: int, seed: int = 0, batch: tuple[int, ...] = ()) -> np.ndarray:
    """A positive-definite matrix with well separated extreme eigenvalues."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, m, m))
    return a @ np.swapaxes(a, -1, -2) + np.diag(np.arange(m) * 1.0)


def aligned(x: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """x with each column's sign chosen to agree with reference's."""
    return x * np.sign((x * reference).sum(-2, keepdims=True))


CALLS = {
    "largest": lambda L, a: L.lobpcg(a, k=2),
    "smallest": lambda L, a: L.lobpcg(a, k=3, largest=False),
    "basic": lambda L, a: L.lobpcg(a, k=2, method="basic"),
    "wider block": lambda L, a: L.lobpcg(a, k=2, n=4),
    "few steps": lambda L, a: L.lobpcg(a, k=1, niter=3),
    "generalized": lambda L, a: L.lobpcg(a, k=2, B=a.new_ones(a.shape[-1]).diag_embed() * 2),
    "preconditioned": lambda L, a: L.lobpcg(
        a, k=2, iK=a.new_ones(a.shape[-1]).diag_embed() * 0.5, method="basic"
    ),
    "given start": lambda L, a: L.lobpcg(a, X=a[:, :2] + 1),
    "ortho settings": lambda L, a: L.lobpcg(
        a, k=2, ortho_iparams={"ortho_i_max": 2}, ortho_bparams={"ortho_use_drop": True}
    ),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_match_torch(torch: Any, name: str, dtype: str) -> None:
    a = spd(12)
    results = []
    for lib in (torch, chainrule):
        lib.manual_seed(5)
        results.append(CALLS[name](lib, T(lib, a, dtype)))
    (te, tx), (me, mx) = results
    tol = 1e-3 if dtype == "float32" else 1e-8
    np.testing.assert_allclose(me.numpy(), te.numpy(), rtol=tol)
    np.testing.assert_allclose(aligned(mx.numpy(), tx.numpy()), tx.numpy(), atol=tol)
    assert me.stride() == te.stride() and mx.stride() == tx.stride()


def test_batches_match_torch(torch: Any) -> None:
    a = spd(9, seed=1, batch=(2,))
    results = []
    for lib in (torch, chainrule):
        lib.manual_seed(2)
        results.append(lib.lobpcg(T(lib, a), k=2))
    (te, tx), (me, mx) = results
    np.testing.assert_allclose(me.numpy(), te.numpy(), rtol=1e-8)
    np.testing.assert_allclose(aligned(mx.numpy(), tx.numpy()), tx.numpy(), atol=1e-8)


def test_gradients_match_torch(torch: Any) -> None:
    a = spd(12)
    w = np.random.default_rng(3).standard_normal((12, 2))
    grads = []
    for lib in (torch, chainrule):
        lib.manual_seed(5)
        x = T(lib, a, requires_grad=True)
        e, v = lib.lobpcg(x, k=2)
        assert e.grad_fn.name() == "LOBPCGAutogradFunctionBackward"
        assert type(e.grad_fn.next_functions[0][0]).__name__ == "DivBackward0"
        loss = e.sum() + ((v * v.sum(0).sign()) * T(lib, w)).sum()
        g = lib.autograd.grad(loss, x, create_graph=True)[0]
        grads.append((g.detach().numpy(), lib.autograd.grad((g * g).sum(), x)[0].numpy()))
    for mine, theirs in zip(grads[1], grads[0], strict=True):
        np.testing.assert_allclose(mine, theirs, atol=1e-7)


@pytest.mark.parametrize("largest", [True, False])
def test_eigenpairs_are_numpys(largest: bool) -> None:
    a = spd(15, seed=4)
    chainrule.manual_seed(0)
    e, x = chainrule.lobpcg(T(chainrule, a), k=3, largest=largest)
    values, vectors = np.linalg.eigh(a)
    pick = slice(-1, -4, -1) if largest else slice(0, 3)
    np.testing.assert_allclose(e.numpy(), values[pick], rtol=1e-10)
    np.testing.assert_allclose(aligned(x.numpy(), vectors[:, pick]), vectors[:, pick], atol=1e-6)


def test_gradient_is_that_of_the_eigendecomposition() -> None:
    """The same loss through lobpcg's k eigenpairs and through eigh's: the same gradient."""
    a = spd(12, seed=6)
    w = np.random.default_rng(7).standard_normal((12, 2))

    def loss(values: Any, vectors: Any) -> Any:
        fixed = vectors * vectors.sum(0).sign()  # the loss must not depend on the signs
        return (values * values).sum() + (fixed * T(chainrule, w)).sum()

    chainrule.manual_seed(0)
    x = T(chainrule, a, requires_grad=True)
    mine = chainrule.autograd.grad(loss(*chainrule.lobpcg(x, k=2)), x)[0]
    y = T(chainrule, a, requires_grad=True)
    values, vectors = chainrule.linalg.eigh((y + y.mT) / 2)
    theirs = chainrule.autograd.grad(loss(values.flip(0)[:2], vectors.flip(1)[:, :2]), y)[0]
    # lobpcg's eigenvectors are as accurate as its tolerance (sqrt(eps) in the residual)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


def test_tracker_sees_every_step_and_can_stop_the_run() -> None:
    seen: list[int] = []

    def tracker(worker: Any) -> None:
        seen.append(worker.ivars["istep"])
        if worker.ivars["istep"] == 3:
            worker.bvars["force_stop"] = True

    chainrule.manual_seed(0)
    chainrule.lobpcg(T(chainrule, spd(30)), k=2, tol=1e-300, tracker=tracker)
    assert seen == [1, 2, 3]


ERRORS = {
    "too many pairs": (
        lambda L: L.lobpcg(L.eye(5, dtype=L.float64), k=2),
        ValueError,
        "LOBPCG algorithm is not applicable when the number of A rows (=5) is smaller than 3 x "
        "the number of requested eigenpairs (=2)",
    ),
    "not square": (
        lambda L: L.lobpcg(L.ones(6, 5, dtype=L.float64)),
        AssertionError,
        "A must be square, got shape torch.Size([6, 5])",
    ),
    "start of the wrong shape": (
        lambda L: L.lobpcg(L.eye(9, dtype=L.float64), n=2, X=L.ones(8, 2, dtype=L.float64)),
        AssertionError,
        "X shape mismatch: got torch.Size([8, 2]), expected (9, 2)",
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_is_the_recorded_one(name: str) -> None:
    make, kind, message = ERRORS[name]
    with pytest.raises(kind) as info:
        make(chainrule)
    assert str(info.value) == message.replace("torch.", "chainrule.")


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(torch: Any, name: str) -> None:
    make, kind, _ = ERRORS[name]
    with pytest.raises(kind) as theirs:
        make(torch)
    with pytest.raises(kind) as mine:
        make(chainrule)
    assert str(mine.value) == str(theirs.value).replace("torch.", "chainrule.")


def test_backward_with_b_is_refused_as_in_torch() -> None:
    a = T(chainrule, spd(9), requires_grad=True)
    chainrule.manual_seed(0)
    e, _ = chainrule.lobpcg(a, k=1, B=T(chainrule, np.eye(9) * 2))
    with pytest.raises(
        ValueError, match=r"lobpcg\.backward does not support backward with B \!= I"
    ):
        e.sum().backward()
