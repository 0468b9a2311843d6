"""Utilities around autograd: activation checkpointing (`chainrule.utils.checkpoint`)."""

from __future__ import annotations

from . import checkpoint

__all__ = ["checkpoint"]
