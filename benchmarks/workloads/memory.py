"""W3's bytes per node and W6's peak, each measured in a fresh process per library.

Resident memory (RSS, Linux's /proc/self/status) is what can be compared across all
five libraries: PyTorch's tensors live in C++ allocations that tracemalloc never sees.
A fresh process keeps one library's freed memory from hiding another's growth. Before
each measurement the process collects garbage and hands freed heap pages back to the
system (glibc's malloc_trim), so what RSS then gains is what the measured code holds:

- W3: the RSS gained by recording the 100,000-op chain's forward (its graph kept alive
  for a backward), divided by the number of ops;
- W6: the peak RSS (VmHWM, reset through /proc/self/clear_refs) during one forward and
  backward of W2's float32 MLP step, minus the RSS just before it, after warm-up steps
  and with the parameters' gradients cleared, so the backward makes them anew.

For the NumPy-based libraries the same is measured with tracemalloc as a check (NumPy
reports its array buffers to it). Run as `python -m workloads.memory KEY WHAT ...`; the
harness calls `measure`, which prints and parses one line of JSON.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np

from workloads import chains, libraries, mlp

STATUS = Path("/proc/self/status")
TRACED = ("numpy", "autograd", "mygrad", "chainrule")  # tracemalloc sees all they allocate


def _status_kib(field: str) -> int:
    match = re.search(rf"^{field}:\s+(\d+) kB", STATUS.read_text(), re.MULTILINE)
    assert match is not None, field
    return int(match.group(1))


def _settle() -> None:
    """Free what is garbage and return free heap pages to the system."""
    gc.collect()
    libc_name = ctypes.util.find_library("c")
    if libc_name:
        libc = ctypes.CDLL(libc_name)
        if hasattr(libc, "malloc_trim"):
            libc.malloc_trim(0)


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def node_bytes(key: str, rounds: int) -> dict[str, float | None]:
    """Bytes per recorded op of the chain on a 0-d tensor: RSS, and tracemalloc's count."""
    module = libraries.load([key])[0][key].module
    x = chains.sample_input(())
    nodes = rounds * chains.OPS_PER_ROUND
    chains.chain_graph(key, module, x, 100)  # warm-up: first-use imports and caches
    _settle()
    before = _status_kib("VmRSS")
    graph = chains.chain_graph(key, module, x, rounds)
    _settle()
    rss = (_status_kib("VmRSS") - before) * 1024 / nodes
    del graph
    traced = None
    if key in TRACED:
        _settle()
        tracemalloc.start()
        graph = chains.chain_graph(key, module, x, rounds)
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] / nodes
        tracemalloc.stop()
        del graph
    return {"rss": rss, "traced": traced}


def step_peak(key: str, sizes: tuple[int, ...], batch: int) -> dict[str, float | None]:
    """Peak bytes above the starting point during one forward and backward of the MLP."""
    module = libraries.load([key])[0][key].module
    model = mlp.make_mlp(key, module, mlp.make_data(np.float32, sizes, batch))
    for _ in range(2):
        model.step()
    model.clear_grads()
    _settle()
    _reset_peak()
    before = _status_kib("VmRSS")
    model.forward_backward()
    rss = (_status_kib("VmHWM") - before) * 1024
    traced = None
    if key in TRACED:
        model.clear_grads()
        _settle()
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        model.forward_backward()
        traced = tracemalloc.get_traced_memory()[1] - start
        tracemalloc.stop()
    return {"rss": rss, "traced": traced}


def available() -> bool:
    """Whether this system exposes RSS and its resettable peak (Linux does)."""
    return STATUS.exists() and Path("/proc/self/clear_refs").exists()


def measure(key: str, what: str, *args: int) -> dict[str, float | None]:
    """Run one measurement in a fresh interpreter and return its figures."""
    command = [sys.executable, "-m", "workloads.memory", key, what, *map(str, args)]
    env = libraries.subprocess_env()
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    result: dict[str, float | None] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str]) -> None:
    key, what, *numbers = argv
    args = [int(n) for n in numbers]
    if what == "node_bytes":
        print(json.dumps(node_bytes(key, args[0])))
    else:
        print(json.dumps(step_peak(key, tuple(args[1:]), args[0])))


if __name__ == "__main__":
    main(sys.argv[1:])
