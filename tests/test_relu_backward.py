"""relu's gradient: the incoming gradient where the result is positive (or NaN), +0
elsewhere, bit for bit, whatever the gradient holds (inf and NaN pass through
untouched where they are kept, and are dropped where they are not)."""

from __future__ import annotations

from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule

NAN, INF = float("nan"), float("inf")
X = [[-1.0, 0.0, 2.0, NAN], [3.0, -0.0, 1.0, 2.0]]
G = [[1.0, 2.0, INF, 4.0], [NAN, 6.0, -0.0, -INF]]
# PyTorch 2.13's x.grad for relu(X).backward(G), as bits of float32 (then float64).
EXPECTED = [[0.0, 0.0, INF, 4.0], [NAN, 0.0, -0.0, -INF]]


def _relu_grad(lib: Any, x: Any, g: Any, dtype: str, transpose: bool = False) -> np.ndarray:
    xt = lib.tensor(np.asarray(x, dtype=dtype), requires_grad=True)
    gt = lib.tensor(np.asarray(g, dtype=dtype))
    if transpose:
        lib.relu(xt.t()).backward(gt.t())
    else:
        lib.relu(xt).backward(gt)
    grad: np.ndarray = xt.grad.numpy()
    return grad


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.itemsize}")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("transpose", [False, True])
def test_relu_gradient_is_exact_recorded(dtype: str, transpose: bool) -> None:
    mine = _relu_grad(chainrule, X, G, dtype, transpose)
    assert np.array_equal(_bits(mine), _bits(np.asarray(EXPECTED, dtype=dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transpose", [False, True])
def test_relu_gradient_is_torchs(torch: Any, dtype: str, transpose: bool) -> None:
    mine = _relu_grad(chainrule, X, G, dtype, transpose)
    theirs = _relu_grad(torch, X, G, dtype, transpose)
    assert np.array_equal(_bits(mine), _bits(theirs))


@pytest.mark.parametrize("value", [3.0, -1.0, 0.0, NAN])
def test_relu_gradient_of_a_0d_tensor(value: float) -> None:
    x = chainrule.tensor(value, requires_grad=True)
    chainrule.relu(x).backward(chainrule.tensor(5.0))
    assert x.grad.item() == (0.0 if value <= 0 else 5.0)
    assert x.grad.shape == ()


@given(
    hnp.arrays(np.float64, hnp.array_shapes(max_dims=3, max_side=4)),
    st.sampled_from([np.float32, np.float64]),
)
def test_relu_gradient_keeps_or_zeroes_each_entry(x: np.ndarray, dtype: type) -> None:
    x = x.astype(dtype)
    g = np.random.default_rng(0).standard_normal(x.shape).astype(dtype)
    got = _relu_grad(chainrule, x, g, np.dtype(dtype).name)
    keep = ~(x <= 0)
    assert np.array_equal(_bits(got), _bits(np.where(keep, g, np.zeros_like(g))))
