"""The arithmetic of the recurrent layers: one time step of each cell, one layer run over
a padded batch or over the rows of a PackedSequence, and a stack of layers with dropout
between them. Everything is chainrule ops, so autograd sees the whole unrolled graph.

Note: the order of operations is PyTorch's CPU kernels' (aten/src/ATen/native/RNN.cpp):
a layer first projects its whole input through W_ih (`F.linear`), then each step adds
the projected hidden state, `linear(h, W_hh, b_hh) + x_proj`, before the gates; this
keeps float32 results within rounding of PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ..._ops.shape.views import cat, stack
from ..._tensor import Tensor
from .. import functional as F

__all__ = ["STEPS", "CellWeights", "State", "Step", "run_layers"]

# The recurrent state of one layer and direction: (h,) for RNN and GRU, (h, c) for LSTM.
State = tuple[Tensor, ...]


class CellWeights(NamedTuple):
    """One layer's (one direction's) parameters; the biases and projection are optional."""

    weight_ih: Tensor
    weight_hh: Tensor
    bias_ih: Tensor | None = None
    bias_hh: Tensor | None = None
    weight_hr: Tensor | None = None


# A step maps the input already projected through W_ih (and b_ih) and the state before
# the step to the state after it; its first tensor is the step's output.
Step = Callable[[Tensor, State, CellWeights], State]


def tanh_step(x_proj: Tensor, state: State, w: CellWeights) -> State:
    """h' = tanh(W_hh h + b_hh + W_ih x + b_ih)."""
    return ((F.linear(state[0], w.weight_hh, w.bias_hh) + x_proj).tanh(),)


def relu_step(x_proj: Tensor, state: State, w: CellWeights) -> State:
    """h' = relu(W_hh h + b_hh + W_ih x + b_ih)."""
    return ((F.linear(state[0], w.weight_hh, w.bias_hh) + x_proj).relu(),)


def lstm_step(x_proj: Tensor, state: State, w: CellWeights) -> State:
    """Gates i, f, g, o (in that order along the gate dim); c' = f c + i g, h' = o tanh(c'),
    then h' is projected through W_hr when the layer has one."""
    h, c = state
    gates = F.linear(h, w.weight_hh, w.bias_hh) + x_proj
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w.weight_hr is not None:
        h = h.matmul(w.weight_hr.t())
    return h, c


def gru_step(x_proj: Tensor, state: State, w: CellWeights) -> State:
    """Gates r, z, n: n = tanh(W_in x + b_in + r (W_hn h + b_hn)), h' = (h - n) z + n."""
    (h,) = state
    x_r, x_z, x_n = x_proj.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w.weight_hh, w.bias_hh).chunk(3, 1)
    reset = (h_r + x_r).sigmoid()
    update = (h_z + x_z).sigmoid()
    new = (x_n + h_n * reset).tanh()
    return ((h - new) * update + new,)


STEPS: dict[str, Step] = {
    "RNN_TANH": tanh_step,
    "RNN_RELU": relu_step,
    "LSTM": lstm_step,
    "GRU": gru_step,
}


def _run_padded(
    x_proj: Tensor, state: State, w: CellWeights, step: Step, reverse: bool
) -> tuple[Tensor, State]:
    """Steps over a (T, B, G) projected input, backwards if `reverse`: outputs (T, B, H)."""
    inputs = x_proj.unbind(0)
    if not inputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    outputs = []
    for x in reversed(inputs) if reverse else inputs:
        state = step(x, state, w)
        outputs.append(state[0])
    if reverse:
        outputs.reverse()
    return stack(outputs), state


def _run_packed_forward(
    x_proj: Tensor, batch_sizes: np.ndarray, state: State, w: CellWeights, step: Step
) -> tuple[Tensor, State]:
    """Steps over packed rows; when sequences end (the batch shrinks), their last states
    are set aside, and the final state puts them back in batch order."""
    outputs, finished = [], []
    offset, running = 0, int(batch_sizes[0])
    for size in batch_sizes.tolist():
        if size < running:
            finished.append(tuple(s[size:running] for s in state))
            state = tuple(s[:size] for s in state)
        running = size
        state = step(x_proj[offset : offset + size], state, w)
        offset += size
        outputs.append(state[0])
    finished.append(state)
    finished.reverse()
    return cat(outputs), tuple(cat(parts) for parts in zip(*finished, strict=True))


def _run_packed_reverse(
    x_proj: Tensor, batch_sizes: np.ndarray, initial: State, w: CellWeights, step: Step
) -> tuple[Tensor, State]:
    """Steps over packed rows from the last step back: the batch grows, each sequence
    joining with its initial state when its last step is reached."""
    outputs = []
    offset, running = x_proj._data.shape[0], int(batch_sizes[-1])
    state = tuple(s[:running] for s in initial)
    for size in reversed(batch_sizes.tolist()):
        if size > running:
            state = tuple(cat([s, s0[running:size]]) for s, s0 in zip(state, initial, strict=True))
        running = size
        state = step(x_proj[offset - size : offset], state, w)
        offset -= size
        outputs.append(state[0])
    outputs.reverse()
    return cat(outputs), state


def _run_layer(
    input: Tensor,
    batch_sizes: np.ndarray | None,
    state: State,
    w: CellWeights,
    step: Step,
    reverse: bool,
) -> tuple[Tensor, State]:
    x_proj = F.linear(input, w.weight_ih, w.bias_ih)
    if batch_sizes is None:
        return _run_padded(x_proj, state, w, step, reverse)
    if reverse:
        return _run_packed_reverse(x_proj, batch_sizes, state, w, step)
    return _run_packed_forward(x_proj, batch_sizes, state, w, step)


def run_layers(
    input: Tensor,
    batch_sizes: np.ndarray | None,
    states: Sequence[State],
    weights: Sequence[CellWeights],
    step: Step,
    num_layers: int,
    bidirectional: bool,
    dropout: float,
    training: bool,
) -> tuple[Tensor, list[State]]:
    """Run the stack on a time-major (T, B, I) input, or on packed rows (N, I) with their
    `batch_sizes`; `states` and `weights` are per layer and direction (forward first).
    Returns the last layer's output and every layer's and direction's final state."""
    directions = 2 if bidirectional else 1
    finals: list[State] = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            output, final = _run_layer(
                input, batch_sizes, states[index], weights[index], step, direction == 1
            )
            outputs.append(output)
            finals.append(final)
        input = outputs[0] if directions == 1 else cat(outputs, outputs[0].ndim - 1)
        # Dropout (drawn as F.dropout draws it) on every layer's output but the last.
        if dropout != 0 and training and layer < num_layers - 1:
            input = F.dropout(input, dropout, True)
    return input, finals
