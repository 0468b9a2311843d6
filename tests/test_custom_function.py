"""Custom `autograd.Function` features, each scenario compared with PyTorch.

Every scenario is a function of a module `m`, run with `m=chainrule` and (when it
is installed) `m=torch`; the outcomes (values, flags, grad_fn names, what
backward received, or exception type and message) must be equal.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule

Scenario = Callable[[Any], Any]
SCENARIOS: list[Scenario] = []


def scenario(fn: Scenario) -> Scenario:
    SCENARIOS.append(fn)
    return fn


def normalize(obj: Any, m: Any) -> Any:
    if isinstance(obj, m.Tensor):
        return (
            "tensor",
            repr(obj).replace("chainrule.", "torch."),
            obj.requires_grad,
            None if obj.grad_fn is None else type(obj.grad_fn).__name__,
            obj.detach().numpy().tolist(),
        )
    if isinstance(obj, m.autograd.graph.Node):
        return ("node", type(obj).__name__)
    if isinstance(obj, list | tuple):
        return [normalize(o, m) for o in obj]
    return obj


def outcome(fn: Scenario, m: Any) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", normalize(fn(m), m))
    except Exception as e:
        return ("raises", type(e).__name__, str(e).replace("chainrule.", "torch."))
    finally:
        m.set_grad_enabled(True)


# --- mark_dirty ------------------------------------------------------------------------------


def _dirty(m: Any) -> Any:
    class Double_(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    return Double_


@scenario
def dirty_returns_input_bumps_version(m: Any) -> Any:
    a = m.ones(3, requires_grad=True)
    x = a.clone()
    before = x._version
    y = _dirty(m).apply(x)
    y.sum().backward()
    return y is x, x._version - before, y, a.grad


@scenario
def dirty_without_grad(m: Any) -> Any:
    x = m.ones(3)
    y = _dirty(m).apply(x)
    return y is x, x._version, y


@scenario
def dirty_leaf_requiring_grad(m: Any) -> Any:
    return _dirty(m).apply(m.ones(3, requires_grad=True))


@scenario
def dirty_leaf_under_no_grad(m: Any) -> Any:
    a = m.ones(3, requires_grad=True)
    with m.no_grad():
        y = _dirty(m).apply(a)
    return y is a, a._version, y


@scenario
def dirty_then_saved_tensor_modified(m: Any) -> Any:
    x = m.ones(3, requires_grad=True).clone()
    s = x * x
    _dirty(m).apply(x)
    s.sum().backward()


@scenario
def dirty_non_tensor(m: Any) -> Any:
    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.mark_dirty(x, 3)
            return x * 2

    return F.apply(m.ones(2, requires_grad=True))


# --- mark_non_differentiable -----------------------------------------------------------------


@scenario
def non_differentiable_outputs(m: Any) -> Any:
    seen = []

    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            a, b, c = x * 2, x.argmax(), x * 3
            ctx.mark_non_differentiable(b, c)
            return a, b, c

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any, gc: Any) -> Any:
            seen.extend([ga, gb, gc])
            return ga * 2

    x = m.tensor([1.0, 3.0, 2.0], requires_grad=True)
    a, b, c = F.apply(x)
    a.sum().backward()
    return a, b, c, x.grad, seen


@scenario
def non_differentiable_input_returned(m: Any) -> Any:
    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = m.ones(2, requires_grad=True)
    y = F.apply(x)
    return y is x, y


@scenario
def non_differentiable_non_tensor(m: Any) -> Any:
    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.mark_non_differentiable(1.5)
            return x * 2

    return F.apply(m.ones(2, requires_grad=True))


@scenario
def integer_output_gets_zero_grad(m: Any) -> Any:
    seen = []

    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2, x.long()

        @staticmethod
        def backward(ctx: Any, g: Any, gi: Any) -> Any:
            seen.append(gi)
            return g * 2

    x = m.ones(2, requires_grad=True)
    y, i = F.apply(x)
    y.sum().backward()
    return i, x.grad, seen


# --- materialize_grads -----------------------------------------------------------------------


def _two_outputs(m: Any, materialize: bool, seen: list[Any]) -> Any:
    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            seen.extend([g1, g2])
            return (g1 * 2 if g1 is not None else 0) + (g2 * 3 if g2 is not None else 0)

    return F


@scenario
def materialized_grads_are_zeros(m: Any) -> Any:
    seen: list[Any] = []
    x = m.ones(2, requires_grad=True)
    a, _ = _two_outputs(m, True, seen).apply(x)
    a.sum().backward()
    return x.grad, seen


@scenario
def unmaterialized_grads_are_none(m: Any) -> Any:
    seen: list[Any] = []
    x = m.ones(2, requires_grad=True)
    a, _ = _two_outputs(m, False, seen).apply(x)
    a.sum().backward()
    return x.grad, seen


@scenario
def only_some_outputs_used(m: Any) -> Any:
    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2, x * 3, x * 4

        @staticmethod
        def backward(ctx: Any, a: Any, b: Any, c: Any) -> Any:
            return a * 2 + b * 3 + c * 4

    x = m.ones(2, requires_grad=True)
    _, b, c = F.apply(x)
    (b * 5).sum().backward()
    first = x.grad.clone()
    x.grad = None
    (c * b).sum().backward()
    return first, x.grad


@scenario
def non_tensor_outputs(m: Any) -> Any:
    seen = []

    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2, 7, "s", None

        @staticmethod
        def backward(ctx: Any, g: Any, *rest: Any) -> Any:
            seen.extend(rest)
            return g * 2

    x = m.ones(2, requires_grad=True)
    y, n, s, z = F.apply(x)
    y.sum().backward()
    return n, s, z, x.grad, seen


# --- needs_input_grad, saved_tensors, setup_context -------------------------------------------


@scenario
def needs_input_grad_in_forward_and_backward(m: Any) -> Any:
    seen = []

    class F(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any, k: int) -> Any:
            seen.append(ctx.needs_input_grad)
            return x * y * k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            seen.append(ctx.needs_input_grad)
            return g, None, None

    x = m.ones(2, requires_grad=True)
    F.apply(x, m.ones(2), 3).sum().backward()
    with m.no_grad():
        F.apply(x, m.ones(2), 3)
    return x.grad, seen


def _square(m: Any) -> Any:
    class Square(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Square


@scenario
def saved_tensors_after_backward(m: Any) -> Any:
    y = _square(m).apply(m.ones(2, requires_grad=True))
    y.sum().backward()
    return y.grad_fn.saved_tensors


@scenario
def saved_tensors_kept_with_retain_graph(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = _square(m).apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    return x.grad, y.grad_fn.saved_tensors


@scenario
def backward_twice(m: Any) -> Any:
    y = _square(m).apply(m.ones(2, requires_grad=True))
    y.sum().backward()
    y.sum().backward()


@scenario
def setup_context_style(m: Any) -> Any:
    seen = []

    class F(m.autograd.Function):
        @staticmethod
        def forward(x: Any, k: int) -> Any:
            seen.append(m.is_grad_enabled())
            return x * x * k

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            x, k = inputs
            seen.append(output.requires_grad)
            ctx.save_for_backward(x)
            ctx.k = k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * g * ctx.k, None

    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = F.apply(x, 3)
    y.sum().backward()
    return y, x.grad, seen


# --- once_differentiable and double backward ------------------------------------------------


def _once(m: Any, seen: list[Any]) -> Any:
    class Once(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @m.autograd.function.once_differentiable
        def backward(ctx: Any, g: Any) -> Any:
            seen.append(m.is_grad_enabled())
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Once


@scenario
def once_differentiable_runs_without_grad(m: Any) -> Any:
    seen: list[Any] = []
    x = m.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = m.autograd.grad(_once(m, seen).apply(x).sum(), x, create_graph=True)
    return gx, seen


@scenario
def once_differentiable_double_backward(m: Any) -> Any:
    seen: list[Any] = []
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = _once(m, seen).apply(x)
    (gx,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
    first = normalize(gx, m)
    try:
        gx.sum().backward()
    except RuntimeError as e:
        return first, str(e)
    return first, None


@scenario
def once_differentiable_grad_of_grad(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = _once(m, []).apply(x)
    (gx,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
    return m.autograd.grad(gx.sum(), x)


@scenario
def double_backward_through_custom_function(m: Any) -> Any:
    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    x = m.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = m.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (ggx,) = m.autograd.grad(gx.sum(), x)
    return gx, ggx


@scenario
def identity_returns_alias(m: Any) -> Any:
    class Ident(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = m.ones(2, requires_grad=True)
    y = Ident.apply(x)
    with m.no_grad():
        z = Ident.apply(x)
    return y is x, y, z is x, z


@pytest.mark.parametrize("fn", SCENARIOS, ids=lambda f: f.__name__)
def test_matches_torch(fn: Scenario) -> None:
    torch = pytest.importorskip("torch")
    ours = outcome(fn, chainrule)
    theirs = outcome(fn, torch)
    assert _comparable(ours) == _comparable(theirs)


def _comparable(obj: Any) -> Any:
    """Floats compared after rounding; everything else as it is."""
    if isinstance(obj, float):
        return round(obj, 5)
    if isinstance(obj, list | tuple):
        return type(obj)(_comparable(o) for o in obj)
    return obj


def test_once_differentiable_message() -> None:
    x = chainrule.tensor([1.0, 2.0], requires_grad=True)
    y = _once(chainrule, []).apply(x)
    (gx,) = chainrule.autograd.grad((y * y).sum(), x, create_graph=True)
    assert type(gx.grad_fn).__name__ == "Error"
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked"):
        gx.sum().backward()
    assert np.allclose(gx.detach().numpy(), [4.0, 32.0])
