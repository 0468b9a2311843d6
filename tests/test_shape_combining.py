"""broadcast_shapes, broadcast_tensors, meshgrid, cartesian_prod, ravel, diagflat (values and
gradients are in the op table), and Tensor's questions about itself (is_signed, nbytes, ...):
their errors and Python values, compared with PyTorch and with the recorded ones."""

from __future__ import annotations

import warnings
from types import ModuleType

import pytest

import chainrule

# expression -> what PyTorch 2.13 gives (`lib` is the library, x = arange(12.).reshape(3, 4))
RECORDED = {
    "lib.broadcast_shapes((2, 1), (3,))": "Size([2, 3])",
    "lib.broadcast_shapes(2, (3, 1))": "Size([3, 2])",
    "lib.broadcast_shapes()": "Size([])",
    "lib.broadcast_shapes((2,), (3,))": "RuntimeError: Attempting to broadcast a dimension of "
    "length 3 at -1! Mismatching argument at index 1 had (3,); but expected shape should be "
    "broadcastable to [2]",
    "lib.broadcast_shapes((-1,), (2,))": "ValueError: Attempting to broadcast a dimension with "
    "negative length!",
    "lib.broadcast_tensors(x, lib.ones(3))": "RuntimeError: The size of tensor a (4) must match "
    "the size of tensor b (3) at non-singleton dimension 1",
    "[t.shape for t in lib.broadcast_tensors(x, x[0], x[:, :1])]": "[Size([3, 4]), Size([3, 4]), "
    "Size([3, 4])]",
    "lib.broadcast_tensors(x)[0] is x": "True",
    "lib.meshgrid(x[0], x[0], indexing='foo')": "RuntimeError: torch.meshgrid: indexing must be "
    'one of "xy" or "ij", but received: foo',
    "lib.meshgrid()": "RuntimeError: meshgrid expects a non-empty TensorList",
    "[t.shape for t in lib.meshgrid(x[0], x[0, :2], indexing='xy')]": "[Size([2, 4]), "
    "Size([2, 4])]",
    "[t.shape for t in lib.meshgrid([x[0, 0], x[0, :2], x[0]], indexing='xy')]": "[Size([2, 1, "
    "4]), Size([2, 1, 4]), Size([2, 1, 4])]",
    "lib.cartesian_prod(x)": "RuntimeError: Expect a 1D vector, but got shape [3, 4]",
    "(lambda a: lib.cartesian_prod(a) is a)(x[0])": "True",
    "lib.cartesian_prod(x[0], x[1, :2]).shape": "Size([8, 2])",
    "lib.diagflat(x[0], -1).shape": "Size([5, 5])",
    "x.t().ravel().tolist()": "[0.0, 4.0, 8.0, 1.0, 5.0, 9.0, 2.0, 6.0, 10.0, 3.0, 7.0, 11.0]",
    "x.ravel()._base is x._base": "True",
    "x[1].storage_offset()": "4",
    "x[:, 1:].storage_offset()": "1",
    "x.t().storage_offset()": "0",
    "x.is_signed()": "True",
    "lib.tensor([1], dtype=lib.uint8).is_signed()": "False",
    "lib.tensor([True]).is_signed()": "False",
    "lib.is_same_size(x, x[0])": "False",
    "lib.tensor([]).is_nonzero()": "RuntimeError: Boolean value of Tensor with no values is "
    "ambiguous",
    "x.is_nonzero()": "RuntimeError: Boolean value of Tensor with more than one value is ambiguous",
    "lib.is_nonzero(lib.tensor([0.0]))": "False",
    "x.nbytes": "48",
    "x.expand(2, 3, 4).nbytes": "96",
    "x.itemsize": "4",
    "x.is_cpu": "True",
    "(lib.is_floating_point(x), lib.is_complex(x), lib.is_inference(x), lib.is_signed(x))": (
        "(True, False, False, True)"
    ),
}


def _outcome(lib: ModuleType, expression: str) -> str:
    x = lib.arange(12.0).reshape(3, 4)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = eval(expression, {"lib": lib, "x": x})
    except (RuntimeError, ValueError, TypeError) as e:
        return f"{type(e).__name__}: {e}"
    return repr(value).replace("torch.Size", "Size").replace("chainrule.Size", "Size")


@pytest.mark.parametrize("expression", sorted(RECORDED))
def test_as_recorded(expression: str) -> None:
    assert _outcome(chainrule, expression) == RECORDED[expression]


@pytest.mark.parametrize("expression", sorted(RECORDED))
def test_as_pytorch(torch: ModuleType, expression: str) -> None:
    assert _outcome(chainrule, expression) == _outcome(torch, expression)


def test_meshgrid_without_indexing_warns_and_means_ij() -> None:
    a, b = chainrule.arange(2.0), chainrule.arange(3.0)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        grids = chainrule.meshgrid(a, b)
    assert [g.shape for g in grids] == [(2, 3), (2, 3)]
