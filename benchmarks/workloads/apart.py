"""The chain workloads (W1, W3) timed with each library in a process of its own, the
processes taking turns.

Python's garbage collector walks, at each full collection, every container object in
the process. Libraries that record their graph as Python objects (chainrule, HIPS
autograd, MyGrad) start such collections as a long chain grows, and in a process
that has also imported PyTorch each one walks PyTorch's objects too (about 145,000),
which a program using one of these libraries does not hold. W3's 100,000-op chain
took a third longer that way. So each library runs the chains in a worker process
that imports only it (and NumPy); the coordinator asks the workers for one run each
in turn (`timing.turn_times`, after a warm-up run each), the order flipping every
round, so the machine's load still hits all alike. A worker times its own run (no pipe
in the figure) and checks its gradient against NumPy by hand before any timing.

Run as `python -m workloads.apart KEY OPS NDIM CLOCK`: the worker reads one line per
run from stdin ("run" or "stop") and answers each with its time in seconds.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
from timing import CLOCKS, turn_times

from workloads import chains, libraries


def _worker(key: str, ops: int, ndim: int, clock_name: str) -> None:
    """Set the chain up, check it, then answer each "run" with one run's time."""
    module = libraries.load([key])[0][key].module
    x = chains.sample_input((16,) * ndim)
    rounds = ops // chains.OPS_PER_ROUND
    run = chains.chain_run(key, module, x, rounds)
    want = chains.numpy_run(x, rounds)()
    got = np.asarray(run(), dtype=np.float64)  # (also the warm-up run)
    error = float(np.abs(got - want).max()) / (float(np.abs(want).max()) or 1.0)
    print(f"error {error!r}", flush=True)
    clock = CLOCKS[clock_name]
    for line in sys.stdin:
        if line.strip() != "run":
            break
        start = clock()
        run()
        print(repr(clock() - start), flush=True)


def chain_times(
    keys: list[str], ops: int, ndim: int, rounds: int, clock: str
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Each library's relative gradient error and its run times: `rounds` turns of
    `timing.turn_times`, one run of each library per turn, in a worker per library."""
    env = libraries.subprocess_env()
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "workloads.apart", key, str(ops), str(ndim), clock],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for key in keys
    ]
    try:
        errors = {key: float(_answer(w).split()[1]) for key, w in zip(keys, workers, strict=True)}
        runs = [functools.partial(_run, w) for w in workers]
        times = turn_times(runs, rounds, self_timed=True)
    finally:
        for worker in workers:
            if worker.stdin is not None:
                worker.stdin.close()
            worker.wait()
    return errors, dict(zip(keys, times, strict=True))


def _run(worker: subprocess.Popen[str]) -> float:
    """One run of the worker's chain: the seconds it measured."""
    assert worker.stdin is not None
    worker.stdin.write("run\n")
    worker.stdin.flush()
    return float(_answer(worker))


def _answer(worker: subprocess.Popen[str]) -> str:
    assert worker.stdout is not None
    line = worker.stdout.readline()
    if not line:
        raise RuntimeError(f"a timing worker stopped (exit code {worker.wait()})")
    return line.strip()


if __name__ == "__main__":
    key, ops, ndim, clock_name = sys.argv[1:]
    _worker(key, int(ops), int(ndim), clock_name)
