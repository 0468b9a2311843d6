"""Forward-mode benchmark: chainrule against PyTorch in the same run, one thread each.

    python benchmarks/bench_forward.py [--repeat N] [--n N] [--jac-in N] [--jac-out N]

Two tasks on the MLP-like map f(x) = tanh(W2 tanh(W1 x)), vector in, vector out:

1. a Jacobian-vector product J v at x (x of size n), by forward mode (dual tensors,
   `autograd.forward_ad`) and by `autograd.functional.jvp` (the double-vjp trick);
2. the full Jacobian of a map from R^jac-in to R^jac-out, by
   `autograd.functional.jacobian(strategy="forward-mode", vectorize=True)` (one
   forward pass per input; torch batches them into one with vmap, chainrule runs
   them in turn) and by reverse mode (one backward pass per output, in turn in both).

Prints a Markdown table of median times and the chainrule/torch ratio (lower is
better), after checking the results against a closed form, then the same
methods compared with each other within each library. Ratios measured in one
run, not absolute times, are what to compare across machines.
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

Weights = tuple[np.ndarray, np.ndarray]


def mlp(m: ModuleType, weights: Weights) -> Callable[[object], object]:
    """f(x) = tanh(W2 tanh(W1 x)) in library `m`."""
    w1, w2 = m.from_numpy(weights[0]), m.from_numpy(weights[1])
    return lambda x: (w2 @ (w1 @ x).tanh()).tanh()  # type: ignore[operator]


def jvp_forward_mode(m: ModuleType, weights: Weights, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """J v by one forward pass of dual tensors."""
    f = mlp(m, weights)
    fwad = m.autograd.forward_ad
    with fwad.dual_level():
        dual = fwad.make_dual(m.from_numpy(x), m.from_numpy(v))
        return fwad.unpack_dual(f(dual)).tangent.numpy()


def jvp_double_vjp(m: ModuleType, weights: Weights, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """J v by `autograd.functional.jvp`: the derivative of u -> J^T u, two backward passes."""
    f = mlp(m, weights)
    _, jv = m.autograd.functional.jvp(f, m.from_numpy(x), m.from_numpy(v))
    return jv.numpy()


def jacobian(m: ModuleType, weights: Weights, x: np.ndarray, strategy: str) -> np.ndarray:
    """The full Jacobian by `autograd.functional.jacobian` with `strategy`."""
    f = mlp(m, weights)
    vectorize = strategy == "forward-mode"  # forward mode requires it (in both libraries)
    jac = m.autograd.functional.jacobian(f, m.from_numpy(x), vectorize=vectorize, strategy=strategy)
    return jac.numpy()


def jacobian_reference(weights: Weights, x: np.ndarray) -> np.ndarray:
    """The closed form: diag(1 - y^2) W2 diag(1 - h^2) W1, h = tanh(W1 x), y = tanh(W2 h)."""
    w1, w2 = weights
    h = np.tanh(w1 @ x)
    y = np.tanh(w2 @ h)
    return (1 - y**2)[:, None] * (w2 * (1 - h**2)) @ w1


def make_weights(rng: np.random.Generator, n_in: int, hidden: int, n_out: int) -> Weights:
    return (
        rng.standard_normal((hidden, n_in)) / np.sqrt(n_in),
        rng.standard_normal((n_out, hidden)) / np.sqrt(hidden),
    )


def check(name: str, got: np.ndarray, want: np.ndarray) -> None:
    scale = max(np.abs(want).max(), 1.0)
    if np.abs(got - want).max() > 1e-10 * scale:
        raise AssertionError(f"{name} disagrees with the closed form")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--n", type=int, default=256, help="input (and output) size of the JVP")
    parser.add_argument("--jac-in", type=int, default=16)
    parser.add_argument("--jac-out", type=int, default=256)
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None  # type: ignore[assignment]
    libs = [chainrule] if torch is None else [chainrule, torch]

    rng = np.random.default_rng(0)
    jvp_weights = make_weights(rng, args.n, args.n, args.n)
    x, v = rng.standard_normal(args.n), rng.standard_normal(args.n)
    jac_weights = make_weights(rng, args.jac_in, 64, args.jac_out)
    x_jac = rng.standard_normal(args.jac_in)
    jv_want = jacobian_reference(jvp_weights, x) @ v
    jac_want = jacobian_reference(jac_weights, x_jac)

    cases: list[tuple[str, Callable[[ModuleType], np.ndarray], np.ndarray]] = [
        (
            f"JVP, n = {args.n}: forward mode (dual tensors)",
            lambda m: jvp_forward_mode(m, jvp_weights, x, v),
            jv_want,
        ),
        (
            f"JVP, n = {args.n}: functional.jvp (double vjp)",
            lambda m: jvp_double_vjp(m, jvp_weights, x, v),
            jv_want,
        ),
        (
            f"Jacobian {args.jac_in} -> {args.jac_out}: forward mode",
            lambda m: jacobian(m, jac_weights, x_jac, "forward-mode"),
            jac_want,
        ),
        (
            f"Jacobian {args.jac_in} -> {args.jac_out}: reverse mode",
            lambda m: jacobian(m, jac_weights, x_jac, "reverse-mode"),
            jac_want,
        ),
    ]
    times: dict[tuple[str, str], float] = {}
    for name, case, want in cases:
        for m in libs:
            check(f"{m.__name__}: {name}", case(m), want)
        medians = median_times([lambda case=case, m=m: case(m) for m in libs], args.repeat)
        for m, t in zip(libs, medians, strict=True):
            times[name, m.__name__] = t

    print("| benchmark (float64) | chainrule | torch | ratio |")
    print("|---|---:|---:|---:|")
    for name, _, _ in cases:
        ours = times[name, "chainrule"]
        if torch is None:
            print(f"| {name} | {ours * 1e3:.2f} ms | n/a | n/a |")
            continue
        theirs = times[name, "torch"]
        print(f"| {name} | {ours * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | {ours / theirs:.2f}x |")

    print()
    print("| within each library (time of the first / time of the second) | chainrule | torch |")
    print("|---|---:|---:|")
    pairs = ((0, 1, "JVP: forward mode / double vjp"), (2, 3, "Jacobian: forward / reverse mode"))
    for first, second, label in pairs:
        cells = [
            f"{times[cases[first][0], m.__name__] / times[cases[second][0], m.__name__]:.2f}"
            for m in libs
        ]
        if torch is None:
            cells.append("n/a")
        print(f"| {label} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
