"""Tests for chainrule._printing: fixed expectations, then randomized comparisons with torch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chainrule._printing import format_tensor, get_printoptions, set_printoptions

DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
DTYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.bool_,
]
# Dtypes torch leaves out of the repr of a tensor that has elements.
UNNAMED = {np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.bool_)}
NAN, INF = float("nan"), float("inf")

# The torch comparisons share one relaxed profile: torch's first repr calls can be slow.
COMPARE = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def _default_printoptions() -> Iterator[None]:
    yield
    set_printoptions(profile="default")


def f32(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# Fixed expectations (strings checked against PyTorch 2.13), run without torch installed.

FIXED = [
    (f32([15.0, 18.0]), "tensor([15., 18.])"),
    (f32([[16.0, 132.0]]), "tensor([[ 16., 132.]])"),
    (f32(16.5), "tensor(16.5000)"),
    (f32(12.0), "tensor(12.)"),
    (f32([0.9168, 1.3483, 0.4293]), "tensor([0.9168, 1.3483, 0.4293])"),
    (np.full((2, 2), 0.25, np.float32), "tensor([[0.2500, 0.2500],\n        [0.2500, 0.2500]])"),
    (f32([[3.0], [5.0]]), "tensor([[3.],\n        [5.]])"),
    (f32([0.1352, -0.4037]), "tensor([ 0.1352, -0.4037])"),
    (np.array([True, False]), "tensor([ True, False])"),
    (f32([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (f32([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (f32([1e8, 1.0]), "tensor([1.0000e+08, 1.0000e+00])"),
    (f32([1000.5, 1.0]), "tensor([1.0005e+03, 1.0000e+00])"),
    (f32([123456789.0]), "tensor([1.2346e+08])"),
    (f32([NAN, 1.0, INF, -INF]), "tensor([nan, 1., inf, -inf])"),
    (f32([1e-5, NAN]), "tensor([1.0000e-05,        nan])"),
    (f32([-0.0, 1.5]), "tensor([-0.0000, 1.5000])"),
    (f32([0.0, -0.0]), "tensor([0., -0.])"),
    (f32([]), "tensor([])"),
    (np.zeros((0, 3), np.float32), "tensor([], size=(0, 3))"),
    (np.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (
        np.arange(24, dtype=np.float32).reshape(2, 3, 4),
        "tensor([[[ 0.,  1.,  2.,  3.],\n"
        "         [ 4.,  5.,  6.,  7.],\n"
        "         [ 8.,  9., 10., 11.]],\n"
        "\n"
        "        [[12., 13., 14., 15.],\n"
        "         [16., 17., 18., 19.],\n"
        "         [20., 21., 22., 23.]]])",
    ),
    (
        np.arange(30, dtype=np.float32) / np.float32(3),
        "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
        "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
        "        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333, 8.6667,\n"
        "        9.0000, 9.3333, 9.6667])",
    ),
    (
        np.arange(1500, dtype=np.float32).reshape(30, 50) / np.float32(7),
        "tensor([[0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 6.7143e+00, 6.8571e+00,\n"
        "         7.0000e+00],\n"
        "        [7.1429e+00, 7.2857e+00, 7.4286e+00,  ..., 1.3857e+01, 1.4000e+01,\n"
        "         1.4143e+01],\n"
        "        [1.4286e+01, 1.4429e+01, 1.4571e+01,  ..., 2.1000e+01, 2.1143e+01,\n"
        "         2.1286e+01],\n"
        "        ...,\n"
        "        [1.9286e+02, 1.9300e+02, 1.9314e+02,  ..., 1.9957e+02, 1.9971e+02,\n"
        "         1.9986e+02],\n"
        "        [2.0000e+02, 2.0014e+02, 2.0029e+02,  ..., 2.0671e+02, 2.0686e+02,\n"
        "         2.0700e+02],\n"
        "        [2.0714e+02, 2.0729e+02, 2.0743e+02,  ..., 2.1386e+02, 2.1400e+02,\n"
        "         2.1414e+02]])",
    ),
]


@pytest.mark.parametrize(("array", "expected"), FIXED)
def test_fixed_repr(array: np.ndarray, expected: str) -> None:
    assert format_tensor(array) == expected


@pytest.mark.parametrize(
    ("array", "suffixes", "show_dtype", "expected"),
    [
        (
            np.array([1, 2], np.float16),
            (),
            "torch.float16",
            "tensor([1., 2.], dtype=torch.float16)",
        ),
        (
            np.array([0.5, 2.0]),
            (),
            "chainrule.float64",
            "tensor([0.5000, 2.0000], dtype=chainrule.float64)",
        ),
        (
            np.array([[1, -2], [100, 4]], np.int8),
            (),
            "torch.int8",
            "tensor([[  1,  -2],\n        [100,   4]], dtype=torch.int8)",
        ),
        (
            np.arange(6, dtype=np.uint8).reshape(1, 2, 3),
            (),
            "torch.uint8",
            "tensor([[[0, 1, 2],\n         [3, 4, 5]]], dtype=torch.uint8)",
        ),
        (
            np.array([5.0], np.float32),
            ["grad_fn=<MulBackward0>"],
            None,
            "tensor([5.], grad_fn=<MulBackward0>)",
        ),
        (
            np.arange(14, dtype=np.float32),
            ["grad_fn=<MulBackward0>"],
            None,
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.],\n"
            "       grad_fn=<MulBackward0>)",
        ),
        (
            np.arange(22, dtype=np.float64),
            ["grad_fn=<MulBackward0>"],
            "torch.float64",
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21.], dtype=torch.float64,\n"
            "       grad_fn=<MulBackward0>)",
        ),
        (
            np.arange(40, dtype=np.float32),
            ["requires_grad=True"],
            None,
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
            "        28., 29., 30., 31., 32., 33., 34., 35., 36., 37., 38., 39.],\n"
            "       requires_grad=True)",
        ),
        (np.zeros(0, np.float64), (), "torch.float64", "tensor([], dtype=torch.float64)"),
        (
            np.zeros((0, 3), np.float32),
            ["requires_grad=True"],
            None,
            "tensor([], size=(0, 3), requires_grad=True)",
        ),
    ],
)
def test_fixed_suffixes(
    array: np.ndarray, suffixes: list[str], show_dtype: str | None, expected: str
) -> None:
    assert format_tensor(array, suffixes, show_dtype=show_dtype) == expected


def test_empty_int_and_bool_name_their_dtype() -> None:
    # torch names int64/bool for empty tensors even though they are default dtypes otherwise.
    assert format_tensor(np.zeros(0, np.int64)) == "tensor([], dtype=chainrule.int64)"
    expected = "tensor([], size=(0, 2), dtype=torch.bool)"
    assert format_tensor(np.ones((0, 2), bool), dtype_prefix="torch.") == expected
    assert format_tensor(np.zeros(0, np.int64), show_dtype="x.int64") == "tensor([], dtype=x.int64)"


# ---------------------------------------------------------------------------------------------
# Print options.


def test_printoption_defaults_and_profiles() -> None:
    assert get_printoptions() == DEFAULTS
    set_printoptions(profile="short")
    assert get_printoptions() == {**DEFAULTS, "precision": 2, "edgeitems": 2}
    set_printoptions(profile="full", linewidth=120)
    assert get_printoptions() == {**DEFAULTS, "threshold": float("inf"), "linewidth": 120}
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULTS


def test_sci_mode_resets_on_every_call() -> None:
    set_printoptions(sci_mode=True)
    assert get_printoptions()["sci_mode"] is True
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None


@pytest.mark.parametrize(
    ("options", "array", "expected"),
    [
        ({"precision": 2}, f32([1.12345]), "tensor([1.12])"),
        ({"profile": "short"}, f32([1.12345]), "tensor([1.12])"),
        ({"threshold": 5}, np.arange(10), "tensor([0, 1, 2,  ..., 7, 8, 9])"),
        ({"profile": "full"}, np.arange(1001)[:3], "tensor([0, 1, 2])"),
        ({"sci_mode": False}, f32([1e-5, 1.0]), "tensor([0.0000, 1.0000])"),
        ({"sci_mode": True}, f32([1.5, 2.0]), "tensor([1.5000e+00, 2.0000e+00])"),
        ({"sci_mode": True}, f32([0.0, 0.0]), "tensor([0., 0.])"),
        ({"edgeitems": 0, "threshold": 5}, np.arange(10), "tensor([...], size=(10,))"),
        ({"edgeitems": 0}, f32([1.0, 2.0]), "tensor([1., 2.], size=(2,))"),
        (
            {"linewidth": 20},
            np.arange(12, dtype=np.float32),
            "tensor([ 0.,  1.,\n         2.,  3.,\n         4.,  5.,\n"
            "         6.,  7.,\n         8.,  9.,\n        10., 11.])",
        ),
    ],
)
def test_fixed_printoptions(options: dict[str, Any], array: np.ndarray, expected: str) -> None:
    set_printoptions(**options)
    assert format_tensor(array) == expected


# ---------------------------------------------------------------------------------------------
# Randomized comparison with torch.

SMALL_SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6)
# Shapes past the 1000-element threshold, so every dimension gets summarized somewhere.
BIG_SHAPES = st.sampled_from(
    [(1001,), (40, 30), (4, 300), (300, 4), (12, 10, 10), (2, 3, 4, 50), (7, 7, 7, 7), (3, 2000)]
)
FLOAT_STYLES = ["normal", "integers", "tiny", "huge", "mixed", "zeros", "scaled"]


def _float_values(rng: np.random.Generator, shape: tuple[int, ...], style: str) -> np.ndarray:
    if style == "normal":
        return rng.normal(size=shape)
    if style == "integers":
        return rng.integers(-300, 300, size=shape).astype(np.float64)
    if style == "tiny":
        return rng.normal(size=shape) * 1e-6
    if style == "huge":
        return rng.normal(size=shape) * 1e10
    if style == "mixed":  # magnitudes spread over twenty decades
        return np.sign(rng.normal(size=shape)) * 10.0 ** rng.uniform(-8, 12, size=shape)
    if style == "zeros":
        return np.zeros(shape)
    return rng.normal(size=shape) * 10.0 ** rng.integers(-3, 6)


@st.composite
def arrays(draw: st.DrawFn, shapes: st.SearchStrategy[tuple[int, ...]] | None = None) -> np.ndarray:
    """Arrays of any supported dtype whose values are generated in bulk from a drawn seed."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(shapes if shapes is not None else st.one_of(SMALL_SHAPES, BIG_SHAPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype.kind == "b":
        return np.asarray(rng.random(shape) < draw(st.floats(0, 1)))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = draw(st.sampled_from([(info.min, info.max), (max(info.min, -9), 20)]))
        return np.asarray(rng.integers(low, high, size=shape, endpoint=True), dtype=dtype)
    values = np.asarray(_float_values(rng, shape, draw(st.sampled_from(FLOAT_STYLES))))
    flat = values.reshape(-1)
    if flat.size:
        specials = draw(st.lists(st.sampled_from([NAN, INF, -INF, -0.0, 0.0]), max_size=3))
        flat[rng.integers(0, flat.size, size=len(specials))] = specials
    with np.errstate(over="ignore"):  # float16 turns huge values into inf, which is fine
        return values.astype(dtype)


def _show_dtype(array: np.ndarray) -> str | None:
    return None if array.dtype in UNNAMED else f"torch.{array.dtype.name}"


def _ours(array: np.ndarray, suffixes: list[str] | tuple[str, ...] = ()) -> str:
    return format_tensor(array, suffixes, show_dtype=_show_dtype(array), dtype_prefix="torch.")


def _theirs(torch: Any, array: np.ndarray) -> Any:
    return torch.from_numpy(array.copy(order="C"))


@COMPARE
@given(array=arrays())
def test_matches_torch(torch: Any, array: np.ndarray) -> None:
    assert _ours(array) == repr(_theirs(torch, array))


@COMPARE
@given(
    array=hnp.arrays(
        st.sampled_from([np.float16, np.float32, np.float64]),
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
    )
)
def test_matches_torch_on_arbitrary_floats(torch: Any, array: np.ndarray) -> None:
    # Hypothesis' own float generation hits subnormals, boundaries and odd mixes of specials.
    assert _ours(array) == repr(_theirs(torch, array))


@COMPARE
@given(array=arrays(), grad_fn=st.booleans())
def test_matches_torch_with_autograd_suffixes(torch: Any, array: np.ndarray, grad_fn: bool) -> None:
    tensor = _theirs(torch, array)
    suffixes: list[str] = []
    if array.dtype.kind == "f":
        tensor = tensor.requires_grad_()
        suffixes = ["requires_grad=True"]
        if grad_fn:
            tensor = tensor * 1
            suffixes = ["grad_fn=<MulBackward0>"]
    assert _ours(array, suffixes) == repr(tensor)


@COMPARE
@given(
    array=arrays(st.one_of(SMALL_SHAPES, BIG_SHAPES, st.sampled_from([(5,), (2, 6), (13,)]))),
    options=st.fixed_dictionaries(
        {},
        optional={
            "precision": st.integers(0, 8),
            "threshold": st.sampled_from([0, 5, 20, 1000]),
            "edgeitems": st.integers(0, 4),
            "linewidth": st.integers(5, 200),
            "profile": st.sampled_from(["default", "short", "full"]),
            "sci_mode": st.sampled_from([None, True, False]),
        },
    ),
)
def test_matches_torch_under_printoptions(
    torch: Any, array: np.ndarray, options: dict[str, Any]
) -> None:
    torch.set_printoptions(**options)
    try:
        set_printoptions(**options)
        assert get_printoptions() == torch._tensor_str.get_printoptions()
        suffixes = ["requires_grad=True"] if array.dtype.kind == "f" else []
        tensor = _theirs(torch, array)
        if suffixes:
            tensor.requires_grad_()
        assert _ours(array, suffixes) == repr(tensor)
    finally:
        torch.set_printoptions(profile="default")
        set_printoptions(profile="default")
