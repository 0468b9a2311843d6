"""Forward-mode AD (`autograd.forward_ad`): levels, dual tensors, views, in-place ops,
custom Functions and mixing with reverse mode.

Scenarios run on chainrule and (when installed) on torch and must print the same;
the analytic tests below need no torch.
"""

from __future__ import annotations

import gc
import math
import weakref
from typing import Any

import numpy as np
import pytest

import chainrule
import chainrule.autograd.forward_ad as fwad
from chainrule.autograd.functional import hessian, jacobian
from torch_compare import as_torch_text, registry

SCENARIOS, scenario = registry()


def outcome(fn: Any, m: Any) -> Any:
    """What a scenario printed (reprs), or the exception it raised."""
    try:
        return ("ok", [as_torch_text(repr(o)) for o in fn(m)])
    except Exception as e:
        return ("raises", type(e).__name__, as_torch_text(str(e)))
    finally:
        fw = m.autograd.forward_ad
        if (fwad._level is not None) if m is chainrule else fw._current_level >= 0:
            fw.exit_dual_level()  # a scenario that failed inside its level


@pytest.mark.parametrize("fn", SCENARIOS, ids=lambda f: f.__name__)
def test_matches_torch(torch: Any, fn: Any) -> None:
    assert outcome(fn, chainrule) == outcome(fn, torch)


# --- levels and dual tensors ------------------------------------------------------------


@scenario
def dual_prints_its_tangent(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    x = m.tensor([1.0, 2.0])
    with fw.dual_level() as level:
        d = fw.make_dual(x, m.tensor([1.0, 0.0]))
        y = d.sin() * 2
        out = [level, d, d.is_leaf, d.requires_grad, d.grad_fn, d._base is x, y]
        primal, tangent = fw.unpack_dual(y)
        out += [primal, tangent, primal._base is y, fw.unpack_dual(x)]
        out += [d.sum(), d.mean(), fw.make_dual(m.tensor(2.0), m.tensor(3.0)) ** 2]
        out += [d.double(), d.int(), d > 1, d.detach(), fw.unpack_dual(d.detach())]
    out += [y, fw.unpack_dual(y)]  # the level is gone, and its tangents with it
    return out


@scenario
def make_dual_outside_a_level(m: Any) -> list[Any]:
    return [m.autograd.forward_ad.make_dual(m.ones(2), m.ones(2))]


@scenario
def tangent_of_another_size(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        return [fw.make_dual(m.ones(2), m.ones(3))]


@scenario
def integer_primal(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        return [fw.make_dual(m.tensor([1, 2]), m.ones(2))]


@scenario
def integer_tangent(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        return [fw.make_dual(m.ones(2), m.tensor([1, 2]))]


@scenario
def dual_of_a_dual(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(m.ones(2), m.ones(2))
        return [fw.make_dual(d * 2, m.ones(2))]


@scenario
def nested_levels(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level(), fw.dual_level():
        return []


@scenario
def exit_without_a_level(m: Any) -> list[Any]:
    m.autograd.forward_ad.exit_dual_level()
    return []


@scenario
def exit_the_wrong_level(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    level = fw.enter_dual_level()
    try:
        fw.exit_dual_level(level=level + 3)
    finally:
        fw.exit_dual_level(level=level)
    return []


@scenario
def unpack_at_a_wrong_level(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(m.ones(2), m.ones(2))
        return [fw.unpack_dual(d, level=0), fw.unpack_dual(d, level=5)]


# --- ops, views and in-place ---------------------------------------------------------------


@scenario
def ops_push_tangents(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(m.tensor([1.0, 2.0]), m.tensor([1.0, 1.0]))
        x = m.tensor([1.0, 2.0])
        q = fw.make_dual(m.eye(2), m.ones(2, 2))
        return [
            m.stack([d, x]),
            m.cat([x, d]),
            d @ m.ones(2),
            d.max(),
            m.sort(d),
            m.where(d > 1.5, d, 0.0),
            d.norm(),
            d[[1, 0]],
            m.tensor([1.0, 2.0], dtype=m.float64) + d,
            m.nn.functional.softmax(d, 0),
            m.nn.functional.relu(d - 1.5),
            m.linalg.inv(q),
            m.linalg.det(q),
            m.einsum("ij,j->i", q, d),
            (d * d).prod(),
            m.cumsum(d, 0),
            d.var(),
            m.logsumexp(d, 0),
            d.split(1),
            d.unbind(),
            fw.unpack_dual(x * 3).tangent,
            m.zeros(2, requires_grad=True) + d,
        ]


@scenario
def no_grad_still_pushes_tangents(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(m.tensor([1.0, 2.0]), m.tensor([1.0, 1.0]))
        with m.no_grad():
            return [d * 2, d.exp()]


@scenario
def views_share_the_tangent(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(m.tensor([1.0, 2.0]), m.ones(2))
        v = d.view(2, 1)
        tangent = fw.unpack_dual(v).tangent
        return [v, tangent._base is not None, fw.unpack_dual(d).tangent._base]


@scenario
def in_place_ops_update_tangents(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(m.tensor([1.0, 2.0]), m.ones(2))
        a = m.zeros(2)
        a.add_(d)
        b = m.zeros(2, 2)
        b[0] = d
        e = d.clone()
        e.exp_()
        c = m.zeros(3, 2)
        row = c[1]
        row.mul_(2)
        row.add_(d)
        h = d.clone()
        h[1] = 5.0
        f = m.zeros(2)
        f.copy_(d)
        return [a, b, e, d, c, row, h, f]


@scenario
def reverse_through_a_tangent(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    x = m.tensor([1.0, 2.0], requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(x, m.tensor([1.0, 1.0]))
        y = (d * d).sum()
        tangent = fw.unpack_dual(y).tangent
        tangent.backward()
        scaled = fw.make_dual(x, m.ones(2)) * 3
        primal = fw.unpack_dual(scaled).primal
        return [d, y, x.grad, primal, primal._base is scaled, primal.grad_fn.name()]


# --- custom Functions -------------------------------------------------------------------------


def _functions(m: Any) -> tuple[Any, ...]:
    class Two(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any, k: float) -> Any:
            ctx.save_for_forward(x, y)
            ctx.k = k
            return x * y * k, x + y

        @staticmethod
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            return None, None, None

        @staticmethod
        def jvp(ctx: Any, tx: Any, ty: Any, tk: Any) -> Any:
            x, y = ctx.saved_tensors
            ctx.seen = (tx, ty, tk)
            return (tx * y + x * ty) * ctx.k, tx + ty

    class TooMany(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            return t, t

    class WrongSize(TooMany):
        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            return t.sum()

    class NoJvp(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    return Two, TooMany, WrongSize, NoJvp


@scenario
def custom_function_jvp(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    two, _, _, no_jvp = _functions(m)
    with fw.dual_level():
        d = fw.make_dual(m.tensor([1.0, 2.0]), m.tensor([1.0, 1.0]))
        outs = two.apply(d, m.tensor([3.0, 4.0]), 2.0)
        return [outs, outs[0].grad_fn is None, no_jvp.apply(m.ones(2))]


@scenario
def custom_function_jvp_returns_too_many(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        return [_functions(m)[1].apply(fw.make_dual(m.ones(2), m.ones(2)))]


@scenario
def custom_function_jvp_of_the_wrong_size(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        return [_functions(m)[2].apply(fw.make_dual(m.ones(2), m.ones(2)))]


@scenario
def custom_function_without_jvp(m: Any) -> list[Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        return [_functions(m)[3].apply(fw.make_dual(m.ones(2), m.ones(2)))]


# --- analytic checks (no torch needed) --------------------------------------------------------


def test_tangent_of_sin_is_cos_times_tangent() -> None:
    x = chainrule.tensor([0.5, 1.0, 2.0], dtype=chainrule.float64)
    t = chainrule.tensor([1.0, -2.0, 0.5], dtype=chainrule.float64)
    with fwad.dual_level():
        tangent = fwad.unpack_dual(fwad.make_dual(x, t).sin()).tangent
    np.testing.assert_allclose(tangent.numpy(), np.cos(x.numpy()) * t.numpy(), rtol=1e-15)


def test_a_custom_jvp_gets_zeros_for_tensors_without_tangent_and_none_for_others() -> None:
    seen: list[Any] = []

    class Scale(chainrule.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any, k: float) -> Any:
            return x * y * k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return None, None, None

        @staticmethod
        def jvp(ctx: Any, tx: Any, ty: Any, tk: Any) -> Any:
            seen.extend([tx, ty, tk])
            return tx * 0

    with fwad.dual_level():
        Scale.apply(fwad.make_dual(chainrule.ones(2), chainrule.ones(2)), chainrule.ones(2), 2.0)
    assert seen[0].tolist() == [1.0, 1.0]
    assert seen[1].tolist() == [0.0, 0.0]
    assert seen[2] is None


def test_dual_level_is_a_decorator() -> None:
    @fwad.dual_level()
    def tangent_of_square(x: Any, t: Any) -> Any:
        return fwad.unpack_dual(fwad.make_dual(x, t) ** 2).tangent

    out = tangent_of_square(chainrule.tensor([3.0]), chainrule.tensor([1.0]))
    assert out.tolist() == [6.0]
    assert fwad._level is None


def test_leaving_the_level_drops_every_tangent_even_on_error() -> None:
    with pytest.raises(ValueError), fwad.dual_level():
        d = fwad.make_dual(chainrule.ones(2), chainrule.ones(2))
        raise ValueError
    assert fwad.unpack_dual(d).tangent is None
    assert fwad._level is None and not fwad._duals


def test_tangents_do_not_keep_tensors_alive() -> None:
    with fwad.dual_level():
        d = fwad.make_dual(chainrule.ones(3), chainrule.ones(3))
        y = (d * 2).exp()
        ref = weakref.ref(y)
        del y
        gc.collect()
        assert ref() is None
        assert fwad.unpack_dual(d).tangent is not None


def test_forward_over_reverse_hessian_of_a_cubic() -> None:
    # f(x) = sum(x^3) / 3 + x0 * x1: H = diag(2x) + [[0, 1], [1, 0]].
    x = chainrule.tensor([1.5, -2.0], dtype=chainrule.float64)

    def f(x: Any) -> Any:
        return (x**3).sum() / 3 + x[0] * x[1]

    expected = np.diag(2 * x.numpy()) + np.array([[0.0, 1.0], [1.0, 0.0]])
    forward = hessian(f, x, vectorize=True, outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(forward.numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(hessian(f, x).numpy(), expected, rtol=1e-14)


def test_forward_mode_jacobian_is_one_pass_per_column() -> None:
    calls = []

    def f(x: Any) -> Any:
        calls.append(1)
        return chainrule.stack([x[0] * x[1], x[1].exp(), x.sum()])

    x = chainrule.tensor([2.0, 0.5], dtype=chainrule.float64)
    jac = jacobian(f, x, strategy="forward-mode", vectorize=True)
    e = math.exp(0.5)
    np.testing.assert_allclose(jac.numpy(), [[0.5, 2.0], [0.0, e], [1.0, 1.0]], rtol=1e-15)
    assert len(calls) == 2


def test_tangent_through_a_long_chain_is_iterative() -> None:
    with fwad.dual_level():
        one = chainrule.tensor(1.0, dtype=chainrule.float64)
        y = fwad.make_dual(one, one)
        for _ in range(20_000):
            y = y * 1.0001
        tangent = fwad.unpack_dual(y).tangent
    assert tangent.item() == pytest.approx(1.0001**20_000, rel=1e-10)
