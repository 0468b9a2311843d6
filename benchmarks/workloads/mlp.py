"""W2 and W6: one training step of an MLP, where NumPy's matmuls should decide.

784-512-512-10 with ReLU, mean cross-entropy on integer labels, batch 128, plain SGD
(lr 0.01); weights laid out as (out, in) and applied as `h @ w.T + b` everywhere, all
libraries starting from the same arrays. Each library's step is written as its users
write it: PyTorch and chainrule with `nn.functional` and `optim.SGD`, HIPS autograd
with `autograd.grad` of a NumPy loss, MyGrad with its `nnet` ops, NumPy by hand.
`forward_backward` (W6 measures its peak memory) computes the gradients from none;
`step` adds the update.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

SIZES, BATCH, LR = (784, 512, 512, 10), 128, 0.01


@dataclass
class Mlp:
    forward_backward: Callable[[], object]
    update: Callable[[], object]
    grads: Callable[[], list[np.ndarray]]
    clear_grads: Callable[[], object]

    def step(self) -> None:
        self.forward_backward()
        self.update()


def make_data(
    dtype: type, sizes: tuple[int, ...] = SIZES, batch: int = BATCH
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Parameters (w1, b1, w2, b2, ...), inputs and labels, the same for every library."""
    rng = np.random.default_rng(0)
    params: list[np.ndarray] = []
    for a, b in itertools.pairwise(sizes):
        bound = 1 / np.sqrt(a)
        params += [rng.uniform(-bound, bound, (b, a)), rng.uniform(-bound, bound, b)]
    x = rng.standard_normal((batch, sizes[0]))
    y = rng.integers(0, sizes[-1], batch)
    return [p.astype(dtype) for p in params], x.astype(dtype), y


def numpy_mlp(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> Mlp:
    """The step by hand: the floor for any library on NumPy."""
    rows = np.arange(len(y))
    grads: list[np.ndarray] = []

    def forward_backward() -> None:
        acts, pre = [x], []
        h = x
        for i in range(0, len(params), 2):
            a = h @ params[i].T + params[i + 1]
            if i + 2 < len(params):
                pre.append(a)
                h = np.maximum(a, 0)
                acts.append(h)
            else:
                h = a
        shifted = h - h.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        probs = exp / exp.sum(axis=1, keepdims=True)
        g = probs
        g[rows, y] -= 1
        g /= len(y)
        grads.clear()
        for i in range(len(params) - 2, -1, -2):
            grads[:0] = [g.T @ acts[i // 2], g.sum(0)]
            if i:
                g = g @ params[i]
                g *= pre[i // 2 - 1] > 0

    def update() -> None:
        for p, g in zip(params, grads, strict=True):
            p -= LR * g

    return Mlp(forward_backward, update, lambda: grads, grads.clear)


def torch_like_mlp(
    m: ModuleType, params_np: list[np.ndarray], x_np: np.ndarray, y_np: np.ndarray
) -> Mlp:
    """PyTorch and chainrule: the same code."""
    f = m.nn.functional
    params = [m.from_numpy(p.copy()).requires_grad_() for p in params_np]
    x, y = m.from_numpy(x_np), m.from_numpy(y_np)
    optimizer = m.optim.SGD(params, lr=LR)

    def forward_backward() -> None:
        optimizer.zero_grad()
        h = x
        for i in range(0, len(params), 2):
            h = f.linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = f.relu(h)
        f.cross_entropy(h, y).backward()

    def grads() -> list[np.ndarray]:
        return [p.grad.numpy() for p in params]

    return Mlp(forward_backward, optimizer.step, grads, optimizer.zero_grad)


def autograd_mlp(m: ModuleType, params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> Mlp:
    anp = m.numpy
    rows = np.arange(len(y))

    def loss(ps: list[np.ndarray]) -> np.ndarray:
        h = x
        for i in range(0, len(ps), 2):
            h = anp.dot(h, ps[i].T) + ps[i + 1]
            if i + 2 < len(ps):
                h = anp.maximum(h, 0)
        shifted = h - anp.max(h, axis=1, keepdims=True)
        log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.mean(log_probs[rows, y])

    loss_grad = m.grad(loss)
    grads: list[np.ndarray] = []

    def forward_backward() -> None:
        grads[:] = loss_grad(params)

    def update() -> None:
        for p, g in zip(params, grads, strict=True):
            p -= LR * g

    return Mlp(forward_backward, update, lambda: grads, grads.clear)


def mygrad_mlp(m: ModuleType, params_np: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> Mlp:
    params = [m.tensor(p.copy()) for p in params_np]

    def clear_grads() -> None:
        for p in params:
            p.null_grad()

    def forward_backward() -> None:
        clear_grads()
        h = x
        for i in range(0, len(params), 2):
            h = m.matmul(h, params[i].T) + params[i + 1]
            if i + 2 < len(params):
                h = m.nnet.relu(h)
        m.nnet.softmax_crossentropy(h, y).backward()

    def update() -> None:
        for p in params:
            p.data -= LR * p.grad

    def grads() -> list[np.ndarray]:
        return [np.asarray(p.grad) for p in params]

    return Mlp(forward_backward, update, grads, clear_grads)


def make_mlp(
    key: str, module: ModuleType, data: tuple[list[np.ndarray], np.ndarray, np.ndarray]
) -> Mlp:
    """One library's MLP on its own copy of the parameters."""
    params, x, y = data
    params = [p.copy() for p in params]
    if key == "numpy":
        return numpy_mlp(params, x, y)
    if key == "autograd":
        return autograd_mlp(module, params, x, y)
    if key == "mygrad":
        return mygrad_mlp(module, params, x, y)
    return torch_like_mlp(module, params, x, y)
