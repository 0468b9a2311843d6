"""histogram, histogramdd, nonzero_static and set_default_tensor_type: values, bin edges,
result types, the node without a derivative, errors and the deprecation warning, compared
with PyTorch where it is installed (also over drawn inputs) and with what PyTorch 2.13 gave,
recorded below.
"""

from __future__ import annotations

import pickle
import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
import chainrule._runtime as runtime

# fmt: off
RECORDED = {
    'lib.histogram(x, 4)': (
        'torch.return_types.histogram(\nhist=tensor([1., 2., 2., '
        '1.]),\nbin_edges=tensor([0., 1., 2., 3., 4.]))'
    ),
    'lib.histogram(x, 3, range=(0., 3.), weight=lib.tensor([1.,2,3,4,5,6]), density=True)': (
        'torch.return_types.histogram(\nhist=tensor([0.3529, 0.2353, '
        '0.4118]),\nbin_edges=tensor([0., 1., 2., 3.]))'
    ),
    'lib.histogram(x, lib.tensor([0., 1, 2.5, 5]))': (
        'torch.return_types.histogram(\nhist=tensor([1., 3., '
        '2.]),\nbin_edges=tensor([0.0000, 1.0000, 2.5000, 5.0000]))'
    ),
    'x.histogram(2)': (
        'torch.return_types.histogram(\nhist=tensor([3., 3.]),\nbin_edges=tensor([0., 2., '
        '4.]))'
    ),
    'x.histogram(lib.tensor([0., 1, 2.5, 5]), density=True)': (
        'torch.return_types.histogram(\nhist=tensor([0.1667, 0.3333, '
        '0.1333]),\nbin_edges=tensor([0.0000, 1.0000, 2.5000, 5.0000]))'
    ),
    'lib.histogram(x.double(), 2)': (
        'torch.return_types.histogram(\nhist=tensor([3., 3.], '
        'dtype=torch.float64),\nbin_edges=tensor([0., 2., 4.], dtype=torch.float64))'
    ),
    'lib.histogram(x.long(), 2)': 'NotImplementedError: "histogramdd" not implemented for \'Long\'',
    'lib.histogram(x, 0)': (
        'RuntimeError: torch.histogram(): bins must be > 0, but got 0 for dimension 0'
    ),
    'lib.histogram(x, 2, range=(3., 1.))': (
        'RuntimeError: torch.histogramdd: min should not exceed max, but got min 3 max 1 '
        'for dimension 0'
    ),
    'lib.histogram(x, lib.tensor([2., 1]))': (
        'torch.return_types.histogram(\nhist=tensor([0.]),\nbin_edges=tensor([2., 1.]))'
    ),
    'lib.histogram(x, 2, weight=lib.ones(3))': (
        'RuntimeError: torch.histogramdd: if weight tensor is provided it should have '
        'the same shape as the input tensor excluding its innermost dimension, but got '
        'input with shape [6, 1] and weight with shape [3]'
    ),
    'lib.histogram(x, 2, range=(1., 1.))': (
        'torch.return_types.histogram(\nhist=tensor([0., 2.]),\nbin_edges=tensor([0.5000, '
        '1.0000, 1.5000]))'
    ),
    'lib.histogram(lib.tensor([]), 2)': (
        'torch.return_types.histogram(\nhist=tensor([0., 0.]),\nbin_edges=tensor([0.0000, '
        '0.5000, 1.0000]))'
    ),
    "lib.histogram(lib.tensor([1., float('nan')]), 2)": (
        "RuntimeError: torch.histogramdd: dimension 0's range [nan, nan] is not finite"
    ),
    "lib.histogram(lib.tensor([1., float('inf')]), 2)": (
        "RuntimeError: torch.histogramdd: dimension 0's range [1, inf] is not finite"
    ),
    'lib.histogram(x, lib.tensor([[0., 1]]))': (
        'RuntimeError: torch.histogramdd: bins tensor should have one dimension, but got '
        '2 dimensions in the bins tensor for dimension 0'
    ),
    'lib.histogram(x, 2, range=[0, 4])': (
        'torch.return_types.histogram(\nhist=tensor([3., 3.]),\nbin_edges=tensor([0., 2., '
        '4.]))'
    ),
    'lib.histogram(x.reshape(2,3), 2)': (
        'torch.return_types.histogram(\nhist=tensor([3., 3.]),\nbin_edges=tensor([0., 2., '
        '4.]))'
    ),
    'lib.histogram(x, 2, weight=lib.ones(6).double())': (
        'RuntimeError: torch.histogramdd: if weight tensor is provided, input tensor and '
        'weight tensor should have the same dtype, but got input(float), and '
        'weight(double)'
    ),
    'lib.histogram(x, lib.tensor([0., 1]).double())': (
        'RuntimeError: torch.histogramdd: input tensor and bins tensors should have the '
        'same dtype, but got input with dtype float and bins for dimension 0 with dtype '
        'double'
    ),
    'lib.histogram(x, 2, weight=lib.ones(2, 3))': (
        'torch.return_types.histogram(\nhist=tensor([3., 3.]),\nbin_edges=tensor([0., 2., '
        '4.]))'
    ),
    'lib.histogram(lib.tensor([0.1, 0.2, 0.3]), 3, range=(0.1, 0.3))': (
        'torch.return_types.histogram(\nhist=tensor([1., 1., '
        '1.]),\nbin_edges=tensor([0.1000, 0.1667, 0.2333, 0.3000]))'
    ),
    'lib.histogram(lib.arange(100.) / 7, 13)': (
        'torch.return_types.histogram(\nhist=tensor([8., 8., 7., 8., 8., 7., 8., 7., 8., '
        '8., 7., 8., 8.]),\nbin_edges=tensor([ 0.0000,  1.0879,  2.1758,  3.2637,  '
        '4.3516,  5.4396,  6.5275,  7.6154,\n         8.7033,  9.7912, 10.8791, 11.9670, '
        '13.0549, 14.1429]))'
    ),
    'lib.histogram(x.reshape(2, 3), 3, weight=lib.arange(6.).reshape(2, 3))': (
        'torch.return_types.histogram(\nhist=tensor([7., 5., '
        '3.]),\nbin_edges=tensor([0.0000, 1.3333, 2.6667, 4.0000]))'
    ),
    'lib.histogramdd(P, bins=[2, 2])': (
        'torch.return_types.histogramdd(\nhist=tensor([[1., 0.],\n        [1., '
        '2.]]),\nbin_edges=(tensor([0., 1., 2.]), tensor([0., 1., 2.])))'
    ),
    'lib.histogramdd(P, 2, range=[0., 2., 0., 4.], weight=lib.tensor([1.,2,3,4]), density=True)': (
        'torch.return_types.histogramdd(\nhist=tensor([[0.0500, 0.0000],\n        [0.2500, '
        '0.2000]]),\nbin_edges=(tensor([0., 1., 2.]), tensor([0., 2., 4.])))'
    ),
    'lib.histogramdd(P, [lib.tensor([0., 1, 3]), lib.tensor([0., 2])])': (
        'torch.return_types.histogramdd(\nhist=tensor([[1.],\n        '
        '[3.]]),\nbin_edges=(tensor([0., 1., 3.]), tensor([0., 2.])))'
    ),
    'lib.histogramdd(P[:, 0], 2)': (
        'RuntimeError: torch.histogramdd: input tensor should have at least 2 dimensions'
    ),
    'lib.histogramdd(P, [2])': (
        'RuntimeError: histogramdd: The size of bins must be equal to the innermost '
        'dimension of the input.'
    ),
    'lib.histogramdd(P, 2, range=[0., 1.])': (
        'RuntimeError: torch.histogramdd: for a 2-dimensional histogram range should '
        'have 4 elements, but got 2'
    ),
    'lib.histogramdd(P, [0, 2])': (
        'RuntimeError: torch.histogram(): bins must be > 0, but got 0 for dimension 0'
    ),
    'lib.histogramdd(P, (2, 2))': (
        'torch.return_types.histogramdd(\nhist=tensor([[1., 0.],\n        [1., '
        '2.]]),\nbin_edges=(tensor([0., 1., 2.]), tensor([0., 1., 2.])))'
    ),
    'lib.histogramdd(P, [2,2], weight=lib.ones(4, 1))': (
        'RuntimeError: torch.histogramdd: if weight tensor is provided it should have '
        'the same shape as the input tensor excluding its innermost dimension, but got '
        'input with shape [4, 2] and weight with shape [4, 1]'
    ),
    'lib.histogramdd(P.long(), 2)': (
        'NotImplementedError: "histogramdd" not implemented for \'Long\''
    ),
    'lib.histogramdd(P, 2, range=(0., 2., 0., 2.))': (
        'torch.return_types.histogramdd(\nhist=tensor([[1., 0.],\n        [1., '
        '2.]]),\nbin_edges=(tensor([0., 1., 2.]), tensor([0., 1., 2.])))'
    ),
    'lib.histogramdd(P.reshape(2, 2, 2), 3)': (
        'torch.return_types.histogramdd(\nhist=tensor([[1., 0., 0.],\n        [0., 1., '
        '0.],\n        [1., 0., 1.]]),\nbin_edges=(tensor([0.0000, 0.6667, 1.3333, '
        '2.0000]), tensor([0.0000, 0.6667, 1.3333, 2.0000])))'
    ),
    'lib.histogramdd(P.reshape(2, 2, 2), 3, weight=lib.ones(2, 2))': (
        'torch.return_types.histogramdd(\nhist=tensor([[1., 0., 0.],\n        [0., 1., '
        '0.],\n        [1., 0., 1.]]),\nbin_edges=(tensor([0.0000, 0.6667, 1.3333, '
        '2.0000]), tensor([0.0000, 0.6667, 1.3333, 2.0000])))'
    ),
    'lib.histogram(x.requires_grad_(), 2).hist.grad_fn.name()': "'torch::autograd::NotImplemented'",
    'lib.histogram(x.requires_grad_(), 2).bin_edges.requires_grad': 'True',
    'lib.histogram(x.requires_grad_(), 2).hist.sum().backward()': (
        'RuntimeError: derivative for aten::histogram is not implemented'
    ),
    'len(lib.histogram(x, 2, weight=lib.ones(6).requires_grad_()).hist.grad_fn.next_functions)': (
        '1'
    ),
    'lib.histogramdd(P.requires_grad_(), 2).hist.grad_fn.name()': (
        "'torch::autograd::NotImplemented'"
    ),
    'lib.histogramdd(P.requires_grad_(), 2).bin_edges[1].grad_fn.name()': (
        "'torch::autograd::NotImplemented'"
    ),
    'lib.histogramdd(P.requires_grad_(), 2).hist.sum().backward()': (
        'RuntimeError: derivative for aten::_histogramdd_from_bin_cts is not implemented'
    ),
    'lib.histogramdd(P.requires_grad_(), 2).bin_edges[0].sum().backward()': (
        'RuntimeError: derivative for aten::_histogramdd_bin_edges is not implemented'
    ),
    'type(lib.histogramdd(P, 2).bin_edges).__name__': "'tuple'",
    'lib.histogram(x, 3).hist.stride()': '(1,)',
    'lib.nonzero_static(i, size=5)': (
        'tensor([[ 0,  1],\n        [ 1,  0],\n        [ 1,  2],\n        [-1, -1],\n        '
        '[-1, -1]])'
    ),
    'lib.nonzero_static(i, size=2, fill_value=7)': 'tensor([[0, 1],\n        [1, 0]])',
    'i.nonzero_static(size=1)': 'tensor([[0, 1]])',
    'lib.nonzero_static(lib.tensor(3.0), size=2)': 'tensor([], size=(2, 0), dtype=torch.int64)',
    'lib.nonzero_static(lib.tensor([0.0, 1.0]), size=0)': (
        'tensor([], size=(0, 1), dtype=torch.int64)'
    ),
    'lib.nonzero_static(i, size=-1)': (
        "RuntimeError: nonzero_static: 'size' must be an non-negative integer"
    ),
    'lib.nonzero_static(i.float().requires_grad_(), size=2).requires_grad': 'False',
    'lib.nonzero_static(lib.tensor([True, False, True]), size=3)': (
        'tensor([[ 0],\n        [ 2],\n        [-1]])'
    ),
    'lib.nonzero_static(i, size=3).stride()': '(2, 1)',
    'lib.nonzero_static(i, size=2.5)': (
        "TypeError: nonzero_static(): argument 'size' must be int, not float"
    ),
}
# fmt: on


def outcome(lib: Any, call: str) -> str:
    """The repr of what `call` gives, or the exception's type and text."""
    env = {
        "lib": lib,
        "x": lib.tensor([1.0, 2, 1, 4, 2.5, 0]),
        "P": lib.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5], [2.0, 2.0]]),
        "i": lib.tensor([[0, 1, 0], [2, 0, 3]]),
    }
    try:
        value = eval(call, env)
    except Exception as e:  # the type and text are what is compared
        return f"{type(e).__name__}: {e}"
    return repr(value).replace("chainrule.", "torch.")


@pytest.mark.parametrize("call", list(RECORDED))
def test_as_recorded(call: str) -> None:
    assert outcome(chainrule, call) == RECORDED[call]


@pytest.mark.parametrize("call", list(RECORDED))
def test_as_torch(torch: ModuleType, call: str) -> None:
    assert outcome(chainrule, call) == outcome(torch, call)


values = st.lists(
    st.floats(-50, 50, allow_nan=False, width=32) | st.sampled_from([0.0, 1.0, 2.5]),
    max_size=30,
)


@given(values, st.integers(1, 7), st.booleans(), st.booleans())
def test_histogram_matches_torch(
    torch: ModuleType, data: list[float], bins: int, weighted: bool, density: bool
) -> None:
    found = []
    for lib in (chainrule, torch):
        x = lib.tensor(data, dtype=lib.float32)
        weight = lib.arange(len(data), dtype=lib.float32) / 4 if weighted else None
        hist, edges = lib.histogram(x, bins, weight=weight, density=density and len(data) > 0)
        found.append((hist.numpy(), edges.numpy()))
    np.testing.assert_allclose(found[0][0], found[1][0], rtol=1e-5)
    np.testing.assert_array_equal(found[0][1], found[1][1])


@given(st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), min_size=1, max_size=20))
def test_histogramdd_matches_torch(torch: ModuleType, points: list[tuple[int, int]]) -> None:
    found = []
    for lib in (chainrule, torch):
        p = lib.tensor(points, dtype=lib.float64) / 2
        for bins in ([3, 2], [lib.tensor(b, dtype=lib.float64) for b in ([-2, 0, 3], [-1, 1])]):
            hist, edges = lib.histogramdd(p, bins)
            found.append([hist.numpy(), *(e.numpy() for e in edges)])
    for ours, theirs in zip(found[:2], found[2:], strict=True):
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(a, b)


@given(values, st.integers(1, 7))
def test_histogram_counts_every_value_in_range_once(data: list[float], bins: int) -> None:
    x = chainrule.tensor(data, dtype=chainrule.float64)
    hist, edges = chainrule.histogram(x, bins, range=(-10.0, 10.0))
    inside = sum(-10.0 <= v <= 10.0 for v in data)
    assert hist.sum().item() == inside
    assert edges.tolist() == pytest.approx(np.linspace(-10, 10, bins + 1).tolist())


@given(st.lists(st.integers(-2, 2), max_size=12), st.integers(0, 6), st.integers(-3, 3))
def test_nonzero_static_is_nonzero_cut_or_padded(data: list[int], size: int, fill: int) -> None:
    x = chainrule.tensor(data, dtype=chainrule.int64)
    found = chainrule.nonzero_static(x, size=size, fill_value=fill).tolist()
    positions = [[i] for i, v in enumerate(data) if v][:size]
    assert found == positions + [[fill]] * (size - len(positions))


def test_set_default_tensor_type_warns_once_and_sets_the_dtype(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runtime, "_warned_default_type", False)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            chainrule.set_default_tensor_type(chainrule.DoubleTensor)
            assert chainrule.zeros(1).dtype == chainrule.float64
            chainrule.set_default_tensor_type("torch.FloatTensor")
            assert chainrule.get_default_dtype() == chainrule.float32
        assert [str(w.message) for w in caught] == [
            "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
            "torch.set_default_dtype() and torch.set_default_device() as alternatives."
        ]
        assert caught[0].category is UserWarning
    finally:
        chainrule.set_default_dtype(chainrule.float32)


FLOATS_ONLY = "only floating-point types are supported as the default type"


@pytest.mark.parametrize(
    ("argument", "error"),
    [
        (
            chainrule.IntTensor,
            f"TypeError: {FLOATS_ONLY}",
        ),
        (
            "torch.LongTensor",
            f"TypeError: {FLOATS_ONLY}",
        ),
        (
            3,
            f"TypeError: invalid type object: {FLOATS_ONLY}",
        ),
        (
            chainrule.float64,
            f"TypeError: invalid type object: {FLOATS_ONLY}",
        ),
        ("DoubleTensor", "ModuleNotFoundError: No module named 'DoubleTensor'"),
        (
            "torch.cuda.FloatTensor",
            "TypeError: type torch.cuda.FloatTensor not available. Torch not compiled with "
            "CUDA enabled.",
        ),
    ],
)
def test_set_default_tensor_type_refuses_as_pytorch(argument: Any, error: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            chainrule.set_default_tensor_type(argument)
        except Exception as e:
            found = f"{type(e).__name__}: {e}"
        else:
            found = "no error"
    assert found == error
    assert chainrule.get_default_dtype() == chainrule.float32


def test_set_default_tensor_type_errors_are_pytorchs(torch: ModuleType) -> None:
    for argument in ("torch.IntTensor", "DoubleTensor", "torch.cuda.FloatTensor", 3):
        found = []
        for lib in (chainrule, torch):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    lib.set_default_tensor_type(argument)
                except Exception as e:
                    found.append(f"{type(e).__name__}: {e}")
        assert found[0] == found[1]


def test_layout_is_the_one_strided_layout() -> None:
    x = chainrule.zeros(2, 3)
    assert x.layout is chainrule.strided
    assert x.t()[0].layout is chainrule.strided
    assert repr(chainrule.strided) == "chainrule.strided"
    assert repr(chainrule.layout) == "<class 'chainrule.layout'>"
    assert isinstance(chainrule.strided, chainrule.layout)
    assert pickle.loads(pickle.dumps(chainrule.strided)) is chainrule.strided


def test_layout_prints_as_pytorchs(torch: ModuleType) -> None:
    ours = [repr(chainrule.zeros(1).layout), repr(chainrule.layout)]
    theirs = [repr(torch.zeros(1).layout), repr(torch.layout)]
    assert [s.replace("chainrule", "torch") for s in ours] == theirs


def test_histogram_bins_a_point_as_pytorch_does_where_edges_pile_up() -> None:
    """A subnormal range rounds several float32 edges to the same value: PyTorch puts a
    point in the bin its interpolated guess and the guess's neighbours give (recorded)."""
    found = chainrule.histogram(chainrule.tensor([0.0, 1.401298464324817e-45]), bins=5)
    assert found.hist.tolist() == [0.0, 1.0, 0.0, 0.0, 1.0]


def test_histogram_searches_out_of_order_edges_as_pytorch_bisects() -> None:
    """Subnormal edges can come out of order; PyTorch bisects the three edges around its
    guess, which puts -2.8e-45 in bin 3 here, where the last edge below it is bin 5."""
    x = [7e-45, -2.8e-45, 8.4e-45, -1.3e-44, 5.6e-45, -0.0, 5.6e-45, -1.4e-45, -2.8e-45, -0.0]
    x += [9.8e-45, 4.2e-45]
    found = chainrule.histogram(chainrule.tensor(x), bins=10)
    assert found.hist.tolist() == [1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 3.0, 3.0]
