"""Scenarios of PyTorch's rules for in-place writes (views, retain_graph, mark_dirty), each
run on chainrule and on PyTorch by tests/test_autograd_inplace_rules.py.

Each scenario runs named cases and returns {case: outcome}.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autograd_cases import outcome


def _cases() -> tuple[dict[str, Any], Callable[[str, Callable[[], Any]], None]]:
    results: dict[str, Any] = {}

    def tr(name: str, fn: Callable[[], Any]) -> None:
        results[name] = outcome(fn)

    return results, tr


def views_and_writes(torch: Any) -> dict[str, Any]:
    """Views made without grad mode, of leaves, of several outputs; retain_graph; mark_dirty."""
    results, tr = _cases()

    # 1 view made under no_grad of a requires-grad non-leaf, modified in-place with grad on
    def c1():
        a = torch.ones(3, requires_grad=True).clone()
        with torch.no_grad():
            v = a[:2]
        v.mul_(2)
        return v.grad_fn

    tr("nograd-view-of-nonleaf", c1)

    def c1b():
        a = torch.ones(3, requires_grad=True)
        with torch.no_grad():
            v = a[:2]
        v.mul_(2)
        return v.grad_fn

    tr("nograd-view-of-leaf", c1b)

    def c1c():
        a = torch.ones(3, requires_grad=True).clone()
        with torch.no_grad():
            v = a.view(3)
        v.mul_(torch.ones(3, requires_grad=True))
        return v.grad_fn

    tr("nograd-view-inplace-with-grad-input", c1c)

    def c1d():
        a = torch.ones(3, requires_grad=True).clone()
        with torch.no_grad():
            v = a[:2]
        with torch.no_grad():
            v.mul_(2)
        return a.grad_fn

    tr("nograd-view-inplace-nograd", c1d)

    # 2 view of leaf
    def c2():
        a = torch.ones(3, requires_grad=True)
        v = a[:2]
        v.mul_(2)

    tr("view-of-leaf", c2)

    def c2b():
        a = torch.ones(3, requires_grad=True)
        v = a.detach()[:2]
        v.mul_(2)
        return a

    tr("view-of-detached-leaf", c2b)

    # 3 multi-output views
    def c3():
        a = torch.ones(4, requires_grad=True).clone()
        p, _q = a.split(2)
        p.mul_(2)

    tr("split-inplace", c3)

    def c3b():
        a = torch.ones(4, requires_grad=True).clone()
        p, _q = a.unbind(0)[:2]
        p.mul_(2)

    tr("unbind-inplace", c3b)

    def c3c():
        a = torch.ones(4, requires_grad=True).clone()
        with torch.no_grad():
            p, _q = a.split(2)
        p.mul_(2)

    tr("split-nograd-inplace", c3c)

    def c3d():
        a = torch.ones(4, requires_grad=True).clone()
        with torch.no_grad():
            p, _q = a.split(2)
        p.mul_(torch.ones(2, requires_grad=True))

    tr("split-nograd-inplace-grad", c3d)

    def c3e():
        a = torch.ones(4).clone()
        p, _q = a.split(2)
        p.mul_(torch.ones(2, requires_grad=True))
        return p.grad_fn

    tr("split-nograd-base-inplace-grad", c3e)

    def c3f():
        a = torch.ones(4, requires_grad=True).clone()
        p, _q = a.chunk(2)
        p.detach().mul_(2)
        return "fine"

    tr("chunk-detach-inplace", c3f)

    def c3g():
        a = torch.ones(4, 2, requires_grad=True).clone()
        p = a.unbind(1)[0]
        v = p[:2]
        v.mul_(2)

    tr("view-of-unbind-inplace", c3g)

    # 4 inference
    def c4():
        with torch.inference_mode():
            a = torch.ones(3)
        v = a[:2]
        v.mul_(2)

    tr("inference-view-inplace", c4)

    # 5 view + detach + inplace
    def c5():
        a = torch.ones(3, requires_grad=True).clone()
        v = a[:2].detach()
        v.mul_(2)
        return a.grad_fn

    tr("detach-of-view", c5)

    # 6 retain_graph misuse
    def c6():
        x = torch.ones(2, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()

    tr("twice", c6)

    def c6b():
        x = torch.ones(2, requires_grad=True)
        y = (x.exp()).sum()
        y.backward()
        y.backward()

    tr("twice-exp", c6b)

    def c6c():
        x = torch.ones(2, requires_grad=True)
        y = (x * 2).sum()
        y.backward()
        y.backward()
        return x.grad

    tr("twice-nosaved", c6c)

    def c6d():
        x = torch.ones(2, requires_grad=True)
        y = x.exp()
        z = y.sum()
        torch.autograd.grad(z, x)
        return y.grad_fn._saved_result

    tr("saved-after-free", c6d)

    def c6e():
        x = torch.ones(2, requires_grad=True)
        y = x * x
        z = y.sum()
        z.backward()
        return y.grad_fn._saved_self

    tr("saved-self-after-free", c6e)

    def c6f():
        x = torch.ones(2, requires_grad=True)
        y = x * x
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        y.sum().backward()

    tr("retain-then-not", c6f)

    def c6g():
        x = torch.ones(2, requires_grad=True)
        y = x.pow(2).sum()
        torch.autograd.grad(y, x, create_graph=True)
        return torch.autograd.grad(y, x)

    tr("create-graph-retains", c6g)

    # 7 mark_dirty misuse
    class NoDirty(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    tr(
        "inplace-without-mark-dirty",
        lambda: NoDirty.apply(torch.ones(2, requires_grad=True).clone()).grad_fn,
    )

    class Dirty(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g

    tr("mark-dirty-not-returned", lambda: Dirty.apply(torch.ones(2, requires_grad=True).clone()))

    class DirtyLeaf(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    tr("mark-dirty-leaf", lambda: DirtyLeaf.apply(torch.ones(2, requires_grad=True)))

    def c7d():
        a = torch.ones(3, requires_grad=True).clone()
        v = a[:2]
        return DirtyLeaf.apply(v).grad_fn, a.grad_fn

    tr("mark-dirty-view", c7d)

    def c7e():
        a = torch.ones(3, requires_grad=True)
        return DirtyLeaf.apply(a[:2])

    tr("mark-dirty-view-of-leaf", c7e)

    def c7f():
        a = torch.ones(4, requires_grad=True).clone()
        p, _q = a.split(2)
        return DirtyLeaf.apply(p)

    tr("mark-dirty-multiview", c7f)

    def c7g():
        a = torch.ones(3, requires_grad=True).clone()
        with torch.no_grad():
            v = a[:2]
        return DirtyLeaf.apply(v)

    tr("mark-dirty-nograd-view", c7g)

    class DirtyTwice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a, b)
            return a, b

        @staticmethod
        def backward(ctx, g, h):
            return g, h

    def c7h():
        a = torch.ones(3, requires_grad=True).clone()
        return DirtyTwice.apply(a, a)

    tr("mark-dirty-same-twice", c7h)

    def c7i():
        x = torch.ones(2, requires_grad=True).clone()
        with torch.no_grad():
            r = DirtyLeaf.apply(x)
        return r.requires_grad, r is x

    tr("mark-dirty-nograd", c7i)

    def c8():
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a = x * 1
        v = a[:2]
        r = DirtyLeaf.apply(v)
        (r * torch.tensor([1.0, 5.0])).sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        x.grad = None
        (a * a).sum().backward()
        return g1, x.grad, a, r._version, a._version

    tr("mark-dirty-view-grad", c8)
    return results
