"""inference_mode: like no_grad, and the tensors it makes can never join a graph."""

from __future__ import annotations

import threading
from types import ModuleType

import pytest

import chainrule


def _error(fn) -> str:
    try:
        fn()
    except Exception as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return "no error"


def scenario(m: ModuleType) -> list[object]:
    out: list[object] = []
    with m.inference_mode():
        a = m.ones(3)
        out += [m.is_inference_mode_enabled(), m.is_grad_enabled(), a.is_inference()]
    out += [m.is_inference_mode_enabled(), m.is_grad_enabled(), a.requires_grad]
    w = m.ones(3, requires_grad=True)
    b = a.clone()
    out.append(_error(lambda: (a * w).sum().backward()))
    out.append(_error(lambda: a.add_(1)))
    out.append(_error(lambda: a[0].fill_(2)))
    out.append(_error(lambda: a.requires_grad_()))
    out += [b.is_inference(), _error(lambda: b.add_(1)), (a + 1).is_inference()]
    c = b * w  # a clone is a normal tensor: it joins the graph
    c.sum().backward()
    out.append(w.grad.tolist())

    @m.inference_mode()
    def double(x):
        return x * 2

    y = double(w)
    out += [y.requires_grad, y.is_inference(), m.is_inference_mode_enabled()]

    @m.inference_mode
    def triple(x):
        return x * 3

    out.append(triple(w).is_inference())
    with m.inference_mode(False):
        out.append(m.is_inference_mode_enabled())
    with m.inference_mode():
        with m.inference_mode(False):
            out.append(m.is_inference_mode_enabled())
        out.append(m.is_inference_mode_enabled())
    with m.inference_mode():
        z = m.ones(2)
        z.add_(1)  # inside the mode, writes are allowed
        out.append(z.tolist())
    return out


def test_inference_mode_semantics():
    got = scenario(chainrule)
    assert got[:6] == [True, False, True, False, True, False]
    assert got[6].startswith("RuntimeError: Inference tensors cannot be saved for backward")
    assert got[7].startswith("RuntimeError: Inplace update to inference tensor outside")
    assert got[8] == got[7]
    assert got[9].startswith("RuntimeError: Setting requires_grad=True on inference tensor")


def test_refused_writes_change_nothing():
    # PyTorch writes into the inference tensor and then raises; chainrule refuses first.
    with chainrule.inference_mode():
        a = chainrule.ones(3)
    for write in (lambda: a.add_(1), lambda: a[0].fill_(5), lambda: a.__setitem__(1, 7.0)):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            write()
    assert a.tolist() == [1.0, 1.0, 1.0]


def test_inference_mode_matches_torch():
    torch = pytest.importorskip("torch")
    assert scenario(chainrule) == scenario(torch)


def test_inference_mode_is_thread_local():
    inside = threading.Event()
    release = threading.Event()
    seen: list[bool] = []

    def worker() -> None:
        with chainrule.inference_mode():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    seen.append(chainrule.is_inference_mode_enabled())
    seen.append(chainrule.is_grad_enabled())
    release.set()
    t.join()
    assert seen == [False, True]
