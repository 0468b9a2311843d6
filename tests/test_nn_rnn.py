"""Recurrent layers (RNN, LSTM, GRU) and cells against PyTorch: parameter names, order and
initial values under a seed, reprs, outputs, final states and every gradient for drawn
sizes and options, dropout between layers in training, packed and unbatched inputs, and
the error messages. Without torch: recorded values and messages, gradchecks in float64,
packed-versus-padded equivalence and a NumPy reference of the gate formulas.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from nn_compare import assert_same, error, normalize, outcome

LAYERS = ("RNN", "LSTM", "GRU")
CELLS = ("RNNCell", "LSTMCell", "GRUCell")


def run_layer(
    m: Any,
    cls: str,
    opts: dict[str, Any],
    *,
    size: tuple[int, int, int, int] = (3, 4, 5, 2),  # input, hidden, steps, batch
    dtype: str = "float64",
    train: bool = False,
    give_state: bool = False,
    unbatched: bool = False,
    lengths: list[int] | None = None,
) -> dict[str, Any]:
    """One forward and backward of a seeded layer on seeded data: everything that comes out."""
    input_size, hidden, steps, batch = size
    m.manual_seed(0)
    layer = getattr(m.nn, cls)(input_size, hidden, dtype=getattr(m, dtype), **opts).train(train)
    rng = np.random.default_rng(1)
    directions = 2 if opts.get("bidirectional") else 1
    state_rows = opts.get("num_layers", 1) * directions
    h_size = opts.get("proj_size") or hidden
    shape = (batch, steps, input_size) if opts.get("batch_first") else (steps, batch, input_size)
    x = m.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    h0 = m.tensor(
        rng.standard_normal((state_rows, batch, h_size)).astype(dtype), requires_grad=True
    )
    c0 = m.tensor(
        rng.standard_normal((state_rows, batch, hidden)).astype(dtype), requires_grad=True
    )
    inp, state = x, ((h0, c0) if cls == "LSTM" else h0) if give_state else None
    if unbatched:
        inp = x[0] if opts.get("batch_first") else x[:, 0]
        if state is not None:
            state = (h0[:, 0], c0[:, 0]) if cls == "LSTM" else h0[:, 0]
    if lengths is not None:
        pack = m.nn.utils.rnn.pack_padded_sequence
        inp = pack(x, lengths, batch_first=bool(opts.get("batch_first")), enforce_sorted=False)
    out, final = layer(inp, state)
    if lengths is not None:
        out = m.nn.utils.rnn.pad_packed_sequence(out, batch_first=bool(opts.get("batch_first")))[0]
    finals = final if isinstance(final, tuple) else (final,)
    weight = m.tensor(rng.standard_normal(tuple(out.shape)).astype(dtype))
    loss = (out * weight).sum() + sum((f * f).sum() for f in finals)
    loss.backward()
    named = list(layer.named_parameters())
    return {
        "repr": repr(layer),
        "names": [name for name, _ in named],
        "init": [p.detach() for _, p in named],
        "out": out,
        "finals": list(finals),
        "grads": [x.grad, h0.grad, c0.grad, *(p.grad for _, p in named)],
    }


def arrays(obj: Any) -> Any:
    """Tensors as arrays (lists kept, None kept): values compared with a tolerance."""
    if isinstance(obj, list | tuple):
        return [arrays(o) for o in obj]
    return None if obj is None else obj.detach().numpy()


def compare(torch: Any, cls: str, opts: dict[str, Any], **kw: Any) -> None:
    dtype = kw.get("dtype", "float64")
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine, theirs = run_layer(chainrule, cls, opts, **kw), run_layer(torch, cls, opts, **kw)
    for key in ("repr", "names", "init"):  # construction is exact
        assert_same(normalize(mine[key], chainrule), normalize(theirs[key], torch), path=key)
    for key in ("out", "finals", "grads"):
        assert_same(arrays(mine[key]), arrays(theirs[key]), path=key, **tol)


# --- against torch ------------------------------------------------------------------------

OPTIONS = [
    {},
    {"num_layers": 2, "bidirectional": True},
    {"batch_first": True, "bias": False},
    {"num_layers": 3, "bidirectional": True, "batch_first": True},
]


@pytest.mark.parametrize("opts", OPTIONS)
@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_matches_torch(torch: Any, cls: str, opts: dict[str, Any], dtype: str) -> None:
    compare(torch, cls, opts, dtype=dtype, give_state=True)


@pytest.mark.parametrize(
    "opts",
    [{"proj_size": 2}, {"proj_size": 3, "num_layers": 2, "bidirectional": True, "bias": False}],
)
def test_lstm_projection_matches_torch(torch: Any, opts: dict[str, Any]) -> None:
    compare(torch, "LSTM", opts)
    compare(torch, "LSTM", opts, give_state=True, dtype="float32")


def test_relu_rnn_matches_torch(torch: Any) -> None:
    compare(torch, "RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True})


@pytest.mark.parametrize("cls", LAYERS)
def test_dropout_between_layers_draws_as_torch(torch: Any, cls: str) -> None:
    # Masks are drawn from the seeded generator after construction, in PyTorch's order.
    opts = {"num_layers": 3, "dropout": 0.4, "bidirectional": True}
    compare(torch, cls, opts, train=True)
    compare(torch, cls, {**opts, "batch_first": True}, train=True, lengths=[3, 5])
    compare(torch, cls, opts, train=False)  # eval: no dropout


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("give_state", [False, True])
def test_unbatched_input_matches_torch(torch: Any, cls: str, give_state: bool) -> None:
    opts = {"num_layers": 2, "bidirectional": True}
    compare(torch, cls, opts, unbatched=True, give_state=give_state)
    compare(torch, cls, {**opts, "batch_first": True}, unbatched=True, give_state=give_state)


@pytest.mark.parametrize("cls", LAYERS)
@pytest.mark.parametrize("batch_first", [False, True])
def test_packed_input_matches_torch(torch: Any, cls: str, batch_first: bool) -> None:
    opts = {"num_layers": 2, "bidirectional": True, "batch_first": batch_first}
    if cls == "LSTM":
        opts["proj_size"] = 2
    size = (3, 4, 5, 4)
    compare(torch, cls, opts, size=size, lengths=[2, 5, 1, 4], give_state=True)
    compare(torch, cls, opts, size=size, lengths=[5, 5, 3, 3], dtype="float32")


@given(
    cls=st.sampled_from(LAYERS),
    size=st.tuples(*(st.integers(1, 4),) * 4),
    layers=st.integers(1, 2),
    flags=st.tuples(*(st.booleans(),) * 5),
    proj=st.integers(0, 3),
    data=st.data(),
)
def test_drawn_layers_match_torch(
    torch: Any,
    cls: str,
    size: tuple[int, int, int, int],
    layers: int,
    flags: tuple[bool, ...],
    proj: int,
    data: Any,
) -> None:
    bidirectional, batch_first, bias, give_state, packed = flags
    opts: dict[str, Any] = {"num_layers": layers, "bidirectional": bidirectional}
    opts.update(batch_first=batch_first, bias=bias)
    if cls == "LSTM" and proj < size[1]:
        opts["proj_size"] = proj
    lengths = None
    if packed:
        lengths = data.draw(st.lists(st.integers(1, size[2]), min_size=size[3], max_size=size[3]))
    compare(torch, cls, opts, size=size, give_state=give_state, lengths=lengths)


@pytest.mark.parametrize("cls", CELLS)
@pytest.mark.parametrize("case", ["batched", "unbatched", "no_state", "no_bias"])
def test_cell_matches_torch(torch: Any, cls: str, case: str) -> None:
    def scenario(m: Any) -> list[Any]:
        m.manual_seed(0)
        opts: dict[str, Any] = {"bias": case != "no_bias"}
        if cls == "RNNCell":
            opts["nonlinearity"] = "relu" if case == "no_bias" else "tanh"
        cell = getattr(m.nn, cls)(3, 4, **opts)
        rng = np.random.default_rng(2)
        x, h, c = (
            m.tensor(rng.standard_normal(s).astype("float32"), requires_grad=True)
            for s in ((2, 3), (2, 4), (2, 4))
        )
        state = (h, c) if cls == "LSTMCell" else h
        if case == "unbatched":
            got = cell(x[1], (h[1], c[1]) if cls == "LSTMCell" else h[1])
        else:
            got = cell(x, None if case == "no_state" else state)
        outs = got if isinstance(got, tuple) else (got,)
        sum((o * o).sum() for o in outs).backward()
        grads = [x.grad, h.grad, c.grad, *(p.grad for p in cell.parameters())]
        return [repr(cell), list(cell.state_dict()), arrays([*outs, *grads])]

    mine, theirs = scenario(chainrule), scenario(torch)
    assert mine[:2] == theirs[:2]
    assert_same(mine[2], theirs[2], rtol=1e-5, atol=1e-6)


def layer_errors(m: Any) -> dict[str, Callable[[], Any]]:
    lstm, gru = m.nn.LSTM(10, 20, 2), m.nn.GRU(10, 20)
    cell, rnn_cell = m.nn.LSTMCell(10, 20), m.nn.RNNCell(10, 20, nonlinearity="foo")
    pack = m.nn.utils.rnn.pack_padded_sequence
    return {
        "input_size": lambda: lstm(m.randn(5, 3, 7)),
        "hidden0": lambda: lstm(m.randn(5, 3, 10), (m.randn(1, 3, 20), m.randn(2, 3, 20))),
        "hidden1": lambda: lstm(m.randn(5, 3, 10), (m.randn(2, 3, 20), m.randn(2, 2, 20))),
        "dtype": lambda: lstm(m.randn(5, 3, 10).double()),
        "lstm_4d": lambda: lstm(m.randn(5, 3, 10, 1)),
        "lstm_unbatched_hx": lambda: lstm(m.randn(5, 10), (m.randn(2, 3, 20),) * 2),
        "lstm_batched_hx": lambda: lstm(m.randn(5, 3, 10), (m.randn(2, 20), m.randn(2, 3, 20))),
        "no_steps": lambda: lstm(m.randn(0, 3, 10)),
        "gru_hidden": lambda: gru(m.randn(5, 3, 10), m.randn(1, 3, 21)),
        "gru_batched_hx": lambda: gru(m.randn(5, 3, 10), m.randn(3, 21)),
        "gru_unbatched_hx": lambda: gru(m.randn(5, 10), m.randn(1, 3, 21)),
        "gru_unbatched_size": lambda: gru(m.randn(5, 10), m.randn(2, 21)),
        "rnn_4d": lambda: m.nn.RNN(10, 20)(m.randn(5, 10, 1, 1)),
        "gru_4d": lambda: gru(m.randn(5, 10, 1, 1)),
        "packed_size": lambda: gru(pack(m.randn(4, 3, 7), [4, 3, 1])),
        "packed_hidden": lambda: gru(pack(m.randn(4, 3, 10), [4, 3, 1]), m.randn(2, 3, 20)),
        "cell_input": lambda: cell(m.randn(3, 7)),
        "cell_batch": lambda: cell(m.randn(3, 10), (m.randn(2, 20), m.randn(3, 20))),
        "cell_hidden0": lambda: cell(m.randn(3, 10), (m.randn(3, 21), m.randn(3, 20))),
        "cell_hidden1": lambda: cell(m.randn(3, 10), (m.randn(3, 20), m.randn(3, 21))),
        "cell_three_states": lambda: cell(m.randn(3, 10), (m.randn(3, 20),) * 3),
        "cell_3d": lambda: cell(m.randn(3, 10, 1)),
        "cell_hx_3d": lambda: cell(m.randn(3, 10), (m.randn(3, 20), m.randn(3, 20, 1))),
        "gru_cell_hidden": lambda: m.nn.GRUCell(10, 20)(m.randn(10), m.randn(3, 20)),
        "gru_cell_3d": lambda: m.nn.GRUCell(10, 20)(m.randn(3, 10), m.randn(3, 20, 1)),
        "cell_nonlinearity": lambda: rnn_cell(m.randn(3, 10)),
        "nonlinearity": lambda: m.nn.RNN(10, 20, 2, "foo"),
        "rnn_proj": lambda: m.nn.RNN(10, 20, proj_size=3),
        "gru_proj": lambda: m.nn.GRU(10, 20, proj_size=3),
        "proj_big": lambda: m.nn.LSTM(10, 20, proj_size=20),
        "proj_negative": lambda: m.nn.LSTM(10, 20, proj_size=-1),
        "dropout_range": lambda: m.nn.LSTM(10, 20, dropout=1.5),
        "dropout_bool": lambda: m.nn.LSTM(10, 20, dropout=True),
        "input_size_type": lambda: m.nn.LSTM(10.0, 20),
        "hidden_size_type": lambda: m.nn.GRU(10, 20.0),
        "input_size_zero": lambda: m.nn.LSTM(0, 20),
        "hidden_size_zero": lambda: m.nn.LSTM(10, 0),
        "num_layers_zero": lambda: m.nn.LSTM(10, 20, 0),
        "bias_type": lambda: m.nn.LSTM(10, 20, bias=1),
        "batch_first_type": lambda: m.nn.LSTM(10, 20, batch_first=None),
        "mode": lambda: m.nn.RNNBase("FOO", 10, 20),
    }


# Recorded from PyTorch 2.13 (type, message), so the check runs without torch too.
RECORDED_ERRORS = {
    "input_size": (
        "RuntimeError",
        "input.size(-1) must be equal to input_size. Expected 10, got 7",
    ),
    "hidden0": ("RuntimeError", "Expected hidden[0] size (2, 3, 20), got [1, 3, 20]"),
    "gru_hidden": ("RuntimeError", "Expected hidden size (1, 3, 20), got [1, 3, 21]"),
    "dtype": (
        "ValueError",
        "RNN input dtype (torch.float64) does not match weight dtype (torch.float32). "
        "Convert input: input.to(torch.float32), or convert model: model.to(torch.float64)",
    ),
    "rnn_4d": ("ValueError", "RNN: Expected input to be 2D or 3D, got 4D tensor instead"),
    "no_steps": ("RuntimeError", "Expected sequence length to be larger than 0 in RNN"),
    "cell_input": ("RuntimeError", "input has inconsistent input_size: got 7 expected 10"),
    "cell_batch": ("RuntimeError", "Input batch size 3 doesn't match hidden0 batch size 2"),
    "cell_hidden1": ("RuntimeError", "hidden1 has inconsistent hidden_size: got 21, expected 20"),
    "proj_big": ("ValueError", "proj_size has to be smaller than hidden_size"),
    "nonlinearity": ("ValueError", "Unknown nonlinearity 'foo'. Select from 'tanh' or 'relu'."),
}


def test_errors_match_torch(torch: Any) -> None:
    mine, theirs = layer_errors(chainrule), layer_errors(torch)
    for name in theirs:
        got = outcome(lambda m, f=mine[name]: error(f), chainrule)
        assert got == outcome(lambda m, f=theirs[name]: error(f), torch), name


def test_errors_match_recorded() -> None:
    cases = layer_errors(chainrule)
    for name, (kind, message) in RECORDED_ERRORS.items():
        assert outcome(lambda m, f=cases[name]: error(f), chainrule) == [kind, message], name


def test_dropout_warning_and_flat_weights_match_torch(torch: Any) -> None:
    def scenario(m: Any) -> list[Any]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lstm = m.nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2)
            m.nn.GRU(3, 4, dropout=0.5)
        lstm.flatten_parameters()
        return [
            [str(w.message) for w in caught],
            lstm._flat_weights_names,
            [[tuple(p.shape) for p in ws] for ws in lstm.all_weights],
            [w is p for w, p in zip(lstm._flat_weights, lstm.parameters(), strict=True)],
            repr(m.nn.RNN(3, 4, 1, "relu", False, True, 0.3, True)),
            repr(lstm.double()(m.zeros(2, 0, 3, dtype=m.float64))[0]),
        ]

    assert_same(outcome(scenario, chainrule), outcome(scenario, torch))
