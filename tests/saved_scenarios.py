"""Scenarios of hook order, retain_grad and saved tensors, each run on chainrule and on
PyTorch by tests/test_autograd_inplace_rules.py.

Each scenario runs named cases and returns {case: outcome}.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

from autograd_cases import outcome


def _cases() -> tuple[dict[str, Any], Callable[[str, Callable[[], Any]], None]]:
    results: dict[str, Any] = {}

    def tr(name: str, fn: Callable[[], Any]) -> None:
        results[name] = outcome(fn)

    return results, tr


def hooks_and_saved(torch: Any) -> dict[str, Any]:
    """Hook order, retain_grad around in-place writes, saved tensors' identity and lifetime."""
    results, tr = _cases()

    # hook order: tensor hooks, retain_grad, node prehooks, node posthooks, post-accumulate
    def order():
        log = []
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.grad_fn.register_prehook(lambda g: log.append("node-pre"))
        y.register_hook(lambda g: log.append("tensor1"))
        y.retain_grad()
        y.register_hook(lambda g: (log.append("tensor2"), g * 3)[1])
        y.grad_fn.register_hook(lambda gi, go: log.append("node-post"))
        x.register_hook(lambda g: log.append("leaf-hook"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post-acc"))
        y.sum().backward()
        return log, y.grad, x.grad

    tr("order", order)

    def order2():
        log = []
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: (log.append("A"), g + 1)[1])
        y.retain_grad()
        y.register_hook(lambda g: (log.append("B"), g * 10)[1])
        y.sum().backward()
        return log, y.grad, x.grad

    tr("retain-between-hooks", order2)

    def leaf_order():
        log = []
        x = torch.ones(2, requires_grad=True)
        acc = (x * 1).grad_fn.next_functions[0][0]
        acc.register_prehook(lambda g: log.append("acc-pre"))
        acc.register_hook(lambda gi, go: log.append("acc-post"))
        x.register_hook(lambda g: log.append("tensor"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post-acc"))
        (x * 2).sum().backward()
        return log

    tr("leaf-order", leaf_order)

    # retain_grad after inplace
    def rg1():
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        y.sum().backward()
        return y.grad, x.grad

    tr("retain-then-inplace", rg1)

    def rg2():
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.mul_(3)
        y.retain_grad()
        y.sum().backward()
        return y.grad, x.grad

    tr("inplace-then-retain", rg2)

    def rg3():
        x = torch.ones(3, requires_grad=True)
        y = x * 2
        v = y[:2]
        v.retain_grad()
        y.mul_(3)
        (v * 5).sum().backward()
        return v.grad, x.grad

    tr("view-retain-base-inplace", rg3)

    def rg4():
        x = torch.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y[:2].mul_(3)
        y.sum().backward()
        return y.grad, x.grad

    tr("retain-view-inplace", rg4)

    def rg5():
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 100)
        y.mul_(3)
        y.sum().backward()
        return x.grad

    tr("hook-then-inplace", rg5)

    def rg6():
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.retain_grad()
        y.sum().backward()
        return y.grad, y.retains_grad

    tr("retain-twice", rg6)

    def rg7():
        x = torch.ones(2, requires_grad=True)
        return x.retain_grad(), x.retains_grad

    tr("retain-leaf", rg7)

    def rg8():
        x = torch.ones(2)
        x.retain_grad()

    tr("retain-nograd", rg8)

    # saved tensors identity
    def s1():
        x = torch.ones(2, requires_grad=True)
        y = x * x
        return y.grad_fn._saved_self is x, y.grad_fn._saved_other is x

    tr("saved-self-identity", s1)

    def s2():
        x = torch.ones(2, requires_grad=True)
        y = x.exp()
        return (
            y.grad_fn._saved_result is y,
            y.grad_fn._saved_result.grad_fn is y.grad_fn,
            y.grad_fn._saved_result.equal(y),
        )

    tr("saved-result-identity", s2)

    def s3():
        x = torch.ones(2, requires_grad=True)
        y = x.exp()
        y * 2
        y.sum().backward()
        return y.grad_fn._saved_result

    tr("saved-result-after-free", s3)

    def s4():
        x = torch.ones(2, requires_grad=True)
        y = x.sin()
        return y.grad_fn._saved_self is x, y.grad_fn._saved_self.equal(x)

    tr("saved-nonleaf", s4)

    def s5():
        x = torch.ones(2, requires_grad=True).clone()
        y = x.sin()
        return y.grad_fn._saved_self is x

    tr("saved-nonleaf-identity", s5)

    def s6():
        x = torch.ones(2, requires_grad=True)
        x * x
        r = weakref.ref(x)
        del x
        gc.collect()
        return r() is not None

    tr("saved-keeps-input-alive", s6)

    def s7():
        x = torch.ones(2, requires_grad=True)
        y = x.exp()
        r = y.grad_fn._saved_result
        del y
        gc.collect()
        return r.grad_fn

    tr("saved-result-outlives", s7)

    def s8():
        x = torch.ones(2, requires_grad=True)
        y = x.exp()
        g = y.grad_fn
        r = weakref.ref(y)
        del y
        gc.collect()
        return r() is None, g._saved_result

    tr("output-freed", s8)

    def s9():
        x = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            pass
        y = x * 3
        return y.grad_fn._saved_self, y.grad_fn._saved_other

    tr("saved-scalar", s9)

    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            b = a * 2
            ctx.save_for_backward(a, b)
            return b

        @staticmethod
        def backward(ctx, g):
            _a, _b = ctx.saved_tensors
            return g * 2

    def s10():
        x = torch.ones(2, requires_grad=True)
        y = F.apply(x)
        a, b = y.grad_fn.saved_tensors
        return a is x, b is y, b.grad_fn is y.grad_fn, y.grad_fn.saved_tensors[1] is b

    tr("function-saved-identity", s10)

    def s11():
        x = torch.ones(2, requires_grad=True)
        y = F.apply(x)
        y.sum().backward()
        return y.grad_fn.saved_tensors

    tr("function-saved-after-free", s11)

    def s12():
        x = torch.ones(2, requires_grad=True)
        y = F.apply(x)
        y.sum().backward(retain_graph=True)
        return len(y.grad_fn.saved_tensors)

    tr("function-saved-retained", s12)

    def s13():
        x = torch.ones(2, requires_grad=True)
        y = x.exp()
        a = y.grad_fn._saved_result
        b = y.grad_fn._saved_result
        return a is b

    tr("saved-result-twice-same", s13)
    return results


def saved_fields(torch: Any) -> dict[str, Any]:
    """`_saved_<name>` of inputs a node did or did not need to save."""
    results, tr = _cases()
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2)
    y = x * 3
    tr("s-self", lambda: y.grad_fn._saved_self)
    tr("s-other", lambda: y.grad_fn._saved_other)
    y2 = x * w
    tr("w-self", lambda: y2.grad_fn._saved_self)
    tr("w-other", lambda: y2.grad_fn._saved_other is w)
    y3 = w * x
    tr("w3-self", lambda: y3.grad_fn._saved_self is w)
    tr("w3-other", lambda: y3.grad_fn._saved_other)
    y4 = x + 2
    tr("add-alpha", lambda: y4.grad_fn._saved_alpha)
    tr("add-self", lambda: y4.grad_fn._saved_self)
    y5 = x.pow(2)
    tr("pow", lambda: (y5.grad_fn._saved_self is x, y5.grad_fn._saved_exponent))
    return results
