"""The runtime queries: default device, thread count, get_device, and the dtype rules of
can_cast and result_type over every pair of dtypes and kinds of operand (1-d tensors, 0-d
tensors, Python and NumPy numbers), against torch and against tables recorded from it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule
from recorded_calls import outcome

DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
SHORT = {
    "float16": "f16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "b",
}  # fmt: skip


def _operands(m: Any) -> list[Any]:
    """One of each kind: a 1-d tensor and a 0-d tensor of every dtype, then numbers."""
    ones = [m.ones(2, dtype=getattr(m, d)) for d in DTYPES]
    zero_dim = [m.ones((), dtype=getattr(m, d)) for d in DTYPES]
    return [*ones, *zero_dim, True, 2, 2.5, np.float64(1.5), np.int32(3)]


# can_cast(row, column), "1" where allowed; rows and columns in DTYPES order.
CAN_CAST = """
111000000
111000000
111000000
111111110
111111110
111111110
111111110
111111110
111111111
"""

# result_type(row, column) for the operands of `_operands`, by SHORT name.
RESULT_TYPE = """
f16 f32 f64 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16
f32 f32 f64 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32
f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64
f16 f32 f64 i8 i16 i32 i64 i16 i8 f16 f32 f64 i8 i8 i8 i8 i8 i8 i8 i8 f32 f32 i8
f16 f32 f64 i16 i16 i32 i64 i16 i16 f16 f32 f64 i16 i16 i16 i16 i16 i16 i16 i16 f32 f32 i16
f16 f32 f64 i32 i32 i32 i64 i32 i32 f16 f32 f64 i32 i32 i32 i32 i32 i32 i32 i32 f32 f32 i32
f16 f32 f64 i64 i64 i64 i64 i64 i64 f16 f32 f64 i64 i64 i64 i64 i64 i64 i64 i64 f32 f32 i64
f16 f32 f64 i16 i16 i32 i64 u8 u8 f16 f32 f64 u8 u8 u8 u8 u8 u8 u8 u8 f32 f32 u8
f16 f32 f64 i8 i16 i32 i64 u8 b f16 f32 f64 i8 i16 i32 i64 u8 b b i64 f32 f32 i64
f16 f32 f64 f16 f16 f16 f16 f16 f16 f16 f32 f64 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16
f16 f32 f64 f32 f32 f32 f32 f32 f32 f32 f32 f64 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32
f16 f32 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64
f16 f32 f64 i8 i16 i32 i64 u8 i8 f16 f32 f64 i8 i16 i32 i64 i16 i8 i8 i8 f32 f32 i8
f16 f32 f64 i8 i16 i32 i64 u8 i16 f16 f32 f64 i16 i16 i32 i64 i16 i16 i16 i16 f32 f32 i16
f16 f32 f64 i8 i16 i32 i64 u8 i32 f16 f32 f64 i32 i32 i32 i64 i32 i32 i32 i32 f32 f32 i32
f16 f32 f64 i8 i16 i32 i64 u8 i64 f16 f32 f64 i64 i64 i64 i64 i64 i64 i64 i64 f32 f32 i64
f16 f32 f64 i8 i16 i32 i64 u8 u8 f16 f32 f64 i16 i16 i32 i64 u8 u8 u8 u8 f32 f32 u8
f16 f32 f64 i8 i16 i32 i64 u8 b f16 f32 f64 i8 i16 i32 i64 u8 b b i64 f32 f32 i64
f16 f32 f64 i8 i16 i32 i64 u8 b f16 f32 f64 i8 i16 i32 i64 u8 b b i64 f32 f32 i64
f16 f32 f64 i8 i16 i32 i64 u8 i64 f16 f32 f64 i8 i16 i32 i64 u8 i64 i64 i64 f32 f32 i64
f16 f32 f64 f32 f32 f32 f32 f32 f32 f16 f32 f64 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32
f16 f32 f64 f32 f32 f32 f32 f32 f32 f16 f32 f64 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32
f16 f32 f64 i8 i16 i32 i64 u8 i64 f16 f32 f64 i8 i16 i32 i64 u8 i64 i64 i64 f32 f32 i64
"""


def _short(d: Any) -> str:
    return SHORT[str(d).split(".")[-1]]


def _table(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def test_can_cast_matches_recorded_table() -> None:
    table = [list(row) for row in CAN_CAST.split()]
    for i, a in enumerate(DTYPES):
        for j, b in enumerate(DTYPES):
            got = chainrule.can_cast(getattr(chainrule, a), getattr(chainrule, b))
            assert got == (table[i][j] == "1"), (a, b)


def test_can_cast_matches_torch(torch: Any) -> None:
    for a in DTYPES:
        for b in DTYPES:
            assert chainrule.can_cast(getattr(chainrule, a), getattr(chainrule, b)) == (
                torch.can_cast(getattr(torch, a), getattr(torch, b))
            )
    assert chainrule.can_cast(float, chainrule.int32) == torch.can_cast(float, torch.int32)


def test_result_type_matches_recorded_table() -> None:
    ops = _operands(chainrule)
    table = _table(RESULT_TYPE)
    for i, a in enumerate(ops):
        for j, b in enumerate(ops):
            assert _short(chainrule.result_type(a, b)) == table[i][j], (i, j)


def test_result_type_matches_torch_over_every_pair(torch: Any) -> None:
    mine, theirs = _operands(chainrule), _operands(torch)
    for i in range(len(mine)):
        for j in range(len(mine)):
            got = outcome(lambda m, a=mine[i], b=mine[j]: m.result_type(a, b), chainrule)
            want = outcome(lambda m, a=theirs[i], b=theirs[j]: m.result_type(a, b), torch)
            assert got == want, (i, j)


CALLS = {
    "result_type_keywords": lambda m: m.result_type(tensor=m.ones(1), other=2),
    "result_type_scalar_keywords": lambda m: m.result_type(scalar=2, tensor=m.ones(1)),
    "result_type_one_operand": lambda m: m.result_type(m.ones(1)),
    "can_cast_tensor": lambda m: m.can_cast(m.ones(1), m.int32),
    "get_device_cpu": lambda m: m.get_device(m.ones(1)),
    "get_device_number": lambda m: m.get_device(3),
    "default_device": lambda m: m.get_default_device(),
    "set_default_device_cpu": lambda m: m.set_default_device("cpu"),
    "set_default_device_none": lambda m: m.set_default_device(None),
    "set_num_threads_zero": lambda m: m.set_num_threads(0),
    "set_num_threads_negative": lambda m: m.set_num_threads(-1),
    "set_num_threads_float": lambda m: m.set_num_threads(2.0),
    "set_num_threads_bool": lambda m: m.set_num_threads(True),
}
RECORDED = {
    "result_type_keywords": ("dtype", "float32"),
    "result_type_scalar_keywords": ("dtype", "float32"),
    "result_type_one_operand": (
        "error",
        "TypeError",
        "result_type() received an invalid combination of arguments - got (Tensor), but "
        "expected one of:\n * (Tensor tensor, Tensor other)\n * (Number scalar, Tensor tensor)\n"
        " * (Tensor tensor, Number other)\n * (Number scalar1, Number scalar2)\n",
    ),
    "can_cast_tensor": (
        "error",
        "TypeError",
        "can_cast(): argument 'from_' (position 1) must be torch.dtype, not Tensor",
    ),
    "get_device_cpu": -1,
    "get_device_number": (
        "error",
        "TypeError",
        "get_device(): argument 'input' (position 1) must be Tensor, not int",
    ),
    "default_device": ("device", "cpu"),
    "set_default_device_cpu": None,
    "set_default_device_none": None,
    "set_num_threads_zero": ("error", "RuntimeError", "set_num_threads expects a positive integer"),
    "set_num_threads_negative": (
        "error",
        "RuntimeError",
        "set_num_threads expects a positive integer",
    ),
    "set_num_threads_float": (
        "error",
        "RuntimeError",
        "set_num_threads expects an int, but got float",
    ),
    "set_num_threads_bool": (
        "error",
        "RuntimeError",
        "set_num_threads expects an int, but got bool",
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_matches_recorded(name: str) -> None:
    assert outcome(CALLS[name], chainrule) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_matches_torch(torch: Any, name: str) -> None:
    assert outcome(CALLS[name], chainrule) == outcome(CALLS[name], torch)


def test_thread_count_round_trips() -> None:
    before = chainrule.get_num_threads()
    assert isinstance(before, int) and before >= 1
    try:
        chainrule.set_num_threads(3)
        assert chainrule.get_num_threads() == 3
    finally:
        chainrule.set_num_threads(before)


@pytest.mark.parametrize(
    ("device", "error", "message"),
    [
        ("cuda", AssertionError, "Torch not compiled with CUDA enabled"),
        ("meta", RuntimeError, "PyTorch is not linked with support for meta devices"),
    ],
)
def test_other_default_devices_raise(device: str, error: type, message: str) -> None:
    # PyTorch accepts them and fails when a tensor is made there; chainrule says so at once.
    with pytest.raises(error, match=message):
        chainrule.set_default_device(device)
    assert chainrule.get_default_device() == chainrule.device("cpu")
