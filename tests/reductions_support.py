"""Helpers of the reductions tests: run an op on chainrule and on torch, compare all of it."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import chainrule

NAN, INF = math.nan, math.inf


def numpy_of(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple) else [result]


def run(lib: Any, fn: Callable[..., Any], values: Any, dtype: str = "float64") -> Any:
    """fn on a tensor of `values`: its outputs and the input's gradient (or the error raised)."""
    x = lib.tensor(np.asarray(values, dtype=dtype), requires_grad=dtype.startswith("float"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = outputs(fn(x))
    except Exception as e:  # the error itself is what gets compared
        return type(e).__name__, str(e).splitlines()[0]
    floats = [r for r in result if r.requires_grad]
    if floats:
        rng = np.random.default_rng(0)
        weights = [lib.tensor(rng.uniform(-1, 1, tuple(r.shape))).to(r.dtype) for r in floats]
        total = sum((r * w).sum() for r, w in zip(floats, weights, strict=True))
        total.backward()
    return result, x.grad


def assert_same(mine: Any, theirs: Any) -> None:
    """chainrule's and torch's results of `run`: values, dtypes, gradients, or the same error."""
    if isinstance(theirs[0], str) or isinstance(mine[0], str):
        assert mine == theirs
        return
    (outs, g), (outs_t, g_t) = mine, theirs
    assert len(outs) == len(outs_t)
    for a, b in zip(outs, outs_t, strict=True):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(numpy_of(a), numpy_of(b), rtol=1e-6, atol=1e-12)
    assert (g is None) == (g_t is None)
    if g is not None:
        np.testing.assert_allclose(numpy_of(g), numpy_of(g_t), rtol=1e-6, atol=1e-12)


def check(torch: Any, fn: Callable[..., Any], values: Any, dtype: str = "float64") -> None:
    assert_same(run(chainrule, fn, values, dtype), run(torch, fn, values, dtype))


def lib_of(x: Any) -> Any:
    return chainrule if isinstance(x, chainrule.Tensor) else __import__("torch")
