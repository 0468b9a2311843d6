"""The samplers without PyTorch: values recorded from PyTorch 2.13, errors, graphs and laws."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule as cr

# One sequence of calls after manual_seed(0), each result recorded from PyTorch 2.13.
RECORDED: list[tuple[str, Callable[[], Any], list[Any]]] = [
    ("uniform", lambda: cr.empty(4).uniform_(-2, 3),
     [0.48128294944763184, 1.841109037399292, -1.5576128959655762, -1.3398475646972656]),
    ("normal", lambda: cr.empty(3, dtype=cr.float64).normal_(1.5, 0.3),
     [0.8463631853776328, 1.6705293831842003, 1.1746432972727938]),
    ("normal17", lambda: cr.empty(17).normal_(1.5, 0.3)[-3:],
     [1.4130996465682983, 1.5157521963119507, 1.656858205795288]),
    ("exp", lambda: cr.empty(3).exponential_(2.5),
     [1.1114776134490967, 0.16942210495471954, 0.7742632627487183]),
    ("geo", lambda: cr.empty(4, dtype=cr.int64).geometric_(0.3), [1, 2, 2, 1]),
    ("ln", lambda: cr.empty(2, dtype=cr.float64).log_normal_(0.3, 0.7),
     [0.507115354927136, 3.2438303830005606]),
    ("cauchy", lambda: cr.empty(2, dtype=cr.float64).cauchy_(1.3, 0.37),
     [0.8181053089445833, 1.2943396642118215]),
    ("bern", lambda: cr.empty(6).bernoulli_(0.3), [0.0] * 6),
    ("random", lambda: cr.empty(4, dtype=cr.int64).random_(-3, 9), [-1, -1, 8, 5]),
    ("multinomial", lambda: cr.multinomial(cr.tensor([1.0, 2.0, 3.0, 4.0]), 3), [0, 2, 1]),
    ("multinomial_r", lambda: cr.multinomial(cr.tensor([1.0, 2.0, 3.0, 4.0]), 5, True),
     [0, 2, 2, 3, 3]),
    ("bernoulli_fn", lambda: cr.bernoulli(cr.tensor([0.1, 0.5, 0.9, 0.7])), [0.0, 1.0, 1.0, 1.0]),
    ("normal_fn", lambda: cr.normal(cr.zeros(2), 2.0), [-1.109038233757019, 3.99129319190979]),
    ("next", lambda: cr.rand(2, dtype=cr.float64), [0.6005802923724705, 0.37351067214408973]),
]  # fmt: skip


def test_a_recorded_sequence_of_samplers() -> None:
    with cr.random.fork_rng():
        cr.manual_seed(0)
        for name, call, expected in RECORDED:
            assert call().tolist() == expected, name


ERRORS: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (lambda: cr.zeros(3, dtype=cr.long).uniform_(), NotImplementedError,
     "\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda: cr.zeros(3, dtype=cr.long).normal_(), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
    (lambda: cr.zeros(2, dtype=cr.int32).exponential_(), RuntimeError,
     "Exponential distribution is a continuous probability distribution. dtype must be a "
     "floating point but you specified Int"),
    (lambda: cr.zeros(3, dtype=cr.long).cauchy_(), RuntimeError,
     "Cauchy distribution is a continuous probability distribution. dtype must be a floating "
     "point but you specified long int"),
    (lambda: cr.zeros(2).uniform_(3, 2.5), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=3 > to=2.5"),
    (lambda: cr.zeros(2).uniform_(-1e39, 1), RuntimeError, "from is out of bounds for float"),
    (lambda: cr.zeros(2).normal_(0, -1.5), RuntimeError,
     "normal expects std >= 0.0, but found std -1.5"),
    (lambda: cr.zeros(2).exponential_(0), RuntimeError,
     "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda: cr.zeros(2).geometric_(1), RuntimeError,
     "geometric_ expects p to be in (0, 1), but got p=1"),
    (lambda: cr.zeros(2).log_normal_(1, 0), RuntimeError,
     "log_normal_ expects std > 0.0, but found std=0"),
    (lambda: cr.zeros(2).cauchy_(0, 0), RuntimeError,
     "cauchy_ expects sigma > 0.0, but found sigma=0"),
    (lambda: cr.zeros(2).bernoulli_(1.5), RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda: cr.zeros(2).random_(5, 3), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    (lambda: cr.zeros(2, dtype=cr.int8).random_(0, 1000), RuntimeError,
     "to - 1 is out of bounds for signed char"),
    (lambda: cr.zeros(2, requires_grad=True).normal_(), RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda: cr.normal(0.0, cr.tensor([-1.0, 1.0])), RuntimeError,
     "normal expects all elements of std >= 0.0"),
    (lambda: cr.multinomial(cr.tensor([0.5, -1.0]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: cr.multinomial(cr.tensor([0.5, 1.0]), 3), RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda: cr.multinomial(cr.zeros(2), 2, True), RuntimeError,
     "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda: cr.multinomial(cr.ones(2, 2, 2), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
    (lambda: cr.multinomial(cr.ones(2, dtype=cr.long), 1), RuntimeError,
     "multinomial only supports floating-point dtypes for input, got: Long"),
    (lambda: cr.multinomial(cr.ones(2), 0), RuntimeError, "cannot sample n_sample <= 0 samples"),
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_are_pytorchs_and_draw_nothing(index: int) -> None:
    call, kind, message = ERRORS[index]
    with cr.random.fork_rng():
        cr.manual_seed(3)
        before = cr.get_rng_state()
        with pytest.raises(kind) as caught:
            call()
        assert str(caught.value) == message
        assert cr.equal(cr.get_rng_state(), before)


def test_in_place_samplers_record_a_node_with_zero_gradient() -> None:
    x = cr.ones(3, requires_grad=True)
    for sampler, node in [
        (lambda y: y.normal_(), "NormalBackward0"),
        (lambda y: y.uniform_(), "UniformBackward0"),
        (lambda y: y.bernoulli_(0.5), "BernoulliBackward2"),
        (lambda y: y.random_(), "RandomBackward2"),
        (lambda y: y.random_(5), "RandomBackward1"),
        (lambda y: y.random_(1, 5), "RandomBackward0"),
        (lambda y: y.exponential_(), "ExponentialBackward0"),
        (lambda y: y.geometric_(0.5), "GeometricBackward0"),
        (lambda y: y.log_normal_(), "LogNormalBackward0"),
        (lambda y: y.cauchy_(), "CauchyBackward0"),
    ]:
        y = sampler(x * 2)
        assert y.grad_fn.name() == node
        assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
        (grad,) = cr.autograd.grad(y.sum(), x)
        assert grad.tolist() == [0.0, 0.0, 0.0]


def test_bernoulli_with_p_has_no_derivative() -> None:
    x = cr.full((3,), 0.5, requires_grad=True)
    y = cr.bernoulli(x, 0.3)
    assert y.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bernoulli is not implemented"):
        y.sum().backward()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_laws_the_samplers_follow(dtype: str) -> None:
    n = 200_000
    with cr.random.fork_rng():
        cr.manual_seed(1)
        t = getattr(cr, dtype)
        checks = [
            (cr.empty(n, dtype=t).uniform_(-1, 3).numpy(), 1.0, np.sqrt(16 / 12)),
            (cr.empty(n, dtype=t).normal_(2, 0.5).numpy(), 2.0, 0.5),
            (cr.empty(n, dtype=t).exponential_(4).numpy(), 0.25, 0.25),
            (cr.empty(n, dtype=t).geometric_(0.25).numpy(), 4.0, np.sqrt(0.75) / 0.25),
            (cr.empty(n, dtype=t).bernoulli_(0.3).numpy(), 0.3, np.sqrt(0.21)),
        ]
        for values, mean, std in checks:
            assert abs(values.mean() - mean) < 5 * std / np.sqrt(n)
            assert abs(values.std() - std) < 0.02 * std
        logs = np.log(cr.empty(n, dtype=t).log_normal_(1, 0.5).numpy())
        assert abs(logs.mean() - 1) < 0.01 and abs(logs.std() - 0.5) < 0.01
        median = np.median(cr.empty(n, dtype=t).cauchy_(3, 2).numpy())
        assert abs(median - 3) < 0.05
        counts = np.bincount(cr.multinomial(cr.tensor([1.0, 3.0]), n, True).numpy())
        assert abs(counts[1] / n - 0.75) < 0.01
