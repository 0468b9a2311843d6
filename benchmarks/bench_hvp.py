"""Hessian-vector product benchmark: chainrule against PyTorch in the same run, one thread each.

    python benchmarks/bench_hvp.py [--repeat N] [--n N [N ...]]

The HVP of f(x) = sum(tanh(W x)^2) by double backward:
g = autograd.grad(f, x, create_graph=True)[0]; hv = autograd.grad(g, x, v)[0].
Prints a Markdown table of median times and the chainrule/torch ratio (lower is
better; the target is at most 1.0x), after checking that the two HVPs agree.
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

Inputs = tuple[np.ndarray, np.ndarray, np.ndarray]


def hvp(m: ModuleType, inputs: Inputs) -> np.ndarray:
    """H v for f(x) = sum(tanh(W x)^2), by double backward; returns it as an array."""
    w_np, x_np, v_np = inputs
    w = m.from_numpy(w_np)
    x = m.from_numpy(x_np.copy()).requires_grad_()
    v = m.from_numpy(v_np)
    f = ((w @ x).tanh() ** 2).sum()
    (g,) = m.autograd.grad(f, x, create_graph=True)
    (hv,) = m.autograd.grad(g, x, v)
    return hv.numpy()


def hvp_reference(inputs: Inputs) -> np.ndarray:
    """The closed form, in float64: H = W^T diag(2 (1 - t^2)(1 - 3 t^2)) W with t = tanh(W x)."""
    w, x, v = (a.astype(np.float64) for a in inputs)
    t = np.tanh(w @ x)
    return w.T @ (2 * (1 - t**2) * (1 - 3 * t**2) * (w @ v))


def make_inputs(n: int, dtype: type) -> Inputs:
    rng = np.random.default_rng(0)
    return (
        (rng.standard_normal((n, n)) / np.sqrt(n)).astype(dtype),
        rng.standard_normal(n).astype(dtype),
        rng.standard_normal(n).astype(dtype),
    )


def check_agreement(inputs: Inputs, torch: ModuleType | None) -> None:
    """chainrule's HVP matches the closed form, and torch's when it is there."""
    ours = hvp(chainrule, inputs)
    tol = 1e-10 if inputs[0].dtype == np.float64 else 1e-4
    ref = hvp_reference(inputs)
    scale = np.abs(ref).max()
    assert np.abs(ours - ref).max() <= tol * scale, "chainrule HVP disagrees with closed form"
    if torch is not None:
        theirs = hvp(torch, inputs)
        assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
        assert np.abs(ours - theirs).max() <= tol * scale, "chainrule and torch HVPs disagree"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=201)
    parser.add_argument("--n", type=int, nargs="+", default=[1000])
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None  # type: ignore[assignment]

    print("| benchmark | chainrule | torch | ratio |")
    print("|---|---:|---:|---:|")
    for n in args.n:
        for dtype in (np.float64, np.float32):
            inputs = make_inputs(n, dtype)
            check_agreement(inputs, torch)
            name = f"Hessian-vector product, n = {n} ({np.dtype(dtype).name})"
            libs = [chainrule] if torch is None else [chainrule, torch]
            fns: list[Callable[[], object]] = [
                lambda m=m, inputs=inputs: hvp(m, inputs) for m in libs
            ]
            times = median_times(fns, args.repeat)
            if torch is None:
                print(f"| {name} | {times[0] * 1e3:.2f} ms | n/a | n/a |")
                continue
            ours, theirs = times
            print(
                f"| {name} | {ours * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | {ours / theirs:.2f}x |"
            )


if __name__ == "__main__":
    main()
