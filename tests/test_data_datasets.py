"""chainrule.utils.data's datasets, random_split and samplers: what they hold, the orders
the random ones draw (PyTorch's, for the same seed), and PyTorch's errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import chainrule
from chainrule.utils import data


@pytest.fixture(autouse=True)
def _default_stream_untouched() -> Iterator[None]:
    """Each test leaves the default generator as it found it."""
    with chainrule.random.fork_rng():
        yield


class Stream(data.IterableDataset):  # type: ignore[type-arg]
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.n))

    def __len__(self) -> int:
        return self.n


class Squares(data.Dataset):  # type: ignore[type-arg]
    def __getitem__(self, i: int) -> int:
        return i * i

    def __len__(self) -> int:
        return 5


def test_tensor_dataset() -> None:
    x = chainrule.arange(6.0).reshape(3, 2)
    y = chainrule.tensor([7, 8, 9])
    ds = data.TensorDataset(x, y)
    assert len(ds) == 3
    row, label = ds[1]
    assert row.tolist() == [2.0, 3.0] and label.item() == 8
    assert [t.tolist() for t in ds[[0, 2]]] == [[[0.0, 1.0], [4.0, 5.0]], [7, 9]]
    with pytest.raises(AssertionError, match=r"^Size mismatch between tensors$"):
        data.TensorDataset(x, chainrule.zeros(4))


def test_concat_dataset_and_add() -> None:
    both = Squares() + data.Subset(Squares(), [4, 1])
    assert isinstance(both, data.ConcatDataset)
    assert both.cumulative_sizes == [5, 7]
    assert [both[i] for i in range(len(both))] == [0, 1, 4, 9, 16, 16, 1]
    assert both[-1] == 1 and both[-7] == 0
    with pytest.raises(ValueError, match=r"^absolute value of index should not exceed"):
        both[-8]
    with pytest.raises(AssertionError, match=r"^datasets should not be an empty iterable$"):
        data.ConcatDataset([])
    with pytest.raises(AssertionError, match=r"^ConcatDataset does not support IterableDataset$"):
        data.ConcatDataset([Stream(2)])


def test_chain_dataset() -> None:
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, data.ChainDataset)
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(AssertionError, match=r"^ChainDataset only supports IterableDataset$"):
        list(data.ChainDataset([Squares()]))


def test_stack_dataset() -> None:
    pairs = data.StackDataset(Squares(), range(5))
    assert pairs[2] == (4, 2) and len(pairs) == 5
    assert pairs.__getitems__([1, 3]) == [(1, 1), (9, 3)]
    named = data.StackDataset(sq=Squares(), i=range(5))
    assert named[3] == {"sq": 9, "i": 3}
    assert named.__getitems__([0, 4]) == [{"sq": 0, "i": 0}, {"sq": 16, "i": 4}]
    with pytest.raises(ValueError, match=r"^Size mismatch between datasets$"):
        data.StackDataset(Squares(), range(4))
    with pytest.raises(ValueError, match=r"^At least one dataset should be passed$"):
        data.StackDataset()


def test_subset() -> None:
    sub = data.Subset(Squares(), [4, 0, 2])
    assert len(sub) == 3 and list(sub) == [16, 0, 4]
    assert sub.__getitems__([0, 2]) == [16, 4]

    class Doubled(data.Subset):  # type: ignore[type-arg]
        def __getitem__(self, idx: Any) -> Any:
            return 2 * super().__getitem__(idx)

    with pytest.raises(NotImplementedError, match=r"^Doubled overrides __getitem__ but not"):
        Doubled(Squares(), [1])


def test_dataset_base_class() -> None:
    with pytest.raises(NotImplementedError, match=r"^Subclasses of Dataset should implement"):
        data.Dataset()[0]


# Recorded from PyTorch 2.13 (the same draws chainrule makes).
def test_random_split_recorded() -> None:
    g = chainrule.Generator().manual_seed(42)
    assert [list(s) for s in data.random_split(range(10), [3, 7], generator=g)] == [
        [2, 6, 1],
        [8, 4, 5, 0, 9, 3, 7],
    ]
    g = chainrule.Generator().manual_seed(42)
    assert [list(s) for s in data.random_split(range(11), [0.3, 0.3, 0.4], generator=g)] == [
        [6, 8, 9, 2],
        [1, 10, 0],
        [7, 3, 5, 4],
    ]
    chainrule.manual_seed(3)
    assert [list(s) for s in data.random_split(range(5), [2, 3])] == [[1, 0], [3, 4, 2]]


def test_random_split_fractions_and_errors() -> None:
    with pytest.warns(UserWarning, match=r"^Length of split at index 1 is 0. This might"):
        parts = data.random_split(range(3), [0.1, 0.1, 0.8])
    assert [len(p) for p in parts] == [1, 0, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [len(p) for p in data.random_split(range(10), [0.25, 0.75])] == [3, 7]
    with pytest.raises(ValueError, match=r"^Sum of input lengths does not equal the length"):
        data.random_split(range(10), [3, 6])
    with pytest.raises(ValueError, match=r"^Fraction at index 1 is not between 0 and 1$"):
        data.random_split(range(10), [0.5, -0.5, 1.0])
    with pytest.raises(TypeError):  # lengths that are floats but not fractions
        data.random_split(range(10), [3.0, 7.0])


SPLITS: list[tuple[int, list[Any], int]] = [
    (10, [3, 7], 0),
    (11, [0.3, 0.3, 0.4], 1),
    (7, [0.5, 0.5], 2),
    (2, [0.2, 0.8], 3),
    (20, [0.1, 0.2, 0.3, 0.4], 4),
]


@pytest.mark.parametrize(("n", "lengths", "seed"), SPLITS)
def test_random_split_matches_torch(torch: Any, n: int, lengths: list[Any], seed: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.utils.data.random_split(
            range(n), lengths, generator=torch.Generator().manual_seed(seed)
        )
        ours = data.random_split(
            range(n), lengths, generator=chainrule.Generator().manual_seed(seed)
        )
        torch.manual_seed(seed)
        theirs_default = torch.utils.data.random_split(range(n), lengths)
        chainrule.manual_seed(seed)
        ours_default = data.random_split(range(n), lengths)
    assert [list(s) for s in ours] == [list(s) for s in theirs]
    assert [list(s) for s in ours_default] == [list(s) for s in theirs_default]


# Each sampler built from a library and a seeded generator (None: the global one).
SAMPLERS: dict[str, Callable[[Any, Any], Any]] = {
    "sequential": lambda t, g: t.utils.data.SequentialSampler(range(5)),
    "random": lambda t, g: t.utils.data.RandomSampler(range(10), generator=g),
    "random_default": lambda t, g: t.utils.data.RandomSampler(range(10)),
    "random_more": lambda t, g: t.utils.data.RandomSampler(range(5), num_samples=12),
    "random_fewer": lambda t, g: t.utils.data.RandomSampler(range(9), num_samples=4, generator=g),
    "replacement_70": lambda t, g: t.utils.data.RandomSampler(
        range(5), replacement=True, num_samples=70
    ),
    "replacement": lambda t, g: t.utils.data.RandomSampler(range(6), True, generator=g),
    "subset": lambda t, g: t.utils.data.SubsetRandomSampler([10, 20, 30, 40], generator=g),
    "subset_default": lambda t, g: t.utils.data.SubsetRandomSampler([1, 3, 5]),
    "batch": lambda t, g: t.utils.data.BatchSampler(range(10), 3, False),
    "batch_drop": lambda t, g: t.utils.data.BatchSampler(range(10), 3, True),
    "batch_random": lambda t, g: t.utils.data.BatchSampler(
        t.utils.data.RandomSampler(range(7), generator=g), 2, False
    ),
}


def _run(library: Any, name: str, seed: int) -> tuple[list[Any], list[Any], int]:
    """Two passes over the sampler, and its length."""
    library.manual_seed(seed)
    sampler = SAMPLERS[name](library, library.Generator().manual_seed(seed + 100))
    return list(sampler), list(sampler), len(sampler)


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize("seed", [0, 5])
def test_samplers_match_torch(torch: Any, name: str, seed: int) -> None:
    assert _run(chainrule, name, seed) == _run(torch, name, seed)


def test_samplers_recorded() -> None:
    chainrule.manual_seed(1)
    assert list(data.RandomSampler(range(5), replacement=True, num_samples=70)) == [
        *[1, 2, 0, 4, 1, 4, 0, 0, 4, 1, 2, 1, 4, 3, 0, 2, 4, 2, 1, 4, 2, 3, 3, 0, 3, 1, 1, 3],
        *[2, 1, 1, 4, 0, 3, 1, 3, 2, 4, 3, 0, 0, 0, 1, 3, 0, 3, 4, 2, 1, 2, 4, 4, 0, 0, 2, 1],
        *[2, 1, 1, 2, 3, 0, 0, 2, 0, 1, 4, 4, 4, 3],
    ]
    assert list(data.RandomSampler(range(5), num_samples=12)) == [
        4,
        1,
        3,
        0,
        2,
        4,
        1,
        3,
        0,
        2,
        4,
        3,
    ]
    assert list(data.SubsetRandomSampler([10, 20, 30, 40])) == [40, 30, 10, 20]
    assert list(data.BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(data.BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(data.BatchSampler(range(7), 3, False)) == 3
    assert len(data.BatchSampler(range(7), 3, True)) == 2


def test_weighted_sampler_recorded() -> None:
    g = chainrule.Generator().manual_seed(0)
    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    sampler = data.WeightedRandomSampler(weights, 8, generator=g)
    drawn = list(sampler)
    assert len(drawn) == len(sampler) == 8 and all(0 <= i < 6 for i in drawn)
    assert sampler.weights.dtype == chainrule.float64
    unique = list(data.WeightedRandomSampler(weights, 6, replacement=False, generator=g))
    assert sorted(unique) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("seed", [0, 3])
def test_weighted_sampler_matches_torch(torch: Any, replacement: bool, seed: int) -> None:
    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]

    def run(library: Any) -> list[list[int]]:
        library.manual_seed(seed)
        sampler = library.utils.data.WeightedRandomSampler(weights, 5, replacement)
        return [list(sampler), list(sampler)]

    assert run(chainrule) == run(torch)


SAMPLER_ERRORS: list[tuple[Callable[[Any], Any], type[Exception], str]] = [
    (
        lambda d: d.RandomSampler(range(3), replacement=1),
        TypeError,
        "replacement should be a boolean value, but got replacement=1",
    ),
    (
        lambda d: d.RandomSampler(range(3), num_samples=0),
        ValueError,
        "num_samples should be a positive integer value, but got num_samples=0",
    ),
    (
        lambda d: d.RandomSampler([]),
        ValueError,
        "num_samples should be a positive integer value, but got num_samples=0",
    ),
    (
        lambda d: d.WeightedRandomSampler([1.0], True),
        ValueError,
        "num_samples should be a positive integer value, but got num_samples=True",
    ),
    (
        lambda d: d.WeightedRandomSampler([1.0], 1, replacement=0),
        ValueError,
        "replacement should be a boolean value, but got replacement=0",
    ),
    (
        lambda d: d.WeightedRandomSampler([[1.0]], 1),
        ValueError,
        "weights should be a 1d sequence but given weights have shape (1, 1)",
    ),
    (
        lambda d: d.BatchSampler(range(3), 0, False),
        ValueError,
        "batch_size should be a positive integer value, but got batch_size=0",
    ),
    (
        lambda d: d.BatchSampler(range(3), 2.0, False),
        ValueError,
        "batch_size should be a positive integer value, but got batch_size=2.0",
    ),
    (
        lambda d: d.BatchSampler(range(3), 2, 1),
        ValueError,
        "drop_last should be a boolean value, but got drop_last=1",
    ),
    (lambda d: len(d.Sampler()), TypeError, "object of type 'Sampler' has no len()"),
]


@pytest.mark.parametrize(("make", "error", "message"), SAMPLER_ERRORS)
def test_sampler_errors(make: Callable[[Any], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        make(data)
    assert str(info.value) == message


def test_sampler_errors_match_torch(torch: Any) -> None:
    for make, error, message in SAMPLER_ERRORS:
        with pytest.raises(error) as info:
            make(torch.utils.data)
        assert str(info.value) == message
