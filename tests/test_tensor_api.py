"""The Tensor API outside the backward pass: making tensors, metadata, printing, autograd flags.

Each scenario is written once as a function of a module `m` and run with
`m=chainrule` and, when it is installed, `m=torch`; the outcomes (values,
reprs, flags, or exception type and first message line) must be equal. Tests
with fixed expectations follow and run without torch.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chainrule
from torch_compare import Scenario, as_torch_text, first_line, registry

SCENARIOS, scenario = registry()


@pytest.fixture(autouse=True)
def _grad_mode_restored() -> Iterator[None]:
    yield
    chainrule.set_grad_enabled(True)


def normalize(obj: Any, m: Any) -> Any:
    """A comparable form of a scenario result; tensors keep repr, flags and values."""
    if isinstance(obj, m.Tensor):
        return (
            "tensor",
            as_torch_text(repr(obj)),
            str(obj.dtype).replace("chainrule.", "torch."),
            tuple(obj.shape),
            obj.requires_grad,
            obj.is_leaf,
            None if obj.grad_fn is None else type(obj.grad_fn).__name__,
            obj.detach().numpy().copy(),
        )
    if isinstance(obj, m.Size):
        return ("size", tuple(obj))
    if isinstance(obj, m.dtype):
        return ("dtype", as_torch_text(str(obj)))
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, [normalize(o, m) for o in obj])
    if isinstance(obj, dict):
        return {k: normalize(v, m) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.name, obj.copy())
    if isinstance(obj, str):
        return as_torch_text(obj)
    return obj


def outcome(fn: Scenario, m: Any) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return normalize(fn(m), m)
    except Exception as e:
        return ("raises", type(e).__name__, first_line(e))


def assert_same(got: Any, want: Any, path: str = "") -> None:
    """Equal structure and values (arrays within float tolerance, NaNs equal)."""
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), path
        assert got.shape == want.shape and got.dtype == want.dtype, path
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=path)
    elif isinstance(want, tuple | list):
        assert type(got) is type(want) and len(got) == len(want), f"{path}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), path
        for k in want:
            assert_same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, float) and np.isnan(want):
        assert isinstance(got, float) and np.isnan(got), path
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


# ---------------------------------------------------------------------------------------------
# Construction


@scenario
def tensor_infers_dtype_from_python_data(m: Any) -> Any:
    return [
        m.tensor(1),
        m.tensor(1.5),
        m.tensor(True),
        m.tensor([1, 2.5]),
        m.tensor([[1, 2], [3, 4]]),
        m.tensor([True, 1]),
        m.tensor([True, False]),
        m.tensor([]),
        m.tensor([[]]),
        m.tensor([1.0, 2.0], dtype=m.float64),
        m.tensor([1.7, -2.7], dtype=m.int64),
        m.tensor(3, dtype=m.float32),
    ]


@scenario
def tensor_keeps_numpy_dtypes(m: Any) -> Any:
    return [
        m.tensor(np.array([1, 2], dtype=np.int32)),
        m.tensor(np.array([1.0, 2.0])),
        m.tensor(np.array([1.0, 2.0], dtype=np.float16)),
        m.tensor(np.array([True, False])),
        m.tensor(np.array([[1, 2]], dtype=np.uint8)),
        m.tensor(np.float64(2.5)),
        m.tensor(np.int16(3)),
        m.tensor(np.array(7)),
    ]


@scenario
def tensor_promotes_zero_dim_tensors_in_lists(m: Any) -> Any:
    f16 = m.tensor(1.0, dtype=m.float16)
    f64 = m.tensor(1.0, dtype=m.float64)
    i32 = m.tensor(1, dtype=m.int32)
    return [
        m.tensor([m.tensor(1.0), m.tensor(2.0)]),
        m.tensor([m.tensor(1), m.tensor(2)]),
        m.tensor([f64, f64]),
        m.tensor([m.tensor(1), 2.5]),
        m.tensor([1, f64]),
        m.tensor([i32, 2]),
        m.tensor([f16, 2.5]),
        m.tensor([f16, 2]),
        m.tensor([[1, 2], [f64, 3]]),
        m.tensor([m.tensor(True), 1]),
        m.tensor([1.5, np.array(2)]),
    ]


@scenario
def tensor_of_a_tensor_copies(m: Any) -> Any:
    a = m.tensor([1.0, 2.0], requires_grad=True)
    b = m.tensor(a)
    b[0] = 9
    return [a, b]


@scenario
def tensor_of_ragged_data(m: Any) -> Any:
    return m.tensor([[1, 2], [3]])


@scenario
def legacy_constructors(m: Any) -> Any:
    return [
        m.Tensor([1, 2]),
        m.Tensor([[1.5]]),
        m.Tensor(),
        m.Tensor(2, 3).shape,
        m.Tensor(2, 3).dtype,
        m.Tensor(m.Size([2])).shape,
        m.FloatTensor([1, 2]),
        m.DoubleTensor([1, 2]),
        m.LongTensor([1, 2]),
        m.LongTensor([1.7, -2.2]),
        m.FloatTensor(2, 2).shape,
        m.LongTensor(3).dtype,
        m.Tensor(np.array([1, 2])),
    ]


@scenario
def legacy_isinstance_and_type(m: Any) -> Any:
    f = m.tensor([1.0])
    d = m.tensor([1.0], dtype=m.float64)
    n = m.tensor([1])
    return [
        isinstance(f, m.FloatTensor),
        isinstance(f, m.DoubleTensor),
        isinstance(d, m.DoubleTensor),
        isinstance(n, m.LongTensor),
        isinstance(n, m.FloatTensor),
        isinstance(m.FloatTensor([1]), m.Tensor),
        type(m.DoubleTensor([1])).__name__,
        f.type(),
        d.type(),
        n.type(),
        m.tensor([True]).type(),
    ]


@scenario
def legacy_constructor_rejects_a_float(m: Any) -> Any:
    return m.Tensor(2.5)


@scenario
def filled_tensors(m: Any) -> Any:
    return [
        m.zeros(2, 3),
        m.zeros((2, 3)),
        m.zeros([2]),
        m.zeros(2, dtype=m.int64),
        m.ones(2, 1),
        m.ones(()),
        m.zeros(0),
        m.ones(m.Size([2, 2])),
        m.empty(2, 3).shape,
        m.empty(2, dtype=m.float64).dtype,
        m.full((2,), 1),
        m.full((2,), 1.5),
        m.full((2,), True),
        m.full([2, 2], 7, dtype=m.float64),
        m.full((), 3.0),
        m.zeros(2, requires_grad=True),
    ]


@scenario
def negative_size(m: Any) -> Any:
    return m.zeros(2, -1)


@scenario
def negative_size_ones(m: Any) -> Any:
    return m.ones(2, -1)


@scenario
def negative_size_empty(m: Any) -> Any:
    return m.empty(-1)


@scenario
def aranges(m: Any) -> Any:
    return [
        m.arange(5),
        m.arange(1, 4),
        m.arange(5.0),
        m.arange(0, 1, 0.1),
        m.arange(5, 0, -1),
        m.arange(10, 0, -3),
        m.arange(1.0, 2.0, 0.3),
        m.arange(0, 1, 0.3),
        m.arange(-1, 1, 0.5),
        m.arange(0, -2.5, -0.5),
        m.arange(0, 5, 2, dtype=m.float64),
        m.arange(1, 1),
        m.arange(m.tensor(3)),
    ]


@scenario
def arange_lengths_with_float_steps(m: Any) -> Any:
    cases = [(0, 1, 0.1), (0, 10, 0.7), (-3, 3.1, 0.2), (1, 2, 0.1), (0, 0.3, 0.1), (0, 0.9, 0.3)]
    return [len(m.arange(*c)) for c in cases]


@scenario
def arange_step_of_the_wrong_sign(m: Any) -> Any:
    return m.arange(0, 5, -1)


@scenario
def arange_zero_step(m: Any) -> Any:
    return m.arange(0, 5, 0)


@scenario
def linspace_and_eye(m: Any) -> Any:
    return [
        m.linspace(0, 1, 5),
        m.linspace(-1, 1, 3),
        m.linspace(0, 1, 1),
        m.linspace(0, 1, 0),
        m.linspace(2, 10, steps=4, dtype=m.float64),
        m.eye(2),
        m.eye(2, 3),
        m.eye(3, dtype=m.int64),
        m.eye(0),
    ]


@scenario
def like_factories(m: Any) -> Any:
    x = m.tensor([[1, 2], [3, 4]])
    y = m.tensor([1.5, 2.5], dtype=m.float64)
    return [
        m.zeros_like(x),
        m.ones_like(y),
        m.full_like(x, 7),
        m.full_like(x, 2.7),
        m.full_like(y, 2),
        m.zeros_like(x, dtype=m.float32),
        m.ones_like(y, requires_grad=True),
        m.empty_like(y).shape,
        m.empty_like(y).dtype,
        m.rand_like(y).dtype,
        m.randn_like(y).shape,
    ]


@scenario
def random_tensors_shapes_and_dtypes(m: Any) -> Any:
    ints = m.randint(3, 10, (200,))
    return [
        m.rand(2, 3).shape,
        m.rand(()).shape,
        m.rand(2, dtype=m.float64).dtype,
        m.randn(4).dtype,
        m.randn(2, 2, requires_grad=True).requires_grad,
        m.randint(0, 5, (3,)).dtype,
        m.randint(5, (2, 2)).shape,
        all(3 <= v < 10 for v in ints.tolist()),
        all(0 <= v < 1 for v in m.rand(500).tolist()),
    ]


@scenario
def randint_empty_range(m: Any) -> Any:
    return m.randint(5, 5, (2,))


@scenario
def from_numpy_shares_memory_both_ways(m: Any) -> Any:
    a = np.array([1.0, 2.0, 3.0])
    t = m.from_numpy(a)
    a[0] = 5
    t[1] = 7
    t.add_(1)
    return [t, a, t.dtype, np.shares_memory(t.numpy(), a)]


@scenario
def numpy_shares_memory(m: Any) -> Any:
    t = m.tensor([1.0, 2.0])
    n = t.numpy()
    n[0] = 10
    return [t, n.dtype.name]


# ---------------------------------------------------------------------------------------------
# Metadata and conversion


@scenario
def metadata(m: Any) -> Any:
    x = m.zeros(2, 3, 4)
    s = m.tensor(1.5)
    return [
        x.shape,
        x.size(),
        x.size(1),
        x.size(-1),
        x.dim(),
        x.ndim,
        x.numel(),
        s.dim(),
        s.shape,
        s.numel(),
        x.dtype,
        str(x.device),
        repr(x.device),
        x.device == s.device,
        x.shape == (2, 3, 4),
        x.shape[1:],
        type(x.shape[1:]).__name__,
        repr(x.shape),
        str(x.size()),
        repr(m.Size([])),
        repr(m.Size([1])),
        m.Size([2, 3]).numel(),
        x.is_floating_point(),
        m.tensor([1]).is_floating_point(),
        m.tensor([True]).is_floating_point(),
    ]


@scenario
def size_of_a_missing_dim(m: Any) -> Any:
    return m.zeros(2).size(3)


@scenario
def item_and_tolist(m: Any) -> Any:
    return [
        m.tensor(2.5).item(),
        type(m.tensor(2).item()).__name__,
        type(m.tensor(True).item()).__name__,
        m.tensor([3.0]).item(),
        m.tensor([[4]]).item(),
        m.tensor([[1, 2], [3, 4]]).tolist(),
        m.tensor(1.5).tolist(),
        m.tensor([True, False]).tolist(),
        m.tensor(2.5, requires_grad=True).item(),
    ]


@scenario
def item_of_many_elements(m: Any) -> Any:
    return m.tensor([1.0, 2.0]).item()


@scenario
def numpy_refuses_a_tensor_that_requires_grad(m: Any) -> Any:
    return m.ones(2, requires_grad=True).numpy()


@scenario
def np_array_refuses_a_tensor_that_requires_grad(m: Any) -> Any:
    return np.array(m.ones(2, requires_grad=True))


@scenario
def numpy_of_a_detached_tensor(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    return [x.detach().numpy(), np.asarray(x.detach()), np.array(m.tensor([1, 2]))]


@scenario
def conversions(m: Any) -> Any:
    x = m.tensor([1.5, -2.5])
    return [
        x.float(),
        x.double(),
        x.long(),
        x.int(),
        x.half(),
        x.bool(),
        x.to(m.float64),
        x.to(m.int64),
        x.to(dtype=m.float64),
        x.to("cpu") is x,
        x.to(m.float32) is x,
        x.float() is x,
        x.to(m.tensor([1], dtype=m.float64)),
        x.long().is_floating_point(),
    ]


@scenario
def conversions_in_the_graph(m: Any) -> Any:
    x = m.tensor([1.5, -2.5], requires_grad=True)
    d = x.double()
    d.sum().backward()
    return [d, x.long(), x.int(), x.bool(), x.float() is x, x.to(m.float64).grad_fn.name(), x.grad]


# ---------------------------------------------------------------------------------------------
# requires_grad, data, detach, Variable, .grad


@scenario
def int_tensor_requires_grad_(m: Any) -> Any:
    return m.tensor([1, 2]).requires_grad_()


@scenario
def int_tensor_requires_grad_attribute(m: Any) -> Any:
    t = m.tensor([1, 2])
    t.requires_grad = True
    return t


@scenario
def bool_tensor_requires_grad_(m: Any) -> Any:
    return m.tensor([True]).requires_grad_()


@scenario
def int_tensor_factory_requires_grad(m: Any) -> Any:
    return m.tensor([1, 2], requires_grad=True)


@scenario
def int_zeros_requires_grad(m: Any) -> Any:
    return m.zeros(2, dtype=m.int64, requires_grad=True)


@scenario
def int_arange_requires_grad(m: Any) -> Any:
    return m.arange(3, requires_grad=True)


@scenario
def int_variable_requires_grad(m: Any) -> Any:
    return m.autograd.Variable(m.tensor([1, 2]), requires_grad=True)


@scenario
def requires_grad_must_be_a_bool(m: Any) -> Any:
    return m.ones(1).requires_grad_(1)


@scenario
def requires_grad_attribute_must_be_a_bool(m: Any) -> Any:
    t = m.ones(1)
    t.requires_grad = 1


@scenario
def int_tensor_requires_grad_false_is_fine(m: Any) -> Any:
    return [m.tensor([1, 2]).requires_grad_(False), m.tensor([1, 2], requires_grad=False)]


@scenario
def leaf_requires_grad_toggles(m: Any) -> Any:
    x = m.ones(2)
    x.requires_grad = True
    r = [repr(x), x.is_leaf, x.requires_grad]
    x.requires_grad_(False)
    return [*r, x, x.requires_grad_() is x]


@scenario
def non_leaf_requires_grad_false(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    y = x * 2
    y.requires_grad = False


@scenario
def non_leaf_requires_grad_false_method(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    (x * 2).requires_grad_(False)


@scenario
def non_leaf_requires_grad_true_method_is_fine(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    y = x * 2
    return [y.requires_grad_(True) is y, y]


@scenario
def non_leaf_requires_grad_true_attribute(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    y = x * 2
    y.requires_grad = True


@scenario
def data_shares_memory_but_not_the_graph(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = x.data
    d[0] = 10
    return [
        x,
        d,
        d.requires_grad,
        d.is_leaf,
        d.grad_fn,
        y.data,
        y.data.grad_fn,
        y.data.is_leaf,
        x.data.data_ptr() == x.data_ptr(),
        x._version,
    ]


@scenario
def writes_through_data_are_invisible_to_autograd(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.data.add_(1)
    y.sum().backward()
    return [y, x.grad, y._version]


@scenario
def data_setter(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.data = m.tensor([5.0, 6.0])
    y.backward()
    return [x, x.grad, x.is_leaf]


@scenario
def data_setter_changes_dtype_and_shape(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    x.data = m.tensor([5.0, 6.0], dtype=m.float64)
    r = [x, x.dtype]
    x.data = m.ones(2, 2)
    return [*r, x]


@scenario
def data_setter_shares_memory(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    src = m.tensor([5.0, 6.0])
    x.data = src
    src[0] = 0
    return [x]


@scenario
def data_setter_rejects_a_list(m: Any) -> Any:
    x = m.tensor([1.0, 2.0])
    x.data = [1.0, 2.0]


@scenario
def detach_and_detach_(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.detach()
    z[0] = 100
    w = y.detach_()
    return [z, y, y.requires_grad, y.is_leaf, y.grad_fn, w is y, z.requires_grad, z.is_leaf]


@scenario
def detach_of_a_leaf(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    d.add_(1)
    return [x, d, d is x, x._version, d._version]


@scenario
def detach_shares_the_version_counter(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.detach().add_(1)
    y.sum().backward()


@scenario
def detach__of_a_view(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2)[0:1]
    y.detach_()


@scenario
def variable_legacy_alias(m: Any) -> Any:
    V = m.autograd.Variable
    t = m.tensor([1.0, 2.0])
    x = V(t, requires_grad=True)
    y = V(m.tensor([3.0]))
    t[0] = 9
    return [
        x,
        y,
        type(x).__name__,
        isinstance(x, V),
        isinstance(m.ones(1), V),
        x.is_leaf,
        y.requires_grad,
    ]


@scenario
def variable_of_a_non_leaf(m: Any) -> Any:
    a = m.ones(2, requires_grad=True)
    v = m.autograd.Variable(a * 2)
    return [v, v.is_leaf, v.grad_fn, v.requires_grad]


@scenario
def variable_of_a_list(m: Any) -> Any:
    return m.autograd.Variable([1.0, 2.0])


@scenario
def grad_setter_wrong_shape(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    x.grad = m.ones(3)


@scenario
def grad_setter_wrong_dtype(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    x.grad = m.ones(2, dtype=m.float64)


@scenario
def grad_setter_wrong_dtype_and_shape(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    x.grad = m.ones(2, 2, dtype=m.float64)


@scenario
def grad_setter_int_grad(m: Any) -> Any:
    x = m.ones(2, requires_grad=True, dtype=m.float64)
    x.grad = m.tensor([1, 2])


@scenario
def grad_setter_a_list(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    x.grad = [1.0, 1.0]


@scenario
def grad_setter_an_ndarray(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    x.grad = np.ones(2, dtype=np.float32)


@scenario
def grad_setter_a_number(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    x.grad = 3


@scenario
def grad_setter_accepted_and_accumulated_into(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    g = m.tensor([3.0, 4.0])
    x.grad = g
    (x * 2).sum().backward()
    r = [x.grad, g, x.grad is g]
    del x.grad
    return [*r, x.grad]


@scenario
def grad_setter_on_tensors_without_requires_grad(m: Any) -> Any:
    x = m.ones(2)
    x.grad = m.ones(2)
    y = m.tensor([1, 2])
    y.grad = m.tensor([1, 2])
    return [x.grad, y.grad, x.requires_grad]


# ---------------------------------------------------------------------------------------------
# Python protocols


@scenario
def python_protocols(m: Any) -> Any:
    x = m.tensor([[1.0, 2.0], [3.0, 4.0]])
    s = m.tensor(2.5)
    i = m.tensor(3)
    return [
        len(x),
        list(x),
        [r.tolist() for r in m.tensor([1, 2, 3])],
        bool(m.tensor([1.0])),
        bool(m.tensor(0.0)),
        bool(m.tensor([[True]])),
        float(s),
        int(s),
        int(m.tensor(-2.7)),
        int(m.tensor([7])),
        float(m.tensor([[1.5]])),
        complex(m.tensor(2.0)),
        [10, 20, 30, 40][i],
        list(range(5))[m.tensor(1) : m.tensor(3)],
        hex(i),
        format(s, ".2f"),
        f"{s:.3f}",
        f"{i:d}",
        f"{i:>4}",
        f"{i}",
        f"{s}",
        f"{m.tensor(True)}",
        format(x),
        f"{m.tensor(1.5, requires_grad=True):.2f}",
        float(m.tensor(1.5, requires_grad=True)),
        hash(x) == hash(x),
        hash(x) == id(x),
        len({x, x.clone(), x}),
        x in [x],
    ]


@scenario
def len_of_a_0d_tensor(m: Any) -> Any:
    return len(m.tensor(1.0))


@scenario
def iter_of_a_0d_tensor(m: Any) -> Any:
    return list(m.tensor(1.0))


@scenario
def bool_of_many_values(m: Any) -> Any:
    return bool(m.tensor([1.0, 2.0]))


@scenario
def bool_of_no_values(m: Any) -> Any:
    return bool(m.tensor([]))


@scenario
def float_of_many_values(m: Any) -> Any:
    return float(m.tensor([1.0, 2.0]))


@scenario
def int_of_many_values(m: Any) -> Any:
    return int(m.tensor([1.0, 2.0]))


@scenario
def index_with_a_float_tensor(m: Any) -> Any:
    return [1, 2][m.tensor(1.0)]


@scenario
def index_with_many_values(m: Any) -> Any:
    return [1, 2][m.tensor([1, 0])]


@scenario
def format_spec_on_a_1d_tensor(m: Any) -> Any:
    return f"{m.tensor([1.0, 2.0]):.2f}"


@scenario
def numpy_scalars_on_either_side(m: Any) -> Any:
    t = m.tensor([1.0, 2.0], requires_grad=True)
    r = [np.float64(2) * t, t * np.float64(2), np.float32(3) + t, np.int64(2) - t, t / np.int32(4)]
    r[0].sum().backward()
    return [*r, [type(v).__name__ for v in r], t.grad]


# With NumPy 2, torch 2.13 does not take an ndarray on the left of an operator: NumPy
# defers to the tensor (`__array_ufunc__ = None`) and the tensor's reflected op declines.


@scenario
def numpy_array_plus_tensor(m: Any) -> Any:
    return np.array([10.0, 20.0]) + m.tensor([1.0, 2.0])


@scenario
def numpy_array_times_tensor(m: Any) -> Any:
    return np.array([10.0, 20.0], dtype=np.float32) * m.tensor([1.0, 2.0])


# ---------------------------------------------------------------------------------------------
# Printing


@scenario
def reprs_with_autograd_suffixes(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    d = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
    h = m.tensor([0.5, 1.5], dtype=m.float16, requires_grad=True)
    return [
        repr(x),
        repr(x * 2),
        repr(d),
        repr(d * 2),
        repr(h * 2),
        repr(m.tensor(3.0, requires_grad=True)),
        repr((x * x).sum()),
        repr(m.tensor([1, 2])),
        repr(m.tensor([1, 2], dtype=m.int32)),
        repr(m.tensor([], dtype=m.int64)),
        repr(m.tensor([True])),
        repr(m.zeros(0, 3, requires_grad=True)),
        repr(m.ones(2, 2, dtype=m.float64) * 1e-8),
        str(x),
        repr(x.detach()),
        repr(m.tensor(1.0, dtype=m.float64)),
        repr(m.float64),
        str(m.int64),
        repr(m.randn(50, 50, requires_grad=True).shape),
    ]


@scenario
def repr_of_a_long_row_with_suffixes(m: Any) -> Any:
    x = m.arange(-20.0, 20.0, 3.7, dtype=m.float64, requires_grad=True)
    return [repr(x), repr(x * 1000), repr((x * 1e6).to(m.float16))]


DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def random_array(draw: Any) -> np.ndarray:
    dt = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    if dt == "bool":
        return draw(hnp.arrays(np.bool_, shape))
    if dt in ("float32", "float64", "float16"):
        exponent = draw(st.integers(-6, 8))
        seed = draw(st.integers(0, 2**32 - 1))
        values = np.random.default_rng(seed).standard_normal(shape) * 10.0**exponent
        with np.errstate(over="ignore"):  # large values overflow float16 to inf, also printed
            return values.astype(dt)
    info = np.iinfo(dt)
    elements = st.integers(max(info.min, -1000), min(info.max, 1000))
    return draw(hnp.arrays(np.dtype(dt), shape, elements=elements))


@st.composite
def printed_tensors(draw: Any) -> tuple[np.ndarray, int]:
    a = random_array(draw)
    mode = draw(st.integers(0, 2)) if a.dtype.kind == "f" else 0
    return a, mode


def repr_of(m: Any, a: np.ndarray, mode: int) -> str:
    t = m.tensor(a.copy())
    if mode == 1:
        t.requires_grad_()
    elif mode == 2:
        t = t.requires_grad_() * 1
    return as_torch_text(repr(t))


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(printed_tensors())
def test_repr_matches_torch_on_random_tensors(torch: Any, case: tuple[np.ndarray, int]) -> None:
    a, mode = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr_of(chainrule, a, mode) == repr_of(torch, a, mode)


# ---------------------------------------------------------------------------------------------
# Every scenario against torch


@pytest.mark.parametrize("fn", SCENARIOS, ids=[f.__name__ for f in SCENARIOS])
def test_matches_torch(torch: Any, fn: Scenario) -> None:
    assert_same(outcome(fn, chainrule), outcome(fn, torch))


# ---------------------------------------------------------------------------------------------
# Fixed expectations (recorded from PyTorch 2.13), run without torch


def raises(fn: Callable[[], Any]) -> tuple[str, str]:
    try:
        fn()
    except Exception as e:
        return type(e).__name__, first_line(e)
    raise AssertionError("no exception")


def test_dtype_inference() -> None:
    cr = chainrule
    assert cr.tensor(1).dtype is cr.int64
    assert cr.tensor(1.5).dtype is cr.float32
    assert cr.tensor(True).dtype is cr.bool
    assert cr.tensor([1, 2.5]).dtype is cr.float32
    assert cr.tensor([]).dtype is cr.float32
    assert cr.tensor(np.array([1, 2], dtype=np.int32)).dtype is cr.int32
    assert cr.tensor(np.array([1.0])).dtype is cr.float64
    f64 = cr.tensor(1.0, dtype=cr.float64)
    assert cr.tensor([cr.tensor(1), 2.5]).dtype is cr.float32
    assert cr.tensor([1, f64]).dtype is cr.float64
    assert cr.tensor([cr.tensor(1.0, dtype=cr.float16), 2]).dtype is cr.float16
    assert cr.tensor([cr.tensor(1, dtype=cr.int32), 2]).dtype is cr.int64


def test_legacy_constructors() -> None:
    cr = chainrule
    assert repr(cr.Tensor([1, 2])) == "tensor([1., 2.])"
    assert cr.Tensor(2, 3).shape == (2, 3)
    assert cr.Tensor(2, 3).dtype is cr.float32
    assert repr(cr.LongTensor([1.7, -2.2])) == "tensor([ 1, -2])"
    assert isinstance(cr.tensor([1.0]), cr.FloatTensor)
    assert not isinstance(cr.tensor([1.0]), cr.DoubleTensor)
    assert isinstance(cr.DoubleTensor([1]), cr.Tensor)
    assert cr.tensor([1]).type() == "chainrule.LongTensor"
    assert raises(lambda: cr.Tensor(2.5)) == (
        "TypeError",
        "new(): data must be a sequence (got float)",
    )


def test_arange_and_full() -> None:
    cr = chainrule
    assert cr.arange(5).dtype is cr.int64
    assert cr.arange(5.0).dtype is cr.float32
    assert cr.arange(5, 0, -1).tolist() == [5, 4, 3, 2, 1]
    assert len(cr.arange(0, 1, 0.1)) == 10
    assert len(cr.arange(1, 2, 0.1)) == 10
    assert len(cr.arange(0, 0.9, 0.3)) == 3
    np.testing.assert_allclose(cr.arange(1.0, 2.0, 0.3).numpy(), [1.0, 1.3, 1.6, 1.9], rtol=1e-6)
    assert raises(lambda: cr.arange(0, 5, -1)) == (
        "RuntimeError",
        "upper bound and lower bound inconsistent with step sign",
    )
    assert cr.full((2,), 1).dtype is cr.int64
    assert cr.full((2,), 1.5).dtype is cr.float32
    assert cr.full((2,), True).dtype is cr.bool
    assert cr.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert cr.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


def test_manual_seed_reproduces_random_tensors() -> None:
    cr = chainrule
    cr.manual_seed(123)
    first = [cr.rand(3), cr.randn(2, 2), cr.randint(0, 100, (5,))]
    cr.manual_seed(123)
    again = [cr.rand(3), cr.randn(2, 2), cr.randint(0, 100, (5,))]
    for a, b in zip(first, again, strict=True):
        assert a.tolist() == b.tolist()
    cr.manual_seed(124)
    assert cr.rand(3).tolist() != first[0].tolist()
    assert cr.initial_seed() == 124


def test_from_numpy_shares_memory_both_ways() -> None:
    a = np.array([1.0, 2.0])
    t = chainrule.from_numpy(a)
    a[0] = 5.0
    t[1] = 7.0
    assert t.tolist() == [5.0, 7.0]
    assert a.tolist() == [5.0, 7.0]
    assert t.dtype is chainrule.float64


def test_numpy_refuses_requires_grad() -> None:
    x = chainrule.ones(2, requires_grad=True)
    message = (
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    )
    assert raises(x.numpy) == ("RuntimeError", message)
    assert raises(lambda: np.asarray(x)) == ("RuntimeError", message)


def test_requires_grad_messages() -> None:
    cr = chainrule
    lower = ("RuntimeError", "only Tensors of floating point dtype can require gradients")
    upper = (
        "RuntimeError",
        "Only Tensors of floating point and complex dtype can require gradients",
    )
    assert raises(lambda: cr.tensor([1, 2]).requires_grad_()) == lower
    assert raises(lambda: cr.tensor([1, 2], requires_grad=True)) == upper
    assert raises(lambda: cr.zeros(2, dtype=cr.int64, requires_grad=True)) == upper
    assert raises(lambda: cr.autograd.Variable(cr.tensor([1]), requires_grad=True)) == upper
    y = cr.ones(2, requires_grad=True) * 2
    kind, message = raises(lambda: y.requires_grad_(False))
    assert kind == "RuntimeError"
    assert message.startswith("you can only change requires_grad flags of leaf variables.")


def test_data_and_detach() -> None:
    x = chainrule.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = x.data
    d[0] = 10.0
    assert x.tolist() == [10.0, 2.0]
    assert not d.requires_grad and d.is_leaf
    assert y.data.grad_fn is None
    z = y.detach()
    assert z.is_leaf and not z.requires_grad
    assert y.detach_() is y
    assert y.is_leaf and y.grad_fn is None and not y.requires_grad


def test_grad_setter_messages() -> None:
    x = chainrule.ones(2, requires_grad=True)
    kind, message = raises(lambda: setattr(x, "grad", chainrule.ones(3)))
    assert kind == "RuntimeError"
    assert message.startswith("attempting to assign a gradient of size '[3]' to a tensor of size")
    kind, message = raises(lambda: setattr(x, "grad", chainrule.ones(2, dtype=chainrule.float64)))
    assert kind == "RuntimeError"
    assert message.startswith(
        "attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'."
    )
    assert raises(lambda: setattr(x, "grad", np.ones(2))) == (
        "TypeError",
        "assigned grad expected to be a Tensor or None but got grad of type numpy.ndarray",
    )
    assert raises(lambda: setattr(x, "grad", [1.0])) == (
        "TypeError",
        "assigned grad expected to be a Tensor or None but got grad of type list",
    )


def test_non_leaf_grad_access_warns() -> None:
    x = chainrule.ones(2, requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None  # no warning once the tensor retains its grad
        assert x.grad is None  # nor for leaves


def test_non_leaf_grad_warning_matches_torch(torch: Any) -> None:
    for m in (chainrule, torch):
        y = m.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning) as record:
            y.grad  # noqa: B018
        # torch appends where in its C++ sources the warning came from
        messages = [
            str(w.message).split(" (Triggered internally at")[0]
            for w in record
            if issubclass(w.category, UserWarning)
        ]
        if m is chainrule:
            ours = messages
        else:
            assert ours == messages


def test_tensor_of_a_tensor_warns() -> None:
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        chainrule.tensor(chainrule.ones(2))


def test_python_protocols() -> None:
    cr = chainrule
    s = cr.tensor(2.5)
    x = cr.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert len(x) == 2
    assert [r.tolist() for r in x] == [[1.0, 2.0], [3.0, 4.0]]
    assert f"{s}" == "2.5" and f"{s:.2f}" == "2.50"
    assert f"{x}" == repr(x)
    assert [1, 2, 3][cr.tensor(2)] == 3
    assert hash(x) == id(x)
    assert raises(lambda: float(cr.tensor([1.0, 2.0]))) == (
        "ValueError",
        "only one element tensors can be converted to Python scalars",
    )
    assert raises(lambda: f"{x:.2f}") == (
        "TypeError",
        "unsupported format string passed to Tensor.__format__",
    )
    assert raises(lambda: len(s)) == ("TypeError", "len() of a 0-d tensor")
    assert raises(lambda: bool(x)) == (
        "RuntimeError",
        "Boolean value of Tensor with more than one value is ambiguous",
    )
    result = np.float64(2.0) * cr.tensor([1.0, 1.0])
    assert isinstance(result, cr.Tensor)
    assert result.dtype is cr.float32
    with pytest.raises(TypeError):
        np.array([1.0, 2.0]) + cr.tensor([1.0, 1.0])  # as torch 2.13 with NumPy 2


def test_reprs() -> None:
    cr = chainrule
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(cr.tensor([1.0], dtype=cr.float64, requires_grad=True)) == (
        "tensor([1.], dtype=chainrule.float64, requires_grad=True)"
    )
    assert repr(cr.Size([2, 3])) == "chainrule.Size([2, 3])"
    # Lines break where torch breaks them, measured with torch's shorter dtype names.
    h = cr.tensor([94.0, -743.5, -921.5, -457.75], dtype=cr.float16, requires_grad=True) * 1
    assert as_torch_text(repr(h.reshape(2, 2))) == (
        "tensor([[  94.0000, -743.5000],\n"
        "        [-921.5000, -457.7500]], dtype=torch.float16, grad_fn=<ViewBackward0>)"
    )


def test_grad_mode_is_thread_local_for_new_tensors() -> None:
    seen: dict[str, bool] = {}
    x = chainrule.ones(1, requires_grad=True)

    def worker() -> None:
        seen["requires_grad"] = (x * 2).requires_grad

    with chainrule.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen["requires_grad"] is True


def test_explicit_dtype_is_not_rounded_through_the_default_float():
    import chainrule

    assert chainrule.tensor([0.1], dtype=chainrule.float64).item() == 0.1
    assert chainrule.DoubleTensor([0.1]).item() == 0.1
    assert chainrule.tensor(0.1, dtype=chainrule.float64).item() == 0.1
