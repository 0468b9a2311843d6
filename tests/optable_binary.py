"""Op table lines of the elementwise binary and ternary family (read by tests/test_ops.py).

Ops torch does not differentiate (floor_divide, heaviside, `number % tensor`)
and integer-only ones (shifts, isclose, equal) are tested in tests/test_binary.py.
Points where a derivative is not unique (ties of maximum, x = 0 of copysign, the
jumps of floor and remainder) are kept out of the drawn domains here and checked
against torch's conventions there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from op_table import ANY, BINARY, NONZERO, POSITIVE, UNARY, Domain, Op, lib

ABOVE_MINUS_ONE = Domain(-0.5, 2.0)  # log1p's argument
# Each of two inputs drawn from these wins somewhere, but they never (nearly) tie.
APART = (Domain(-2.0, 2.0, avoid=(0.0,), gap=0.25), Domain(-0.2, 0.2))
TERNARY = (
    ((2, 3), (2, 3), (2, 3)),
    ((2, 3), (3,), (2, 1)),
    ((), (2, 3), ()),
    ((1, 3), (2, 1), (3,)),
)
EXPONENTS = np.array([1, 0, 3])  # torch: 0 gradient for negative ones (integer 2**-k)


def xlog1py(x: Any, y: Any) -> Any:
    """torch.special.xlog1py (chainrule.special re-exports the binary family's)."""
    special = lib(x if not isinstance(x, float) else y).special
    if hasattr(special, "xlog1py"):
        return special.xlog1py(x, y)
    from chainrule._ops.elementwise.binary_math import xlog1py as chainrule_xlog1py

    return chainrule_xlog1py(x, y)


def np_remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x - np.floor_divide(x, y) * y


def np_lerp(x: np.ndarray, y: np.ndarray, w: Any) -> np.ndarray:
    return x + w * (y - x)


def inplace(method: str, *args: Any, **kwargs: Any) -> Any:
    """`(x * 1).method_(...)`: the in-place form on a non-leaf."""
    return lambda x, *tensors: getattr(x * 1, method)(*tensors, *args, **kwargs)


# fmt: off
OPS: tuple[Op, ...] = (
    # division with rounding: zero gradients (torch's convention for a step function)
    Op("div_floor", lambda x, y: x.div(y, rounding_mode="floor"), np.floor_divide, BINARY,
       (ANY, NONZERO)),
    Op("div_trunc", lambda x, y: lib(x).div(x, y, rounding_mode="trunc"),
       lambda x, y: np.trunc(x / y), BINARY, (ANY, NONZERO)),
    Op("div_floor_number", lambda x: x.div(0.3, rounding_mode="floor"),
       lambda x: np.floor_divide(x, 0.3), UNARY),
    Op("div_trunc_number_first", lambda x: lib(x).div(1.5, x, rounding_mode="trunc"),
       lambda x: np.trunc(1.5 / x), UNARY, NONZERO),
    # remainders: d/dother is -floor(x / y) (remainder) or -trunc(x / y) (fmod)
    Op("remainder", lambda x, y: x % y, np_remainder, BINARY, (ANY, NONZERO)),
    Op("remainder_fn", lambda x, y: lib(x).remainder(x, y), np_remainder, BINARY[:2],
       (ANY, NONZERO)),
    Op("remainder_number", lambda x: x % -0.7, lambda x: np_remainder(x, -0.7), UNARY),
    Op("remainder_", inplace("remainder_"), np_remainder, BINARY[:2], (ANY, NONZERO)),
    Op("fmod", lambda x, y: lib(x).fmod(x, y), np.fmod, BINARY, (ANY, NONZERO)),
    Op("fmod_method", lambda x, y: x.fmod(y), np.fmod, BINARY[:2], (ANY, NONZERO)),
    Op("fmod_number", lambda x: x.fmod(0.7), lambda x: np.fmod(x, 0.7), UNARY),
    Op("fmod_", inplace("fmod_"), np.fmod, BINARY[:2], (ANY, NONZERO)),
    # float_power: float64 results whatever the input dtype
    Op("float_power", lambda x, y: lib(x).float_power(x, y), np.power, BINARY, (POSITIVE, ANY)),
    Op("float_power_number", lambda x: x.float_power(2.5), lambda x: x ** 2.5, UNARY, POSITIVE),
    Op("float_power_int", lambda x: x.float_power(3), lambda x: x ** 3, UNARY),
    Op("number_float_power", lambda x: lib(x).float_power(1.5, x), lambda x: 1.5 ** x, UNARY),
    Op("float_power_", lambda x, y: x.double().mul(1).float_power_(y), np.power, BINARY[:2],
       (POSITIVE, ANY)),
    # two tensors
    Op("atan2", lambda x, y: lib(x).atan2(x, y), np.arctan2, BINARY, (NONZERO, NONZERO),
       hypothesis="binary", note="away from the origin and the branch cut at x = 0"),
    Op("arctan2", lambda x, y: x.arctan2(y), np.arctan2, BINARY[:2], (NONZERO, NONZERO)),
    Op("atan2_", inplace("atan2_"), np.arctan2, BINARY[:2], (NONZERO, NONZERO)),
    Op("hypot", lambda x, y: x.hypot(y), np.hypot, BINARY, (NONZERO, ANY), hypothesis="binary"),
    Op("hypot_", inplace("hypot_"), np.hypot, BINARY[:2], (NONZERO, ANY)),
    Op("maximum", lambda x, y: lib(x).maximum(x, y), np.maximum, BINARY, APART,
       hypothesis="binary"),
    Op("minimum", lambda x, y: x.minimum(y), np.minimum, BINARY, APART, hypothesis="binary"),
    Op("fmax", lambda x, y: lib(x).fmax(x, y), np.fmax, BINARY, APART, hypothesis="binary"),
    Op("fmin", lambda x, y: x.fmin(y), np.fmin, BINARY, APART, hypothesis="binary"),
    Op("logaddexp", lambda x, y: lib(x).logaddexp(x, y), np.logaddexp, BINARY,
       hypothesis="binary"),
    Op("logaddexp2", lambda x, y: x.logaddexp2(y), np.logaddexp2, BINARY, hypothesis="binary"),
    Op("nextafter", lambda x, y: lib(x).nextafter(x, y), np.nextafter, BINARY, APART,
       hypothesis="binary"),
    Op("nextafter_", inplace("nextafter_"), np.nextafter, BINARY[:2]),
    Op("ldexp", lambda x, y: lib(x).ldexp(x, y), lambda x, y: x * 2.0 ** y, BINARY,
       hypothesis="binary"),
    Op("ldexp_int", lambda x: x.ldexp(lib(x).tensor(EXPONENTS)),
       lambda x: x * 2.0 ** EXPONENTS, (((2, 3),), ((3,),), ((),))),
    Op("ldexp_", inplace("ldexp_"), lambda x, y: x * 2.0 ** y, BINARY[:2]),
    # a tensor and a tensor or number
    Op("copysign", lambda x, y: lib(x).copysign(x, y), np.copysign, BINARY, (NONZERO, NONZERO),
       hypothesis="binary"),
    Op("copysign_number", lambda x: x.copysign(-2.0), lambda x: np.copysign(x, -2.0), UNARY),
    Op("copysign_", inplace("copysign_"), np.copysign, BINARY[:2], (ANY, NONZERO)),
    Op("xlogy", lambda x, y: lib(x).xlogy(x, y), lambda x, y: x * np.log(y), BINARY,
       (ANY, POSITIVE), hypothesis="binary"),
    Op("xlogy_number", lambda x: x.xlogy(2.5), lambda x: x * np.log(2.5), UNARY),
    Op("number_xlogy", lambda y: lib(y).xlogy(1.5, y), lambda y: 1.5 * np.log(y), UNARY,
       POSITIVE),
    Op("xlogy_", inplace("xlogy_"), lambda x, y: x * np.log(y), BINARY[:2], (ANY, POSITIVE)),
    Op("xlog1py", xlog1py, lambda x, y: x * np.log1p(y), BINARY, (ANY, ABOVE_MINUS_ONE),
       hypothesis="binary"),
    Op("xlog1py_number", lambda x: xlog1py(x, 0.5), lambda x: x * np.log1p(0.5), UNARY),
    Op("number_xlog1py", lambda y: xlog1py(-1.5, y), lambda y: -1.5 * np.log1p(y), UNARY,
       ABOVE_MINUS_ONE),
    # ternary
    Op("lerp", lambda x, y: lib(x).lerp(x, y, 0.3), lambda x, y: np_lerp(x, y, 0.3), BINARY,
       hypothesis="binary"),
    Op("lerp_far", lambda x, y: x.lerp(y, 0.8), lambda x, y: np_lerp(x, y, 0.8), BINARY[:2],
       note="weight >= 0.5: computed from the end"),
    Op("lerp_tensor", lambda x, y, w: lib(x).lerp(x, y, w), np_lerp, TERNARY),
    Op("lerp_", inplace("lerp_", 0.6), lambda x, y: np_lerp(x, y, 0.6), BINARY[:2]),
    Op("addcmul", lambda x, a, b: lib(x).addcmul(x, a, b, value=0.5),
       lambda x, a, b: x + 0.5 * a * b, TERNARY),
    Op("addcmul_method", lambda x, a, b: x.addcmul(a, b), lambda x, a, b: x + a * b, TERNARY[:2]),
    Op("addcmul_", inplace("addcmul_", value=-2), lambda x, a, b: x - 2 * a * b, TERNARY[:1]),
    Op("addcdiv", lambda x, a, b: lib(x).addcdiv(x, a, b, value=-1.5),
       lambda x, a, b: x - 1.5 * a / b, TERNARY, (ANY, ANY, NONZERO)),
    Op("addcdiv_", inplace("addcdiv_", value=2), lambda x, a, b: x + 2 * a / b, TERNARY[:1],
       (ANY, ANY, NONZERO)),
    # in-place comparisons: 0s and 1s in the tensor's dtype, zero gradients
    Op("lt_", inplace("lt_"), lambda x, y: np.broadcast_to(x < y, x.shape).astype(float),
       BINARY[:2]),
    Op("eq_number_", inplace("eq_", 0.5), lambda x: (x == 0.5).astype(float), UNARY[:2]),
)
# fmt: on
