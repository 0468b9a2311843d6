"""Activation checkpointing: same gradients as the plain computation, less memory."""

from __future__ import annotations

import tracemalloc
import warnings
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.utils.checkpoint import checkpoint, checkpoint_sequential

F = chainrule.nn.functional


def _close(a: Any, b: Any) -> None:
    assert a is not None and b is not None
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def _grads(tensors: list[Any]) -> list[Any]:
    out = [t.grad.clone() for t in tensors]
    for t in tensors:
        t.grad = None
    return out


def test_export_and_warning_text() -> None:
    assert chainrule.utils.checkpoint.checkpoint is checkpoint
    x = chainrule.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda t: t * 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda t: t * 2, x, use_reentrant=False)


def test_warning_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    import torch.utils.checkpoint as tcp

    messages = []
    for mod, fn in ((torch, tcp.checkpoint), (chainrule, checkpoint)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lambda t: t * 2, mod.ones(2, requires_grad=True))
        messages.append([str(w.message) for w in caught if "use_reentrant" in str(w.message)])
    assert messages[0] == messages[1] and messages[0]


def test_several_inputs_tuple_output_kwargs_and_closure() -> None:
    chainrule.manual_seed(0)
    w = chainrule.randn(3, 3, requires_grad=True)
    x = chainrule.randn(4, 3, requires_grad=True)
    y = chainrule.randn(4, 3, requires_grad=True)

    def f(a: Any, b: Any, k: int, scale: float = 1.0) -> Any:
        h = chainrule.tanh(a @ w) * k
        return h * b * scale, (h**2).sum(), "tag"

    def loss(out: Any) -> Any:
        return out[0].sum() + out[1]

    loss(f(x, y, 3, scale=2.0)).backward()
    expected = _grads([x, y, w])
    for _ in range(2):  # a second call works the same
        out = checkpoint(f, x, y, 3, use_reentrant=False, scale=2.0)
        assert out[2] == "tag" and out[0].requires_grad
        loss(out).backward()
        for got, want in zip(_grads([x, y, w]), expected, strict=True):
            _close(got, want)


def test_closure_leaves_get_gradients_when_inputs_do_not_require_grad() -> None:
    w = chainrule.tensor([[0.5, -1.0], [2.0, 0.3]], requires_grad=True)
    x = chainrule.tensor([[1.0, 2.0]])
    out = checkpoint(lambda t: chainrule.sigmoid(t @ w), x, use_reentrant=False)
    assert out.requires_grad
    out.sum().backward()
    got = w.grad.clone()
    w.grad = None
    chainrule.sigmoid(x @ w).sum().backward()
    _close(got, w.grad)


def test_matches_torch_values() -> None:
    torch = pytest.importorskip("torch")
    import torch.utils.checkpoint as tcp

    results = []
    for mod, fn in ((torch, tcp.checkpoint), (chainrule, checkpoint)):
        w = mod.tensor([[0.5, -1.0], [2.0, 0.3]], requires_grad=True)
        x = mod.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
        out = fn(lambda t, p, m=mod, w=w: m.tanh(t @ w) ** p, x, 2, use_reentrant=False)
        out.sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_double_backward() -> None:
    x = chainrule.tensor([1.0, 2.0], requires_grad=True)
    out = checkpoint(lambda t: (t**3).sum(), x, use_reentrant=False)
    (g,) = chainrule.autograd.grad(out, x, create_graph=True)
    (gg,) = chainrule.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 12.0])
    np.testing.assert_allclose(gg.numpy(), [6.0, 12.0])


def test_dropout_rng_is_replayed() -> None:
    chainrule.manual_seed(1)
    x = chainrule.ones(64, requires_grad=True)
    out = checkpoint(lambda t: F.dropout(t * 2, 0.5, training=True), x, use_reentrant=False)
    after = chainrule.rand(3)
    out.sum().backward()
    # The recomputation saw the same mask, and did not disturb the global stream.
    np.testing.assert_allclose(x.grad.numpy(), out.detach().numpy())
    chainrule.manual_seed(1)
    F.dropout(chainrule.ones(64), 0.5, training=True)
    _close(chainrule.rand(3), after)


def test_checkpoint_sequential() -> None:
    chainrule.manual_seed(0)
    ws = [chainrule.randn(4, 4, requires_grad=True) for _ in range(5)]
    layers = [lambda h, w=w: chainrule.tanh(h @ w) for w in ws]
    x = chainrule.randn(2, 4, requires_grad=True)
    h = x
    for f in layers:
        h = f(h)
    h.sum().backward()
    expected = _grads([x, *ws])
    for segments in (1, 2, 3, 5):
        out = checkpoint_sequential(layers, segments, x, use_reentrant=False)
        out.sum().backward()
        for got, want in zip(_grads([x, *ws]), expected, strict=True):
            _close(got, want)


def _memory_mib(use_checkpoint: bool, batch: int) -> tuple[float, float, list[Any]]:
    """Traced memory held after forward, and peak over forward+backward, of a 30-layer MLP.

    Width 256, ten residual blocks of three layers; with checkpointing each block
    is one checkpoint.
    """
    chainrule.manual_seed(0)
    width, n_blocks = 256, 10
    params = [
        [(chainrule.randn(width, width) / 16).requires_grad_() for _ in range(3)]
        for _ in range(n_blocks)
    ]

    def block(h: Any, w1: Any, w2: Any, w3: Any) -> Any:  # three layers, residual
        return h + chainrule.tanh(chainrule.tanh(chainrule.tanh(h @ w1) @ w2) @ w3)

    x = chainrule.randn(batch, width, requires_grad=True)
    flat = [x, *(w for ws in params for w in ws)]
    for t in flat:  # gradient buffers exist already, as in a training loop
        t.grad = chainrule.zeros_like(t)
    tracemalloc.start()
    try:
        h = x
        for ws in params:
            h = checkpoint(block, h, *ws, use_reentrant=False) if use_checkpoint else block(h, *ws)
        held = tracemalloc.get_traced_memory()[0]
        h.sum().backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return held / 2**20, peak / 2**20, [t.grad for t in flat]


# At batch 64 the backward's weight-gradient temporaries (256x256) set a floor
# under the peak; at batch 256 the saved activations dominate.
@pytest.mark.parametrize(("batch", "peak_ratio"), [(64, 0.75), (256, 0.5)])
def test_checkpointing_lowers_peak_memory(batch: int, peak_ratio: float) -> None:
    plain_held, plain_peak, plain_grads = _memory_mib(False, batch)
    ckpt_held, ckpt_peak, ckpt_grads = _memory_mib(True, batch)
    for a, b in zip(plain_grads, ckpt_grads, strict=True):
        _close(a, b)
    # The graph keeps 30 activations without checkpointing, 10 block inputs with it.
    assert ckpt_held < 0.4 * plain_held, (plain_held, ckpt_held)
    assert ckpt_peak < peak_ratio * plain_peak, (plain_peak, ckpt_peak)
