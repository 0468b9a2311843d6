"""The in-place samplers, normal, bernoulli and multinomial draw PyTorch's numbers, bit for bit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule

SEEDS = [0, 1, 7, 12345, 2**63 + 3]
SIZES = [0, 1, 2, 3, 15, 16, 17, 33, 100]
FLOATS = ["float32", "float64"]
Call = Callable[[Any], Any]


def _same_calls(torch: Any, seed: int, calls: list[Call]) -> None:
    """Seed both, make the same calls in the same order, and compare every result exactly."""
    torch.manual_seed(seed)
    expected = [call(torch).numpy() for call in calls]
    with chainrule.random.fork_rng():
        chainrule.manual_seed(seed)
        got = [call(chainrule).numpy() for call in calls]
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g.dtype == e.dtype, index
        assert g.shape == e.shape, index
        np.testing.assert_array_equal(g, e, err_msg=f"call {index}")


def _empty(m: Any, n: Any, dtype: str) -> Any:
    return m.empty(n, dtype=getattr(m, dtype))


SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "uniform_": lambda t: t.uniform_(),
    "uniform_(-2.5, 7.25)": lambda t: t.uniform_(-2.5, 7.25),
    "uniform_(0.1, 0.7)": lambda t: t.uniform_(0.1, 0.7),
    "normal_": lambda t: t.normal_(),
    "normal_(1.5, 0.3)": lambda t: t.normal_(1.5, 0.3),
    "normal_(-3, 7.1)": lambda t: t.normal_(-3, 7.1),
    "exponential_": lambda t: t.exponential_(),
    "exponential_(2.7)": lambda t: t.exponential_(2.7),
    "geometric_(0.3)": lambda t: t.geometric_(0.3),
    "log_normal_": lambda t: t.log_normal_(),
    "log_normal_(0.3, 0.7)": lambda t: t.log_normal_(0.3, 0.7),
    "cauchy_": lambda t: t.cauchy_(),
    "cauchy_(1.3, 0.37)": lambda t: t.cauchy_(1.3, 0.37),
    "bernoulli_": lambda t: t.bernoulli_(),
    "bernoulli_(0.3)": lambda t: t.bernoulli_(0.3),
    "random_": lambda t: t.random_(),
    "random_(7)": lambda t: t.random_(7),
    "random_(-3, 9)": lambda t: t.random_(-3, 9),
    "random_(5, 2**40)": lambda t: t.random_(5, 2**40),
}


@pytest.mark.filterwarnings("ignore:to - 1 is out of bounds")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_in_place_samplers_match_torch(torch: Any, seed: int, dtype: str, sampler: str) -> None:
    fill = SAMPLERS[sampler]
    calls: list[Call] = [lambda m, n=n: fill(_empty(m, n, dtype)) for n in SIZES]
    calls.append(lambda m: fill(_empty(m, (3, 7), dtype)))
    # The next draw after them shows the generator ends where PyTorch's does.
    calls.append(lambda m: m.randn(3, dtype=m.float64))
    _same_calls(torch, seed, calls)


@pytest.mark.parametrize("dtype", ["float16", "int64", "int32", "int16", "int8", "uint8", "bool"])
def test_random_and_bernoulli_on_other_dtypes_match_torch(torch: Any, dtype: str) -> None:
    calls: list[Call] = [
        lambda m: _empty(m, 9, dtype).random_(),
        lambda m: _empty(m, 9, dtype).random_(2),
        lambda m: _empty(m, 9, dtype).bernoulli_(0.4),
    ]
    if dtype != "bool":
        calls.append(lambda m: _empty(m, 9, dtype).random_(1, 100))
        calls.append(lambda m: _empty(m, 9, dtype).geometric_(0.2))
    if dtype == "float16":
        wide = "random_(5, 2**40)"  # beyond float16's range: an error in both
        calls += [lambda m, f=SAMPLERS[k]: f(_empty(m, 40, dtype)) for k in SAMPLERS if k != wide]
    _same_calls(torch, 3, calls)


@pytest.mark.parametrize(
    "bounds", [(0, None), (-(2**63), None), (2**31, None), (-7, None), (0, 2**28), (0, 2**63 - 1)]
)
def test_random_ranges_match_torch(torch: Any, bounds: tuple[int, int | None]) -> None:
    low, high = bounds
    calls: list[Call] = [lambda m: m.empty(6, dtype=m.int64).random_(low, high)]
    if low >= 0:
        calls.append(lambda m: m.empty(6, dtype=m.float64).random_(low, high))
    _same_calls(torch, 5, calls)


LAYOUTS: dict[str, Callable[[Any, str], Any]] = {
    "transposed": lambda m, d: _empty(m, (5, 7), d).t(),
    "permuted": lambda m, d: _empty(m, (2, 3, 5), d).permute(2, 0, 1),
    "sliced": lambda m, d: _empty(m, (6, 8), d)[:, ::2],
    "large transposed": lambda m, d: _empty(m, (20, 3), d).t(),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("sampler", ["uniform_(0.1, 0.7)", "normal_(1.5, 0.3)", "bernoulli_"])
def test_samplers_fill_in_memory_order_like_torch(torch: Any, layout: str, sampler: str) -> None:
    make, fill = LAYOUTS[layout], SAMPLERS[sampler]
    _same_calls(torch, 2, [lambda m: fill(make(m, "float32")), lambda m: m.rand(2)])


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_normal_overloads_match_torch(torch: Any, seed: int) -> None:
    def means(m: Any) -> Any:
        return m.arange(20, dtype=m.float32) / 3

    def stds(m: Any) -> Any:
        return m.linspace(0.1, 2.0, 20, dtype=m.float64)

    calls: list[Call] = [
        lambda m: m.normal(means(m), 0.7),
        lambda m: m.normal(means(m)[:5], 2.0),
        lambda m: m.normal(1.5, stds(m)),
        lambda m: m.normal(-1.0, stds(m)[:3]),
        lambda m: m.normal(means(m), means(m) + 0.5),
        lambda m: m.normal(means(m)[:4].reshape(4, 1), means(m)[:3] + 1),
        lambda m: m.normal(2.0, 3.0, (5, 4)),
        lambda m: m.normal(2.0, 3.0, size=(3,), dtype=m.float64),
    ]
    _same_calls(torch, seed, calls)


@pytest.mark.parametrize("dtype", FLOATS)
def test_bernoulli_matches_torch(torch: Any, dtype: str) -> None:
    def probs(m: Any) -> Any:
        return m.linspace(0, 1, 23, dtype=getattr(m, dtype))

    calls: list[Call] = [
        lambda m: m.bernoulli(probs(m)),
        lambda m: m.bernoulli(probs(m).reshape(1, 23).expand(3, 23).t()),
        lambda m: m.bernoulli(probs(m), 0.25),
        lambda m: probs(m).bernoulli(),
        lambda m: m.zeros(4, 23, dtype=getattr(m, dtype)).bernoulli_(probs(m)),
        lambda m: m.zeros(23, dtype=m.float64).bernoulli_(probs(m)),
    ]
    _same_calls(torch, 4, calls)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_matches_torch(torch: Any, seed: int, dtype: str, replacement: bool) -> None:
    def weights(m: Any) -> Any:
        return (m.arange(12, dtype=getattr(m, dtype)) % 5 + 0.5).reshape(3, 4)

    calls: list[Call] = [
        lambda m: m.multinomial(weights(m)[0], 1, replacement),
        lambda m: m.multinomial(weights(m)[0], 3, replacement),
        lambda m: m.multinomial(weights(m), 4, replacement),
        lambda m: m.multinomial(weights(m).t(), 2, replacement),
        lambda m: weights(m).multinomial(1, replacement),
    ]
    if replacement:
        calls.append(lambda m: m.multinomial(weights(m), 50, True))
    _same_calls(torch, seed, calls)


@given(
    shape=st.lists(st.integers(0, 6), min_size=0, max_size=3),
    seed=st.integers(0, 2**32),
    names=st.lists(st.sampled_from(sorted(SAMPLERS)), min_size=1, max_size=4),
    dtype=st.sampled_from(FLOATS),
)
def test_call_sequences_match_torch(
    shape: list[int], seed: int, names: list[str], dtype: str
) -> None:
    torch = pytest.importorskip("torch")
    calls: list[Call] = [
        lambda m, fill=SAMPLERS[name]: fill(_empty(m, tuple(shape), dtype)) for name in names
    ]
    calls.append(lambda m: m.randn(2, dtype=m.float64))
    _same_calls(torch, seed, calls)


@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 1.0])
def test_dropout_masks_match_torch(torch: Any, p: float) -> None:
    f = "nn.functional"

    def fn(m: Any, name: str) -> Any:
        module = m
        for part in f"{f}.{name}".split("."):
            module = getattr(module, part)
        return module

    calls: list[Call] = [
        lambda m: fn(m, "dropout")(m.ones(7, 5), p),
        lambda m: fn(m, "dropout")(m.ones(40, dtype=m.float64), p),
        lambda m: fn(m, "dropout1d")(m.ones(2, 3, 4), p),
        lambda m: fn(m, "dropout2d")(m.ones(2, 3, 4, 4), p),
        lambda m: fn(m, "dropout3d")(m.ones(3, 2, 2, 2), p),
        lambda m: fn(m, "alpha_dropout")(m.ones(6, 4), p, True),
        lambda m: fn(m, "feature_alpha_dropout")(m.ones(2, 3, 4), p, True),
        lambda m: fn(m, "dropout")(m.ones(5, 4).t(), p),
    ]
    _same_calls(torch, 9, calls)


def test_randint_like_forms_match_torch(torch: Any) -> None:
    def ints(m: Any) -> Any:
        return m.ones(2, 3, dtype=m.int32)

    calls: list[Call] = [
        lambda m: m.randint_like(ints(m), high=5),
        lambda m: m.randint_like(ints(m), 7),
        lambda m: m.randint_like(ints(m), 3, 9),
        lambda m: m.randint_like(ints(m), low=-2, high=2),
    ]
    _same_calls(torch, 6, calls)


@pytest.mark.parametrize("n", [2, 3, 17, 1000, 65537])
def test_randperm_of_every_size_matches_torch(torch: Any, n: int) -> None:
    _same_calls(torch, n, [lambda m: m.randperm(n), lambda m: m.randperm(n // 2 + 1)])


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_like_samplers_follow_the_inputs_layout_like_torch(torch: Any, layout: str) -> None:
    make = LAYOUTS[layout]
    calls: list[Call] = [
        lambda m: m.rand_like(make(m, "float32")),
        lambda m: m.randn_like(make(m, "float32")),
        lambda m: m.randn_like(make(m, "float64")),
        lambda m: m.randint_like(make(m, "float32"), 3, 9),
    ]
    _same_calls(torch, 8, calls)
    for call in calls:
        assert call(chainrule).stride() == call(torch).stride()
