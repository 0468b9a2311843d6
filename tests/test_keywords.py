"""The spellings PyTorch's argument parser adds to every native op: `axis=`, `keepdims=`,
a tuple or list for `dim`, and `out=` (chainrule/_ops/keywords.py adds them once)."""

from __future__ import annotations

import inspect
import json
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule._ops import keywords

NAMES = Path(__file__).resolve().parent.parent / "scripts" / "torch_2_13_names.json"

# Each runs in PyTorch and chainrule (`lib`), on `x = arange(24.).reshape(2, 3, 4)`.
EXPRESSIONS = [
    "lib.sum(x, dim=(0, 2))",
    "lib.mean(x, [0, 1])",
    "lib.nansum(x, (1,))",
    "lib.amax(x, (0, 1))",
    "lib.amin(x, [2])",
    "lib.logsumexp(x, (0, 2))",
    "lib.std(x, (0, 2))",
    "lib.var(x, [1, 2])",
    "lib.count_nonzero(x, (0, 1))",
    "lib.any(x, (0, 1))",
    "lib.all(x, (0, 2))",
    "x.squeeze((0,))",
    "lib.std_mean(x, (0, 1))",
    "lib.var_mean(x, [2])",
    "lib.linalg.vector_norm(x, dim=(0, 2))",
    "lib.norm(x, dim=(0, 1))",
    "lib.prod(x, (0, 1))",
    "lib.max(x, (0,))",
    "lib.flip(x, (0, 2))",
    "x.sum(axis=(0, 1), keepdims=True)",
    "x.mean(axis=[2])",
    "lib.nanmean(x, axis=(0, 1))",
    "lib.softmax(x, axis=1)",
    "lib.cat([x, x], axis=1)",
    "lib.stack([x, x], axis=0)",
    "lib.sort(x, axis=0)",
    "lib.max(x, axis=1, keepdims=True)",
    "x.argmax(axis=2)",
    "x.unsqueeze(axis=0).shape",
    "lib.squeeze(x[:1], axis=0).shape",
    "lib.topk(x, 2, axis=1)",
    "lib.gather(x, axis=0, index=lib.zeros(1, 3, 4, dtype=lib.long))",
    "lib.cummax(x, axis=2)",
    "lib.diff(x, axis=1)",
    "lib.special.logsumexp(x, axis=0)",
    "lib.linalg.norm(x, axis=0)",
    "lib.linalg.matrix_norm(x, axis=(0, 1))",
    "x.sum(dim=0, axis=0)",
    "lib.norm(x, axis=0)",
    "x.split(1, axis=0)",
    "lib.split(x, 1, axis=0)",
    "lib.sum(x, axis=0, out=lib.empty(3, 4))",
    "lib.exp(x, out=lib.empty(0))",
    "lib.mean(x, 0, out=lib.empty(3, 4, dtype=lib.long))",
    "tuple(lib.max(x, 1, out=(lib.empty(0), lib.empty(0, dtype=lib.long))))",
    "lib.linalg.inv(lib.eye(2), out=lib.empty(2, 2))",
    "lib.special.erf(x, out=lib.empty(2, 3, 4))",
    "lib.clone(x, out=lib.empty(0))",
    "lib.zeros(3, out=lib.empty(3, dtype=lib.long))",
    "lib.arange(4, out=lib.empty(1))",
    "lib.add(x, 1, out=x[0])",
    "lib.add(x, 1, out=x)",
    "lib.exp(x.requires_grad_(), out=lib.empty(0))",
    "lib.exp(x, out=lib.empty(0, requires_grad=True))",
    "lib.cat([x, x], out=lib.empty(0)).shape",
]


def _outcome(lib: ModuleType, expression: str) -> str:
    x = lib.arange(24.0).reshape(2, 3, 4)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expression, {"lib": lib, "x": x})
    except (TypeError, RuntimeError) as e:
        return f"{type(e).__name__}: {e}".replace("torch", "chainrule")
    return repr(value).replace("torch", "chainrule")


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_as_pytorch_parses_it(torch: ModuleType, expression: str) -> None:
    assert _outcome(chainrule, expression) == _outcome(torch, expression)


def test_numpy_spellings_mean_dim_and_keepdim() -> None:
    x = chainrule.arange(6.0).reshape(2, 3)
    assert x.sum(axis=0).tolist() == [3.0, 5.0, 7.0]
    assert chainrule.mean(x, axis=1, keepdims=True).tolist() == [[1.0], [4.0]]
    assert chainrule.max(x, axis=0).indices.tolist() == [1, 1, 1]
    assert chainrule.special.logsumexp(x, axis=(0, 1)).item() == pytest.approx(
        np.log(np.exp(np.arange(6.0)).sum())
    )
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        chainrule.norm(x, axis=0)  # written in Python in PyTorch: its parser never sees it


def test_out_is_written_resized_and_returned() -> None:
    x = chainrule.arange(6.0).reshape(2, 3)
    out = chainrule.empty(3)
    assert chainrule.sum(x, 0, out=out) is out and out.tolist() == [3.0, 5.0, 7.0]
    small = chainrule.empty(2)
    with pytest.warns(UserWarning, match=r"had shape \[2\], .* output shape \[2, 3\]"):
        chainrule.exp(x, out=small)
    assert small.shape == (2, 3) and small[0, 0].item() == 1.0
    values, indices = chainrule.empty(0), chainrule.empty(0, dtype=chainrule.long)
    result = chainrule.max(x, 1, out=(values, indices))
    assert result.values is values and indices.tolist() == [2, 2]
    ints = chainrule.empty(0, dtype=chainrule.long)
    assert chainrule.arange(3, out=ints) is ints and ints.tolist() == [0, 1, 2]


def test_out_refuses_what_pytorch_refuses() -> None:
    x = chainrule.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match=r"^exp\(\): functions with out=\.\.\. arguments"):
        chainrule.exp(x.clone().requires_grad_(), out=chainrule.empty(0))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        chainrule.exp(x, out=chainrule.empty(0, dtype=chainrule.long))
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        chainrule.add(x, 1, out=x[0])
    assert chainrule.add(x, 1, out=x) is x and x[0, 0].item() == 1.0
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        x.exp(out=chainrule.empty(0))  # methods take no out=
    with chainrule.no_grad():  # outside grad mode out= takes tensors that require grad
        chainrule.exp(chainrule.ones(1, requires_grad=True), out=chainrule.empty(1))


# --- the lists in _ops/keywords.py are PyTorch's ----------------------------------------------

NAMESPACES: dict[str, Any] = {
    "torch": chainrule,
    "torch.Tensor": chainrule.Tensor,
    "torch.linalg": chainrule.linalg,
    "torch.special": chainrule.special,
}


def test_out_lists_are_pytorchs() -> None:
    saved = json.loads(NAMES.read_text())["out"]
    for label, names in keywords.OUT.items():
        expected = {n for n in saved[label] if hasattr(NAMESPACES[label], n)}
        assert set(names) == expected, label


def test_python_defined_lists_are_pytorchs() -> None:
    """Each op chainrule has that takes a `dim` takes `axis=` exactly when PyTorch binds it
    from C++ (PyTorch's ops written in Python do not)."""
    saved = json.loads(NAMES.read_text())["names"]
    for label, target in NAMESPACES.items():
        taking_dim = set()
        for name in saved[label]:
            fn = inspect.getattr_static(target, name, None)
            if inspect.isfunction(fn) and "dim" in inspect.signature(fn).parameters:
                taking_dim.add(name)
        python = {n for n in taking_dim if saved[label][n] == "python"}
        listed = keywords.PYTHON_DEFINED.get(label, frozenset()) & taking_dim
        assert listed == python, label
