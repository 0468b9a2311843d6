"""CNN benchmark: one training step of a small convnet, chainrule against PyTorch, one thread each.

    python benchmarks/bench_cnn.py [--repeat N] [--wall] [--profile]

The step: conv 1->8 3x3, relu, max_pool 2, conv 8->16 3x3, relu, max_pool 2,
flatten, linear to 10, cross-entropy on a batch of 64 images 1x28x28 (float32);
forward, backward and a hand-written SGD update. Prints a Markdown table of
median times (CPU time of the process, or wall time with `--wall`) and the
chainrule/torch ratio (lower is better). `--profile` runs chainrule's step under
cProfile and prints the top functions instead.
"""

from __future__ import annotations

import argparse
import os
import time
from types import ModuleType
from typing import Any

# One thread for every library, so the comparison is like for like.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from timing import median_times  # noqa: E402

import chainrule  # noqa: E402

BATCH, CLASSES, LR = 64, 10, 0.05


def make_data(seed: int = 0) -> dict[str, np.ndarray]:
    """Images, labels and initial parameters (the same arrays for both libraries)."""
    rng = np.random.default_rng(seed)

    def uniform(shape: tuple[int, ...], fan_in: int) -> np.ndarray:
        bound = 1 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    return {
        "x": rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32),
        "y": rng.integers(0, CLASSES, BATCH).astype(np.int64),
        "w1": uniform((8, 1, 3, 3), 9),
        "b1": uniform((8,), 9),
        "w2": uniform((16, 8, 3, 3), 72),
        "b2": uniform((16,), 72),
        "w3": uniform((CLASSES, 16 * 5 * 5), 400),
        "b3": uniform((CLASSES,), 400),
    }


def linear(m: ModuleType, x: Any, w: Any, b: Any) -> Any:
    """`F.linear` where the library has it, else `x @ w.t() + b`."""
    if hasattr(m.nn.functional, "linear"):
        return m.nn.functional.linear(x, w, b)
    return x @ w.t() + b


def cross_entropy(m: ModuleType, logits: Any, target: Any) -> Any:
    """`F.cross_entropy` where the library has it, else a max-shifted log-softmax.

    The shift is a constant (it cancels in the log-softmax, so no gradient flows
    through it); the picked log-probabilities are read with an index.
    """
    if hasattr(m.nn.functional, "cross_entropy"):
        return m.nn.functional.cross_entropy(logits, target)
    shift = m.from_numpy(logits.detach().numpy().max(axis=1, keepdims=True))
    shifted = logits - shift
    log_probs = shifted - shifted.exp().sum(1, keepdim=True).log()
    return -log_probs[m.arange(logits.shape[0]), target].mean()


def train_step(m: ModuleType, x: Any, y: Any, params: list[Any]) -> float:
    """Forward, backward and an SGD update of `params` (w1, b1, w2, b2, w3, b3) in place."""
    F = m.nn.functional
    w1, b1, w2, b2, w3, b3 = params
    h = F.max_pool2d(F.conv2d(x, w1, b1).relu(), 2)
    h = F.max_pool2d(F.conv2d(h, w2, b2).relu(), 2)
    logits = linear(m, h.flatten(1), w3, b3)
    loss = cross_entropy(m, logits, y)
    loss.backward()
    with m.no_grad():
        for p in params:
            p -= LR * p.grad
            p.grad = None
    return float(loss.detach())


def setup(m: ModuleType, data: dict[str, np.ndarray]) -> tuple[Any, Any, list[Any]]:
    x, y = m.from_numpy(data["x"]), m.from_numpy(data["y"])
    names = ("w1", "b1", "w2", "b2", "w3", "b3")
    params = [m.from_numpy(data[k].copy()).requires_grad_() for k in names]
    return x, y, params


def profile(data: dict[str, np.ndarray], steps: int) -> None:
    import cProfile
    import pstats

    x, y, params = setup(chainrule, data)
    train_step(chainrule, x, y, params)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        train_step(chainrule, x, y, params)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--wall", action="store_true", help="time with the wall clock instead of CPU time"
    )
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    data = make_data()
    if args.profile:
        profile(data, args.repeat)
        return
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None  # type: ignore[assignment]

    name = "CNN train step, batch 64 of 1x28x28 (conv-relu-pool x2, linear, cross-entropy)"
    x, y, params = setup(chainrule, data)
    print("| benchmark | chainrule | torch | ratio |")
    print("|---|---:|---:|---:|")
    if torch is None:
        (ours,) = median_times([lambda: train_step(chainrule, x, y, params)], args.repeat, clock)
        print(f"| {name} | {ours * 1e3:.2f} ms | n/a | n/a |")
        return
    xt, yt, params_t = setup(torch, data)
    ours, theirs = median_times(
        [lambda: train_step(chainrule, x, y, params), lambda: train_step(torch, xt, yt, params_t)],
        args.repeat,
        clock,
    )
    print(f"| {name} | {ours * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | {ours / theirs:.2f}x |")


if __name__ == "__main__":
    main()
