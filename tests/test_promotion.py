"""Type promotion: `result_type` and the dtypes of `a + b`, `a * b`, `a / b`.

A table of the cases that matter runs without torch; hypothesis then draws
pairs and triples of operands (tensors of every dtype, 0-d or not, and Python
bool/int/float numbers) and compares with torch.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule import _dtype

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@dataclass(frozen=True)
class T:
    """A tensor operand: its dtype and shape ((): a 0-d tensor); values are drawn separately."""

    dtype: str
    shape: tuple[int, ...] = (2,)

    def __repr__(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"


def make(lib: Any, operand: Any, values: np.ndarray | None = None) -> Any:
    """A Python number as it is; a `T` as a tensor of `lib` (ones unless values are given)."""
    if not isinstance(operand, T):
        return operand
    data = np.ones(operand.shape) if values is None else values
    return lib.tensor(data.astype(operand.dtype), dtype=getattr(lib, operand.dtype))


def name(dtype: Any) -> str:
    return str(dtype).split(".")[-1].replace("bool_", "bool")


@pytest.fixture
def default_float64() -> Iterator[None]:
    chainrule.set_default_dtype(chainrule.float64)
    yield
    chainrule.set_default_dtype(chainrule.float32)


# --- the important cases, by hand -------------------------------------------------------

# fmt: off
RESULT_TYPES = [
    # a dimensioned tensor decides within its category; numbers only bring a category
    ((T("int32"), 2.5), "float32"),
    ((T("int32"), True), "int32"),
    ((T("int8"), 1000), "int8"),
    ((T("bool"), True), "bool"),
    ((T("bool"), 1), "int64"),
    ((T("bool"), 1.0), "float32"),
    ((T("float16"), 2.5), "float16"),
    ((T("uint8"), -1), "uint8"),
    # two dimensioned tensors: the wider type; uint8 with a signed int needs one more bit
    ((T("uint8"), T("int8")), "int16"),
    ((T("uint8"), T("int16")), "int16"),
    ((T("uint8"), T("bool")), "uint8"),
    ((T("float16"), T("float32")), "float32"),
    ((T("int64"), T("float16")), "float16"),
    # a 0-d tensor counts below a dimensioned one, but brings its own dtype for a new category
    ((T("int8"), T("int64", ())), "int8"),
    ((T("float32"), T("float64", ())), "float32"),
    ((T("int32"), T("float64", ())), "float64"),
    ((T("int64"), T("float16", ())), "float16"),
    ((T("bool"), T("uint8", ())), "uint8"),
    ((T("uint8", ()), T("int8", ())), "int16"),
    ((T("float64", ()), 2.5), "float64"),
    ((T("int16", ()), 7), "int16"),
    # numbers alone
    ((True, 2), "int64"),
    ((2, 2.5), "float32"),
    ((True, False), "bool"),
    # three operands: each tier in turn
    ((T("int8"), T("int16", ()), 2.5), "float32"),
    ((T("uint8"), T("int8", ()), True), "uint8"),
    ((T("bool"), T("int32", ()), 1.5), "float32"),
    ((T("int32"), T("float16", ()), 1), "float16"),
    ((T("int8"), T("uint8"), T("float64", ())), "float64"),
]
DIVISION = [
    ((T("int32"), T("int64")), "float32"),
    ((T("bool"), True), "float32"),
    ((T("uint8"), 2), "float32"),
    ((T("float16"), T("int64")), "float16"),
    ((3, T("int8")), "float32"),
    ((T("float64", ()), T("int8")), "float64"),
]
# fmt: on


@pytest.mark.parametrize(("operands", "expected"), RESULT_TYPES, ids=repr)
def test_result_type_table(operands: tuple[Any, ...], expected: str) -> None:
    values = [make(chainrule, o) for o in operands]
    assert name(_dtype.result_type(*values)) == expected
    if len(values) == 2 and any(isinstance(o, T) for o in operands):
        a, b = values
        assert name((a + b).dtype) == expected
        assert name((a * b).dtype) == expected


@pytest.mark.parametrize(("operands", "expected"), DIVISION, ids=repr)
def test_true_division_gives_floats(operands: tuple[Any, ...], expected: str) -> None:
    a, b = (make(chainrule, o) for o in operands)
    assert name((a / b).dtype) == expected


@pytest.mark.usefixtures("default_float64")
def test_numbers_follow_the_default_dtype() -> None:
    ints = make(chainrule, T("int32"))
    assert name(_dtype.result_type(ints, 2.5)) == "float64"
    assert name((ints + 2.5).dtype) == "float64"
    assert name((ints / ints).dtype) == "float64"
    assert name((make(chainrule, T("float16")) * 2.5).dtype) == "float16"
    assert name(_dtype.result_type(2, 2.5)) == "float64"


# --- drawn operands, against torch ------------------------------------------------------

tensor_operands = st.builds(T, st.sampled_from(DTYPES), st.sampled_from([(), (3,), (2, 3)]))
number_operands = st.booleans() | st.integers(-300, 300) | st.floats(-8, 8, width=16)
operands = tensor_operands | number_operands


def element_strategy(dtype: str) -> st.SearchStrategy[Any]:
    if dtype == "bool":
        return st.booleans()
    if dtype.startswith("float"):
        return st.floats(-8, 8, width=16)  # exact in every float dtype
    info = np.iinfo(dtype)
    return st.integers(int(max(info.min, -100)), int(min(info.max, 100)))


@st.composite
def with_values(draw: st.DrawFn, operand: Any) -> tuple[Any, np.ndarray | None]:
    if not isinstance(operand, T):
        return operand, None
    values = draw(hnp.arrays(object, operand.shape, elements=element_strategy(operand.dtype)))
    return operand, np.asarray(values.tolist(), dtype=operand.dtype)


def torch_result_type(torch: Any, values: list[Any]) -> Any:
    if len(values) == 2:
        return torch.result_type(*values)
    prims = pytest.importorskip("torch._prims_common")
    kind = prims.ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT
    return prims.elementwise_dtypes(*values, type_promotion_kind=kind)[1]


@given(st.lists(operands, min_size=2, max_size=3))
def test_result_type_matches_torch(ops: list[Any]) -> None:
    torch = pytest.importorskip("torch")
    mine = _dtype.result_type(*[make(chainrule, o) for o in ops])
    assert name(mine) == name(torch_result_type(torch, [make(torch, o) for o in ops]))


ARITHMETIC = {"+": operator.add, "*": operator.mul, "/": operator.truediv}


# chainrule lets NumPy warn on x / 0 (torch is silent); the values are still torch's.
@pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")
@given(
    st.tuples(operands, operands)
    .filter(lambda p: any(isinstance(o, T) for o in p))
    .flatmap(lambda p: st.tuples(with_values(p[0]), with_values(p[1]))),
    st.sampled_from(sorted(ARITHMETIC)),
)
def test_arithmetic_dtype_and_values_match_torch(pair: Any, op: str) -> None:
    torch = pytest.importorskip("torch")
    results = []
    for lib in (chainrule, torch):
        a, b = (make(lib, o, v) for o, v in pair)
        out = ARITHMETIC[op](a, b)
        results.append((name(out.dtype), tuple(out.shape), np.asarray(out.numpy())))
    (dt, shape, mine), (dt_t, shape_t, theirs) = results
    assert (dt, shape) == (dt_t, shape_t)
    rtol = {"float16": 4e-3, "float32": 1e-6}.get(dt, 1e-12)
    np.testing.assert_allclose(mine.astype(np.float64), theirs.astype(np.float64), rtol=rtol)
