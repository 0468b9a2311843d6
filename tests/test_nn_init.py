"""nn.init: every initializer draws PyTorch's numbers bit for bit under a seed or a Generator
(orthogonal_ within rounding: its QR is LAPACK's), with PyTorch's checks and warnings;
the layers' default initialization equals PyTorch's. Recorded values run without torch.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import chainrule
from nn_compare import assert_same, outcome
from torch_compare import registry

SCENARIOS, scenario = registry()
init = chainrule.nn.init

SHAPES = [(3, 5), (17, 4), (2, 3, 4, 4), (40,), ()]


def draw(m: Any, fn: str, shape: tuple[int, ...], *args: Any, **kwargs: Any) -> Any:
    """`init.<fn>(empty(shape), ...)` after seeding, and once more from a Generator."""
    m.manual_seed(0)
    first = getattr(m.nn.init, fn)(m.empty(shape), *args, **kwargs)
    g = m.Generator().manual_seed(7)
    second = getattr(m.nn.init, fn)(m.empty(shape), *args, generator=g, **kwargs)
    return [first, second]


def plain(name: str, *args: Any, shapes: list[Any] = SHAPES, **kwargs: Any) -> None:
    for shape in shapes:

        def run(m: Any, shape: Any = shape) -> Any:
            return draw(m, name, shape, *args, **kwargs)

        run.__name__ = f"{name}_{'x'.join(map(str, shape)) or 'scalar'}"
        scenario(run)


plain("uniform_", -0.5, 2.0)
plain("normal_", 1.0, 0.3)
plain("xavier_uniform_", gain=2.0, shapes=SHAPES[:3])
plain("xavier_normal_", shapes=SHAPES[:3])
plain("kaiming_uniform_", a=math.sqrt(5), shapes=SHAPES[:3])
plain("kaiming_uniform_", mode="fan_out", nonlinearity="relu", shapes=SHAPES[:1])
plain("kaiming_normal_", shapes=SHAPES[:3])
plain("kaiming_normal_", 0.2, "fan_out", shapes=SHAPES[2:3])
plain("trunc_normal_", shapes=SHAPES[:4])
plain("trunc_normal_", 0.0, 1.0, 1.5, 4.0, shapes=SHAPES[:2])  # the accept-reject branch
plain("trunc_normal_", 2.0, 0.5, -1.0, 1.0, shapes=SHAPES[1:2])
plain("sparse_", 0.4, shapes=SHAPES[:2])


@scenario
def float64_and_float16(m: Any) -> Any:
    m.manual_seed(3)
    out = [m.nn.init.uniform_(m.empty(20, dtype=m.float64), -1, 1)]
    out.append(m.nn.init.normal_(m.empty(20, dtype=m.float64)))
    out.append(m.nn.init.kaiming_uniform_(m.empty(6, 5, dtype=m.float16)))
    out.append(m.nn.init.normal_(m.empty(3, dtype=m.float16), 2.0, 0.1))
    return out


@scenario
def deterministic_fills(m: Any) -> Any:
    w = m.empty(4, 2, 3)
    return [
        m.nn.init.constant_(m.empty(2, 2), 0.25),
        m.nn.init.ones_(m.empty(3)),
        m.nn.init.zeros_(m.ones(3)),
        m.nn.init.eye_(m.empty(2, 3)),
        m.nn.init.dirac_(w),
        m.nn.init.dirac_(m.empty(4, 2, 3, 3), groups=2),
        m.nn.init.dirac_(m.empty(2, 2, 1, 3, 3)),
    ]


@scenario
def initializers_keep_the_parameter_a_leaf(m: Any) -> Any:
    p = m.nn.Parameter(m.empty(3, 3))
    out = m.nn.init.kaiming_normal_(p)
    m.nn.init.orthogonal_(p)
    return [out is p, p.is_leaf, p.grad_fn is None, p.requires_grad, type(p).__name__]


@scenario
def gains_and_fans(m: Any) -> Any:
    init = m.nn.init
    names = ["linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]
    out = [init.calculate_gain(n) for n in names]
    out += [init.calculate_gain("leaky_relu", 0.2), init.calculate_gain("leaky_relu", 3)]
    out += [init._calculate_fan_in_and_fan_out(m.empty(s)) for s in [(3, 5), (4, 2, 3, 3)]]
    out.append(init._calculate_correct_fan(m.empty(4, 2, 3), "FAN_OUT"))
    return out


@scenario
def errors(m: Any) -> Any:
    init = m.nn.init
    cases = [
        lambda: init.calculate_gain("softmax"),
        lambda: init.calculate_gain("leaky_relu", True),
        lambda: init.calculate_gain("leaky_relu", "a"),
        lambda: init.xavier_uniform_(m.empty(3)),
        lambda: init.kaiming_uniform_(m.empty(3, 3), mode="fan"),
        lambda: init.eye_(m.empty(3)),
        lambda: init.dirac_(m.empty(3, 3)),
        lambda: init.dirac_(m.empty(3, 3, 3), groups=2),
        lambda: init.orthogonal_(m.empty(3)),
        lambda: init.sparse_(m.empty(3), 0.1),
    ]
    out = []
    for case in cases:
        try:
            case()
            out.append(None)
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def linear_default_init(m: Any) -> Any:
    m.manual_seed(0)
    a = m.nn.Linear(5, 3)
    b = m.nn.Linear(40, 17)
    c = m.nn.Bilinear(3, 4, 2)
    a.reset_parameters()
    return [a.weight, a.bias, b.weight, b.bias, c.weight, c.bias, m.rand(2)]


@pytest.mark.parametrize("fn", SCENARIOS, ids=[f.__name__ for f in SCENARIOS])
def test_matches_torch_bit_for_bit(torch: Any, fn: Any) -> None:
    assert_same(outcome(fn, chainrule), outcome(fn, torch))


@pytest.mark.parametrize("shape", [(3, 5), (6, 2), (4, 2, 3), (5, 5)])
def test_orthogonal_matches_torch(torch: Any, shape: tuple[int, ...]) -> None:
    def run(m: Any) -> Any:
        m.manual_seed(0)
        w = m.nn.init.orthogonal_(m.empty(shape), gain=2.0)
        return [w, m.rand(3)]  # the stream has moved on by the same draws

    assert_same(outcome(run, chainrule), outcome(run, torch), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["kaiming_uniform_", "kaiming_normal_"])
def test_zero_element_warning(torch: Any, name: str) -> None:
    for m in (chainrule, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(m.nn.init, name)(m.empty(0, 3))
        assert [str(w.message) for w in caught] == ["Initializing zero-element tensors is a no-op"]


# --- without torch ------------------------------------------------------------------------


def test_linear_weight_recorded() -> None:
    chainrule.manual_seed(0)
    weight = chainrule.nn.Linear(5, 3).weight
    expected = [
        [-0.0033, 0.2399, -0.3681, -0.3291, -0.1722],
        [0.1199, -0.0089, 0.3546, -0.0397, 0.1183],
        [-0.1352, -0.0879, -0.4272, -0.2962, -0.1844],
    ]
    np.testing.assert_allclose(weight.detach().numpy(), expected, atol=6e-5)


def test_orthogonal_is_orthogonal() -> None:
    for shape in [(3, 5), (5, 3), (4, 2, 2)]:
        w = init.orthogonal_(chainrule.empty(shape)).detach().numpy().reshape(shape[0], -1)
        small = w @ w.T if shape[0] <= w.shape[1] else w.T @ w
        np.testing.assert_allclose(small, np.eye(len(small)), atol=1e-5)


def test_distributions_have_their_moments() -> None:
    chainrule.manual_seed(1)
    t = init.trunc_normal_(chainrule.empty(20000), 0.5, 1.0, -1.0, 1.0).numpy()
    assert t.min() >= -1.0 and t.max() <= 1.0
    lo, hi = (-1.5, 0.5)  # bounds in std units around the mean
    pdf = math.exp(-(lo**2) / 2) - math.exp(-(hi**2) / 2)
    mass = (math.erf(hi / math.sqrt(2)) - math.erf(lo / math.sqrt(2))) / 2
    assert abs(t.mean() - (0.5 + pdf / math.sqrt(2 * math.pi) / mass)) < 0.02
    k = init.kaiming_normal_(chainrule.empty(400, 100), nonlinearity="relu").numpy()
    assert abs(k.std() - math.sqrt(2 / 100)) < 0.003
    s = init.sparse_(chainrule.empty(10, 300), 0.3).numpy()
    assert ((s == 0).sum(axis=0) == 3).all()


def test_errors_recorded() -> None:
    with pytest.raises(ValueError, match=r"^Unsupported nonlinearity softmax$"):
        init.calculate_gain("softmax")
    with pytest.raises(ValueError) as info:
        init.kaiming_uniform_(chainrule.empty(3, 3), mode="fan")
    assert str(info.value) == "Mode fan not supported, please use one of ['fan_in', 'fan_out']"
    with pytest.warns(FutureWarning, match="`nn.init.normal` is now deprecated"):
        init.normal(chainrule.empty(2))
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(chainrule.empty(2), mean=10.0)
