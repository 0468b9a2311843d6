"""Write src/chainrule/_public_names.py: where each `chainrule.<name>` loaded on first use lives.

    python scripts/update_public_names.py

`import chainrule` loads Tensor's core only; every other public name is looked up in the
registry this script writes and imported when first read (`chainrule.__getattr__`). The
registry comes from the lists below: the op families whose `__all__` the package root
exports whole, the names it takes one by one from other modules, and its public
submodules. tests/test_public_names.py checks that the committed file is up to date and
that every name resolves.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "chainrule" / "_public_names.py"
STALE = "src/chainrule/_public_names.py is stale: run python scripts/update_public_names.py"

# Op families and modules whose whole `__all__` is `chainrule.*`.
FAMILIES = (
    "chainrule._ops.elementwise",
    "chainrule._ops.indexing",
    "chainrule._ops.linalg",
    "chainrule._ops.reduction",
    "chainrule._ops.shape",
    "chainrule._ops.special",
    "chainrule._random_distributions",
    "chainrule._random_factories",
    "chainrule._creation_data",
    "chainrule._ranges",
    "chainrule._runtime",
    "chainrule._windows",
    "chainrule._lobpcg",
    "chainrule._lowrank",
    "chainrule.nn.functional._torch_forms",
    "chainrule.nn.functional._torch_forms_loss",
)

# Names taken one by one: module -> {public name: name in the module}.
SINGLE: dict[str, dict[str, str]] = {
    "chainrule._ops.linalg.matrix_multiply": {"ger": "ger"},
    "chainrule._ops.shape.views": {
        name: name
        for name in ("broadcast_to", "concat", "concatenate", "narrow", "swapaxes", "swapdims")
    },
    "chainrule.nn.functional._activation_softmax": {
        "log_softmax": "tensor_log_softmax",
        "softmax": "tensor_softmax",
    },
    "chainrule.serialization": {"load": "load", "save": "save"},
    "chainrule.random": {
        n: n
        for n in (
            "Generator",
            "default_generator",
            "get_rng_state",
            "initial_seed",
            "manual_seed",
            "seed",
            "set_rng_state",
        )
    },
    "chainrule.autograd.anomaly_mode": {
        n: n for n in ("is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled")
    },
    "chainrule.autograd.grad_mode": {"is_inference": "is_inference"},
}

# Public submodules, imported when first read as `chainrule.<name>`.
SUBMODULES = (
    "autograd",
    "backends",
    "cuda",
    "linalg",
    "nn",
    "optim",
    "random",
    "return_types",
    "serialization",
    "special",
    "utils",
    "viz",
)

HEADER = '''"""Where each public name of `chainrule` that is loaded on first use lives.

Written by scripts/update_public_names.py from the op families' `__all__`; do not edit.
`NAMES` maps `chainrule.<name>` to the module that defines it, under the same name but
for those in `RENAMED`; `AS_IS` are nn.functional's own functions, not wrapped again for
PyTorch's keyword spellings (so `torch.conv1d is F.conv1d`); `SUBMODULES` are the public
submodules, imported when first read.
"""

from __future__ import annotations

'''


def _twins() -> tuple[str, ...]:
    """The nn.functional ops PyTorch binds once, as torch.X and F.X: the same functions
    here too (nn.functional has given them PyTorch's spellings already)."""
    return tuple(importlib.import_module("chainrule.nn.functional._torch_forms").TWINS)


def registry() -> dict[str, tuple[str, str]]:
    """Every lazily loaded name, from the lists above (importing the modules)."""
    names: dict[str, tuple[str, str]] = {}
    for family in FAMILIES:
        for name in importlib.import_module(family).__all__:
            names[name] = (family, name)  # a later family wins, as star imports do
    for module, taken in SINGLE.items():
        for public, inner in taken.items():
            names[public] = (module, inner)
    for name in _twins():  # the very functions of nn.functional
        names[name] = ("chainrule.nn.functional", name)
    return dict(sorted(names.items()))


def render() -> str:
    """The file's text, laid out as `ruff format` leaves it."""
    names = registry()
    entries = "".join(f'    "{name}": "{module}",\n' for name, (module, _) in names.items())
    renamed = "".join(
        f'    "{name}": "{inner}",\n' for name, (_, inner) in names.items() if inner != name
    )
    modules = "".join(f'        "{name}",\n' for name in sorted(SUBMODULES))
    shared = "".join(f'        "{name}",\n' for name in sorted(_twins()))
    return (
        HEADER
        + f"NAMES: dict[str, str] = {{\n{entries}}}\n\n"
        + f"RENAMED: dict[str, str] = {{\n{renamed}}}\n\n"
        + f"AS_IS: frozenset[str] = frozenset(\n    (\n{shared}    )\n)\n\n"
        + f"SUBMODULES: frozenset[str] = frozenset(\n    (\n{modules}    )\n)\n"
    )


def main() -> None:
    sys.path.insert(0, str(ROOT / "src"))
    TARGET.write_text(render())
    print(f"wrote {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
