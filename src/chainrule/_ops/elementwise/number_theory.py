"""gcd and lcm of integer tensors, and frexp (a float as mantissa * 2 ** exponent).

gcd and lcm take integers only and wrap around as the C integer types do: the lcm is
|a / gcd * b| computed in the operands' type, and gcd(-2**63, 0) keeps its sign.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtype, return_types
from ..._strides import elementwise
from ..._tensor import Tensor
from ..primitive import Primitive
from ..quiet import quietly
from .binary_common import inplace_pair_op, not_implemented_for, pair_method, pair_op
from .exp_log import exp2

__all__ = ["frexp", "gcd", "gcd_", "lcm", "lcm_"]


@quietly
def _gcd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclid's algorithm on |a| and |b| in their own type, with C's remainder (its sign is
    the dividend's), as PyTorch runs it: where |x| overflows (int8's -128) the result may
    be negative."""
    a, b = np.abs(a), np.abs(b)
    while (live := a != 0).any():
        rest = np.fmod(b, _safe_divisor(a))
        a, b = np.where(live, rest, 0), np.where(live, a, b)
    return b


def _safe_divisor(d: np.ndarray) -> np.ndarray:
    """`d` with 0 and -1 made 1: x % 1 is x % -1 (0), and the lowest integer divided by -1
    traps in the CPU (where PyTorch's C code would have no defined result)."""
    bad = d == 0
    if d.dtype.kind == "i":
        bad |= d == -1
    return np.where(bad, 1, d)


@quietly
def _lcm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    g = _gcd(a, b)
    vanished = g == 0
    # C's integer promotion: types narrower than int are multiplied (and made positive) as
    # int, then wrapped back into their own type.
    work = np.int32 if a.dtype.itemsize < 4 else a.dtype
    a, b, g = a.astype(work), b.astype(work), g.astype(work)
    safe = _safe_divisor(g)
    quotient = (a - np.fmod(a, safe)) // safe  # C's division, which rounds toward zero
    quotient = np.where(g == -1, -a, quotient) if g.dtype.kind == "i" else quotient
    return np.where(vanished, 0, np.abs(quotient * b))


def _integer_op(kernel: str, np_fn: Callable[..., np.ndarray]) -> Callable[[Any, Any], Tensor]:
    def impl(input: Tensor, other: Tensor) -> Tensor:
        dt = _dtype.result_type(input, other)
        if dt.np.kind not in "iu":
            raise not_implemented_for(kernel, dt)
        a, b = input._data.astype(dt.np, copy=False), other._data.astype(dt.np, copy=False)
        return Tensor._make(elementwise(np_fn(a, b).astype(dt.np, copy=False), a, b))

    return impl


_gcd_impl = _integer_op("gcd_cpu", _gcd)
_lcm_impl = _integer_op("lcm_cpu", _lcm)

gcd = pair_op("gcd", _gcd_impl, "tensors", doc="The greatest common divisor, elementwise.")
gcd_method = pair_method("gcd", _gcd_impl, "tensors", doc=gcd.__doc__)
gcd_ = inplace_pair_op("gcd", _gcd_impl, "tensors")
lcm = pair_op("lcm", _lcm_impl, "tensors", doc="The least common multiple, elementwise.")
lcm_method = pair_method("lcm", _lcm_impl, "tensors", doc=lcm.__doc__)
lcm_ = inplace_pair_op("lcm", _lcm_impl, "tensors")


# --- frexp ---------------------------------------------------------------------------------


def _frexp_forward(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mantissa, exponent = np.frexp(a)
    # Where NumPy leaves the exponent undefined (nan, inf), PyTorch's is 0.
    exponent = np.where(np.isfinite(a), exponent, 0).astype(np.int32)
    return mantissa.astype(a.dtype, copy=False), exponent


def _frexp_layout(out: np.ndarray, a: np.ndarray) -> np.ndarray:
    return elementwise(out, a)


_frexp = Primitive(
    "FrexpBackward0",
    _frexp_forward,
    grads=(lambda g, n: g[0] / exp2(n.exponent),),
    outputs=("mantissa", "exponent"),
    formulas=("grad / 2^exponent",),
    layout=_frexp_layout,
)


def frexp(input: Tensor) -> Any:
    """`input` as mantissa * 2 ** exponent, the mantissa's size in [0.5, 1) (or 0)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(_frexp(input))
