"""ldl_factor(_ex) and ldl_solve: Bunch-Kaufman pivots as LAPACK's sytrf chooses them (drawn
matrices, compared with PyTorch; recorded factorizations without it), solves, errors, and
the missing derivative PyTorch reports."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule


def T(lib: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    return lib.tensor(np.asarray(a).astype(dtype), requires_grad=requires_grad)


def rebuilt(ld: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    """A from its lower LDLᵀ factors: undo each step's interchange and block, last first."""
    n = ld.shape[0]
    steps, k = [], 0
    while k < n:
        size = 1 if pivots[k] > 0 else 2
        steps.append((k, size, abs(int(pivots[k])) - 1))
        k += size
    low, d = np.eye(n), np.zeros((n, n))
    for k, size, _ in steps:
        d[k : k + size, k : k + size] = ld[k : k + size, k : k + size]
        low[k + size :, k : k + size] = ld[k + size :, k : k + size]
    d = np.tril(d) + np.tril(d, -1).T
    a = d
    for k, size, kp in reversed(steps):
        block = np.eye(n)
        block[k + size :, k : k + size] = low[k + size :, k : k + size]
        a = block @ a @ block.T
        swap = np.arange(n)
        kk = k + size - 1
        swap[[kk, kp]] = swap[[kp, kk]]
        a = a[swap][:, swap]
    return a


SYMMETRIC = {
    "zero diagonal": [[0.0, 1, 2], [1, 0, 3], [2, 3, 0]],
    "positive definite": [[4.0, 2, -2], [2, 5, 1], [-2, 1, 6]],
    "indefinite": [[1.0, 3, 0, 2], [3, -1, 1, 0], [0, 1, 2, 5], [2, 0, 5, -3]],
    "1x1": [[-2.0]],
}
# (pivots, LD) as PyTorch gives them
RECORDED = {
    "zero diagonal": ([-3, -3, 3], [[0.0, 0, 0], [2, 0, 0], [1.5, 0.5, -3]]),
    "positive definite": ([1, 2, 3], [[4.0, 0, 0], [0.5, 4, 0], [-0.5, 0.5, 4]]),
}


@pytest.mark.parametrize("name", list(RECORDED))
def test_factorization_is_the_recorded_one(name: str) -> None:
    pivots, ld = RECORDED[name]
    result = chainrule.linalg.ldl_factor(T(chainrule, SYMMETRIC[name]))
    assert result.pivots.tolist() == pivots
    np.testing.assert_allclose(result.LD.numpy(), ld, atol=1e-12)


@pytest.mark.parametrize("name", list(SYMMETRIC))
def test_factors_rebuild_the_matrix_and_solve_with_it(name: str) -> None:
    a = np.array(SYMMETRIC[name])
    ld, pivots = chainrule.linalg.ldl_factor(T(chainrule, a))
    np.testing.assert_allclose(rebuilt(ld.numpy(), pivots.numpy()), a, atol=1e-12)
    b = np.arange(2.0 * len(a)).reshape(len(a), 2) - 1
    x = chainrule.linalg.ldl_solve(ld, pivots, T(chainrule, b))
    np.testing.assert_allclose(a @ x.numpy(), b, atol=1e-10)
    assert x.stride() == (1, len(a))  # by columns, as LAPACK leaves it


def test_only_the_lower_triangle_is_read() -> None:
    a = np.array(SYMMETRIC["indefinite"])
    noisy = np.tril(a) + np.triu(np.full_like(a, 9.0), 1)
    mine = chainrule.linalg.ldl_factor(T(chainrule, noisy))
    assert np.array_equal(mine.LD.numpy(), chainrule.linalg.ldl_factor(T(chainrule, a)).LD.numpy())


symmetric = st.tuples(st.integers(0, 2), st.integers(1, 6)).flatmap(
    lambda s: hnp.arrays(
        np.float64,
        (s[0], s[1], s[1]) if s[0] else (s[1], s[1]),
        elements=st.integers(-2, 2).map(float) | st.floats(-4, 4, width=32),
    ).map(lambda a: a + np.swapaxes(a, -1, -2))
)


@given(symmetric, st.sampled_from(["float64", "float32"]))
def test_drawn_factorizations_match_torch(torch: Any, a: np.ndarray, dtype: str) -> None:
    mine = chainrule.linalg.ldl_factor_ex(T(chainrule, a, dtype))
    theirs = torch.linalg.ldl_factor_ex(T(torch, a, dtype))
    assert mine.pivots.tolist() == theirs.pivots.tolist()
    assert mine.info.tolist() == theirs.info.tolist()
    assert mine.LD.stride() == theirs.LD.stride()
    if not theirs.info.any():
        tol = 1e-3 if dtype == "float32" else 1e-9
        np.testing.assert_allclose(mine.LD.numpy(), theirs.LD.numpy(), rtol=tol, atol=tol)


@given(symmetric)
def test_drawn_factorizations_rebuild_the_matrix(a: np.ndarray) -> None:
    result = chainrule.linalg.ldl_factor_ex(T(chainrule, a))
    for index in np.ndindex(*a.shape[:-2]):
        if result.info[index].item() == 0:
            ld, pivots = result.LD.numpy()[index], result.pivots.numpy()[index]
            np.testing.assert_allclose(
                rebuilt(ld, pivots), a[index], atol=1e-6 * (1 + abs(a).max())
            )


def test_singular_matrices_report_info() -> None:
    a = T(chainrule, [np.zeros((2, 2)), [[1.0, 0], [0, 0]], np.eye(2)])
    assert chainrule.linalg.ldl_factor_ex(a).info.tolist() == [1, 2, 0]


def test_batched_solve_broadcasts_b() -> None:
    a = np.array([SYMMETRIC["positive definite"], SYMMETRIC["zero diagonal"]])
    ld, pivots = chainrule.linalg.ldl_factor(T(chainrule, a))
    b = np.arange(6.0).reshape(3, 2)
    x = chainrule.linalg.ldl_solve(ld, pivots, T(chainrule, b))
    np.testing.assert_allclose(np.linalg.solve(a, b), x.numpy(), atol=1e-12)
    assert x.shape == (2, 3, 2) and x.stride() == (6, 1, 3)


def test_backward_raises_as_in_torch() -> None:
    a = T(chainrule, SYMMETRIC["positive definite"], requires_grad=True)
    ld, pivots = chainrule.linalg.ldl_factor(a)
    assert ld.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        ld.sum().backward()
    b = T(chainrule, np.ones((3, 1)), requires_grad=True)
    x = chainrule.linalg.ldl_solve(ld.detach(), pivots, b)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        x.sum().backward()


A3 = np.array(SYMMETRIC["positive definite"])

ERRORS: dict[str, tuple[Callable[[Any], Any], str, str]] = {
    "factor 1-d": (
        lambda L: L.linalg.ldl_factor(T(L, [1.0, 2])),
        "RuntimeError",
        "torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 dimensions.",
    ),
    "factor not square": (
        lambda L: L.linalg.ldl_factor(T(L, np.ones((3, 2)))),
        "RuntimeError",
        "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 3 by 2 "
        "matrices",
    ),
    "factor int": (
        lambda L: L.linalg.ldl_factor(T(L, A3, "int64")),
        "RuntimeError",
        "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. "
        "Got Long",
    ),
    "factor half": (
        lambda L: L.linalg.ldl_factor_ex(T(L, A3, "float16")),
        "NotImplementedError",
        "\"ldl_factor_kernel_cpu\" not implemented for 'Half'",
    ),
    "factor singular": (
        lambda L: L.linalg.ldl_factor(T(L, np.zeros((2, 3, 3)))),
        "RuntimeError",
        'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
        'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
        "torch.linalg.ldl_factor: Unknown error code: 1.",
    ),
    "solve LD 1-d": (
        lambda L: L.linalg.ldl_solve(T(L, [1.0]), T(L, [1], "int32"), T(L, np.ones((1, 1)))),
        "RuntimeError",
        "torch.linalg.ldl_solve: The input tensor A must have at least 2 dimensions.",
    ),
    "solve pivots shape": (
        lambda L: L.linalg.ldl_solve(T(L, A3), T(L, [1, 2], "int32"), T(L, np.ones((3, 1)))),
        "RuntimeError",
        "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but "
        "got pivots with shape [2] instead",
    ),
    "solve pivots float": (
        lambda L: L.linalg.ldl_solve(T(L, A3), T(L, [1, 2, 3]), T(L, np.ones((3, 1)))),
        "RuntimeError",
        "torch.linalg.ldl_solve: Expected pivots to be integers. Got Double",
    ),
    "solve int": (
        lambda L: L.linalg.ldl_solve(
            T(L, A3, "int64"), T(L, [1, 2, 3], "int32"), T(L, np.ones((3, 1)), "int64")
        ),
        "RuntimeError",
        "torch.linalg.ldl_solve: Expected a floating point or complex tensor as input. Got Long",
    ),
    "solve B 1-d": (
        lambda L: L.linalg.ldl_solve(T(L, A3), T(L, [1, 2, 3], "int32"), T(L, [1.0, 2, 3])),
        "IndexError",
        "Dimension out of range (expected to be in range of [-1, 0], but got -2)",
    ),
    "solve dtypes": (
        lambda L: L.linalg.ldl_solve(
            T(L, A3), T(L, [1, 2, 3], "int32"), T(L, np.ones((3, 1)), "float32")
        ),
        "RuntimeError",
        "Expected b and A to have the same dtype, but found b of type Float and A of type "
        "Double instead.",
    ),
    "solve shapes": (
        lambda L: L.linalg.ldl_solve(T(L, A3), T(L, [1, 2, 3], "int32"), T(L, np.ones((4, 2)))),
        "RuntimeError",
        "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 3 by 3 but each "
        "b matrix is 4 by 2",
    ),
    "solve pivot too large": (
        lambda L: L.linalg.ldl_solve(T(L, A3), T(L, [5, 2, 3], "int32"), T(L, np.ones((3, 1)))),
        "RuntimeError",
        "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you properly "
        "pass the result of ldl_factor?",
    ),
}


def _raised(make: Callable[[Any], Any], lib: Any) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            make(lib)
    return info.value


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_is_the_recorded_one(name: str) -> None:
    make, kind, message = ERRORS[name]
    error = _raised(make, chainrule)
    assert type(error).__name__ == kind
    assert str(error).splitlines()[0] == message


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(torch: Any, name: str) -> None:
    make, _, _ = ERRORS[name]
    theirs, mine = _raised(make, torch), _raised(make, chainrule)
    assert type(mine).__name__ == type(theirs).__name__
    assert str(mine).splitlines()[0] == str(theirs).splitlines()[0]
