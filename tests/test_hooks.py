"""Post-accumulate-grad hooks, multi-grad hooks, saved-tensor hooks, and `graph.Node`."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import chainrule

torch = pytest.importorskip("torch")

BOTH = pytest.mark.parametrize("lib", [chainrule, torch], ids=["chainrule", "torch"])


def _both(fn: Any) -> None:
    """Run `fn(lib)` with each library; the logs they return must agree."""
    assert fn(chainrule) == fn(torch)


def _error(fn: Any) -> tuple[str, str]:
    try:
        fn()
    except Exception as e:
        return type(e).__name__, str(e)
    raise AssertionError("no error")


# --- register_post_accumulate_grad_hook ----------------------------------------------


def test_post_accumulate_order_values_and_remove() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        a = lib.ones(2, requires_grad=True)
        a.register_hook(lambda g: log.append(("tensor hook", g.tolist(), a.grad is None)))
        h = a.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.tolist())))
        a.register_post_accumulate_grad_hook(lambda t: log.append(("post2", t is a)))
        (a * 3).sum().backward()
        h.remove()
        h.remove()  # twice is fine
        (a * 3).sum().backward()
        return log

    _both(run)


def test_post_accumulate_only_when_the_leaf_accumulates() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        c = lib.ones(2, requires_grad=True)
        d = lib.ones(2, requires_grad=True)
        c.register_post_accumulate_grad_hook(lambda t: log.append("c"))
        (d * 2).sum().backward()
        log.append("d only")
        lib.autograd.grad((c * 2).sum(), [c])
        log.append("autograd.grad")
        (c * 2 + d).sum().backward(inputs=[d])
        log.append("inputs=[d]")
        (c * 2 + d).sum().backward(inputs=[c])
        return log

    _both(run)


def test_post_accumulate_errors() -> None:
    def run(lib: Any) -> list[Any]:
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        out = [
            _error(lambda: (a * 2).register_post_accumulate_grad_hook(print)),
            _error(lambda: lib.ones(2).register_post_accumulate_grad_hook(print)),
        ]
        a.register_post_accumulate_grad_hook(lambda t: t * 2)
        out.append(_error(lambda: a.sum().backward()))
        b.register_post_accumulate_grad_hook(lambda t: 5)
        out.append(_error(lambda: b.sum().backward()))
        return out

    _both(run)


# --- register_multi_grad_hook ---------------------------------------------------------


def _lists(gs: Any) -> list[Any]:
    return [None if g is None else g.tolist() for g in gs]


def test_multi_grad_hook_all() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        x, y, z = (lib.ones(2, requires_grad=True) for _ in range(3))
        h = lib.autograd.graph.register_multi_grad_hook(
            (x, y, z), lambda gs: log.append((type(gs).__name__, _lists(gs)))
        )
        (x * 2 + y).sum().backward()  # z not involved: None
        (x * 2 + y * 5 + z).sum().backward()  # once per backward
        (x * 4).sum().backward()
        h.remove()
        (x * 2 + y).sum().backward()
        log.append(isinstance(h, lib.autograd.graph.RemovableHandle))
        return log

    _both(run)


def test_multi_grad_hook_order_with_tensor_hooks_and_result_ignored() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        a, b = x * 2, y * 3
        a.register_hook(lambda g: log.append("a"))
        lib.autograd.graph.register_multi_grad_hook(
            (a, b), lambda gs: log.append("multi") or [g * 10 for g in gs]
        )
        b.register_hook(lambda g: log.append("b"))
        (a + b).sum().backward()
        log.append((x.grad.tolist(), y.grad.tolist()))
        return log

    _both(run)


def test_multi_grad_hook_any() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.register_multi_grad_hook(
            (x, y), lambda g: log.append(g.tolist()) or g * 10, mode="any"
        ):
            (x * 2 + y * 3).sum().backward()
            (x * 5).sum().backward()
        (x * 2 + y * 3).sum().backward()  # removed on leaving the with block
        log.append((x.grad.tolist(), y.grad.tolist()))
        return log

    _both(run)


def test_multi_grad_hook_bad_mode() -> None:
    def run(lib: Any) -> Any:
        x = lib.ones(2, requires_grad=True)
        return _error(lambda: lib.autograd.graph.register_multi_grad_hook((x,), print, mode="no"))

    _both(run)


def test_multi_grad_hook_nested_backward_and_no_cycle() -> None:
    # A backward run inside a hook is a pass of its own, and the outer one still completes.
    log: list[Any] = []
    x = chainrule.ones(2, requires_grad=True)
    y = chainrule.ones(2, requires_grad=True)
    chainrule.autograd.graph.register_multi_grad_hook((x, y), lambda gs: log.append(_lists(gs)))
    w = chainrule.ones(2, requires_grad=True)

    def inner_backward(g: Any) -> None:
        with chainrule.enable_grad():
            chainrule.autograd.grad((w * 2).sum(), [w])

    x.register_hook(inner_backward)
    (x + y * 2).sum().backward()
    assert log == [[[1.0, 1.0], [2.0, 2.0]]]
    # The hooks refer to the tensors weakly: registering makes no reference cycle.
    gc.disable()
    try:
        a = chainrule.ones(2, requires_grad=True)
        b = a * 2
        chainrule.autograd.graph.register_multi_grad_hook((a, b), print)
        refs = [weakref.ref(a), weakref.ref(b)]
        del a, b
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()


# --- saved_tensors_hooks ------------------------------------------------------------


def test_saved_tensors_hooks_pack_unpack_order() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []

        def pack(t: Any) -> Any:
            log.append(("pack", t.shape[0], t.grad_fn is not None, t.requires_grad))
            return t

        def unpack(p: Any) -> Any:
            log.append(("unpack", p.shape[0]))
            return p

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0, 5.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = a.exp()  # saves its output
            z = b * b  # saves its inputs
            with lib.no_grad():
                a.exp()  # nothing recorded, nothing packed
        log.append("forward done")
        saved = y.grad_fn._saved_result
        log.append((saved is y, saved.grad_fn is y.grad_fn, z.grad_fn._saved_self is b))
        (y.sum() + z.sum()).backward()
        log.append((a.grad.tolist() == y.tolist(), b.grad.tolist()))
        return log

    _both(run)


def test_saved_tensors_hooks_replace_the_saved_value() -> None:
    def run(lib: Any) -> list[Any]:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.tolist(), lib.tensor):
            y = a * a * a
        y.sum().backward()
        return a.grad.tolist()

    _both(run)


def test_saved_tensors_hooks_nest_innermost_wins() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[str] = []
        a = lib.ones(2, requires_grad=True)
        g = lib.autograd.graph
        with g.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda p: p):
            with g.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda p: p):
                a.sin()
            a.cos()
        a.tan()
        return log

    _both(run)


def test_saved_tensors_hooks_errors() -> None:
    def run(lib: Any) -> list[Any]:
        g = lib.autograd.graph
        a = lib.ones(2, requires_grad=True)
        out = []
        with g.saved_tensors_hooks(lambda t: 1, lambda p: p):
            y = a.exp()
        out.append(_error(lambda: y.sum().backward()))

        def modify(t: Any) -> Any:
            return t.add_(0)

        with g.saved_tensors_hooks(modify, lambda p: p):
            out.append(_error(lambda: a.detach() * a))
        with g.disable_saved_tensors_hooks("no hooks here"):
            out.append(_error(lambda: g.saved_tensors_hooks(print, print).__enter__()))
            a.exp()  # saving still works
        with g.saved_tensors_hooks(lambda t: t, lambda p: p):
            out.append(_error(lambda: g.disable_saved_tensors_hooks("inside").__enter__()))
        with g.saved_tensors_hooks(lambda t: t, lambda p: p):
            pass  # enabled again
        return out

    _both(run)


def test_saved_tensors_hooks_skip_the_version_check() -> None:
    # As PyTorch: with hooks the saved value is what unpack_hook returns (here a copy made
    # before the write), so an in-place write to the saved tensor is not an error.
    def run(lib: Any) -> list[Any]:
        a = lib.ones(2, requires_grad=True)
        b = a * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda p: p):
            y = b * b
        with lib.no_grad():
            b.add_(1)
        y.sum().backward()
        return [a.grad.tolist()]

    assert run(chainrule) == [[2.0, 2.0]]
    _both(run)


def test_saved_tensors_hooks_double_backward() -> None:
    def run(lib: Any) -> list[Any]:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            y = (a * a * a).sum()
            (g,) = lib.autograd.grad(y, [a], create_graph=True)
        g.sum().backward()
        return [g.tolist(), a.grad.tolist()]

    _both(run)


def test_save_on_cpu() -> None:
    def run(lib: Any) -> list[Any]:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            y = (a.exp() * a).sum()
        y.backward()
        return [round(v, 4) for v in a.grad.tolist()] + [
            issubclass(lib.autograd.graph.save_on_cpu, lib.autograd.graph.saved_tensors_hooks)
        ]

    _both(run)


def test_save_on_cpu_keeps_a_copy() -> None:
    a = chainrule.tensor([1.0, 2.0], requires_grad=True)
    with chainrule.autograd.graph.save_on_cpu():
        y = a.exp()
    saved = y.grad_fn._saved_result
    assert saved.tolist() == y.tolist()
    assert not np.shares_memory(saved.detach().numpy(), y.detach().numpy())


def test_pack_hook_returning_the_output_makes_no_cycle() -> None:
    # The node keeps the output's array, not the output: freeing needs no garbage collector.
    a = chainrule.ones(3, requires_grad=True)
    gc.disable()
    try:
        with chainrule.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
            y = a.exp()
        node = weakref.ref(y.grad_fn)
        out = weakref.ref(y)
        assert y.grad_fn._saved_result.grad_fn is y.grad_fn
        del y
        assert out() is None and node() is None
    finally:
        gc.enable()


def test_saved_hooks_with_custom_function() -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []

        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                out = x**3
                ctx.save_for_backward(x, out)
                return out

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                x, out = ctx.saved_tensors
                return g * 3 * out / x

        def pack(t: Any) -> Any:
            log.append(("pack", t.tolist(), t.grad_fn is not None))
            return t.detach().clone()

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
            y = Cube.apply(a)
        y.sum().backward()
        log.append(a.grad.tolist())
        return log

    _both(run)


# --- graph.Node -----------------------------------------------------------------------


@BOTH
def test_every_grad_fn_is_a_graph_node(lib: Any) -> None:
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    a = lib.ones(2, requires_grad=True)
    y = a.exp()
    acc = y.grad_fn.next_functions[0][0]
    custom = Double.apply(a).grad_fn
    for node in (y.grad_fn, acc, custom):
        assert isinstance(node, lib.autograd.graph.Node)
    assert type(acc).__name__ == "AccumulateGrad"


def _retained_strides(lib: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    y = lib.ones(5, 3, requires_grad=True)
    z = y * 2
    z.retain_grad()
    (z.t() * lib.arange(15.0).reshape(3, 5)).sum().backward()
    w = lib.ones(4, 3, requires_grad=True)
    wt = w.t()
    wt.retain_grad()
    (lib.ones(2, 3) @ wt).sum().backward()
    return z.grad.stride(), wt.grad.stride()


def test_a_retained_grad_is_a_contiguous_copy() -> None:
    # PyTorch copies a retained gradient to a contiguous layout, whatever layout it came in.
    assert _retained_strides(chainrule) == ((3, 1), (4, 1))


def test_a_retained_grad_is_laid_out_as_torch_lays_it_out(torch: Any) -> None:
    assert _retained_strides(chainrule) == _retained_strides(torch)
