"""`torch.save` and `torch.load` in PyTorch's own file format (`chainrule.serialization`).

Files: `_zipfile` (the zip container as PyTorch lays it out), `_storage` (storages and
the legacy storage classes), `_rebuild` (the functions a file calls to rebuild
tensors), `_names` (PyTorch's global names for chainrule's objects), `_pickler` (how
`save` pickles tensors), `_weights_only` (the safe unpickler), `_save` and `_load`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ._load import load
from ._save import DEFAULT_PROTOCOL, save
from ._weights_only import add_safe_globals, clear_safe_globals, get_safe_globals

__all__ = [
    "DEFAULT_PROTOCOL",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]


@contextlib.contextmanager
def safe_globals(globals_to_allow: list[Any]) -> Iterator[None]:
    """Allow these globals in weights-only loads inside the `with` block."""
    before = get_safe_globals()
    add_safe_globals(globals_to_allow)
    try:
        yield
    finally:
        clear_safe_globals()
        add_safe_globals(before)
