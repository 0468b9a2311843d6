"""Padding, upsampling, pixel shuffle, fold/unfold and channel shuffle layers: reprs,
outputs and gradients against torch, their input checks, and torch-free invariants."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import gradcheck
from layer_compare import assert_layer_matches, error_of, run

nn = chainrule.nn

CASES: list[tuple[str, Any, tuple[int, ...]]] = [
    ("zero1d", lambda m: m.nn.ZeroPad1d((1, 2)), (2, 3, 4)),
    ("zero2d", lambda m: m.nn.ZeroPad2d(2), (1, 2, 3, 3)),
    ("zero2d_crop", lambda m: m.nn.ZeroPad2d((1, -1, 0, 2)), (2, 3, 4)),
    ("zero3d", lambda m: m.nn.ZeroPad3d((1, 0, 0, 1, 2, 0)), (1, 2, 2, 3, 3)),
    ("constant1d", lambda m: m.nn.ConstantPad1d(2, 3.5), (2, 4)),
    ("constant2d", lambda m: m.nn.ConstantPad2d((0, 1, 2, 3), -1.0), (1, 2, 3, 3)),
    ("constant3d", lambda m: m.nn.ConstantPad3d(1, 0.5), (2, 2, 2, 2)),
    ("reflect1d", lambda m: m.nn.ReflectionPad1d((2, 1)), (2, 3, 4)),
    ("reflect2d", lambda m: m.nn.ReflectionPad2d(2), (1, 2, 3, 4)),
    ("reflect3d", lambda m: m.nn.ReflectionPad3d((1, 2, 0, 1, 1, 1)), (1, 1, 3, 3, 4)),
    ("replicate1d", lambda m: m.nn.ReplicationPad1d(3), (3, 2)),
    ("replicate2d", lambda m: m.nn.ReplicationPad2d((1, 0, 2, 3)), (2, 2, 3, 3)),
    ("replicate3d", lambda m: m.nn.ReplicationPad3d(1), (2, 2, 2, 3)),
    ("circular1d", lambda m: m.nn.CircularPad1d((1, 2)), (2, 3, 4)),
    ("circular2d", lambda m: m.nn.CircularPad2d((1, 1, 2, 0)), (2, 3, 4)),
    ("circular3d", lambda m: m.nn.CircularPad3d(1), (1, 1, 2, 3, 3)),
    ("upsample_nearest", lambda m: m.nn.Upsample(scale_factor=2), (1, 2, 3, 4)),
    ("upsample_size", lambda m: m.nn.Upsample(size=(5, 7), mode="bilinear"), (1, 2, 3, 4)),
    (
        "upsample_corners",
        lambda m: m.nn.Upsample(scale_factor=(1.5, 2.5), mode="bicubic", align_corners=True),
        (1, 1, 4, 4),
    ),
    (
        "upsample_recompute",
        lambda m: m.nn.Upsample(scale_factor=1.7, mode="linear", recompute_scale_factor=True),
        (2, 2, 5),
    ),
    ("upsample_trilinear", lambda m: m.nn.Upsample(size=4, mode="trilinear"), (1, 1, 2, 3, 2)),
    ("upsample_area", lambda m: m.nn.Upsample(size=(2, 3), mode="area"), (1, 2, 5, 7)),
    ("upsample_exact", lambda m: m.nn.Upsample(scale_factor=3, mode="nearest-exact"), (1, 2, 3)),
    ("upsampling_nearest2d", lambda m: m.nn.UpsamplingNearest2d(size=(5, 4)), (1, 2, 3, 2)),
    ("upsampling_bilinear2d", lambda m: m.nn.UpsamplingBilinear2d(scale_factor=2), (1, 2, 3, 3)),
    ("pixel_shuffle", lambda m: m.nn.PixelShuffle(2), (2, 8, 3, 2)),
    ("pixel_unshuffle", lambda m: m.nn.PixelUnshuffle(3), (3, 6, 3)),
    ("fold", lambda m: m.nn.Fold((4, 5), 2), (2, 12, 12)),
    ("fold_strided", lambda m: m.nn.Fold(5, (2, 3), dilation=1, padding=1, stride=2), (12, 9)),
    ("unfold", lambda m: m.nn.Unfold(2, dilation=2, padding=1, stride=(1, 2)), (2, 3, 4, 5)),
    ("channel_shuffle", lambda m: m.nn.ChannelShuffle(3), (2, 6, 2, 2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "build", "shape"), CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch: Any, name: str, build: Any, shape: Any, dtype: str) -> None:
    mine = run(chainrule, build, shape, dtype)
    theirs = run(torch, build, shape, dtype)
    assert_layer_matches(mine, theirs, dtype)


ERRORS = {
    "circular_rank": lambda m: m.nn.CircularPad2d(1)(m.ones(2, 3, 4, 5, 6)),
    "circular_rank1d": lambda m: m.nn.CircularPad1d(1)(m.ones(4)),
    "reflect_too_much": lambda m: m.nn.ReflectionPad1d(4)(m.ones(1, 2, 3)),
    "replicate_rank": lambda m: m.nn.ReplicationPad3d(1)(m.ones(2, 3)),
    "constant_missing_value": lambda m: m.nn.ConstantPad1d(2),
    "pad_length": lambda m: m.nn.ZeroPad2d((1, 2, 3))(m.ones(1, 2, 3)),
    "upsample_none": lambda m: m.nn.Upsample()(m.ones(1, 1, 2, 2)),
    "upsample_mode": lambda m: m.nn.Upsample(scale_factor=2, mode="linear")(m.ones(1, 1, 2, 2)),
    "pixel_shuffle": lambda m: m.nn.PixelShuffle(2)(m.ones(1, 6, 2, 2)),
    "fold_blocks": lambda m: m.nn.Fold(4, 2)(m.ones(1, 4, 5)),
    "unfold_rank": lambda m: m.nn.Unfold(2)(m.ones(3, 3)),
    "channel_shuffle": lambda m: m.nn.ChannelShuffle(4)(m.ones(1, 6, 2)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch: Any, name: str) -> None:
    want = error_of(lambda: ERRORS[name](torch))
    assert want is not None
    assert error_of(lambda: ERRORS[name](chainrule)) == want


# --- without torch ------------------------------------------------------------------------------


def test_reprs() -> None:
    assert repr(nn.ZeroPad2d(1)) == "ZeroPad2d((1, 1, 1, 1))"
    assert repr(nn.ConstantPad1d((1, 2), 0.5)) == "ConstantPad1d(padding=(1, 2), value=0.5)"
    assert repr(nn.ReflectionPad3d(1)) == "ReflectionPad3d((1, 1, 1, 1, 1, 1))"
    assert repr(nn.CircularPad1d(2)) == "CircularPad1d((2, 2))"
    assert repr(nn.Upsample(scale_factor=2, mode="bilinear")) == (
        "Upsample(scale_factor=2.0, mode='bilinear')"
    )
    assert repr(nn.UpsamplingBilinear2d(size=4)) == "UpsamplingBilinear2d(size=4, mode='bilinear')"
    assert repr(nn.Upsample(scale_factor=(2, 3))) == (
        "Upsample(scale_factor=(2.0, 3.0), mode='nearest')"
    )
    assert repr(nn.Fold(4, 2)) == (
        "Fold(output_size=4, kernel_size=2, dilation=1, padding=0, stride=1)"
    )
    assert repr(nn.Unfold((2, 3), stride=2)) == (
        "Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=2)"
    )
    assert repr(nn.PixelUnshuffle(2)) == "PixelUnshuffle(downscale_factor=2)"
    assert repr(nn.ChannelShuffle(3)) == "ChannelShuffle(groups=3)"


def test_recorded_values() -> None:
    x = chainrule.arange(4.0).reshape(1, 1, 4)
    assert nn.ReflectionPad1d(2)(x).tolist() == [[[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    assert nn.ReplicationPad1d(1)(x).tolist() == [[[0.0, 0.0, 1.0, 2.0, 3.0, 3.0]]]
    assert nn.CircularPad1d((1, 2))(x).tolist() == [[[3.0, 0.0, 1.0, 2.0, 3.0, 0.0, 1.0]]]
    assert nn.ConstantPad1d(1, 9.0)(x).tolist() == [[[9.0, 0.0, 1.0, 2.0, 3.0, 9.0]]]
    c = chainrule.arange(6.0).reshape(1, 6, 1)
    assert nn.ChannelShuffle(2)(c).flatten().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_round_trips() -> None:
    x = chainrule.randn(2, 3, 4, 6)
    np.testing.assert_array_equal(nn.PixelShuffle(2)(nn.PixelUnshuffle(2)(x)).numpy(), x.numpy())
    blocks = nn.Unfold(2, stride=2)(x)
    np.testing.assert_array_equal(nn.Fold((4, 6), 2, stride=2)(blocks).numpy(), x.numpy())
    c = chainrule.randn(2, 6, 3)
    back = nn.ChannelShuffle(3)(nn.ChannelShuffle(2)(c))
    np.testing.assert_array_equal(back.numpy(), c.numpy())


@pytest.mark.parametrize(
    "layer",
    [
        nn.ReflectionPad2d((1, 2, 2, 0)),
        nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)),
        nn.CircularPad2d(1),
        nn.Upsample(scale_factor=2, mode="bilinear"),
        nn.Fold((3, 4), 2),
        nn.ChannelShuffle(2),
    ],
    ids=repr,
)
def test_gradcheck(layer: Any) -> None:
    shape = (1, 8, 6) if isinstance(layer, nn.Fold) else (1, 2, 3, 3)
    if isinstance(layer, nn.ReplicationPad3d):
        shape = (1, 2, 2, 3, 3)
    x = chainrule.randn(*shape, dtype=chainrule.float64, requires_grad=True)
    assert gradcheck(layer, (x,))
