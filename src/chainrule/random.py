"""Random numbers: `Generator`, the default generator, seeding, and saving and restoring state.

Every sampler in chainrule draws through a Generator's four draw methods, so the
stream (PyTorch's: MT19937 and its transforms) is decided in this module alone.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ._device import CPU
from ._device import device as Device
from ._dtype import legacy_type_name, uint8
from ._float_math import cos as libm_cos
from ._float_math import fma, log_float32, sincos_float32
from ._float_math import log as libm_log
from ._float_math import sin as libm_sin
from ._tensor import Tensor

# What a CPU build of PyTorch says when asked for another device's generator.
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_NO_GENERATOR = {
    "cuda": (
        "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into "
        "two shared libraries: a CPU library and a CUDA library; this error has occurred "
        "because you are trying to use some CUDA functionality, but the CUDA library has not "
        "been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, "
        "EVEN IF you don't directly use any symbols from the CUDA library! One common culprit "
        "is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will "
        "delete dynamic library dependencies if you don't depend on any of their symbols.  You "
        "can check if this has occurred by using ldd on your binary to see if there is a "
        "dependency on *_cuda.so library."
    ),
    "mps": "Cannot execute getNewGenerator() without MPS backend.",
    "meta": "META device type not an accelerator.",
}

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

# MT19937's state: 624 32-bit words and a position in them. PyTorch seeds it with the
# low 32 bits of the seed, by the reference generator's own seeding recurrence.
_MT_WORDS = 624
_MT_MULTIPLIER = 1812433253
_LOW_32 = 2**32 - 1

# get_state's format: little-endian uint64 words, viewed as bytes: the seed, the
# position, whether a normal value is cached and its bits, then the 624 state words.
_HEADER_WORDS = 4
_STATE_BYTES = 8 * (_HEADER_WORDS + _MT_WORDS)
_BYTE_TENSOR = legacy_type_name(uint8)

# randint's ranges below this take 32-bit draws; PyTorch takes 64-bit ones from here on.
_NARROW_RANGE = 2**28

# PyTorch's Box-Muller switches to filling 16 values at a time from this many elements.
_NORMAL_FILL_MIN = 16
# How many values the fill transforms at a time (a multiple of 16).
_FILL_SLICE = 2**15


def _mt19937_seeded(seed: int) -> np.random.MT19937:
    """An MT19937 bit source in the state PyTorch's seeding gives `seed`."""
    key = [seed & _LOW_32]
    for j in range(1, _MT_WORDS):
        previous = key[-1]
        key.append((_MT_MULTIPLIER * (previous ^ (previous >> 30)) + j) & _LOW_32)
    return _mt19937_at(np.array(key, dtype=np.uint32), _MT_WORDS)


def _mt19937_at(key: np.ndarray, pos: int) -> np.random.MT19937:
    """An MT19937 bit source with state words `key` and position `pos`."""
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
    return bits


def _mantissa_bits(dtype: np.dtype) -> int:
    """How many random bits PyTorch's uniform sampler keeps for `dtype` (its precision)."""
    return int(np.finfo(dtype).nmant) + 1


class Generator:
    """A source of random numbers with its own seed and state, independent of all others.

    The bits come from MT19937 as PyTorch's CPU generator draws them, and the samplers
    transform them as PyTorch does, so a seed gives PyTorch's numbers. Samplers draw
    only through `_uniform`, `_normal`, `_integers` and `_permutation`.
    """

    __slots__ = ("_bits", "_next_normal", "_seed")

    def __init__(self, device: Any = "cpu") -> None:
        if Device(device).type != "cpu":
            raise RuntimeError(_NO_GENERATOR.get(Device(device).type, _NO_ACCELERATOR))
        self._restart(_FRESH_SEED)

    def _restart(self, seed: int) -> None:
        self._seed = seed
        self._bits = _mt19937_seeded(seed)
        self._next_normal: float | None = None  # Box-Muller's second value, kept for later

    @property
    def device(self) -> Device:
        return CPU

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from `seed` (a 64-bit integer; negative ones wrap around)."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not _SEED_MIN <= seed <= _SEED_MAX:
            raise ValueError("Overflow when unpacking long long")
        self._restart(seed % 2**64)
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
        mt = self._bits.state["state"]
        cached = self._next_normal
        cached_bits = 0 if cached is None else int(np.float64(cached).view(np.uint64))
        header = [self._seed, int(mt["pos"]), int(cached is not None), cached_bits]
        words = np.concatenate([np.array(header, dtype="<u8"), mt["key"].astype("<u8")])
        return Tensor._make(words.view(np.uint8))

    def set_state(self, new_state: Tensor) -> Generator:
        """Go back to a state `get_state` returned (of this generator or any other)."""
        _check_state(new_state)
        words = new_state._data.view("<u8")
        seed, pos, has_cached, cached_bits = (int(w) for w in words[:_HEADER_WORDS])
        self._seed = seed
        self._bits = _mt19937_at(words[_HEADER_WORDS:].astype(np.uint32), pos)
        cached = float(np.uint64(cached_bits).view(np.float64))
        self._next_normal = cached if has_cached else None
        return self

    # --- the raw bits -------------------------------------------------------------------

    def _random32(self, count: int) -> np.ndarray:
        """`count` 32-bit draws (as uint64)."""
        return self._bits.random_raw(count)

    def _random64(self, count: int) -> np.ndarray:
        """`count` 64-bit draws, each two 32-bit ones with the first as the high half."""
        pairs = self._random32(2 * count)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]

    # --- the draws every sampler makes --------------------------------------------------

    def _uniform(
        self, shape: tuple[int, ...], low: float = 0.0, high: float = 1.0, dtype: Any = np.float64
    ) -> np.ndarray:
        """Values of `dtype` uniform on [low, high).

        Like PyTorch, float64 keeps 53 low bits of a 64-bit draw; every narrower type is
        made in float32, from 24 low bits of a 32-bit draw, and then rounded to `dtype`.
        The unit value u becomes u * (high - low) + low in one fused multiply-add.
        """
        dtype = np.dtype(dtype)
        count = math.prod(shape)
        work: np.dtype[Any] = np.dtype(np.float64 if dtype == np.float64 else np.float32)
        draws = self._random64(count) if work == np.float64 else self._random32(count)
        digits = _mantissa_bits(work)
        # The kept bits are exact in `work`, and so is scaling them by a power of two.
        unit = (draws & np.uint64(2**digits - 1)).astype(work) * work.type(2.0**-digits)
        if low == 0.0 and high == 1.0 and dtype == work:
            return unit.reshape(shape)  # nothing rounds, so nothing reaches `high`
        if low != 0.0 or high != 1.0:
            unit = fma(unit, np.asarray(high, work) - np.asarray(low, work), np.asarray(low, work))
        values = unit.astype(dtype, copy=False)
        # Rounding to a narrow type can reach `high`; PyTorch then gives `low` instead.
        values[values == dtype.type(high)] = dtype.type(low)
        return values.reshape(shape)

    def _normal(
        self,
        shape: tuple[int, ...],
        dtype: Any = np.float64,
        mean: float = 0.0,
        std: float = 1.0,
        contiguous: bool = True,
    ) -> np.ndarray:
        """Normal values of `dtype`, by PyTorch's Box-Muller: z * std + mean, fused.

        A contiguous tensor of 16 or more is filled 16 at a time; anything else is drawn
        one value at a time in float64 (a pair per two values, the second cached).
        """
        dtype = np.dtype(dtype)
        count = math.prod(shape)
        if count >= _NORMAL_FILL_MIN and contiguous:
            return self._normal_fill(count, dtype, mean, std).reshape(shape)
        return fma(self._normal_doubles(count), std, mean).astype(dtype).reshape(shape)

    def _normal_doubles(self, count: int) -> np.ndarray:
        """`count` standard normal float64 values, one at a time (the serial sampler)."""
        return np.array([self._one_normal() for _ in range(count)], dtype=np.float64)

    def _one_normal(self) -> float:
        """One float64 normal value: the cached one if there is one, else a new pair's first."""
        if self._next_normal is not None:
            value, self._next_normal = self._next_normal, None
            return value
        u1, u2 = self._uniform((2,))
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def _normal_fill(self, count: int, dtype: np.dtype, mean: float, std: float) -> np.ndarray:
        """`count` >= 16 normal values, made 16 at a time from 16 uniform ones.

        When 16 does not divide `count`, the last 16 are made again from 16 new uniforms.
        float16 is computed in float32 and rounded; unlike float32's, its first pass
        draws uniforms only for the whole blocks of 16.
        """
        work = np.dtype(np.float64 if dtype == np.float64 else np.float32)

        def normals(uniforms: np.ndarray) -> np.ndarray:
            values = _box_muller_blocks(uniforms.reshape(-1, 16), work).ravel()
            if mean != 0.0 or std != 1.0:
                values = fma(values, np.asarray(std, work), np.asarray(mean, work))
            return values.astype(dtype, copy=False)

        data = np.empty(count, dtype=dtype)
        whole = count - count % 16
        drawn = whole if dtype == np.float16 else count
        # In slices that stay in the CPU's cache: the same draws, in the same order.
        for start in range(0, drawn, _FILL_SLICE):
            uniforms = self._uniform((min(_FILL_SLICE, drawn - start),), dtype=work)
            blocks = len(uniforms) - len(uniforms) % 16
            data[start : start + blocks] = normals(uniforms[:blocks])
        if count % 16:
            data[count - 16 :] = normals(self._uniform((16,), dtype=work))
        return data

    def _integers(self, low: int, high: int, shape: tuple[int, ...]) -> np.ndarray:
        """int64 values uniform on [low, high): a draw modulo the range, as PyTorch does.

        A range under 2**28 takes 32-bit draws, a wider one 64-bit draws (which keeps
        the modulo's bias small), as PyTorch 2.13 does.
        """
        span = high - low
        count = math.prod(shape)
        draws = self._random32(count) if span < _NARROW_RANGE else self._random64(count)
        offsets = (draws % np.uint64(span)).astype(np.int64)
        return (offsets + np.int64(low)).reshape(shape)

    def _permutation(self, n: int) -> np.ndarray:
        """0, ..., n - 1 in random order (int64), shuffled as PyTorch shuffles them."""
        if n < _LOW_32 // 20:
            return self._swap_forward(n)
        return self._insert_backward(n)

    def _swap_forward(self, n: int) -> np.ndarray:
        """Fisher-Yates from the front: swap place i with a place in [i, n), by 32-bit draws."""
        if n < 2:
            return np.arange(n, dtype=np.int64)
        remaining = np.arange(n, 1, -1, dtype=np.uint64)
        picks = (self._random32(n - 1) % remaining).astype(np.int64) + np.arange(n - 1)
        return _swaps_applied(np.append(picks, n - 1))

    def _insert_backward(self, n: int) -> np.ndarray:
        """Fisher-Yates inside-out: place i takes a random earlier place's value (64-bit draws)."""
        picks = (self._random64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
        order = list(range(n))
        for i, j in enumerate(picks):
            order[i] = order[j]
            order[j] = i
        return np.array(order, dtype=np.int64)


def _swaps_applied(picks: np.ndarray) -> np.ndarray:
    """0, ..., n - 1 after swapping place k with place picks[k] (>= k) for k = 0, 1, ...

    Without a loop: place k ends with the value its pick held at step k. That is the
    value step s moved there, for s the previous step that picked the same place (or
    the place's own number if none did); and the value step s moved is the one place s
    held when step s reached it, found by following, from s, the steps that wrote into
    each place before it, back to a place nothing wrote into.
    """
    n = len(picks)
    steps = np.arange(n)
    by_place = np.argsort(picks * n + steps)  # grouped by place picked, in step order
    places = picks[by_place]
    repeat = places[1:] == places[:-1]
    earlier_pick = np.full(n, -1)  # the previous step that picked the same place
    earlier_pick[by_place[1:][repeat]] = by_place[:-1][repeat]
    # The last step before k that wrote into place k: the last pick of k, unless that is k.
    group_end = np.append(~repeat, True)
    last_step, place = by_place[group_end], places[group_end]
    writer = np.full(n, -1)
    writer[place] = np.where(last_step == place, earlier_pick[last_step], last_step)
    held = np.where(writer >= 0, writer, steps)  # pointer jumping to the first writer
    while not np.array_equal(jumped := held[held], held):
        held = jumped
    return np.where(earlier_pick >= 0, held[np.maximum(earlier_pick, 0)], picks)


def _box_muller_blocks(uniforms: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Rows of 16 uniforms to rows of 16 normals, in `dtype` (float32 or float64) arithmetic.

    The first 8 give the radius (from 1 - u, in (0, 1]) and the last 8 the angle; the
    cosines go in the first half and the sines in the second. float32 uses PyTorch's
    vectorised single-precision log, sine and cosine; float64 the C library's.
    """
    if dtype == np.float32:
        radius = np.sqrt(np.float32(-2) * log_float32(np.float32(1) - uniforms[:, :8]))
        sin, cos = sincos_float32(np.float32(2.0 * math.pi) * uniforms[:, 8:])
        return np.concatenate([radius * cos, radius * sin], axis=1)
    radius = np.sqrt(-2.0 * libm_log(1.0 - uniforms[:, :8]))
    theta = 2.0 * math.pi * uniforms[:, 8:]
    return np.concatenate([radius * libm_cos(theta), radius * libm_sin(theta)], axis=1)


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
