"""Datasets: the map-style `Dataset` (index -> sample), the stream-style `IterableDataset`,
and the ways to build one from others (tensors, concatenation, chaining, stacking, subsets,
`random_split`)."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from ..._random_factories import randperm
from ..._tensor import Tensor
from ...random import Generator, default_generator

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "StackDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map from keys (usually 0, ..., len - 1) to samples: subclasses define `__getitem__`
    and, for the default samplers, `__len__`. A subclass may add `__getitems__(indices)`
    to fetch a whole batch at once."""

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses define `__iter__`. With worker processes every
    worker iterates its own copy, so a subclass splits the work with `get_worker_info()`."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Sample `i` is the tuple of row `i` of each tensor; all share their first dimension."""

    tensors: tuple[Tensor, ...]

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].size(0))


def _same_length(datasets: Sequence[Any]) -> int:
    length = len(datasets[0])
    if any(len(d) != length for d in datasets):
        raise ValueError("Size mismatch between datasets")
    return length


def _checked_batch(dataset: Any, indices: list[Any]) -> list[Any]:
    """`dataset`'s samples at `indices`, through its `__getitems__` when it has one."""
    if not callable(getattr(dataset, "__getitems__", None)):
        return [dataset[i] for i in indices]
    items = dataset.__getitems__(indices)
    if len(items) != len(indices):
        raise ValueError(
            f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}"
        )
    return list(items)


class StackDataset(Dataset[Any]):
    """Sample `i` gathers sample `i` of every dataset: a tuple for `StackDataset(a, b)`,
    a dict for `StackDataset(x=a, y=b)`."""

    datasets: tuple[Any, ...] | dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or"
                "``dict``- (via ``kwargs``) like input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self._length = _same_length(args or list(kwargs.values()))
        self.datasets = args or kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {key: d[index] for key, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        if isinstance(self.datasets, dict):
            columns = {key: _checked_batch(d, indices) for key, d in self.datasets.items()}
            return [{key: col[j] for key, col in columns.items()} for j in range(len(indices))]
        rows = zip(*(_checked_batch(d, indices) for d in self.datasets), strict=True)
        return [tuple(row) for row in rows]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """The datasets one after another; `cumulative_sizes[k]` is where dataset `k` ends."""

    datasets: list[Dataset[T_co]]
    cumulative_sizes: list[int]

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset[Any]):
    """Iterable datasets one after another, chained as they are iterated."""

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = datasets

    def _members(self) -> Iterator[IterableDataset[Any]]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self) -> Iterator[Any]:
        for d in self._members():
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self._members())  # type: ignore[arg-type, misc]


class Subset(Dataset[T_co]):
    """The samples of `dataset` at `indices`, in that order."""

    dataset: Dataset[T_co]
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        wanted = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(wanted)  # type: ignore[attr-defined]
        return [self.dataset[i] for i in wanted]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(total: int, fractions: Sequence[float]) -> list[int]:
    """Each split gets floor(fraction * total); what is left goes one by one, round robin."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * frac))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(
                f"Length of split at index {i} is 0. This might result in an empty dataset.",
                stacklevel=3,
            )
    return lengths


def random_split(
    dataset: Dataset[T],
    lengths: Sequence[int | float],
    generator: Generator | None = default_generator,
) -> list[Subset[T]]:
    """Split `dataset` into non-overlapping random subsets of the given lengths, or of the
    given fractions of its length when `lengths` sums to 1."""
    total = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(total, lengths)
    if sum(lengths) != total:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    # Lengths that are floats but not fractions fail here, as in PyTorch: a TypeError.
    indices = randperm(sum(lengths), generator=generator).tolist()  # type: ignore[arg-type]
    ends = itertools.accumulate(lengths)
    return [
        Subset(dataset, indices[int(end - n) : int(end)])
        for end, n in zip(ends, lengths, strict=True)
    ]
