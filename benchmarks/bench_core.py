"""Core-engine benchmark: chainrule against PyTorch in the same run, one thread each.

    python benchmarks/bench_core.py [--repeat N]

Prints a Markdown table of median times and the chainrule/torch ratio (lower is
better). Ratios, not absolute times, are what to compare across machines.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from types import ModuleType

# One thread for every library, so the comparison is like for like.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from timing import median_times  # noqa: E402

import chainrule  # noqa: E402


def chain(m: ModuleType, n: int = 20_000) -> None:
    """Many tiny ops: the per-op overhead of recording and of backward."""
    x = m.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0000001 + 0.0
    y.backward()


def mlp(m: ModuleType, inputs: tuple[np.ndarray, ...]) -> None:
    """A 784-256-10 tanh MLP forward and backward on a batch of 64."""
    x_np, w1_np, w2_np, y_np = inputs
    x, target = m.from_numpy(x_np), m.from_numpy(y_np)
    w1 = m.from_numpy(w1_np.copy()).requires_grad_()
    w2 = m.from_numpy(w2_np.copy()).requires_grad_()
    h = (x @ w1).tanh()
    loss = ((h @ w2 - target) ** 2).mean()
    loss.backward()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None  # type: ignore[assignment]

    rng = np.random.default_rng(0)
    mlp_inputs = (
        rng.standard_normal((64, 784)).astype(np.float32),
        (rng.standard_normal((784, 256)) * 0.05).astype(np.float32),
        (rng.standard_normal((256, 10)) * 0.05).astype(np.float32),
        rng.standard_normal((64, 10)).astype(np.float32),
    )
    cases: list[tuple[str, Callable[[ModuleType], None]]] = [
        ("chain of 40,000 scalar ops, forward + backward", chain),
        ("MLP 784-256-10, batch 64, forward + backward", lambda m: mlp(m, mlp_inputs)),
    ]
    print("| benchmark | chainrule | torch | ratio |")
    print("|---|---:|---:|---:|")
    for name, case in cases:
        libs = [chainrule] if torch is None else [chainrule, torch]
        times = median_times([lambda case=case, m=m: case(m) for m in libs], args.repeat)
        if torch is None:
            print(f"| {name} | {times[0] * 1e3:.2f} ms | n/a | n/a |")
            continue
        ours, theirs = times
        print(f"| {name} | {ours * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | {ours / theirs:.2f}x |")


if __name__ == "__main__":
    main()
