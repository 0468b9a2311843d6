"""`nn.utils.rnn` against PyTorch: packing and padding (values, batch sizes, index
permutations, reprs, gradients) for drawn lengths and options, and the error messages.
Without torch: recorded reprs and messages, round trips, and gradchecks in float64.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule.autograd import gradcheck, gradgradcheck
from nn_compare import assert_same, error, outcome


def padded(m: Any, shape: tuple[int, ...], seed: int = 0) -> Any:
    data = np.random.default_rng(seed).standard_normal(shape)
    return m.tensor(data, dtype=m.float64, requires_grad=True)


def with_grad(m: Any, out: Any, inputs: list[Any]) -> list[Any]:
    """`out`, then the inputs' gradients of a fixed weighted sum of it."""
    tensor = out.data if isinstance(out, tuple) else out
    weight = np.random.default_rng(7).standard_normal(tuple(tensor.shape))
    (tensor * m.tensor(weight)).sum().backward()
    return [out, *(t.grad for t in inputs)]


def packing(m: Any, lengths: list[int], batch_first: bool, enforce_sorted: bool) -> list[Any]:
    R = m.nn.utils.rnn
    steps, batch = max(lengths) + 1, len(lengths)
    x = padded(m, (batch, steps, 2) if batch_first else (steps, batch, 2))
    packed = R.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    back = R.pad_packed_sequence(packed, batch_first, padding_value=-1.0, total_length=steps + 1)
    return [repr(packed), *with_grad(m, back[0], [x]), back[1]]


@given(
    lengths=st.lists(st.integers(1, 4), min_size=1, max_size=5),
    batch_first=st.booleans(),
)
def test_drawn_packing_matches_torch(torch: Any, lengths: list[int], batch_first: bool) -> None:
    # Ties in the lengths: the sort that orders the batch must break them as PyTorch's does.
    run = lambda m: packing(m, lengths, batch_first, enforce_sorted=False)  # noqa: E731
    assert_same(outcome(run, chainrule), outcome(run, torch))
    ordered = sorted(lengths, reverse=True)
    run = lambda m: packing(m, ordered, batch_first, enforce_sorted=True)  # noqa: E731
    assert_same(outcome(run, chainrule), outcome(run, torch))


@given(
    lengths=st.lists(st.integers(0, 4), min_size=1, max_size=4),
    trailing=st.lists(st.integers(1, 3), max_size=2),
    batch_first=st.booleans(),
    left=st.booleans(),
)
def test_drawn_pad_sequence_matches_torch(
    torch: Any, lengths: list[int], trailing: list[int], batch_first: bool, left: bool
) -> None:
    def run(m: Any) -> list[Any]:
        seqs = [padded(m, (n, *trailing), seed=i) for i, n in enumerate(lengths)]
        side = "left" if left else "right"
        out = m.nn.utils.rnn.pad_sequence(seqs, batch_first, 2.5, side)
        return with_grad(m, out, seqs)

    assert_same(outcome(run, chainrule), outcome(run, torch))


def test_sequence_lists_match_torch(torch: Any) -> None:
    def run(m: Any) -> list[Any]:
        R = m.nn.utils.rnn
        seqs = [padded(m, (n, 2), seed=n) for n in (2, 4, 1)]
        packed = R.pack_sequence(seqs, enforce_sorted=False)
        unpacked = R.unpack_sequence(packed)
        pad, lengths = R.pad_packed_sequence(packed)
        unpadded = R.unpad_sequence(pad.detach(), lengths)
        sorted_packed = R.pack_sequence(sorted(seqs, key=len, reverse=True))
        return [
            packed,
            unpacked,
            unpadded,
            sorted_packed,
            R.invert_permutation(m.tensor([2, 0, 1])),
        ]

    assert_same(outcome(run, chainrule), outcome(run, torch))


def test_packed_sequence_methods_match_torch(torch: Any) -> None:
    def run(m: Any) -> list[Any]:
        R = m.nn.utils.rnn
        x = m.arange(12.0).reshape(3, 2, 2)
        packed = R.pack_padded_sequence(x, m.tensor([3, 1]))
        return [
            type(packed).__name__,
            packed._fields,
            packed.to(m.float32) is packed,
            repr(packed.double()),
            repr(packed.to(m.float64).long()),
            repr(R.PackedSequence(m.ones(3), m.tensor([1, 1, 1]), m.tensor([0]))),
            repr(R.PackedSequence((m.ones(3), m.tensor([3])))),
            packed.is_cuda,
            isinstance(packed, tuple),
        ]

    assert_same(outcome(run, chainrule), outcome(run, torch))


def utils_errors(m: Any) -> dict[str, Callable[[], Any]]:
    R, x = m.nn.utils.rnn, m.zeros(4, 3, 2)
    packed = R.pack_padded_sequence(x, [4, 3, 1])
    return {
        "unsorted": lambda: R.pack_padded_sequence(x, [2, 3, 1]),
        "too_few": lambda: R.pack_padded_sequence(x, [4, 3]),
        "zero_length": lambda: R.pack_padded_sequence(x, [4, 3, 0]),
        "lengths_2d": lambda: R.pack_padded_sequence(x, m.tensor([[4, 3, 1]])),
        "batch_first_count": lambda: R.pack_padded_sequence(x, [4, 3, 1], batch_first=True),
        "empty_input": lambda: R.pack_padded_sequence(m.zeros(0, 3, 2), [1, 1, 1]),
        "total_length": lambda: R.pad_packed_sequence(packed, total_length=3),
        "empty_list": lambda: R.pad_sequence([]),
        "trailing": lambda: R.pad_sequence([m.zeros(2, 3), m.zeros(3, 4)]),
        "padding_side": lambda: R.pad_sequence([m.zeros(2)], padding_side="top"),
        "scalar": lambda: R.pad_sequence([m.tensor(1.0), m.zeros(3)]),
        "not_iterable": lambda: R.pad_sequence(5),
        "bad_tuple": lambda: R.PackedSequence(m.zeros(3)),
    }


# Recorded from PyTorch 2.13 (type, message), so the check runs without torch too.
RECORDED_ERRORS = {
    "unsorted": (
        "RuntimeError",
        "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
        "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
        "sidestep this requirement if you do not need ONNX exportability.",
    ),
    "too_few": (
        "RuntimeError",
        "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)",
    ),
    "zero_length": (
        "RuntimeError",
        "Length of all samples has to be greater than 0, but found an element in 'lengths' "
        "that is <= 0",
    ),
    "total_length": (
        "ValueError",
        "Expected total_length to be at least the length of the longest sequence in input, "
        "but got total_length=3 and max sequence length being 4",
    ),
    "trailing": (
        "RuntimeError",
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
    ),
    "padding_side": (
        "RuntimeError",
        "Expected padding_side to be one of left or right, but got top.",
    ),
}


def test_errors_match_torch(torch: Any) -> None:
    mine, theirs = utils_errors(chainrule), utils_errors(torch)
    for name in theirs:
        got = outcome(lambda m, f=mine[name]: error(f), chainrule)
        assert got == outcome(lambda m, f=theirs[name]: error(f), torch), name


def test_errors_match_recorded() -> None:
    cases = utils_errors(chainrule)
    for name, (kind, message) in RECORDED_ERRORS.items():
        assert outcome(lambda m, f=cases[name]: error(f), chainrule) == [kind, message], name


# --- without torch ------------------------------------------------------------------------


def test_packed_repr_is_recorded() -> None:
    R = chainrule.nn.utils.rnn
    x = chainrule.arange(6.0).reshape(3, 2, 1)
    packed = R.pack_padded_sequence(x, [1, 3], enforce_sorted=False)
    assert repr(packed) == (
        "PackedSequence(data=tensor([[1.],\n        [0.],\n        [3.],\n        [5.]]), "
        "batch_sizes=tensor([2, 1, 1]), sorted_indices=tensor([1, 0]), "
        "unsorted_indices=tensor([1, 0]))"
    )
    grad = chainrule.arange(6.0).reshape(3, 2, 1).requires_grad_()
    assert R.pack_padded_sequence(grad, [3, 1]).data.grad_fn.name() == (
        "PackPaddedSequenceBackward0"
    )


@pytest.mark.parametrize("batch_first", [False, True])
def test_round_trip_keeps_every_step_and_pads_the_rest(batch_first: bool) -> None:
    R = chainrule.nn.utils.rnn
    lengths = [2, 5, 3, 5]
    x = padded(chainrule, (4, 5, 3) if batch_first else (5, 4, 3))
    packed = R.pack_padded_sequence(x, lengths, batch_first, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [4, 4, 3, 2, 2]
    assert packed.data.shape == (sum(lengths), 3)
    out, got_lengths = R.pad_packed_sequence(packed, batch_first, padding_value=9.0)
    assert got_lengths.tolist() == lengths
    seqs = R.unpad_sequence(out, got_lengths, batch_first)
    view = x if batch_first else x.transpose(0, 1)
    for b, n in enumerate(lengths):
        np.testing.assert_array_equal(seqs[b].detach().numpy(), view[b, :n].detach().numpy())
        rest = (out if batch_first else out.transpose(0, 1))[b, n:]
        assert (rest.detach().numpy() == 9.0).all()
    unpacked = R.unpack_sequence(packed)
    assert [len(s) for s in unpacked] == lengths


def test_gradients_flow_through_packing() -> None:
    R = chainrule.nn.utils.rnn

    def round_trip(x: Any) -> Any:
        packed = R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        return R.pad_packed_sequence(packed, batch_first=True, total_length=5)[0]

    def pack_batch_first(x: Any) -> Any:
        return R.pack_padded_sequence(x, [3, 2, 2, 1], batch_first=True).data

    def pad(a: Any, b: Any) -> Any:
        return R.pad_sequence([a, b], padding_side="left", padding_value=1.0)

    x = padded(chainrule, (4, 3, 2))
    for fn, args in ((round_trip, (x,)), (pack_batch_first, (x,))):
        assert gradcheck(fn, args) and gradgradcheck(fn, args)
    seqs = (padded(chainrule, (3, 2), seed=1), padded(chainrule, (1, 2), seed=2))
    assert gradcheck(pad, seqs) and gradgradcheck(pad, seqs)
