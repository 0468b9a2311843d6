"""Running one expression on chainrule or on torch and describing what it gave, for tests
that compare the two with each other and with recorded PyTorch results."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any


def grads(lib: ModuleType, fn: Any, *values: Any) -> list[Any]:
    """Gradients of sum(fn(*leaves) * (1, 2, 3, ...)) for float64 leaves made from `values`."""
    leaves = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    out = fn(*leaves)
    weights = lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(out.shape)
    found = lib.autograd.grad((out * weights).sum(), leaves, allow_unused=True)
    return [None if g is None else [round(v, 6) for v in g.reshape(-1).tolist()] for g in found]


def outcome(lib: ModuleType, expression: str) -> str:
    """What `expression` gives (x = arange(12.).reshape(3, 4)): a tensor's values, dtype and
    strides, another value's repr, or the exception's type and message."""
    x = lib.arange(12.0).reshape(3, 4)
    env = {"lib": lib, "x": x, "grads": lambda fn, *v: grads(lib, fn, *v)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expression, env)
    except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError) as e:
        return f"{type(e).__name__}: {e}"
    if isinstance(value, lib.Tensor):
        value = (value.tolist(), str(value.dtype).split(".")[-1], value.stride())
    text = repr(value).replace("torch.Size", "Size").replace("chainrule.Size", "Size")
    return text.replace("torch.", "").replace("chainrule.", "")
