"""Samplers: the order in which a `DataLoader` visits a map-style dataset's keys, and
`BatchSampler`, which groups those keys into batches.

The random samplers draw exactly as PyTorch's do, so the same seed gives the same order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

from ..._creation import as_tensor, empty
from ..._dtype import float64, int64
from ..._random_distributions import multinomial
from ..._random_factories import randint, randperm
from ..._tensor import Tensor
from ...random import Generator

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)

# RandomSampler with replacement asks for this many indices per draw, so its stream
# (and so its order for a given seed) is PyTorch's.
_REPLACEMENT_CHUNK = 32


def draw_seed(generator: Generator | None = None) -> int:
    """A fresh 63-bit seed from `generator` (default: the global one), drawn as PyTorch
    draws one: a scalar int64 tensor's `random_()`."""
    return int(empty((), dtype=int64).random_(generator=generator).item())


class Sampler(Generic[T_co]):
    """Yields dataset keys (or, for a batch sampler, lists of keys). A subclass defines
    `__iter__` and, when it knows its length, `__len__`; there is deliberately no default
    `__len__`, so `len()` of a sampler that cannot know raises TypeError."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    data_source: Sized

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """The keys in random order: whole permutations (the last one cut to `num_samples`),
    or, with `replacement=True`, `num_samples` independent uniform draws.

    Without a `generator`, each iteration seeds a private generator from the global one,
    so that re-seeding the global generator replays the order.
    """

    data_source: Sized
    replacement: bool

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, "
                f"but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        # Read at each use: the dataset may grow or shrink between epochs.
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator()
            generator.manual_seed(draw_seed())
        count = self.num_samples
        if self.replacement:
            for _ in range(count // _REPLACEMENT_CHUNK):
                yield from randint(n, (_REPLACEMENT_CHUNK,), generator=generator).tolist()
            yield from randint(n, (count % _REPLACEMENT_CHUNK,), generator=generator).tolist()
        else:
            for _ in range(count // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[: count % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given keys, in random order."""

    indices: Sequence[int]

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


def _is_positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` keys in 0, ..., len(weights) - 1, key `i` drawn with probability
    proportional to `weights[i]` (`torch.multinomial`)."""

    weights: Tensor
    num_samples: int
    replacement: bool

    def __init__(
        self,
        weights: Sequence[float] | Tensor,
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if not _is_positive_int(num_samples):
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = as_tensor(weights, dtype=float64)
        if weights_tensor.dim() != 1:
            raise ValueError(
                "weights should be a 1d sequence but given "
                f"weights have shape {tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the keys `sampler` yields into lists of `batch_size`; the last, shorter list
    is kept unless `drop_last`."""

    def __init__(
        self, sampler: Sampler[Any] | Iterable[Any], batch_size: int, drop_last: bool
    ) -> None:
        if not _is_positive_int(batch_size):
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        keys = iter(self.sampler)
        while batch := list(itertools.islice(keys, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
