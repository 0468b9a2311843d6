"""unsafe_split/_with_sizes/unsafe_chunk, block_diag, combinations, unravel_index and vander:
recorded outcomes (values, dtypes, node names, errors), the same cases against torch, and
what makes the unsafe splits unsafe (their pieces share memory but are not views)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from recorded_calls import outcome
from recorded_positions import RECORDED

A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def _graph(t: Any, depth: int = 6) -> Any:
    """The names of the nodes t's graph reaches, nested, to `depth` (edges to no node are
    left out: chainrule's masked_select keeps one for its mask, where PyTorch has none)."""

    def walk(node: Any, d: int) -> Any:
        if d == 0:
            return None
        return (node.name(), tuple(walk(n, d - 1) for n, _ in node.next_functions if n))

    return walk(t.grad_fn, depth)


def _strides(ts: Any) -> Any:
    return [t.stride() for t in ts]


CASES: dict[str, Callable[[Any], Any]] = {
    "unsafe_split": lambda m: m.unsafe_split(m.tensor(A, requires_grad=True), 2, 1),
    "unsafe_split_strides": lambda m: _strides(m.unsafe_split(m.tensor(A), 2, 1)),
    "unsafe_split_with_sizes": lambda m: m.unsafe_split_with_sizes(
        m.tensor(A, requires_grad=True), [1, 2], 1
    ),
    "unsafe_chunk": lambda m: m.tensor(A, requires_grad=True).unsafe_chunk(2, 1),
    "unsafe_chunk_empty": lambda m: len(m.unsafe_chunk(m.ones(0, 3), 3)),
    "unsafe_split_list": lambda m: m.unsafe_split(m.tensor(A), [1, 2], 1),
    "unsafe_split_method_list": lambda m: m.tensor(A).unsafe_split([1, 2], 1),
    "unsafe_chunk_method_float": lambda m: m.tensor(A).unsafe_chunk(2.0),
    "unsafe_chunk_float": lambda m: m.unsafe_chunk(m.tensor(A), 2.0),
    "unsafe_split_bad_sizes": lambda m: m.unsafe_split_with_sizes(m.tensor(A), [1, 1], 1),
    "unsafe_split_zero": lambda m: m.unsafe_split(m.tensor(A), 0, 1),
    "unsafe_chunk_zero": lambda m: m.unsafe_chunk(m.tensor(A), 0, 1),
    "unsafe_chunk_0d": lambda m: m.unsafe_chunk(m.tensor(1.0), 1),
    "unsafe_split_0d": lambda m: m.unsafe_split(m.tensor(1.0), 1),
    "unsafe_split_one_piece": lambda m: m.unsafe_split(m.tensor(A, requires_grad=True), 5, 1),
    "block_diag": lambda m: m.block_diag(
        m.tensor(2.0, requires_grad=True), m.tensor([1, 2]), m.ones(2, 2, dtype=m.float64)
    ),
    "block_diag_none": lambda m: m.block_diag(),
    "block_diag_0d_counts_less": lambda m: m.block_diag(m.tensor(2.0, dtype=m.float64), m.ones(2)),
    "block_diag_empty_blocks": lambda m: m.block_diag(m.ones(0, 2), m.ones(2, 0)),
    "block_diag_ints": lambda m: m.block_diag(m.ones(2, dtype=m.bool), m.ones(1, dtype=m.uint8)),
    "block_diag_3d": lambda m: m.block_diag(m.ones(2, 2, 2)),
    "block_diag_list": lambda m: m.block_diag([m.ones(1)]),
    "combinations": lambda m: m.combinations(m.tensor([1.0, 2, 3, 4], requires_grad=True)),
    "combinations_graph": lambda m: _graph(m.combinations(m.tensor([1.0, 2], requires_grad=True))),
    "combinations_replacement": lambda m: m.combinations(m.tensor([1, 2, 3]), 3, True),
    "combinations_r0": lambda m: m.combinations(m.tensor([1.0, 2], requires_grad=True), 0),
    "combinations_r_too_big": lambda m: m.combinations(m.tensor([1.0, 2]), 3),
    "combinations_empty": lambda m: m.combinations(m.tensor([]), 2),
    "combinations_2d": lambda m: m.combinations(m.ones(2, 2)),
    "combinations_0d": lambda m: m.combinations(m.tensor(3.0), 1),
    "combinations_negative": lambda m: m.combinations(m.ones(3), -1),
    "unravel_index_0d": lambda m: m.unravel_index(m.tensor(4), (3, 2)),
    "unravel_index": lambda m: m.unravel_index(m.tensor([4, 1]), (3, 2)),
    "unravel_index_size": lambda m: m.unravel_index(
        m.tensor([[1234], [5678]]), m.Size([10, 10, 10, 10])
    ),
    "unravel_index_strides": lambda m: _strides(m.unravel_index(m.tensor([[4, 2]]), (3, 2))),
    "unravel_index_int": lambda m: m.unravel_index(m.tensor([1]), 6),
    "unravel_index_no_dims": lambda m: m.unravel_index(m.tensor([1]), ()),
    "unravel_index_negative": lambda m: m.unravel_index(m.tensor([-1, -7]), (3, 2)),
    "unravel_index_out_of_range": lambda m: m.unravel_index(m.tensor([6]), (3, 2)),
    "unravel_index_int32": lambda m: m.unravel_index(m.tensor([5], dtype=m.int32), (2, 3)),
    "unravel_index_uint8": lambda m: m.unravel_index(m.tensor([5], dtype=m.uint8), (2, 3)),
    "unravel_index_float": lambda m: m.unravel_index(m.tensor([1.0]), (3, 2)),
    "unravel_index_bool": lambda m: m.unravel_index(m.tensor([True]), (6,)),
    "unravel_index_negative_shape": lambda m: m.unravel_index(m.tensor([1]), (3, -2)),
    "unravel_index_float_shape": lambda m: m.unravel_index(m.tensor([1]), (2.0,)),
    "vander": lambda m: m.vander(m.tensor([1.0, 2, 3], requires_grad=True)),
    "vander_graph": lambda m: _graph(m.vander(m.tensor([1.0, 2, 3], requires_grad=True)), 2),
    "vander_increasing": lambda m: m.vander(m.tensor([1.0, 2, 3]), 4, True),
    "vander_int8": lambda m: m.vander(m.tensor([1, 2, 3], dtype=m.int8)),
    "vander_bool": lambda m: m.vander(m.tensor([True, False])),
    "vander_half": lambda m: m.vander(m.ones(2, dtype=m.float16)),
    "vander_no_columns": lambda m: m.vander(m.tensor([1.0, 2]), N=0),
    "vander_one_column": lambda m: m.vander(m.tensor([1.0, 2]), N=1),
    "vander_2d": lambda m: m.vander(m.ones(2, 2)),
    "vander_negative_n": lambda m: m.vander(m.ones(2), N=-1),
    # PyTorch's own backward fails: its cumprod's input is overwritten by the copy after it.
    "vander_backward": lambda m: (
        m.vander(m.tensor([1.0, 2, 3], requires_grad=True)).sum().backward()
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_recorded(name: str) -> None:
    assert outcome(CASES[name], chainrule) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(torch: Any, name: str) -> None:
    assert outcome(CASES[name], chainrule) == outcome(CASES[name], torch)


def test_recording_covers_the_cases() -> None:
    assert set(RECORDED) == set(CASES)


# --- what makes the unsafe splits unsafe -------------------------------------------------------


@pytest.mark.parametrize(
    "split",
    [
        lambda x: chainrule.unsafe_split(x, 2),
        lambda x: chainrule.unsafe_split_with_sizes(x, [2, 2]),
        lambda x: x.unsafe_chunk(2),
    ],
)
def test_unsafe_pieces_share_memory_but_are_not_views(split: Callable[[Any], Any]) -> None:
    x = chainrule.ones(4)
    pieces = split(x)
    assert all(p._base is None for p in pieces)
    pieces[0].add_(1)  # no view bookkeeping: the input's version stays
    assert x.tolist() == [2.0, 2.0, 1.0, 1.0]
    assert x._version == 0 and pieces[0]._version == 1


def test_unsafe_pieces_may_be_modified_in_place_in_a_graph() -> None:
    a = chainrule.tensor(A, requires_grad=True)
    piece = chainrule.unsafe_split(a * 1, 1, 0)[0]
    piece.mul_(2)
    piece.sum().backward()
    assert a.grad.tolist() == [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]


# --- drawn inputs --------------------------------------------------------------------------


@given(n=st.integers(0, 6), r=st.integers(0, 4), with_replacement=st.booleans())
def test_combinations_drawn(torch: Any, n: int, r: int, with_replacement: bool) -> None:
    def call(m: Any) -> Any:
        return m.combinations(m.arange(n, dtype=m.float32), r, with_replacement)

    assert outcome(call, chainrule) == outcome(call, torch)


@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    seed=st.integers(0, 2**16),
)
def test_unravel_index_agrees_with_numpy(shape: list[int], seed: int) -> None:
    size = int(np.prod(shape))
    flat = np.random.default_rng(seed).integers(0, size, 7)
    got = chainrule.unravel_index(chainrule.tensor(flat), tuple(shape))
    for mine, want in zip(got, np.unravel_index(flat, shape), strict=True):
        np.testing.assert_array_equal(mine.numpy(), want)
