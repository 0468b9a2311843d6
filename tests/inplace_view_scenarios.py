"""Scenarios for the in-place view ops and conjugate transposes, each run on a library
(`chainrule` or `torch`) and returning what it printed as a plain value or its error."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any


def _name(node: Any) -> str | None:
    return None if node is None else type(node).__name__


def _first_input(t: Any) -> str | None:
    return _name(t.grad_fn.next_functions[0][0])


def leaf(lib: Any) -> Any:
    return lib.tensor([[0.0, 1, 2], [3, 4, 5]], requires_grad=True)


def t_(lib: Any) -> Any:
    b = leaf(lib) * 1
    version = b._version
    r = b.t_()
    return (
        r is b,
        tuple(b.shape),
        b.stride(),
        _name(b.grad_fn),
        _first_input(b),
        b._version - version,
    )


def transpose_(lib: Any) -> Any:
    b = leaf(lib) * 1
    b.transpose_(0, 1)
    x = _name(b.grad_fn)
    b.swapaxes_(0, 1)
    y = _name(b.grad_fn)
    b.swapdims_(dim0=1, dim1=0)
    return x, y, _name(b.grad_fn), tuple(b.shape), b.stride(), b._version


def squeeze_(lib: Any) -> Any:
    b = leaf(lib) * 1
    b.unsqueeze_(0)
    x = _name(b.grad_fn), tuple(b.shape), b.stride()
    b.squeeze_()
    y = _name(b.grad_fn), tuple(b.shape)
    b.unsqueeze_(-1).squeeze_(2)
    c = lib.ones(1, 3, 1, requires_grad=True) * 1
    c.squeeze_((0, 2))
    d = lib.ones(2, 3) * 1
    d.squeeze_(0)
    return x, y, _name(b.grad_fn), _name(c.grad_fn), tuple(c.shape), _name(d.grad_fn)


def of_a_view(lib: Any) -> Any:
    a = leaf(lib)
    b = a * 1
    v = b[0]
    v.unsqueeze_(0)
    first = _name(v.grad_fn), _first_input(v), v._version, b._version, v._base is b
    w = b[1]
    v.mul_(2)
    after = _name(v.grad_fn), _name(b.grad_fn), _name(w.grad_fn), tuple(v.shape)
    (v.sum() * 3 + b.sum()).backward()
    return first, after, a.grad.tolist()


def views_of_the_base(lib: Any) -> Any:
    a = leaf(lib)
    b = a * 1
    s = b[:, 1]
    b.t_()
    first = _name(s.grad_fn), _name(b.grad_fn), s._version
    s.mul_(3)
    after = _name(b.grad_fn), tuple(b.shape), b.tolist()
    (b * lib.arange(6.0).reshape(3, 2)).sum().backward()
    return first, after, a.grad.tolist()


def view_written_after(lib: Any) -> Any:
    a = leaf(lib)
    b = a * 1
    c = b.view(3, 2)
    b.unsqueeze_(1)
    c.mul_(2)
    b.sum().backward()
    return _name(b.grad_fn), tuple(b.shape), a.grad.tolist(), b.tolist()


def retain_grad(lib: Any) -> Any:
    a = leaf(lib)
    b = a * 1
    b.retain_grad()
    b.unsqueeze_(0)
    (b * 2).sum().backward()
    return tuple(b.grad.shape), a.grad.tolist()


def second_order(lib: Any) -> Any:
    a = leaf(lib)
    b = a * a
    b.t_()
    (g,) = lib.autograd.grad((b * b).sum(), a, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), a)
    return g.tolist(), h.tolist()


def of_a_leaf(lib: Any) -> Any:
    return leaf(lib).t_()


def of_a_leaf_view(lib: Any) -> Any:
    return leaf(lib)[0].unsqueeze_(0)


def without_grad(lib: Any) -> Any:
    x = lib.arange(6.0).reshape(2, 3) * 1
    y = x.t_()
    a = leaf(lib)
    with lib.no_grad():
        a.t_()
    return y is x, tuple(x.shape), x._version, tuple(a.shape), a.grad_fn, a._version


def errors(lib: Any) -> Any:
    x = lib.zeros(2, 3, 4)
    out = []
    for call in (
        lambda: x.t_(),
        lambda: x.transpose_(0, 5),
        lambda: x.unsqueeze_(5),
        lambda: x.squeeze_(5),
        lambda: x.swapaxes_(0, 7),
        lambda: x.squeeze_((0, 9)),
        lambda: lib.zeros(3).adjoint(),
        lambda: lib.adjoint(lib.zeros(3)),
        lambda: lib.zeros(3).mH,
        lambda: lib.zeros(2, 3, 4).H,
        lambda: lib.zeros(3).H,
    ):
        out.append(outcome(call))
    return out, x._version, tuple(x.shape)


def small(lib: Any) -> Any:
    z = (lib.tensor(2.0, requires_grad=True) * 1).t_()
    return tuple(lib.zeros(3).t_().shape), _name(z.grad_fn)


def conj_transposes(lib: Any) -> Any:
    a = leaf(lib)
    names = [_name(f(a).grad_fn) for f in (lib.adjoint, lambda t: t.adjoint())]
    names += [_name(a.mH.grad_fn), _name(a.H.grad_fn)]
    x = lib.arange(24.0).reshape(2, 3, 4)
    return names, a.mH._base is a, lib.adjoint(a).stride(), x.mH.stride(), x.adjoint().tolist()


def h_of_a_number(lib: Any) -> Any:
    z = lib.tensor(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns once (tests/test_inplace_views.py)
        return z.H is z, z.mT is z, z.mH is z, z.adjoint() is z, lib.adjoint(z) is z


def viewed_before(lib: Any) -> Any:
    a = leaf(lib)
    y = a * 1
    v = y.view(6)
    y.t_()
    v.mul_(2)
    y.retain_grad()
    (y * lib.arange(6.0).reshape(3, 2)).sum().backward()
    return y.tolist(), _name(y.grad_fn), a.grad.tolist(), y.grad.tolist()


def view_of_a_view(lib: Any) -> Any:
    y = leaf(lib) * 1
    v = y[1:]
    v.t_()
    w = v[0]
    y.mul_(10)
    return v.tolist(), w.tolist(), _name(w.grad_fn), _name(v.grad_fn)


def of_split_outputs(lib: Any) -> Any:
    first, _ = (leaf(lib) * 1).split(1)
    return first.t_()


def outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as e:  # the type and text are what is compared
        return f"{type(e).__name__}: {e}"


SCENARIOS = [
    t_, transpose_, squeeze_, of_a_view, views_of_the_base, view_written_after, retain_grad,
    second_order, of_a_leaf, of_a_leaf_view, without_grad, errors, small, conj_transposes,
    h_of_a_number, viewed_before, view_of_a_view, of_split_outputs,
]  # fmt: skip
