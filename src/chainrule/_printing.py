"""Tensor ``repr`` text, laid out character for character the way PyTorch prints it.

Also keeps the module-level print options behind ``set_printoptions`` / ``get_printoptions``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]

_PREFIX = "tensor("

# Zero-size tensors carry no values that could hint at an integer or boolean type, so torch
# names these dtypes for them even though it leaves them out for tensors with elements.
_NAMED_WHEN_EMPTY = (np.dtype(np.int64), np.dtype(np.bool_))


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_PROFILES: dict[str, dict[str, float]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

_options = _PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print; a profile is applied first, then any explicit option.

    Like torch, ``sci_mode`` is reset on every call: leaving it out means "automatic".
    """
    for name, value in _PROFILES.get(profile or "", {}).items():
        setattr(_options, name, value)
    if precision is not None:
        _options.precision = precision
    if threshold is not None:
        _options.threshold = threshold
    if edgeitems is not None:
        _options.edgeitems = edgeitems
    if linewidth is not None:
        _options.linewidth = linewidth
    _options.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(_options)


class _ElementFormatter:
    """Turns single elements into text of one shared width and style (fixed, integer or sci)."""

    def __init__(self, sample: np.ndarray) -> None:
        self.is_float = sample.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = sample.reshape(-1)
        if self.is_float:
            self._fit_floats(flat)
        else:
            self.width = max([1, *(len(str(v)) for v in flat.tolist())])

    def _fit_floats(self, flat: np.ndarray) -> None:
        # Zeros, nan and inf say nothing about the scale, so only the other values choose the style.
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return  # torch also ignores a forced sci_mode here, so all-zero tensors print "0."
        mags = np.abs(vals).astype(np.float64)
        smallest, largest = float(mags.min()), float(mags.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if _options.sci_mode is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = _options.sci_mode
        self.width = max(len(self._bare(v)) for v in vals.tolist())

    def _bare(self, value: float) -> str:
        """A float's text before padding."""
        if self.sci_mode:
            return f"{value:.{_options.precision}e}"
        if self.int_mode:
            # The trailing dot marks a float tensor; nan and inf are recognisable without it.
            return f"{value:.0f}" + ("." if math.isfinite(value) else "")
        return f"{value:.{_options.precision}f}"

    def __call__(self, value: Any) -> str:
        text = self._bare(value) if self.is_float else str(value)
        return text.rjust(self.width)


def _shown_indices(length: int, summarize: bool) -> list[int | None]:
    """Indices printed along one axis; ``None`` stands for the elided middle."""
    edge = _options.edgeitems
    if summarize and length > 2 * edge:
        return [*range(edge), None, *range(length - edge, length)]
    return list(range(length))


def _summary_sample(array: np.ndarray) -> np.ndarray:
    """Just the elements a summarized tensor shows, which alone decide widths and style."""
    edge = _options.edgeitems
    for axis, length in enumerate(array.shape):
        if length > 2 * edge:
            keep = np.r_[0:edge, length - edge : length]
            array = np.take(array, keep, axis=axis)
    return array


def _render_row(row: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    # A line holds as many full-width cells (each followed by ", ") as fit after the indent.
    per_line = max(1, math.floor((_options.linewidth - indent) / (fmt.width + 2)))
    ellipsis = " ..." if _options.edgeitems else "..."
    values = row.tolist()
    cells = [ellipsis if i is None else fmt(values[i]) for i in _shown_indices(len(row), summarize)]
    lines = [", ".join(cells[i : i + per_line]) for i in range(0, len(cells), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render(array: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    if array.ndim == 0:
        return fmt(array.item())
    if array.ndim == 1:
        return _render_row(array, indent, summarize, fmt)
    blocks = [
        "..." if i is None else _render(array[i], indent + 1, summarize, fmt)
        for i in _shown_indices(len(array), summarize)
    ]
    # Deeper blocks get more blank lines between them: one newline per inner dimension.
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"


def _attach_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    """Append ``, suffix`` pieces, moving a piece to a fresh indented line when it won't fit."""
    # Mirror torch's bookkeeping exactly: it counts two more columns than the current line holds
    # until the first wrap, and counts exactly afterwards.
    used = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        # Widths as torch's text (`torch.float64`), so the lines break where torch breaks them.
        width = len(suffix.replace("chainrule.", "torch."))
        if used + width + 2 > _options.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            used = indent + width
        else:
            pieces.append(", " + suffix)
            used += width + 2
    return "".join(pieces) + ")"


def format_tensor(
    array: np.ndarray,
    suffixes: Sequence[str] = (),
    *,
    show_dtype: str | None = None,
    dtype_prefix: str = "chainrule.",
) -> str:
    """The exact ``repr`` torch gives a tensor holding ``array``.

    ``show_dtype`` is the dtype text for a ``dtype=...`` suffix, or None to leave it out;
    ``suffixes`` are further ready-made suffixes in print order (``requires_grad=True``, ...).
    Zero-size int64 and bool tensors always name their dtype, as torch does, spelled
    ``dtype_prefix`` + the dtype name when ``show_dtype`` is not given.
    """
    array = np.asarray(array)
    indent = len(_PREFIX)
    layout: list[str] = []
    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            layout.append(f"size={tuple(array.shape)}")
        if show_dtype is None and array.dtype in _NAMED_WHEN_EMPTY:
            show_dtype = dtype_prefix + array.dtype.name
    else:
        summarize = array.size > _options.threshold
        fmt = _ElementFormatter(_summary_sample(array) if summarize else array)
        body = _render(array, indent, summarize, fmt)
        if not _options.edgeitems:
            # Without edge items nothing hints at the extent, so torch states the size.
            layout.append(f"size={tuple(array.shape)}")
    if show_dtype is not None:
        layout.append(f"dtype={show_dtype}")
    return _attach_suffixes(_PREFIX + body, [*layout, *suffixes], indent)
