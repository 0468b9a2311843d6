"""The activation layers (nn.ReLU ... nn.Softmax2d): reprs, parameters, values and gradients,
against PyTorch where it is installed and against recorded values and finite differences
always; RReLU's random slopes are PyTorch's draws under the same seed."""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import gradcheck, gradgradcheck
from nn_compare import assert_same, outcome

nn = chainrule.nn

# (constructor as text, input shape); the input is standard normal.
LAYERS: list[tuple[str, tuple[int, ...]]] = [
    ("ReLU()", (3, 4)),
    ("ReLU(inplace=True)", (3, 4)),
    ("ReLU6()", (3, 4)),
    ("ReLU6(True)", (3, 4)),
    ("LeakyReLU()", (3, 4)),
    ("LeakyReLU(0.2, inplace=True)", (3, 4)),
    ("PReLU()", (2, 3, 4)),
    ("PReLU(3, init=0.1)", (2, 3, 4)),
    ("ELU()", (3, 4)),
    ("ELU(alpha=0.5, inplace=True)", (3, 4)),
    ("SELU()", (3, 4)),
    ("SELU(inplace=True)", (3, 4)),
    ("CELU(alpha=2.0)", (3, 4)),
    ("GELU()", (3, 4)),
    ("GELU(approximate='tanh')", (3, 4)),
    ("SiLU()", (3, 4)),
    ("SiLU(inplace=True)", (3, 4)),
    ("Mish()", (3, 4)),
    ("Sigmoid()", (3, 4)),
    ("Tanh()", (3, 4)),
    ("Hardtanh()", (3, 4)),
    ("Hardtanh(-0.5, 0.8, True)", (3, 4)),
    ("Hardsigmoid()", (3, 4)),
    ("Hardsigmoid(inplace=True)", (3, 4)),
    ("Hardswish()", (3, 4)),
    ("Hardshrink()", (3, 4)),
    ("Hardshrink(0.3)", (3, 4)),
    # 32 elements: PyTorch's vectorised loop gives +0.0 inside the band (its scalar tail -0.0).
    ("Softshrink(0.3)", (4, 8)),
    ("Tanhshrink()", (3, 4)),
    ("Softplus()", (3, 4)),
    ("Softplus(beta=2.0, threshold=1.0)", (3, 4)),
    ("Softsign()", (3, 4)),
    ("LogSigmoid()", (3, 4)),
    ("Threshold(0.1, 20.0)", (3, 4)),
    ("Threshold(0.1, -1.0, True)", (3, 4)),
    ("GLU()", (3, 4)),
    ("GLU(dim=0)", (4, 3)),
    ("Softmax(dim=1)", (3, 4)),
    ("Softmax(-1)", (2, 3, 4)),
    ("Softmin(dim=0)", (3, 4)),
    ("LogSoftmax(dim=1)", (3, 4)),
    ("Softmax2d()", (2, 3, 2, 2)),
    ("Softmax2d()", (3, 2, 2)),
    ("RReLU()", (3, 4)),
    ("RReLU(0.1, 0.3, inplace=True)", (3, 4)),
]


def _run(text: str, shape: tuple[int, ...], dtype: str, training: bool) -> Any:
    """A scenario: build the layer under a seed, run it forward and backward."""

    def scenario(m: Any) -> Any:
        m.manual_seed(0)
        layer = eval(f"m.nn.{text}").to(getattr(m, dtype))
        layer.train(training)
        x = m.randn(shape, dtype=getattr(m, dtype)).requires_grad_()
        y = layer(x * 1.0)  # through a product, so in-place layers may write
        weights = m.arange(1.0, y.numel() + 1, dtype=y.dtype).reshape(y.shape) / y.numel()
        (y * weights).sum().backward()
        grads = [p.grad for p in layer.parameters()]
        state = [(k, tuple(v.shape)) for k, v in layer.state_dict().items()]
        return [repr(layer), y, x.grad, grads, state, y.grad_fn.name(), m.rand(2)]

    return scenario


@pytest.mark.parametrize(("text", "shape"), LAYERS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_matches_torch(torch: Any, text: str, shape: tuple[int, ...], dtype: str) -> None:
    rtol = 1e-5 if dtype == "float32" else 1e-10
    for training in (True, False):
        scenario = _run(text, shape, dtype, training)
        assert_same(outcome(scenario, chainrule), outcome(scenario, torch), rtol=rtol, atol=1e-7)


def test_every_activation_of_torch_is_here(torch: Any) -> None:
    from_torch = set(torch.nn.modules.activation.__all__) - {"MultiheadAttention"}
    assert from_torch <= set(dir(nn))
    assert {"Softmax2d", "Softmin", "LogSoftmax", "GLU"} <= from_torch


def test_rrelu_draws_torchs_slopes(torch: Any) -> None:
    """One double-precision uniform per element at or below zero, in memory order."""
    for dtype in ("float32", "float64"):
        got, want = [], []
        for m, out in ((chainrule, got), (torch, want)):
            m.manual_seed(7)
            x = m.randn(40, 25, dtype=getattr(m, dtype))
            m.manual_seed(11)
            out.append(m.nn.functional.rrelu(x, 0.05, 0.6, training=True).numpy())
            out.append(m.nn.functional.rrelu(x.t(), 0.2, 0.2, training=True).numpy())
            out.append(m.rand(3).numpy())  # the generator moved as far
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)


def test_errors_match_torch(torch: Any) -> None:
    def cases(m: Any) -> list[Any]:
        x = m.randn(3, 4)
        results = []
        for fn in (
            lambda: m.nn.Hardtanh(1.0, 0.5),
            lambda: m.nn.Softmax2d()(m.randn(3, 4)),
            lambda: m.nn.PReLU(3)(x),
            lambda: m.nn.GLU()(m.randn(3, 5)),
            lambda: m.nn.RReLU(0.5, 0.1)(x),
            lambda: m.nn.Softshrink(-1.0)(x),
            lambda: m.nn.GELU("fast")(x),
            lambda: m.nn.RReLU()(m.arange(3)),
        ):
            try:
                fn()
                results.append(None)
            except Exception as e:
                results.append((type(e).__name__, str(e).replace("torch.", "chainrule.")))
        return results

    assert cases(chainrule) == cases(torch)


def test_implicit_dim_warns_as_torch(torch: Any) -> None:
    messages = []
    for m in (chainrule, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.nn.Softmax()(m.randn(2, 3))
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


# --- without torch ---------------------------------------------------------------------------

REPRS = {
    "ReLU()": "ReLU()",
    "ReLU(True)": "ReLU(inplace=True)",
    "ReLU6(inplace=True)": "ReLU6(inplace=True)",
    "LeakyReLU()": "LeakyReLU(negative_slope=0.01)",
    "LeakyReLU(0.2, True)": "LeakyReLU(negative_slope=0.2, inplace=True)",
    "PReLU(3)": "PReLU(num_parameters=3)",
    "RReLU()": "RReLU(lower=0.125, upper=0.3333333333333333)",
    "ELU(inplace=True)": "ELU(alpha=1.0, inplace=True)",
    "CELU(2)": "CELU(alpha=2)",
    "SELU()": "SELU()",
    "GELU()": "GELU(approximate='none')",
    "SiLU(True)": "SiLU(inplace=True)",
    "Mish()": "Mish()",
    "Hardtanh()": "Hardtanh(min_val=-1.0, max_val=1.0)",
    "Hardsigmoid(True)": "Hardsigmoid()",
    "Hardswish(True)": "Hardswish()",
    "Hardshrink()": "Hardshrink(0.5)",
    "Softshrink(0.2)": "Softshrink(0.2)",
    "Softplus()": "Softplus(beta=1.0, threshold=20.0)",
    "Threshold(0.1, 20)": "Threshold(threshold=0.1, value=20)",
    "GLU()": "GLU(dim=-1)",
    "Softmax(dim=1)": "Softmax(dim=1)",
    "Softmin()": "Softmin(dim=None)",
    "LogSoftmax(0)": "LogSoftmax(dim=0)",
    "Softmax2d()": "Softmax2d()",
    "Tanh()": "Tanh()",
    "Sigmoid()": "Sigmoid()",
    "LogSigmoid()": "LogSigmoid()",
    "Softsign()": "Softsign()",
    "Tanhshrink()": "Tanhshrink()",
}


@pytest.mark.parametrize(("text", "expected"), REPRS.items())
def test_repr(text: str, expected: str) -> None:
    assert repr(eval(f"nn.{text}")) == expected


def test_prelu_weight_is_a_parameter() -> None:
    layer = nn.PReLU(3, init=0.1, dtype=chainrule.float64)
    assert [name for name, _ in layer.named_parameters()] == ["weight"]
    assert isinstance(layer.weight, nn.Parameter)
    assert layer.weight.dtype == chainrule.float64
    np.testing.assert_array_equal(layer.weight.detach().numpy(), [0.1] * 3)
    assert list(layer.state_dict()) == ["weight"]


def test_hardtanh_old_keywords_warn() -> None:
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        layer = nn.Hardtanh(min_value=-2.0)
    assert (layer.min_val, layer.max_val) == (-2.0, 1.0)


def test_softmax_without_dim_survives_old_pickles() -> None:
    layer = nn.Softmax(1)
    del layer.__dict__["dim"]  # as a layer pickled before it had a dim
    assert pickle.loads(pickle.dumps(layer)).dim is None


def test_inplace_layers_write_into_their_input() -> None:
    x = chainrule.tensor([-1.0, 0.5, 2.0])
    out = nn.ReLU(inplace=True)(x)
    assert out is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 0.5, 2.0])


def test_rrelu_slopes_in_bounds_and_fixed_in_eval() -> None:
    x = -chainrule.rand(1000, dtype=chainrule.float64) - 0.1
    layer = nn.RReLU(0.1, 0.3)
    slopes = (layer(x) / x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    layer.eval()
    np.testing.assert_allclose((layer(x) / x).numpy(), 0.2)


def test_rrelu_recorded_draws() -> None:
    chainrule.manual_seed(0)
    out = nn.functional.rrelu(-chainrule.ones(4), training=True)
    np.testing.assert_allclose(
        out.numpy(), [-0.32709438, -0.27246249, -0.22070478, -0.31682244], rtol=1e-6
    )


GRADCHECK = [
    "ReLU()",
    "LeakyReLU(0.2)",
    "PReLU(4, 0.3)",
    "ELU(0.7)",
    "SELU()",
    "CELU(1.5)",
    "GELU()",
    "GELU('tanh')",
    "SiLU()",
    "Mish()",
    "Sigmoid()",
    "Tanh()",
    "Hardtanh(-0.5, 0.5)",
    "Hardswish()",
    "Softshrink()",
    "Tanhshrink()",
    "Softplus(2.0)",
    "Softsign()",
    "LogSigmoid()",
    "GLU()",
    "Softmax(1)",
    "Softmin(0)",
    "LogSoftmax(1)",
    "RReLU()",
]


@pytest.mark.parametrize("text", GRADCHECK)
def test_gradcheck(text: str) -> None:
    layer = eval(f"nn.{text}").double()
    layer.eval()  # RReLU: a fixed slope, so the function is deterministic
    chainrule.manual_seed(1)
    # Away from the kinks (0, ±0.5, ±3), where the finite differences straddle a corner.
    x = chainrule.rand(3, 4, dtype=chainrule.float64) * 2 + 0.6
    x = (x * chainrule.tensor([1.0, -1.0, 1.0, -1.0], dtype=chainrule.float64)).requires_grad_()
    assert gradcheck(layer, (x,))
    assert gradgradcheck(layer, (x,))


def test_rrelu_training_gradient_is_the_drawn_slope() -> None:
    x = chainrule.tensor([-1.0, 2.0, -3.0], requires_grad=True)
    y = nn.RReLU()(x)
    y.sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), (y / x).detach().numpy())
