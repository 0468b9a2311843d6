"""Running a layer on chainrule and on torch: its repr, state, first parameters, output
and gradients, made comparable (tensors become grad_fn name, dtype and array).

`run(m, build, shape, dtype)` builds the layer after `manual_seed(0)` (so its
parameters are PyTorch's draws), feeds it a fixed input and backpropagates a fixed
gradient; `assert_layer_matches` compares the two runs: the initial parameters bit
for bit, everything computed from them to a tolerance for the dtype.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from nn_compare import assert_same
from torch_compare import as_torch_text

RTOL = {"float32": 1e-5, "float64": 1e-10}


def tensor_of(m: Any, t: Any) -> Any:
    if t is None:
        return None
    if isinstance(t, tuple):
        return [tensor_of(m, v) for v in t]
    fn = t.grad_fn
    return (
        type(fn).__name__ if fn is not None else None,
        as_torch_text(str(t.dtype)),
        t.detach().numpy().copy(),
    )


def inputs(m: Any, shape: tuple[int, ...], dtype: str, seed: int = 1) -> Any:
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return m.tensor(data, requires_grad=True)


def run(
    m: Any,
    build: Callable[[Any], Any],
    shape: tuple[int, ...],
    dtype: str = "float32",
    call: Callable[[Any, Any], Any] | None = None,
) -> dict[str, Any]:
    """The layer's repr, state, output and gradients; `call(layer, x)` runs it if given."""
    m.manual_seed(0)
    layer = build(m)
    if dtype == "float64":
        layer = layer.double()
    state = {k: tensor_of(m, v) for k, v in layer.state_dict().items()}
    x = inputs(m, shape, dtype)
    out = call(layer, x) if call is not None else layer(x)
    first = out[0] if isinstance(out, tuple) else out
    g = np.random.default_rng(2).standard_normal(tuple(first.shape)).astype(dtype)
    first.backward(m.tensor(g))
    return {
        "repr": as_torch_text(repr(layer)),
        "state": state,
        "out": tensor_of(m, out),
        "grad": tensor_of(m, x.grad),
        "param_grads": {k: tensor_of(m, p.grad) for k, p in layer.named_parameters()},
    }


def assert_layer_matches(mine: dict[str, Any], theirs: dict[str, Any], dtype: str) -> None:
    assert mine["repr"] == theirs["repr"]
    assert_same(mine["state"], theirs["state"], path="state")
    for key in ("out", "grad", "param_grads"):
        assert_close(mine[key], theirs[key], RTOL[dtype], key)


def assert_close(got: Any, want: Any, rtol: float, path: str) -> None:
    """Arrays to `rtol`, with an absolute slack of `rtol` times the array's largest
    entry (sums of many products round differently near zero); the rest exactly."""
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype, path
        scale = float(np.nanmax(np.abs(want), initial=0.0)) if want.size else 0.0
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=path)
    elif isinstance(want, tuple | list):
        assert isinstance(got, tuple | list) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_close(g, w, rtol, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert list(got) == list(want), path
        for k in want:
            assert_close(got[k], want[k], rtol, f"{path}.{k}")
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


# A set of quoted names in a message, as `{'zeros', 'reflect'}`.
_SET_OF_NAMES = re.compile(r"\{'[^']*'(?:, '[^']*')*\}")


def _sorted_sets(text: str) -> str:
    """A message with the names in each printed set sorted: the order a Python set prints in
    depends on the process's hash seed, in PyTorch's messages as in chainrule's."""
    return _SET_OF_NAMES.sub(lambda m: "{" + ", ".join(sorted(m[0][1:-1].split(", "))) + "}", text)


def error_of(fn: Callable[[], Any]) -> tuple[str, str] | None:
    try:
        fn()
    except Exception as e:
        return (type(e).__name__, _sorted_sets(as_torch_text(str(e))))
    return None
