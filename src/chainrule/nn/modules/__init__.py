"""The layers of `chainrule.nn`, one file per family; this package re-exports them."""

from .activation_attention import MultiheadAttention, NonDynamicallyQuantizableLinear
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .module import Module
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "Bilinear",
    "Flatten",
    "Identity",
    "Linear",
    "Module",
    "ModuleDict",
    "ModuleList",
    "MultiheadAttention",
    "NonDynamicallyQuantizableLinear",
    "ParameterDict",
    "ParameterList",
    "Sequential",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "Unflatten",
]
