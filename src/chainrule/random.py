"""Random numbers: `Generator`, the default generator, seeding, and saving and restoring state.

Every sampler in chainrule draws through a Generator's four draw methods, so the
stream (NumPy's PCG64 today, not PyTorch's MT19937) is decided in this module alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ._device import CPU
from ._device import device as Device
from ._dtype import legacy_type_name, uint8
from ._tensor import Tensor

__all__ = [
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]

# The seed a new Generator starts from, as in PyTorch.
_FRESH_SEED = 67280421310721
# manual_seed takes any 64-bit seed, signed or not; a negative one wraps around.
_SEED_MIN, _SEED_MAX = -(2**63), 2**64 - 1

# get_state's format: little-endian uint64 words, viewed as bytes.
_STATE_WORDS = ("seed", "state_low", "state_high", "inc_low", "inc_high", "has_uint32", "uinteger")
_STATE_BYTES = 8 * len(_STATE_WORDS)
_LOW_64 = 2**64 - 1
_BYTE_TENSOR = legacy_type_name(uint8)


class Generator:
    """A source of random numbers with its own seed and state, independent of all others.

    Samplers draw only through `_uniform`, `_normal`, `_integers` and `_permutation`
    (NumPy arrays of float64 or int64), which are the one place the stream is defined.
    """

    __slots__ = ("_bits", "_seed")

    def __init__(self, device: Any = "cpu") -> None:
        Device(device)  # chainrule has only the CPU: any other device raises
        self._seed = _FRESH_SEED
        self._bits = np.random.default_rng(_FRESH_SEED)

    @property
    def device(self) -> Device:
        return CPU

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from `seed` (a 64-bit integer; negative ones wrap around)."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not _SEED_MIN <= seed <= _SEED_MAX:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        self._bits = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the seed chosen."""
        chosen = int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) % 2**63
        self.manual_seed(chosen)
        return chosen

    def initial_seed(self) -> int:
        """The seed the stream last started from."""
        return self._seed

    def get_state(self) -> Tensor:
        """The seed and the stream's position, as a uint8 tensor that `set_state` takes back."""
        bits = self._bits.bit_generator.state
        words = [
            self._seed,
            bits["state"]["state"] & _LOW_64,
            bits["state"]["state"] >> 64,
            bits["state"]["inc"] & _LOW_64,
            bits["state"]["inc"] >> 64,
            bits["has_uint32"],
            bits["uinteger"],
        ]
        return Tensor._make(np.array(words, dtype="<u8").view(np.uint8))

    def set_state(self, new_state: Tensor) -> Generator:
        """Go back to a state `get_state` returned (of this generator or any other)."""
        _check_state(new_state)
        seed, state_low, state_high, inc_low, inc_high, has_uint32, uinteger = (
            int(w) for w in new_state._data.view("<u8")
        )
        bits = np.random.PCG64()
        bits.state = {
            "bit_generator": "PCG64",
            "state": {"state": state_high << 64 | state_low, "inc": inc_high << 64 | inc_low},
            "has_uint32": has_uint32,
            "uinteger": uinteger,
        }
        self._seed = seed
        self._bits = np.random.Generator(bits)
        return self

    # --- the draws every sampler makes --------------------------------------------------

    def _uniform(self, shape: tuple[int, ...], low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """float64 values uniform on [low, high)."""
        return self._bits.uniform(low, high, shape)

    def _normal(self, shape: tuple[int, ...]) -> np.ndarray:
        """float64 standard normal values."""
        return self._bits.standard_normal(shape)

    def _integers(self, low: int, high: int, shape: tuple[int, ...]) -> np.ndarray:
        """int64 values uniform on [low, high)."""
        return self._bits.integers(low, high, shape)

    def _permutation(self, n: int) -> np.ndarray:
        """0, ..., n - 1 in random order (int64)."""
        return self._bits.permutation(n)


def _check_state(new_state: Any) -> None:
    """PyTorch's errors for something that is not a state `get_state` could have returned."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a {_BYTE_TENSOR}, but got {type(new_state).__name__}")
    if new_state._data.dtype != np.uint8:
        raise TypeError(f"RNG state must be a {_BYTE_TENSOR}")
    if not new_state.is_contiguous():
        raise RuntimeError("RNG state must be contiguous")
    if new_state._data.size != _STATE_BYTES:
        raise RuntimeError(
            f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
            f"state size to be {new_state._data.size}"
        )


# The generator every sampler uses unless it is passed another. It starts from seed 0,
# as chainrule always has (PyTorch picks a seed at start-up).
default_generator = Generator().manual_seed(0)


def _generator_or_default(generator: Any, fn: str) -> Generator:
    """The generator a sampler named `fn` was passed, or the default one."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{fn}(): argument 'generator' must be chainrule.Generator, "
            f"not {type(generator).__name__}"
        )
    return generator


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator, so that what it draws repeats; returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator last started from."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state, as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Put the default generator back in a state `get_rng_state` returned."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices: Iterable[Any] | None = None, enabled: bool = True, device_type: str | None = None
) -> Iterator[None]:
    """Within the block, draw as usual; on leaving it, the default generator is as it was.

    `devices` and `device_type` name accelerators, which chainrule does not have.
    """
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
