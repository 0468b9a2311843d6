"""Numbers and arrays as short readable text: `0.5`, `[15, 18]`, or a summary of a big array.

Also indexing keys written back as Python (`[:, ::2]`), for formulas.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._ops.quiet import quiet

__all__ = ["format_key", "format_number", "summarize"]


_FLOAT_TYPES = frozenset({float, np.float16, np.float32, np.float64})


def format_number(x: Any) -> str:
    """One number as a person would write it: `15`, `0.5`, `0.333333`, `1.5e-05`, `nan`.

    Floats get at most 6 significant digits, and no more than their dtype holds
    (float32 0.1 is `0.1`, not `0.10000000149`).
    """
    if type(x) is np.ndarray:
        x = x[()]
    if type(x) in _FLOAT_TYPES:
        f = float(x)
        if f.is_integer() and -1e6 < f < 1e6:
            return str(int(f))  # the common case first, 40x faster than NumPy's formatter
        return _float_text(x, f)
    if isinstance(x, bool | np.bool_):
        return "True" if x else "False"
    if isinstance(x, int | np.integer):
        return str(int(x))
    f = float(x)
    return _float_text(np.float64(f), f)


def _float_text(x: Any, f: float) -> str:
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f.is_integer() and abs(f) < 1e6:
        return str(int(f))
    if 1e-4 <= abs(f) < 1e6:
        return np.format_float_positional(x, precision=6, unique=True, fractional=False, trim="-")
    return np.format_float_scientific(x, precision=5, unique=True, trim="-")


def summarize(value: Any, max_entries: int = 6) -> str:
    """An array (or Tensor, or number) as text.

    Up to `max_entries` entries: every value, nested like the array
    (`[[1, 2], [3, 4]]`). More: its shape, its norm (for bools, how many are
    True) and a few entries: `shape (1000,), norm 18243.7, [0, 1, 2, …, 999]`.
    """
    if type(value) is np.ndarray and value.ndim == 0:
        return format_number(value[()])  # the common case first
    if value is None:
        return "None"
    data = getattr(value, "_data", value)  # a chainrule Tensor holds its array in `_data`
    if not isinstance(data, np.ndarray):
        data = np.asarray(data)
    if data.ndim == 0:
        return format_number(data[()])
    shape = str(tuple(int(s) for s in data.shape))
    if data.size == 0:
        return f"[] (shape {shape})"
    if data.size <= max_entries:
        return _nested(data)
    flat = data.reshape(-1)
    head = max(1, max_entries // 2)
    shown = ", ".join(format_number(v) for v in flat[:head])
    entries = f"[{shown}, …, {format_number(flat[-1])}]"
    if data.dtype.kind == "b":
        return f"shape {shape}, {int(np.count_nonzero(data))} True, {entries}"
    return f"shape {shape}, norm {_norm(data)}, {entries}"


def format_key(key: Any) -> str:
    """An indexing key as written in Python: `[0]`, `[1:]`, `[:, [0, 2]]`."""
    parts = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, slice):
            bounds = ["" if v is None else str(v) for v in (k.start, k.stop, k.step)]
            parts.append(":".join(bounds if k.step is not None else bounds[:2]))
        elif k is Ellipsis:
            parts.append("...")
        elif isinstance(k, np.ndarray):
            parts.append(str(k.tolist()) if k.size <= 6 else f"<{k.size} indices>")
        else:
            parts.append(str(k))
    return "[" + ", ".join(parts) + "]"


def _nested(data: np.ndarray) -> str:
    """All entries of a small array, brackets per dimension, on one line."""
    if data.ndim == 0:
        return format_number(data[()])
    if data.ndim == 1:
        return "[" + ", ".join(format_number(v) for v in data) + "]"
    # Arrays have few dimensions: recursing over them (not over a graph) is bounded.
    return "[" + ", ".join(_nested(row) for row in data) + "]"


def _norm(data: np.ndarray) -> str:
    # inf and nan entries give an inf or nan norm, quietly
    return format_number(quiet(np.linalg.norm, data.reshape(-1).astype(np.float64)))
