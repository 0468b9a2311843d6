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
