"""Factories beyond the basic ones: range, logspace, tril/triu_indices, scalar_tensor, the
window functions, empty_strided, frombuffer and asarray. Each case is compared with torch
where it is installed, and with torch's recorded outcome always."""

from __future__ import annotations

import array
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from recorded_calls import matches, outcome
from recorded_factories import RECORDED

Case = Callable[[Any], Any]
WINDOWS = ("bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window")

# Each case: how to call it, and the relative tolerance of its float values (0: exact).
# Windows of float32 are computed with chainrule's float32 cosine and i0, which may
# differ from PyTorch's vectorised ones in the last bit.
CASES: dict[str, tuple[Case, float]] = {
    "range_int_ends": (lambda m: m.range(1, 4), 0.0),
    "range_half_step": (lambda m: m.range(1, 4, 0.5), 0.0),
    "range_inexact_step": (lambda m: m.range(0, 1, 0.1), 0.0),
    "range_float64": (lambda m: m.range(0, 1, 0.1, dtype=m.float64), 0.0),
    "range_down": (lambda m: m.range(4, 1, -1), 0.0),
    "range_one": (lambda m: m.range(1, 1), 0.0),
    "range_int64_truncates": (lambda m: m.range(0.5, 3, dtype=m.int64), 0.0),
    "range_int32_down": (lambda m: m.range(7, 0, -2, dtype=m.int32), 0.0),
    "range_float16": (lambda m: m.range(0, 3, dtype=m.float16), 0.0),
    "range_requires_grad": (lambda m: m.range(0, 2, requires_grad=True).requires_grad, 0.0),
    "range_zero_step": (lambda m: m.range(1, 4, 0), 0.0),
    "range_wrong_sign": (lambda m: m.range(4, 1), 0.0),
    "range_infinite": (lambda m: m.range(0, float("inf")), 0.0),
    "range_bool": (lambda m: m.range(0, 3, dtype=m.bool), 0.0),
    "range_no_end": (lambda m: m.range(5), 0.0),
    "logspace": (lambda m: m.logspace(0, 3, 4), 0.0),
    "logspace_float64": (lambda m: m.logspace(-2, 2, 9, dtype=m.float64), 0.0),
    "logspace_base2": (lambda m: m.logspace(0.5, 3.7, 6, base=2), 0.0),
    "logspace_int": (lambda m: m.logspace(0.5, 3.7, 4, dtype=m.int32), 0.0),
    "logspace_one_step_int": (lambda m: m.logspace(2.5, 3, 1, dtype=m.int64), 0.0),
    "logspace_empty": (lambda m: m.logspace(0, 3, 0), 0.0),
    "logspace_tensor_start": (lambda m: m.logspace(m.tensor(0.0), 3, 4), 0.0),
    "logspace_float16": (lambda m: m.logspace(0, 1, 5, dtype=m.float16), 0.0),
    "logspace_negative_steps": (lambda m: m.logspace(0, 3, -1), 0.0),
    "logspace_1d_start": (lambda m: m.logspace(m.tensor([0.0]), 3, 4), 0.0),
    "logspace_bool": (lambda m: m.logspace(0, 3, 4, dtype=m.bool), 0.0),
    "tril_indices": (lambda m: m.tril_indices(3, 3), 0.0),
    "tril_indices_offset": (lambda m: m.tril_indices(3, 4, -1, dtype=m.int32), 0.0),
    "triu_indices_offset": (lambda m: m.triu_indices(3, 4, 1), 0.0),
    "tril_indices_far_offset": (lambda m: m.tril_indices(4, 2, 10), 0.0),
    "triu_indices_far_offset": (lambda m: m.triu_indices(2, 3, -10), 0.0),
    "triu_indices_empty": (lambda m: m.triu_indices(0, 3), 0.0),
    "tril_indices_negative_row": (lambda m: m.tril_indices(-1, 3), 0.0),
    "triu_indices_negative_col": (lambda m: m.triu_indices(3, -1), 0.0),
    "tril_indices_float": (lambda m: m.tril_indices(3, 3, dtype=m.float32), 0.0),
    "scalar_tensor_int": (lambda m: m.scalar_tensor(3), 0.0),
    "scalar_tensor_bool": (lambda m: m.scalar_tensor(True), 0.0),
    "scalar_tensor_dtype": (lambda m: m.scalar_tensor(2.5, dtype=m.int64), 0.0),
    "scalar_tensor_grad": (lambda m: m.scalar_tensor(1, requires_grad=True).requires_grad, 0.0),
    "scalar_tensor_of_tensor": (lambda m: m.scalar_tensor(m.tensor(2)), 0.0),
    "scalar_tensor_list": (lambda m: m.scalar_tensor([1]), 0.0),
    "empty_strided": (lambda m: m.empty_strided((2, 3), (1, 2)).stride(), 0.0),
    "empty_strided_dtype": (lambda m: m.empty_strided((2, 3), (0, 0), dtype=m.int32).dtype, 0.0),
    "empty_strided_ranks": (lambda m: m.empty_strided((2, 3), (1,)), 0.0),
    "empty_strided_negative_size": (lambda m: m.empty_strided((2, -3), (1, 2)), 0.0),
    "empty_strided_negative_stride": (lambda m: m.empty_strided((2, 3), (1, -2)), 0.0),
    "new_empty_strided": (lambda m: m.ones(2).new_empty_strided((2, 2), (1, 2)).stride(), 0.0),
    "new_empty_strided_dtype": (
        lambda m: m.ones(2).new_empty_strided((2,), (1,), dtype=m.int64).dtype,
        0.0,
    ),
    "frombuffer": (lambda m: m.frombuffer(bytearray(b"\x01\x00\x02\x00"), dtype=m.int16), 0.0),
    "frombuffer_count_offset": (
        lambda m: m.frombuffer(bytearray(range(8)), dtype=m.int16, count=2, offset=2),
        0.0,
    ),
    "frombuffer_bytes": (lambda m: m.frombuffer(b"\x01\x02", dtype=m.int16), 0.0),
    "frombuffer_array": (lambda m: m.frombuffer(array.array("f", [1, 2]), dtype=m.float32), 0.0),
    "frombuffer_too_many": (lambda m: m.frombuffer(bytearray(8), dtype=m.int16, count=5), 0.0),
    "frombuffer_offset": (lambda m: m.frombuffer(bytearray(8), dtype=m.int16, offset=9), 0.0),
    "frombuffer_count_zero": (lambda m: m.frombuffer(bytearray(8), dtype=m.int16, count=0), 0.0),
    "frombuffer_misaligned": (lambda m: m.frombuffer(bytearray(8), dtype=m.int32, offset=1), 0.0),
    "frombuffer_empty": (lambda m: m.frombuffer(bytearray(), dtype=m.int16), 0.0),
    "frombuffer_no_dtype": (lambda m: m.frombuffer(bytearray(2)), 0.0),
    "frombuffer_list": (lambda m: m.frombuffer([1, 2], dtype=m.int16), 0.0),
    "frombuffer_grad": (
        lambda m: m.frombuffer(bytearray(b"\0\0\x80\x3f"), dtype=m.float32, requires_grad=True),
        0.0,
    ),
    "asarray_list": (lambda m: m.asarray([1, 2, 3]), 0.0),
    "asarray_floats": (lambda m: m.asarray([[1, 2], [3, 4.0]]), 0.0),
    "asarray_number": (lambda m: m.asarray(3.5), 0.0),
    "asarray_bool": (lambda m: m.asarray(True), 0.0),
    "asarray_dtype": (lambda m: m.asarray([1, 2], dtype=m.float64), 0.0),
    "asarray_numpy_scalar": (lambda m: m.asarray(np.int32(2)), 0.0),
    "asarray_numpy_scalar_alias": (lambda m: m.asarray(np.float64(2.0), copy=False), 0.0),
    "asarray_sequence_alias": (lambda m: m.asarray([1, 2], copy=False), 0.0),
    "asarray_int_grad": (lambda m: m.asarray([1, 2], requires_grad=True), 0.0),
    "asarray_float_grad": (lambda m: m.asarray([1.0, 2], requires_grad=True), 0.0),
    "asarray_buffer": (lambda m: m.asarray(bytearray(b"\x01\x02\x03\x04"), dtype=m.int16), 0.0),
    "asarray_array_cast_alias": (
        lambda m: m.asarray(np.arange(3.0), dtype=m.float32, copy=False),
        0.0,
    ),
    "asarray_cuda": (lambda m: m.asarray(np.arange(3.0), device="cuda"), 0.0),
    "asarray_copy_grad": (lambda m: m.asarray(m.ones(2, requires_grad=True), copy=True), 0.0),
    "asarray_cast_grad": (
        lambda m: m.asarray(m.ones(2, requires_grad=True), dtype=m.float64),
        0.0,
    ),
    "asarray_detaches": (
        lambda m: m.asarray(m.ones(2, requires_grad=True) * 2, requires_grad=False),
        0.0,
    ),
}
for _name in WINDOWS:
    _tol = 2e-6
    CASES[f"{_name}_5"] = (lambda m, f=_name: getattr(m, f)(5), _tol)
    CASES[f"{_name}_symmetric"] = (lambda m, f=_name: getattr(m, f)(6, periodic=False), _tol)
    CASES[f"{_name}_float64"] = (lambda m, f=_name: getattr(m, f)(7, dtype=m.float64), 1e-14)
    CASES[f"{_name}_one"] = (lambda m, f=_name: getattr(m, f)(1), 0.0)
    CASES[f"{_name}_empty"] = (lambda m, f=_name: getattr(m, f)(0), 0.0)
    CASES[f"{_name}_grad"] = (
        lambda m, f=_name: getattr(m, f)(3, requires_grad=True).requires_grad,
        0.0,
    )
    CASES[f"{_name}_negative"] = (lambda m, f=_name: getattr(m, f)(-1), 0.0)
    CASES[f"{_name}_int"] = (lambda m, f=_name: getattr(m, f)(3, dtype=m.int64), 0.0)
    CASES[f"{_name}_float_length"] = (lambda m, f=_name: getattr(m, f)(3.0), 0.0)
CASES["hamming_window_alpha_beta"] = (lambda m: m.hamming_window(5, True, 0.5, 0.4), 2e-6)
CASES["kaiser_window_beta"] = (lambda m: m.kaiser_window(6, False, 5.0, dtype=m.float64), 1e-14)
CASES["hann_window_int_periodic"] = (lambda m: m.hann_window(3, 1), 0.0)
CASES["kaiser_window_beta_without_periodic"] = (lambda m: m.kaiser_window(3, beta=5.0), 0.0)
CASES["hamming_window_beta_without_alpha"] = (lambda m: m.hamming_window(3, True, beta=0.4), 0.0)
CASES["hamming_window_keywords"] = (
    lambda m: m.hamming_window(4, periodic=False, alpha=0.5, beta=0.3),
    2e-6,
)
CASES["empty_strided_int_size"] = (lambda m: m.empty_strided(3, (1,)), 0.0)
CASES["empty_strided_empty_negative_stride"] = (lambda m: m.empty_strided((0, 3), (1, -2)), 0.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_recorded(name: str) -> None:
    fn, tol = CASES[name]
    assert matches(outcome(fn, chainrule), RECORDED[name], tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(torch: Any, name: str) -> None:
    fn, tol = CASES[name]
    assert matches(outcome(fn, chainrule), outcome(fn, torch), tol)


def test_recording_covers_the_cases() -> None:
    assert set(RECORDED) == set(CASES)


# --- drawn arguments, against torch -----------------------------------------------------------

_ENDS = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 2))
_DTYPES = ("float32", "float64", "int64", "int32", "float16")


def _same_array(mine: Any, theirs: Any) -> None:
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@given(
    start=_ENDS,
    end=_ENDS,
    step=_ENDS.filter(lambda s: abs(s) > 0.05),
    dtype=st.sampled_from(_DTYPES),
)
def test_range_drawn(torch: Any, start: float, end: float, step: float, dtype: str) -> None:
    if (end - start) * step < 0 or abs((end - start) / step) > 2000:
        return
    if dtype.startswith("int") and abs(step) < 1:
        return  # a step that truncates to 0 crashes PyTorch (a division by zero in C++)

    def call(m: Any) -> Any:
        return m.range(start, end, step, dtype=getattr(m, dtype))

    assert outcome(call, chainrule) == outcome(call, torch)


@given(
    start=st.floats(-5, 5).map(lambda v: round(v, 3)),
    end=st.floats(-5, 5).map(lambda v: round(v, 3)),
    steps=st.integers(0, 40),
    base=st.sampled_from([10.0, 2.0, 2.5, 0.5]),
    dtype=st.sampled_from(_DTYPES),
)
def test_logspace_drawn(
    torch: Any, start: float, end: float, steps: int, base: float, dtype: str
) -> None:
    mine = chainrule.logspace(start, end, steps, base, dtype=getattr(chainrule, dtype))
    theirs = torch.logspace(start, end, steps, base, dtype=getattr(torch, dtype))
    _same_array(mine, theirs)


@given(row=st.integers(0, 7), col=st.integers(0, 7), offset=st.integers(-9, 9))
def test_triangle_indices_drawn(torch: Any, row: int, col: int, offset: int) -> None:
    for name in ("tril_indices", "triu_indices"):
        _same_array(
            getattr(chainrule, name)(row, col, offset), getattr(torch, name)(row, col, offset)
        )


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_of_many_lengths(torch: Any, name: str, dtype: str) -> None:
    tol = 2e-6 if dtype == "float32" else 1e-13
    for n in [*range(2, 40), 100, 257]:
        for periodic in (True, False):
            mine = getattr(chainrule, name)(n, periodic, dtype=getattr(chainrule, dtype))
            theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=tol, atol=tol)


# --- invariants, without torch -------------------------------------------------------------


def test_windows_are_symmetric_and_periodic_windows_are_their_prefix() -> None:
    for name in WINDOWS:
        fn = getattr(chainrule, name)
        symmetric = fn(9, periodic=False, dtype=chainrule.float64).numpy()
        np.testing.assert_allclose(symmetric, symmetric[::-1], atol=1e-15)
        periodic = fn(8, dtype=chainrule.float64).numpy()
        np.testing.assert_allclose(periodic, symmetric[:8], atol=1e-15)


def test_range_warns_at_the_caller() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chainrule.range(0, 2)
    assert [w.filename for w in caught] == [__file__]
    assert "torch.range is deprecated" in str(caught[0].message)


def test_frombuffer_shares_the_buffer() -> None:
    buffer = bytearray(b"\x01\x00\x02\x00")
    t = chainrule.frombuffer(buffer, dtype=chainrule.int16)
    buffer[0] = 9
    assert t.tolist() == [9, 2]
    t[1] = 7
    assert buffer[2] == 7


def test_asarray_shares_memory_with_arrays_and_tensors() -> None:
    a = np.arange(4.0)
    shared, copied = chainrule.asarray(a), chainrule.asarray(a, copy=True)
    a[0] = 9
    assert shared.tolist()[0] == 9 and copied.tolist()[0] == 0
    x = chainrule.ones(2)
    assert chainrule.asarray(x) is x
    assert chainrule.asarray(x, copy=True) is not x


def test_asarray_sets_requires_grad_on_the_leaf_it_returns() -> None:
    x = chainrule.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert chainrule.asarray(x) is x
    assert chainrule.asarray(x, requires_grad=False) is x
    assert not x.requires_grad  # as PyTorch: the leaf itself was changed


def test_empty_strided_lays_out_as_asked() -> None:
    t = chainrule.empty_strided((2, 3), (1, 2))
    assert t.stride() == (1, 2) and t.shape == (2, 3)
    assert t.tolist() == [[0.0] * 3] * 2
    t[1, 2] = 5.0
    assert t.tolist()[1][2] == 5.0
