"""The backward engine at scale and its memory behaviour.

Deep chains run without recursion, wide graphs add every path, graphs are freed
by reference counting alone (no cycles), saved values are released by a
backward that does not retain the graph, and `autograd.grad` runs only the
nodes that lead to the requested inputs.
"""

from __future__ import annotations

import gc
import math
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import chainrule as cr

SECOND_TIME = "Trying to backward through the graph a second time"


@pytest.fixture
def no_gc() -> Iterator[None]:
    """Without the cycle collector, only reference counting frees objects."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def chain_nodes(node: Any) -> list[weakref.ref[Any]]:
    """Weak references to every node reachable from `node`."""
    refs, seen, stack = [], set(), [node]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        refs.append(weakref.ref(n))
        stack.extend(f for f, _ in n.next_functions)
    return refs


# --- depth and width ---------------------------------------------------------------------------


def test_a_million_op_chain(no_gc: None) -> None:
    n = 1_000_000
    x = cr.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0000001
    first = weakref.ref(y.grad_fn)
    last_but_one = y.grad_fn.next_functions[0][0]
    assert type(last_but_one).__name__ == "MulBackward0"
    del last_but_one
    y.backward()
    # Forward and backward multiply by the same float32 factor the same number of times,
    # rounding as NumPy's float32 scalars do.
    factor = np.float32(1.0000001)
    expected = np.float32(1.0)
    for _ in range(n):
        expected = expected * factor
    assert y.item() == float(expected)
    assert x.grad.item() == float(expected)
    assert y.item() == pytest.approx(math.exp(n * math.log(float(factor))), rel=1e-2)
    del y  # a million nodes freed one after another: no RecursionError
    assert first() is None


def test_deleting_a_deep_chain_without_backward(no_gc: None) -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(200_000):
        y = y + 1.0
    tail = weakref.ref(y.grad_fn)
    head = y.grad_fn
    for _ in range(1000):
        head = head.next_functions[0][0]
    deep = weakref.ref(head)
    del head, y
    assert tail() is None and deep() is None


def test_a_deep_chain_through_autograd_grad_and_create_graph() -> None:
    x = cr.tensor([0.5, 1.5], requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0
    y = (y * y).sum()
    (g,) = cr.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [1.0, 3.0]
    (gg,) = cr.autograd.grad(g.sum(), x)
    assert gg.tolist() == [2.0, 2.0]


def test_a_wide_graph() -> None:
    x = cr.tensor([1.0, 2.0], dtype=cr.float64, requires_grad=True)
    width = 20_000
    branches = [x * float(i) for i in range(width)]
    # Join the branches pairwise, so the graph is wide, not deep.
    while len(branches) > 1:
        pairs = [a + b for a, b in zip(branches[::2], branches[1::2], strict=False)]
        if len(branches) % 2:
            pairs.append(branches[-1])
        branches = pairs
    branches[0].sum().backward()
    total = width * (width - 1) / 2
    assert x.grad.tolist() == [total, total]


def test_one_tensor_feeding_many_consumers() -> None:
    x = cr.tensor(2.0, requires_grad=True)
    ys = [x.exp() for _ in range(5000)]
    total = ys[0]
    for y in ys[1:]:
        total = total + y
    total.backward()
    assert x.grad.item() == pytest.approx(5000 * math.exp(2.0), rel=1e-5)


def test_a_node_with_many_inputs() -> None:
    class Total(cr.autograd.Function):
        @staticmethod
        def forward(ctx: Any, *xs: Any) -> Any:
            ctx.n = len(xs)
            out = xs[0].clone()
            for t in xs[1:]:
                out = out + t
            return out

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return tuple(g * float(i) for i in range(ctx.n))

    leaves = [cr.tensor([1.0], requires_grad=True) for _ in range(2000)]
    out = Total.apply(*leaves)
    assert len(out.grad_fn.next_functions) == 2000
    out.sum().backward()
    assert [t.grad.item() for t in leaves[:3]] == [0.0, 1.0, 2.0]
    assert leaves[-1].grad.item() == 1999.0


def test_hooks_on_every_node_of_a_long_chain() -> None:
    x = cr.tensor(1.0, requires_grad=True)
    y = x
    calls = []
    for i in range(10_000):
        y = y * 1.0
        y.register_hook(lambda g, i=i: calls.append(i))
    y.backward()
    assert calls == list(range(9_999, -1, -1))


# --- graphs are freed by reference counting ----------------------------------------------------


def build(kind: str, x: Any) -> Any:
    if kind == "ops":
        return (x.exp() * x).sin().sum()
    if kind == "saved_output":
        return x.sigmoid().tanh().sum()
    if kind == "custom_function":

        class Exp(cr.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                y = a.exp()
                ctx.save_for_backward(a, y)
                return y

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                _, y = ctx.saved_tensors
                return g * y

        return Exp.apply(x).sum()
    if kind == "index_assignment":
        z = cr.zeros(2)
        z[0] = x[0] ** 2
        return z.sum()
    if kind == "inplace_on_views":
        y = x * 1
        y[0].mul_(2)
        v = y.view(2, 1)
        v.add_(1)
        return y.sum()
    if kind == "retained_and_hooked":
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g)
        return y.sum()
    raise AssertionError(kind)


KINDS = [
    "ops",
    "saved_output",
    "custom_function",
    "index_assignment",
    "inplace_on_views",
    "retained_and_hooked",
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("backward", ["none", "backward", "retain_graph"])
def test_graph_freed_with_its_last_tensor(no_gc: None, kind: str, backward: str) -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    out = build(kind, x)
    if backward == "backward":
        out.backward()
    elif backward == "retain_graph":
        out.backward(retain_graph=True)
    refs = chain_nodes(out.grad_fn)
    assert len(refs) >= 2
    del out
    alive = [type(r()).__name__ for r in refs if r() is not None]
    # The leaf's AccumulateGrad is only weakly held by the leaf itself.
    assert alive == []


def test_saved_arrays_released_after_backward(no_gc: None) -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * 2).sin()
    node = y.grad_fn
    saved = weakref.ref(node._saved_self)  # x.exp() * 2, kept only by the node
    y.sum().backward()
    assert node._saved is None
    assert saved() is None
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        node._saved_self  # noqa: B018


def test_saved_arrays_kept_with_retain_graph(no_gc: None) -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * 2).sin()
    node = y.grad_fn
    saved = weakref.ref(node._saved_self)
    y.sum().backward(retain_graph=True)
    assert saved() is not None
    np.testing.assert_allclose(node._saved_self.detach().numpy(), np.exp([1.0, 2.0]) * 2, rtol=1e-6)
    y.sum().backward()
    assert saved() is None


def test_saved_output_released_after_backward() -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    assert y.grad_fn._saved_result.tolist() == pytest.approx(np.exp([1.0, 2.0]).tolist())
    y.sum().backward()
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        y.grad_fn._saved_result  # noqa: B018


def test_custom_function_saved_tensors_released(no_gc: None) -> None:
    class Mul(cr.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            a, b = ctx.saved_tensors
            return g * b, g * a

    x = cr.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    out = Mul.apply(h, x)
    kept = weakref.ref(h)
    del h
    assert kept() is not None  # saved by the Function's node
    out.sum().backward()
    assert out.grad_fn._saved is None
    assert kept() is None
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        out.grad_fn.saved_tensors  # noqa: B018


def test_autograd_grad_frees_the_graph_too() -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    cr.autograd.grad(y.sum(), x)
    assert y.grad_fn._saved is None
    z = x.exp()
    cr.autograd.grad(z.sum(), x, retain_graph=True)
    assert z.grad_fn._saved is not None


# --- only the needed part of the graph runs ----------------------------------------------------


def counting_function(calls: list[str], name: str, m: Any = cr) -> Any:
    """A Function that doubles its input and logs `name` each time its backward runs."""

    class Count(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            calls.append(name)
            return g * 2

    return Count


def test_autograd_grad_skips_unrelated_branches() -> None:
    calls: list[str] = []
    Count = counting_function(calls, "w")
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    w = cr.tensor([3.0, 4.0], requires_grad=True)
    h = Count.apply(w)
    loss = (h * x).sum() + Count.apply(w * 3).sum()
    (gx,) = cr.autograd.grad(loss, x, retain_graph=True)
    assert gx.tolist() == [6.0, 8.0]
    assert calls == []
    (gw,) = cr.autograd.grad(loss, w, retain_graph=True)
    assert gw.tolist() == [2.0 + 6.0, 4.0 + 6.0]
    assert len(calls) == 2
    loss.backward(inputs=[x], retain_graph=True)
    assert len(calls) == 2
    assert x.grad.tolist() == [6.0, 8.0] and w.grad is None
    loss.backward()
    assert len(calls) == 4
    assert w.grad.tolist() == [8.0, 10.0]


def test_autograd_grad_runs_what_leads_to_a_non_leaf_input() -> None:
    calls: list[str] = []
    before = counting_function(calls, "before")
    after = counting_function(calls, "after")
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    h = before.apply(x)
    out = after.apply(h).sum()
    (gh,) = cr.autograd.grad(out, h)
    assert gh.tolist() == [2.0, 2.0]
    assert calls == ["after"]


def test_skipped_nodes_keep_their_saved_tensors() -> None:
    x = cr.tensor([1.0, 2.0], requires_grad=True)
    w = cr.tensor([3.0, 4.0], requires_grad=True)
    e = w.exp()
    loss = (x * 2).sum() + e.sum()
    cr.autograd.grad(loss, x)
    # ExpBackward0 did not run, so its saved result is still there for a later backward.
    assert e.grad_fn._saved is not None
    e.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.exp([3.0, 4.0]), rtol=1e-6)


def test_autograd_grad_matches_torch_on_a_subgraph() -> None:
    torch = pytest.importorskip("torch")
    results = []
    for m in (cr, torch):
        calls: list[str] = []
        Count = counting_function(calls, "w", m)
        x = m.tensor([1.0, 2.0], requires_grad=True)
        w = m.tensor([3.0, 4.0], requires_grad=True)
        loss = (Count.apply(w) * x).sum() + Count.apply(w * 3).sum()
        r: list[Any] = [m.autograd.grad(loss, x, retain_graph=True)[0].tolist(), len(calls)]
        r += [m.autograd.grad(loss, w, retain_graph=True)[0].tolist(), len(calls)]
        loss.backward(inputs=[x], retain_graph=True)
        r += [len(calls), x.grad.tolist(), w.grad]
        loss.backward()
        r += [len(calls), x.grad.tolist(), w.grad.tolist()]
        results.append(r)
    assert results[0] == results[1]
