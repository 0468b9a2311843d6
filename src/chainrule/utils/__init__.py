"""Utilities: activation checkpointing (`chainrule.utils.checkpoint`) and data loading
(`chainrule.utils.data`)."""

from __future__ import annotations

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
