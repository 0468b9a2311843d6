"""The layers of `chainrule.nn`, one file per family; this package re-exports them."""

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .module import Module

__all__ = [
    "Bilinear",
    "Flatten",
    "Identity",
    "Linear",
    "Module",
    "ModuleDict",
    "ModuleList",
    "ParameterDict",
    "ParameterList",
    "Sequential",
    "Unflatten",
]
