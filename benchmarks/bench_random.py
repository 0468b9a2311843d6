"""Random-number benchmark: chainrule's PyTorch-exact samplers against NumPy's own and PyTorch's.

    python benchmarks/bench_random.py [--repeat N] [--n N]

chainrule draws PyTorch's stream (MT19937 and PyTorch's transforms, bit for bit); NumPy's
Generator draws its own (PCG64 and the ziggurat), the natural baseline for "NumPy speed".
Prints a Markdown table of median times and the chainrule/NumPy ratio (the target for
randn is at most 3.0x), and checks first that chainrule's numbers are PyTorch's.
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

Workload = tuple[str, Callable[[ModuleType], object], Callable[[np.random.Generator], object]]


def workloads(n: int) -> list[Workload]:
    """(name, the call in chainrule or torch, NumPy's nearest equivalent)."""
    return [
        ("randn float32", lambda m: m.randn(n), lambda g: g.standard_normal(n, np.float32)),
        (
            "randn float64",
            lambda m: m.randn(n, dtype=m.float64),
            lambda g: g.standard_normal(n),
        ),
        ("rand float32", lambda m: m.rand(n), lambda g: g.random(n, np.float32)),
        ("randint [0, 1000)", lambda m: m.randint(0, 1000, (n,)), lambda g: g.integers(0, 1000, n)),
        (
            "normal_(2, 0.5) float32",
            lambda m: m.empty(n).normal_(2, 0.5),
            lambda g: g.normal(2, 0.5, n).astype(np.float32),
        ),
        (
            "bernoulli_(0.3) float32",
            lambda m: m.empty(n).bernoulli_(0.3),
            lambda g: (g.random(n) < 0.3).astype(np.float32),
        ),
        ("randperm", lambda m: m.randperm(n), lambda g: g.permutation(n)),
    ]


def check_same_stream(torch: ModuleType | None) -> None:
    if torch is None:
        return
    for dtype in ("float32", "float64"):
        torch.manual_seed(1)
        chainrule.manual_seed(1)
        expected = torch.randn(10_000, dtype=getattr(torch, dtype)).numpy()
        got = chainrule.randn(10_000, dtype=getattr(chainrule, dtype)).numpy()
        if not np.array_equal(expected, got):
            raise SystemExit(f"chainrule's randn ({dtype}) is not PyTorch's stream")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--n", type=int, default=1_000_000)
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    check_same_stream(torch)
    generator = np.random.default_rng(0)
    print(f"| {args.n:,} values | chainrule | NumPy | torch | chainrule / NumPy |")
    print("|---|---|---|---|---|")
    for name, call, numpy_call in workloads(args.n):
        fns: list[Callable[[], object]] = [
            lambda call=call: call(chainrule),
            lambda numpy_call=numpy_call: numpy_call(generator),
        ]
        if torch is not None:
            fns.append(lambda call=call: call(torch))
        repeat = max(3, args.repeat // 3) if name == "randperm" else args.repeat
        times = median_times(fns, repeat)
        ours, numpy_time = times[0], times[1]
        torch_cell = f"{times[2] * 1e3:.1f} ms" if torch is not None else "-"
        print(
            f"| {name} | {ours * 1e3:.1f} ms | {numpy_time * 1e3:.1f} ms | {torch_cell} "
            f"| {ours / numpy_time:.2f}x |"
        )


if __name__ == "__main__":
    main()
