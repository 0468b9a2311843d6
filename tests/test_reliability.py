"""Reliability: thread safety, and memory that stays flat and is freed promptly.

Grad mode is thread-local, and backward on independent graphs runs correctly from
many threads at once. A long training loop keeps memory flat, and every kind of
graph (with tensor hooks, node hooks, `retain_grad`, custom `autograd.Function`s,
`create_graph=True`) is freed by reference counting alone when its last tensor goes.
"""

from __future__ import annotations

import gc
import math
import threading
import tracemalloc
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import chainrule as cr

# --- thread safety -----------------------------------------------------------------------------


def run_threads(n: int, target: Callable[[int], None]) -> None:
    """Run `target(i)` in `n` threads at once; re-raise the first failure."""
    errors: list[BaseException] = []

    def wrapped(i: int) -> None:
        try:
            target(i)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0]


def test_grad_mode_is_thread_local() -> None:
    """A `no_grad` held in one thread does not switch grad off in another."""
    inside = threading.Barrier(2, timeout=10)
    checked = threading.Barrier(2, timeout=10)
    seen: dict[str, Any] = {}

    def in_no_grad() -> None:
        with cr.no_grad():
            inside.wait()  # the other thread runs while this no_grad is active
            seen["no_grad_enabled"] = cr.is_grad_enabled()
            x = cr.ones(3, requires_grad=True)
            seen["no_grad_requires"] = (x * 2).requires_grad
            checked.wait()
        seen["after"] = cr.is_grad_enabled()

    def with_grad() -> None:
        inside.wait()
        seen["grad_enabled"] = cr.is_grad_enabled()
        x = cr.ones(3, requires_grad=True)
        seen["grad_requires"] = (x * 2).requires_grad
        checked.wait()

    def target(i: int) -> None:
        (in_no_grad if i == 0 else with_grad)()

    run_threads(2, target)
    assert seen == {
        "no_grad_enabled": False,
        "no_grad_requires": False,
        "grad_enabled": True,
        "grad_requires": True,
        "after": True,
    }
    assert cr.is_grad_enabled()


def test_set_grad_enabled_in_a_thread_leaves_others_alone() -> None:
    """`set_grad_enabled(False)` called as a function is per-thread too."""
    ready = threading.Barrier(2, timeout=10)
    done = threading.Barrier(2, timeout=10)
    seen: dict[int, bool] = {}

    def target(i: int) -> None:
        if i == 0:
            cr.set_grad_enabled(False)
        ready.wait()
        seen[i] = cr.is_grad_enabled()
        done.wait()

    run_threads(2, target)
    assert seen == {0: False, 1: True}
    assert cr.is_grad_enabled()


# 8 threads x 1,000 iterations takes about 2 s on a 2-core machine.
THREADS, ITERATIONS = 8, 1_000


def test_concurrent_backward_on_independent_graphs() -> None:
    """Each thread's `w.grad` is right on every iteration while all run at once."""
    start = threading.Barrier(THREADS, timeout=30)
    x_np = np.linspace(-2.0, 2.0, 5)

    def target(i: int) -> None:
        rng = np.random.default_rng(i)
        w = cr.tensor(rng.standard_normal(5), requires_grad=True)
        x = cr.tensor(x_np)
        start.wait()
        for k in range(ITERATIONS):
            scale = 1.0 + 0.001 * k
            y = (w * x * scale).sin().sum()
            y.backward()
            expected = np.cos(w.detach().numpy() * x_np * scale) * x_np * scale
            got = w.grad.numpy()
            assert np.allclose(got, expected, rtol=1e-12, atol=1e-12), (i, k, got, expected)
            w.grad = None

    run_threads(THREADS, target)


def test_concurrent_autograd_grad_with_no_grad_updates() -> None:
    """`autograd.grad` and `no_grad` SGD steps interleaved across threads stay correct."""
    start = threading.Barrier(4, timeout=30)

    def target(i: int) -> None:
        w = cr.tensor([float(i + 1)], dtype=cr.float64, requires_grad=True)
        start.wait()
        for _ in range(200):
            w0 = float(w.item())
            (g,) = cr.autograd.grad((w**3).sum(), w)
            assert g.item() == pytest.approx(3 * w0**2, rel=1e-12)
            with cr.no_grad():
                w -= 1e-3 * g
            assert w.requires_grad and w.grad_fn is None

    run_threads(4, target)


# --- no leaks in a training loop ---------------------------------------------------------------


def train_steps(params: list[cr.Tensor], x: cr.Tensor, target: cr.Tensor, steps: int) -> float:
    """`steps` steps of plain SGD on a 2-layer tanh MLP; returns the last loss."""
    w1, b1, w2 = params
    loss = None
    for _ in range(steps):
        loss = (((x @ w1 + b1).tanh() @ w2 - target) ** 2).mean()
        loss.backward()
        with cr.no_grad():
            for p in params:
                p.sub_(p.grad, alpha=0.05)
                p.grad = None  # what optimizer.zero_grad() does by default
    assert loss is not None
    return float(loss.item())


def test_training_loop_memory_stays_flat() -> None:
    """10,000 steps of a tiny MLP: traced memory after 10,000 equals that after 1,000.

    tracemalloc makes each step about four times slower, so it is started after the
    first 1,000 steps (the baseline) and traces the remaining 9,000: 17-20 s on a
    2-core machine. Whatever those 9,000 steps leave behind shows up in the difference.
    """
    rng = np.random.default_rng(0)
    x = cr.tensor(rng.standard_normal((16, 4)))
    target = cr.tensor(rng.standard_normal((16, 1)))
    params = [
        cr.tensor(rng.standard_normal((4, 8)) * 0.5, requires_grad=True),
        cr.zeros(8, requires_grad=True),
        cr.tensor(rng.standard_normal((8, 1)) * 0.5, requires_grad=True),
    ]
    first_loss = train_steps(params, x, target, 1_000)
    gc.collect()
    tracemalloc.start()
    try:
        after_1k, _ = tracemalloc.get_traced_memory()
        last_loss = train_steps(params, x, target, 9_000)
        gc.collect()
        after_10k, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert last_loss < first_loss  # it really trained
    # A leak of even one small object per step would be hundreds of kB over 9,000 steps.
    assert after_10k - after_1k < 32 * 1024, (after_1k, after_10k)


# --- graphs are freed by reference counting ----------------------------------------------------


@pytest.fixture
def no_gc() -> Iterator[None]:
    """Without the cycle collector, only reference counting frees objects."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def graph_refs(*tensors: cr.Tensor) -> list[weakref.ref[Any]]:
    """Weak references to every node reachable from the tensors' `grad_fn`s."""
    refs, seen = [], set()
    stack = [t.grad_fn for t in tensors]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        refs.append(weakref.ref(n))
        stack.extend(f for f, _ in n.next_functions)
    assert refs
    return refs


def assert_all_dead(refs: list[weakref.ref[Any]]) -> None:
    alive = [type(r()).__name__ for r in refs if r() is not None]
    assert not alive, f"still alive: {alive}"


def test_plain_graph_freed_on_del(no_gc: None) -> None:
    x = cr.randn(4, requires_grad=True)
    y = (x * 2).exp().sum()
    refs = graph_refs(y)
    del y
    assert_all_dead(refs[:-1])  # all but the leaf's AccumulateGrad, which x may keep


def test_graph_freed_after_backward(no_gc: None) -> None:
    x = cr.randn(4, requires_grad=True)
    y = (x * 2).exp().sum()
    refs = graph_refs(y)
    tref = weakref.ref(y)
    y.backward()
    del y
    assert tref() is None
    assert_all_dead(refs[:-1])
    assert x.grad is not None


def test_graph_with_tensor_hooks_freed(no_gc: None) -> None:
    x = cr.randn(4, requires_grad=True)
    calls: list[int] = []
    x.register_hook(lambda g: calls.append(1))
    h = x * 3
    h.register_hook(lambda g: g * 2)
    y = h.sin().sum()
    refs = graph_refs(y)
    hrefs = [weakref.ref(h)]
    y.backward()
    del h, y
    assert calls == [1]
    assert_all_dead(refs[:-1] + hrefs)
    # The leaf itself, with its hook, goes too.
    xref = weakref.ref(x)
    del x
    assert_all_dead([*refs, xref])


def test_hook_closing_over_its_graph_is_a_cycle_gc_frees() -> None:
    """A hook on `x` whose closure holds a tensor of x's graph makes a cycle
    (x -> hook -> y -> graph -> x's AccumulateGrad -> x), as it does in torch.
    Reference counting cannot free it; `gc.collect()` frees all of it."""
    gc.collect()
    gc.disable()
    try:
        x = cr.randn(4, requires_grad=True)
        y = x.exp().sum()
        seen: list[tuple[int, ...]] = []
        x.register_hook(lambda g, y=y: seen.append(tuple(y.shape)))
        refs = [weakref.ref(x), weakref.ref(y), *graph_refs(y)]
        y.backward()
        assert seen == [()]
        del x, y
        assert refs[1]() is not None  # kept by the cycle
        gc.collect()
        assert_all_dead(refs)
    finally:
        gc.enable()


def test_graph_with_node_hooks_freed(no_gc: None) -> None:
    x = cr.randn(4, requires_grad=True)
    y = (x.exp() * 2).sum()
    pre: list[int] = []
    post: list[int] = []
    y.grad_fn.register_prehook(lambda gout: pre.append(1))
    y.grad_fn.register_hook(lambda gin, gout: post.append(1))
    y.grad_fn.next_functions[0][0].register_hook(lambda gin, gout: None)
    refs = graph_refs(y)
    y.backward()
    del y
    assert pre == [1] and post == [1]
    assert_all_dead(refs[:-1])


def test_graph_with_retain_grad_freed(no_gc: None) -> None:
    x = cr.randn(4, requires_grad=True)
    h = x.tanh()
    h.retain_grad()
    y = (h * h).sum()
    refs = graph_refs(y)
    href = weakref.ref(h)
    y.backward()
    assert h.grad is not None
    del y, h
    assert href() is None
    assert_all_dead(refs[:-1])


def test_graph_with_retain_graph_freed(no_gc: None) -> None:
    x = cr.randn(4, requires_grad=True)
    y = (x.exp() * x).sum()
    refs = graph_refs(y)
    y.backward(retain_graph=True)
    y.backward()
    del y
    assert_all_dead(refs[:-1])


class Cube(cr.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: cr.Tensor) -> cr.Tensor:
        ctx.save_for_backward(x)
        ctx.extra = x.detach() * 3  # a tensor stored directly on ctx
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: cr.Tensor) -> cr.Tensor:
        (x,) = ctx.saved_tensors
        return grad * ctx.extra * x


class SaveOutput(cr.autograd.Function):
    """Saves its own output: a cycle output -> node -> saved output in a naive design."""

    @staticmethod
    def forward(ctx: Any, x: cr.Tensor) -> cr.Tensor:
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: cr.Tensor) -> cr.Tensor:
        (out,) = ctx.saved_tensors
        return grad * out


@pytest.mark.parametrize("fn", [Cube, SaveOutput], ids=["save_input", "save_output"])
@pytest.mark.parametrize("do_backward", [False, True], ids=["no_backward", "backward"])
def test_custom_function_graph_freed(no_gc: None, fn: Any, do_backward: bool) -> None:
    x = cr.randn(4, requires_grad=True)
    out = fn.apply(x * 1.5)
    y = out.sum()
    refs = graph_refs(y)
    outref = weakref.ref(out)
    if do_backward:
        y.backward()
        assert x.grad is not None
    del y, out
    assert outref() is None
    assert_all_dead(refs[:-1])


def test_custom_function_grads_agree_with_analytic() -> None:
    x = cr.tensor([0.5, -1.0, 2.0], dtype=cr.float64, requires_grad=True)
    Cube.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2)
    x.grad = None
    SaveOutput.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()))


def create_graph_case() -> tuple[cr.Tensor, list[weakref.ref[Any]]]:
    """`x.grad` after `backward(create_graph=True)` has a graph that saves `x`."""
    x = cr.randn(4, requires_grad=True)
    y = (x**3).sum()
    y.backward(create_graph=True)
    assert x.grad.grad_fn is not None
    refs = [weakref.ref(x), weakref.ref(x.grad), *graph_refs(y, x.grad)]
    np.testing.assert_allclose(x.grad.detach().numpy(), 3 * x.detach().numpy() ** 2)
    return x, refs


def test_create_graph_freed_after_clearing_grad(no_gc: None) -> None:
    """torch documents a reference cycle x -> x.grad -> its graph -> x after
    `backward(create_graph=True)`. Clearing `x.grad` breaks it: with `x.grad = None`
    and the tensors deleted, reference counting alone frees everything."""
    x, refs = create_graph_case()
    x.grad = None
    del x
    assert_all_dead(refs)


def test_create_graph_cycle_without_clearing_grad() -> None:
    """If `x.grad` is left in place, chainrule has the same cycle as torch: deleting
    `x` frees nothing by reference counting, and `gc.collect()` frees all of it."""
    gc.collect()
    gc.disable()
    try:
        x, refs = create_graph_case()
        del x
        alive_after_del = any(r() is not None for r in refs)
        gc.collect()
        assert_all_dead(refs)
    finally:
        gc.enable()
    assert alive_after_del  # documents the cycle; gc.collect() is what frees it


def test_autograd_grad_create_graph_freed(no_gc: None) -> None:
    """`autograd.grad(create_graph=True)` stores nothing on `.grad`, so there is no cycle."""
    x = cr.randn(4, requires_grad=True)
    y = (x.sin() * x).sum()
    (g,) = cr.autograd.grad(y, x, create_graph=True)
    (g2,) = cr.autograd.grad(g.sum(), x)
    assert x.grad is None
    np.testing.assert_allclose(  # float32: the closed form rounds differently
        g2.numpy(),
        2 * np.cos(x.detach().numpy()) - x.detach().numpy() * np.sin(x.detach().numpy()),
        rtol=1e-5,
        atol=1e-6,
    )
    refs = [weakref.ref(g), *graph_refs(y, g)]
    del y, g
    assert_all_dead([r for r in refs if type(r()).__name__ != "AccumulateGrad"])
    xref = weakref.ref(x)
    del x
    assert_all_dead([*refs, xref])


def test_double_backward_training_step_memory_flat() -> None:
    """A gradient-penalty style loop (double backward each step) does not grow."""
    w = cr.tensor(np.linspace(-1.0, 1.0, 8), requires_grad=True)

    def step() -> None:
        y = (w.tanh() ** 2).sum()
        (g,) = cr.autograd.grad(y, w, create_graph=True)
        loss = y + (g**2).sum()
        loss.backward()
        with cr.no_grad():
            w.sub_(0.01 * w.grad)
        w.grad = None

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(100):
            step()
        gc.collect()
        before, _ = tracemalloc.get_traced_memory()
        for _ in range(500):
            step()
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert math.isfinite(w.sum().item())
    assert after - before < 16 * 1024, (before, after)
