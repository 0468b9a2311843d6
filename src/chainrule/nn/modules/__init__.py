"""The layers of `chainrule.nn`, one file per family; this package re-exports them."""

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .module import Module
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase

__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "Bilinear",
    "Flatten",
    "GRUCell",
    "Identity",
    "LSTMCell",
    "Linear",
    "Module",
    "ModuleDict",
    "ModuleList",
    "ParameterDict",
    "ParameterList",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "Sequential",
    "Unflatten",
]
