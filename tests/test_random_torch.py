"""The random stream is PyTorch's: the same seed gives the same numbers, bit for bit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule

SEEDS = [0, 1, 7, 12345, 2**32 + 5, 2**63 + 3, -1]
SIZES = [0, 1, 2, 3, 5, 15, 16, 17, 31, 32, 33, 100, 1000]

# Recorded from PyTorch 2.13, so that the stream is checked without torch installed.
RECORDED_RAND_SEED_0 = [
    0.49625658988952637,
    0.7682217955589294,
    0.08847743272781372,
    0.13203048706054688,
    0.30742281675338745,
]
RECORDED_RAND64_AFTER_IT = [0.07262971157225484, 0.17155810530414428, 0.0584505300016952]
RECORDED_RANDN_3_SEED_0 = [1.5409960746765137, -0.293428897857666, -2.1787893772125244]
RECORDED_RANDN64_17_AFTER_IT = [
    -0.8840250045832653,
    0.2102998901016947,
    0.17718935139366584,
    -0.830510051008449,
    0.23871805816817063,
    0.7335283685272841,
    -1.3218818291421377,
    1.3148113651971234,
    -1.4874956356507338,
    1.4880743158106724,
    -0.4484158047114511,
    -0.8910030351707375,
    0.6748575435940039,
    1.0468653769814655,
    0.15429517864658948,
    -0.7498915228391941,
    -0.7233897004977882,
]


def test_recorded_rand_and_randn() -> None:
    with chainrule.random.fork_rng():
        chainrule.manual_seed(0)
        assert chainrule.rand(5).tolist() == RECORDED_RAND_SEED_0
        assert chainrule.rand(3, dtype=chainrule.float64).tolist() == RECORDED_RAND64_AFTER_IT
        chainrule.manual_seed(0)
        assert chainrule.randn(3).tolist() == RECORDED_RANDN_3_SEED_0
        assert chainrule.randn(17, dtype=chainrule.float64).tolist() == RECORDED_RANDN64_17_AFTER_IT


def test_recorded_mixed_sequence() -> None:
    # The cached second Box-Muller value survives the rand in between.
    with chainrule.random.fork_rng():
        chainrule.manual_seed(5)
        assert chainrule.randn(1, dtype=chainrule.float64).tolist() == [-0.48678075071242677]
        assert chainrule.rand(2).tolist() == [0.9201034307479858, 0.1166452169418335]
        assert chainrule.randn(1, dtype=chainrule.float64).tolist() == [-0.6038215878840039]
        assert chainrule.randint(-5, 5, (4,)).tolist() == [-3, -2, 3, -1]
        assert chainrule.randint(0, 2**40, (2,)).tolist() == [993841416126, 667240942192]
        assert chainrule.randperm(8).tolist() == [6, 3, 5, 1, 7, 0, 4, 2]


# --- against PyTorch itself ---------------------------------------------------------------


@pytest.fixture
def torch() -> Any:
    return pytest.importorskip("torch")


def _same_calls(torch: Any, seed: int, calls: list[Callable[[Any], Any]]) -> None:
    """Seed both, make the same calls in the same order, and compare every result exactly."""
    torch.manual_seed(seed)
    expected = [call(torch).numpy() for call in calls]
    with chainrule.random.fork_rng():
        chainrule.manual_seed(seed)
        got = [call(chainrule).numpy() for call in calls]
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g.dtype == e.dtype, index
        np.testing.assert_array_equal(g, e, err_msg=f"call {index}")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_rand_matches_torch(torch: Any, seed: int, dtype: str) -> None:
    calls = [lambda m, n=n: m.rand(n, dtype=getattr(m, dtype)) for n in SIZES]
    calls.append(lambda m: m.rand(3, 4, 5, dtype=getattr(m, dtype)))
    calls.append(lambda m: m.rand_like(m.ones(2, 7, dtype=getattr(m, dtype))))
    _same_calls(torch, seed, calls)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_randn_matches_torch(torch: Any, seed: int, dtype: str) -> None:
    calls = [lambda m, n=n: m.randn(n, dtype=getattr(m, dtype)) for n in SIZES]
    calls.append(lambda m: m.randn(1, 3, dtype=getattr(m, dtype)))
    calls.append(lambda m: m.randn_like(m.ones(5, dtype=getattr(m, dtype))))
    _same_calls(torch, seed, calls)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_randn_large_matches_torch(torch: Any, dtype: str) -> None:
    calls = [lambda m: m.randn(300, 337, dtype=getattr(m, dtype)), lambda m: m.randn(2)]
    _same_calls(torch, 3, calls)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_mixed_sequence_matches_torch(torch: Any, seed: int) -> None:
    calls = [
        lambda m: m.randn(1, dtype=m.float64),
        lambda m: m.rand(3),
        lambda m: m.randn(3),
        lambda m: m.randn(20, dtype=m.float64),
        lambda m: m.randn(1),
        lambda m: m.rand(2, dtype=m.float64),
        lambda m: m.randint(0, 10, (6,)),
        lambda m: m.randn(5, dtype=m.float64),
        lambda m: m.randperm(9),
        lambda m: m.randn(2),
    ]
    _same_calls(torch, seed, calls)


RANGES = [
    (0, 1),
    (0, 2),
    (-5, 5),
    (0, 100),
    (0, 2**28 - 1),
    (0, 2**28),
    (3, 2**31),
    (0, 2**32 - 1),
    (0, 2**32),
]
RANGES += [(-(2**40), 2**40), (0, 2**62), (-(2**63), 2**62)]


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize(("low", "high"), RANGES)
def test_randint_matches_torch(torch: Any, seed: int, low: int, high: int) -> None:
    calls = [lambda m: m.randint(low, high, (7,)), lambda m: m.randint(low, high, (2, 3))]
    _same_calls(torch, seed, calls)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_randint_dtypes_match_torch(torch: Any, seed: int) -> None:
    calls = [
        lambda m: m.randint(0, 100, (5,), dtype=m.int32),
        lambda m: m.randint(-3, 3, (5,), dtype=m.int16),
        lambda m: m.randint(0, 200, (5,), dtype=m.uint8),
        lambda m: m.randint(0, 10, (5,), dtype=m.float32),
        lambda m: m.randint_like(m.ones(4, dtype=m.int32), 0, 9),
    ]
    _same_calls(torch, seed, calls)


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 5000])
def test_randperm_matches_torch(torch: Any, seed: int, n: int) -> None:
    _same_calls(torch, seed, [lambda m: m.randperm(n), lambda m: m.randperm(n, dtype=m.int32)])


@pytest.mark.parametrize("seed", SEEDS)
def test_initial_seed_matches_torch(torch: Any, seed: int) -> None:
    torch.manual_seed(seed)
    with chainrule.random.fork_rng():
        chainrule.manual_seed(seed)
        assert chainrule.initial_seed() == torch.initial_seed()


def test_a_saved_state_keeps_the_cached_normal() -> None:
    with chainrule.random.fork_rng():
        chainrule.manual_seed(11)
        chainrule.randn(1, dtype=chainrule.float64)  # leaves the pair's second value cached
        saved = chainrule.get_rng_state()
        ahead = [chainrule.randn(1, dtype=chainrule.float64).item() for _ in range(3)]
        chainrule.manual_seed(99)
        chainrule.set_rng_state(saved)
        assert [chainrule.randn(1, dtype=chainrule.float64).item() for _ in range(3)] == ahead


def test_manual_seed_drops_the_cached_normal(torch: Any) -> None:
    def calls(m: Any) -> list[float]:
        m.manual_seed(4)
        m.randn(1, dtype=m.float64)
        m.manual_seed(4)
        return m.randn(2, dtype=m.float64).tolist()

    with chainrule.random.fork_rng():
        assert calls(chainrule) == calls(torch)


def test_generators_match_torch(torch: Any) -> None:
    g, h = torch.Generator().manual_seed(21), chainrule.Generator().manual_seed(21)
    assert chainrule.rand(4, generator=h).tolist() == torch.rand(4, generator=g).tolist()
    assert chainrule.randn(3, generator=h).tolist() == torch.randn(3, generator=g).tolist()
    assert chainrule.Generator().initial_seed() == torch.Generator().initial_seed()
    assert (
        chainrule.rand(3, generator=chainrule.Generator()).tolist()
        == torch.rand(3, generator=torch.Generator()).tolist()
    )
