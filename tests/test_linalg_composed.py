"""linalg.vecdot, vander, diagonal, cond, tensorinv and tensorsolve: PyTorch's errors,
edge cases (singular and empty matrices) and the graphs they record. The op table
checks their values and derivatives."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import chainrule

CALLS = [
    lambda m: m.linalg.vecdot(m.ones(3), m.ones(3, dtype=m.float64)),
    lambda m: m.linalg.vecdot(m.ones(3, dtype=m.long), m.ones(3, dtype=m.long)),
    lambda m: m.linalg.vecdot(m.ones(3), 2),
    lambda m: m.linalg.vecdot(m.ones(2, 3), m.ones(2, 4)),
    lambda m: m.linalg.vander(m.ones(3), N=1),
    lambda m: m.linalg.vander(m.ones(3).bool()),
    lambda m: m.linalg.tensorinv(m.ones(2, 3), ind=1),
    lambda m: m.linalg.tensorinv(m.ones(2, 2), ind=0),
    lambda m: m.linalg.tensorinv(m.zeros(2, 2), ind=1),
    lambda m: m.linalg.tensorsolve(m.ones(2, 3, 4), m.ones(2, 3)),
    lambda m: m.linalg.cond(m.ones(3)),
    lambda m: m.linalg.cond(m.ones(2, 2, dtype=m.long), "fro"),
    lambda m: m.linalg.cond(m.ones(2, 2), "abc"),
    lambda m: m.linalg.cond(m.ones(2, 2), 3.0),
    lambda m: m.linalg.cond(m.ones(2, 3), "fro"),
    lambda m: m.linalg.cond(m.ones(2, 3), 1),
]
MESSAGES = [
    "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float and y "
    "of type Double instead",
    "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long",
    "linalg_vecdot(): argument 'y' (position 2) must be Tensor, not int",
    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
    "N must be greater than 1.",
    "linalg.vander supports floating point, complex, and integer tensors, but got Bool",
    "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
    "but got 3 != 2",
    "Expected a strictly positive integer for 'ind', but got 0",
    "inv: The diagonal element 1 is zero, the inversion could not be completed because the "
    "input matrix is singular.",
    "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
    "prod(self.shape[:other.ndim]), but got 4 != 6",
    "linalg.cond: The input tensor must have at least 2 dimensions.",
    "linalg.inv: Expected a floating point or complex tensor as input. Got Long",
    "linalg.cond got an invalid norm type: abc",
    "linalg.cond got an invalid norm type: 3",
    "linalg.cond(ord=fro): A must be batches of square matrices, but they are 2 by 3 matrices",
    "linalg.cond(ord=1): A must be batches of square matrices, but they are 2 by 3 matrices",
]


@pytest.mark.parametrize(("call", "message"), zip(CALLS, MESSAGES, strict=True))
def test_errors(call: Any, message: str) -> None:
    with pytest.raises((RuntimeError, TypeError)) as info:
        call(chainrule)
    assert str(info.value) == message


@pytest.mark.parametrize("call", CALLS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises((RuntimeError, TypeError)) as theirs:
        call(torch)
    with pytest.raises((RuntimeError, TypeError)) as mine:
        call(chainrule)
    assert type(mine.value).__name__.strip("_") == type(theirs.value).__name__.strip("_")
    assert str(mine.value) == str(theirs.value)


def test_singular_inverse_is_a_linalg_error() -> None:
    with pytest.raises(chainrule.linalg.LinAlgError):
        chainrule.linalg.tensorinv(chainrule.zeros(2, 2), ind=1)


@pytest.mark.parametrize("p", [None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_cond_of_singular_and_empty_matrices(p: Any) -> None:
    singular = chainrule.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=chainrule.float64)
    value = chainrule.linalg.cond(singular, p).item()
    assert (
        value > 1e15 if p in (None, 2, "nuc") else value < 1e-15 if p == -2 else value == math.inf
    )
    empty = chainrule.linalg.cond(chainrule.zeros(2, 0, 0), p)
    assert empty.shape == (2,) and empty.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("p", [None, "fro", "nuc", 1, -2, math.inf])
def test_cond_matches_torch(torch: Any, p: Any) -> None:
    a = np.random.default_rng(4).standard_normal((2, 3, 3))
    singular = [[1.0, 2.0], [2.0, 4.0]]  # its smallest singular value is rounding noise
    for m_a in [a] if p in (None, "nuc", -2) else [singular, a]:
        mine = chainrule.linalg.cond(chainrule.tensor(m_a), p).numpy()
        theirs = torch.linalg.cond(torch.tensor(m_a), p).numpy()
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def _cond_backward(m: Any) -> None:
    a = m.tensor([[2.0, 1.0], [0.5, 3.0]], requires_grad=True)
    m.linalg.cond(a, "fro").backward()


def test_cond_through_an_inverse_is_not_differentiable() -> None:
    """PyTorch fills the inverse in place, after inv_ex saved it: backward refuses."""
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _cond_backward(chainrule)


def test_cond_backward_error_matches_torch(torch: Any) -> None:
    with pytest.raises(RuntimeError) as theirs:
        _cond_backward(torch)
    with pytest.raises(RuntimeError) as mine:
        _cond_backward(chainrule)
    assert str(mine.value) == str(theirs.value).replace("[torch.", "[chainrule.")


def _graph(fn: Any) -> list[str]:
    names: list[str] = []
    stack = [fn]
    while stack:
        node = stack.pop()
        names.append("None" if node is None else node.name().split("::")[-1])
        if node is not None:
            stack.extend(f for f, _ in node.next_functions)
    return names


GRAPHS = [
    lambda m, a: m.linalg.vecdot(a, a[0]),
    lambda m, a: m.linalg.vander(a[0]),
    lambda m, a: m.linalg.cond(a),
    lambda m, a: m.linalg.cond(a, "nuc"),
    lambda m, a: m.linalg.cond(a, math.inf),
    lambda m, a: m.linalg.tensorsolve(a, a[0]),
]


@pytest.mark.parametrize("call", GRAPHS)
def test_graphs_match_torch(torch: Any, call: Any) -> None:
    a = np.random.default_rng(5).standard_normal((3, 3)) + 3 * np.eye(3)
    mine = _graph(call(chainrule, chainrule.tensor(a, requires_grad=True)).grad_fn)
    theirs = _graph(call(torch, torch.tensor(a, requires_grad=True)).grad_fn)
    if "MaskedFillBackward0" in theirs:  # chainrule gives the mask an edge (None) too
        mine = [n for n in mine if n != "None"]
    assert mine == theirs
