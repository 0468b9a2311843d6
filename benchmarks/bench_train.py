"""Training-step benchmark: idiomatic `nn`/`optim` code against NumPy by hand and PyTorch.

    python benchmarks/bench_train.py [--repeat N] [--only NAME ...]

Each workload is one training step (forward, loss, backward, optimizer step) written
as a PyTorch user writes it, run with chainrule and with PyTorch (one thread each),
taking turns in one run (`timing.py`):

- mlp: 784-512-512-10 with ReLU, cross-entropy, SGD with momentum, batch 128, float32;
  also the same step written by hand in NumPy (the floor), and in chainrule with
  `nn.functional` and a hand-written update (what `nn` and `optim` must not slow down);
- lstm: a 2-layer LSTM (input 32, hidden 64) over 20 steps, batch 16, a linear head,
  Adam;
- transformer: a 2-layer TransformerEncoder (d_model 64, 4 heads, feed-forward 128,
  dropout 0), sequence 16, batch 8, a linear head, AdamW.

Prints a Markdown table of median times and ratios (lower is better).
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

# One thread for every library, so the comparison is like for like.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from timing import median_times  # noqa: E402

import chainrule  # noqa: E402

Step = Callable[[], object]


# --- the MLP ---------------------------------------------------------------------------

MLP_SIZES, MLP_BATCH = (784, 512, 512, 10), 128


def mlp_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    return x, rng.integers(0, MLP_SIZES[-1], MLP_BATCH)


def mlp_step(m: ModuleType) -> Step:
    """The idiomatic step: nn.Sequential, nn.CrossEntropyLoss, optim.SGD."""
    m.manual_seed(0)
    nn = m.nn
    model = nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = m.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x_np, y_np = mlp_data()
    x, y = m.from_numpy(x_np), m.from_numpy(y_np)

    def step() -> object:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def mlp_functional_step(m: ModuleType) -> Step:
    """The same step with nn.functional and a hand-written momentum update."""
    m.manual_seed(0)
    layers = [m.nn.Linear(a, b) for a, b in itertools.pairwise(MLP_SIZES)]
    params = [p.detach().clone().requires_grad_() for layer in layers for p in layer.parameters()]
    buffers = [m.zeros_like(p) for p in params]
    f = m.nn.functional
    x_np, y_np = mlp_data()
    x, y = m.from_numpy(x_np), m.from_numpy(y_np)

    def step() -> object:
        w1, b1, w2, b2, w3, b3 = params
        h = f.relu(f.linear(x, w1, b1))
        h = f.relu(f.linear(h, w2, b2))
        loss = f.cross_entropy(f.linear(h, w3, b3), y)
        loss.backward()
        with m.no_grad():
            for p, buf in zip(params, buffers, strict=True):
                buf.mul_(0.9).add_(p.grad)
                p.add_(buf, alpha=-0.01)
                p.grad = None
        return loss

    return step


def mlp_numpy_step() -> Step:
    """The same step by hand in NumPy: the floor for any NumPy-based library."""
    rng = np.random.default_rng(0)
    weights = [
        (rng.uniform(-1, 1, (b, a)) / np.sqrt(a)).astype(np.float32)
        for a, b in itertools.pairwise(MLP_SIZES)
    ]
    biases = [np.zeros(b, np.float32) for b in MLP_SIZES[1:]]
    params = [p for pair in zip(weights, biases, strict=True) for p in pair]
    velocity = [np.zeros_like(p) for p in params]
    x, y = mlp_data()
    rows = np.arange(MLP_BATCH)

    def step() -> object:
        w1, b1, w2, b2, w3, b3 = params
        a1 = x @ w1.T + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2.T + b2
        h2 = np.maximum(a2, 0)
        logits = h2 @ w3.T + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        probs = exp / exp.sum(axis=1, keepdims=True)
        loss = -np.log(probs[rows, y]).mean()
        g3 = probs
        g3[rows, y] -= 1
        g3 /= MLP_BATCH
        g_h2 = (g3 @ w3) * (a2 > 0)
        g_h1 = (g_h2 @ w2) * (a1 > 0)
        grads = [g_h1.T @ x, g_h1.sum(0), g_h2.T @ h1, g_h2.sum(0), g3.T @ h2, g3.sum(0)]
        for p, v, g in zip(params, velocity, grads, strict=True):
            v *= 0.9
            v += g
            p -= 0.01 * v
        return loss

    return step


# --- the LSTM and the transformer encoder ----------------------------------------------


def lstm_step(m: ModuleType) -> Step:
    m.manual_seed(0)
    nn = m.nn
    lstm, head = nn.LSTM(32, 64, num_layers=2, batch_first=True), nn.Linear(64, 10)
    params = [*lstm.parameters(), *head.parameters()]
    optimizer = m.optim.Adam(params, lr=1e-3)
    rng = np.random.default_rng(0)
    x = m.from_numpy(rng.standard_normal((16, 20, 32)).astype(np.float32))
    y = m.from_numpy(rng.integers(0, 10, 16))

    def step() -> object:
        optimizer.zero_grad()
        out, _ = lstm(x)
        loss = nn.functional.cross_entropy(head(out[:, -1]), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def transformer_step(m: ModuleType) -> Step:
    m.manual_seed(0)
    nn = m.nn
    layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, dropout=0.0, batch_first=True)
    encoder, head = nn.TransformerEncoder(layer, num_layers=2), nn.Linear(64, 10)
    params = [*encoder.parameters(), *head.parameters()]
    optimizer = m.optim.AdamW(params, lr=1e-3)
    rng = np.random.default_rng(0)
    x = m.from_numpy(rng.standard_normal((8, 16, 64)).astype(np.float32))
    y = m.from_numpy(rng.integers(0, 10, 8))

    def step() -> object:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(head(encoder(x).mean(dim=1)), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


WORKLOADS: dict[str, Callable[[ModuleType], Step]] = {
    "mlp": mlp_step,
    "lstm": lstm_step,
    "transformer": transformer_step,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--only", nargs="*", choices=sorted(WORKLOADS), default=None)
    args = parser.parse_args()
    torch: Any
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    header = ["training step", "chainrule", "torch", "NumPy by hand", "chainrule / torch"]
    print("| " + " | ".join([*header, "chainrule / NumPy"]) + " |")
    print("|---|---|---|---|---|---|")
    for name in args.only or list(WORKLOADS):
        fns = [WORKLOADS[name](chainrule)]
        if torch is not None:
            fns.append(WORKLOADS[name](torch))
        if name == "mlp":
            fns += [mlp_numpy_step(), mlp_functional_step(chainrule)]
        times = median_times(fns, args.repeat)
        ours = times[0]
        torch_time = times[1] if torch is not None else None
        numpy_time = times[-2] if name == "mlp" else None
        cells = [
            f"{ours * 1e3:.2f} ms",
            f"{torch_time * 1e3:.2f} ms" if torch_time else "-",
            f"{numpy_time * 1e3:.2f} ms" if numpy_time else "-",
            f"{ours / torch_time:.2f}x" if torch_time else "-",
            f"{ours / numpy_time:.2f}x" if numpy_time else "-",
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
        if name == "mlp":
            functional = times[-1]
            print(
                f"| mlp, `nn.functional` and a hand-written update | {functional * 1e3:.2f} ms "
                f"| - | - | - | {functional / numpy_time:.2f}x |"
            )


if __name__ == "__main__":
    main()
