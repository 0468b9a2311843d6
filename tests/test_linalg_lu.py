"""The LU family, householder_product, cholesky_solve/inverse and triangular_solve beyond
the op table: LAPACK's pivots (drawn, and on ties), named tuples, info, warnings, the
nodes' names and higher derivatives. Their errors are in test_linalg_lu_errors.py, their
op-table lines in optable_linalg.py."""

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
from chainrule.autograd import gradcheck, gradgradcheck


def T(lib: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    return lib.tensor(np.asarray(a).astype(dtype), requires_grad=requires_grad)


SING = [[1.0, 2, 3], [2, 4, 6], [1, 1, 1]]
RNG = np.random.default_rng(7)
A3 = RNG.standard_normal((3, 3))
V3 = RNG.standard_normal(3)
R23 = RNG.standard_normal((2, 3))


# --- pivots: LAPACK's, drawn and on ties ---------------------------------------------------------

# Ties in magnitude go to the upper row (LAPACK's idamax takes the first largest entry).
TIES = {
    "equal magnitudes": ([[1.0, 2, 0], [-1, 1, 3], [1, 0, 1]], [1, 2, 3]),
    "a later larger entry": ([[1.0, 2], [-3, 1]], [2, 2]),
    "ties after a swap": ([[1.0, 1, 1], [2, 1, 0], [-2, 3, 1]], [2, 3, 3]),
    "a zero column": ([[0.0, 1], [0, 2]], [1, 2]),
    "all equal": ([[1.0, 1, 1], [1, 1, 1], [1, 1, 1]], [1, 2, 3]),
    "wide": ([[1.0, 2, 3], [-1, 0, 1]], [1, 2]),
    "tall": ([[1.0, 2], [3, 4], [-3, 1]], [2, 3]),
}


@pytest.mark.parametrize("name", list(TIES))
def test_pivots_on_ties_are_lapacks(name: str) -> None:
    a, pivots = TIES[name]
    assert chainrule.linalg.lu_factor_ex(T(chainrule, a)).pivots.tolist() == pivots


@pytest.mark.parametrize("name", list(TIES))
def test_pivots_on_ties_match_torch(torch: Any, name: str) -> None:
    a, _ = TIES[name]
    mine = chainrule.linalg.lu_factor_ex(T(chainrule, a))
    theirs = torch.linalg.lu_factor_ex(T(torch, a))
    assert mine.pivots.tolist() == theirs.pivots.tolist()
    assert mine.info.tolist() == theirs.info.tolist()
    np.testing.assert_allclose(mine.LU.numpy(), theirs.LU.numpy(), atol=1e-12)


matrices = st.tuples(st.integers(0, 2), st.integers(1, 5), st.integers(1, 5)).flatmap(
    lambda s: hnp.arrays(
        np.float64,
        (s[0], s[1], s[2]) if s[0] else (s[1], s[2]),
        # small integers make exact ties and zero pivots common
        elements=st.integers(-3, 3).map(float) | st.floats(-4, 4, width=32),
    )
)


@given(matrices)
def test_drawn_factorizations_reconstruct_the_input(a: np.ndarray) -> None:
    p, low, up = chainrule.linalg.lu(T(chainrule, a))
    np.testing.assert_allclose((p @ low @ up).numpy(), a, atol=1e-9)
    assert np.all(np.abs(low.numpy()) <= 1 + 1e-12)  # partial pivoting bounds the multipliers


@given(matrices, st.sampled_from(["float64", "float32"]))
def test_drawn_pivots_match_torch(torch: Any, a: np.ndarray, dtype: str) -> None:
    mine = chainrule.linalg.lu_factor_ex(T(chainrule, a, dtype))
    theirs = torch.linalg.lu_factor_ex(T(torch, a, dtype))
    assert mine.pivots.tolist() == theirs.pivots.tolist()
    assert mine.info.tolist() == theirs.info.tolist()
    # to the last bit: the same steps, in the same order, as PyTorch's LAPACK for small sizes
    np.testing.assert_array_equal(mine.LU.numpy(), theirs.LU.numpy())
    assert mine.LU.stride() == theirs.LU.stride()


# --- named tuples, info and warnings -------------------------------------------------------------

TUPLES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "lu_factor_ex": (
        lambda L: L.linalg.lu_factor_ex(T(L, [[0.0, 1], [0, 2]], "float32")),
        "return_types.linalg_lu_factor_ex(\nLU=tensor([[0., 1.],\n        [0., 2.]]),\n"
        "pivots=tensor([1, 2], dtype=LIB.int32),\ninfo=tensor(1, dtype=LIB.int32))",
    ),
    "lu": (
        lambda L: L.linalg.lu(T(L, [[1.0, 2], [4, 4]], "float32")),
        "return_types.linalg_lu(\nP=tensor([[0., 1.],\n        [1., 0.]]),\n"
        "L=tensor([[1.0000, 0.0000],\n        [0.2500, 1.0000]]),\n"
        "U=tensor([[4., 4.],\n        [0., 1.]]))",
    ),
    "lu_factor": (
        lambda L: L.linalg.lu_factor(T(L, [[1.0, 2], [4, 4]], "float32")),
        "return_types.linalg_lu_factor(\nLU=tensor([[4.0000, 4.0000],\n        [0.2500, 1.0000]]),"
        "\npivots=tensor([2, 2], dtype=LIB.int32))",
    ),
    "lu_unpack without data": (
        lambda L: L.lu_unpack(*L.linalg.lu_factor(T(L, [[1.0, 2], [4, 4]], "float32")), False),
        "return_types.lu_unpack(\nP=tensor([[0., 1.],\n        [1., 0.]]),\nL=tensor([]),\n"
        "U=tensor([]))",
    ),
    "torch.lu with infos": (
        lambda L: L.lu(T(L, [[1.0, 2], [2, 4]], "float32"), get_infos=True),
        "return_types._lu_with_info(\nLU=tensor([[2.0000, 4.0000],\n        [0.5000, 0.0000]]),\n"
        "pivots=tensor([2, 2], dtype=LIB.int32),\ninfo=tensor(2, dtype=LIB.int32))",
    ),
    "triangular_solve": (
        lambda L: L.triangular_solve(
            T(L, [[2.0], [9]], "float32"), T(L, [[2.0, 0], [5, 4]], "float32"), upper=False
        ),
        "return_types.triangular_solve(\nsolution=tensor([[1.],\n        [1.]]),\n"
        "cloned_coefficient=tensor([[2., 0.],\n        [5., 4.]]))",
    ),
}


@pytest.mark.parametrize("name", list(TUPLES))
def test_result_prints_as_recorded(name: str) -> None:
    make, text = TUPLES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(make(chainrule)) == "chainrule." + text.replace("LIB", "chainrule")


@pytest.mark.parametrize("name", list(TUPLES))
def test_result_prints_as_torch(torch: Any, name: str) -> None:
    make, _ = TUPLES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = repr(make(torch))
        mine = repr(make(chainrule))
    assert mine == theirs.replace("torch.", "chainrule.")


def test_legacy_lu_returns_plain_tuples() -> None:
    a = T(chainrule, A3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for result, size in ((chainrule.lu(a), 2), (a.lu(), 2), (a.lu(get_infos=True), 3)):
            assert type(result) is tuple and len(result) == size


def test_singular_factorizations_report_info_without_raising() -> None:
    a = T(chainrule, [SING, A3, np.zeros((3, 3))])
    assert chainrule.linalg.lu_factor_ex(a).info.tolist() == [3, 0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert chainrule.lu(a, get_infos=True)[2].tolist() == [3, 0, 1]
    p, low, up = chainrule.linalg.lu(a)  # linalg.lu does not check
    np.testing.assert_allclose((p @ low @ up).numpy(), a.numpy(), atol=1e-12)


def test_deprecated_functions_warn_once() -> None:
    a = T(chainrule, A3 + 3 * np.eye(3))
    calls = {
        "torch.lu is deprecated": lambda: chainrule.lu(a),
        "torch.lu_solve is deprecated": lambda: chainrule.lu_solve(
            a, *chainrule.linalg.lu_factor(a)
        ),
        "torch.triangular_solve is deprecated": lambda: chainrule.triangular_solve(a, a),
    }
    for start, call in calls.items():
        with warnings.catch_warnings(record=True) as first:
            warnings.simplefilter("always")
            call()
            call()
        said = [str(w.message) for w in first if str(w.message).startswith(start)]
        assert len(said) <= 1  # once per process: an earlier test may have used it already


# --- gradients: nodes, the permutation, and orders beyond the op table ---------------------------


def test_node_names_and_the_constant_permutation() -> None:
    a = T(chainrule, A3, requires_grad=True)
    p, low, up = chainrule.linalg.lu(a)
    assert p.grad_fn is None and not p.requires_grad
    assert type(low.grad_fn).__name__ == "LinalgLuBackward0" and up.grad_fn is low.grad_fn
    lu_, pivots = chainrule.linalg.lu_factor(a)
    assert type(lu_.grad_fn).__name__ == "LinalgLuFactorExBackward0" and pivots.grad_fn is None
    unpacked = chainrule.lu_unpack(lu_, pivots)
    assert unpacked.P.grad_fn is None
    assert type(unpacked.L.grad_fn).__name__ == "LuUnpackBackward0"
    x = chainrule.linalg.lu_solve(lu_, pivots, T(chainrule, R23.T, requires_grad=True))
    assert type(x.grad_fn).__name__ == "LinalgLuSolveBackward0"
    assert x.grad_fn.next_functions[0][0] is lu_.grad_fn
    # the integer pivots are no edge of PyTorch's nodes
    assert len(x.grad_fn.next_functions) == 2
    assert len(unpacked.L.grad_fn.next_functions) == 1


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_third_derivative_of_lu(shape: tuple[int, ...]) -> None:
    a = T(chainrule, np.random.default_rng(3).uniform(-1, 1, shape), requires_grad=True)

    def f(x: Any) -> Any:
        _, low, up = chainrule.linalg.lu(x)
        return (low.sin().sum() + (up * up).sum()).reshape(1)

    assert gradcheck(f, (a,))
    assert gradgradcheck(f, (a,))


def test_factor_gradients_agree_across_the_three_routes() -> None:
    """lu, lu_factor + lu_unpack and lu_factor alone are one function of A."""
    rng = np.random.default_rng(5)
    a = T(chainrule, rng.uniform(-1, 1, (2, 3, 3)), requires_grad=True)
    w = T(chainrule, rng.uniform(-1, 1, (2, 3, 3)))
    _, low, up = chainrule.linalg.lu(a)
    g1 = chainrule.autograd.grad(((low + up) * w).sum(), a)[0]
    _, low, up = chainrule.lu_unpack(*chainrule.linalg.lu_factor(a))
    g2 = chainrule.autograd.grad(((low + up) * w).sum(), a)[0]
    g3 = chainrule.autograd.grad((chainrule.linalg.lu_factor(a).LU * w).sum(), a)[0]
    np.testing.assert_allclose(g1.numpy(), g2.numpy(), atol=1e-10)
    np.testing.assert_allclose(g1.numpy(), g3.numpy(), atol=1e-10)
