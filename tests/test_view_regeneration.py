"""After an in-place write to a tensor or one of its views, every view's grad_fn is remade
(`AsStridedBackward0` on the base's new place in the graph), so gradients through
views see the write. Compared with torch, and with gradients worked out by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

import chainrule
from torch_compare import as_torch_text, registry

SCENARIOS, scenario = registry()


def names(*tensors: Any) -> list[str | None]:
    return [None if t.grad_fn is None else t.grad_fn.name() for t in tensors]


@scenario
def slices_after_a_write_through_another_slice(m: Any) -> Any:
    leaf = m.ones(4, requires_grad=True)
    x = leaf.clone()
    a, b, c = x[:2], x[1:3], x.view(2, 2)
    a.mul_(2)
    out = [names(a, b, c, x), repr(b), repr(c)]
    b.sum().backward(retain_graph=True)
    out.append(leaf.grad.tolist())
    leaf.grad = None
    (c * m.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return [*out, leaf.grad.tolist()]


@scenario
def a_view_of_a_view(m: Any) -> Any:
    leaf = m.ones(4, requires_grad=True)
    y = leaf.clone()
    v = y[1:]
    w = v[1:]
    v.add_(1)
    w.sum().backward()
    return [names(v, w), w._base is y, leaf.grad.tolist()]


@scenario
def a_write_to_the_base(m: Any) -> Any:
    leaf = m.ones(4, requires_grad=True)
    z = leaf.clone()
    u, s = z.view(4), z.unsqueeze(0)
    z.mul_(3)
    u.sum().backward()
    return [names(u, s), repr(u), leaf.grad.tolist()]


@scenario
def an_expanded_view_sums_its_overlap(m: Any) -> Any:
    leaf = m.ones(4, requires_grad=True)
    a = leaf.clone()
    e = a.expand(3, 4)
    a.mul_(2)
    e.sum().backward()
    return [names(e), leaf.grad.tolist()]


@scenario
def a_write_without_grad_mode_still_remakes(m: Any) -> Any:
    leaf = m.ones(4, requires_grad=True)
    r = leaf.clone()
    s = r[2:]
    with m.no_grad():
        r.mul_(1)
    b = leaf.clone()
    bv = b[::2]
    b.detach().mul_(3)  # detach shares the version counter
    c = leaf.clone()
    cv = c[1:]
    c.data.mul_(2)  # .data does not
    return names(s, bv, cv)


@scenario
def a_base_that_starts_requiring_grad(m: Any) -> Any:
    leaf = m.ones(4, requires_grad=True)
    x = m.zeros(4)
    v = x[:2]
    x.copy_(leaf)
    v.sum().backward()
    return [names(v), v.requires_grad, leaf.grad.tolist()]


@scenario
def setitem_and_a_transposed_view(m: Any) -> Any:
    leaf = m.ones(4, requires_grad=True)
    z = leaf.clone()
    s = z[1:3]
    z[0] = 5.0
    nexts = [f[0].name() for f in s.grad_fn.next_functions]
    q = leaf.clone().view(2, 2)
    qt = q.t()
    q[0, 1] = 10.0
    (qt * m.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return [names(s), nexts, names(qt), leaf.grad.tolist()]


@pytest.mark.parametrize("fn", SCENARIOS, ids=lambda f: f.__name__)
def test_matches_torch(torch: Any, fn: Any) -> None:
    ours = as_torch_text(repr(fn(chainrule)))
    assert ours == repr(fn(torch))


def test_gradient_through_a_stale_view_sees_the_write() -> None:
    # x = leaf.clone(); x[:2] *= 2; then b = x[1:3] reads 2*leaf[1] and leaf[2].
    leaf = chainrule.ones(4, requires_grad=True)
    x = leaf.clone()
    a, b = x[:2], x[1:3]
    a.mul_(2)
    (b * chainrule.tensor([10.0, 1.0])).sum().backward()
    assert leaf.grad.tolist() == [0.0, 20.0, 1.0, 0.0]
    assert b.grad_fn.name() == "AsStridedBackward0"


def test_second_derivative_through_a_remade_view() -> None:
    leaf = chainrule.tensor([1.0, 2.0, 3.0], dtype=chainrule.float64, requires_grad=True)
    x = leaf * 1
    v = x[1:]
    x.mul_(leaf)  # x = leaf^2, so v = leaf[1:]^2
    (g,) = chainrule.autograd.grad((v**2).sum(), leaf, create_graph=True)  # 4 leaf^3 on [1:]
    assert g.tolist() == [0.0, 32.0, 108.0]
    (h,) = chainrule.autograd.grad(g.sum(), leaf)
    assert h.tolist() == [0.0, 48.0, 108.0]  # 12 leaf^2


def test_views_made_without_grad_mode_are_left_alone() -> None:
    leaf = chainrule.ones(3, requires_grad=True)
    x = leaf.clone()
    with chainrule.no_grad():
        v = x[:2]
    x.mul_(2)
    assert v.grad_fn is None and not v.requires_grad


def test_the_registry_of_views_does_not_keep_them_alive() -> None:
    import gc
    import weakref

    x = chainrule.ones(3, requires_grad=True).clone()
    refs = []
    for _ in range(200):
        v = x[1:]
        refs.append(weakref.ref(v))
    del v
    gc.collect()
    assert all(r() is None for r in refs)
    x.mul_(2)
    assert x._version_counter.views == []
