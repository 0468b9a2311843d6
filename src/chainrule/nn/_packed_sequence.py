"""Batches of sequences of different lengths: padding them to one length, and packing them
into a `PackedSequence` (time-major rows, longest sequences first) that the recurrent
layers read step by step. Every move of data is an indexing op, so gradients flow through.

Public as `nn.utils.rnn`; it lives here, beside `nn.utils` rather than in it, because the
recurrent layers in `nn.modules` need it and `nn.utils` itself imports `nn.modules`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import _dtype
from .._creation import arange, as_tensor, tensor
from .._ops.broadcasting import broadcast_error
from .._ops.primitive import Primitive
from .._ops.reduction.sorting import sort
from .._ops.shape.views import cat
from .._tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """A batch of sequences stored step-major: `data` holds, for each time step t, the
    rows of the `batch_sizes[t]` sequences still running (sorted longest first);
    `sorted_indices` says which original sequence each batch column is, and
    `unsorted_indices` is its inverse. Build one with `pack_padded_sequence` or
    `pack_sequence` rather than by hand."""

    def __new__(
        cls,
        data: Any,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # `PackedSequence((data, batch_sizes))`, the form older code uses.
            if not (isinstance(data, list | tuple) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """`data.to(...)`; the batch sizes and indices stay as they are (on the CPU)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to(*args, **kwargs)

    def pin_memory(self) -> PackedSequence:
        return self

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=_dtype.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=_dtype.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=_dtype.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=_dtype.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=_dtype.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation q with q[p[i]] = i (None stays None)."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation._data)
    inverse[permutation._data] = np.arange(permutation._data.size)
    return tensor(inverse)


def _lengths_array(lengths: Any) -> np.ndarray:
    """`lengths` as a 1-D int64 array, with PyTorch's check of a tensor's shape."""
    if isinstance(lengths, Tensor):
        arr = lengths._data.astype(np.int64)
        if arr.ndim != 1:
            raise RuntimeError(
                "'lengths' argument should be a 1D CPU int64 tensor, but got "
                f"{arr.ndim}D cpu Long tensor"
            )
        return arr
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _batch_sizes(lengths: np.ndarray) -> np.ndarray:
    """How many sequences are still running at each step (lengths sorted descending)."""
    steps = np.arange(int(lengths[0]) if lengths.size else 0)
    return (lengths[None, :] > steps[:, None]).sum(axis=1).astype(np.int64)


def _time_major(a: np.ndarray, batch_first: bool) -> np.ndarray:
    return a.swapaxes(0, 1) if batch_first else a


def _pack_rows(input: np.ndarray, rows: np.ndarray, batch_first: bool) -> np.ndarray:
    """The rows of the (time-major, flattened) padded input that hold sequence steps."""
    padded = _time_major(input, batch_first)
    return padded.reshape(-1, *padded.shape[2:])[rows]


def _unpack_grad(grad: Tensor, n: Any) -> Tensor:
    """Each packed row's gradient back in its padded slot; padding slots get zeros."""
    shape = _time_major(np.empty(n.self_sizes, dtype=bool), n.batch_first).shape
    slots = np.full(shape[0] * shape[1], grad._data.shape[0], dtype=np.int64)
    slots[n.rows] = np.arange(n.rows.size)
    zero = grad.new_zeros((1, *grad._data.shape[1:]))
    padded = cat([grad, zero]).index_select(0, tensor(slots)).reshape(shape)
    return padded.transpose(0, 1) if n.batch_first else padded


_pack = Primitive(
    "PackPaddedSequenceBackward0",
    lambda input, rows, batch_first, self_sizes: _pack_rows(input, rows, batch_first),
    grads=(_unpack_grad,),
    inputs=("input",),
    formulas=("grad's rows put back in their padded slots, zeros elsewhere",),
    tangent="linear",
)


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | Sequence[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch (T, B, *) ((B, T, *) if batch_first) of sequences of the given
    lengths; unless `enforce_sorted`, the batch is first sorted by decreasing length."""
    lens = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        # PyTorch's torch.sort(lengths, descending=True), whose order we follow for ties.
        values, sorted_indices = sort(tensor(lens), descending=True)
        lens = values._data
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input._data.size == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input._data.shape[0 if batch_first else 1]
    if lens.size != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} "
            f"(batch_size={batch})"
        )
    if lens.size and lens[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if np.any(lens[1:] > lens[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
        )
    batch_sizes = _batch_sizes(lens)
    # Row t*B + b of the time-major input is step t of sequence b: keep the running ones.
    rows = np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)])
    data = _pack(
        input, rows=rows.astype(np.int64), batch_first=batch_first, self_sizes=input._data.shape
    )
    return PackedSequence(data, tensor(batch_sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo `pack_padded_sequence`: the padded batch (T, B, *) (or (B, T, *)) and the
    lengths, in the original batch order; T is `total_length` if given."""
    data, batch_sizes = sequence.data, sequence.batch_sizes._data.astype(np.int64)
    steps = batch_sizes.size
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    batch = int(batch_sizes[0]) if batch_sizes.size else 0
    # Filled with padding, then each step's rows copied in (PyTorch's CopySlices graph).
    padded = data.new_full((steps, batch, *data._data.shape[1:]), padding_value)
    offset = 0
    for t, size in enumerate(batch_sizes.tolist()):
        padded[t, :size] = data[offset : offset + size]
        offset += size
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1).astype(np.int64)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        padded = padded.index_select(0 if batch_first else 1, unsorted)
        lengths = lengths[unsorted._data]
    return padded, tensor(lengths)


def pad_sequence(
    sequences: Tensor | Iterable[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences (L_i, *) into (T, B, *) ((B, T, *) if batch_first), T the longest
    length, filling the rest with `padding_value` after each sequence (or before it)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    seqs = tuple(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    first = seqs[0]
    if first.ndim == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = first._data.shape[1:]
    longest = max(s._data.shape[0] if s.ndim else 1 for s in seqs)
    shape = (len(seqs), longest) if batch_first else (longest, len(seqs))
    out = first.new_full((*shape, *trailing), padding_value)
    for i, seq in enumerate(seqs):
        length = seq._data.shape[0]
        if seq._data.shape[1:] != trailing:
            raise RuntimeError(broadcast_error((length, *trailing), seq._data.shape))
        start = longest - length if padding_side == "left" else 0
        if batch_first:
            out[i, start : start + length] = seq
        else:
            out[start : start + length, i] = seq
    return out


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """Split a padded batch back into its sequences, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    steps = arange(padded_sequences._data.shape[1])
    return [seq[steps < n] for seq, n in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_i, *) (by decreasing length if `enforce_sorted`)."""
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
