"""Recurrent layers over whole sequences: `RNN` (tanh or relu), `LSTM` and `GRU`, stacked,
optionally bidirectional, on padded batches or PackedSequences. The cells that take one
step at a time are in `rnn_cells.py`; the arithmetic of both is in `_rnn_steps.py`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, ClassVar

import numpy as np

from ..._creation import empty, zeros
from ..._ops.shape.views import stack
from ..._tensor import Tensor
from .. import init
from .._packed_sequence import PackedSequence
from ..parameter import Parameter
from ._rnn_steps import STEPS, CellWeights, run_layers
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "RNNBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_options(
    input_size: Any,
    hidden_size: Any,
    num_layers: int,
    bias: Any,
    batch_first: Any,
    dropout: Any,
    proj_size: int,
) -> None:
    """PyTorch's checks of the constructor's arguments, in its order."""
    number = isinstance(dropout, numbers.Number) and not isinstance(dropout, bool)
    if not number or not 0 <= dropout <= 1:
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the probability of an "
            "element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got "
            f"dropout={dropout} and num_layers={num_layers}",
            stacklevel=3,
        )
    for name, value in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters of every layer and direction, their
    initialisation, the checks of inputs and hidden states, and running the stack."""

    __constants__: ClassVar[list[str]] = [
        "mode",
        "input_size",
        "hidden_size",
        "num_layers",
        "bias",
        "batch_first",
        "dropout",
        "bidirectional",
        "proj_size",
    ]

    mode: str
    input_size: int
    hidden_size: int
    num_layers: int
    bias: bool
    batch_first: bool
    dropout: float
    bidirectional: bool
    proj_size: int

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_options(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else real_hidden_size * directions
            for direction in range(directions):
                shapes: dict[str, tuple[int, ...]] = {
                    "weight_ih": (gate_size, layer_input_size),
                    "weight_hh": (gate_size, real_hidden_size),
                }
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{kind}_l{layer}{suffix}" for kind in shapes]
                for name, shape in zip(names, shapes.values(), strict=True):
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Parameter | None]:
        """The parameters in PyTorch's flat order, read afresh (so a replaced one shows)."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters grouped per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Packs the weights into one buffer for cuDNN in PyTorch; nothing to do here."""

    def reset_parameters(self) -> None:
        """Every parameter uniform on ±1/sqrt(hidden_size), in registration order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # --- checks (PyTorch's names and messages) ------------------------------------------

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        weight_dtype = self._flat_weights_dtype()
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. "
                f"Expected {self.input_size}, got {input.size(-1)}"
            )

    def _flat_weights_dtype(self) -> Any:
        first = self._flat_weights[0]
        return first.dtype if first is not None else None

    def _mini_batch(self, input: Tensor, batch_sizes: Tensor | None) -> int:
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(
        self, input: Tensor, batch_sizes: Tensor | None
    ) -> tuple[int, int, int]:
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, self._mini_batch(input, batch_sizes), size)

    def check_hidden_size(
        self,
        hx: Tensor,
        expected_hidden_size: tuple[int, int, int],
        msg: str = "Expected hidden size {}, got {}",
    ) -> None:
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        """The hidden state's batch columns reordered (packed batches sort sequences)."""
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # --- running ----------------------------------------------------------------------

    def _zeros(self, input: Tensor, batch: int, size: int) -> Tensor:
        directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * directions, batch, size, dtype=input.dtype)

    def _run(
        self, input: Tensor, batch_sizes: Tensor | None, hidden: tuple[Tensor, ...]
    ) -> tuple[Tensor, tuple[Tensor, ...]]:
        """The stack on a checked 3-D input (or packed rows): output and final states."""
        weights = [
            CellWeights(**{name.rsplit("_l", 1)[0]: getattr(self, name) for name in names})
            for names in self._all_weights
        ]
        padded = batch_sizes is None
        if padded and self.batch_first:
            input = input.transpose(0, 1)
        states = list(zip(*(h.unbind(0) for h in hidden), strict=True))
        sizes = None if batch_sizes is None else np.asarray(batch_sizes._data, dtype=np.int64)
        output, finals = run_layers(
            input,
            sizes,
            states,
            weights,
            STEPS[self.mode],
            self.num_layers,
            self.bidirectional,
            self.dropout,
            self.training,
        )
        if padded and self.batch_first:
            output = output.transpose(0, 1)
        return output, tuple(stack(list(parts)) for parts in zip(*finals, strict=True))

    def _forward_one_state(self, input: Any, hx: Tensor | None) -> tuple[Any, Tensor]:
        """RNN's and GRU's forward: their state is one tensor h."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zeros(data, int(batch_sizes[0]), self.hidden_size)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(data, hx, batch_sizes)
            output, (hidden,) = self._run(data, batch_sizes, (hx,))
            packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return packed, self.permute_hidden(hidden, unsorted_indices)
        if input.dim() not in (2, 3):
            noun = "tensor " if self.mode.startswith("RNN") else ""
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                f"{noun}instead"
            )
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx should also be 2-D but got "
                        f"{hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
            )
        if hx is None:
            hx = self._zeros(input, input.size(batch_dim), self.hidden_size)
        self.check_forward_args(input, hx, None)
        output, (hidden,) = self._run(input, None, (hx,))
        if not batched:
            return output.squeeze(batch_dim), hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu)."""

    nonlinearity: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        return self._forward_one_state(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit: reset r, update z and new n gates; h' = (1 - z) n + z h."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        return self._forward_one_state(input, hx)


class LSTM(RNNBase):
    """Long short-term memory: a state (h, c), input i, forget f, cell g and output o gates;
    with `proj_size`, h is projected down to proj_size features."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(
        self, input: Tensor, batch_sizes: Tensor | None
    ) -> tuple[int, int, int]:
        directions = 2 if self.bidirectional else 1
        batch = self._mini_batch(input, batch_sizes)
        return (self.num_layers * directions, batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def _zero_state(self, input: Tensor, batch: int) -> tuple[Tensor, Tensor]:
        h_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return self._zeros(input, batch, h_size), self._zeros(input, batch, self.hidden_size)

    def forward(
        self, input: Any, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Any, tuple[Tensor, Tensor]]:
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zero_state(data, int(batch_sizes[0]))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(data, hx, batch_sizes)
            output, (h, c) = self._run(data, batch_sizes, hx)
            packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return packed, self.permute_hidden((h, c), unsorted_indices)
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            hx = self._zero_state(input, input.size(batch_dim))
        else:
            dims = (hx[0].dim(), hx[1].dim())
            if batched and dims != (3, 3):
                raise RuntimeError(
                    "For batched 3-D input, hx and cx should also be 3-D but got "
                    f"({dims[0]}-D, {dims[1]}-D) tensors"
                )
            if not batched:
                if dims != (2, 2):
                    raise RuntimeError(
                        "For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({dims[0]}-D, {dims[1]}-D) tensors"
                    )
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, (h, c) = self._run(input, None, hx)
        if not batched:
            return output.squeeze(batch_dim), (h.squeeze(1), c.squeeze(1))
        return output, (h, c)
