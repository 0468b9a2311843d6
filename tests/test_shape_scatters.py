"""diagonal_scatter, select_scatter and slice_scatter beyond the op table: their results
keep the input's strides (PyTorch copies the input's whole memory and writes into that),
src of another dtype is cast, gradients, node names and errors, compared with PyTorch
where it is installed and with the values PyTorch 2.13 gave, recorded below."""

from __future__ import annotations

from types import ModuleType

import pytest

import chainrule
from recorded_outcomes import outcome

RECORDED = {
    "lib.diagonal_scatter(x, -lib.ones(3))": (
        "([[-1.0, 1.0, 2.0, 3.0], [4.0, -1.0, 6.0, 7.0], [8.0, 9.0, -1.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.diagonal_scatter(x, -lib.ones(2), 2)": (
        "([[0.0, 1.0, -1.0, 3.0], [4.0, 5.0, 6.0, -1.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.diagonal_scatter(x, -lib.ones(3), -1)": (
        "RuntimeError: expected src to have a size equal to the slice of self. src size = [3], "
        "slice size = [2]"
    ),
    "lib.diagonal_scatter(x, -lib.ones(0), 5)": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "lib.diagonal_scatter(x.t(), -lib.ones(3))": (
        "([[-1.0, 4.0, 8.0], [1.0, -1.0, 9.0], [2.0, 6.0, -1.0], [3.0, 7.0, 11.0]], 'float32', (1, "
        "4))"
    ),
    "lib.diagonal_scatter(x, -lib.ones(3).long())": (
        "([[-1.0, 1.0, 2.0, 3.0], [4.0, -1.0, 6.0, 7.0], [8.0, 9.0, -1.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.diagonal_scatter(x.long(), -lib.ones(3))": (
        "([[-1, 1, 2, 3], [4, -1, 6, 7], [8, 9, -1, 11]], 'int64', (4, 1))"
    ),
    "lib.diagonal_scatter(x, -lib.ones(4))": (
        "RuntimeError: expected src to have a size equal to the slice of self. src size = [4], "
        "slice size = [3]"
    ),
    "lib.diagonal_scatter(x, -lib.ones(3), 0, 0, 0)": (
        "RuntimeError: diagonal dimensions cannot be identical 0, 0"
    ),
    "lib.diagonal_scatter(x, -lib.ones(3), 0, 0, 2)": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    ),
    "lib.diagonal_scatter(x, 1.0)": (
        "TypeError: diagonal_scatter(): argument 'src' (position 2) must be Tensor, not float"
    ),
    "x.diagonal_scatter(-lib.ones(2), 1, 1, 0)": (
        "([[0.0, 1.0, 2.0, 3.0], [-1.0, 5.0, 6.0, 7.0], [8.0, -1.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.select_scatter(x, -lib.ones(4), 0, 1)": (
        "([[0.0, 1.0, 2.0, 3.0], [-1.0, -1.0, -1.0, -1.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.select_scatter(x, -lib.ones(4), 0, -1)": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [-1.0, -1.0, -1.0, -1.0]], 'float32', (4, "
        "1))"
    ),
    "x.select_scatter(-lib.ones(3), 1, 2)": (
        "([[0.0, 1.0, -1.0, 3.0], [4.0, 5.0, -1.0, 7.0], [8.0, 9.0, -1.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "x[:, ::2].select_scatter(-lib.ones(3), 1, 1)": (
        "([[0.0, -1.0], [4.0, -1.0], [8.0, -1.0]], 'float32', (4, 2))"
    ),
    "lib.select_scatter(x, -lib.ones(4), 0, 3)": (
        "IndexError: select(): index 3 out of range for tensor of size [3, 4] at dimension 0"
    ),
    "lib.select_scatter(x, -lib.ones(4), 0, -4)": (
        "IndexError: select(): index -4 out of range for tensor of size [3, 4] at dimension 0"
    ),
    "lib.select_scatter(x, -lib.ones(3), 0, 1)": (
        "RuntimeError: expected src to have a size equal to the slice of self. src size = [3], "
        "slice size = [4]"
    ),
    "lib.select_scatter(x, -lib.ones(4), 2, 1)": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    ),
    "lib.select_scatter(lib.tensor(1.0), lib.tensor(2.0), 0, 0)": (
        "IndexError: select() cannot be applied to a 0-dim tensor."
    ),
    "lib.slice_scatter(x, -lib.ones(3, 2), 1, 0, 4, 2)": (
        "([[-1.0, 1.0, -1.0, 3.0], [-1.0, 5.0, -1.0, 7.0], [-1.0, 9.0, -1.0, 11.0]], 'float32', "
        "(4, 1))"
    ),
    "lib.slice_scatter(x, -lib.ones(3, 4))": (
        "([[-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0]], "
        "'float32', (4, 1))"
    ),
    "lib.slice_scatter(x, -lib.ones(1, 4), start=-1)": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [-1.0, -1.0, -1.0, -1.0]], 'float32', (4, "
        "1))"
    ),
    "lib.slice_scatter(x, -lib.ones(0, 4), start=5)": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "lib.slice_scatter(x, -lib.ones(0, 4), start=3, end=1)": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "lib.slice_scatter(x, -lib.ones(2, 4), step=2)": (
        "([[-1.0, -1.0, -1.0, -1.0], [4.0, 5.0, 6.0, 7.0], [-1.0, -1.0, -1.0, -1.0]], 'float32', "
        "(4, 1))"
    ),
    "lib.slice_scatter(x.t(), -lib.ones(4, 3))": (
        "([[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]], "
        "'float32', (1, 4))"
    ),
    "x[:, ::2].slice_scatter(-lib.ones(3, 1), 1, 1)": (
        "([[0.0, -1.0], [4.0, -1.0], [8.0, -1.0]], 'float32', (4, 2))"
    ),
    "lib.slice_scatter(x, -lib.ones(2, 4), step=0)": "RuntimeError: slice step must be positive",
    "lib.slice_scatter(x, -lib.ones(2, 4))": (
        "RuntimeError: expected src to have a size equal to the slice of self. src size = [2, 4], "
        "slice size = [3, 4]"
    ),
    "lib.slice_scatter(x, -lib.ones(3, 4), dim=3)": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 3)"
    ),
    "lib.slice_scatter(x, -lib.ones(1, 4), start=1, end=2, out=lib.empty(3, 4))": (
        "([[0.0, 1.0, 2.0, 3.0], [-1.0, -1.0, -1.0, -1.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    (
        "grads(lambda a, s: lib.diagonal_scatter(a, s, 1), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], "
        "[7.0, 8.0])"
    ): "[[1.0, 0.0, 3.0, 4.0, 5.0, 0.0], [2.0, 6.0]]",
    (
        "grads(lambda a, s: lib.select_scatter(a, s, 1, -1), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], "
        "[7.0, 8.0])"
    ): "[[1.0, 2.0, 0.0, 4.0, 5.0, 0.0], [3.0, 6.0]]",
    (
        "grads(lambda a, s: lib.slice_scatter(a, s, 1, 1, None, 1), [[0.0, 1.0, 2.0], [3.0, 4.0, "
        "5.0]], [[7.0, 8.0], [9.0, 1.0]])"
    ): "[[1.0, 0.0, 0.0, 4.0, 0.0, 0.0], [2.0, 3.0, 5.0, 6.0]]",
    (
        "(lambda a, s: [n.name() for n, _ in lib.slice_scatter(a, s, 0, 0, "
        "1).grad_fn.next_functions])(lib.ones(2, 2, requires_grad=True), lib.ones(1, 2, "
        "requires_grad=True))"
    ): "['torch::autograd::AccumulateGrad', 'torch::autograd::AccumulateGrad']",
}


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_recorded(expression: str) -> None:
    assert outcome(chainrule, expression) == RECORDED[expression]


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_pytorch(torch: ModuleType, expression: str) -> None:
    assert outcome(chainrule, expression) == outcome(torch, expression)
