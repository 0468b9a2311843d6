"""`nn.utils.rnn`: padding batches of sequences of different lengths and packing them into
a `PackedSequence` for the recurrent layers (defined in `nn._packed_sequence`)."""

from .._packed_sequence import (
    PackedSequence,
    invert_permutation,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

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
