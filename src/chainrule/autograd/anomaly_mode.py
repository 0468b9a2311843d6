"""Anomaly detection, public home: `detect_anomaly`, `set_detect_anomaly` and their queries.

Defined below Tensor, in `chainrule._autograd.anomaly_mode` (every node reads it).
"""

from __future__ import annotations

from .._autograd.anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
    set_detect_anomaly,
)

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]
