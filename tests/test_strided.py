"""as_strided, as_strided_, as_strided_scatter, unfold and fill_diagonal_ beyond the op
table: views of the base's memory (storage offsets, writes through them, nodes remade
after in-place writes), layouts, PyTorch's gradients (as_strided_scatter's
among them, which keeps the written region), node names and errors, compared with PyTorch
where it is installed and with the values PyTorch 2.13 gave, recorded below.

Where chainrule differs, on purpose or not yet: a tensor that `as_strided_` moved within its
own memory reports storage offset 0 (PyTorch counts from the memory's start); an in-place
write through an as_strided view of another view sends the gradient of memory outside that
view nowhere (PyTorch's CopySlices sends it to the base); an in-place op on a view that
overlaps itself is computed once per element (PyTorch repeats it per alias).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from recorded_outcomes import outcome

RECORDED = {
    "lib.as_strided(x, (2, 2), (1, 2), 1)": "([[1.0, 3.0], [2.0, 4.0]], 'float32', (1, 2))",
    "lib.as_strided(x, (3, 3), (1, 1))": (
        "([[0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 4.0]], 'float32', (1, 1))"
    ),
    "x.as_strided((2, 3), (0, 1), 5)": "([[5.0, 6.0, 7.0], [5.0, 6.0, 7.0]], 'float32', (0, 1))",
    "x.as_strided((2, 2), (1, 2), storage_offset=3).storage_offset()": "3",
    "lib.as_strided(x, (), (), 11)": "(11.0, 'float32', ())",
    "lib.as_strided(x, (0,), (1,), 13)": "([], 'float32', (1,))",
    "lib.as_strided(x[1:], (2,), (1,))": "([4.0, 5.0], 'float32', (1,))",
    "lib.as_strided(x[1:], (2,), (1,)).storage_offset()": "4",
    "lib.as_strided(x[1:], (2,), (1,), 0)": "([0.0, 1.0], 'float32', (1,))",
    "lib.as_strided(x.t(), (2, 2), (1, 2), 1)": "([[1.0, 3.0], [2.0, 4.0]], 'float32', (1, 2))",
    "lib.as_strided(x[:1].expand(3, 4), (3,), (1,))": "([0.0, 1.0, 2.0], 'float32', (1,))",
    "lib.as_strided(x, (2, 2), (1, 2))._base is x": "False",
    "lib.as_strided(x[1:], (2,), (1,), 0)._base is x": "False",
    "lib.as_strided(x, (2, 2), (1, 2), 10)": (
        "RuntimeError: setStorage: sizes [2, 2], strides [1, 2], storage offset 10, and itemsize 4 "
        "requiring a storage size of 56 are out of bounds for storage of size 48"
    ),
    "lib.as_strided(x, (2, 2), (1, 2), 9)": (
        "RuntimeError: setStorage: sizes [2, 2], strides [1, 2], storage offset 9, and itemsize 4 "
        "requiring a storage size of 52 are out of bounds for storage of size 48"
    ),
    "lib.as_strided(x[1:], (2,), (1,), 11)": (
        "RuntimeError: setStorage: sizes [2], strides [1], storage offset 11, and itemsize 4 "
        "requiring a storage size of 52 are out of bounds for storage of size 48"
    ),
    "lib.as_strided(x, (2, 2), (1, 2), -1)": "RuntimeError: Tensor: invalid storage offset -1",
    "lib.as_strided(x, (2, 2), (1, -2))": (
        "RuntimeError: as_strided: Negative strides are not supported at the moment, got strides: "
        "[1, -2]"
    ),
    "lib.as_strided(x, (2, -2), (1, 2))": (
        "RuntimeError: Storage size calculation overflowed with sizes=[2, -2] and strides=[1, 2]"
    ),
    "lib.as_strided(x, (2, 2), (1,))": "RuntimeError: mismatch in length of strides and shape",
    "x.as_strided(4, (1,))": (
        "TypeError: as_strided(): argument 'size' (position 1) must be tuple of ints, not int"
    ),
    "x.as_strided((2.0, 2), (1, 2))": (
        "TypeError: as_strided(): argument 'size' (position 1) must be tuple of ints, but found "
        "element of type float at pos 0"
    ),
    "x.as_strided((2, 2), (1, 2), 1.5)": (
        "TypeError: as_strided(): argument 'storage_offset' (position 3) must be int, not float"
    ),
    "(lambda v: (v.mul_(-1), x)[1])(x.as_strided((2, 2), (1, 4), 1))": (
        "([[0.0, -1.0, -2.0, 3.0], [4.0, -5.0, -6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "(lambda v: (v.mul_(-1), x._version, v._version)[1:])(x.as_strided((2, 2), (1, 4), 1))": (
        "(1, 1)"
    ),
    "(lambda v: (x.add_(100), v)[1])(x[1:].as_strided((3,), (5,), 0))": (
        "([100.0, 105.0, 110.0], 'float32', (5,))"
    ),
    "grads(lambda a: a.as_strided((2, 2), (1, 2), 1), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])": (
        "[[0.0, 1.0, 3.0, 2.0, 4.0, 0.0]]"
    ),
    (
        "grads(lambda a: a.as_strided((3, 3), (1, 1)), [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, "
        "7.0]])"
    ): "[[1.0, 6.0, 15.0, 14.0, 9.0, 0.0, 0.0, 0.0]]",
    (
        "grads(lambda a: (a * 1).t().as_strided((2, 2), (2, 1), 1), [[0.0, 1.0, 2.0], [3.0, 4.0, "
        "5.0]])"
    ): "[[0.0, 1.0, 2.0, 3.0, 4.0, 0.0]]",
    "grads(lambda a: a[:1].expand(3, 2).as_strided((2,), (1,)), [[0.0, 1.0], [3.0, 4.0]])": (
        "[[1.0, 2.0, 0.0, 0.0]]"
    ),
    "grads(lambda a: a.as_strided((0, 2), (1, 1)), [[0.0, 1.0], [3.0, 4.0]])": (
        "[[0.0, 0.0, 0.0, 0.0]]"
    ),
    (
        "(lambda a: (lambda b: (lambda v: (b.add_(1), v.grad_fn.name(), "
        "v.grad_fn.next_functions[0][0].name()))(b.as_strided((2,), (3,), 1)))(a * 1))(lib.ones(2, "
        "3, requires_grad=True))[1:]"
    ): "('AsStridedBackward0', 'AddBackward0')",
    (
        "(lambda a: (lambda b: (lambda v: (v.mul_(2), b.grad_fn.name(), grads(lambda c: c, [1.0]) "
        "and lib.autograd.grad(b.sum(), a)[0].tolist()))(b.as_strided((2,), (3,), 1)))(a * "
        "1))(lib.ones(2, 3, requires_grad=True))[1:]"
    ): "('torch::autograd::CopySlices', [[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]])",
    (
        "(lambda a: (lambda b: (b.as_strided_((2, 2), (1, 3), 1), b.shape, b.stride(), b._version, "
        "b.grad_fn.name(), lib.autograd.grad(b.sum(), a)[0].tolist()))(a * 1))(lib.ones(2, 3, "
        "requires_grad=True))[1:]"
    ): "(Size([2, 2]), (1, 3), 1, 'AsStridedBackward1', [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]])",
    "(lambda b: (b.as_strided_((2,), (1,), 2), b.tolist(), b._base is None))(x.clone())[1:]": (
        "([2.0, 3.0], True)"
    ),
    (
        "(lambda v: (v.as_strided_((2,), (1,), 0), v.tolist(), v._base is x, "
        "v.storage_offset()))(x[1:])[1:]"
    ): "([0.0, 1.0], False, 0)",
    "lib.ones(2, 2, requires_grad=True).as_strided_((2,), (1,))": (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    ),
    "lib.ones(2, 2).as_strided_((2,), (1,), 5)": (
        "RuntimeError: setStorage: sizes [2], strides [1], storage offset 5, and itemsize 4 "
        "requiring a storage size of 28 are out of bounds for storage of size 16"
    ),
    "lib.as_strided_scatter(x, -lib.ones(2, 2), (2, 2), (1, 2), 1)": (
        "([[0.0, -1.0, -1.0, -1.0], [-1.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.as_strided_scatter(x, -lib.ones(2, 2), (2, 2), (1, 1), 1)": (
        "([[0.0, -1.0, -1.0, -1.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.as_strided_scatter(x.t(), -lib.ones(2, 2), (2, 2), (1, 2), 1)": (
        "([[0.0, -1.0, 8.0], [-1.0, 5.0, 9.0], [-1.0, 6.0, 10.0], [-1.0, 7.0, 11.0]], 'float32', "
        "(1, 4))"
    ),
    "lib.as_strided_scatter(x[1:], -lib.ones(2, 2), (2, 2), (1, 2))": (
        "([[-1.0, -1.0, -1.0, -1.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "lib.as_strided_scatter(x[1:], -lib.ones(2, 2), (2, 2), (1, 2), 4)": (
        "([[-1.0, -1.0, -1.0, -1.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "lib.as_strided_scatter(x[1:], -lib.ones(2, 2), (2, 2), (1, 2), 1)": (
        "([[-1.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "lib.as_strided_scatter(x[:, ::2], -lib.ones(2, 2), (2, 2), (1, 2), 1)": (
        "([[0.0, -1.0], [-1.0, 6.0], [8.0, 10.0]], 'float32', (4, 2))"
    ),
    "lib.as_strided_scatter(x, -lib.ones(2, 2).long(), (2, 2), (1, 2), 1)": (
        "([[0.0, -1.0, -1.0, -1.0], [-1.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.as_strided_scatter(x, -lib.ones(2, 3), (2, 2), (1, 2), 1)": (
        "RuntimeError: expected src to have a size equal to the slice of self. src size = [2, 3], "
        "slice size = [2, 2]"
    ),
    "lib.as_strided_scatter(x, -lib.ones(2, 2), (2, 2), (1, 2), 11)": (
        "RuntimeError: setStorage: sizes [2, 2], strides [1, 2], storage offset 11, and itemsize 4 "
        "requiring a storage size of 60 are out of bounds for storage of size 48"
    ),
    "lib.as_strided_scatter(x, 1.0, (2, 2), (1, 2), 1)": (
        "TypeError: as_strided_scatter(): argument 'src' (position 2) must be Tensor, not float"
    ),
    "lib.as_strided_scatter(x.t().requires_grad_(), lib.ones(2, 2), (2, 2), (1, 2), 1)": (
        "RuntimeError: !self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "
        '"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp":4754, please report a bug to '
        "PyTorch. as_strided_scatter is currently only supported for contiguous inputs"
    ),
    "x.as_strided_scatter(-lib.ones(2), (2,), (5,), 1)": (
        "([[0.0, -1.0, 2.0, 3.0], [4.0, 5.0, -1.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    (
        "grads(lambda a, s: lib.as_strided_scatter(a, s, (2, 2), (1, 2), 1), [[0.0, 1.0, 2.0], "
        "[3.0, 4.0, 5.0]], [[1.0, 2.0], [3.0, 4.0]])"
    ): "[[0.0, 2.0, 3.0, 4.0, 5.0, 0.0], [2.0, 4.0, 3.0, 5.0]]",
    (
        "grads(lambda a, s: lib.as_strided_scatter(a, s, (2,), (4,)), [[0.0, 1.0, 2.0], [3.0, 4.0, "
        "5.0]], [1.0, 2.0])"
    ): "[[1.0, 0.0, 0.0, 0.0, 5.0, 0.0], [1.0, 5.0]]",
    "x.unfold(1, 2, 1)": (
        "([[[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]], [[4.0, 5.0], [5.0, 6.0], [6.0, 7.0]], [[8.0, "
        "9.0], [9.0, 10.0], [10.0, 11.0]]], 'float32', (4, 1, 1))"
    ),
    "x.unfold(1, 3, 2)": (
        "([[[0.0, 1.0, 2.0]], [[4.0, 5.0, 6.0]], [[8.0, 9.0, 10.0]]], 'float32', (4, 2, 1))"
    ),
    "x.unfold(0, 3, 1)": (
        "([[[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]]], 'float32', (4, "
        "1, 4))"
    ),
    "x.t().unfold(0, 2, 1)": (
        "([[[0.0, 1.0], [4.0, 5.0], [8.0, 9.0]], [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]], [[2.0, "
        "3.0], [6.0, 7.0], [10.0, 11.0]]], 'float32', (1, 4, 1))"
    ),
    "x.unfold(-1, 4, 1)": (
        "([[[0.0, 1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0, 7.0]], [[8.0, 9.0, 10.0, 11.0]]], 'float32', "
        "(4, 1, 1))"
    ),
    "x.unfold(1, 0, 1)": (
        "([[[], [], [], [], []], [[], [], [], [], []], [[], [], [], [], []]], 'float32', (4, 1, 1))"
    ),
    "x.unfold(1, 5, 1)": "RuntimeError: maximum size for tensor at dimension 1 is 4 but size is 5",
    "x.unfold(1, 2, 0)": "RuntimeError: step is 0 but must be > 0",
    "x.unfold(1, -1, 1)": "RuntimeError: size is -1 but must be >= 0",
    "x.unfold(2, 2, 1)": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    ),
    "lib.tensor(3.0).unfold(0, 1, 1)": "([3.0], 'float32', (1,))",
    "lib.tensor(3.0).unfold(0, 0, 1)": "([], 'float32', (1,))",
    "lib.tensor(3.0).unfold(0, 2, 1)": (
        "RuntimeError: maximum size for tensor at dimension 0 is 1 but size is 2"
    ),
    "lib.zeros(0, 3).unfold(1, 2, 1)": "([], 'float32', (3, 1, 1))",
    "lib.zeros(0, 3).unfold(0, 1, 1)": (
        "RuntimeError: maximum size for tensor at dimension 0 is 0 but size is 1"
    ),
    "x.unfold(1, 2, 1)._base is x": "False",
    "(lambda v: (v.mul_(-1), x)[1])(x.unfold(1, 2, 2))": (
        "([[-0.0, -1.0, -2.0, -3.0], [-4.0, -5.0, -6.0, -7.0], [-8.0, -9.0, -10.0, -11.0]], "
        "'float32', (4, 1))"
    ),
    "grads(lambda a: a.unfold(1, 2, 1), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])": (
        "[[1.0, 5.0, 4.0, 5.0, 13.0, 8.0]]"
    ),
    "grads(lambda a: a.unfold(0, 1, 2), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])": (
        "[[1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 4.0, 5.0, 6.0]]"
    ),
    "grads(lambda a: a.unfold(0, 1, 1), 2.0)": "[[1.0]]",
    (
        "(lambda a, w: lib.autograd.grad((a.unfold(1, 2, 1) * w).sum(), a, "
        "create_graph=True)[0].grad_fn.name())(lib.ones(2, 3, requires_grad=True), lib.ones(2, 2, "
        "2, requires_grad=True))"
    ): "'UnfoldBackwardBackward0'",
    "x.clone().fill_diagonal_(-1)": (
        "([[-1.0, 1.0, 2.0, 3.0], [4.0, -1.0, 6.0, 7.0], [8.0, 9.0, -1.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "x.t().clone().fill_diagonal_(-1, wrap=True)": (
        "([[-1.0, 4.0, 8.0], [1.0, -1.0, 9.0], [2.0, 6.0, -1.0], [3.0, 7.0, 11.0]], 'float32', (1, "
        "4))"
    ),
    "lib.zeros(7, 3).fill_diagonal_(2.0, wrap=True)": (
        "([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0], "
        "[0.0, 2.0, 0.0], [0.0, 0.0, 2.0]], 'float32', (3, 1))"
    ),
    "lib.zeros(7, 3).fill_diagonal_(2.0)": (
        "([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], "
        "[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 'float32', (3, 1))"
    ),
    "lib.zeros(8, 2).fill_diagonal_(2.0, True)": (
        "([[2.0, 0.0], [0.0, 2.0], [0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [0.0, 0.0], [2.0, 0.0], "
        "[0.0, 2.0]], 'float32', (2, 1))"
    ),
    "lib.zeros(3, 3, 3).fill_diagonal_(2.0)": (
        "([[[2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 2.0, 0.0], "
        "[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]]], 'float32', (9, 3, "
        "1))"
    ),
    "(lambda z: (z[:, 1:].fill_diagonal_(2.0), z)[1])(lib.zeros(4, 3))": (
        "([[0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 'float32', (3, 1))"
    ),
    "(lambda z: (z.t().fill_diagonal_(2.0, wrap=True), z)[1])(lib.zeros(3, 7))": (
        "([[2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 0.0], [0.0, 0.0, "
        "2.0, 0.0, 0.0, 0.0, 2.0]], 'float32', (7, 1))"
    ),
    "lib.zeros(3, 3).long().fill_diagonal_(2.7)": (
        "([[2, 0, 0], [0, 2, 0], [0, 0, 2]], 'int64', (3, 1))"
    ),
    "lib.zeros(3, 3).bool().fill_diagonal_(2)": (
        "([[True, False, False], [False, True, False], [False, False, True]], 'bool', (3, 1))"
    ),
    "lib.zeros(3, 3).fill_diagonal_(lib.tensor(5.0))": (
        "([[5.0, 0.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, 5.0]], 'float32', (3, 1))"
    ),
    "lib.zeros(3).fill_diagonal_(1)": "RuntimeError: dimensions must larger than 1",
    "lib.zeros(3, 4, 3).fill_diagonal_(1)": (
        "RuntimeError: all dimensions of input must be of equal length"
    ),
    'lib.zeros(3, 3).fill_diagonal_("a")': (
        "TypeError: fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not str"
    ),
    "lib.zeros(3, 3).fill_diagonal_(lib.tensor([5.0]))": (
        "TypeError: fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not Tensor"
    ),
    "lib.zeros(3, 3, requires_grad=True).fill_diagonal_(1.0)": (
        "RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place "
        "operation."
    ),
    (
        "(lambda a: (lambda b: (b.fill_diagonal_(0.5, wrap=True).grad_fn.name(), "
        "lib.autograd.grad(b.sum(), a)[0].tolist()))(a * 1))(lib.ones(5, 2, requires_grad=True))"
    ): (
        "('torch::autograd::CopySlices', [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, "
        "0.0]])"
    ),
}


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_recorded(expression: str) -> None:
    assert outcome(chainrule, expression) == RECORDED[expression]


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_pytorch(torch: ModuleType, expression: str) -> None:
    assert outcome(chainrule, expression) == outcome(torch, expression)


# --- drawn geometries -------------------------------------------------------------------------


@st.composite
def strided_cases(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """An input shape, and sizes, strides and an offset that stay inside its memory."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    numel = int(np.prod(shape))
    ndim = draw(st.integers(0, 3))
    sizes = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
    strides = tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    extent = 1 + sum((n - 1) * s for n, s in zip(sizes, strides, strict=True))
    if extent > numel:
        sizes, strides, extent = (), (), 1
    offset = draw(st.integers(0, numel - extent))
    return shape, sizes, strides, offset


def _as_strided_run(lib: ModuleType, case: Any) -> list[Any]:
    shape, sizes, strides, offset = case
    a = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape).requires_grad_()
    out = lib.as_strided(a * 1, sizes, strides, offset)
    weights = lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(out.shape)
    (grad,) = lib.autograd.grad((out * weights).sum(), a)
    return [out.detach().numpy(), out.stride(), grad.numpy()]


@given(strided_cases())
def test_as_strided_matches_pytorch(torch: ModuleType, case: Any) -> None:
    ours, theirs = _as_strided_run(chainrule, case), _as_strided_run(torch, case)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]
    np.testing.assert_array_equal(ours[2], theirs[2])


@given(strided_cases())
def test_as_strided_reads_the_memory_numpy_does(case: Any) -> None:
    shape, sizes, strides, offset = case
    values = np.arange(float(np.prod(shape)))
    out = chainrule.as_strided(chainrule.tensor(values).reshape(shape), sizes, strides, offset)
    expected = np.lib.stride_tricks.as_strided(
        values[offset:], sizes, tuple(s * values.itemsize for s in strides)
    )
    np.testing.assert_array_equal(out.numpy(), expected)


@given(strided_cases())
def test_as_strided_gradient_counts_each_read(case: Any) -> None:
    shape, sizes, strides, offset = case
    a = chainrule.ones(shape, dtype=chainrule.float64, requires_grad=True)
    (grad,) = chainrule.autograd.grad(chainrule.as_strided(a, sizes, strides, offset).sum(), a)
    reads = np.zeros(int(np.prod(shape)))
    np.add.at(reads, _places(sizes, strides, offset), 1)
    np.testing.assert_array_equal(grad.numpy().reshape(-1), reads)


def _places(sizes: tuple[int, ...], strides: tuple[int, ...], offset: int) -> np.ndarray:
    grid = np.indices(sizes).reshape(len(sizes), -1) if sizes else np.zeros((0, 1), int)
    return offset + (np.array(strides, dtype=int)[:, None] * grid).sum(0)


def test_a_view_by_strides_writes_into_its_base() -> None:
    base = chainrule.zeros(3, 4)
    view = base.as_strided((2, 2), (1, 4), 1)
    view.fill_(7.0)
    assert base.tolist() == [[0.0, 7.0, 7.0, 0.0], [0.0, 7.0, 7.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    assert view._base is base and view._version == base._version == 1
