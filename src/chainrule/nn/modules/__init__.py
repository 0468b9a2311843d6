"""The layers of `chainrule.nn`, one file per family; this package re-exports them."""

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .module import Module

__all__ = [
    "Bilinear",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
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
