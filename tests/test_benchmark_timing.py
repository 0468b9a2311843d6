"""The benchmarks' one timing helper: turns alternate, and medians come from each
function's own runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "timing", Path(__file__).parent.parent / "benchmarks" / "timing.py"
)
assert _spec is not None and _spec.loader is not None
timing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(timing)


def test_order_flips_every_round_after_one_warm_up_each() -> None:
    calls: list[str] = []
    fns = [lambda: calls.append("a"), lambda: calls.append("b"), lambda: calls.append("c")]
    timing.median_times(fns, repeat=3, clock=lambda: 0.0)
    assert "".join(calls) == "abc" + "abc" + "cba" + "abc"


def test_medians_are_each_functions_own() -> None:
    now = [0.0]
    cost = {"slow": 3.0, "fast": 1.0}

    def run(name: str) -> None:
        now[0] += cost[name]
        cost[name] += 0.5  # every run a little slower: the median is the middle run's

    fns = [lambda: run("slow"), lambda: run("fast")]
    slow, fast = timing.median_times(fns, repeat=5, clock=lambda: now[0])
    # Warm-ups took 3.0 and 1.0; the timed runs then cost 3.5 ... 5.5 and 1.5 ... 3.5.
    assert (slow, fast) == (4.5, 2.5)


def test_self_timed_functions_give_their_own_seconds_in_the_same_turns() -> None:
    """A run in another process reports the time it measured: that is what is kept, in
    the same flipping order, and the caller's clock is never read."""
    calls: list[str] = []

    def worker(name: str, seconds: float) -> float:
        calls.append(name)
        return seconds

    def clock() -> float:
        raise AssertionError("a self-timed run must not be timed from outside")

    fns = [lambda: worker("a", 2.0), lambda: worker("b", 1.0)]
    times = timing.turn_times(fns, 3, clock, self_timed=True)
    assert "".join(calls) == "ab" + "ab" + "ba" + "ab"
    assert times == [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]
