"""dtypes, the default dtype, PyTorch's type-promotion rules, and how its messages name dtypes."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "bool_",
    "dtype",
    "float16",
    "float32",
    "float64",
    "from_numpy_dtype",
    "get_default_dtype",
    "int8",
    "int16",
    "int32",
    "int64",
    "promote_types",
    "result_type",
    "set_default_dtype",
    "to_dtype",
    "uint8",
]

# Categories order the kinds of number: a higher category always wins promotion.
_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:
    """A tensor element type: a thin, named wrapper around a NumPy dtype."""

    __slots__ = ("_category", "itemsize", "name", "np")

    def __init__(self, name: str, np_dtype: Any, category: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._category = category

    @property
    def is_floating_point(self) -> builtins.bool:
        return self._category == _FLOAT

    @property
    def is_complex(self) -> builtins.bool:
        return False

    @property
    def is_signed(self) -> builtins.bool:
        return self.name not in ("bool", "uint8")

    def to_real(self) -> dtype:
        return self

    def __repr__(self) -> str:
        return f"chainrule.{self.name}"

    def __reduce__(self) -> str:
        return _PICKLE_NAMES[self.name]


float16 = dtype("float16", np.float16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT)
float64 = dtype("float64", np.float64, _FLOAT)
int8 = dtype("int8", np.int8, _INT)
int16 = dtype("int16", np.int16, _INT)
int32 = dtype("int32", np.int32, _INT)
int64 = dtype("int64", np.int64, _INT)
uint8 = dtype("uint8", np.uint8, _INT)
bool_ = dtype("bool", np.bool_, _BOOL)

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_BY_NUMPY = {d.np: d for d in _ALL}
_PICKLE_NAMES = {d.name: ("bool_" if d is bool_ else d.name) for d in _ALL}

_default_float = float32


@dataclass(frozen=True, slots=True)
class _MessageNames:
    """How PyTorch's messages name one dtype."""

    scalar: str  # its ScalarType: "Float", "Long"
    c_type: str  # the C++ type as the compiler spells it: "float", "long int"
    overflow_type: str  # the C++ type in ScalarType's list, as overflow checks print it
    legacy_type: str  # the legacy tensor type: "FloatTensor"


_MESSAGE_NAMES = {
    "float16": _MessageNames("Half", "c10::Half", "c10::Half", "HalfTensor"),
    "float32": _MessageNames("Float", "float", "float", "FloatTensor"),
    "float64": _MessageNames("Double", "double", "double", "DoubleTensor"),
    "int8": _MessageNames("Char", "signed char", "int8_t", "CharTensor"),
    "int16": _MessageNames("Short", "short int", "int16_t", "ShortTensor"),
    "int32": _MessageNames("Int", "int", "int", "IntTensor"),
    "int64": _MessageNames("Long", "long int", "int64_t", "LongTensor"),
    "uint8": _MessageNames("Byte", "unsigned char", "uint8_t", "ByteTensor"),
    "bool": _MessageNames("Bool", "bool", "bool", "BoolTensor"),
}


def _dtype_key(x: Any) -> str:
    """The dtype name of a chainrule dtype, a NumPy dtype, an array or a tensor."""
    if isinstance(x, dtype):
        return x.name
    x = getattr(x, "_data", x)  # a tensor's array
    if isinstance(x, np.ndarray | np.generic):
        return x.dtype.name
    return np.dtype(x).name


def _message_names(x: Any) -> _MessageNames:
    """The names of `x`'s dtype (NumPy's name for each, for a dtype chainrule lacks)."""
    key = _dtype_key(x)
    names = _MESSAGE_NAMES.get(key)
    return names if names is not None else _MessageNames(key, key, key, key)


def scalar_name(x: Any) -> str:
    """`Float`, `Long`, ...: how most of PyTorch's messages name a dtype."""
    return _message_names(x).scalar


def c_type_name(x: Any) -> str:
    """`float`, `long int`, ...: the C++ type name some of PyTorch's checks print."""
    return _message_names(x).c_type


def overflow_type_name(x: Any) -> str:
    """`int64_t`, `float`, ...: the C++ type named by "value cannot be converted to type"."""
    return _message_names(x).overflow_type


def legacy_type_name(x: Any) -> str:
    """`chainrule.FloatTensor`, ...: as `Tensor.type()` and some error messages name a tensor."""
    return "chainrule." + _message_names(x).legacy_type


def get_default_dtype() -> dtype:
    """The dtype of tensors made from Python floats (float32 unless changed)."""
    return _default_float


def set_default_dtype(d: dtype) -> None:
    global _default_float
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float = d


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The chainrule dtype of a NumPy dtype, or TypeError for ones chainrule lacks."""
    try:
        return _BY_NUMPY[np_dtype]  # a NumPy dtype already, as nearly always
    except (KeyError, TypeError):
        pass
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
            "supported types are: float64, float32, float16, int64, int32, int16, int8, "
            "uint8, and bool."
        ) from None


def to_dtype(d: Any) -> dtype:
    """Accept a chainrule dtype, a NumPy dtype or a Python type (float, int, bool)."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return _default_float
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    return from_numpy_dtype(d)


# Note: PyTorch promotes in three tiers of priority -- tensors with dimensions,
# zero-dimensional tensors, then Python scalars. A lower tier only matters when
# it brings a higher category (bool < int < float); a Python scalar then brings
# the default dtype of its category, a 0-d tensor its own dtype.


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype holding both (torch.promote_types)."""
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    if a._category == _INT and {a.name, b.name} & {"uint8"}:
        # uint8 with a signed int needs the next wider signed type.
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return _BY_NUMPY[np.promote_types(a.np, b.np)]


def _promote_all(dtypes: list[dtype]) -> dtype | None:
    result: dtype | None = None
    for d in dtypes:
        result = d if result is None else promote_types(result, d)
    return result


def _scalar_dtype(value: Any) -> dtype:
    if isinstance(value, builtins.bool | np.bool_):
        return bool_
    if isinstance(value, builtins.int | np.integer):
        return int64
    return _default_float


def result_type(*operands: Any) -> dtype:
    """The dtype of an elementwise op on tensors and Python scalars, as in PyTorch."""
    dimmed: list[dtype] = []
    zero_dim: list[dtype] = []
    scalars: list[dtype] = []
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype):
            (dimmed if x.ndim else zero_dim).append(d)
        else:
            scalars.append(_scalar_dtype(x))
    result = _promote_all(dimmed)
    for tier in (zero_dim, scalars):
        best = _promote_all(tier)
        if best is None:
            continue
        if result is None:
            result = best
        elif best._category > result._category:
            if tier is scalars:
                best = {_INT: int64, _FLOAT: _default_float}.get(best._category, best)
            result = best
    if result is None:
        raise TypeError("result_type needs at least one operand")
    return result
