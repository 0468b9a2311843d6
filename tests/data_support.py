"""Shared by the tests of `chainrule.utils.data`: batches made comparable across libraries."""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    """`value` with every tensor (chainrule's or PyTorch's) replaced by its dtype name,
    shape and values, and every container by its type name and contents, so that what
    chainrule and PyTorch produce can be compared with `==`."""
    if hasattr(value, "tolist") and hasattr(value, "dtype") and hasattr(value, "grad_fn"):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, dict):
        return ("dict", type(value).__name__, {k: plain(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return (type(value).__name__, [plain(v) for v in value])
    return value
