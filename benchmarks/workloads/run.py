"""One run of the workloads: every library's version of each, checked, then timed in turns.

Before timing, each library's result (gradients, HVP) is checked against NumPy by hand
or the closed form, so the table never compares different computations. Timing uses
`timing.turn_times` (libraries take turns, the order flipping every round); the
figures are medians. The chains (W1, W3) run in a process per library, the processes
taking turns the same way (`apart.py`). The memory figures come from fresh processes
(`memory.py`), the import times from fresh interpreters (`imports.py`).
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from timing import CLOCKS, turn_times

from workloads import apart, hvp, imports, memory, mlp
from workloads.libraries import Library, chainrule_root, version_of
from workloads.table import Results, Sizes

WORKLOADS = ("W1", "W2", "W3", "W4", "W5", "W6")


@dataclass
class Plan:
    sizes: Sizes
    rounds: dict[str, int] = field(default_factory=dict)  # timed turns per workload
    probes: int = 3  # fresh processes per memory figure (median)
    import_runs: int = 10


FULL = Plan(Sizes(), {"W1": 31, "W2": 31, "W3": 5, "W4": 101}, probes=3, import_runs=10)
QUICK = Plan(
    Sizes(w1_ops=40, w3_ops=2000, mlp=(64, 32, 32, 10), batch=16, hvp_n=50),
    {"W1": 3, "W2": 3, "W3": 3, "W4": 3},
    probes=1,
    import_runs=1,
)


def _check(what: str, key: str, got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    """A library's result agrees with the reference, relative to the reference's size."""
    scale = float(np.abs(want).max()) or 1.0
    error = float(np.abs(np.asarray(got, dtype=np.float64) - want).max()) / scale
    if not error <= rtol:
        raise AssertionError(f"{what}: {key} is off by {error:.3g} (relative), over {rtol}")


def _medians(fns: list[Callable[[], object]], rounds: int, clock: str) -> list[float]:
    return [statistics.median(ts) for ts in turn_times(fns, rounds, CLOCKS[clock])]


def chain_figures(
    libs: dict[str, Library], ops: int, ndim: int, plan: Plan, name: str, clock: str
) -> dict[str, float]:
    """Median seconds of the chain's forward and backward, per library, each library
    timed in a process of its own (see `apart`)."""
    errors, times = apart.chain_times(list(libs), ops, ndim, plan.rounds[name], clock)
    for key, error in errors.items():
        if not error <= 1e-9:
            raise AssertionError(f"{name}: {key} is off by {error:.3g} (relative), over 1e-09")
    return {key: statistics.median(ts) for key, ts in times.items()}


def mlp_figures(libs: dict[str, Library], dtype: type, plan: Plan, clock: str) -> dict[str, float]:
    """Median ms of one training step, per library."""
    data = mlp.make_data(dtype, plan.sizes.mlp, plan.sizes.batch)
    models = {key: mlp.make_mlp(key, lib.module, data) for key, lib in libs.items()}
    reference = mlp.make_mlp("numpy", np, data)
    reference.forward_backward()
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    for key, model in models.items():
        model.forward_backward()
        for got, want in zip(model.grads(), reference.grads(), strict=True):
            _check(f"W2 {np.dtype(dtype).name} gradients", key, got, want, rtol)
    times = _medians([model.step for model in models.values()], plan.rounds["W2"], clock)
    return {key: t * 1e3 for key, t in zip(models, times, strict=True)}


def hvp_figures(libs: dict[str, Library], plan: Plan, clock: str) -> dict[str, float]:
    """Median ms of one Hessian-vector product, per library that has double backward."""
    inputs = hvp.make_inputs(plan.sizes.hvp_n, np.float64)
    want = hvp.hvp_reference(inputs)
    runs = {
        key: hvp.hvp_run(key, lib.module, inputs)
        for key, lib in libs.items()
        if key in hvp.LIBRARIES
    }
    for key, run in runs.items():
        _check("W4", key, run(), want, 1e-10)
    times = _medians(list(runs.values()), plan.rounds["W4"], clock)
    return {key: t * 1e3 for key, t in zip(runs, times, strict=True)}


def _probe(key: str, what: str, probes: int, *args: int) -> tuple[float, float | None]:
    """Median of a memory figure over fresh processes: (RSS, tracemalloc or None)."""
    found = [memory.measure(key, what, *args) for _ in range(probes)]
    rss = statistics.median(float(f["rss"] or 0.0) for f in found)
    traced = [f["traced"] for f in found if f["traced"] is not None]
    return rss, statistics.median(traced) if traced else None


def run(
    libs: dict[str, Library], absent: dict[str, str], plan: Plan, only: set[str], clock: str
) -> Results:
    results = Results(plan.sizes, absent)
    sizes = plan.sizes
    if "W1" in only:
        seconds = chain_figures(libs, sizes.w1_ops, 1, plan, "W1", clock)
        results.w1_us = {key: t / sizes.w1_ops * 1e6 for key, t in seconds.items()}
    if "W3" in only:
        results.w3_s = chain_figures(libs, sizes.w3_ops, 0, plan, "W3", clock)
    if "W2" in only:
        for dtype in (np.float32, np.float64):
            results.w2_ms[np.dtype(dtype).name] = mlp_figures(libs, dtype, plan, clock)
    if "W4" in only:
        results.w4_ms = hvp_figures(libs, plan, clock)
    if "W5" in only:
        times = imports.import_times(list(libs), plan.import_runs, clock)
        results.w5_no_pyc_ms = times.pop(imports.NO_PYC, None)
        results.w5_ms = times
    if memory.available():
        for key in libs:
            if "W3" in only:
                rss, traced = _probe(key, "node_bytes", plan.probes, sizes.w3_ops // 4)
                results.w3_node_rss[key] = rss
                if traced is not None:
                    results.w3_node_traced[key] = traced
            if "W6" in only:
                rss, traced = _probe(key, "step_peak", plan.probes, sizes.batch, *sizes.mlp)
                results.w6_rss[key] = rss
                if traced is not None:
                    results.w6_traced[key] = traced
    return results


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _commit() -> str:
    root = chainrule_root()
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out


def run_line(clock: str, plan: Plan, load_before: tuple[float, ...]) -> str:
    """The date, machine, versions and load of the run, for the README."""
    versions = ", ".join(
        f"{name} {version_of(key) or 'not installed'}"
        for key, name in (
            ("numpy", "NumPy"),
            ("torch", "PyTorch"),
            ("autograd", "autograd"),
            ("mygrad", "MyGrad"),
        )
    )
    load_after = os.getloadavg()
    clock_text = "CPU time of the process" if clock == "cpu" else "wall time"
    return (
        f"Run of {datetime.date.today().isoformat()} at chainrule {_commit()}: "
        f"{_cpu_name()}, {os.cpu_count()} cores, {platform.system()}, "
        f"Python {platform.python_version()}, {versions}; one thread each. "
        f"Load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after. "
        f"Times: {clock_text}, medians of {plan.rounds.get('W1')} (W1, W2), "
        f"{plan.rounds.get('W3')} (W3), {plan.rounds.get('W4')} (W4) turns and "
        f"{plan.import_runs} interpreter starts (W5); memory: RSS, medians of "
        f"{plan.probes} fresh processes."
    ) + (" Quick mode: tiny sizes, not for comparing." if plan is QUICK else "")
