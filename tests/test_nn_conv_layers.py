"""Conv1d/2d/3d and ConvTranspose1d/2d/3d as layers: reprs, parameters and their default
initialisation, padding modes, `output_size`, and PyTorch's errors.

Each case builds the layer after `manual_seed(0)` on chainrule and on torch and compares
the initial parameters bit for bit and the output and gradients to a tolerance; the
torch-free tests check recorded reprs, draws, shapes and finite-difference gradients.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule.autograd import gradcheck
from layer_compare import assert_layer_matches, error_of, run

nn = chainrule.nn

# (name, builder, input shape)
CASES: list[tuple[str, Any, tuple[int, ...]]] = [
    ("conv1d", lambda m: m.nn.Conv1d(3, 4, 3), (2, 3, 9)),
    ("conv1d_unbatched", lambda m: m.nn.Conv1d(3, 4, 2, stride=2, padding=1), (3, 8)),
    ("conv1d_same_even", lambda m: m.nn.Conv1d(2, 2, 4, padding="same", dilation=1), (1, 2, 7)),
    ("conv1d_valid", lambda m: m.nn.Conv1d(2, 3, 3, padding="valid", bias=False), (1, 2, 6)),
    (
        "conv1d_circular",
        lambda m: m.nn.Conv1d(2, 4, 3, padding=2, padding_mode="circular"),
        (2, 2, 5),
    ),
    ("conv2d", lambda m: m.nn.Conv2d(3, 6, 3, stride=2, padding=1), (2, 3, 7, 7)),
    ("conv2d_groups", lambda m: m.nn.Conv2d(4, 6, (3, 2), groups=2, dilation=(1, 2)), (1, 4, 6, 7)),
    ("conv2d_depthwise", lambda m: m.nn.Conv2d(3, 6, 3, groups=3, bias=False), (2, 3, 5, 5)),
    (
        "conv2d_same",
        lambda m: m.nn.Conv2d(2, 3, (3, 4), padding="same", dilation=(2, 1)),
        (1, 2, 6, 6),
    ),
    (
        "conv2d_reflect",
        lambda m: m.nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="reflect"),
        (2, 2, 5, 6),
    ),
    (
        "conv2d_replicate",
        lambda m: m.nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate"),
        (2, 5, 5),
    ),
    (
        "conv2d_circular_same",
        lambda m: m.nn.Conv2d(2, 2, 3, padding="same", padding_mode="circular"),
        (1, 2, 4, 5),
    ),
    (
        "conv2d_reflect_same_even",
        lambda m: m.nn.Conv2d(1, 2, 4, padding="same", padding_mode="reflect"),
        (1, 1, 6, 6),
    ),
    (
        "conv3d",
        lambda m: m.nn.Conv3d(2, 3, 2, stride=(1, 2, 1), padding=(1, 0, 1)),
        (1, 2, 4, 5, 4),
    ),
    (
        "conv3d_replicate",
        lambda m: m.nn.Conv3d(2, 2, 3, padding=1, padding_mode="replicate", bias=False),
        (2, 4, 4, 4),
    ),
    (
        "conv3d_groups_dilation",
        lambda m: m.nn.Conv3d(4, 4, 2, groups=4, dilation=2),
        (1, 4, 5, 5, 5),
    ),
    ("convt1d", lambda m: m.nn.ConvTranspose1d(3, 2, 3, stride=2, output_padding=1), (2, 3, 5)),
    ("convt1d_unbatched", lambda m: m.nn.ConvTranspose1d(2, 4, 2, groups=2, bias=False), (2, 5)),
    (
        "convt2d",
        lambda m: m.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2),
        (1, 4, 4, 4),
    ),
    (
        "convt2d_dilation",
        lambda m: m.nn.ConvTranspose2d(
            2, 3, (2, 3), stride=(2, 1), dilation=2, output_padding=(1, 0)
        ),
        (2, 2, 3, 4),
    ),
    (
        "convt3d",
        lambda m: m.nn.ConvTranspose3d(2, 2, 2, stride=2, padding=(0, 1, 0)),
        (1, 2, 3, 3, 3),
    ),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "build", "shape"), CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch: Any, name: str, build: Any, shape: Any, dtype: str) -> None:
    mine = run(chainrule, build, shape, dtype)
    theirs = run(torch, build, shape, dtype)
    assert_layer_matches(mine, theirs, dtype)


def transposed_to_size(size: list[int]) -> Any:
    return lambda layer, x: layer(x, output_size=size)


@pytest.mark.parametrize(
    ("build", "shape", "size"),
    [
        (lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=2), (1, 2, 4, 4), [10, 9]),
        (lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=3, padding=1), (2, 4, 4), [3, 11, 12]),
        (lambda m: m.nn.ConvTranspose1d(2, 2, 2, stride=3), (1, 2, 4), [1, 2, 13]),
        (lambda m: m.nn.ConvTranspose3d(1, 2, 2, stride=2, dilation=1), (1, 1, 2, 2, 2), [5, 4, 5]),
    ],
)
def test_output_size_matches_torch(torch: Any, build: Any, shape: Any, size: Any) -> None:
    call = transposed_to_size(size)
    mine = run(chainrule, build, shape, "float64", call)
    theirs = run(torch, build, shape, "float64", call)
    assert_layer_matches(mine, theirs, "float64")


def test_factory_kwargs_and_reset_match_torch(torch: Any) -> None:
    for m_ in (chainrule, torch):
        m_.manual_seed(3)
    mine = nn.Conv2d(2, 4, 3, dtype=chainrule.float64, device="cpu")
    theirs = torch.nn.Conv2d(2, 4, 3, dtype=torch.float64, device="cpu")
    chainrule.manual_seed(5)
    torch.manual_seed(5)
    mine.reset_parameters()
    theirs.reset_parameters()
    for a, b in zip(mine.parameters(), theirs.parameters(), strict=True):
        assert str(a.dtype) == "chainrule.float64"
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


ERRORS = {
    "groups_zero": lambda m: m.nn.Conv2d(2, 2, 3, groups=0),
    "in_groups": lambda m: m.nn.Conv2d(3, 2, 3, groups=2),
    "out_groups": lambda m: m.nn.Conv1d(2, 3, 3, groups=2),
    "padding_string": lambda m: m.nn.Conv2d(2, 2, 3, padding="full"),
    "same_strided": lambda m: m.nn.Conv3d(2, 2, 3, stride=2, padding="same"),
    "padding_mode": lambda m: m.nn.Conv1d(2, 2, 3, padding_mode="wrap"),
    "transposed_mode": lambda m: m.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
    "output_size_length": lambda m: m.nn.ConvTranspose2d(2, 2, 3)(m.ones(1, 2, 3, 3), [5]),
    "output_size_range": lambda m: m.nn.ConvTranspose2d(2, 2, 3, stride=2)(
        m.ones(1, 2, 3, 3), [9, 20]
    ),
    "input_channels": lambda m: m.nn.Conv2d(2, 2, 3)(m.ones(1, 3, 5, 5)),
    "input_rank": lambda m: m.nn.Conv1d(2, 2, 3)(m.ones(2, 2, 5, 5)),
    "reflect_too_much": lambda m: m.nn.Conv1d(1, 1, 3, padding=4, padding_mode="reflect")(
        m.ones(1, 1, 3)
    ),
}


def _sets_sorted(error: Any) -> Any:
    """The error with the items of each `{...}` in its message sorted: PyTorch prints Python
    sets there, whose order changes with the process's string hashing."""
    if error is None:
        return None
    kind, message = error[0], error[1]

    def sort_items(match: re.Match[str]) -> str:
        return "{" + ", ".join(sorted(match.group(1).split(", "))) + "}"

    return (kind, re.sub(r"\{([^{}]*)\}", sort_items, message), *error[2:])


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch: Any, name: str) -> None:
    want = _sets_sorted(error_of(lambda: ERRORS[name](torch)))
    assert want is not None
    assert _sets_sorted(error_of(lambda: ERRORS[name](chainrule))) == want


# --- without torch ------------------------------------------------------------------------------


def test_reprs() -> None:
    assert repr(nn.Conv2d(3, 8, 3)) == "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))"
    assert repr(nn.Conv1d(4, 8, 5, stride=2, padding=2, dilation=3, groups=4)) == (
        "Conv1d(4, 8, kernel_size=(5,), stride=(2,), padding=(2,), dilation=(3,), groups=4)"
    )
    assert repr(
        nn.Conv3d(2, 2, (1, 2, 3), padding="same", bias=False, padding_mode="circular")
    ) == (
        "Conv3d(2, 2, kernel_size=(1, 2, 3), stride=(1, 1, 1), padding=same, bias=False, "
        "padding_mode=circular)"
    )
    assert repr(nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1)) == (
        "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))"
    )


def test_parameters_shapes_and_state_keys() -> None:
    conv = nn.Conv2d(4, 6, (3, 2), groups=2)
    assert list(conv.state_dict()) == ["weight", "bias"]
    assert tuple(conv.weight.shape) == (6, 2, 3, 2)
    t = nn.ConvTranspose3d(4, 6, 2, groups=2, bias=False)
    assert list(t.state_dict()) == ["weight"] and t.bias is None
    assert tuple(t.weight.shape) == (4, 3, 2, 2, 2)
    assert nn.Conv1d(2, 2, 3, padding="same")._reversed_padding_repeated_twice == [1, 1]
    assert nn.Conv2d(2, 2, (2, 4), padding="same")._reversed_padding_repeated_twice == [1, 2, 0, 1]
    assert nn.Conv2d(2, 2, 3, padding=(1, 2))._reversed_padding_repeated_twice == (2, 2, 1, 1)


def test_recorded_initial_draws() -> None:
    # PyTorch 2.13's values after manual_seed(0) for Conv1d(2, 2, 2).
    chainrule.manual_seed(0)
    conv = nn.Conv1d(2, 2, 2)
    np.testing.assert_allclose(
        conv.weight.detach().numpy().ravel(),
        [-0.003743, 0.268222, -0.411523, -0.367970, -0.192577, 0.134079, -0.009907, 0.396445],
        atol=1e-6,
    )
    np.testing.assert_allclose(conv.bias.detach().numpy(), [-0.044372, 0.132306], atol=1e-6)


def test_init_bounds() -> None:
    conv = nn.Conv2d(3, 5, 3)  # fan_in 27: weight and bias within 1/sqrt(27)
    bound = 1 / math.sqrt(27)
    assert float(conv.weight.abs().max()) <= bound
    assert float(conv.bias.abs().max()) <= bound


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_padding_modes_keep_size_and_gradcheck(mode: str) -> None:
    conv = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode).double()
    x = chainrule.randn(1, 2, 4, 5, dtype=chainrule.float64, requires_grad=True)
    assert tuple(conv(x).shape) == (1, 3, 4, 5)
    assert gradcheck(lambda a, w, b: conv._conv_forward(a, w, b), (x, conv.weight, conv.bias))


def test_transposed_output_size_inverts_strided_conv() -> None:
    conv = nn.Conv2d(2, 3, 3, stride=2)
    back = nn.ConvTranspose2d(3, 2, 3, stride=2)
    for size in (7, 8):
        x = chainrule.randn(1, 2, size, size)
        assert tuple(back(conv(x), output_size=x.shape).shape) == (1, 2, size, size)


@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(0, 2),
    st.integers(1, 2),
    st.sampled_from(["zeros", "reflect", "replicate", "circular"]),
)
def test_conv1d_output_length(k: int, stride: int, pad: int, dilation: int, mode: str) -> None:
    conv = nn.Conv1d(1, 1, k, stride=stride, padding=pad, dilation=dilation, padding_mode=mode)
    n = 6
    out = conv(chainrule.ones(1, 1, n))
    assert out.shape[-1] == (n + 2 * pad - dilation * (k - 1) - 1) // stride + 1
