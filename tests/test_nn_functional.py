"""nn.functional beyond the op table: errors and warnings as PyTorch words them, kinks,
extreme logits, reductions with ignored targets, embedding and dropout semantics."""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
import chainrule.nn.functional as CF


def both(torch: Any) -> tuple[Any, Any]:
    return chainrule, torch


def outcome(call: Callable[[Any], Any], lib: Any) -> tuple[str, str]:
    """The exception a call raises on `lib`: its type name and message's first line."""
    try:
        call(lib)
    except Exception as e:  # the point is to compare whatever is raised
        first = str(e).splitlines()[0] if str(e) else ""
        return type(e).__name__, first.replace("torch.", "chainrule.")
    return "no error", ""


# --- errors -------------------------------------------------------------------------------

X43 = [[0.5, -1.0, 2.0], [0.1, 0.2, -0.3], [1.5, -2.0, 0.0], [0.3, 0.3, 0.3]]


def f(lib: Any) -> Any:
    return lib.nn.functional


def floats(lib: Any, values: Any, dtype: str = "float32", **kw: Any) -> Any:
    """Exact float values (Python lists pass through NumPy first, in the given precision)."""
    return lib.tensor(np.asarray(values, dtype=dtype), **kw)


def x43(lib: Any, dtype: str = "float32", **kw: Any) -> Any:
    return floats(lib, X43, dtype, **kw)


def t4(lib: Any, values: Any = (0, 2, 1, 1), **kw: Any) -> Any:
    return lib.tensor(list(values), **kw)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "ce target out of bounds": lambda m: f(m).cross_entropy(x43(m), t4(m, (0, 5, 1, 1))),
    "ce negative target": lambda m: f(m).cross_entropy(x43(m), t4(m, (0, -1, 1, 1))),
    "ce float class target": lambda m: f(m).cross_entropy(x43(m), t4(m).float()),
    "ce int32 target": lambda m: f(m).cross_entropy(x43(m), t4(m).int()),
    "ce batch mismatch": lambda m: f(m).cross_entropy(x43(m), t4(m, (0, 1))),
    "ce multi-target": lambda m: f(m).cross_entropy(x43(m), m.ones(4, 2)),
    "ce kdim target": lambda m: f(m).cross_entropy(m.ones(2, 3, 4), m.zeros(2, 5).long()),
    "ce kdim target dims": lambda m: f(m).cross_entropy(m.ones(2, 3, 4), m.zeros(2).long()),
    "ce long probabilities": lambda m: f(m).cross_entropy(m.tensor(1.0), m.tensor(0)),
    "ce weight size": lambda m: f(m).cross_entropy(x43(m), t4(m), weight=m.ones(2)),
    "ce weight dtype": lambda m: f(m).cross_entropy(x43(m), t4(m), weight=m.ones(3).double()),
    "ce smoothing": lambda m: f(m).cross_entropy(x43(m), t4(m), label_smoothing=1.5),
    "ce reduction": lambda m: f(m).cross_entropy(x43(m), t4(m), reduction="foo"),
    "ce int input": lambda m: f(m).cross_entropy(m.ones(4, 3).long(), t4(m)),
    "ce probabilities ignore": lambda m: f(m).cross_entropy(x43(m), x43(m), ignore_index=1),
    "nll 0-d input": lambda m: f(m).nll_loss(m.tensor(1.0), m.tensor(0)),
    "nll target out of bounds": lambda m: f(m).nll_loss(x43(m), t4(m, (0, 3, 1, 1))),
    "nll weight requires grad": lambda m: f(m).nll_loss(
        x43(m), t4(m), weight=m.ones(3, requires_grad=True)
    ),
    "mse shapes": lambda m: f(m).mse_loss(x43(m), m.ones(2)),
    "mse integers": lambda m: f(m).mse_loss(m.ones(3).long(), m.zeros(3).long()),
    "mse reduction": lambda m: f(m).mse_loss(x43(m), x43(m), reduction="batchmean"),
    "mse weight size": lambda m: f(m).mse_loss(x43(m), x43(m), weight=m.ones(3)),
    "smooth_l1 beta": lambda m: f(m).smooth_l1_loss(x43(m), x43(m), beta=-1.0),
    "huber delta": lambda m: f(m).huber_loss(x43(m), x43(m), delta=0.0),
    "bce target size": lambda m: f(m).binary_cross_entropy(m.ones(4, 3) / 2, m.ones(3) / 2),
    "bce input range": lambda m: f(m).binary_cross_entropy(m.ones(2) * 2, m.ones(2) / 2),
    "bce target range": lambda m: f(m).binary_cross_entropy(m.ones(2) / 2, m.ones(2) * 2),
    "bce weight shape": lambda m: f(m).binary_cross_entropy(
        m.ones(4, 3) / 2, m.ones(4, 3) / 2, weight=m.ones(2)
    ),
    "bce weight grad": lambda m: f(m).binary_cross_entropy(
        m.ones(2) / 2, m.ones(2) / 2, weight=m.ones(2, requires_grad=True)
    ),
    "bce logits target size": lambda m: f(m).binary_cross_entropy_with_logits(x43(m), m.ones(3)),
    "bce logits pos_weight": lambda m: f(m).binary_cross_entropy_with_logits(
        x43(m), x43(m), pos_weight=m.ones(2)
    ),
    "soft margin target grad": lambda m: f(m).soft_margin_loss(
        x43(m), m.ones(4, 3, requires_grad=True)
    ),
    "kl reduction": lambda m: f(m).kl_div(x43(m), x43(m), reduction="avg"),
    "margin ranking dims": lambda m: f(m).margin_ranking_loss(m.ones(2), m.ones(2), m.ones(2, 1)),
    "triplet dims": lambda m: f(m).triplet_margin_loss(m.ones(2, 3), m.ones(2, 3), m.ones(3)),
    "cosine embedding shapes": lambda m: f(m).cosine_embedding_loss(
        m.ones(2, 3), m.ones(2, 3), m.ones(3)
    ),
    "gaussian var negative": lambda m: f(m).gaussian_nll_loss(
        m.ones(2, 3), m.ones(2, 3), -m.ones(2, 3)
    ),
    "gaussian var size": lambda m: f(m).gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), m.ones(2, 2)),
    "one_hot float": lambda m: f(m).one_hot(m.tensor([1.0])),
    "one_hot negative": lambda m: f(m).one_hot(m.tensor([-1])),
    "one_hot too big": lambda m: f(m).one_hot(m.tensor([3]), 3),
    "one_hot empty": lambda m: f(m).one_hot(m.tensor([]).long()),
    "embedding out of range": lambda m: f(m).embedding(m.tensor([5]), m.ones(3, 2)),
    "embedding float indices": lambda m: f(m).embedding(m.tensor([1.0]), m.ones(3, 2)),
    "embedding padding_idx": lambda m: f(m).embedding(m.tensor([1]), m.ones(3, 2), padding_idx=3),
    "embedding 1-d weight": lambda m: f(m).embedding(m.tensor([1]), m.ones(3)),
    "dropout p": lambda m: f(m).dropout(x43(m), 1.5),
    "dropout integers": lambda m: f(m).dropout(m.ones(3).long(), 0.5),
    "dropout1d rank": lambda m: f(m).dropout1d(m.ones(2, 2, 2, 2)),
    "linear shapes": lambda m: f(m).linear(m.ones(4, 3), m.ones(2, 5)),
    "linear bias": lambda m: f(m).linear(m.ones(4, 3), m.ones(2, 3), m.ones(3)),
    "linear 3-d bias": lambda m: f(m).linear(m.ones(5, 4, 3), m.ones(2, 3), m.ones(3)),
    "linear dtypes": lambda m: f(m).linear(m.ones(4, 3), m.ones(2, 3).double()),
    "linear bias dtype": lambda m: f(m).linear(m.ones(4, 3), m.ones(2, 3), m.ones(2).double()),
    "linear 0-d": lambda m: f(m).linear(m.tensor(1.0), m.ones(2, 1)),
    "linear 1-d weight and bias": lambda m: f(m).linear(m.ones(4, 3), m.ones(3), m.tensor(1.0)),
    "bilinear batch": lambda m: f(m).bilinear(m.ones(4, 3), m.ones(3, 2), m.ones(5, 3, 2)),
    "bilinear weight": lambda m: f(m).bilinear(m.ones(4, 3), m.ones(4, 2), m.ones(5, 2, 2)),
    "softmax dim": lambda m: f(m).softmax(x43(m), 2),
    "softmax integers": lambda m: f(m).softmax(m.tensor([1, 2]), 0),
    "softmax integers dim 0": lambda m: f(m).log_softmax(m.tensor([[1, 2]]), 0),
    "tensor softmax without dim": lambda m: m.softmax(x43(m)),
    "cosine similarity shapes": lambda m: f(m).cosine_similarity(m.ones(2, 3), m.ones(4, 3)),
    "hardtanh bounds": lambda m: f(m).hardtanh(x43(m), 2.0, 1.0),
    "softshrink lambda": lambda m: f(m).softshrink(x43(m), -1.0),
    "softshrink lambda double": lambda m: f(m).softshrink(x43(m).double(), -0.5),
    "glu odd": lambda m: f(m).glu(m.ones(3)),
    "glu scalar": lambda m: f(m).glu(m.tensor(2.0)),
    "gelu approximate": lambda m: f(m).gelu(x43(m), approximate="foo"),
    "celu alpha": lambda m: f(m).celu(x43(m), 0.0),
    "prelu channels": lambda m: f(m).prelu(m.ones(2, 3), m.ones(2)),
    "prelu 1-d": lambda m: f(m).prelu(m.ones(3), m.ones(3)),
    "inplace on a leaf": lambda m: f(m).relu(x43(m, requires_grad=True), inplace=True),
    "elu_ negative alpha backward": lambda m: (
        f(m).elu(x43(m, requires_grad=True) * 1, -0.5, inplace=True).sum().backward()
    ),
    "leaky_relu_ negative slope backward": lambda m: (
        f(m).leaky_relu(x43(m, requires_grad=True) * 1, -0.1, inplace=True).sum().backward()
    ),
}
INTEGER_KERNELS = [
    "elu",
    "selu",
    "celu",
    "softplus",
    "gelu",
    "silu",
    "mish",
    "hardswish",
    "hardsigmoid",
    "logsigmoid",
    "leaky_relu",
    "softshrink",
    "hardshrink",
    "glu",
]


@pytest.mark.parametrize("name", list(ERRORS))
def test_F_errors_match_torch(torch: Any, name: str) -> None:
    call = ERRORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert outcome(call, chainrule) == outcome(call, torch)


@pytest.mark.parametrize("name", INTEGER_KERNELS)
def test_F_integer_inputs_raise_as_torch(torch: Any, name: str) -> None:
    def call(m: Any) -> Any:
        return getattr(f(m), name)(m.tensor([[1, 2]]))

    assert outcome(call, chainrule) == outcome(call, torch)
    assert outcome(call, chainrule)[0] == "NotImplementedError"


# --- warnings -------------------------------------------------------------------------------

WARNINGS: dict[str, Callable[[Any], Any]] = {
    "softmax implicit dim": lambda m: f(m).softmax(x43(m)),
    "log_softmax implicit dim": lambda m: f(m).log_softmax(m.ones(2, 3, 4)),
    "softmin implicit dim": lambda m: f(m).softmin(m.ones(3)),
    "mse broadcast": lambda m: f(m).mse_loss(x43(m), m.ones(3)),
    "l1 broadcast": lambda m: f(m).l1_loss(x43(m), m.ones(3)),
    "kl mean": lambda m: f(m).kl_div(x43(m), x43(m).exp()),
    "size_average": lambda m: f(m).mse_loss(x43(m), x43(m), size_average=False),
    "reduce": lambda m: f(m).nll_loss(x43(m), t4(m), reduce=False),
    "dropout2d 3-d": lambda m: f(m).dropout2d(m.ones(2, 2, 2)),
    "dropout3d 3-d": lambda m: f(m).dropout3d(m.ones(2, 2, 2)),
}


@pytest.mark.parametrize("name", list(WARNINGS))
def test_F_warnings_match_torch(torch: Any, name: str) -> None:
    messages = []
    for lib in both(torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = WARNINGS[name](lib)
        messages.append(
            ([str(w.message).replace("torch.", "chainrule.") for w in caught], tuple(out.shape))
        )
    assert messages[0] == messages[1]
    assert messages[0][0]


def test_F_implicit_softmax_dims_follow_torch(torch: Any) -> None:
    for shape in [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 2)]:
        values = np.random.default_rng(0).normal(size=shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine = CF.log_softmax(chainrule.tensor(values))
            theirs = torch.nn.functional.log_softmax(torch.tensor(values))
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)


# --- kinks: the derivative PyTorch picks where there is none ----------------------------------

KINKS: dict[str, tuple[Callable[[Any, Any], Any], list[float]]] = {
    "relu": (lambda m, x: f(m).relu(x), [0.0]),
    "relu6": (lambda m, x: f(m).relu6(x), [0.0, 6.0]),
    "hardtanh": (lambda m, x: f(m).hardtanh(x, -1.0, 1.0), [-1.0, 1.0]),
    "leaky_relu": (lambda m, x: f(m).leaky_relu(x, 0.1), [0.0]),
    "leaky_relu_": (lambda m, x: f(m).leaky_relu(x * 1, 0.1, inplace=True), [0.0]),
    "elu": (lambda m, x: f(m).elu(x, 2.0), [0.0]),
    "elu_": (lambda m, x: f(m).elu(x * 1, 2.0, inplace=True), [0.0]),
    "celu": (lambda m, x: f(m).celu(x, 0.5), [0.0]),
    "selu": (lambda m, x: f(m).selu(x), [0.0]),
    "hardsigmoid": (lambda m, x: f(m).hardsigmoid(x), [-3.0, 3.0]),
    "hardswish": (lambda m, x: f(m).hardswish(x), [-3.0, 3.0]),
    "softshrink": (lambda m, x: f(m).softshrink(x, 0.5), [-0.5, 0.5]),
    "hardshrink": (lambda m, x: f(m).hardshrink(x, 0.5), [-0.5, 0.5]),
    "threshold": (lambda m, x: f(m).threshold(x, 0.5, 2.0), [0.5]),
    "threshold_": (lambda m, x: f(m).threshold(x * 1, 0.5, 2.0, inplace=True), [0.5, 0.2]),
    "softplus threshold": (lambda m, x: f(m).softplus(x, 2.0, 1.0), [0.5, 0.50001]),
    "prelu": (lambda m, x: f(m).prelu(x, m.tensor([0.25], dtype=x.dtype)), [0.0]),
    "smooth_l1": (lambda m, x: f(m).smooth_l1_loss(x, m.zeros(3, dtype=x.dtype)), [1, -1, 0]),
    "huber": (lambda m, x: f(m).huber_loss(x, m.zeros(3, dtype=x.dtype)), [1, -1, 0]),
    "l1": (lambda m, x: f(m).l1_loss(x, m.zeros(1, dtype=x.dtype)), [0.0]),
    "margin ranking": (
        lambda m, x: f(m).margin_ranking_loss(
            x, m.zeros(1, dtype=x.dtype), m.ones(1, dtype=x.dtype)
        ),
        [0.0],
    ),
    "hinge": (lambda m, x: f(m).hinge_embedding_loss(x, -m.ones(1, dtype=x.dtype)), [1.0]),
    "bce at 0 and 1": (
        lambda m, x: f(m).binary_cross_entropy(x, m.tensor([1.0, 0.0], dtype=x.dtype)),
        [0.0, 1.0],
    ),
    "normalize zero vector": (lambda m, x: f(m).normalize(x, dim=0), [0.0, 0.0]),
    "cosine similarity zero": (
        lambda m, x: f(m).cosine_similarity(x, m.ones(2, dtype=x.dtype), dim=0),
        [0.0, 0.0],
    ),
    "cosine similarity below eps": (
        lambda m, x: f(m).cosine_similarity(x, m.ones(2, dtype=x.dtype), dim=0),
        [1e-9, 2e-9],
    ),
}


@pytest.mark.parametrize("name", list(KINKS))
def test_F_gradients_at_kinks_match_torch(torch: Any, name: str) -> None:
    fn, values = KINKS[name]
    results = []
    for lib in both(torch):
        x = floats(lib, values, "float64", requires_grad=True)
        out = fn(lib, x)
        out.sum().backward()
        results.append((out.detach().numpy().copy(), x.grad.numpy().copy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=0)


# --- extreme values -------------------------------------------------------------------------

EXTREME = [-1000.0, -80.0, -20.0, 0.0, 30.0, 100.0, 1000.0]
STABLE: dict[str, Callable[[Any, Any], Any]] = {
    "log_softmax": lambda m, x: f(m).log_softmax(x, 0),
    "softmax": lambda m, x: f(m).softmax(x, 0),
    "softplus": lambda m, x: f(m).softplus(x),
    "logsigmoid": lambda m, x: f(m).logsigmoid(x),
    "silu": lambda m, x: f(m).silu(x),
    "mish": lambda m, x: f(m).mish(x),
    "elu": lambda m, x: f(m).elu(x),
    "gelu": lambda m, x: f(m).gelu(x),
    "cross_entropy": lambda m, x: f(m).cross_entropy(x.reshape(1, -1), m.tensor([0])),
    "cross_entropy best": lambda m, x: f(m).cross_entropy(x.reshape(1, -1), m.tensor([6])),
    "bce with logits": lambda m, x: f(m).binary_cross_entropy_with_logits(
        x, floats(m, [0.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.3], str(x.dtype)[-7:]), reduction="none"
    ),
    "soft margin": lambda m, x: f(m).soft_margin_loss(
        x, -m.ones(7, dtype=x.dtype), reduction="none"
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(STABLE))
def test_F_extreme_values_match_torch(torch: Any, name: str, dtype: str) -> None:
    results = []
    for lib in both(torch):
        x = floats(lib, EXTREME, dtype, requires_grad=True)
        out = STABLE[name](lib, x)
        out.backward(lib.ones_like(out))
        results.append((out.detach().numpy(), x.grad.numpy()))
    (out, grad), (out_t, grad_t) = results
    assert np.isfinite(out).all() and np.isfinite(grad).all()
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-300}
    # Where PyTorch overflows (its soft margin loss is log1p(exp(-y x)) as written, and
    # mish's derivative exp(x) based), we don't: compare where it is finite.
    for mine, theirs in ((out, out_t), (grad, grad_t)):
        finite = np.isfinite(theirs)
        np.testing.assert_allclose(mine[finite], theirs[finite], **tol)


def test_F_binary_cross_entropy_clamps_its_logs(torch: Any) -> None:
    for lib in both(torch):
        x = lib.tensor([0.0, 1.0, 0.0], requires_grad=True)
        out = lib.nn.functional.binary_cross_entropy(
            x, lib.tensor([1.0, 0.0, 0.0]), reduction="none"
        )
        assert out.tolist() == [100.0, 100.0, 0.0]


# --- reductions with ignored targets ---------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_F_every_target_ignored(torch: Any, reduction: str) -> None:
    results = []
    for lib in both(torch):
        x = x43(lib, requires_grad=True)
        out = lib.nn.functional.cross_entropy(x, lib.full((4,), -100), reduction=reduction)
        out.sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_F_byte_targets_and_1d_input(torch: Any) -> None:
    for make in (
        lambda m: f(m).nll_loss(x43(m), t4(m).to(m.uint8)),
        lambda m: f(m).nll_loss(m.tensor([0.1, 0.7, 0.2]), m.tensor([1])),
        lambda m: f(m).cross_entropy(m.tensor([0.1, 0.7, 0.2]), m.tensor(2), reduction="none"),
    ):
        mine, theirs = make(chainrule), make(torch)
        assert tuple(mine.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)


def test_F_cross_entropy_matches_torch_on_larger_kdim_input(torch: Any) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 4, 3, 5))
    target = rng.integers(0, 4, size=(2, 3, 5))
    target[0, 1, 2] = -100
    weight = rng.uniform(0.5, 2.0, size=4)
    results = []
    for lib in both(torch):
        xt = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.cross_entropy(
            xt, lib.tensor(target), weight=lib.tensor(weight), label_smoothing=0.05
        )
        (g,) = lib.autograd.grad(out, xt, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), xt)
        results.append((out.item(), g.detach().numpy(), gg.numpy()))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-10, atol=1e-14)


# --- graph structure --------------------------------------------------------------------------


def next_names(t: Any) -> list[Any]:
    return [
        None if fn is None else type(fn).__name__.split("::")[-1]
        for fn, _ in t.grad_fn.next_functions
    ]


def test_F_linear_records_addmm_on_the_transposed_weight(torch: Any) -> None:
    graphs = []
    for lib in both(torch):
        x = lib.ones(4, 3, requires_grad=True)
        w = lib.ones(2, 3, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        out = lib.nn.functional.linear(x, w, b)
        graphs.append((out.grad_fn.name(), next_names(out)))
    assert graphs[0] == graphs[1]


# --- embedding ------------------------------------------------------------------------------


EMBEDDING_CASES: dict[str, dict[str, Any]] = {
    "plain": {},
    "padding": {"padding_idx": 2},
    "negative padding": {"padding_idx": -1},
    "frequency": {"scale_grad_by_freq": True},
    "both": {"padding_idx": 0, "scale_grad_by_freq": True},
}


@pytest.mark.parametrize("name", list(EMBEDDING_CASES))
def test_F_embedding_gradients_match_torch(torch: Any, name: str) -> None:
    kw = EMBEDDING_CASES[name]
    weight = np.random.default_rng(1).normal(size=(4, 3))
    idx = [[0, 2, 2], [3, 2, 0]]
    upstream = np.random.default_rng(2).normal(size=(2, 3, 3))
    results = []
    for lib in both(torch):
        w = lib.tensor(weight, requires_grad=True)
        u = lib.tensor(upstream, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(idx), w, **kw)
        (g,) = lib.autograd.grad(out, w, u, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), u)  # through the gradient's own derivative
        results.append((out.detach().numpy(), g.detach().numpy(), gg.numpy()))
    # PyTorch's second derivative forgets the frequency scaling (it is not the adjoint of
    # its first): there we check ours against the adjoint itself.
    (out, g, gg), (out_t, g_t, gg_t) = results
    np.testing.assert_allclose(out, out_t, rtol=1e-14)
    np.testing.assert_allclose(g, g_t, rtol=1e-14)
    if kw.get("scale_grad_by_freq"):
        counts = np.bincount(np.ravel(idx), minlength=4)[np.array(idx)]
        keep = np.array(idx) != kw.get("padding_idx", -1)
        gg_t = 2 * g[np.array(idx)] / counts[..., None] * keep[..., None]
    np.testing.assert_allclose(gg, gg_t, rtol=1e-14)
    if "padding_idx" in kw:
        assert not results[0][1][kw["padding_idx"]].any()


def test_F_embedding_max_norm_renormalises_rows_in_place(torch: Any) -> None:
    results = []
    for lib in both(torch):
        w = lib.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
        out = lib.nn.functional.embedding(lib.tensor([0, 1, 0]), w, max_norm=1.0)
        results.append((out.numpy().copy(), w.numpy().copy(), w._version))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    assert results[0][2] > 0


def test_F_one_hot_matches_torch(torch: Any) -> None:
    for call in (
        lambda m: f(m).one_hot(m.tensor([[0, 3], [1, 1]])),
        lambda m: f(m).one_hot(m.tensor([0, 2]), 5),
        lambda m: f(m).one_hot(m.tensor([], dtype=m.int64), 3),
        lambda m: f(m).one_hot(m.tensor(2)),
    ):
        mine, theirs = call(chainrule), call(torch)
        assert mine.dtype == chainrule.int64
        assert mine.tolist() == theirs.tolist() and tuple(mine.shape) == tuple(theirs.shape)


# --- dropout --------------------------------------------------------------------------------


def test_F_dropout_is_repeatable_under_manual_seed() -> None:
    x = chainrule.ones(1000)
    chainrule.manual_seed(7)
    a = CF.dropout(x, 0.3)
    chainrule.manual_seed(7)
    b = CF.dropout(x, 0.3)
    assert a.tolist() == b.tolist()
    assert CF.dropout(x, 0.3).tolist() != a.tolist()


def test_F_dropout_scales_what_it_keeps_and_passes_gradient_through_the_mask() -> None:
    chainrule.manual_seed(0)
    x = chainrule.ones(20000, requires_grad=True)
    out = CF.dropout(x, 0.25)
    values = out.detach().numpy()
    assert set(np.unique(values).tolist()) == {0.0, np.float32(1 / 0.75)}
    assert abs((values == 0).mean() - 0.25) < 0.02
    assert out.grad_fn.name() == "MulBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)


def test_F_dropout_edge_probabilities_and_modes() -> None:
    x = chainrule.randn(3, 4, requires_grad=True)
    assert CF.dropout(x, 0.5, training=False) is x
    assert CF.dropout(x, 0.0) is x
    zeroed = CF.dropout(x, 1.0)
    assert zeroed.abs().sum().item() == 0.0 and zeroed.grad_fn.name() == "MulBackward0"
    y = x * 1
    assert CF.dropout(y, 0.5, inplace=True) is y
    assert y._version == 1 and y.grad_fn.name() == "MulBackward0"


@pytest.mark.filterwarnings("ignore:dropout")
@pytest.mark.parametrize("fn", [CF.dropout, CF.dropout1d, CF.dropout2d, CF.dropout3d])
def test_F_dropout_derivatives(fn: Any) -> None:
    """The mask is redrawn from the same seed on every call, so the op is deterministic."""
    from chainrule.autograd import gradcheck, gradgradcheck

    def seeded(x: Any) -> Any:
        chainrule.manual_seed(3)
        return fn(x, 0.4)

    x = chainrule.tensor(np.random.default_rng(0).normal(size=(2, 3, 2, 2, 2)), requires_grad=True)
    x = x if fn is not CF.dropout1d else x.detach().reshape(2, 3, 8).requires_grad_()
    assert gradcheck(seeded, (x,)) and gradgradcheck(seeded, (x,))


@pytest.mark.parametrize(
    ("fn", "shape", "mask_dims"),
    [
        (CF.dropout1d, (3, 8, 5), (0, 1)),
        (CF.dropout1d, (8, 5), (0,)),
        (CF.dropout2d, (3, 8, 4, 4), (0, 1)),
        (CF.dropout3d, (3, 8, 2, 2, 2), (0, 1)),
        (CF.dropout3d, (8, 2, 2, 2), (0,)),
    ],
)
def test_F_feature_dropout_zeroes_whole_channels(fn: Any, shape: Any, mask_dims: Any) -> None:
    chainrule.manual_seed(1)
    out = fn(chainrule.ones(*shape), 0.5).numpy()
    per_channel = out.reshape(*[shape[d] for d in mask_dims], -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # a channel is kept or dropped
    assert set(np.unique(out).tolist()) == {0.0, 2.0}


# --- in place and methods -----------------------------------------------------------------------

INPLACE = [
    "relu",
    "relu6",
    "elu",
    "selu",
    "celu",
    "leaky_relu",
    "hardtanh",
    "hardsigmoid",
    "hardswish",
    "silu",
    "mish",
]


@pytest.mark.parametrize("name", INPLACE)
def test_F_inplace_variants_write_into_their_input(torch: Any, name: str) -> None:
    results = []
    for lib in both(torch):
        x = x43(lib, "float64", requires_grad=True)
        y = x * 1
        out = getattr(lib.nn.functional, name)(y, inplace=True)
        assert out is y and y._version == 1
        out.sum().backward()
        results.append((out.grad_fn.name(), y.detach().numpy(), x.grad.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)


def test_F_softmax_methods_and_functions(torch: Any) -> None:
    for call in (
        lambda m: m.softmax(x43(m), 1),
        lambda m: m.log_softmax(x43(m), dim=0, dtype=m.float64),
        lambda m: x43(m).softmax(-1),
        lambda m: x43(m).log_softmax(1, dtype=m.float64),
        lambda m: f(m).softmin(x43(m), 0, dtype=m.float64),
        lambda m: f(m).softmax(m.tensor([1, 2]), 0, dtype=m.float32),
        lambda m: f(m).softmax(m.zeros(0, 3), 1),
        lambda m: f(m).log_softmax(m.tensor([-math.inf, 0.0]), 0),
        lambda m: f(m).log_softmax(m.tensor([-math.inf, -math.inf]), 0),
        lambda m: f(m).softmax(m.tensor([math.inf, 0.0]), 0),
    ):
        with np.errstate(all="raise"):
            mine = call(chainrule)
        theirs = call(torch)
        assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)


def test_F_top_level_names() -> None:
    # The same op (each maybe wrapped to take PyTorch's keyword spellings).
    assert inspect.unwrap(chainrule.softmax) is inspect.unwrap(chainrule.Tensor.softmax)
    assert CF.relu is not None
    assert inspect.unwrap(CF.sigmoid) is inspect.unwrap(chainrule.sigmoid)
    assert inspect.unwrap(CF.tanh) is inspect.unwrap(chainrule.tanh)
    for name in CF.__all__ if hasattr(CF, "__all__") else []:
        assert callable(getattr(CF, name))
