"""Neural-network building blocks; `chainrule.nn.functional` holds the differentiable functions."""

from . import functional

__all__ = ["functional"]
