"""How error messages name dtypes (ScalarType, C++ and legacy tensor-type names), as in PyTorch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import chainrule
from torch_compare import as_torch_text

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", DTYPES)
def test_legacy_type_names(torch: Any, name: str) -> None:
    ours = chainrule.ones(1, dtype=getattr(chainrule, name)).type()
    assert as_torch_text(ours) == torch.ones(1, dtype=getattr(torch, name)).type()


def _conv_bias(m: Any, dt: str) -> Any:
    return m.nn.functional.conv1d(m.ones(1, 1, 3), m.ones(1, 1, 1), m.ones(1, dtype=getattr(m, dt)))


def _linear(m: Any, dt: str) -> Any:
    return m.nn.functional.linear(m.ones(2, 2, dtype=getattr(m, dt)), m.ones(2, 2))


def _multi_dot(m: Any, dt: str) -> Any:
    return m.linalg.multi_dot([m.ones(2, 2, dtype=getattr(m, dt)), m.ones(2, 2), m.ones(2, 2)])


def _repeat_interleave(m: Any, dt: str) -> Any:
    return m.repeat_interleave(m.ones(2, dtype=getattr(m, dt)))


def _clamp_overflow(m: Any, dt: str) -> Any:
    dtype = getattr(m, dt)
    return m.clamp(m.ones(1, dtype=dtype), max=1e300 if dtype.is_floating_point else 2**40)


CASES: list[tuple[Callable[[Any, str], Any], list[str]]] = [
    (_conv_bias, ["float16", "float64"]),
    (_linear, ["float16", "float64", "int32", "int64"]),
    (_multi_dot, ["float16", "float64", "int32"]),
    (_repeat_interleave, ["float16", "float32", "float64", "bool"]),
    (_clamp_overflow, ["float16", "float32", "int8", "int16", "int32", "uint8"]),
]


@pytest.mark.parametrize(
    ("make", "dt"),
    [(make, dt) for make, dts in CASES for dt in dts],
    ids=[f"{make.__name__[1:]}-{dt}" for make, dts in CASES for dt in dts],
)
def test_messages_name_dtypes_as_torch_does(
    torch: Any, make: Callable[[Any, str], Any], dt: str
) -> None:
    with pytest.raises(Exception) as expected:
        make(torch, dt)
    with pytest.raises(type(expected.value)) as got:
        make(chainrule, dt)
    assert as_torch_text(str(got.value)) == str(expected.value)
