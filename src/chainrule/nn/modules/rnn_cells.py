"""Recurrent cells, one time step each: `RNNCell`, `LSTMCell` and `GRUCell`, on a batch
(B, input_size) or one unbatched sample (input_size,). The layers that run them over whole
sequences are in `rnn.py`; the arithmetic of both is in `_rnn_steps.py`.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ..._creation import empty, zeros
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._rnn_steps import CellWeights, State, Step, gru_step, lstm_step, relu_step, tanh_step
from .module import Module

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]


def _check_dims(cell: str, what: str, t: Tensor) -> None:
    if t.dim() not in (1, 2):
        raise ValueError(f"{cell}: Expected {what} to be 1D or 2D, got {t.dim()}D instead")


class RNNCellBase(Module):
    """What the cells share: W_ih (chunks·hidden, input), W_hh (chunks·hidden, hidden),
    the optional biases, their initialisation, and the step with its checks."""

    __constants__: ClassVar[list[str]] = ["input_size", "hidden_size", "bias"]

    input_size: int
    hidden_size: int
    bias: bool
    weight_ih: Parameter
    weight_hh: Parameter

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(empty((gates, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(empty((gates, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(gates, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(gates, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.__dict__["nonlinearity"] != "tanh":
            s += f", nonlinearity={self.__dict__['nonlinearity']}"
        return s

    def reset_parameters(self) -> None:
        """Every parameter uniform on ±1/sqrt(hidden_size), in registration order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, step: Step, input: Tensor, state: State) -> State:
        """One step on a batch, after PyTorch's checks of the sizes."""
        expected = self.weight_ih.size(1)
        if input.size(1) != expected:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} expected {expected}"
            )
        hidden_size = self.weight_hh.size(1)
        for label, h in enumerate(state):
            if input.size(0) != h.size(0):
                raise RuntimeError(
                    f"Input batch size {input.size(0)} doesn't match hidden{label} batch size "
                    f"{h.size(0)}"
                )
            if h.size(1) != hidden_size:
                raise RuntimeError(
                    f"hidden{label} has inconsistent hidden_size: got {h.size(1)}, "
                    f"expected {hidden_size}"
                )
        weights = CellWeights(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return step(F.linear(input, self.weight_ih, self.bias_ih), state, weights)

    def _batched(self, name: str, input: Tensor, hx: Tensor | None) -> tuple[Tensor, Tensor, bool]:
        """RNNCell's and GRUCell's input and state as a batch, and whether they were one."""
        _check_dims(name, "input", input)
        if hx is not None:
            _check_dims(name, "hidden", hx)
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched


class RNNCell(RNNCellBase):
    """h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu)."""

    __constants__: ClassVar[list[str]] = ["input_size", "hidden_size", "bias", "nonlinearity"]

    nonlinearity: str

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._batched("RNNCell", input, hx)
        if self.nonlinearity == "tanh":
            step = tanh_step
        elif self.nonlinearity == "relu":
            step = relu_step
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        (h,) = self._step(step, input, (hx,))
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: gates i, f, g, o; c' = f c + i g, h' = o tanh(c'); returns (h', c')."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device=device, dtype=dtype)

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        _check_dims("LSTMCell", "input", input)
        if hx is not None:
            for index, value in enumerate(hx):
                _check_dims("LSTMCell", f"hx[{index}]", value)
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zero = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zero, zero)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        h, c = self._step(lstm_step, input, tuple(hx))
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: gates r, z, n; h' = (1 - z) n + z h."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._batched("GRUCell", input, hx)
        (h,) = self._step(gru_step, input, (hx,))
        return h if batched else h.squeeze(0)
