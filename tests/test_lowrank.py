"""svd_lowrank and pca_lowrank beyond the op table: with one seed they draw PyTorch's random
matrix, so their results equal PyTorch's up to the signs of singular vector pairs; without
PyTorch, the invariants of an SVD and exact recovery of low-rank matrices; their errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule


def T(lib: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    return lib.tensor(np.asarray(a).astype(dtype), requires_grad=requires_grad)


def low_rank(shape: tuple[int, ...], rank: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    *batch, m, n = shape
    return rng.standard_normal((*batch, m, rank)) @ rng.standard_normal((*batch, rank, n))


def signs_aligned(mine: Any, theirs: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each column of `mine` flipped to agree in sign with `theirs` (largest entry)."""
    a, b = mine.detach().numpy(), theirs.detach().numpy()
    idx = np.argmax(np.abs(b), axis=-2, keepdims=True)
    flip = np.sign(np.take_along_axis(a, idx, -2) * np.take_along_axis(b, idx, -2))
    return a * flip, b


CALLS = {
    "svd tall": lambda L, a: L.svd_lowrank(a, q=3),
    "svd wide": lambda L, a: L.svd_lowrank(a.mT, q=2),
    "svd batched": lambda L, a: L.svd_lowrank(a.reshape(2, 4, 3), q=2, niter=0),
    "svd mean": lambda L, a: L.svd_lowrank(a, q=2, M=a.mean(0, keepdim=True)),
    "pca": lambda L, a: L.pca_lowrank(a),
    "pca uncentered": lambda L, a: L.pca_lowrank(a, q=2, center=False, niter=4),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_match_torch_up_to_signs(torch: Any, name: str, dtype: str) -> None:
    a = np.random.default_rng(1).standard_normal((8, 3))
    results = []
    for lib in (torch, chainrule):
        lib.manual_seed(11)
        results.append(CALLS[name](lib, T(lib, a, dtype)))
    (tu, ts, tv), (mu, ms, mv) = results
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(ms.numpy(), ts.numpy(), rtol=tol, atol=tol)
    for mine, theirs in ((mu, tu), (mv, tv)):
        assert mine.shape == theirs.shape and mine.stride() == theirs.stride()
        np.testing.assert_allclose(*signs_aligned(mine, theirs), rtol=tol, atol=tol)
    for mine, theirs in zip((mu, ms, mv), (tu, ts, tv), strict=True):
        assert mine.dtype.is_floating_point and str(mine.dtype)[9:] == str(theirs.dtype)[5:]


def test_gradients_match_torch(torch: Any) -> None:
    a = np.random.default_rng(2).standard_normal((5, 3))
    w = np.random.default_rng(3).standard_normal((5, 3))
    grads = []
    for lib in (torch, chainrule):
        lib.manual_seed(0)
        x = T(lib, a, requires_grad=True)
        u, s, v = lib.svd_lowrank(x, q=3)
        loss = ((u * s.unsqueeze(-2)) @ v.mT * T(lib, w)).sum() + s.sum()
        grads.append(lib.autograd.grad(loss, x)[0].numpy())
    np.testing.assert_allclose(grads[1], grads[0], atol=1e-10)


@pytest.mark.parametrize("shape", [(7, 5), (5, 7), (2, 6, 4)])
def test_low_rank_matrices_are_recovered(shape: tuple[int, ...]) -> None:
    a = low_rank(shape, rank=2)
    chainrule.manual_seed(0)
    u, s, v = chainrule.svd_lowrank(T(chainrule, a), q=3)
    np.testing.assert_allclose(((u * s.unsqueeze(-2)) @ v.mT).numpy(), a, atol=1e-10)
    np.testing.assert_allclose(s.numpy()[..., :2], np.linalg.svd(a)[1][..., :2], rtol=1e-10)
    eye = np.eye(3)
    np.testing.assert_allclose(
        (u.mT @ u).numpy(), np.broadcast_to(eye, (*u.shape[:-2], 3, 3)), atol=1e-10
    )
    assert list(s.shape) == [*shape[:-2], 3]
    assert np.all(np.diff(s.numpy(), axis=-1) <= 1e-12)  # descending


def test_pca_finds_the_principal_directions() -> None:
    rng = np.random.default_rng(4)
    direction = np.array([3.0, 4.0]) / 5
    data = rng.standard_normal((200, 1)) * 10 * direction + rng.standard_normal((200, 2)) * 0.01 + 7
    chainrule.manual_seed(0)
    _, s, v = chainrule.pca_lowrank(T(chainrule, data), q=1)
    assert abs(abs(float((v[:, 0] * T(chainrule, direction)).sum())) - 1) < 1e-5
    centered = data - data.mean(0)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centered)[1][:1], rtol=1e-10)


def test_a_seed_repeats_the_result() -> None:
    a = T(chainrule, np.random.default_rng(5).standard_normal((6, 6)))
    chainrule.manual_seed(3)
    first = chainrule.svd_lowrank(a, q=2, niter=0)
    chainrule.manual_seed(3)
    again = chainrule.svd_lowrank(a, q=2, niter=0)
    for x, y in zip(first, again, strict=True):
        assert np.array_equal(x.numpy(), y.numpy())


ERRORS = {
    "pca q too large": (
        lambda L: L.pca_lowrank(L.ones(3, 4), q=5),
        ValueError,
        "q(=5) must be non-negative integer and not greater than min(m, n)=3",
    ),
    "pca q negative": (
        lambda L: L.pca_lowrank(L.ones(3, 4), q=-1),
        ValueError,
        "q(=-1) must be non-negative integer and not greater than min(m, n)=3",
    ),
    "pca niter": (
        lambda L: L.pca_lowrank(L.ones(3, 4), niter=-1),
        ValueError,
        "niter(=-1) must be non-negative integer",
    ),
    "svd of integers": (  # the random matrix is float32; the product refuses the mix
        lambda L: L.svd_lowrank(L.ones(3, 3, dtype=L.int64)),
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: long int != float",
    ),
    "svd 1-d": (
        lambda L: L.svd_lowrank(L.ones(3)),
        ValueError,
        "not enough values to unpack (expected 2, got 1)",
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_is_the_recorded_one(name: str) -> None:
    make, kind, message = ERRORS[name]
    with pytest.raises(kind) as info:
        make(chainrule)
    assert str(info.value) == message


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(torch: Any, name: str) -> None:
    make, kind, _ = ERRORS[name]
    with pytest.raises(kind) as theirs:
        make(torch)
    with pytest.raises(kind) as mine:
        make(chainrule)
    assert str(mine.value) == str(theirs.value)
