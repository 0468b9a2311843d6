"""Anomaly detection: record where each node was made, and check backward for NaN.

While the mode is on, every node created stores the forward stack trace in
`node.metadata["traceback_"]` (and, when made during a backward, the node being
run as `metadata["parent_"]`). When a node's backward fails, or (with
`check_nan`) returns NaN, that trace is issued as a UserWarning before the error
propagates. As in PyTorch, the mode is process-wide, not per thread. Public as
`chainrule.autograd.anomaly_mode`.
"""

from __future__ import annotations

import functools
import os
import threading
import traceback
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]

F = TypeVar("F", bound=Callable[..., Any])

# Process-wide, as PyTorch's. Node creation reads `_enabled` (one module attribute).
_enabled = False
_check_nan = True

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _Evaluating(threading.local):
    """The node the engine is running on this thread (the parent of nodes made now)."""

    node: Any = None


_evaluating = _Evaluating()


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on."""
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection (if on) checks backward results for NaN."""
    return _check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off."""
    global _enabled, _check_nan
    _enabled = bool(enabled)
    _check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on inside it."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.check_nan = check_nan
        self.prev_check_nan = _check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self.prev = _enabled
        self.prev_check_nan = _check_nan
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, fn: F) -> F:
        check_nan = self.check_nan

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev, prev_check_nan = _enabled, _check_nan
            set_anomaly_enabled(True, check_nan)
            try:
                return fn(*args, **kwargs)
            finally:
                set_anomaly_enabled(prev, prev_check_nan)

        return wrapper  # type: ignore[return-value]


class set_detect_anomaly:
    """Set anomaly detection on or off; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.prev_check_nan = _check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# --- used by the graph and the engine -----------------------------------------------


def _user_stack() -> list[str]:
    """The current stack, formatted, without chainrule's own innermost frames."""
    frames = traceback.extract_stack()
    end = len(frames)
    while end > 1 and frames[end - 1].filename.startswith(_PACKAGE_DIR):
        end -= 1
    return traceback.format_list(frames[:end])


def record(node: Any) -> None:
    """Store the forward trace (and the parent node, in a backward) on a new node."""
    meta = node.metadata
    meta["traceback_"] = _user_stack()
    parent = _evaluating.node
    if parent is not None:
        meta["parent_"] = parent


def check_nan(node: Any, grad_inputs: Any) -> None:
    """Raise PyTorch's error if a gradient the node returned holds NaN."""
    for i, g in enumerate(grad_inputs):
        if g is None:
            continue
        data = g._data
        if data.dtype.kind in "fc" and np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _warn_stack(stack: Any, name: str, is_parent: bool) -> None:
    if stack is None:
        msg = (
            f"Error detected in {name}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information."
        )
    elif not is_parent:
        msg = (
            f"Error detected in {name}. Traceback of forward call that caused the error:\n"
            + "".join(stack)
        )
    else:
        msg = (
            f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
            "induced the previous calculation:\n" + "".join(stack)
        )
    warnings.warn(msg, UserWarning, stacklevel=4)


def print_stack(node: Any) -> None:
    """Warn with the forward trace of `node`, then of each node that induced it."""
    meta = node._metadata or {}
    _warn_stack(meta.get("traceback_"), node.name(), False)
    parent = meta.get("parent_")
    while parent is not None:
        pmeta = parent._metadata or {}
        _warn_stack(pmeta.get("traceback_"), parent.name(), True)
        parent = pmeta.get("parent_")


# Users meet these classes in chainrule.autograd.anomaly_mode, and so they report it.
for _cls in (detect_anomaly, set_detect_anomaly):
    _cls.__module__ = "chainrule.autograd.anomaly_mode"
