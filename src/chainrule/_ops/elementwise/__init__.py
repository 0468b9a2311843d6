"""Elementwise ops: one output element from the same position of each input.

arithmetic     add, sub, rsub, mul, div, neg, pow, square (and the tensor-and-number nodes)
exp_log        exp, log, sqrt, reciprocal, sigmoid, expm1, exp2, log1p, log2, log10, rsqrt, logit
trig           sin, cos, tanh, tan, the inverse and hyperbolic functions, deg2rad, sinc
rounding       abs, sign, floor, ceil, round, trunc, frac, sgn, nan_to_num, isnan and friends
clamping       clamp / clip, clamp_min, clamp_max, relu
compare        eq, lt, ... (bool results), maximum, minimum, fmax, fmin, isclose, allclose
bitwise        logical and bitwise ops, bit shifts
division       div(rounding_mode=), floor_divide, remainder, fmod
binary_math    atan2, hypot, copysign, xlogy, xlog1py, logaddexp, float_power, ldexp, ...
number_theory  gcd, lcm (integers), frexp
conditional    where
ternary        lerp, addcmul, addcdiv
inplace_forms  exp_, neg_, asinh_, ... (the in-place forms of the unary ops)
operators      Tensor's operators: a + b, a < b, ~m, ...
forwards, unary_common, binary_common   shared NumPy forwards, checks and errors
"""

from __future__ import annotations

from . import (
    arithmetic,
    binary_math,
    bitwise,
    clamping,
    compare,
    conditional,
    division,
    exp_log,
    inplace_forms,
    number_theory,
    rounding,
    ternary,
    trig,
)
from .arithmetic import *  # noqa: F403
from .binary_math import *  # noqa: F403
from .bitwise import *  # noqa: F403
from .clamping import *  # noqa: F403
from .compare import *  # noqa: F403
from .conditional import *  # noqa: F403
from .division import *  # noqa: F403
from .exp_log import *  # noqa: F403
from .inplace_forms import *  # noqa: F403
from .number_theory import *  # noqa: F403
from .rounding import *  # noqa: F403
from .ternary import *  # noqa: F403
from .trig import *  # noqa: F403

__all__ = [
    *arithmetic.__all__,
    *binary_math.__all__,
    *bitwise.__all__,
    *clamping.__all__,
    *compare.__all__,
    *conditional.__all__,
    *division.__all__,
    *exp_log.__all__,
    *inplace_forms.__all__,
    *number_theory.__all__,
    *rounding.__all__,
    *ternary.__all__,
    *trig.__all__,
]
