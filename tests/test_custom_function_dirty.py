"""A custom Function whose forward writes an input in place and calls `ctx.mark_dirty`
acts as a built-in in-place op: the written tensor takes the Function's node (a view
puts it into its base through CopySlices), and every other view of that memory is
remade on it, so gradients through those views go through the Function's backward.
Compared with torch, and with gradients worked out by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

import chainrule
from torch_compare import registry

SCENARIOS, scenario = registry()


def _functions(m: Any) -> Any:
    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    class MarkOnly(m.autograd.Function):  # dirty without writing: still a new version
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    class DoubleAndTriple(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x * 3

        @staticmethod
        def backward(ctx: Any, g: Any, h: Any) -> Any:
            return g * 2 + h * 6

    class AddInto(m.autograd.Function):  # writes its first input; the second is added
        @staticmethod
        def forward(ctx: Any, x: Any, a: Any) -> Any:
            x.add_(a)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g, g

    return Double, MarkOnly, DoubleAndTriple, AddInto


def names(*tensors: Any) -> list[Any]:
    return [None if t.grad_fn is None else t.grad_fn.name() for t in tensors]


def weighted_grad(m: Any, leaf: Any, out: Any) -> list[Any]:
    (out * m.arange(float(out.numel())).reshape(out.shape)).sum().backward(retain_graph=True)
    grad = leaf.grad.tolist()
    leaf.grad = None
    return grad


@scenario
def other_views_of_a_written_base(m: Any) -> list[Any]:
    double = _functions(m)[0]
    leaf = m.ones(4, requires_grad=True)
    x = leaf.clone()
    a, b = x[:2], x.view(2, 2)
    out = double.apply(x)
    return [
        names(out, x, a, b),
        out is x,
        x._version,
        a.tolist(),
        weighted_grad(m, leaf, a),
        weighted_grad(m, leaf, b),
    ]


@scenario
def a_written_view(m: Any) -> list[Any]:
    double = _functions(m)[0]
    leaf = m.ones(4, requires_grad=True)
    x = leaf.clone()
    v, w = x[1:3], x[2:]
    out = double.apply(v)
    return [
        names(out, v, w, x),
        out is v,
        x.tolist(),
        weighted_grad(m, leaf, x),
        weighted_grad(m, leaf, w),
        weighted_grad(m, leaf, v),
    ]


@scenario
def a_view_of_a_view(m: Any) -> list[Any]:
    double = _functions(m)[0]
    leaf = m.ones(2, 3, requires_grad=True)
    x = leaf.clone()
    v = x[1]
    u, t = v[1:], x.t()
    double.apply(v)
    return [names(v, u, t, x), weighted_grad(m, leaf, t), weighted_grad(m, leaf, u)]


@scenario
def marked_without_writing(m: Any) -> list[Any]:
    mark_only = _functions(m)[1]
    leaf = m.ones(4, requires_grad=True)
    x = leaf.clone()
    a = x[:2]
    out = mark_only.apply(x)
    return [names(out, a), x._version, weighted_grad(m, leaf, a)]


@scenario
def two_outputs_of_a_written_base(m: Any) -> list[Any]:
    double_and_triple = _functions(m)[2]
    leaf = m.ones(4, requires_grad=True)
    x = leaf.clone()
    a = x[:2]
    o1, o2 = double_and_triple.apply(x)
    return [names(o1, o2, a), weighted_grad(m, leaf, a)]


@scenario
def a_base_that_needed_no_grad(m: Any) -> list[Any]:
    add_into = _functions(m)[3]
    w = m.ones(4, requires_grad=True)
    x = m.zeros(4)
    a = x[:2]
    out = add_into.apply(x, w)
    return [names(out, a, x), a.requires_grad, weighted_grad(m, w, a)]


@scenario
def a_written_view_of_a_base_that_needed_no_grad(m: Any) -> list[Any]:
    add_into = _functions(m)[3]
    w = m.ones(2, requires_grad=True)
    x = m.zeros(4)
    v, a = x[1:3], x[2:]
    add_into.apply(v, w)
    return [
        names(v, a, x),
        [a.requires_grad, x.requires_grad],
        weighted_grad(m, w, x),
        weighted_grad(m, w, a),
    ]


@scenario
def under_no_grad(m: Any) -> list[Any]:
    double = _functions(m)[0]
    leaf = m.ones(4, requires_grad=True)
    x = leaf.clone()
    a = x[:2]
    with m.no_grad():
        out = double.apply(x)
    return [names(out, a, x), out is x, weighted_grad(m, leaf, a)]


def _error(fn: Any) -> str:
    try:
        fn()
    except RuntimeError as e:
        return str(e)
    return "no error"


@scenario
def refused_writes(m: Any) -> list[str]:
    double, _, double_and_triple, add_into = _functions(m)
    leaf = m.ones(4, requires_grad=True)
    return [
        _error(lambda: double.apply(leaf)),
        _error(lambda: double.apply(leaf[:2])),
        _error(lambda: double_and_triple.apply(leaf.clone()[:2])),
        _error(lambda: double.apply(leaf.clone().split(2)[0])),
        _error(lambda: double.apply(leaf.clone().unbind()[1])),
        _error(lambda: add_into.apply(m.zeros(4).split(2)[0], m.ones(2, requires_grad=True))),
    ]


@scenario
def a_split_output_after_its_base_was_written(m: Any) -> str:
    double = _functions(m)[0]
    x = m.ones(4, requires_grad=True).clone()
    a, _ = x.split(2)
    double.apply(x)
    return _error(lambda: a.grad_fn)


def _bump_and_double(m: Any, non_differentiable: bool) -> Any:
    """Writes its second input and marks it dirty (and non-differentiable if asked)."""

    class BumpAndDouble(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            y.add_(1)
            ctx.mark_dirty(y)
            if non_differentiable:
                ctx.mark_non_differentiable(y)
            return x * 2, y

        @staticmethod
        def backward(ctx: Any, g: Any, h: Any) -> Any:
            return g * 2, None

    return BumpAndDouble


@scenario
def outputs_that_are_not_differentiated(m: Any) -> list[Any]:
    # PyTorch checks only the written outputs it differentiates: an integer split output,
    # or one marked non-differentiable, may be written even as a view among two outputs.
    x = m.ones(3, requires_grad=True)
    integers = _bump_and_double(m, False).apply(x, m.arange(4).split(2)[0])[1]
    marked = _bump_and_double(m, True)
    return [
        integers.tolist(),
        marked.apply(x, m.zeros(4).split(2)[0])[1].tolist(),
        marked.apply(x, m.zeros(4)[:2])[1].tolist(),
    ]


@pytest.mark.parametrize("fn", SCENARIOS, ids=lambda f: f.__name__)
def test_matches_torch(torch: Any, fn: Any) -> None:
    assert fn(chainrule) == fn(torch)


def test_gradients_through_other_views_go_through_backward() -> None:
    # x = 2 * leaf.clone() through Double (backward: 2 g); a = x[:2] and b = x.view(2, 2)
    # must see that factor, as they do after a built-in `x.mul_(2)`.
    out = other_views_of_a_written_base(chainrule)
    assert out[0] == ["DoubleBackward"] * 2 + ["AsStridedBackward0"] * 2
    assert out[3] == [2.0, 2.0]
    assert out[4] == [0.0, 2.0, 0.0, 0.0]
    assert out[5] == [0.0, 2.0, 4.0, 6.0]


def test_a_written_view_puts_the_function_into_its_base() -> None:
    names_, same, values, grad_x, grad_w, grad_v = a_written_view(chainrule)
    assert names_ == ["AsStridedBackward0"] * 3 + ["torch::autograd::CopySlices"]
    assert same and values == [1.0, 2.0, 2.0, 1.0]
    assert grad_x == [0.0, 2.0, 4.0, 3.0]  # the written middle goes through backward (2 g)
    assert grad_w == [0.0, 0.0, 0.0, 1.0]
    assert grad_v == [0.0, 0.0, 2.0, 0.0]


def test_a_written_view_that_is_not_the_first_input() -> None:
    # PyTorch's CopySlices assumes the written view is the Function's first input and
    # loses the gradient of the others otherwise (here `w` gets none); chainrule passes
    # each input's gradient on: x = [0, w0, w1, 0] weighted by [0, 1, 2, 3].
    class AddInto(chainrule.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, x: Any) -> Any:
            x.add_(a)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g, g

    w = chainrule.ones(2, requires_grad=True)
    x = chainrule.zeros(4)
    AddInto.apply(w, x[1:3])
    assert names(x) == ["torch::autograd::CopySlices"]
    (x * chainrule.arange(4.0)).sum().backward()
    assert w.grad.tolist() == [1.0, 2.0]


def test_outputs_that_are_not_differentiated_are_not_checked() -> None:
    assert outputs_that_are_not_differentiated(chainrule) == [[1, 2], [1.0, 1.0], [1.0, 1.0]]
