"""W1 and W3: a chain of tiny ops, forward and backward, where per-op overhead decides.

The chain repeats `y * C, y + D, tanh, sin` (four ops per round) on float64, from a
(16,) vector for W1 and a 0-d tensor for W3, then runs backward with a gradient of
ones. The constants are Python floats, as a user writes them. Each function returned
by `chain_run` does one forward and backward and returns d(sum y)/dx as an array.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np

# Near 1 and 0, so that after 100,000 ops the values and gradients are still normal
# floats (a faster-shrinking gradient would turn subnormal, and slow, on some CPUs).
C, D = 1.001, 1e-4
OPS_PER_ROUND = 4

Run = Callable[[], np.ndarray]


def numpy_run(x: np.ndarray, rounds: int) -> Run:
    """The chain and its backward by hand: the floor for any library on NumPy."""

    def run() -> np.ndarray:
        saved = []
        y = x
        for _ in range(rounds):
            y = y * C
            y = y + D
            t = np.tanh(y)
            saved.append(t)
            y = np.sin(t)
        g = np.ones_like(x)
        for t in reversed(saved):
            g = g * np.cos(t)
            g = g * (1 - t * t)
            g = g * C
        return np.asarray(g)

    return run


def torch_like_run(m: ModuleType, x_np: np.ndarray, rounds: int) -> Run:
    """PyTorch and chainrule: the same code."""
    x = m.from_numpy(x_np.copy()).requires_grad_()
    ones = m.ones_like(x)

    def run() -> np.ndarray:
        x.grad = None
        y = x
        for _ in range(rounds):
            y = y * C
            y = y + D
            y = y.tanh()
            y = y.sin()
        y.backward(ones)
        return np.asarray(x.grad.numpy())

    return run


def autograd_run(m: ModuleType, x_np: np.ndarray, rounds: int) -> Run:
    """HIPS autograd traces the function while make_vjp runs it."""
    anp = m.numpy

    def chain(x: np.ndarray) -> np.ndarray:
        y = x
        for _ in range(rounds):
            y = y * C
            y = y + D
            y = anp.tanh(y)
            y = anp.sin(y)
        return y

    ones = np.ones_like(x_np)

    def run() -> np.ndarray:
        vjp, _ = m.make_vjp(chain)(x_np)
        return np.asarray(vjp(ones))

    return run


def mygrad_run(m: ModuleType, x_np: np.ndarray, rounds: int) -> Run:
    ones = np.ones_like(x_np)

    def run() -> np.ndarray:
        x = m.tensor(x_np)
        y = x
        for _ in range(rounds):
            y = y * C
            y = y + D
            y = m.tanh(y)
            y = m.sin(y)
        y.backward(ones)
        return np.asarray(x.grad)

    return run


def chain_run(key: str, module: ModuleType, x_np: np.ndarray, rounds: int) -> Run:
    """One library's forward-and-backward of the chain on x_np."""
    if key == "numpy":
        return numpy_run(x_np, rounds)
    if key == "autograd":
        return autograd_run(module, x_np, rounds)
    if key == "mygrad":
        return mygrad_run(module, x_np, rounds)
    return torch_like_run(module, x_np, rounds)


def chain_graph(key: str, module: ModuleType, x_np: np.ndarray, rounds: int) -> object:
    """The chain's forward only, returning what keeps its recorded graph alive
    (the memory probe measures it)."""
    if key == "numpy":
        saved, y = [], x_np
        for _ in range(rounds):
            t = np.tanh(y * C + D)
            saved.append(t)
            y = np.sin(t)
        return saved
    if key == "autograd":
        anp = module.numpy

        def chain(x: np.ndarray) -> np.ndarray:
            for _ in range(rounds):
                x = anp.sin(anp.tanh(x * C + D))
            return x

        return module.make_vjp(chain)(x_np)
    x = module.tensor(x_np) if key == "mygrad" else module.tensor(x_np, requires_grad=True)
    y = x
    for _ in range(rounds):
        y = (y * C + D).tanh().sin() if key != "mygrad" else module.sin(module.tanh(y * C + D))
    return y


def sample_input(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(0).uniform(-1, 1, shape)
