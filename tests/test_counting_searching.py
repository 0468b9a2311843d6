"""bincount, histc, searchsorted, bucketize and isin: recorded outcomes (values, dtypes and
errors) checked always, the same cases against torch, and drawn inputs against torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from recorded_calls import outcome
from recorded_counting import RECORDED

NAN, INF = float("nan"), float("inf")
DATA = [1.0, 2.0, 1.0, 0.5, 4.0]
BOUNDS = [1, 3, 5, 7, 9]
VALUES = [[3, 6, 9], [3, 6, 9]]
ROWS = [[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]]

CASES: dict[str, Callable[[Any], Any]] = {
    "bincount": lambda m: m.bincount(m.tensor([0, 1, 1, 3])),
    "bincount_minlength": lambda m: m.bincount(m.tensor([0, 1, 1, 3]), minlength=6),
    "bincount_float32_weights": lambda m: m.bincount(
        m.tensor([0, 1, 1, 3]), m.tensor([0.5, 1, 1, 2])
    ),
    "bincount_int_weights": lambda m: m.bincount(m.tensor([0, 1, 1, 3]), m.tensor([1, 2, 3, 4])),
    "bincount_half_weights": lambda m: m.bincount(m.tensor([0, 1]), m.ones(2, dtype=m.float16)),
    "bincount_bool_weights": lambda m: m.tensor([0, 1, 1]).bincount(m.tensor([True, False, True])),
    "bincount_empty": lambda m: m.bincount(m.tensor([], dtype=m.int64)),
    "bincount_empty_minlength": lambda m: m.bincount(m.tensor([], dtype=m.int64), minlength=2),
    "bincount_uint8": lambda m: m.bincount(m.tensor([0, 1, 1, 3], dtype=m.uint8)),
    "bincount_negative": lambda m: m.bincount(m.tensor([-1, 2])),
    "bincount_float": lambda m: m.bincount(m.tensor([1.0, 2])),
    "bincount_bool": lambda m: m.bincount(m.tensor([True, False])),
    "bincount_2d": lambda m: m.bincount(m.ones(2, 2, dtype=m.int64)),
    "bincount_0d": lambda m: m.bincount(m.tensor(3)),
    "bincount_negative_minlength": lambda m: m.bincount(m.tensor([1]), minlength=-1),
    "bincount_short_weights": lambda m: m.bincount(m.tensor([0, 1]), m.ones(3)),
    "bincount_weights_grad": lambda m: m.bincount(m.tensor([0, 1]), m.ones(2, requires_grad=True)),
    "bincount_weights_backward": lambda m: (
        m.bincount(m.tensor([0, 1]), m.ones(2, requires_grad=True)).sum().backward()
    ),
    "histc": lambda m: m.histc(m.tensor(DATA), 4),
    "histc_range": lambda m: m.histc(m.tensor(DATA), 4, 0, 3),
    "histc_equal_ends": lambda m: m.histc(m.tensor(DATA), bins=3, min=1, max=1),
    "histc_float64": lambda m: m.histc(m.tensor(DATA, dtype=m.float64), 2),
    "histc_float16": lambda m: m.histc(m.tensor(DATA, dtype=m.float16), 2),
    "histc_method": lambda m: m.tensor(DATA).histc(7),
    "histc_one_value": lambda m: m.histc(m.tensor([2.0, 2.0]), 4),
    "histc_empty": lambda m: m.histc(m.tensor([]), 4),
    "histc_outside_and_nan": lambda m: m.histc(m.tensor([-1.0, NAN, 0.5, 9.0, 1.0]), 2, 0, 1),
    "histc_grad": lambda m: m.histc(m.tensor(DATA, requires_grad=True), 3),
    "histc_long": lambda m: m.histc(m.tensor([1, 2]), 4),
    "histc_no_bins": lambda m: m.histc(m.tensor(DATA), 0),
    "histc_min_above_max": lambda m: m.histc(m.tensor(DATA), 4, 3, 1),
    "histc_nan_data": lambda m: m.histc(m.tensor([1.0, NAN]), 4),
    "histc_inf_data": lambda m: m.histc(m.tensor([1.0, INF]), 4),
    "histc_inf_max": lambda m: m.histc(m.tensor(DATA), 4, 0, INF),
    "histc_grid": lambda m: m.histc(m.linspace(-3, 3, 1001), 37, -2.2, 2.9),
    "bucketize": lambda m: m.bucketize(m.tensor(VALUES), m.tensor(BOUNDS)),
    "bucketize_right": lambda m: m.bucketize(m.tensor(VALUES), m.tensor(BOUNDS), right=True),
    "bucketize_int32": lambda m: m.bucketize(m.tensor(VALUES), m.tensor(BOUNDS), out_int32=True),
    "bucketize_number": lambda m: m.bucketize(3, m.tensor(BOUNDS)),
    "bucketize_float_number": lambda m: m.bucketize(3.5, m.tensor(BOUNDS)),
    "bucketize_mixed": lambda m: m.bucketize(m.tensor([1.5, 2]), m.tensor([1, 2], dtype=m.int32)),
    "bucketize_2d_bounds": lambda m: m.bucketize(m.tensor(VALUES), m.ones(2, 2)),
    "bucketize_0d_bounds": lambda m: m.bucketize(m.tensor(VALUES), m.tensor(3)),
    "bucketize_grad": lambda m: m.bucketize(m.tensor([1.0], requires_grad=True), m.tensor([1.0])),
    "searchsorted_rows": lambda m: m.searchsorted(m.tensor(ROWS), m.tensor(VALUES)),
    "searchsorted_rows_right": lambda m: m.searchsorted(
        m.tensor(ROWS), m.tensor(VALUES), side="right"
    ),
    "searchsorted_number": lambda m: m.searchsorted(m.tensor(BOUNDS), 5),
    "searchsorted_0d": lambda m: m.searchsorted(m.tensor(BOUNDS), m.tensor(5.0)),
    "searchsorted_sorter": lambda m: m.searchsorted(
        m.tensor([5, 1, 3]), m.tensor([2, 4]), sorter=m.tensor([1, 2, 0])
    ),
    "searchsorted_sorter_rows": lambda m: m.searchsorted(
        m.tensor([[5, 1, 3], [0, 9, 4]]),
        m.tensor([[2, 4], [5, 10]]),
        sorter=m.tensor([[1, 2, 0], [0, 2, 1]]),
    ),
    "searchsorted_empty_values": lambda m: m.searchsorted(
        m.tensor(BOUNDS), m.tensor([], dtype=m.int64)
    ),
    "searchsorted_empty_bounds": lambda m: m.searchsorted(
        m.tensor([], dtype=m.int64), m.tensor([1, 2])
    ),
    "searchsorted_nan": lambda m: m.searchsorted(m.tensor([1.0, NAN]), m.tensor([NAN, 2, 0])),
    "searchsorted_nan_right": lambda m: m.searchsorted(
        m.tensor([1.0, NAN]), m.tensor([NAN, 2, 0]), right=True
    ),
    "searchsorted_rows_mismatch": lambda m: m.searchsorted(m.tensor(ROWS), m.tensor([3, 6])),
    "searchsorted_rows_number": lambda m: m.searchsorted(m.tensor(ROWS), 3),
    "searchsorted_opposite_sides": lambda m: m.searchsorted(
        m.tensor(BOUNDS), 5, side="left", right=True
    ),
    "searchsorted_bad_side": lambda m: m.searchsorted(m.tensor(BOUNDS), 5, side="mid"),
    "searchsorted_sorter_size": lambda m: m.searchsorted(
        m.tensor([5, 1, 3]), m.tensor([2]), sorter=m.tensor([1, 2])
    ),
    "searchsorted_sorter_range": lambda m: m.searchsorted(
        m.tensor([5, 1, 3]), m.tensor([2]), sorter=m.tensor([1, 2, 5])
    ),
    "searchsorted_sorter_dtype": lambda m: m.searchsorted(
        m.tensor([5, 1, 3]), m.tensor([2]), sorter=m.tensor([1, 2, 0], dtype=m.int32)
    ),
    "searchsorted_0d_bounds": lambda m: m.searchsorted(m.tensor(5), m.tensor([2, 4])),
    "isin": lambda m: m.isin(m.tensor([1, 2, 3, 4]), m.tensor([2, 4])),
    "isin_number_test": lambda m: m.isin(m.tensor([1, 2, 3]), 2),
    "isin_number_element": lambda m: m.isin(2, m.tensor([1, 2])),
    "isin_mixed_dtypes": lambda m: m.isin(m.tensor([1.0, 2.5]), m.tensor([1, 2])),
    "isin_invert": lambda m: m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([2, 4]), invert=True),
    "isin_unique": lambda m: m.isin(m.tensor([1, 5]), m.tensor([5, 2]), assume_unique=True),
    "isin_nan": lambda m: m.isin(m.tensor([1.0, NAN]), m.tensor([NAN])),
    "isin_fraction": lambda m: m.isin(m.tensor([1, 2]), 2.5),
    "isin_uint8_int8": lambda m: m.isin(
        m.tensor([1, 2], dtype=m.uint8), m.tensor([1], dtype=m.int8)
    ),
    "isin_two_numbers": lambda m: m.isin(2, 3),
    "isin_list": lambda m: m.isin(m.tensor([1, 2]), [1]),
    "isin_bool": lambda m: m.isin(m.tensor([True, False]), m.tensor([True])),
    "isin_bool_test": lambda m: m.isin(m.tensor([1, 2]), m.tensor([True])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_recorded(name: str) -> None:
    assert outcome(CASES[name], chainrule) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(torch: Any, name: str) -> None:
    assert outcome(CASES[name], chainrule) == outcome(CASES[name], torch)


def test_recording_covers_the_cases() -> None:
    assert set(RECORDED) == set(CASES)


# --- drawn inputs against torch ---------------------------------------------------------------

_SMALL_INTS = hnp.arrays(
    np.int64, hnp.array_shapes(min_dims=1, max_dims=1, max_side=30), elements=st.integers(0, 12)
)
_FLOATS = st.floats(-8, 8, width=32).map(lambda v: round(v, 1))


def _same(mine: Any, theirs: Any) -> None:
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@given(
    values=_SMALL_INTS,
    minlength=st.integers(0, 15),
    weighted=st.sampled_from([None, "float32", "float64"]),
)
def test_bincount_drawn(
    torch: Any, values: np.ndarray, minlength: int, weighted: str | None
) -> None:
    weights = np.linspace(-1.3, 2.1, len(values)) if weighted else None
    results = []
    for m in (chainrule, torch):
        w = None if weights is None else m.tensor(weights, dtype=getattr(m, str(weighted)))
        results.append(m.bincount(m.tensor(values), w, minlength))
    _same(*results)


@given(
    data=hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=6), elements=_FLOATS),
    bins=st.integers(1, 12),
    ends=st.sampled_from([(0, 0), (-2.5, 3.0), (1, 1), (-8.0, 0.3)]),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_histc_drawn(torch: Any, data: np.ndarray, bins: int, ends: tuple, dtype: str) -> None:
    _same(
        *(m.histc(m.tensor(data, dtype=getattr(m, dtype)), bins, *ends) for m in (chainrule, torch))
    )


@given(
    bounds=hnp.arrays(
        np.float32, st.tuples(st.integers(1, 3), st.integers(0, 7)), elements=_FLOATS
    ),
    values=hnp.arrays(np.float32, st.integers(0, 6), elements=_FLOATS),
    right=st.booleans(),
    rows=st.booleans(),
)
def test_searchsorted_drawn(
    torch: Any, bounds: np.ndarray, values: np.ndarray, right: bool, rows: bool
) -> None:
    bounds = np.sort(bounds, axis=-1)
    if rows:
        vals = np.broadcast_to(values, (bounds.shape[0], len(values))).copy()
    else:
        bounds, vals = bounds[0], values
    _same(
        *(m.searchsorted(m.tensor(bounds), m.tensor(vals), right=right) for m in (chainrule, torch))
    )
    order = np.argsort(bounds[..., ::-1], axis=-1, kind="stable")
    shuffled = bounds[..., ::-1].copy()
    _same(
        *(
            m.searchsorted(
                m.tensor(shuffled),
                m.tensor(vals),
                side="right" if right else "left",
                sorter=m.tensor(order),
            )
            for m in (chainrule, torch)
        )
    )


@given(
    elements=hnp.arrays(
        np.int64, hnp.array_shapes(max_dims=2, max_side=6), elements=st.integers(-5, 5)
    ),
    tests=hnp.arrays(np.int64, st.integers(0, 8), elements=st.integers(-5, 5)),
    invert=st.booleans(),
)
def test_isin_drawn(torch: Any, elements: np.ndarray, tests: np.ndarray, invert: bool) -> None:
    _same(*(m.isin(m.tensor(elements), m.tensor(tests), invert=invert) for m in (chainrule, torch)))


# --- invariants, without torch ----------------------------------------------------------------


@given(
    values=hnp.arrays(np.float64, st.integers(0, 20), elements=st.floats(-10, 10)),
    right=st.booleans(),
)
def test_searchsorted_agrees_with_numpy(values: np.ndarray, right: bool) -> None:
    bounds = np.linspace(-9, 9, 7)
    found = chainrule.searchsorted(chainrule.tensor(bounds), chainrule.tensor(values), right=right)
    np.testing.assert_array_equal(
        found.numpy(), np.searchsorted(bounds, values, "right" if right else "left")
    )


@given(values=_SMALL_INTS)
def test_bincount_counts_sum_to_length(values: np.ndarray) -> None:
    counts = chainrule.bincount(chainrule.tensor(values))
    assert counts.sum().item() == len(values)
    np.testing.assert_array_equal(counts.numpy(), np.bincount(values))
