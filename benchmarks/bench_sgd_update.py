"""The SGD update alone (W2's `optimizer.step()`): chainrule, NumPy by hand and PyTorch.

    python benchmarks/bench_sgd_update.py [--repeat N]

Builds the MLP of workloads/mlp.py (784-512-512-10, about 670k parameters) in each
library, computes the gradients once, then times only the update, float32 and float64,
one thread, taking turns. PyTorch's `add_(grad, alpha=-lr)` rounds `p - lr * g` once (a
fused multiply-add), NumPy's `p -= lr * g` twice; chainrule must give PyTorch's bits, and
the script checks that it does after the timed steps.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

# One thread for every library, so the comparison is like for like.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from timing import median_times  # noqa: E402
from workloads.mlp import Mlp, make_data, numpy_mlp, torch_like_mlp  # noqa: E402

import chainrule  # noqa: E402


def _params(mlp: Mlp) -> list[Any]:
    """The parameters of a chainrule or PyTorch MLP (its update is the optimizer's step)."""
    step: Any = mlp.update
    return list(step.__self__.param_groups[0]["params"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        torch = None
    else:
        torch.set_num_threads(1)
    print("| dtype | chainrule ms | NumPy `p -= lr*g` ms | PyTorch ms | chainrule / NumPy |")
    print("|---|---|---|---|---|")
    for dtype in (np.float32, np.float64):
        params, x, y = make_data(dtype)
        mlps = {"numpy": numpy_mlp([p.copy() for p in params], x, y)}
        mlps["chainrule"] = torch_like_mlp(chainrule, params, x, y)
        if torch is not None:
            mlps["torch"] = torch_like_mlp(torch, params, x, y)
        for mlp in mlps.values():
            mlp.forward_backward()
        if torch is not None:
            # The same gradients for both (their matmuls may round differently).
            for p, g in zip(_params(mlps["torch"]), mlps["chainrule"].grads(), strict=True):
                p.grad.copy_(torch.from_numpy(g))
        keys = list(mlps)
        times = dict(
            zip(keys, median_times([mlps[k].update for k in keys], args.repeat), strict=True)
        )
        if torch is not None:
            # Both took the same number of steps from the same parameters and gradients.
            pairs = zip(_params(mlps["chainrule"]), _params(mlps["torch"]), strict=True)
            same = all(np.array_equal(a.detach().numpy(), b.detach().numpy()) for a, b in pairs)
            assert same, f"{np.dtype(dtype).name}: chainrule's parameters differ from PyTorch's"
        ms = {k: 1e3 * t for k, t in times.items()}
        torch_ms = f"{ms['torch']:.3f}" if "torch" in ms else "-"
        print(
            f"| {np.dtype(dtype).name} | {ms['chainrule']:.3f} | {ms['numpy']:.3f} | {torch_ms} "
            f"| {ms['chainrule'] / ms['numpy']:.1f}x |"
        )


if __name__ == "__main__":
    main()
