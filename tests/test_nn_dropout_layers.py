"""The dropout layers: Dropout, Dropout1d/2d/3d, AlphaDropout and FeatureAlphaDropout.

In training their masks are torch's under the same seed (outputs and gradients
compared bit for bit); in evaluation they return the input itself. Reprs and the
probability check are also recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from nn_compare import assert_same, error, outcome

LAYERS: list[tuple[str, Callable[[Any], Any], tuple[int, ...]]] = [
    ("dropout", lambda m: m.nn.Dropout(0.3), (4, 5, 6)),
    ("dropout_half", lambda m: m.nn.Dropout(), (200,)),
    ("dropout_inplace", lambda m: m.nn.Dropout(0.6, inplace=True), (3, 7)),
    ("dropout1d", lambda m: m.nn.Dropout1d(0.4), (4, 6, 5)),
    ("dropout1d_unbatched", lambda m: m.nn.Dropout1d(0.4), (6, 5)),
    ("dropout2d", lambda m: m.nn.Dropout2d(0.5), (3, 8, 2, 3)),
    ("dropout2d_unbatched", lambda m: m.nn.Dropout2d(0.5), (8, 2, 3)),
    ("dropout3d", lambda m: m.nn.Dropout3d(0.25), (2, 6, 2, 2, 3)),
    ("dropout3d_unbatched", lambda m: m.nn.Dropout3d(0.25), (6, 2, 2, 3)),
    ("alpha", lambda m: m.nn.AlphaDropout(0.2), (5, 9)),
    ("feature_alpha", lambda m: m.nn.FeatureAlphaDropout(0.35), (3, 6, 4)),
    ("all_dropped", lambda m: m.nn.Dropout(1.0), (3, 4)),
    ("none_dropped", lambda m: m.nn.Dropout(0.0), (3, 4)),
    ("dropout3d_3d", lambda m: m.nn.Dropout3d(0.5), (6, 3, 4)),
    ("dropout2d_5d", lambda m: m.nn.Dropout2d(0.5), (2, 3, 2, 2, 2)),
]
IDS = [name for name, _, _ in LAYERS]


def run(build: Callable[[Any], Any], shape: tuple[int, ...], train: bool, seed: int) -> Any:
    def scenario(m: Any) -> Any:
        layer = build(m).train(train)
        x = m.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
        m.manual_seed(seed)
        out = layer(x * 1.0)  # (an in-place layer needs a non-leaf)
        out.backward(m.ones_like(out))
        # Twice in a row: the second mask comes from where the first left the generator.
        again = layer(x.detach() * 1.0)
        return repr(layer), out, x.grad, again

    return scenario


@pytest.mark.parametrize(("name", "build", "shape"), LAYERS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 7])
def test_train_masks_are_torchs(torch: Any, name: str, build: Any, shape: Any, seed: int) -> None:
    scenario = run(build, shape, True, seed)
    assert_same(outcome(scenario, chainrule), outcome(scenario, torch))


@pytest.mark.parametrize(("name", "build", "shape"), LAYERS, ids=IDS)
def test_eval_is_identity(name: str, build: Any, shape: Any) -> None:
    layer = build(chainrule).eval()
    x = chainrule.randn(*shape)
    state = chainrule.get_rng_state()
    out = layer(x)
    if (name.endswith("unbatched") and "2d" not in name) or name == "dropout3d_3d":
        assert out is not x  # (through unsqueeze and squeeze, as in PyTorch)
        assert chainrule.equal(out, x)
    else:
        assert out is x
    assert chainrule.equal(chainrule.get_rng_state(), state)  # nothing drawn


@pytest.mark.parametrize(("name", "build", "shape"), LAYERS, ids=IDS)
def test_eval_matches_torch(torch: Any, name: str, build: Any, shape: Any) -> None:
    scenario = run(build, shape, False, 0)
    assert_same(outcome(scenario, chainrule), outcome(scenario, torch))


def test_dropout_invariants() -> None:
    chainrule.manual_seed(0)
    x = chainrule.ones(100, 50)
    out = chainrule.nn.Dropout(0.3)(x).numpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)
    assert 0.6 < kept.mean() < 0.8
    out = chainrule.nn.Dropout2d(0.5)(chainrule.ones(20, 30, 4, 4)).numpy()
    per_channel = out.reshape(20, 30, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # whole channels kept or zeroed


RECORDED_REPRS = {
    "dropout": "Dropout(p=0.3, inplace=False)",
    "dropout_inplace": "Dropout(p=0.6, inplace=True)",
    "dropout2d": "Dropout2d(p=0.5, inplace=False)",
    "alpha": "AlphaDropout(p=0.2, inplace=False)",
    "feature_alpha": "FeatureAlphaDropout(p=0.35, inplace=False)",
}


@pytest.mark.parametrize("name", sorted(RECORDED_REPRS))
def test_recorded_reprs(name: str) -> None:
    build = next(b for n, b, _ in LAYERS if n == name)
    assert repr(build(chainrule)) == RECORDED_REPRS[name]


BAD_P: dict[str, Callable[[Any], Any]] = {
    "negative": lambda m: m.nn.Dropout(-0.1),
    "above_one": lambda m: m.nn.Dropout2d(1.5),
    "alpha": lambda m: m.nn.AlphaDropout(2),
}


@pytest.mark.parametrize("name", sorted(BAD_P))
def test_probability_errors(torch: Any, name: str) -> None:
    assert error(lambda: BAD_P[name](chainrule)) == error(lambda: BAD_P[name](torch))


def test_probability_error_recorded() -> None:
    assert error(lambda: chainrule.nn.Dropout(-0.1)) == (
        "ValueError",
        "dropout probability has to be between 0 and 1, but got -0.1",
    )
    assert error(lambda: chainrule.nn.Dropout1d()(chainrule.ones(2, 3, 4, 5))) == (
        "RuntimeError",
        "dropout1d: Expected 2D or 3D input, but received a 4D input. Note that dropout1d "
        "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
        "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).",
    )
