"""Write docs/autograd.md: every public name of PyTorch's autograd, and whether chainrule has it.

    python scripts/autograd_inventory.py            # docs/autograd.md from the recorded names
    python scripts/autograd_inventory.py --record   # re-read the names from torch (needs torch)

The names are those of `torch.autograd`, its submodules and `torch.utils.checkpoint`
in PyTorch 2.13, recorded in tests/data/torch_autograd_names.json so that the
inventory (and tests/test_autograd_inventory.py) needs no torch. A module's public
names are its `__all__`, plus the names in its `dir()` that autograd itself defines
(in `torch.autograd`, `torch.utils.checkpoint` or PyTorch's C extension), plus its
upper-case constants; what a module merely imports from `typing`, the standard
library or other torch packages is not counted. A few autograd names that live
elsewhere (`torch.is_inference`, the engine behind `Variable._execution_engine`) are
listed by hand in ELSEWHERE.

Each name is either found in chainrule (the same dotted path with `chainrule` for
`torch`) or listed in LEFT_OUT with the reason it is missing.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "torch_autograd_names.json"
DOC = ROOT / "docs" / "autograd.md"
STALE = "docs/autograd.md is stale: run python scripts/autograd_inventory.py"

MODULES = (
    "torch.autograd",
    "torch.autograd.graph",
    "torch.autograd.function",
    "torch.autograd.functional",
    "torch.autograd.forward_ad",
    "torch.autograd.grad_mode",
    "torch.autograd.anomaly_mode",
    "torch.autograd.gradcheck",
    "torch.autograd.variable",
    "torch.autograd.profiler",
    "torch.utils.checkpoint",
)

# Where autograd's own definitions live; names a module imports from anywhere else are
# not its API.
_OWN_PREFIXES = ("torch.autograd", "torch._C", "torch.utils.checkpoint")

# Autograd names outside the modules above, checked one by one.
ELSEWHERE = (
    "torch.is_grad_enabled",
    "torch.is_inference",
    "torch.is_inference_mode_enabled",
    "torch.enable_grad",
    "torch.inference_mode",
    "torch.no_grad",
    "torch.set_grad_enabled",
    "torch.Tensor.is_inference",
    "torch.autograd.Variable._execution_engine",
    "torch.autograd.Variable._execution_engine.queue_callback",
    "torch.autograd.Variable._execution_engine.run_backward",
    "torch.autograd.Variable._execution_engine.is_checkpoint_valid",
)

_PROFILER = (
    "the profiler times and counts kernels (and CUDA, ITT or NVTX ranges) of PyTorch's "
    "dispatcher; chainrule has no dispatcher or kernels to profile"
)
_STREAMS = "CUDA streams and graph capture: chainrule runs on the CPU only"
_COMPILE = "torch.compile's partitioner: chainrule has no compiler"
_SELECTIVE = (
    "selective checkpointing decides per ATen operator (through TorchDispatchMode) what to "
    "save; chainrule has no operator dispatch to intercept"
)
_TORCH_FUNCTION = "the __torch_function__ protocol, which chainrule does not implement"

# Every torch name chainrule does not have, with the reason. A key ending in "." covers
# the whole module of that name.
LEFT_OUT: dict[str, str] = {
    "torch.autograd.profiler.": _PROFILER,
    "torch.autograd.profiler": _PROFILER,
    "torch.autograd.profiler_legacy": _PROFILER,
    "torch.autograd.profiler_util": _PROFILER,
    "torch.autograd.DeviceType": _PROFILER,
    "torch.autograd.ProfilerActivity": _PROFILER,
    "torch.autograd.ProfilerConfig": _PROFILER,
    "torch.autograd.ProfilerEvent": _PROFILER,
    "torch.autograd.ProfilerState": _PROFILER,
    "torch.autograd.kineto_available": _PROFILER,
    "torch.autograd.has_torch_function": _TORCH_FUNCTION,
    "torch.autograd.graph.region_activation_memory_budget": _COMPILE,
    "torch.autograd.graph.set_override_stale_capture_stream": _STREAMS,
    "torch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch": _STREAMS,
    "torch.utils.checkpoint.CheckpointPolicy": _SELECTIVE,
    "torch.utils.checkpoint.SelectiveCheckpointContext": _SELECTIVE,
    "torch.utils.checkpoint.create_selective_checkpoint_contexts": _SELECTIVE,
    "torch.utils.checkpoint.SAC_IGNORED_OPS": _SELECTIVE,
    "torch.utils.checkpoint.GraphExecGroup": (
        "groups backward calls for the non-reentrant checkpoint's recomputation under "
        "torch.compile's graph execution; chainrule has no compiler"
    ),
}


# --- recording torch's names --------------------------------------------------------------


def _origin(obj: Any) -> str | None:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    origin = getattr(obj, "__module__", None)
    return origin if isinstance(origin, str) else None


def _kind(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "class"
    if callable(obj):
        return "function"
    return "constant"


def _public_names(module_name: str) -> dict[str, str]:
    """name -> kind for one torch module (see the module docstring for what counts)."""
    module = importlib.import_module(module_name)
    names = dict.fromkeys(getattr(module, "__all__", ()), "")
    for name in dir(module):
        if name.startswith("_") or name == "TYPE_CHECKING":
            continue
        obj = getattr(module, name)
        origin = _origin(obj)
        own = origin is not None and any(
            origin == p or origin.startswith(p + ".") for p in _OWN_PREFIXES
        )
        simple = isinstance(obj, (str, int, float, tuple, frozenset, set))
        if (own and (callable(obj) or isinstance(obj, types.ModuleType))) or (
            name.isupper() and simple
        ):
            names[name] = ""
    return {name: _kind(getattr(module, name)) for name in sorted(names)}


def record() -> dict[str, Any]:
    torch = importlib.import_module("torch")
    data: dict[str, Any] = {"version": torch.__version__.split("+")[0]}
    data["modules"] = {m: _public_names(m) for m in MODULES}
    data["elsewhere"] = {name: _kind(_resolve(torch, name)) for name in ELSEWHERE}
    return data


# --- looking names up in chainrule --------------------------------------------------------


def _resolve(root: Any, dotted: str) -> Any:
    """The object `dotted` ("torch.a.b") names under `root`, importing submodules on the way."""
    obj = root
    path = root.__name__
    for part in dotted.split(".")[1:]:
        if isinstance(obj, types.ModuleType) and not hasattr(obj, part):
            importlib.import_module(f"{path}.{part}")
        obj = getattr(obj, part)
        path = f"{path}.{part}"
    return obj


def has(dotted: str, kind: str, module: str | None = None) -> bool:
    """Whether chainrule has the torch name `dotted`, as the same kind of thing.

    `module`: the torch module `dotted` is a name of, imported by its path (an attribute
    may hide a module: `torch.autograd.gradcheck` is the function).
    """
    try:
        if module is None:
            obj = _resolve(importlib.import_module("chainrule"), dotted)
        else:
            owner = importlib.import_module("chainrule" + module[len("torch") :])
            obj = getattr(owner, dotted[len(module) + 1 :])
    except (AttributeError, ImportError):
        return False
    if kind in ("class", "function"):
        return callable(obj)
    return obj is not None


def reason(dotted: str) -> str | None:
    if dotted in LEFT_OUT:
        return LEFT_OUT[dotted]
    for key, why in LEFT_OUT.items():
        if key.endswith(".") and dotted.startswith(key):
            return why
    return None


def entries(data: dict[str, Any]) -> list[tuple[str, str, str, bool, str | None]]:
    """(section, qualified name, kind, in chainrule, reason left out) for every name."""
    rows = []
    for module, names in data["modules"].items():
        for name, kind in names.items():
            dotted = f"{module}.{name}"
            rows.append((module, dotted, kind, has(dotted, kind, module), reason(dotted)))
    for dotted, kind in data["elsewhere"].items():
        rows.append(("elsewhere", dotted, kind, has(dotted, kind), reason(dotted)))
    return rows


# --- the page -----------------------------------------------------------------------------


def generate(data: dict[str, Any]) -> str:
    rows = entries(data)
    present = sum(r[3] for r in rows)
    left = [r for r in rows if not r[3]]
    lines = [
        "# The autograd inventory",
        "",
        "<!-- Written by scripts/autograd_inventory.py; do not edit by hand. -->",
        "",
        f"Every public name of PyTorch {data['version']}'s `torch.autograd`, its submodules and "
        "`torch.utils.checkpoint`, and whether chainrule has it (under `chainrule` for "
        "`torch`). A module's public names are its `__all__`, the names in its `dir()` that "
        "autograd itself defines, and its upper-case constants; imports from `typing`, the "
        "standard library or other torch packages are not counted. The last table lists "
        "autograd names that live elsewhere.",
        "",
        f"**{len(rows)} names: {present} in chainrule, {len(left)} left out** (each with its "
        "reason below).",
        "",
    ]
    sections = list(dict.fromkeys(r[0] for r in rows))
    for section in sections:
        title = "Elsewhere" if section == "elsewhere" else f"`{section}`"
        lines += [f"## {title}", "", "| name | kind | chainrule |", "|---|---|---|"]
        for sec, dotted, kind, ok, why in rows:
            if sec != section:
                continue
            short = dotted if section == "elsewhere" else dotted[len(section) + 1 :]
            status = "yes" if ok else f"left out: {why or 'MISSING, with no reason given'}"
            lines.append(f"| `{short}` | {kind} | {status} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    if "--record" in argv:
        DATA.write_text(json.dumps(record(), indent=1, sort_keys=False) + "\n")
    DOC.write_text(generate(json.loads(DATA.read_text())))


if __name__ == "__main__":
    main(sys.argv[1:])
