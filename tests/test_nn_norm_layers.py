"""The normalisation layers: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm,
RMSNorm and LocalResponseNorm, against torch (reprs, state_dict keys, running statistics
to the bit, outputs and gradients) and on their own (recorded reprs and messages,
invariants, gradcheck)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import gradcheck
from nn_compare import assert_same, error, outcome


def rand(*shape: int, seed: int = 0, dtype: Any = np.float32) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 2 + 0.5).astype(dtype)


@pytest.fixture
def one_thread(torch: Any) -> Iterator[Any]:
    """torch on one thread: its batch-norm statistics then sum in one fixed order."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(before)


def randomize(m: Any, module: Any, seed: int = 3) -> None:
    """Every parameter set to fixed random values (the defaults are all ones and zeros)."""
    with m.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(m.tensor(rand(*p.shape, seed=seed + i, dtype=np.float64)))


def steps(build: Callable[[Any], Any], inputs: list[np.ndarray], train: bool = True) -> Any:
    """A scenario: the layer run over `inputs` (in train or eval mode), with each output,
    the input and parameter gradients, and the buffers after every step."""

    def scenario(m: Any) -> Any:
        layer = build(m)
        randomize(m, layer)
        layer.train(train)
        seen = []
        for x in inputs:
            t = m.tensor(x, requires_grad=True)
            out = layer(t)
            out.backward(m.tensor(rand(*out.shape, seed=9, dtype=x.dtype)))
            grads = {n: arr(p.grad) for n, p in layer.named_parameters()}
            layer.zero_grad()
            seen.append([arr(out), arr(t.grad), grads, buffers(layer)])
        return seen

    return scenario


def compare(torch: Any, scenario: Callable[[Any], Any], rtol: float = 1e-5) -> None:
    got, want = outcome(scenario, chainrule), outcome(scenario, torch)
    assert_same(got, want, rtol=rtol, atol=rtol)


def arr(t: Any) -> np.ndarray:
    """A tensor's values (compared with a tolerance, where reprs could differ in a digit)."""
    return t.detach().numpy().copy()


def buffers(layer: Any) -> dict[str, np.ndarray]:
    return {k: arr(v) for k, v in layer.named_buffers()}


# --- batch norm ---------------------------------------------------------------------------

BN_CASES = [
    ("BatchNorm1d", (8, 3), {}),
    ("BatchNorm1d", (4, 3, 7), {"momentum": 0.3}),
    ("BatchNorm1d", (6, 3), {"momentum": None}),
    ("BatchNorm2d", (2, 3, 5, 4), {"affine": False}),
    ("BatchNorm2d", (3, 2, 4, 4), {"bias": False, "eps": 1e-3}),
    ("BatchNorm2d", (5, 3, 1, 1), {}),
    ("BatchNorm3d", (2, 2, 3, 4, 2), {"momentum": 0.01}),
    ("BatchNorm2d", (2, 3, 4, 4), {"track_running_stats": False}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("name", "shape", "kwargs"), BN_CASES)
def test_batchnorm_buffers_bit_exact(
    one_thread: Any, name: str, shape: Any, kwargs: Any, dtype: Any
) -> None:
    """The running mean and variance after several training steps are torch's, bit for bit."""
    results = []
    for m in (chainrule, one_thread):
        layer = getattr(m.nn, name)(shape[1], **kwargs).to(getattr(m, np.dtype(dtype).name))
        for seed in range(4):
            layer(m.tensor(rand(*shape, seed=seed, dtype=dtype) * (seed + 1)))
        results.append(buffers(layer))
    assert results[0].keys() == results[1].keys()
    for k in results[1]:
        np.testing.assert_array_equal(results[0][k], results[1][k], err_msg=k)


@pytest.mark.parametrize(("name", "shape", "kwargs"), BN_CASES)
def test_batchnorm_train_then_eval(one_thread: Any, name: str, shape: Any, kwargs: Any) -> None:
    inputs = [rand(*shape, seed=s) for s in range(3)]

    def scenario(m: Any) -> Any:
        layer = getattr(m.nn, name)(shape[1], **kwargs)
        train = steps(lambda _: layer, inputs)(m)
        return train, steps(lambda _: layer, inputs[:1], train=False)(m), repr(layer)

    compare(one_thread, scenario)


def test_batchnorm_float64_gradients(torch: Any) -> None:
    x = rand(5, 3, 4, dtype=np.float64)
    compare(torch, steps(lambda m: m.nn.BatchNorm1d(3).double(), [x, x * 2]), rtol=1e-10)
    compare(torch, steps(lambda m: m.nn.BatchNorm1d(3).double(), [x], train=False), rtol=1e-10)


def test_batchnorm_state_dict_and_repr(torch: Any) -> None:
    def scenario(m: Any) -> Any:
        layers = [
            m.nn.BatchNorm1d(4),
            m.nn.BatchNorm2d(3, momentum=None, affine=False),
            m.nn.BatchNorm3d(2, track_running_stats=False, bias=False),
            m.nn.BatchNorm2d(2, dtype=m.float64),
        ]
        return [
            (repr(b), [(k, tuple(v.shape), str(v.dtype)) for k, v in b.state_dict().items()])
            for b in layers
        ]

    assert_same(outcome(scenario, chainrule), outcome(scenario, torch))


def test_batchnorm_recorded() -> None:
    bn = chainrule.nn.BatchNorm2d(3, momentum=None)
    assert repr(bn) == (
        "BatchNorm2d(3, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)"
    )
    assert list(bn.state_dict()) == [
        "weight",
        "bias",
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert bn.num_batches_tracked.dtype == chainrule.int64
    # momentum=None: the running mean is the plain average of the batch means.
    xs = [rand(4, 3, 2, 2, seed=s, dtype=np.float64) for s in range(3)]
    bn = bn.double()
    for x in xs:
        bn(chainrule.tensor(x))
    means = np.mean([x.mean((0, 2, 3)) for x in xs], axis=0)
    np.testing.assert_allclose(bn.running_mean.numpy(), means, rtol=1e-12)
    assert int(bn.num_batches_tracked) == 3
    variances = np.mean([x.transpose(1, 0, 2, 3).reshape(3, -1).var(1, ddof=1) for x in xs], 0)
    np.testing.assert_allclose(bn.running_var.numpy(), variances, rtol=1e-12)
    # eval mode uses (and leaves) the running statistics.
    bn.eval()
    before = bn.running_mean.numpy().copy()
    out = bn(chainrule.tensor(xs[0]))
    want = (xs[0] - before[None, :, None, None]) / np.sqrt(bn.running_var.numpy() + 1e-5)[
        None, :, None, None
    ]
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-10)
    np.testing.assert_array_equal(bn.running_mean.numpy(), before)


INPUT_DIM_ERRORS: dict[str, Callable[[Any], Any]] = {
    "bn1d_4d": lambda m: m.nn.BatchNorm1d(3)(m.zeros(2, 3, 4, 4)),
    "bn1d_1d": lambda m: m.nn.BatchNorm1d(3)(m.zeros(3)),
    "bn2d_3d": lambda m: m.nn.BatchNorm2d(3)(m.zeros(2, 3, 4)),
    "bn3d_4d": lambda m: m.nn.BatchNorm3d(3)(m.zeros(2, 3, 4, 4)),
    "bn_one_value": lambda m: m.nn.BatchNorm1d(3)(m.zeros(1, 3)),
    "bn_channels": lambda m: m.nn.BatchNorm1d(3)(m.zeros(2, 4)),
    "in1d_4d": lambda m: m.nn.InstanceNorm1d(3)(m.zeros(2, 3, 4, 4)),
    "in2d_2d": lambda m: m.nn.InstanceNorm2d(3)(m.zeros(3, 4)),
    "in3d_3d": lambda m: m.nn.InstanceNorm3d(3)(m.zeros(3, 4, 4)),
    "in_affine_channels": lambda m: m.nn.InstanceNorm1d(3, affine=True)(m.zeros(2, 4, 5)),
    "in_one_value": lambda m: m.nn.InstanceNorm1d(3)(m.zeros(2, 3, 1)),
    "group_divisible": lambda m: m.nn.GroupNorm(3, 4),
    "group_input": lambda m: m.nn.GroupNorm(2, 4)(m.zeros(2, 6, 3)),
    "layer_shape": lambda m: m.nn.LayerNorm(4)(m.zeros(2, 3)),
    "rms_shape": lambda m: m.nn.RMSNorm([2, 3])(m.zeros(2, 3, 2)),
    "lrn_2d": lambda m: m.nn.LocalResponseNorm(2)(m.zeros(2, 3)),
}

RECORDED_ERRORS = {
    "bn1d_4d": ("ValueError", "expected 2D or 3D input (got 4D input)"),
    "bn2d_3d": ("ValueError", "expected 4D input (got 3D input)"),
    "bn3d_4d": ("ValueError", "expected 5D input (got 4D input)"),
    "in1d_4d": ("ValueError", "expected 2D or 3D input (got 4D input)"),
    "group_divisible": ("ValueError", "num_channels (4) must be divisible by num_groups (3)"),
    "in_affine_channels": (
        "ValueError",
        "expected input's size at dim=1 to match num_features (3), but got: 4.",
    ),
}


@pytest.mark.parametrize("name", sorted(INPUT_DIM_ERRORS))
def test_errors_match_torch(torch: Any, name: str) -> None:
    fn = INPUT_DIM_ERRORS[name]
    got, want = error(lambda: fn(chainrule)), error(lambda: fn(torch))
    assert want is not None
    assert got == (want[0], want[1].replace("torch.", "torch."))


@pytest.mark.parametrize("name", sorted(RECORDED_ERRORS))
def test_errors_recorded(name: str) -> None:
    assert error(lambda: INPUT_DIM_ERRORS[name](chainrule)) == RECORDED_ERRORS[name]


# --- instance norm ------------------------------------------------------------------------

IN_CASES = [
    ("InstanceNorm1d", (2, 3, 6), {}),
    ("InstanceNorm1d", (3, 6), {"affine": True}),
    ("InstanceNorm2d", (2, 3, 4, 5), {"affine": True, "track_running_stats": True}),
    ("InstanceNorm2d", (3, 4, 5), {"track_running_stats": True, "momentum": 0.3}),
    ("InstanceNorm3d", (2, 2, 3, 2, 4), {"affine": True, "bias": False}),
    ("InstanceNorm3d", (2, 3, 2, 4), {"track_running_stats": True, "momentum": None}),
]


@pytest.mark.parametrize(("name", "shape", "kwargs"), IN_CASES)
def test_instancenorm(torch: Any, name: str, shape: Any, kwargs: Any) -> None:
    inputs = [rand(*shape, seed=s) for s in range(2)]
    channels = shape[-(int(name[-2]) + 1)]

    def scenario(m: Any) -> Any:
        layer = getattr(m.nn, name)(channels, **kwargs)
        train = steps(lambda _: layer, inputs)(m)
        state = [(k, tuple(v.shape)) for k, v in layer.state_dict().items()]
        return train, steps(lambda _: layer, inputs[:1], train=False)(m), repr(layer), state

    compare(torch, scenario)


def test_instancenorm_warns_on_channel_mismatch(torch: Any) -> None:
    for m in (chainrule, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.nn.InstanceNorm1d(5)(m.ones(2, 3, 4))
        assert [str(w.message) for w in caught] == [
            "input's size at dim=1 does not match num_features. You can silence this warning "
            "by not passing in num_features, which is not used because affine=False"
        ]


def test_instancenorm_recorded() -> None:
    layer = chainrule.nn.InstanceNorm2d(3)
    assert repr(layer) == (
        "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
        "track_running_stats=False)"
    )
    assert list(layer.state_dict()) == []
    x = rand(3, 4, 5, dtype=np.float64)
    out = layer(chainrule.tensor(x)).numpy()  # unbatched: (C, H, W)
    np.testing.assert_allclose(out.mean((1, 2)), 0, atol=1e-12)
    np.testing.assert_allclose(out.var((1, 2)), x.var((1, 2)) / (x.var((1, 2)) + 1e-5), rtol=1e-10)


# --- layer, group, RMS and local response norm ---------------------------------------------

OTHER_CASES: list[tuple[str, Callable[[Any], Any], tuple[int, ...]]] = [
    ("layer", lambda m: m.nn.LayerNorm(5), (2, 3, 5)),
    ("layer_2d", lambda m: m.nn.LayerNorm([3, 5], eps=1e-3), (2, 3, 5)),
    ("layer_plain", lambda m: m.nn.LayerNorm((5,), elementwise_affine=False), (4, 5)),
    ("layer_nobias", lambda m: m.nn.LayerNorm(5, bias=False), (4, 5)),
    ("group", lambda m: m.nn.GroupNorm(2, 4), (3, 4, 5)),
    ("group_plain", lambda m: m.nn.GroupNorm(4, 4, affine=False), (2, 4, 3, 2)),
    ("group_nobias", lambda m: m.nn.GroupNorm(1, 4, bias=False), (2, 4, 3)),
    ("rms", lambda m: m.nn.RMSNorm(5), (2, 3, 5)),
    ("rms_2d", lambda m: m.nn.RMSNorm([3, 5], eps=1e-3), (2, 3, 5)),
    ("rms_plain", lambda m: m.nn.RMSNorm(5, elementwise_affine=False), (4, 5)),
    ("lrn_3d", lambda m: m.nn.LocalResponseNorm(3), (2, 5, 4)),
    ("lrn_4d", lambda m: m.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), (2, 5, 3, 4)),
    ("lrn_5d", lambda m: m.nn.LocalResponseNorm(4), (2, 6, 2, 3, 2)),
]


@pytest.mark.parametrize(("name", "build", "shape"), OTHER_CASES, ids=[c[0] for c in OTHER_CASES])
def test_other_norms(torch: Any, name: str, build: Any, shape: Any) -> None:
    x = rand(*shape)

    def scenario(m: Any) -> Any:
        layer = build(m)
        state = [(k, tuple(v.shape)) for k, v in layer.state_dict().items()]
        return steps(lambda _: layer, [x])(m), repr(layer), state

    compare(torch, scenario)


def test_rms_norm_graph_and_eps(torch: Any) -> None:
    def scenario(m: Any) -> Any:
        x = m.tensor(rand(2, 4), requires_grad=True)
        out = m.nn.RMSNorm(4)(x)
        names, fn = [], out.grad_fn
        while fn is not None:
            names.append(fn.name())
            fn = next(
                (f for f, _ in fn.next_functions if f is not None and "Accumulate" not in f.name()),
                None,
            )
        tiny = m.nn.functional.rms_norm(m.zeros(1, 3, dtype=m.float64) + 1e-9, [3])
        return names, arr(tiny)

    assert_same(outcome(scenario, chainrule), outcome(scenario, torch), rtol=1e-6)


def test_other_norms_recorded() -> None:
    assert repr(chainrule.nn.LayerNorm(4)) == (
        "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    )
    assert (
        repr(chainrule.nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    )
    assert (
        repr(chainrule.nn.RMSNorm([2, 3])) == "RMSNorm((2, 3), eps=None, elementwise_affine=True)"
    )
    assert repr(chainrule.nn.LocalResponseNorm(2)) == (
        "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)"
    )
    # RMSNorm with eps=None uses float32's machine epsilon: a zero row stays finite.
    out = chainrule.nn.RMSNorm(3)(chainrule.zeros(2, 3))
    assert np.array_equal(out.detach().numpy(), np.zeros((2, 3), np.float32))
    x = rand(4, 6, dtype=np.float64)
    out = chainrule.nn.RMSNorm(6, eps=0.0)(chainrule.tensor(x)).detach().numpy()
    np.testing.assert_allclose((out**2).mean(1), 1, rtol=1e-12)


GRADCHECK = [
    lambda m: m.nn.BatchNorm1d(3),
    lambda m: m.nn.BatchNorm1d(3).eval(),
    lambda m: m.nn.InstanceNorm1d(3, affine=True),
    lambda m: m.nn.LayerNorm(4),
    lambda m: m.nn.GroupNorm(3, 3),
    lambda m: m.nn.RMSNorm(4),
    lambda m: m.nn.LocalResponseNorm(2),
]


@pytest.mark.parametrize("build", GRADCHECK)
def test_gradcheck(build: Any) -> None:
    layer = build(chainrule).double()
    randomize(chainrule, layer)
    x = chainrule.tensor(rand(2, 3, 4, dtype=np.float64), requires_grad=True)
    assert gradcheck(lambda t, *ps: layer(t), (x, *layer.parameters()))
