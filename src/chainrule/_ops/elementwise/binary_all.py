"""Elementwise binary and ternary ops: the family's public names, gathered from its modules.

binary_division  div(rounding_mode=), floor_divide, remainder, fmod, the // and % operators
binary_math      atan2, hypot, copysign, xlogy, xlog1py, logaddexp(2), float_power, ldexp, ...
binary_compare   maximum, minimum, fmax, fmin, isclose, allclose, equal, in-place comparisons
binary_bitwise   bit shifts (<<, >>) and the in-place bitwise ops
binary_ternary   lerp, addcmul, addcdiv
binary_common    argument errors, operand promotion, torch's node patterns, in-place checks
"""

from __future__ import annotations

from . import binary_math
from . import bitwise as binary_bitwise
from . import compare as binary_compare
from . import division as binary_division
from . import ternary as binary_ternary
from .binary_math import *  # noqa: F403
from .binary_math import xlog1py as xlog1py
from .bitwise import *  # noqa: F403
from .compare import *  # noqa: F403
from .division import *  # noqa: F403
from .ternary import *  # noqa: F403

__all__ = [
    *binary_bitwise.__all__,
    *binary_compare.__all__,
    *binary_division.__all__,
    *binary_math.__all__,
    *binary_ternary.__all__,
]
