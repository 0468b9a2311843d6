"""Recurrent layers without PyTorch: recorded initial values and outputs, the gate formulas
against a NumPy reference, gradchecks in float64 (stacked, bidirectional, projected,
packed, with dropout), and the identities between packed, padded, unbatched and reversed
runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import chainrule as torch
from chainrule.autograd import gradcheck
from chainrule.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

LAYERS = ("RNN", "LSTM", "GRU")


def f64(*shape: int, seed: int = 0) -> torch.Tensor:
    data = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(data, dtype=torch.float64, requires_grad=True)


def layer(cls: str, *args: Any, **kwargs: Any) -> Any:
    torch.manual_seed(0)
    return getattr(torch.nn, cls)(*args, dtype=torch.float64, **kwargs)


# --- construction ---------------------------------------------------------------------------


def test_initial_values_are_torchs_under_a_seed() -> None:
    # Recorded from PyTorch 2.13.
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(2, 3)
    assert lstm.weight_ih_l0[:2].tolist() == [
        [-0.004322517663240433, 0.3097158372402191],
        [-0.4751853346824646, -0.4248946011066437],
    ]
    assert lstm.bias_hh_l0[-2:].tolist() == [0.438993901014328, -0.5759230256080627]
    torch.manual_seed(0)
    cell = torch.nn.GRUCell(2, 3, dtype=torch.float64)
    assert cell.weight_hh[0].tolist() == [
        0.19056967039182712,
        0.3289440462257218,
        -0.3344399873444218,
    ]
    assert cell.bias_hh[-1].item() == -0.38912882800878595


def test_dropout_masks_are_torchs_under_a_seed() -> None:
    torch.manual_seed(3)
    torch.nn.RNN(2, 3, 2, bidirectional=True)  # draws its weights, as in the recording
    lstm = torch.nn.LSTM(2, 3, 3, dropout=0.5)
    out, _ = lstm(torch.linspace(-1, 1, 8).reshape(4, 1, 2))
    want = [[0.3275175094604492, -0.10394636541604996, -0.12948349118232727]]
    np.testing.assert_allclose(out[-1].tolist(), want, rtol=1e-6)


@pytest.mark.parametrize("cls", [*LAYERS, "RNNCell", "LSTMCell", "GRUCell"])
def test_parameters_lie_within_one_over_sqrt_hidden(cls: str) -> None:
    module = getattr(torch.nn, cls)(3, 16)
    for p in module.parameters():
        assert p.abs().max().item() <= 1 / math.sqrt(16)
        assert p.std().item() > 0.1  # drawn, not left at zero


def test_reprs_and_names() -> None:
    lstm = torch.nn.LSTM(10, 20, num_layers=2, batch_first=True)
    assert repr(lstm) == "LSTM(10, 20, num_layers=2, batch_first=True)"
    gru = torch.nn.GRU(3, 4, bias=False, bidirectional=True)
    assert repr(gru) == "GRU(3, 4, bias=False, bidirectional=True)"
    assert list(gru.state_dict()) == [
        "weight_ih_l0",
        "weight_hh_l0",
        "weight_ih_l0_reverse",
        "weight_hh_l0_reverse",
    ]
    proj = torch.nn.LSTM(3, 4, proj_size=2)
    assert [tuple(p.shape) for p in proj._flat_weights] == [(16, 3), (16, 2), (16,), (16,), (2, 4)]
    assert repr(torch.nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert repr(torch.nn.LSTMCell(3, 4, bias=False)) == "LSTMCell(3, 4, bias=False)"


def test_flat_weights_follow_a_replaced_parameter() -> None:
    rnn = torch.nn.RNN(2, 3)
    new = torch.nn.Parameter(torch.zeros(3, 3))
    rnn.weight_hh_l0 = new
    rnn.flatten_parameters()  # a no-op without cuDNN
    assert rnn._flat_weights[1] is new
    assert rnn.all_weights[0][1] is new


# --- the formulas ---------------------------------------------------------------------------


def sigmoid(v: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


def reference(cls: str, module: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One unidirectional layer in NumPy, from the textbook formulas: outputs, last h."""
    w_ih, w_hh, b_ih, b_hh = (p.detach().numpy() for p in module.parameters())
    h = np.zeros((x.shape[1], module.hidden_size))
    c = np.zeros_like(h)
    outs = []
    for x_t in x:
        gi, gh = x_t @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        if cls == "RNN":
            h = np.tanh(gi + gh)
        elif cls == "LSTM":
            i, f, g, o = np.split(gi + gh, 4, axis=1)
            c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
            h = sigmoid(o) * np.tanh(c)
        else:
            (i_r, i_z, i_n), (h_r, h_z, h_n) = np.split(gi, 3, axis=1), np.split(gh, 3, axis=1)
            r, z = sigmoid(i_r + h_r), sigmoid(i_z + h_z)
            n = np.tanh(i_n + r * h_n)
            h = (1 - z) * n + z * h
        outs.append(h)
    return np.stack(outs), h


@pytest.mark.parametrize("cls", LAYERS)
def test_layers_follow_the_gate_formulas(cls: str) -> None:
    module = layer(cls, 3, 4)
    x = np.random.default_rng(1).standard_normal((5, 2, 3))
    out, final = module(torch.tensor(x))
    want_out, want_h = reference(cls, module, x)
    np.testing.assert_allclose(out.detach().numpy(), want_out, rtol=1e-12, atol=1e-14)
    h = final[0] if isinstance(final, tuple) else final
    np.testing.assert_allclose(h[0].detach().numpy(), want_h, rtol=1e-12, atol=1e-14)


# --- gradients ----------------------------------------------------------------------------


def outputs(result: Any) -> tuple[torch.Tensor, ...]:
    """A layer's output (a PackedSequence's data) and its final states, as one tuple."""
    out, final = result
    data = out.data if isinstance(out, tuple) else out
    return (data, *(final if isinstance(final, tuple) else (final,)))


def check_layer(module: Any, x: Any, state: Any, seed: int | None = None, pack: Any = None) -> None:
    """gradcheck on the input and initial states; each parameter's gradient against a
    central difference along a random direction. `seed` fixes the dropout masks."""
    states = list(state) if isinstance(state, tuple) else [state]

    def run(x: torch.Tensor, *hidden: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if seed is not None:
            torch.manual_seed(seed)
        inp = x if pack is None else pack(x)
        return outputs(module(inp, tuple(hidden) if len(hidden) == 2 else hidden[0]))

    assert gradcheck(run, (x, *states))
    weights = [np.random.default_rng(9).standard_normal(tuple(t.shape)) for t in run(x, *states)]

    def loss() -> torch.Tensor:
        return sum(
            (t * torch.tensor(w)).sum() for t, w in zip(run(x, *states), weights, strict=True)
        )

    module.zero_grad()
    loss().backward()
    rng, eps = np.random.default_rng(4), 1e-6
    for p in module.parameters():
        direction = torch.tensor(rng.standard_normal(tuple(p.shape)))
        with torch.no_grad():
            p += eps * direction
            up = loss().item()
            p -= 2 * eps * direction
            down = loss().item()
            p += eps * direction
        numeric = (up - down) / (2 * eps)
        assert math.isclose((p.grad * direction).sum().item(), numeric, rel_tol=1e-6, abs_tol=1e-8)


def initial_state(cls: str, rows: int, batch: int, hidden: int, proj: int = 0) -> Any:
    h = f64(rows, batch, proj or hidden, seed=2)
    return (h, f64(rows, batch, hidden, seed=3)) if cls == "LSTM" else h


@pytest.mark.parametrize("cls", LAYERS)
def test_gradcheck_stacked_bidirectional(cls: str) -> None:
    proj = 1 if cls == "LSTM" else 0
    extra = {"proj_size": proj} if proj else {}
    module = layer(cls, 2, 2, num_layers=2, bidirectional=True, **extra)
    check_layer(module, f64(3, 2, 2, seed=1), initial_state(cls, 4, 2, 2, proj))


@pytest.mark.parametrize("cls", LAYERS)
def test_gradcheck_packed_with_dropout(cls: str) -> None:
    module = layer(cls, 2, 2, num_layers=2, bidirectional=True, dropout=0.3, batch_first=True)

    def pack(x: torch.Tensor) -> Any:
        return pack_padded_sequence(x, [2, 4, 1], batch_first=True, enforce_sorted=False)

    check_layer(module, f64(3, 4, 2, seed=1), initial_state(cls, 4, 3, 2), seed=5, pack=pack)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_gradcheck_cells(cls: str) -> None:
    torch.manual_seed(0)
    cell = getattr(torch.nn, cls)(2, 3, dtype=torch.float64)
    h, c = f64(2, 3, seed=2), f64(2, 3, seed=3)

    def run(x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> Any:
        return cell(x, (h, c)) if cls == "LSTMCell" else cell(x, h)

    assert gradcheck(run, (f64(2, 2, seed=1), h, c))
    assert gradcheck(lambda x, h, c: run(x[0], h[0], c[0]), (f64(2, 2, seed=1), h, c))


# --- identities between ways of running -----------------------------------------------------


@pytest.mark.parametrize("cls", LAYERS)
def test_packed_run_equals_each_sequence_alone(cls: str) -> None:
    module = layer(cls, 3, 4, num_layers=2, bidirectional=True)
    x, lengths = f64(5, 3, 3, seed=1), [3, 5, 2]
    packed_out, packed_final = module(pack_padded_sequence(x, lengths, enforce_sorted=False))
    padded, got_lengths = pad_packed_sequence(packed_out)
    assert got_lengths.tolist() == lengths
    finals = packed_final if isinstance(packed_final, tuple) else (packed_final,)
    for b, n in enumerate(lengths):
        out, final = module(x[:n, b])  # unbatched: (steps, features)
        np.testing.assert_allclose(padded[:n, b].detach().numpy(), out.detach().numpy(), rtol=1e-12)
        assert not padded[n:, b].detach().numpy().any()
        alone = final if isinstance(final, tuple) else (final,)
        for f, a in zip(finals, alone, strict=True):
            np.testing.assert_allclose(f[:, b].detach().numpy(), a.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("cls", LAYERS)
def test_reverse_direction_reads_the_sequence_backwards(cls: str) -> None:
    both = layer(cls, 3, 4, bidirectional=True)
    forward_only = layer(cls, 3, 4)
    with torch.no_grad():
        for name, p in forward_only.named_parameters():
            p.copy_(getattr(both, name + "_reverse"))
    x = f64(5, 2, 3, seed=1)
    out, _ = both(x)
    flipped, _ = forward_only(x.flip(0))
    np.testing.assert_allclose(out[..., 4:].detach().numpy(), flipped.flip(0).detach().numpy())


@pytest.mark.parametrize("cls", LAYERS)
def test_batch_first_and_unbatched_agree_with_the_default_layout(cls: str) -> None:
    x = f64(5, 2, 3, seed=1)
    out, _ = layer(cls, 3, 4, num_layers=2)(x)
    out_bf, _ = layer(cls, 3, 4, num_layers=2, batch_first=True)(x.transpose(0, 1))
    np.testing.assert_array_equal(out_bf.transpose(0, 1).detach().numpy(), out.detach().numpy())
    single, _ = layer(cls, 3, 4, num_layers=2)(x[:, 1])
    np.testing.assert_allclose(single.detach().numpy(), out[:, 1].detach().numpy(), rtol=1e-12)


def test_dropout_acts_only_between_layers_in_training() -> None:
    x = f64(4, 2, 3, seed=1)
    lstm = layer("LSTM", 3, 4, num_layers=2, dropout=1.0)
    cut, _ = lstm(x)  # the second layer sees only zeros
    zeros_in, _ = layer("LSTM", 3, 4, num_layers=2)(x)
    lstm.eval()
    kept, _ = lstm(x)
    np.testing.assert_array_equal(kept.detach().numpy(), zeros_in.detach().numpy())
    second = lstm.weight_ih_l1  # with p = 1 its gradient is zero: no input reaches it
    cut.sum().backward()
    assert second.grad is not None and not second.grad.numpy().any()
    assert not np.allclose(cut.detach().numpy(), kept.detach().numpy())
