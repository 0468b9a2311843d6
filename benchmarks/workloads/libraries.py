"""Which libraries take part: each one imported if it is installed, on one thread.

The keys ("numpy", "torch", "autograd", "mygrad", "chainrule") name the table's
columns everywhere in the harness. "numpy" is the hand-written NumPy baseline.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType

# One thread for every library, so the comparison is like for like. Set before NumPy or
# PyTorch is first imported (their thread pools read these once).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# The table's columns, in order, with the module each one needs.
COLUMNS: dict[str, str] = {
    "numpy": "NumPy by hand",
    "torch": "PyTorch",
    "autograd": "HIPS autograd",
    "mygrad": "MyGrad",
    "chainrule": "chainrule",
}
MODULES = {key: key for key in COLUMNS}


@dataclass(frozen=True)
class Library:
    key: str
    module: ModuleType

    @property
    def version(self) -> str:
        return str(getattr(self.module, "__version__", "?"))


def load(keys: list[str]) -> tuple[dict[str, Library], list[str]]:
    """The libraries among `keys` that import, and the keys of those that do not."""
    found: dict[str, Library] = {}
    missing: list[str] = []
    for key in keys:
        try:
            module = importlib.import_module(MODULES[key])
        except ImportError:
            missing.append(key)
            continue
        if key == "torch":
            module.set_num_threads(1)
        found[key] = Library(key, module)
    return found, missing


def version_of(key: str) -> str | None:
    """The installed version of a library's distribution, without importing it."""
    try:
        return metadata.version(MODULES[key])
    except metadata.PackageNotFoundError:
        return None


BENCHMARKS = Path(__file__).resolve().parent.parent


def chainrule_root() -> Path | None:
    """The folder that `import chainrule` loads the package from (e.g. the source tree)."""
    spec = importlib.util.find_spec("chainrule")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent.parent


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a measuring subprocess: the same chainrule, the harness
    importable, one thread."""
    paths = [str(BENCHMARKS)]
    root = chainrule_root()
    if root is not None:
        paths.insert(0, str(root))
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), **extra)
