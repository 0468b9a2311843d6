"""The shortcuts on the hot path agree with the general code they bypass.

- `pair_dtype` (two same-dtype tensors, or a tensor and a number its dtype holds)
  gives `result_type`'s answer whenever it gives one;
- the arithmetic operators' direct route to their primitive gives the values,
  dtypes and graph of the general functions;
- `mute`/`unmute` silence NumPy's floating-point warnings for one call, per
  thread, and put the previous setting back;
- saved values and parameters read as class fields behave as the `__getattr__`
  fallback did (errors included);
- the one-input ops with a number that derivative rules and composites use
  (`mul_scalar`, `add_scalar`, `div_scalar`) compute what the operators do.
"""

from __future__ import annotations

import operator
import threading
import warnings
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule as cr
from chainrule import _dtype
from chainrule._ops.operands import pair_dtype
from chainrule._ops.quiet import mute, quiet, unmute

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
NUMBERS = (
    st.booleans()
    | st.integers(-(2**62), 2**62)
    | st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
)


@st.composite
def tensors(draw: st.DrawFn) -> cr.Tensor:
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(st.sampled_from([(), (3,), (2, 3)]))
    values = draw(hnp.arrays(np.float64, shape, elements=st.floats(-100, 100)))
    return cr.tensor(values.astype(dtype))


@given(tensors(), tensors() | NUMBERS)
def test_pair_dtype_agrees_with_result_type(a: cr.Tensor, b: Any) -> None:
    fast = pair_dtype(a, b)
    if fast is not None:
        assert fast is _dtype.result_type(a, b)


def test_pair_dtype_leaves_the_real_promotions_to_result_type() -> None:
    f32, i64, b = cr.ones(2), cr.ones(2, dtype=cr.int64), cr.ones(2, dtype=cr.bool)
    assert pair_dtype(f32, i64) is None  # two dtypes
    assert pair_dtype(i64, 2.5) is None  # an int tensor and a float: the default float
    assert pair_dtype(b, 3) is None  # a bool tensor and an int: int64
    assert pair_dtype(f32, np.float64(2.0)) is None  # NumPy scalars take the full rules
    assert pair_dtype(2.0, f32) is None  # the number first
    assert pair_dtype(f32, 2) is cr.float32
    assert pair_dtype(i64, True) is cr.int64


OPERATORS = {
    "+": (operator.add, cr.add),
    "-": (operator.sub, cr.sub),
    "*": (operator.mul, cr.mul),
    "/": (operator.truediv, cr.div),
    "**": (operator.pow, cr.pow),
}


@pytest.mark.parametrize("symbol", OPERATORS)
@given(
    dtype=st.sampled_from(["float16", "float32", "float64"]),
    other=st.sampled_from(["same", "int", "float", "other dtype"]),
    reflected=st.booleans(),
    data=st.data(),
)
def test_operators_match_the_general_functions(
    symbol: str, dtype: str, other: str, reflected: bool, data: st.DataObject
) -> None:
    """`a * b` (the direct route) and `cr.mul(a, b)` (the general one): same values, dtype,
    grad_fn name and edges, and gradients."""
    op, fn = OPERATORS[symbol]
    elements = st.floats(0.5, 4.0)
    a = cr.tensor(data.draw(hnp.arrays(np.float64, (3,), elements=elements)).astype(dtype))
    a.requires_grad_()
    b: Any
    if other == "same":
        b = cr.tensor(data.draw(hnp.arrays(np.float64, (2, 3), elements=elements)).astype(dtype))
        b.requires_grad_()
    elif other == "other dtype":
        b = cr.tensor(data.draw(hnp.arrays(np.float64, (3,), elements=elements)))
    elif other == "int":
        b = data.draw(st.integers(1, 5))
    else:
        b = data.draw(elements)
    left, right = (b, a) if reflected else (a, b)
    if reflected and not isinstance(b, cr.Tensor):
        # number op tensor: only + and * have the general function's argument order.
        if symbol not in ("+", "*"):
            return
        fast, general = op(left, right), fn(a, b)
    else:
        fast, general = op(left, right), fn(left, right)
    assert fast.dtype == general.dtype
    np.testing.assert_array_equal(fast.detach().numpy(), general.detach().numpy())
    assert fast.grad_fn.name() == general.grad_fn.name()
    assert [e[0] is None for e in fast.grad_fn.next_functions] == [
        e[0] is None for e in general.grad_fn.next_functions
    ]
    tensors_ = [t for t in (a, b) if isinstance(t, cr.Tensor) and t.requires_grad]
    g_fast = cr.autograd.grad(fast.sum(), tensors_)
    g_general = cr.autograd.grad(general.sum(), tensors_)
    for x, y in zip(g_fast, g_general, strict=True):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_operator_on_an_integer_tensor_still_promotes() -> None:
    i = cr.tensor([1, 2, 3])
    assert (i * 2).dtype == cr.int64
    assert (i * 2.5).dtype == cr.float32
    assert (i / 2).dtype == cr.float32
    assert (cr.ones(2, dtype=cr.float16) + cr.ones(2)).dtype == cr.float32


def test_mute_silences_warnings_and_restores_the_setting() -> None:
    before = np.geterr()
    token = mute()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.log(np.array([0.0]))[0] == -np.inf
            assert np.geterr()["divide"] == "ignore"
    finally:
        unmute(token)
    assert np.geterr() == before
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.array([0.0]))


def test_quiet_restores_the_setting_after_an_exception() -> None:
    before = np.geterr()

    def boom() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        quiet(boom)
    assert np.geterr() == before


def test_mute_nests_and_is_per_thread() -> None:
    outer = mute()
    inner = mute()
    unmute(inner)
    assert np.geterr()["invalid"] == "ignore"  # the outer mute still holds
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.append(np.geterr()["invalid"]))
    thread.start()
    thread.join()
    unmute(outer)
    assert seen == ["warn"]  # another thread kept its own setting
    assert np.geterr()["invalid"] == "warn"


def test_ops_are_silent_but_the_user_setting_survives() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = cr.tensor([0.0, -1.0]).log() + cr.tensor([1.0, 0.0]) / 0.0
        total = cr.tensor([np.inf, -np.inf]).sum()  # inf + -inf in a reduction
        big = cr.tensor([1e308, -1e308])  # too big for float32: inf, as in torch
    assert np.isnan(out.numpy()[1])
    assert np.isnan(total.item())
    assert big.tolist() == [np.inf, -np.inf]
    with pytest.warns(RuntimeWarning):
        np.sqrt(np.array([-1.0]))


def test_saved_values_and_parameters_read_as_fields() -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x**3
    node = y.grad_fn
    assert node.exponent == 3
    assert node._saved_exponent == 3
    assert node.self is x
    assert node._saved_self is x
    # A field of the class is no attribute of another node of it that lacks the value.
    z = x.exp()
    with pytest.raises(AttributeError):
        _ = z.grad_fn.exponent
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = node.self
    assert node.exponent == 3  # parameters outlive the saved tensors, as in torch


def test_a_field_never_shadows_a_node_method() -> None:
    x = cr.tensor([1.0], requires_grad=True)
    node = (x * 2).grad_fn
    assert callable(node.name) and node.name() == "MulBackward0"
    assert type(node).__dict__.get("name") is None


@pytest.mark.parametrize(
    ("fn", "op", "name"),
    [
        (cr._ops.elementwise.arithmetic.mul_scalar, operator.mul, "MulBackward1"),
        (cr._ops.elementwise.arithmetic.add_scalar, operator.add, "AddBackward1"),
        (cr._ops.elementwise.arithmetic.div_scalar, operator.truediv, "DivBackward1"),
    ],
)
@given(
    dtype=st.sampled_from(["float16", "float32", "float64"]),
    shape=st.sampled_from([(), (3,), (2, 3)]),
    number=st.integers(-5, 5) | st.floats(-4.0, 4.0),
    data=st.data(),
)
def test_ops_with_a_number_match_the_operators(
    fn: Any, op: Any, name: str, dtype: str, shape: tuple[int, ...], number: Any, data: Any
) -> None:
    """The one-input ops the derivative rules and composites use (`mul_scalar`,
    `add_scalar`, `div_scalar`) give the operators' values, dtypes and first and second
    derivatives; only the node differs."""
    values = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-3, 3)))
    a = cr.tensor(values.astype(dtype), requires_grad=True)
    mine, theirs = fn(a, number), op(a, number)
    assert mine.dtype == theirs.dtype and mine.grad_fn.name() == name
    np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy())

    def derivatives(out: cr.Tensor) -> list[np.ndarray]:
        (g,) = cr.autograd.grad((out * out).sum(), a, create_graph=True)
        (h,) = cr.autograd.grad(g.sum(), a)
        return [g.detach().numpy(), h.numpy()]

    for x, y in zip(derivatives(mine), derivatives(theirs), strict=True):
        np.testing.assert_array_equal(x, y)


def test_an_integer_tensor_with_a_number_computes_in_the_default_float() -> None:
    i = cr.tensor([1, 2, 3])
    assert cr._ops.elementwise.arithmetic.mul_scalar(i, 2).dtype == cr.float32
    assert cr._ops.elementwise.arithmetic.add_scalar(i, 0.5).tolist() == [1.5, 2.5, 3.5]
    assert cr._ops.elementwise.arithmetic.div_scalar(i, 2).tolist() == [0.5, 1.0, 1.5]


def test_grad_mode_stays_per_thread_with_the_count_of_threads_without_grad() -> None:
    from chainrule._autograd import grad_mode

    x = cr.ones(2, requires_grad=True)
    entered, release = threading.Event(), threading.Event()
    seen: list[bool] = []

    def without_grad() -> None:
        with cr.no_grad():
            entered.set()
            seen.append((x * 2).requires_grad)
            release.wait()
        seen.append((x * 2).requires_grad)

    base = grad_mode.threads_without_grad  # (other threads may have it off)
    thread = threading.Thread(target=without_grad)
    thread.start()
    entered.wait()
    assert grad_mode.threads_without_grad == base + 1
    assert (x * 2).requires_grad and cr.is_grad_enabled()  # this thread still records
    with cr.no_grad():
        assert grad_mode.threads_without_grad == base + 2 and not (x * 2).requires_grad
        with cr.enable_grad():
            assert grad_mode.threads_without_grad == base + 1 and (x * 2).requires_grad
    release.set()
    thread.join()
    assert seen == [False, True]
    assert grad_mode.threads_without_grad == base
    with cr.inference_mode():
        assert grad_mode.threads_without_grad == base + 1 and cr.ones(1).is_inference()
    assert grad_mode.threads_without_grad == base and not cr.ones(1).is_inference()
    cr.set_grad_enabled(False)
    assert grad_mode.threads_without_grad == base + 1 and not (x * 2).requires_grad
    cr.set_grad_enabled(True)
    assert grad_mode.threads_without_grad == base


def test_a_users_code_in_a_backward_keeps_its_numpy_warnings() -> None:
    # The engine mutes NumPy's warnings across array rules, and puts the user's setting
    # back for hooks and custom Functions.
    seen: list[int] = []

    def warns(*_: object) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            np.log(np.zeros(1))
        seen.append(len(caught))

    class Log0(cr.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: cr.Tensor) -> cr.Tensor:
            return x * 1

        @staticmethod
        def backward(ctx: Any, g: cr.Tensor) -> cr.Tensor:
            warns()
            return g

    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = Log0.apply((x * 3).sin())
    z = y.tanh() * 2.0
    t = z.tanh()
    t.register_hook(lambda g: warns())
    y.register_hook(lambda g: warns())
    x.register_post_accumulate_grad_hook(lambda t: warns())
    (t * z).sum().backward()
    assert seen == [1, 1, 1, 1]
    assert np.geterr()["divide"] == "warn"
