"""Seeing big graphs: the viz functions on a 100,000-op chain, against their targets.

    python benchmarks/bench_viz.py [--n N]

Each function walks the graph without recursion (the tests check that it works at this
size); this times it. Targets, in seconds for 100,000 nodes on one core: `build_graph`
10, `format_graph` 15, `to_dot` 15, `explain` of the whole backward 60.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
from collections.abc import Callable

import chainrule
from chainrule.viz import build_graph, explain, format_graph, to_dot

TARGETS = {"build_graph": 10.0, "format_graph": 15.0, "to_dot": 15.0, "explain": 60.0}


def chain(n: int) -> chainrule.Tensor:
    y = chainrule.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(n):
        y = y * 1.0
    return y


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def explained(n: int) -> None:
    x = chainrule.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0
    with contextlib.redirect_stdout(io.StringIO()), explain():
        y.backward()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    n = parser.parse_args().n
    y = chain(n)
    times = {
        "build_graph": timed(lambda: build_graph(y)),
        "format_graph": timed(lambda: format_graph(y)),
        "to_dot": timed(lambda: to_dot(y)),
        "explain": timed(lambda: explained(n)),
    }
    print(f"| {n:,}-node chain | seconds | target |")
    print("|---|---|---|")
    for name, seconds in times.items():
        target = TARGETS[name] * n / 100_000
        verdict = "holds" if seconds <= target else "not met"
        print(f"| `{name}` | {seconds:.2f} | ≤ {target:g} ({verdict}) |")


if __name__ == "__main__":
    main()
