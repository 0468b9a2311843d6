"""Running an attention or transformer model on chainrule and on torch with the same
weights and inputs, and comparing outputs and every gradient.

A case builds its model with `build(m)` (m is chainrule or torch); chainrule's copy
gets torch's weights through `load_state_dict`, so initialisation is tested apart.
Inputs are NumPy arrays (float ones require grad) or None; `call(model, *inputs)`
runs the forward and returns a tensor or a tuple whose first entry is backpropagated.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import chainrule

TOLERANCE = {np.float32: 1e-5, np.float64: 1e-10}


def tensors(m: Any, arrays: tuple[Any, ...]) -> list[Any]:
    """Tensors of `m` from arrays: float ones require grad; None stays None."""
    out = []
    for a in arrays:
        if a is None:
            out.append(None)
        elif a.dtype.kind == "f":
            out.append(m.tensor(a, requires_grad=True))
        else:
            out.append(m.tensor(a))
    return out


def copy_weights(src: Any, dst: Any) -> None:
    """torch model's state into the chainrule model (same keys, same order)."""
    state = {k: chainrule.tensor(v.detach().numpy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)


def run(
    m: Any,
    model: Any,
    arrays: tuple[Any, ...],
    call: Callable[..., Any],
    grad_seed: int = 7,
    seed: int | None = None,
) -> dict[str, Any]:
    """Forward, a backward of a fixed random cotangent, and every array that came out."""
    inputs = tensors(m, arrays)
    if seed is not None:
        m.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = call(model, *inputs)
    outs = result if isinstance(result, tuple) else (result,)
    values = {f"out{i}": o.detach().numpy().copy() for i, o in enumerate(outs) if o is not None}
    first = outs[0]
    if first.requires_grad:
        g = np.random.default_rng(grad_seed).standard_normal(tuple(first.shape))
        first.backward(m.tensor(g.astype(values["out0"].dtype)))
    for i, t in enumerate(inputs):
        if t is not None and t.requires_grad:
            values[f"grad_input{i}"] = None if t.grad is None else t.grad.numpy().copy()
    if model is not None:
        for name, p in model.named_parameters():
            values[f"grad_{name}"] = None if p.grad is None else p.grad.numpy().copy()
    if seed is not None:
        values["next_draw"] = m.rand(3).numpy()
    return values


def compare(
    torch: Any,
    build: Callable[[Any], Any] | None,
    arrays: tuple[Any, ...],
    call: Callable[..., Any],
    train: bool = False,
    seed: int | None = None,
    rtol: float | None = None,
) -> dict[str, Any]:
    """Run the case on both libraries and assert every output and gradient agrees."""
    tmodel = cmodel = None
    if build is not None:
        torch.manual_seed(0)
        tmodel = build(torch)
        cmodel = build(chainrule)
        copy_weights(tmodel, cmodel)
        tmodel.train(train)
        cmodel.train(train)
    want = run(torch, tmodel, arrays, call, seed=seed)
    got = run(chainrule, cmodel, arrays, call, seed=seed)
    assert list(got) == list(want)
    for key, w in want.items():
        g = got[key]
        if w is None:
            assert g is None, key
            continue
        assert g is not None, key
        assert g.shape == w.shape and g.dtype == w.dtype, key
        tol = rtol if rtol is not None else TOLERANCE[w.dtype.type]
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=key)
    return got


def arrays(rng: np.random.Generator, *shapes: tuple[int, ...], dtype: Any = np.float64) -> Any:
    return tuple(rng.standard_normal(s).astype(dtype) for s in shapes)
