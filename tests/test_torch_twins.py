"""The `torch.*` twins of nn.functional ops: which are the very same function as `F.*` (as
in PyTorch), the native signatures of the others, and their errors."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import chainrule
import chainrule.nn.functional as F

SAME = [
    "adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu_", "channel_shuffle", "conv1d",
    "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "cosine_similarity", "hardshrink", "pairwise_distance", "pdist", "pixel_shuffle",
    "pixel_unshuffle", "prelu", "rrelu_", "selu_", "threshold_",
]  # fmt: skip
DIFFERENT = [
    "celu", "group_norm", "layer_norm", "max_pool1d", "max_pool2d", "max_pool3d", "rms_norm",
    "rrelu", "selu", "threshold",
]  # fmt: skip


@pytest.mark.parametrize("name", SAME + DIFFERENT)
def test_same_function_exactly_where_pytorch_has_one(name: str) -> None:
    assert (getattr(chainrule, name) is getattr(F, name)) == (name in SAME)


@pytest.mark.parametrize("name", SAME + DIFFERENT)
def test_identity_matches_torch(torch: ModuleType, name: str) -> None:
    same = getattr(torch, name) is getattr(torch.nn.functional, name)
    assert same == (getattr(chainrule, name) is getattr(F, name))


# Each runs on both libraries, on `x = lib.arange(-20., 20.).reshape(2, 4, 5) / 8`.
CALLS = [
    "lib.celu(x, 0.5)",
    "lib.celu(x, alpha=2.0)",
    "lib.celu(x, 0)",
    "lib.celu(x, inplace=True)",
    "lib.selu(x)",
    "lib.selu(x, True)",
    "lib.threshold(x, 0.1, 20)",
    "lib.threshold(x, 0.1, 20, True)",
    "lib.threshold(x, 0.1, 20, out=lib.empty(0))",
    "lib.threshold(x.long(), 0, 7)",
    "lib.rrelu(x, 0.5, 0.1)",
    "lib.rrelu(x, 0.1, 0.3)",
    "lib.rrelu(x, 0.1, 0.3, False, None)",
    "lib.rrelu(x, inplace=True)",
    "lib.hardshrink(x, 1.0, out=lib.empty(0))",
    "x.hardshrink(1.0)",
    "x.hardshrink(out=None)",
    "lib.nn.functional.hardshrink(x, out=lib.empty(2, 4, 5))",
    "lib.cosine_similarity(x, x.flip(0), axis=0)",
    "lib.nn.functional.pairwise_distance(x, x.flip(0), keepdims=True)",
    "x.prelu(lib.tensor([0.25]))",
    "x.prelu(lib.tensor([0.25, 0.5]))",
    "lib.prelu(x, 2.0)",
    "x.prelu(2.0)",
    "x.hardshrink('a')",
    "lib.hardshrink(x, 'a')",
    "lib.hardshrink(3, 0.5)",
    "x.long().hardshrink()",
    "lib.conv1d(input=x, weight=lib.ones(3, 4, 2), stride=2)",
    "lib.pixel_shuffle(lib.ones(1, 4, 2, 2), 2).shape",
    "lib.channel_shuffle(lib.arange(8.0).reshape(1, 4, 2, 1), 2)",
    "lib.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 4)).shape",
    "lib.celu_(x.clone(), 2.0)",
    "lib.threshold_(x.clone(), 0.5, 2)",
    "lib.layer_norm(x, [5], None, None, 1e-5, False)",
    "lib.layer_norm(x, 5)",
    "lib.layer_norm(x, [4])",
    "lib.layer_norm(x.long(), [5])",
    "lib.group_norm(x, 2, None, None, 1e-5, False)",
    "lib.group_norm(x, 0)",
    "lib.group_norm(x, -1)",
    "lib.group_norm(x, 3)",
    "lib.group_norm(x[0, 0], 1)",
    "lib.group_norm(x[0], 2)",
    "lib.group_norm(x.long(), 2)",
    "lib.rms_norm(x, [5])",
    "lib.rms_norm(x, [5], eps=None)",
    "lib.rms_norm(x, 5)",
    "lib.rms_norm(x[0, 0], [2, 5])",
    "lib.max_pool1d(x, 2)",
    "lib.max_pool1d(x, 2, ())",
    "lib.max_pool1d(x, 2, None, 1)",
    "lib.max_pool1d(x, 2, return_indices=True)",
    "lib.max_pool1d(x[0, 0], 2)",
    "lib.max_pool2d(x, 2, [])",
    "lib.max_pool2d(x, (2, 3), 1, 1, 1, True)",
    "lib.max_pool3d(x[None], 2, (), 1)",
    "lib.max_pool3d(x, 2)",
]


def _outcome(lib: Any, call: str) -> str:
    x = lib.arange(-20.0, 20.0).reshape(2, 4, 5) / 8
    try:
        value = eval(call, {"lib": lib, "x": x})
    except Exception as e:  # the type and text are what is compared
        return f"{type(e).__name__}: {e}"
    return repr(value).replace("chainrule.", "torch.")


@pytest.mark.parametrize("call", CALLS)
def test_as_torch(torch: ModuleType, call: str) -> None:
    assert _outcome(chainrule, call) == _outcome(torch, call)


RECORDED = {
    "x.prelu(2.0)": "TypeError: prelu(): argument 'weight' (position 1) must be Tensor, not float",
    "lib.hardshrink(x, 'a')": (
        "TypeError: hardshrink(): argument 'lambd' (position 2) must be Number, not str"
    ),
    "lib.celu(x, inplace=True)": "TypeError: celu() got an unexpected keyword argument 'inplace'",
    "lib.selu(x, True)": "TypeError: selu() takes 1 positional argument but 2 were given",
    "lib.group_norm(x, 0)": "RuntimeError: Expected num groups to be greater than 0, got 0",
    "lib.group_norm(x[0, 0], 1)": (
        "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"
    ),
    "lib.max_pool1d(x, 2, return_indices=True)": (
        "TypeError: max_pool1d() got an unexpected keyword argument 'return_indices'"
    ),
    "lib.rms_norm(x[0, 0], [2, 5])": (
        "ValueError: Input tensor must have at least 2 dimensions, but got 1"
    ),
}


@pytest.mark.parametrize("call", list(RECORDED))
def test_recorded_errors(call: str) -> None:
    assert _outcome(chainrule, call) == RECORDED[call]


def test_recorded_values_and_nodes() -> None:
    x = (chainrule.arange(-4.0, 4.0).reshape(2, 4) / 4).requires_grad_()
    assert chainrule.max_pool1d(x[None], 2, ()).tolist() == [[[-0.75, -0.25], [0.25, 0.75]]]
    assert type(chainrule.max_pool2d(x[None, None], 2).grad_fn).__name__ == (
        "MaxPool2DWithIndicesBackward0"
    )
    assert type(chainrule.layer_norm(x, [4]).grad_fn).__name__ == "NativeLayerNormBackward0"
    assert type(chainrule.group_norm(x, 2).grad_fn).__name__ == "NativeGroupNormBackward0"
    assert type(chainrule.celu(x).grad_fn).__name__ == "CeluBackward0"
    assert type(chainrule.selu(x).grad_fn).__name__ == "EluBackward0"
    assert type(chainrule.threshold(x, 0.0, 1.0).grad_fn).__name__ == "ThresholdBackward0"
    assert type(x.hardshrink().grad_fn).__name__ == "HardshrinkBackward0"
    assert x.hardshrink(0.5).tolist() == [[-1.0, -0.75, 0.0, 0.0], [0.0, 0.0, 0.0, 0.75]]
    w = chainrule.tensor([0.5])
    assert x.detach().prelu(w).tolist() == [[-0.5, -0.375, -0.25, -0.125], [0.0, 0.25, 0.5, 0.75]]


def test_rrelu_draws_from_the_generator_given(torch: ModuleType) -> None:
    for lib in (chainrule, torch):
        g = lib.Generator().manual_seed(3)
        x = lib.arange(-6.0, 6.0)
        drawn = lib.rrelu(x, 0.1, 0.3, True, g)
        again = lib.nn.functional.rrelu_(x.clone(), 0.1, 0.3, True, lib.Generator().manual_seed(3))
        assert drawn.tolist() == again.tolist()
    ours = chainrule.rrelu(chainrule.arange(-6.0, 6.0), 0.1, 0.3, True, chainrule.Generator())
    theirs = torch.rrelu(torch.arange(-6.0, 6.0), 0.1, 0.3, True, torch.Generator())
    assert ours.tolist() == pytest.approx(theirs.tolist(), rel=1e-6)
