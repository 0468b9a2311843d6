"""The one way the benchmarks time: libraries take turns, medians are reported.

Interleaving the runs (chainrule, torch, torch, chainrule, ...) makes a change in
the machine's load hit both alike, so the ratio stays meaningful on a shared,
noisy machine even when the absolute times drift. The order flips every round,
so neither library always runs first (after the other has filled the caches).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

# The clocks a benchmark may time with, by the name its `--clock` option takes.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def turn_times(
    fns: list[Callable[[], object]],
    repeat: int,
    clock: Callable[[], float] = time.perf_counter,
    *,
    self_timed: bool = False,
) -> list[list[float]]:
    """Every timed run of each function over `repeat` rounds, one run of each per round
    (in the given order, then reversed, in turn), after one warm-up run each. With
    `self_timed`, each function returns its own run's seconds (a run in another
    process, so that asking for it is not counted) and `clock` is not used."""
    for fn in fns:
        fn()  # warm up
    times: list[list[float]] = [[] for _ in fns]
    pairs = list(zip(fns, times, strict=True))
    for round_ in range(repeat):
        for fn, ts in pairs if round_ % 2 == 0 else reversed(pairs):
            if self_timed:
                ts.append(float(fn()))  # type: ignore[arg-type]
                continue
            start = clock()
            fn()
            ts.append(clock() - start)
    return times


def median_times(
    fns: list[Callable[[], object]], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    """Median time of each function over `repeat` rounds of `turn_times`."""
    return [statistics.median(ts) for ts in turn_times(fns, repeat, clock)]
