"""Running one `nn` scenario on chainrule and on torch, and comparing what comes out.

A scenario is a function of a library `m` (chainrule or torch) that returns values:
tensors, strings, lists, dicts. `outcome` makes them comparable (tensors become
their type, repr, flags and an array; `chainrule.` in text becomes `torch.`), or
records the exception's type and full message; `assert_same` compares, arrays
bit for bit unless a tolerance is given.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

import numpy as np

from torch_compare import as_torch_text


def normalize(obj: Any, m: Any) -> Any:
    if isinstance(obj, m.Tensor):
        return (
            type(obj).__name__,
            as_torch_text(repr(obj)),
            obj.requires_grad,
            obj.detach().numpy().copy(),
        )
    if isinstance(obj, m.nn.Module):
        return ("module", as_torch_text(repr(obj)))
    if isinstance(obj, m.Size):
        return ("size", tuple(obj))
    if isinstance(obj, m.dtype):
        return ("dtype", as_torch_text(str(obj)))
    if isinstance(obj, OrderedDict):
        return ("odict", [(k, normalize(v, m)) for k, v in obj.items()])
    if isinstance(obj, dict):
        return {k: normalize(v, m) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [normalize(o, m) for o in obj]
    if isinstance(obj, str):
        return as_torch_text(obj)
    return obj


def error(fn: Any) -> Any:
    """(exception type, message) of calling `fn`, or None if it returns."""
    try:
        fn()
    except Exception as e:
        return (type(e).__name__, str(e))
    return None


def nested(m: Any) -> Any:
    """A model with a shared submodule, a buffer, a None parameter and nesting."""

    class Block(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = m.nn.Linear(3, 2)
            self.register_buffer("steps", m.tensor(0))
            self.register_buffer("cache", m.zeros(2), persistent=False)
            self.register_parameter("unused", None)

        def forward(self, x: Any) -> Any:
            return self.fc(x)

    m.manual_seed(0)
    shared = m.nn.Linear(2, 2)
    model = m.nn.Sequential(Block(), shared, m.nn.Sequential(shared, m.nn.Identity()))
    model.scale = m.nn.Parameter(m.ones(1))
    return model


def outcome(fn: Any, m: Any) -> Any:
    """`fn(m)` made comparable, or ("raises", exception type, its message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return normalize(fn(m), m)
    except Exception as e:
        return ("raises", type(e).__name__, as_torch_text(str(e)))
    finally:
        m.set_grad_enabled(True)


def assert_same(got: Any, want: Any, rtol: float = 0.0, atol: float = 0.0, path: str = "") -> None:
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), path
        assert got.shape == want.shape and got.dtype == want.dtype, path
        if rtol or atol:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(got, want, err_msg=path)
    elif isinstance(want, tuple | list):
        assert isinstance(got, tuple | list), f"{path}: {got!r} != {want!r}"
        assert len(got) == len(want), f"{path}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, rtol, atol, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), f"{path}: {got!r} != {want!r}"
        for k in want:
            assert_same(got[k], want[k], rtol, atol, f"{path}.{k}")
    elif isinstance(want, float) and (rtol or atol):
        assert abs(got - want) <= atol + rtol * abs(want), f"{path}: {got!r} != {want!r}"
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"
