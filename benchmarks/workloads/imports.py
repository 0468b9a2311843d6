"""W5: how long `import X` takes, in ms over a bare interpreter.

Each figure is the time of `python -c "import X"` minus that of `python -c "pass"`, the
interpreters started in turns (`timing.turn_times`), min and median over the runs. The
time is the child's CPU time (user + system) by default: on a busy machine its wall time
is mostly waiting for a core. `clock="wall"` measures wall time instead.
chainrule is imported from two fresh copies of its package: one compiled first
(`compileall`, as an installer does: "with .pyc") and one without bytecode caches
("without .pyc": every run compiles all its modules). No run writes bytecode
(PYTHONDONTWRITEBYTECODE=1); the other libraries use the caches their install wrote.
"""

from __future__ import annotations

import compileall
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from timing import turn_times

from workloads import libraries

NO_PYC = "chainrule without .pyc"


def _starter(statement: str, env: dict[str, str]) -> Callable[[], object]:
    command = [sys.executable, "-c", statement]
    return lambda: subprocess.run(command, env=env, check=True)


def children_cpu_time() -> float:
    """CPU seconds used so far by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def import_times(keys: list[str], runs: int, clock: str = "cpu") -> dict[str, tuple[float, float]]:
    """(min, median) ms over a bare interpreter for each key, and for NO_PYC when
    chainrule is among them."""
    env = libraries.subprocess_env(PYTHONDONTWRITEBYTECODE="1")
    labels = ["bare", *(key for key in keys if key != "chainrule")]
    starters = [_starter(f"import {libraries.MODULES[key]}", env) for key in labels[1:]]
    starters.insert(0, _starter("pass", env))
    root = libraries.chainrule_root()
    with tempfile.TemporaryDirectory() as fresh:
        if "chainrule" in keys and root is not None:
            for label, compiled in (("chainrule", True), (NO_PYC, False)):
                copy = Path(fresh) / label.replace(" ", "_")
                shutil.copytree(
                    root / "chainrule",
                    copy / "chainrule",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                )
                if compiled:
                    compileall.compile_dir(copy, quiet=1)
                labels.append(label)
                starters.append(_starter("import chainrule", dict(env, PYTHONPATH=str(copy))))
        timer = children_cpu_time if clock == "cpu" else time.perf_counter
        times = dict(zip(labels, turn_times(starters, runs, timer), strict=True))
    bare = times.pop("bare")
    return {
        label: (
            (min(ts) - min(bare)) * 1e3,
            (statistics.median(ts) - statistics.median(bare)) * 1e3,
        )
        for label, ts in times.items()
    }
