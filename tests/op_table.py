"""The op table: one line per op, read by tests/test_ops.py.

Each line names the op (a callable on tensors that runs unchanged on chainrule
and on torch tensors), its NumPy reference, sample input shapes, the domain its
float inputs are drawn from, tolerances and flags. `lib(x)` gives the library
of a tensor, for the few ops spelled as module functions (`torch.where`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

# --- what a line is made of -----------------------------------------------------------


@dataclass(frozen=True)
class Domain:
    """Where float inputs are drawn: uniform in [low, high], at least `gap` from `avoid`."""

    low: float = -2.0
    high: float = 2.0
    avoid: tuple[float, ...] = ()
    gap: float = 0.1

    def fix(self, a: np.ndarray) -> np.ndarray:
        """Push values that are too close to an avoided point out by `gap`."""
        a = np.array(a, dtype=np.float64, copy=True)
        for p in self.avoid:
            near = np.abs(a - p) < self.gap
            side = np.where(a[near] >= p, 1.0, -1.0)
            if self.low > p - self.gap:
                side = np.ones_like(side)
            elif self.high < p + self.gap:
                side = -np.ones_like(side)
            a[near] = p + side * (self.gap + np.abs(a[near] - p))
        return a


ANY = Domain()
POSITIVE = Domain(0.5, 2.0)  # log, sqrt, a base raised to a tensor power
NONZERO = Domain(avoid=(0.0,))  # divisors; abs and relu (kinks at 0)


@dataclass(frozen=True)
class Mask:
    """A fixed boolean input (a `where` condition), not a float input."""

    shape: tuple[int, ...]


Shape = tuple[int, ...]
Arg = Shape | Mask


@dataclass(frozen=True)
class Op:
    name: str
    fn: Callable[..., Any]  # on tensors (chainrule's or torch's)
    ref: Callable[..., Any]  # the same on float64 NumPy arrays
    samples: tuple[tuple[Arg, ...], ...]
    domain: Domain | tuple[Domain, ...] = ANY  # one for all float inputs, or one each
    rtol32: float = 1e-5  # float32 comparisons with torch (float64 ones use 1e-10)
    atol32: float = 1e-6
    gc_eps: float = 1e-6  # gradcheck / gradgradcheck settings (float64)
    gc_atol: float = 1e-5
    second_order: bool = True  # False: no gradgradcheck (say why in `note`)
    forward_ad: bool = True  # False: forward mode raises NotImplementedError, as in PyTorch
    hypothesis: str | None = None  # "unary" or "binary": shapes drawn by hypothesis
    # (chainrule's grad_fn name, why it differs from torch's) when it deliberately does.
    name_differs: tuple[str, str] | None = None
    # Why the strides of a result differ from torch's for some input layout, when they do
    # (tests/test_op_layouts.py).
    layout_differs: str = ""
    note: str = ""

    def domain_of(self, i: int) -> Domain:
        return self.domain[i] if isinstance(self.domain, tuple) else self.domain


def lib(x: Any) -> ModuleType:
    """The library a tensor belongs to (`chainrule` or `torch`)."""
    return sys.modules[type(x).__module__.split(".")[0]]


def assign(index: Any) -> Callable[..., Any]:
    """`y = x.clone(); y[index] = v; return y` (index may be a function of the library)."""

    def op(x: Any, v: Any) -> Any:
        y = x.clone()
        y[index(lib(x)) if callable(index) else index] = v
        return y

    return op


def assign_ref(index: Any) -> Callable[..., Any]:
    def ref(x: np.ndarray, v: np.ndarray) -> np.ndarray:
        y = x.copy()
        y[index(np) if callable(index) else index] = v
        return y

    return ref


def _inplace_op(x: Any, y: Any, op: str) -> Any:
    """`out = x * 1; out <op>= y` (the augmented assignments)."""
    out = x * 1
    if op == "sub":
        out -= y
    elif op == "mul":
        out *= y
    else:
        out /= y
    return out


def iadd(x: Any, y: Any) -> Any:
    out = x * 1
    out += y
    return out


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-a))


def _np_to(dtype: Any) -> Callable[[np.ndarray], np.ndarray]:
    return lambda a: a.astype(dtype)


# --- sample shapes --------------------------------------------------------------------

UNARY = (((2, 3),), ((),), ((4,),))
BINARY = (((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 3)), ((2, 1), (1, 3)), ((), ()))
MASK23 = np.array([[True, False, True], [False, True, True]])

# --- the table ------------------------------------------------------------------------

# fmt: off
OPS: tuple[Op, ...] = (
    # arithmetic: operators, methods, alpha, reflected forms with Python numbers
    Op("add", lambda x, y: x + y, np.add, BINARY, hypothesis="binary"),
    Op("add_alpha", lambda x, y: x.add(y, alpha=2), lambda x, y: x + 2 * y, BINARY),
    Op("sub", lambda x, y: x - y, np.subtract, BINARY, hypothesis="binary"),
    Op("sub_alpha", lambda x, y: x.sub(y, alpha=-0.5), lambda x, y: x + 0.5 * y, BINARY),
    Op("mul", lambda x, y: x * y, np.multiply, BINARY, hypothesis="binary"),
    Op("mul_method", lambda x, y: x.mul(y), np.multiply, BINARY[:2]),
    Op("div", lambda x, y: x / y, np.divide, BINARY, (ANY, NONZERO), hypothesis="binary"),
    Op("div_method", lambda x, y: x.div(y), np.divide, BINARY[:2], (ANY, NONZERO)),
    Op("pow_tensor", lambda x, y: x ** y, np.power, BINARY, (POSITIVE, ANY), hypothesis="binary"),
    Op("pow_method", lambda x, y: x.pow(y), np.power, BINARY[:2], (POSITIVE, ANY)),
    Op("neg", lambda x: -x, np.negative, UNARY, hypothesis="unary"),
    Op("neg_method", lambda x: x.neg(), np.negative, UNARY[:1]),
    Op("pow_3", lambda x: x ** 3, lambda x: x ** 3, UNARY, hypothesis="unary"),
    Op("pow_2.5", lambda x: x ** 2.5, lambda x: x ** 2.5, UNARY, POSITIVE, hypothesis="unary"),
    Op("pow_-1", lambda x: x ** -1, lambda x: x ** -1.0, UNARY, NONZERO, hypothesis="unary"),
    Op("pow_0", lambda x: x ** 0, lambda x: x ** 0, UNARY),
    Op("number_pow", lambda x: 2 ** x, lambda x: 2.0 ** x, UNARY, hypothesis="unary"),
    Op("add_number", lambda x: x + 2, lambda x: x + 2, UNARY, hypothesis="unary"),
    Op("number_add", lambda x: 2 + x, lambda x: 2 + x, UNARY, hypothesis="unary"),
    Op("sub_number", lambda x: x - 2, lambda x: x - 2, UNARY, hypothesis="unary"),
    Op("number_sub", lambda x: 2 - x, lambda x: 2 - x, UNARY, hypothesis="unary"),
    Op("mul_number", lambda x: x * 1.5, lambda x: x * 1.5, UNARY, hypothesis="unary"),
    Op("number_mul", lambda x: 3 * x, lambda x: 3 * x, UNARY, hypothesis="unary"),
    Op("div_number", lambda x: x / 4, lambda x: x / 4, UNARY, hypothesis="unary"),
    Op("number_div", lambda x: 2 / x, lambda x: 2 / x, UNARY, NONZERO, hypothesis="unary"),
    # unary math
    Op("exp", lambda x: x.exp(), np.exp, UNARY, hypothesis="unary"),
    Op("log", lambda x: x.log(), np.log, UNARY, POSITIVE, hypothesis="unary"),
    Op("sqrt", lambda x: x.sqrt(), np.sqrt, UNARY, POSITIVE, hypothesis="unary"),
    Op("abs", lambda x: x.abs(), np.abs, UNARY, NONZERO, hypothesis="unary"),
    Op("sin", lambda x: x.sin(), np.sin, UNARY, hypothesis="unary"),
    Op("cos", lambda x: x.cos(), np.cos, UNARY, hypothesis="unary"),
    Op("tanh", lambda x: x.tanh(), np.tanh, UNARY, hypothesis="unary"),
    Op("sigmoid", lambda x: x.sigmoid(), _sigmoid, UNARY, hypothesis="unary"),
    Op("relu", lambda x: x.relu(), lambda x: np.maximum(x, 0), UNARY, NONZERO, hypothesis="unary"),
    Op("reciprocal", lambda x: x.reciprocal(), np.reciprocal, UNARY, NONZERO, hypothesis="unary"),
    Op("square", lambda x: x.square(), np.square, UNARY, hypothesis="unary"),
    Op("exp_fn", lambda x: lib(x).exp(x), np.exp, UNARY[:1]),
    # where (the condition is a fixed mask)
    Op("where", lambda c, x, y: lib(x).where(c, x, y), np.where,
       ((Mask((2, 3)), (2, 3), (2, 3)), (Mask((2, 3)), (3,), (2, 1)), (Mask(()), (), (2,)))),
    Op("where_method", lambda c, x, y: x.where(c, y), np.where, ((Mask((2, 3)), (2, 3), (3,)),)),
    Op("where_number", lambda c, x: lib(x).where(c, x, 0.5), lambda c, x: np.where(c, x, 0.5),
       ((Mask((2, 3)), (2, 3)),)),
    # matrix products
    Op("mm", lambda a, b: a.mm(b), np.matmul, (((2, 3), (3, 4)), ((2, 0), (0, 3)))),
    Op("mv", lambda a, b: a.mv(b), np.matmul, (((2, 3), (3,)),)),
    Op("dot", lambda a, b: a.dot(b), np.dot, (((3,), (3,)),)),
    Op("bmm", lambda a, b: a.bmm(b), np.matmul, (((2, 2, 3), (2, 3, 4)),)),
    Op("outer", lambda a, b: a.outer(b), np.outer, (((2,), (3,)),)),
    Op("matmul_1d_1d", lambda a, b: a @ b, np.matmul, (((3,), (3,)),)),
    Op("matmul_2d_1d", lambda a, b: a @ b, np.matmul, (((2, 3), (3,)),)),
    Op("matmul_1d_2d", lambda a, b: a @ b, np.matmul, (((3,), (3, 2)),)),
    Op("matmul_2d_2d", lambda a, b: a @ b, np.matmul, (((2, 3), (3, 2)),)),
    Op("matmul_batched", lambda a, b: a @ b, np.matmul,
       (((2, 1, 2, 3), (3, 3, 2)), ((2, 2, 3), (3, 2)), ((3, 2), (2, 2, 3)))),
    Op("matmul_batched_1d", lambda a, b: a @ b, np.matmul, (((2, 2, 3), (3,)), ((3,), (2, 3, 2)))),
    Op("matmul_fn", lambda a, b: lib(a).matmul(a, b), np.matmul, (((2, 3), (3, 2)),)),
    # reductions
    Op("sum", lambda x: x.sum(), np.sum, (*UNARY, ((0, 3),))),
    Op("sum_dim", lambda x: x.sum(1), lambda x: x.sum(1), (((2, 3),), ((2, 3, 2),))),
    Op("sum_neg_dim", lambda x: x.sum(-1), lambda x: x.sum(-1), (((2, 3),), ((4,),))),
    Op("sum_dims", lambda x: x.sum((0, 2)), lambda x: x.sum((0, 2)), (((2, 3, 2),),)),
    Op("sum_keepdim", lambda x: x.sum((0, -1), keepdim=True),
       lambda x: x.sum((0, -1), keepdims=True), (((2, 3, 2),), ((3, 2),))),
    Op("mean", lambda x: x.mean(), np.mean, UNARY),
    Op("mean_dim", lambda x: x.mean(0), lambda x: x.mean(0), (((2, 3),), ((4,),))),
    Op("mean_dims_keepdim", lambda x: x.mean((-1, 0), keepdim=True),
       lambda x: x.mean((-1, 0), keepdims=True), (((2, 3, 2),),)),
    # shape ops
    Op("reshape", lambda x: x.reshape(3, 2), lambda x: x.reshape(3, 2), (((2, 3),), ((6,),))),
    Op("reshape_infer", lambda x: x.reshape(-1, 2), lambda x: x.reshape(-1, 2), (((2, 3, 2),),)),
    Op("reshape_copy", lambda x: x.t().reshape(6), lambda x: x.T.reshape(6), (((2, 3),),)),
    Op("view", lambda x: x.view(3, 2), lambda x: x.reshape(3, 2), (((2, 3),), ((6,),))),
    Op("flatten", lambda x: x.flatten(), lambda x: x.reshape(-1), (((2, 3, 2),), ((),))),
    Op("flatten_dims", lambda x: x.flatten(1, 2), lambda x: x.reshape(2, 6, 1),
       (((2, 3, 2, 1),),)),
    Op("transpose", lambda x: x.transpose(0, -1), lambda x: np.swapaxes(x, 0, -1),
       (((2, 3),), ((2, 3, 2),))),
    Op("t", lambda x: x.t(), lambda x: x.T, (((2, 3),), ((3,),))),
    Op("T", lambda x: x.T, lambda x: x.T, (((2, 3),), ((1, 3),))),
    Op("permute", lambda x: x.permute(2, 0, 1), lambda x: np.transpose(x, (2, 0, 1)),
       (((2, 3, 2),),)),
    Op("squeeze", lambda x: x.squeeze(), np.squeeze, (((2, 1, 3, 1),), ((1,),))),
    Op("squeeze_dim", lambda x: x.squeeze(1), lambda x: np.squeeze(x, 1), (((2, 1, 3),),)),
    Op("squeeze_dim_kept", lambda x: x.squeeze(0), lambda x: x, (((2, 1, 3),),)),
    Op("unsqueeze", lambda x: x.unsqueeze(1), lambda x: np.expand_dims(x, 1), (((2, 3),),)),
    Op("unsqueeze_neg", lambda x: x.unsqueeze(-1), lambda x: np.expand_dims(x, -1),
       (((2, 3),), ((),))),
    Op("expand", lambda x: x.expand(2, 4, 3), lambda x: np.broadcast_to(x, (2, 4, 3)),
       (((4, 1),), ((1, 3),), ((),))),
    Op("expand_keep", lambda x: x.expand(-1, 3), lambda x: np.broadcast_to(x, (2, 3)),
       (((2, 1),),)),
    Op("clone", lambda x: x.clone(), np.copy, UNARY),
    Op("to_float32", lambda x: x.to(lib(x).float32), _np_to(np.float32), UNARY,
       gc_eps=1e-3, gc_atol=1e-4, note="float32 output: coarser finite differences"),
    Op("double", lambda x: x.double(), _np_to(np.float64), UNARY),
    # reading with an index
    Op("index_int", lambda x: x[1], lambda x: x[1], (((3, 2),),)),
    Op("index_neg", lambda x: x[-1, -2], lambda x: x[-1, -2], (((3, 2),),)),
    Op("index_slice_step", lambda x: x[::2, 1:], lambda x: x[::2, 1:], (((5, 3),),)),
    Op("index_slice_neg", lambda x: x[-3:-1], lambda x: x[-3:-1], (((5, 2),),)),
    Op("index_none", lambda x: x[None, :, None], lambda x: x[None, :, None], (((2, 3),),)),
    Op("index_ellipsis", lambda x: x[..., 1], lambda x: x[..., 1], (((2, 3, 2),),)),
    Op("index_full_ellipsis", lambda x: x[...], lambda x: x[...], (((2, 3),), ((),))),
    Op("index_list", lambda x: x[[0, 2, 0]], lambda x: x[[0, 2, 0]], (((3, 2),),),
       note="repeated indices: gradients accumulate"),
    Op("index_tensor", lambda x: x[lib(x).tensor([[1, 1], [0, 2]])],
       lambda x: x[np.array([[1, 1], [0, 2]])], (((3, 2),),)),
    Op("index_2_arrays", lambda x: x[[0, 2, 2], [1, 0, 0]], lambda x: x[[0, 2, 2], [1, 0, 0]],
       (((3, 2),),)),
    Op("index_mixed", lambda x: x[1:, [0, 0, 1]], lambda x: x[1:, [0, 0, 1]], (((3, 2),),)),
    Op("index_mask", lambda x: x[lib(x).tensor(MASK23)], lambda x: x[MASK23], (((2, 3),),)),
    # writing with an index: y = x.clone(); y[index] = v
    Op("assign_int", assign(1), assign_ref(1), (((3, 2), (2,)), ((3, 2), ()))),
    Op("assign_slice", assign((slice(None), slice(0, 3, 2))),
       assign_ref((slice(None), slice(0, 3, 2))), (((2, 3), (2, 2)), ((2, 3), (2, 1)))),
    Op("assign_list", assign(([0, 1], [2, 0])), assign_ref(([0, 1], [2, 0])), (((2, 3), (2,)),)),
    Op("assign_rows", assign([2, 0]), assign_ref([2, 0]), (((3, 2), (2, 2)), ((3, 2), (2,)))),
    Op("assign_slice_list", assign((slice(1, None), [0, 2])),
       assign_ref((slice(1, None), [0, 2])), (((3, 3), (2, 2)),)),
    Op("assign_mask", assign(lambda m: m.tensor(MASK23) if m is not np else MASK23),
       assign_ref(MASK23), (((2, 3), (4,)), ((2, 3), ()))),
    # in-place ops on a non-leaf (x * 1), which then takes the op's place in the graph
    Op("add_", lambda x, y: (x * 1).add_(y), np.add, BINARY[:2]),
    Op("add_alpha_", lambda x, y: (x * 1).add_(y, alpha=3), lambda x, y: x + 3 * y, BINARY[:2]),
    Op("sub_", lambda x, y: (x * 1).sub_(y), np.subtract, BINARY[:2]),
    Op("mul_", lambda x, y: (x * 1).mul_(y), np.multiply, BINARY[:2]),
    Op("mul_number_", lambda x: (x * 1).mul_(2.5), lambda x: x * 2.5, UNARY[:2]),
    Op("div_", lambda x, y: (x * 1).div_(y), np.divide, BINARY[:2], (ANY, NONZERO)),
    Op("iadd", iadd, np.add, BINARY[:2]),
    Op("zero_", lambda x: (x * 1).zero_(), np.zeros_like, UNARY[:2]),
    Op("fill_", lambda x: (x * 1).fill_(2.5), lambda x: np.full_like(x, 2.5), UNARY[:2]),
    Op("fill_tensor_", lambda x, v: (x * 1).fill_(v), lambda x, v: np.full_like(x, v),
       (((2, 3), ()),)),
    Op("copy_", lambda x, y: (x * 1).copy_(y), lambda x, y: np.broadcast_to(y, x.shape).copy(),
       BINARY[:2]),
    # joining and selecting
    Op("cat", lambda x, y: lib(x).cat([x, y], 1), lambda x, y: np.concatenate([x, y], 1),
       (((2, 3), (2, 1)), ((2, 0), (2, 2)))),
    Op("cat_dim0", lambda x, y: lib(x).cat((x, y)), lambda x, y: np.concatenate([x, y]),
       (((2, 3), (1, 3)),)),
    Op("concat", lambda x, y: lib(x).concat([x, y], -1), lambda x, y: np.concatenate([x, y], -1),
       (((2, 3), (2, 2)),)),
    Op("concatenate", lambda x, y: lib(x).concatenate([x, y]), lambda x, y: np.concatenate([x, y]),
       (((3,), (2,)),)),
    Op("stack", lambda x, y: lib(x).stack([x, y], 1), lambda x, y: np.stack([x, y], 1),
       (((2, 3), (2, 3)),)),
    Op("stack_0d", lambda x, y: lib(x).stack([x, y]), lambda x, y: np.stack([x, y]),
       (((), ()),)),
    Op("narrow", lambda x: x.narrow(1, 1, 2), lambda x: x[:, 1:3], (((2, 4),),)),
    Op("narrow_fn", lambda x: lib(x).narrow(x, 0, 0, 1), lambda x: x[:1], (((3, 2),),)),
    Op("select", lambda x: x.select(1, -1), lambda x: x[:, -1], (((2, 3),),)),
    Op("select_fn", lambda x: lib(x).select(x, 0, 1), lambda x: x[1], (((3, 2),),)),
    Op("broadcast_to", lambda x: lib(x).broadcast_to(x, (2, 3)),
       lambda x: np.broadcast_to(x, (2, 3)), (((3,),), ((2, 1),))),
    Op("sign", lambda x: x.sign(), np.sign, UNARY, NONZERO),
    Op("rsub_fn", lambda x, y: lib(x).rsub(x, y), lambda x, y: y - x, BINARY[:2]),
    Op("rsub_alpha", lambda x, y: lib(x).rsub(x, y, alpha=2), lambda x, y: y - 2 * x, BINARY[:1]),
    Op("swapaxes", lambda x: x.swapaxes(0, 1), lambda x: np.swapaxes(x, 0, 1), (((2, 3),),)),
    Op("swapdims", lambda x: lib(x).swapdims(x, 0, -1), lambda x: np.swapaxes(x, 0, -1),
       (((2, 3, 2),),)),
    Op("expand_as", lambda x, y: x.expand_as(y), lambda x, y: np.broadcast_to(x, y.shape),
       (((3,), (2, 3)),)),
    Op("view_as", lambda x, y: x.view_as(y), lambda x, y: x.reshape(y.shape), (((6,), (2, 3)),)),
    Op("reshape_as", lambda x, y: x.reshape_as(y), lambda x, y: x.reshape(y.shape),
       (((2, 3), (3, 2)),)),
    Op("sum_to_size", lambda x: x.sum_to_size(1, 3), lambda x: x.sum(0, keepdims=True),
       (((2, 3),),)),
    Op("contiguous", lambda x: x.t().contiguous(), lambda x: x.T.copy(), (((2, 3),),)),
    Op("float_method", lambda x: x.double().float().double(), lambda x: x.astype(np.float32),
       UNARY[:1], gc_eps=1e-3, gc_atol=1e-4, note="float32 in the middle: coarser differences"),
    Op("type_as", lambda x, y: x.type_as(y), lambda x, y: x, (((2, 3), (1,)),)),
    # PyTorch's aliases, each the same op under another name
    Op("absolute", lambda x: x.absolute(), np.abs, UNARY[:1], NONZERO),
    Op("negative", lambda x: lib(x).negative(x), np.negative, UNARY[:1]),
    Op("subtract", lambda x, y: lib(x).subtract(x, y, alpha=2), lambda x, y: x - 2 * y,
       BINARY[:2]),
    Op("multiply", lambda x, y: lib(x).multiply(x, y), np.multiply, BINARY[:2]),
    Op("multiply_method", lambda x, y: x.multiply(y), np.multiply, BINARY[:1]),
    Op("divide_method", lambda x, y: x.divide(y), np.divide, BINARY[:1], (ANY, NONZERO)),
    Op("true_divide_method", lambda x, y: x.true_divide(y), np.divide, BINARY[:1], (ANY, NONZERO)),
    Op("true_divide_", lambda x, y: (x * 1).true_divide_(y), np.divide, BINARY[:1],
       (ANY, NONZERO)),
    Op("subtract_method", lambda x, y: x.subtract(y, alpha=2), lambda x, y: x - 2 * y,
       BINARY[:1]),
    Op("ger_method", lambda x, y: x.ger(y), np.outer, (((2,), (3,)),)),
    Op("pow_", lambda x, y: (x * 1).pow_(y), np.power, BINARY[:1], (POSITIVE, ANY)),
    Op("divide", lambda x, y: lib(x).divide(x, y), np.divide, BINARY[:2], (ANY, NONZERO)),
    Op("true_divide", lambda x, y: lib(x).true_divide(x, y), np.divide, BINARY[:2],
       (ANY, NONZERO)),
    Op("ger", lambda a, b: lib(a).ger(a, b), np.outer, (((2,), (3,)),)),
    Op("isub", lambda x, y: _inplace_op(x, y, "sub"), np.subtract, BINARY[:2]),
    Op("imul", lambda x, y: _inplace_op(x, y, "mul"), np.multiply, BINARY[:2]),
    Op("itruediv", lambda x, y: _inplace_op(x, y, "truediv"), np.divide, BINARY[:2],
       (ANY, NONZERO)),
    Op("unary_plus", lambda x: +x, lambda x: x, UNARY[:1]),
    Op("builtin_abs", lambda x: abs(x), np.abs, UNARY[:1], NONZERO),
)
# fmt: on


def _family_tables() -> tuple[Op, ...]:
    """The op library's families add their lines in tests/optable_*.py (each defines OPS)."""
    import importlib
    from pathlib import Path

    found: list[Op] = []
    for path in sorted(Path(__file__).parent.glob("optable_*.py")):
        found.extend(importlib.import_module(path.stem).OPS)
    return tuple(found)


OPS = OPS + _family_tables()
OPS_BY_NAME = {op.name: op for op in OPS}
assert len(OPS_BY_NAME) == len(OPS), "op names must be unique across the op table files"
