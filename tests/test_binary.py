"""The binary and ternary family against torch: dtypes, errors, conventions, in-place forms.

Most tests run one small program under torch and under chainrule and compare
what comes out: the values, dtype, shape and requires_grad of a tensor, or the
exception's type and first line. tests/optable_binary.py covers values and
derivatives of the differentiable ops on random inputs.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule._ops.elementwise.binary_math import xlog1py as chainrule_xlog1py

NAN, INF = float("nan"), float("inf")


def outcome(lib: Any, program: Callable[[Any], Any]) -> tuple[Any, ...]:
    """What `program(lib)` gives: a tensor's description, a value, or the error's first line."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = program(lib)
    except Exception as e:
        return ("error", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    if isinstance(result, lib.Tensor):
        values = np.asarray(result.detach().numpy())
        return (
            "tensor",
            str(result.dtype).split(".")[-1],
            values.shape,
            values,
            result.requires_grad,
        )
    return ("value", result)


def assert_same(torch: Any, program: Callable[[Any], Any], rtol: float = 1e-6) -> None:
    theirs, mine = outcome(torch, program), outcome(chainrule, program)
    assert theirs[0] == mine[0], (theirs, mine)
    if theirs[0] != "tensor":
        assert theirs == mine
        return
    assert theirs[1:3] == mine[1:3] and theirs[4] == mine[4], (theirs, mine)
    a, b = theirs[3], mine[3]
    if a.dtype.kind == "f":
        np.testing.assert_allclose(b, a, rtol=rtol, atol=0, equal_nan=True)
        zeros = (a == 0) & (b == 0)
        assert (np.signbit(a[zeros]) == np.signbit(b[zeros])).all(), (a, b)
    else:
        np.testing.assert_array_equal(b, a)


def special(lib: Any) -> Any:
    """torch.special, or (until chainrule.special re-exports it) a stand-in with xlog1py."""
    if lib is chainrule and not hasattr(chainrule.special, "xlog1py"):
        return type("special", (), {"xlog1py": staticmethod(chainrule_xlog1py)})
    return lib.special


# --- dtypes and operand kinds -------------------------------------------------------------

OPERANDS: dict[str, Callable[[Any], Any]] = {
    "float32": lambda t: t.tensor([1.5, -2.0]),
    "int64": lambda t: t.tensor([3, -2]),
    "bool": lambda t: t.tensor([True, False]),
    "uint8": lambda t: t.tensor([3, 2], dtype=t.uint8),
    "int8": lambda t: t.tensor([3, -2], dtype=t.int8),
    "float64": lambda t: t.tensor([1.5, -2.0], dtype=t.float64),
    "float64 0-d": lambda t: t.tensor(2.5, dtype=t.float64),
    "int64 0-d": lambda t: t.tensor(3),
    "bool 0-d": lambda t: t.tensor(True),
    "int": lambda t: 2,
    "float": lambda t: 2.5,
    "bool number": lambda t: True,
    "None": lambda t: None,
}

BINARY_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "div_floor": lambda t, a, b: t.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda t, a, b: t.div(a, b, rounding_mode="trunc"),
    "floor_divide": lambda t, a, b: t.floor_divide(a, b),
    "//": lambda t, a, b: a // b,
    "remainder": lambda t, a, b: t.remainder(a, b),
    "%": lambda t, a, b: a % b,
    "fmod": lambda t, a, b: t.fmod(a, b),
    "atan2": lambda t, a, b: t.atan2(a, b),
    "arctan2": lambda t, a, b: t.arctan2(a, b),
    "hypot": lambda t, a, b: t.hypot(a, b),
    "maximum": lambda t, a, b: t.maximum(a, b),
    "minimum": lambda t, a, b: t.minimum(a, b),
    "fmax": lambda t, a, b: t.fmax(a, b),
    "fmin": lambda t, a, b: t.fmin(a, b),
    "copysign": lambda t, a, b: t.copysign(a, b),
    "xlogy": lambda t, a, b: t.xlogy(a, b),
    "xlog1py": lambda t, a, b: special(t).xlog1py(a, b),
    "logaddexp": lambda t, a, b: t.logaddexp(a, b),
    "logaddexp2": lambda t, a, b: t.logaddexp2(a, b),
    "float_power": lambda t, a, b: t.float_power(a, b),
    "heaviside": lambda t, a, b: t.heaviside(a, b),
    "nextafter": lambda t, a, b: t.nextafter(a, b),
    "ldexp": lambda t, a, b: t.ldexp(a, b),
    "bitwise_left_shift": lambda t, a, b: t.bitwise_left_shift(a, b),
    "<<": lambda t, a, b: a << b,
    ">>": lambda t, a, b: a >> b,
    "isclose": lambda t, a, b: t.isclose(a, b),
    "allclose": lambda t, a, b: t.allclose(a, b),
    "equal": lambda t, a, b: t.equal(a, b),
    "lerp": lambda t, a, b: t.lerp(a, b, 0.5),
    "lerp_tensor_weight": lambda t, a, b: t.lerp(a, b, b),
    "addcmul": lambda t, a, b: t.addcmul(a, b, b, value=2),
    "addcdiv": lambda t, a, b: t.addcdiv(a, b, a, value=2),
    "==": lambda t, a, b: a == b,
    "<": lambda t, a, b: a < b,
    ">=": lambda t, a, b: a >= b,
    "!=": lambda t, a, b: a != b,
}


@pytest.mark.parametrize("op", list(BINARY_OPS))
def test_dtypes_and_operand_kinds_match_torch(torch: Any, op: str) -> None:
    """Every pair of operand kinds: the result dtype and values, or torch's error."""
    fn = BINARY_OPS[op]
    for a, b in itertools.product(OPERANDS.values(), repeat=2):
        assert_same(torch, lambda t, a=a, b=b: fn(t, a(t), b(t)))  # type: ignore[misc]


# --- special values: results and derivatives ------------------------------------------------

GRID = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.0, INF, -INF, NAN, 1e-300]

DIFFERENTIABLE: dict[str, Callable[[Any, Any, Any], Any]] = {
    "remainder": lambda t, x, y: t.remainder(x, y),
    "remainder_number": lambda t, x, y: x % -2.5 + y,
    "fmod": lambda t, x, y: t.fmod(x, y),
    "div_floor": lambda t, x, y: t.div(x, y, rounding_mode="floor"),
    "div_trunc": lambda t, x, y: t.div(x, y, rounding_mode="trunc"),
    "atan2": lambda t, x, y: t.atan2(x, y),
    "hypot": lambda t, x, y: t.hypot(x, y),
    "maximum": lambda t, x, y: t.maximum(x, y),
    "minimum": lambda t, x, y: t.minimum(x, y),
    "fmax": lambda t, x, y: t.fmax(x, y),
    "fmin": lambda t, x, y: t.fmin(x, y),
    "copysign": lambda t, x, y: t.copysign(x, y),
    "copysign_number": lambda t, x, y: t.copysign(x, -0.0) * y,
    "xlogy": lambda t, x, y: t.xlogy(x, y),
    "xlogy_number_first": lambda t, x, y: t.xlogy(0.0, y) + t.xlogy(-2, x),
    "xlog1py": lambda t, x, y: special(t).xlog1py(x, y),
    "xlog1py_numbers": lambda t, x, y: special(t).xlog1py(x, -1) + special(t).xlog1py(0, y),
    "logaddexp": lambda t, x, y: t.logaddexp(x, y),
    "nextafter": lambda t, x, y: t.nextafter(x, y),
    "ldexp": lambda t, x, y: t.ldexp(x, y),
    "float_power": lambda t, x, y: t.float_power(x, y),
    "lerp": lambda t, x, y: t.lerp(x, y, 0.7),
    "lerp_tensor": lambda t, x, y: t.lerp(x, 2 * y, y),
    "addcmul": lambda t, x, y: t.addcmul(x, x, y, value=0.5),
    "addcdiv": lambda t, x, y: t.addcdiv(x, x, y, value=-2),
}


@pytest.mark.parametrize("op", list(DIFFERENTIABLE))
def test_special_values_and_their_gradients_match_torch(torch: Any, op: str) -> None:
    """±0, ±inf, nan and ties: the values and torch's conventions for the derivatives."""
    xs, ys = (np.array(v) for v in zip(*itertools.product(GRID, GRID), strict=True))

    def program(t: Any) -> Any:
        x = t.tensor(xs, requires_grad=True)
        y = t.tensor(ys, requires_grad=True)
        out = DIFFERENTIABLE[op](t, x, y)
        gx, gy = t.autograd.grad(out.sum(), (x, y), allow_unused=True)
        return t.stack([out.detach(), *(g if g is not None else t.zeros_like(x) for g in (gx, gy))])

    # logaddexp2(-1, -1) is -5e-17 in torch: an absolute tolerance covers such dust.
    theirs, mine = outcome(torch, program), outcome(chainrule, program)
    assert theirs[:3] == mine[:3]
    np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-12, atol=1e-15, equal_nan=True)
    zeros = (theirs[3] == 0) & (mine[3] == 0)
    assert (np.signbit(theirs[3][zeros]) == np.signbit(mine[3][zeros])).all()


def test_tie_conventions(torch: Any) -> None:
    """maximum/minimum split a tie's gradient; fmax/fmin give it to input; nan wins or loses."""
    for name in ("maximum", "minimum", "fmax", "fmin"):

        def program(t: Any, name: str = name) -> Any:
            x = t.tensor([1.0, 2.0, NAN, 1.0], requires_grad=True)
            y = t.tensor([1.0, 1.0, 1.0, NAN], requires_grad=True)
            return t.stack(t.autograd.grad(getattr(t, name)(x, y).sum(), (x, y)))

        assert_same(torch, program)
    x = chainrule.tensor([1.0], requires_grad=True)
    (g,) = chainrule.autograd.grad(chainrule.maximum(x, x.detach()).sum(), (x,))
    assert g.item() == 0.5


# --- ops torch does not differentiate --------------------------------------------------------

NOT_DIFFERENTIATED = {
    "floor_divide": lambda t, x, y: t.floor_divide(x, y),
    "//": lambda t, x, y: x // y,
    "number //": lambda t, x, y: 7 // y,
    "tensor // number": lambda t, x, y: x // 2,
    "number %": lambda t, x, y: 7 % y,
    "heaviside": lambda t, x, y: t.heaviside(x, y),
}


@pytest.mark.parametrize("op", list(NOT_DIFFERENTIATED))
def test_not_implemented_nodes(torch: Any, op: str) -> None:
    fn = NOT_DIFFERENTIATED[op]

    def graph(t: Any) -> Any:
        """The node's name, how it prints, and its edges: one per input that requires grad."""
        found = []
        for x_grad, y_grad in ((True, True), (True, False), (False, True)):
            x = t.tensor([1.5, -2.0], requires_grad=x_grad)
            out = fn(t, x, t.tensor([2.0, 0.5], requires_grad=y_grad))
            node = out.grad_fn
            if node is not None:
                edges = [f[0] is not None for f in node.next_functions]
                found.append((node.name(), repr(out).split("grad_fn=")[1], edges))
        return found

    def backward(t: Any) -> Any:
        x = t.tensor([1.5, -2.0], requires_grad=True)
        fn(t, x, t.tensor([2.0, 0.5], requires_grad=True)).sum().backward()

    assert_same(torch, graph)
    assert_same(torch, backward)
    assert_same(torch, lambda t: fn(t, t.tensor([1.5, -2.0]), t.tensor([2.0, 0.5])))


# --- argument errors, keywords, methods ------------------------------------------------------

CALLS: list[Callable[[Any], Any]] = [
    lambda t: t.tensor([1.0]).atan2(2.0),
    lambda t: t.atan2(t.tensor([1.0]), None),
    lambda t: t.atan2(input=t.tensor([1.0]), other=t.tensor([2.0])),
    lambda t: t.tensor([1.0]).fmod("a"),
    lambda t: t.fmod(2, t.tensor([1.0])),
    lambda t: t.remainder(t.tensor([1.0]), None),
    lambda t: t.remainder(None, t.tensor([1.0])),
    lambda t: t.remainder(2, 3),
    lambda t: t.tensor([1.0]).remainder(None),
    lambda t: t.xlogy(2, 3),
    lambda t: t.tensor([1.0]).xlogy(None),
    lambda t: t.float_power(t.tensor([1.0]), None),
    lambda t: t.tensor([1.0]).float_power(2),
    lambda t: t.float_power(2, t.tensor([1, -2])),
    lambda t: t.tensor([1.0]).lerp(2.0, 0.5),
    lambda t: t.tensor([1.0]).lerp(t.tensor([1.0]), None),
    lambda t: t.lerp(input=t.tensor([1.0]), end=t.tensor([3.0, 4.0]), weight=0.25),
    lambda t: t.lerp(t.tensor([1.0]), t.tensor([3.0]), t.tensor([1.0], dtype=t.float64)),
    lambda t: t.lerp(t.tensor([1.0]), t.tensor([3.0]), t.tensor(0.25, dtype=t.float64)),
    lambda t: t.lerp(t.tensor([1.0]), t.tensor(3.0, dtype=t.float64), 0.5),
    lambda t: t.lerp(t.tensor([1, 2]), t.tensor([3, 4]), 2),
    lambda t: t.lerp(t.tensor([1, 2]), t.tensor([3, 4]), t.tensor([1, 1])),
    lambda t: t.lerp(t.tensor([1.0]), t.tensor([3.0, 4.0, 5.0]), t.ones(2)),
    lambda t: t.tensor([1.0]).heaviside(2.0),
    lambda t: t.heaviside(t.tensor([-1.0, 0.0]), values=t.tensor(0.5)),
    lambda t: t.heaviside(t.tensor([-1.0, 0.0]), t.tensor(0.5, dtype=t.float64)),
    lambda t: t.tensor([1.0]).hypot(2.0),
    lambda t: t.maximum(t.tensor([1.0]), 2.0),
    lambda t: t.tensor([1.0]).isclose(1.0),
    lambda t: t.tensor([1.0]).equal(1.0),
    lambda t: t.allclose(t.tensor([1.0, 1.0]), 1.0),
    lambda t: t.tensor([1.0]).ldexp(2),
    lambda t: t.tensor([1.0]).nextafter(2.0),
    lambda t: t.nextafter(t.tensor([1.0]), t.tensor([2.0], dtype=t.float64)),
    lambda t: t.tensor([1.0]).div(2, rounding_mode="foo"),
    lambda t: t.div(t.tensor([1.0]), 2, rounding_mode=2),
    lambda t: t.div(t.tensor([7, -7]), t.tensor([2, 0]), rounding_mode="floor"),
    lambda t: t.tensor([5.0]).floor_divide(None),
    lambda t: t.tensor([5]) << 1.5,
    lambda t: t.tensor([5]) // None,
    lambda t: None % t.tensor([5]),
    lambda t: t.tensor([5, -5]) % 0,
    lambda t: t.fmod(t.tensor([5, -5]), False),
    lambda t: t.addcmul(t.tensor([1.0]), t.tensor([1.0]), None),
    lambda t: t.tensor([1.0]).addcmul(t.tensor([1.0]), None),
    lambda t: t.addcmul(t.tensor([1.0]), t.tensor([1.0]), t.tensor([1.0]), value=None),
    lambda t: t.addcmul(t.tensor([5, 2]), t.tensor([5, 2]), t.tensor([5, 2]), value=2.5),
    lambda t: t.addcmul(t.tensor([True]), t.tensor([True]), t.tensor([True])),
    lambda t: t.addcdiv(t.tensor([5.0, 2]), t.tensor([5, 2]), t.tensor([5, 2])),
    lambda t: t.addcdiv(t.tensor([5.0, 2]), t.tensor([5.0, 2]), t.tensor([5.0, 2]), 2),
    lambda t: t.addcdiv(
        t.tensor([5.0, 2]), t.tensor([5.0, 2]), t.tensor([4.0, 2]), value=t.tensor(2.0)
    ),
    lambda t: t.addcmul(t.ones(3), t.ones(2, 1), t.ones(4, 2, 1)),
    lambda t: t.isclose(t.tensor([1.0, 1.0]), t.tensor([1.0, 1.00001]), rtol=-1),
    lambda t: t.isclose(t.tensor([1.0, 1.0]), t.tensor([1.0, 1.00001]), atol=-0.5),
    lambda t: t.isclose(t.tensor([1.0, 1.0]), t.tensor([1.0, 1.00001]), rtol=None),
    lambda t: t.isclose(t.tensor([1.0, 1.0]), t.tensor([1.0, 1.0, 1.0])),
    lambda t: t.isclose(
        t.tensor([1.0, NAN, INF, -INF, INF]), t.tensor([1.0, NAN, INF, -INF, -INF])
    ),
    lambda t: t.isclose(t.tensor([1.0, NAN, INF]), t.tensor([1.0, NAN, INF]), equal_nan=True),
    lambda t: t.isclose(t.tensor([1.0, 1.0]), t.tensor([1.0, 1.00001]), 0.0, 0.0),
    lambda t: t.isclose(t.tensor([10, 12], dtype=t.uint8), t.tensor([11, 11], dtype=t.uint8), 0, 1),
    lambda t: t.isclose(
        t.tensor([3], dtype=t.int8), t.tensor([-128], dtype=t.int8), atol=125, rtol=0
    ),
    lambda t: t.isclose(
        t.tensor([16777217], dtype=t.int32), t.tensor([16777216], dtype=t.int32), atol=0.5, rtol=0
    ),
    lambda t: t.isclose(t.tensor([True, False]), t.tensor([True, True]), rtol=1, atol=1),
    lambda t: t.allclose(t.tensor([1.0, NAN]), t.tensor([1.0, NAN]), equal_nan=True),
    lambda t: t.tensor([1.0, 2.0]).allclose(t.tensor([1.0, 2.00001]), atol=1e-4),
    lambda t: t.equal(t.tensor([1, 2]), t.tensor([1.0, 2.0])),
    lambda t: t.equal(t.tensor([1.0, NAN]), t.tensor([1.0, NAN])),
    lambda t: t.equal(t.tensor([1.0]), t.tensor(1.0)),
    lambda t: t.equal(t.ones(0), t.ones(0, 2)),
    lambda t: t.tensor([1, 1]).equal(t.tensor([True, True])),
    lambda t: t.tensor([-1.0, 0.0, -0.0, 2.0, NAN]).heaviside(t.tensor([0.5])),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_calls_match_torch(torch: Any, i: int) -> None:
    assert_same(torch, CALLS[i])


def test_integer_division_by_zero_changes_nothing() -> None:
    x = chainrule.tensor([5, -5])
    for fn in (
        lambda: x.floor_divide_(chainrule.tensor([1, 0])),
        lambda: x.remainder_(0),
        lambda: x.fmod_(chainrule.tensor([0, 0])),
        lambda: x.div_(0, rounding_mode="trunc"),
    ):
        with pytest.raises(RuntimeError, match=r"^ZeroDivisionError$"):
            fn()
    assert x.tolist() == [5, -5] and x._version == 0


# --- integer ops: rounding, shifts ------------------------------------------------------------

INTEGER_DTYPES = ["int8", "uint8", "int16", "int32", "int64"]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_integer_rounding_and_shifts_match_torch(torch: Any, dtype: str) -> None:
    """Signs of quotients and remainders, wrapping, shifts by negative or too-large amounts."""
    info = np.iinfo(dtype)
    a = np.array([7, -7, 7, -7, 0, info.min, info.max, 1, -1]).astype(dtype)
    # The smallest int32 or int64 over -1 traps (SIGFPE) in torch's fmod and trunc kernels.
    b = np.array([2, 2, -2, -2, 3, -1 if info.bits < 32 else 5, 3, 1, 7]).astype(dtype)
    shifts = np.array([0, 1, 3, -1, 7, 8, 9, 63, 64]).astype(dtype)
    for program in (
        lambda t: t.div(t.tensor(a), t.tensor(b), rounding_mode="floor"),
        lambda t: t.div(t.tensor(a), t.tensor(b), rounding_mode="trunc"),
        lambda t: t.tensor(a) // t.tensor(b),
        lambda t: t.tensor(a) % t.tensor(b),
        lambda t: t.fmod(t.tensor(a), t.tensor(b)),
        lambda t: t.tensor(a) // 3,
        lambda t: 100 % t.tensor(b),
        lambda t: t.tensor(a) << t.tensor(shifts),
        lambda t: t.tensor(a) >> t.tensor(shifts),
        lambda t: t.bitwise_right_shift(t.tensor(a), 2),
        lambda t: t.bitwise_left_shift(3, t.tensor(shifts)),
        lambda t: 5 >> t.tensor(shifts),
    ):
        assert_same(torch, program)


# --- in place ---------------------------------------------------------------------------------

INPLACE: list[Callable[[Any], Any]] = [
    lambda t: t.ones(3).atan2_(t.ones(2, 3)),
    lambda t: t.ones(2).hypot_(t.ones(3)),
    lambda t: t.tensor([1, 2]).atan2_(t.tensor([1, 2])),
    lambda t: t.tensor([1, 2]).float_power_(2),
    lambda t: t.tensor([1.0, 2]).float_power_(2),
    lambda t: t.tensor([1.0, 2], dtype=t.float64).float_power_(t.tensor([2])),
    lambda t: t.tensor([5, 2]).remainder_(2.5),
    lambda t: t.tensor([5, 2]).div_(2, rounding_mode="floor"),
    lambda t: t.tensor([5, 2]).floor_divide_(2),
    lambda t: t.tensor([5, 2]).fmod_(t.tensor([1.5, 1])),
    lambda t: t.tensor([5.0, 2]).xlogy_(2),
    lambda t: t.tensor([5.0, 2]).copysign_(-1),
    lambda t: t.tensor([5, 2]).copysign_(-1),
    lambda t: t.tensor([5.0, 2]).lerp_(t.tensor([1.0, 1.0]), 0.5),
    lambda t: t.tensor([1.0]).lerp_(t.tensor([3.0, 4.0, 5.0]), 0.5),
    lambda t: t.tensor([5.0, 2]).addcmul_(t.tensor([1.0, 1.0]), t.tensor([2.0, 1.0]), value=2),
    lambda t: t.tensor([5.0, 2]).addcmul_(t.ones(2, 1), t.ones(2)),
    lambda t: t.tensor([5.0, 2]).addcdiv_(t.tensor([1.0, 1.0]), t.tensor([2.0, 1.0]), value=2),
    lambda t: t.tensor([5.0, 2]).heaviside_(t.tensor([1.0, 1.0])),
    lambda t: t.tensor([-1.0, 0.0]).heaviside_(t.tensor([0.5, 0.5, 0.5])),
    lambda t: t.tensor([5.0, 2]).nextafter_(t.tensor([1.0, 1.0])),
    lambda t: t.tensor([5.0, 2]).ldexp_(t.tensor([1, 1])),
    lambda t: t.tensor([5, 2]).ldexp_(t.tensor([1, 1])),
    lambda t: t.tensor([5, 2], dtype=t.int8).bitwise_left_shift_(t.tensor([1, 1])),
    lambda t: t.tensor([5, 2]).bitwise_right_shift_(1),
    lambda t: t.tensor([5, 2]).bitwise_and_(2.5),
    lambda t: t.tensor([1.0, 2.0]).eq_(2),
    lambda t: t.tensor([1, 2]).lt_(1.5),
    lambda t: t.tensor([True, False]).lt_(1.5),
    lambda t: t.tensor([1.0, 2.0]).greater_equal_(t.tensor([2.0, 1.0])),
    lambda t: t.tensor([1.0, 2.0]).eq_(None),
    lambda t: t.tensor([1.0, 2.0]).atan2_(2.0),
    lambda t: t.tensor([1.0, 2.0]).remainder_(None),
]


@pytest.mark.parametrize("i", range(len(INPLACE)))
def test_inplace_matches_torch(torch: Any, i: int) -> None:
    assert_same(torch, INPLACE[i])


def test_inplace_operators_match_torch(torch: Any) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([20, -7, 12])
        y = x
        y //= 3
        y %= 4
        y <<= 2
        y >>= 1
        y &= 7
        y |= 8
        y ^= 3
        assert y is x
        return x

    assert_same(torch, program)


def test_inplace_ops_take_the_ops_place_in_the_graph(torch: Any) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        names = [
            y.atan2_(t.tensor([1.0, 2.0])).grad_fn.name(),
            y.addcmul_(x, x).grad_fn.name(),
            y.lerp_(x, 0.3).grad_fn.name(),
            y.lt_(t.tensor([2.0, 1.0], requires_grad=True)).grad_fn.name(),
            y.eq_(2).grad_fn.name(),
        ]
        (g,) = t.autograd.grad(y.sum(), (x,))
        return names, g.tolist(), y._version

    assert_same(torch, program)


def test_inplace_on_a_leaf_that_requires_grad(torch: Any) -> None:
    assert_same(torch, lambda t: t.tensor([1.0], requires_grad=True).atan2_(t.tensor([1.0])))


# --- comparisons --------------------------------------------------------------------------------


def test_comparison_method_aliases(torch: Any) -> None:
    for name in ("greater", "greater_equal", "less", "less_equal", "not_equal"):
        assert_same(torch, lambda t, name=name: getattr(t.tensor([1, 2, 3]), name)(2))


def test_comparison_of_a_huge_float_with_float32_is_quiet(torch: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (chainrule.tensor([1.0]) < 1e300).item()
        assert not (chainrule.tensor([1.0]) > 1e300).item()


# --- conventions and numerics -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lerp_and_addcmul_round_as_torchs_fused_multiply_add(torch: Any, dtype: str) -> None:
    """Bit for bit: torch uses fused multiply-adds, which chainrule reproduces."""
    rng = np.random.default_rng(1)
    a, b, c = (
        (rng.standard_normal(500) * 10.0 ** rng.integers(-4, 4, 500)).astype(dtype)
        for _ in range(3)
    )
    w = rng.uniform(-1, 2, 500).astype(dtype)
    for program in (
        lambda t: t.lerp(t.tensor(a), t.tensor(b), t.tensor(w)),
        lambda t: t.lerp(t.tensor(a), t.tensor(b), 0.3),
        lambda t: t.lerp(t.tensor(a), t.tensor(b), 0.7),
        lambda t: t.addcmul(t.tensor(a), t.tensor(b), t.tensor(c), value=0.37),
        lambda t: t.addcdiv(t.tensor(a), t.tensor(b), t.tensor(c), value=0.37),
    ):
        assert_same(torch, program, rtol=0)


def test_float_power_computes_in_float64(torch: Any) -> None:
    def program(t: Any) -> Any:
        x = t.tensor([2.0, 3.0], requires_grad=True)
        out = t.float_power(x, t.tensor([2]))
        return [f[0].name() if f[0] else None for f in out.grad_fn.next_functions], out

    assert_same(torch, lambda t: program(t)[0])
    assert_same(torch, lambda t: program(t)[1])


def test_ldexp_gradient_for_negative_integer_exponents() -> None:
    """A deliberate difference: torch's gradient here is 0 (it computes 2**k in integers)."""
    x = chainrule.tensor([1.5, 1.5], requires_grad=True)
    chainrule.ldexp(x, chainrule.tensor([-2, 70])).sum().backward()
    assert x.grad.tolist() == [0.25, 2.0**70]


def test_fmod_is_exact_for_huge_quotients() -> None:
    """A deliberate difference: torch's float32 fmod(1e30, 1e-30) is nan (its vector kernel)."""
    out = chainrule.fmod(chainrule.tensor([1e30]), chainrule.tensor([1e-30]))
    assert np.isfinite(out.item()) and 0 <= out.item() < 1e-30
