"""The `*_copy` forms of the views beyond the op table: values, dtypes and strides (fresh
contiguous memory, whatever the input's layout), node names, detach_copy (recorded with no
derivative), `out=` and errors (the view's own), compared with PyTorch where it is
installed and with the values PyTorch 2.13 gave, recorded below.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from recorded_outcomes import outcome

# fmt: off
RECORDED = {
    'lib.permute_copy(x, (0,))': (
        'RuntimeError: permute(sparse_coo): number of dimensions in the tensor input '
        'does not match the length of the desired ordering of dimensions i.e. '
        'input.dim() = 2 is not equal to len(dims) = 1'
    ),
    'lib.select_copy(x, 0, 5)': (
        'IndexError: select(): index 5 out of range for tensor of size [3, 4] at '
        'dimension 0'
    ),
    'lib.select_copy(x, 2, 0)': (
        'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got '
        '2)'
    ),
    'lib.narrow_copy(x, 0, 2, 3)': (
        'RuntimeError: start (2) + length (3) exceeds dimension size (3).'
    ),
    'lib.slice_copy(x, 0, 0, 2, 0)': 'RuntimeError: slice step must be positive',
    'lib.slice_copy(x, 3)': (
        'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got '
        '3)'
    ),
    'lib.split_copy(x, [1, 2])': (
        "TypeError: split_copy(): argument 'split_size' (position 2) must be int, not "
        'list'
    ),
    'lib.split_with_sizes_copy(x, [1, 1])': (
        'RuntimeError: split_with_sizes expects split_sizes to sum exactly to 3 (input '
        "tensor's size at dimension 0), but got split_sizes=[1, 1]"
    ),
    'lib.squeeze_copy(x, 4)': (
        'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got '
        '4)'
    ),
    'lib.t_copy(lib.zeros(2,2,2))': (
        'RuntimeError: t() expects a tensor with <= 2 dimensions, but self is 3D'
    ),
    'lib.transpose_copy(x, 0, 2)': (
        'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got '
        '2)'
    ),
    'lib.unbind_copy(x, 2)': (
        'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got '
        '2)'
    ),
    'lib.unfold_copy(x, 1, 5, 1)': (
        'RuntimeError: maximum size for tensor at dimension 1 is 4 but size is 5'
    ),
    'lib.unsqueeze_copy(x, 3)': (
        'IndexError: Dimension out of range (expected to be in range of [-3, 2], but got '
        '3)'
    ),
    'lib.view_copy(x, (5, -1))': "RuntimeError: shape '[5, -1]' is invalid for input of size 12",
    'lib.expand_copy(x, (2, 4))': (
        'RuntimeError: The expanded size of the tensor (2) must match the existing size '
        '(3) at non-singleton dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 4]'
    ),
    'lib.diagonal_copy(x, 0, 0, 0)': 'RuntimeError: diagonal dimensions cannot be identical 0, 0',
    'lib.as_strided_copy(x, (4, 4), (4, 1))': (
        'RuntimeError: setStorage: sizes [4, 4], strides [4, 1], storage offset 0, and '
        'itemsize 4 requiring a storage size of 64 are out of bounds for storage of size '
        '48'
    ),
    'lib.split_copy(x, 0, 0)': (
        'RuntimeError: split_size can only be 0 if dimension size is 0, but got '
        'dimension size of 3'
    ),
    'lib.permute_copy(x, (1, 0))': (
        '([[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]], '
        "'float32', (3, 1))"
    ),
    'lib.permute_copy(x.t(), (1, 0))': (
        '([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], '
        "'float32', (4, 1))"
    ),
    'lib.select_copy(x, 1, -1)': "([3.0, 7.0, 11.0], 'float32', (1,))",
    'lib.narrow_copy(x, 1, -3, 2)': "([[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]], 'float32', (2, 1))",
    'x.narrow_copy(0, 1, 2)': "([[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))",
    'lib.slice_copy(x, 1, -3, 100, 2)': (
        "([[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]], 'float32', (2, 1))"
    ),
    'lib.slice_copy(x, 0, 2, 1)': "([], 'float32', (4, 1))",
    'lib.split_copy(x, 3, 1)': (
        '(tensor([[ 0.,  1.,  2.],\n        [ 4.,  5.,  6.],\n        [ 8.,  9., 10.]]), '
        'tensor([[ 3.],\n        [ 7.],\n        [11.]]))'
    ),
    'lib.split_with_sizes_copy(x, [2, 1])': (
        '(tensor([[0., 1., 2., 3.],\n        [4., 5., 6., 7.]]), tensor([[ 8.,  9., 10., '
        '11.]]))'
    ),
    'lib.squeeze_copy(x[:1])': "([0.0, 1.0, 2.0, 3.0], 'float32', (1,))",
    'lib.squeeze_copy(x[:1], (0, 1))': "([0.0, 1.0, 2.0, 3.0], 'float32', (1,))",
    'lib.t_copy(x[0])': "([0.0, 1.0, 2.0, 3.0], 'float32', (1,))",
    'lib.transpose_copy(x, 0, 1)': (
        '([[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]], '
        "'float32', (3, 1))"
    ),
    'lib.unbind_copy(x.t())': (
        '(tensor([0., 4., 8.]), tensor([1., 5., 9.]), tensor([ 2.,  6., 10.]), tensor([ '
        '3.,  7., 11.]))'
    ),
    'lib.unfold_copy(x, 0, 2, 1)': (
        '([[[0.0, 4.0], [1.0, 5.0], [2.0, 6.0], [3.0, 7.0]], [[4.0, 8.0], [5.0, 9.0], '
        "[6.0, 10.0], [7.0, 11.0]]], 'float32', (8, 2, 1))"
    ),
    'lib.unsqueeze_copy(x, 0)': (
        '([[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]], '
        "'float32', (12, 4, 1))"
    ),
    'lib.view_copy(x.t(), (2, 6))': (
        "([[0.0, 4.0, 8.0, 1.0, 5.0, 9.0], [2.0, 6.0, 10.0, 3.0, 7.0, 11.0]], 'float32', "
        '(6, 1))'
    ),
    'lib.view_copy(x, (-1,))': (
        "([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], 'float32', "
        '(1,))'
    ),
    'lib.expand_copy(x[:1], (2, 4))': (
        "([[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0]], 'float32', (4, 1))"
    ),
    'lib.expand_copy(x[:1], (2, -1), implicit=True)': (
        "([[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0]], 'float32', (4, 1))"
    ),
    'lib.diagonal_copy(x, -1)': "([4.0, 9.0], 'float32', (1,))",
    'lib.as_strided_copy(x[1:], (2,), (1,))': "([4.0, 5.0], 'float32', (1,))",
    'lib.as_strided_copy(x, (2, 2), (1, 2), 1)': "([[1.0, 3.0], [2.0, 4.0]], 'float32', (2, 1))",
    'lib.alias_copy(x.t())': (
        '([[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]], '
        "'float32', (3, 1))"
    ),
    'lib.detach_copy(x[1:])': "([[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))",
    'lib.permute_copy(x.long(), (1, 0))': (
        "([[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]], 'int64', (3, 1))"
    ),
    'lib.unbind_copy(x.int(), 1)[1]': "([1, 5, 9], 'int32', (1,))",
    'lib.alias_copy(x)._base is None': 'True',
    'lib.select_copy(x, 0, 0)._base is None': 'True',
    'lib.detach_copy(x.requires_grad_()).requires_grad': 'True',
    'lib.detach_copy(x.requires_grad_()).grad_fn.name()': "'torch::autograd::NotImplemented'",
    'lib.detach_copy(x.requires_grad_()).sum().backward()': (
        'RuntimeError: derivative for aten::detach_copy is not implemented'
    ),
    'lib.transpose_copy(x.requires_grad_(), 0, 1).grad_fn.name()': "'TransposeBackward0_copy'",
    'lib.transpose_copy(x.requires_grad_(), 0, 1).grad_fn.next_functions[0][0].name()': (
        "'torch::autograd::AccumulateGrad'"
    ),
    'lib.split_copy(x.requires_grad_(), 2)[1].grad_fn.name()': "'SplitBackward0_copy'",
    'lib.squeeze_copy(x[:1].requires_grad_(), (0,)).grad_fn.name()': "'SqueezeBackward2_copy'",
    'lib.narrow_copy(x.requires_grad_(), 0, 0, 1).grad_fn.name()': "'NarrowCopyBackward0'",
    'lib.view_copy(x.requires_grad_().t(), (12,)).grad_fn.next_functions[0][0].name()': (
        "'TBackward0'"
    ),
    'grads(lambda a: lib.view_copy(a.t(), (2, 3)), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])': (
        '[[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]]'
    ),
    'grads(lambda a: lib.unfold_copy(a, 0, 2, 1), [1.0, 2.0, 3.0])': '[[1.0, 5.0, 4.0]]',
    'grads(lambda a: lib.as_strided_copy(a, (2, 2), (1, 1)), [1.0, 2.0, 3.0])': '[[1.0, 5.0, 4.0]]',
    'lib.permute_copy(x, (1, 0), out=lib.empty(0))': (
        '([[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]], '
        "'float32', (3, 1))"
    ),
}
# fmt: on


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_recorded(expression: str) -> None:
    assert outcome(chainrule, expression) == RECORDED[expression]


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_pytorch(torch: ModuleType, expression: str) -> None:
    assert outcome(chainrule, expression) == outcome(torch, expression)


def test_results_share_no_memory_with_the_input() -> None:
    x = chainrule.arange(12.0).reshape(3, 4)
    for result in (
        chainrule.alias_copy(x),
        chainrule.select_copy(x, 0, 1),
        chainrule.view_copy(x, (4, 3)),
        *chainrule.split_copy(x, 1),
    ):
        assert not np.shares_memory(result.numpy(), x.numpy())
        result.add_(1)  # a copy is no view: writing it is allowed and leaves x alone
    assert x.sum().item() == 66.0


def test_under_no_grad_nothing_is_recorded() -> None:
    x = chainrule.ones(2, 3, requires_grad=True)
    with chainrule.no_grad():
        assert chainrule.permute_copy(x, (1, 0)).grad_fn is None
        assert chainrule.detach_copy(x).requires_grad is False


@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=4),
    st.data(),
)
def test_permute_copy_is_the_transposed_array(shape: list[int], data: st.DataObject) -> None:
    dims = data.draw(st.permutations(range(len(shape))))
    values = np.arange(float(np.prod(shape))).reshape(shape)
    out = chainrule.permute_copy(chainrule.tensor(values, requires_grad=True), dims)
    np.testing.assert_array_equal(out.detach().numpy(), np.transpose(values, dims))
    assert out.is_contiguous()
    out.backward(chainrule.ones_like(out))
