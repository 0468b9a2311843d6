"""chainrule.random: seeding, Generators, saved states, fork_rng, and who draws from what."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd.gradcheck import gradcheck, gradgradcheck
from chainrule.utils.checkpoint import checkpoint

F = chainrule.nn.functional

# Every sampler, called once; `generator` is passed on when it is not None.
SAMPLERS: dict[str, Callable[[Any], chainrule.Tensor]] = {
    "rand": lambda g: chainrule.rand(2, 3, generator=g),
    "randn": lambda g: chainrule.randn(4, generator=g, dtype=chainrule.float64),
    "randint": lambda g: chainrule.randint(3, 9, (5,), generator=g),
    "randperm": lambda g: chainrule.randperm(6, generator=g),
    "rand_like": lambda g: chainrule.rand_like(chainrule.ones(3), generator=g),
    "randn_like": lambda g: chainrule.randn_like(chainrule.ones(3), generator=g),
    "randint_like": lambda g: chainrule.randint_like(chainrule.ones(3), 0, 7, generator=g),
}


@pytest.fixture(autouse=True)
def _default_stream_untouched() -> Iterator[None]:
    """Each test leaves the default generator as it found it."""
    with chainrule.random.fork_rng():
        yield


def _state() -> list[int]:
    return chainrule.get_rng_state().tolist()


def test_public_names() -> None:
    random = chainrule.random
    assert chainrule.Generator is random.Generator
    assert chainrule.default_generator is random.default_generator
    assert isinstance(chainrule.default_generator, chainrule.Generator)
    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"):
        assert getattr(chainrule, name) is getattr(random, name)
    assert callable(random.fork_rng)


def test_seed_gives_pytorchs_stream() -> None:
    # Recorded from PyTorch 2.13: manual_seed(3), then these calls in this order.
    chainrule.manual_seed(3)
    assert chainrule.rand(4).tolist() == [
        0.004263520240783691,
        0.10556936264038086,
        0.2858424782752991,
        0.026954829692840576,
    ]
    assert chainrule.randn(2).tolist() == [0.08897809684276581, -0.6137180328369141]
    assert chainrule.randint(0, 50, (3,)).tolist() == [31, 39, 14]
    assert chainrule.randperm(5).tolist() == [1, 2, 4, 3, 0]


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_same_seed_same_numbers(name: str) -> None:
    draws = []
    for _ in range(2):
        chainrule.manual_seed(11)
        draws.append(SAMPLERS[name](None).tolist())
    assert draws[0] == draws[1]


def test_manual_seed_and_initial_seed(torch: Any) -> None:
    assert chainrule.manual_seed(5) is chainrule.default_generator
    g = chainrule.Generator()
    assert g.manual_seed(9) is g
    assert chainrule.Generator().initial_seed() == torch.Generator().initial_seed()
    for seed in (0, 5, 2**63, 2**64 - 1, -1, -(2**63), True, 3.7):
        chainrule.manual_seed(seed)
        torch.manual_seed(seed)
        assert chainrule.initial_seed() == torch.initial_seed()
        assert g.manual_seed(int(seed)).initial_seed() == torch.initial_seed()
    for bad in (2**64, -(2**63) - 1):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            chainrule.manual_seed(bad)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        g.manual_seed(1.5)  # type: ignore[arg-type]


def test_seed_picks_a_new_seed_and_uses_it() -> None:
    chosen = chainrule.seed()
    assert chainrule.initial_seed() == chosen
    first = chainrule.rand(3).tolist()
    chainrule.manual_seed(chosen)
    assert chainrule.rand(3).tolist() == first
    g = chainrule.Generator()
    assert g.seed() == g.initial_seed()


def test_a_generator_is_independent_of_the_default_one() -> None:
    chainrule.manual_seed(0)
    expected = chainrule.rand(3).tolist()
    g = chainrule.Generator().manual_seed(0)
    chainrule.manual_seed(0)
    from_g = chainrule.rand(3, generator=g).tolist()
    assert chainrule.rand(3).tolist() == expected  # the default stream did not move
    assert from_g == expected  # the same seed gives the same numbers in any generator
    chainrule.manual_seed(1)
    assert g.initial_seed() == 0


def test_generator_device() -> None:
    assert chainrule.Generator("cpu").device == chainrule.device("cpu")
    assert chainrule.Generator("cpu").device != "cpu"  # a device never equals a string
    assert chainrule.Generator(device=chainrule.device("cpu")).device.type == "cpu"
    with pytest.raises(RuntimeError):
        chainrule.Generator("cuda")


def test_get_state_set_state_round_trip() -> None:
    g = chainrule.Generator().manual_seed(21)
    chainrule.rand(5, generator=g)
    state = g.get_state()
    assert isinstance(state, chainrule.Tensor)
    assert state.dtype is chainrule.uint8 and state.ndim == 1 and not state.requires_grad
    ahead = [chainrule.randn(4, generator=g).tolist(), chainrule.randperm(7, generator=g).tolist()]
    g.manual_seed(99)
    assert g.set_state(state) is g
    assert g.initial_seed() == 21  # the seed travels with the state
    again = [chainrule.randn(4, generator=g).tolist(), chainrule.randperm(7, generator=g).tolist()]
    assert again == ahead
    other = chainrule.Generator().set_state(state)
    assert chainrule.randn(4, generator=other).tolist() == ahead[0]


def test_a_saved_state_is_a_copy() -> None:
    g = chainrule.Generator()
    state = g.get_state()
    before = state.tolist()
    chainrule.rand(3, generator=g)
    assert state.tolist() == before
    assert g.get_state().tolist() != before


def test_get_rng_state_set_rng_state_round_trip() -> None:
    chainrule.manual_seed(4)
    chainrule.randn(3)
    state = chainrule.get_rng_state()
    assert state.dtype is chainrule.uint8
    ahead = chainrule.rand(6).tolist()
    chainrule.manual_seed(8)
    assert chainrule.set_rng_state(state) is None
    assert chainrule.rand(6).tolist() == ahead
    assert chainrule.initial_seed() == 4
    assert chainrule.random.get_rng_state().tolist() == _state()


def test_bad_states_raise_as_in_torch(torch: Any) -> None:
    cases = [
        lambda m: [1, 2],
        lambda m: m.zeros(3, dtype=m.uint8),
        lambda m: m.get_rng_state().float(),
        lambda m: m.get_rng_state()[::2],
    ]
    for make in cases:
        with pytest.raises(Exception) as expected:
            torch.set_rng_state(make(torch))
        with pytest.raises(type(expected.value)) as got:
            chainrule.set_rng_state(make(chainrule))
        with pytest.raises(type(expected.value)):
            chainrule.Generator().set_state(make(chainrule))
        if "size" not in str(expected.value):  # the sizes are chainrule's own
            assert str(got.value).replace("chainrule.", "torch.") == str(expected.value)


def test_fork_rng_puts_the_default_generator_back() -> None:
    chainrule.manual_seed(6)
    before = _state()
    with chainrule.random.fork_rng():
        chainrule.manual_seed(100)
        chainrule.rand(10)
    assert _state() == before
    with pytest.raises(ZeroDivisionError), chainrule.random.fork_rng(devices=[]):
        chainrule.rand(10)
        _ = 1 / 0
    assert _state() == before
    with chainrule.random.fork_rng(enabled=False):
        chainrule.rand(10)
    assert _state() != before


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_factories_draw_from_the_default_generator(name: str) -> None:
    chainrule.manual_seed(2)
    state = chainrule.get_rng_state()
    first = SAMPLERS[name](None).tolist()
    assert _state() != state.tolist()
    chainrule.set_rng_state(state)
    assert SAMPLERS[name](None).tolist() == first


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_factories_draw_from_the_generator_passed(name: str) -> None:
    before = _state()
    drawn = SAMPLERS[name](chainrule.Generator().manual_seed(13)).tolist()
    assert _state() == before
    chainrule.manual_seed(13)
    assert SAMPLERS[name](None).tolist() == drawn


def test_a_generator_that_is_not_one_raises(torch: Any) -> None:
    with pytest.raises(TypeError):
        torch.rand(2, generator=3)
    for name in ("rand", "randn", "randperm", "rand_like"):
        args = (chainrule.ones(2),) if name.endswith("like") else (2,)
        with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'generator'"):
            getattr(chainrule, name)(*args, generator=3)


@pytest.mark.parametrize(
    ("dropout", "shape"),
    [(F.dropout, (4, 5)), (F.dropout1d, (2, 8, 3)), (F.dropout3d, (2, 8, 1, 2, 2))],
)
def test_dropout_draws_from_the_default_generator(
    dropout: Callable[..., Any], shape: tuple[int, ...]
) -> None:
    x = chainrule.ones(*shape)
    chainrule.manual_seed(17)
    state = chainrule.get_rng_state()
    mask = dropout(x, 0.5, training=True).tolist()
    assert _state() != state.tolist()
    chainrule.set_rng_state(state)
    assert dropout(x, 0.5, training=True).tolist() == mask
    before = _state()
    dropout(x, 0.5, training=False)
    assert _state() == before


def test_gradcheck_fast_mode_draws_its_directions_from_the_default_generator() -> None:
    x = chainrule.tensor([0.5, -1.0, 2.0], dtype=chainrule.float64, requires_grad=True)
    chainrule.manual_seed(0)
    before = _state()
    assert gradcheck(chainrule.sin, (x,), fast_mode=True)
    assert _state() != before
    after = _state()
    chainrule.manual_seed(0)
    assert gradcheck(chainrule.sin, (x,), fast_mode=True)
    assert _state() == after
    chainrule.manual_seed(0)
    assert gradcheck(chainrule.sin, (x,))  # slow mode draws nothing
    assert _state() == before


def test_gradgradcheck_draws_its_grad_outputs_from_the_default_generator() -> None:
    x = chainrule.tensor([0.5, -1.0], dtype=chainrule.float64, requires_grad=True)
    chainrule.manual_seed(0)
    before = _state()
    assert gradgradcheck(chainrule.sin, (x,))
    assert _state() != before


def test_checkpoint_replays_the_default_stream_and_puts_it_back() -> None:
    x = chainrule.ones(64, requires_grad=True)

    def f(t: chainrule.Tensor) -> chainrule.Tensor:
        return F.dropout(t * 2, 0.5, training=True)

    chainrule.manual_seed(3)
    out = checkpoint(f, x, use_reentrant=False)
    before_backward = _state()
    out.sum().backward()
    assert _state() == before_backward
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


def test_checkpoint_without_preserving_draws_anew() -> None:
    x = chainrule.ones(64, requires_grad=True)
    chainrule.manual_seed(3)
    out = checkpoint(
        lambda t: F.dropout(t * 2, 0.5, training=True),
        x,
        use_reentrant=False,
        preserve_rng_state=False,
    )
    before_backward = _state()
    out.sum().backward()
    assert _state() != before_backward
    assert x.grad is not None
    assert x.grad.tolist() != out.detach().tolist()
