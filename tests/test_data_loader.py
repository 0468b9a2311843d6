"""chainrule.utils.data.DataLoader: batching, shuffling in PyTorch's order, samplers,
lengths, PyTorch's errors and warnings, and worker processes (seeded as PyTorch seeds
them, results in order, errors carried back)."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.utils import data
from chainrule.utils.data import DataLoader
from data_support import plain


@pytest.fixture(autouse=True)
def _default_stream_untouched() -> Iterator[None]:
    """Each test leaves the default generator as it found it."""
    with chainrule.random.fork_rng():
        yield


class _StreamBody:
    """0, ..., n - 1; in a worker, each worker's own part of it."""

    def __init__(self, n: int, reported: int | None = None) -> None:
        self.n, self.reported = n, reported

    def __iter__(self) -> Iterator[int]:
        info = data.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self) -> int:
        return self.n if self.reported is None else self.reported


class Stream(_StreamBody, data.IterableDataset):  # type: ignore[type-arg]
    pass


def _stream(library: Any, n: int) -> Any:
    """A Stream of `library`'s IterableDataset, so its DataLoader treats it as a stream."""
    if library is chainrule:
        return Stream(n)
    return type("Stream", (_StreamBody, library.utils.data.IterableDataset), {})(n)


class WorkerView(data.Dataset):  # type: ignore[type-arg]
    """Sample i tells which worker of `library`'s DataLoader read it and what the worker's
    generators give."""

    def __init__(self, library: Any = chainrule) -> None:
        self.library = library

    def __len__(self) -> int:
        return 6

    def __getitem__(self, i: int) -> Any:
        info = self.library.utils.data.get_worker_info()
        return (i, info.id, info.seed, self.library.initial_seed(), random.randint(0, 999))


def test_shuffle_recorded() -> None:
    chainrule.manual_seed(0)
    batches = [b.tolist() for b in DataLoader(range(10), batch_size=3, shuffle=True)]
    assert batches == [[6, 7, 1], [4, 2, 0], [9, 8, 3], [5]]
    chainrule.manual_seed(0)
    loader = DataLoader(range(10), batch_size=4, shuffle=True, drop_last=True)
    assert [b.tolist() for b in loader] == [[6, 7, 1, 4], [2, 0, 9, 8]]
    assert [b.tolist() for b in loader] == [[2, 4, 7, 0], [8, 9, 5, 3]]
    g = chainrule.Generator().manual_seed(5)
    loader = DataLoader(range(7), batch_size=2, shuffle=True, generator=g)
    assert [b.tolist() for b in loader] == [[2, 4], [3, 5], [0, 6], [1]]


def test_shuffle_prints_as_torch_does(torch: Any) -> None:
    torch.manual_seed(0)
    theirs = str(list(torch.utils.data.DataLoader(range(10), batch_size=3, shuffle=True)))
    chainrule.manual_seed(0)
    assert str(list(DataLoader(range(10), batch_size=3, shuffle=True))) == theirs


def _tensor_dataset(t: Any) -> Any:
    x = t.arange(20.0).reshape(10, 2)
    return t.utils.data.TensorDataset(x, t.arange(10) % 3)


# Loaders built from a library (chainrule or torch) and a seeded generator.
LOADERS: dict[str, Callable[[Any, Any], Any]] = {
    "plain": lambda t, g: t.utils.data.DataLoader(range(5)),
    "batch_none": lambda t, g: t.utils.data.DataLoader(range(4), batch_size=None),
    "tensors_shuffled": lambda t, g: t.utils.data.DataLoader(
        _tensor_dataset(t), batch_size=4, shuffle=True
    ),
    "tensors_drop_last": lambda t, g: t.utils.data.DataLoader(
        _tensor_dataset(t), batch_size=3, drop_last=True, shuffle=True, generator=g
    ),
    "generator": lambda t, g: t.utils.data.DataLoader(
        range(9), batch_size=2, shuffle=True, generator=g
    ),
    "sampler": lambda t, g: t.utils.data.DataLoader(range(5), sampler=[4, 0, 2], batch_size=2),
    "random_sampler": lambda t, g: t.utils.data.DataLoader(
        range(8), sampler=t.utils.data.RandomSampler(range(8), True, 11), batch_size=3
    ),
    "batch_sampler": lambda t, g: t.utils.data.DataLoader(
        range(10), batch_sampler=t.utils.data.BatchSampler(range(10), 4, True)
    ),
    "collate_fn": lambda t, g: t.utils.data.DataLoader(
        range(5), batch_size=2, collate_fn=lambda b: sum(b)
    ),
    "dicts": lambda t, g: t.utils.data.DataLoader(
        [{"a": i, "b": float(i)} for i in range(5)], batch_size=2, shuffle=True
    ),
    "iterable": lambda t, g: t.utils.data.DataLoader(_stream(t, 5), batch_size=2),
    "iterable_drop_last": lambda t, g: t.utils.data.DataLoader(
        _stream(t, 5), batch_size=2, drop_last=True
    ),
    "iterable_unbatched": lambda t, g: t.utils.data.DataLoader(_stream(t, 3), batch_size=None),
}


def _epochs(library: Any, name: str, seed: int) -> tuple[Any, Any, int]:
    """Two epochs over the loader, and its length."""
    library.manual_seed(seed)
    loader = LOADERS[name](library, library.Generator().manual_seed(seed + 1))
    return plain(list(loader)), plain(list(loader)), len(loader)


@pytest.mark.parametrize("name", LOADERS)
@pytest.mark.parametrize("seed", [0, 7])
def test_loader_matches_torch(torch: Any, name: str, seed: int) -> None:
    assert _epochs(chainrule, name, seed) == _epochs(torch, name, seed)


def test_loader_draws_as_torch_does(torch: Any) -> None:
    """Each iterator draws a base seed even without workers; the global stream after an
    epoch is where PyTorch's is."""
    for library in (chainrule, torch):
        library.manual_seed(4)
        list(library.utils.data.DataLoader(range(6), batch_size=4, shuffle=True))
        list(library.utils.data.DataLoader(range(6), batch_size=4))
    assert chainrule.rand(3).tolist() == torch.rand(3).tolist()


def test_lengths() -> None:
    assert len(DataLoader(range(10), batch_size=3)) == 4
    assert len(DataLoader(range(10), batch_size=3, drop_last=True)) == 3
    assert len(DataLoader(range(10), batch_size=None)) == 10
    assert len(DataLoader(Stream(7), batch_size=2)) == 4
    assert len(DataLoader(Stream(7), batch_size=2, drop_last=True)) == 3
    assert len(DataLoader(Stream(7), batch_size=None)) == 7
    with pytest.raises(TypeError, match="has no len"):
        len(DataLoader(range(3), sampler=iter([0, 1])))


def test_iterable_dataset_longer_than_reported() -> None:
    loader = DataLoader(Stream(3, reported=2), batch_size=1)
    assert len(loader) == 2
    with pytest.warns(
        UserWarning,
        match=(
            r"was reported to be 2\(when accessing "
            r"len\(dataloader\)\), but 3 samples have been fetched. $"
        ),
    ):
        assert [b.tolist() for b in loader] == [[0], [1], [2]]


def test_pin_memory_is_accepted() -> None:
    with pytest.warns(
        UserWarning, match=r"^'pin_memory' argument is set as true but no accelerator"
    ):
        assert [b.tolist() for b in DataLoader(range(3), batch_size=2, pin_memory=True)] == [
            [0, 1],
            [2],
        ]


LOADER_ERRORS: list[tuple[Callable[[Any], Any], type[Exception], str]] = [
    (
        lambda d: d.utils.data.DataLoader(range(3), batch_size=0),
        ValueError,
        "batch_size should be a positive integer value, but got batch_size=0",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), sampler=[0, 1], shuffle=True),
        ValueError,
        "sampler option is mutually exclusive with shuffle",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), batch_sampler=[[0]], batch_size=2),
        ValueError,
        "batch_sampler option is mutually exclusive with "
        "batch_size, shuffle, sampler, and drop_last",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), batch_size=None, drop_last=True),
        ValueError,
        "batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), num_workers=-1),
        ValueError,
        "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), timeout=-1),
        ValueError,
        "timeout option should be non-negative",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), prefetch_factor=2),
        ValueError,
        "prefetch_factor option could only be specified in multiprocessing.let num_workers > "
        "0 to enable multiprocessing, otherwise set prefetch_factor to None.",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), num_workers=1, prefetch_factor=-1),
        ValueError,
        "prefetch_factor option should be non-negative",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), persistent_workers=True),
        ValueError,
        "persistent_workers option needs num_workers > 0",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), multiprocessing_context="fork"),
        ValueError,
        "multiprocessing_context can only be used with multi-process "
        "loading (num_workers > 0), but got num_workers=0",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), num_workers=1, multiprocessing_context=3),
        TypeError,
        "multiprocessing_context option should be a valid context object or a string "
        "specifying the start method, but got multiprocessing_context=3",
    ),
    (
        lambda d: d.utils.data.DataLoader(_stream(d, 2), shuffle=True),
        ValueError,
        "DataLoader with IterableDataset: expected unspecified "
        "shuffle option, but got shuffle=True",
    ),
    (
        lambda d: d.utils.data.DataLoader(_stream(d, 2), sampler=[0]),
        ValueError,
        "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=[0]",
    ),
    (
        lambda d: d.utils.data.DataLoader(_stream(d, 2), batch_sampler=[[0]]),
        ValueError,
        "DataLoader with IterableDataset: expected unspecified "
        "batch_sampler option, but got batch_sampler=[[0]]",
    ),
    (
        lambda d: d.utils.data.DataLoader(range(3), drop_last=1),
        ValueError,
        "drop_last should be a boolean value, but got drop_last=1",
    ),
    (
        lambda d: setattr(d.utils.data.DataLoader(range(3)), "batch_size", 3),
        ValueError,
        "batch_size attribute should not be set after DataLoader is initialized",
    ),
]


@pytest.mark.parametrize(("make", "error", "message"), LOADER_ERRORS)
def test_loader_errors(make: Callable[[Any], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        make(chainrule)
    assert str(info.value) == message


def test_loader_errors_match_torch(torch: Any) -> None:
    for make, error, message in LOADER_ERRORS:
        with pytest.raises(error) as info:
            make(torch)
        assert str(info.value) == message


# --- worker processes (each test starts two; kept few and small) -------------------------


def _record_worker(worker_id: int) -> None:
    info = data.get_worker_info()
    assert info is not None and info.id == worker_id and info.num_workers == 2


def test_workers_shuffle_in_order_and_seeded() -> None:
    chainrule.manual_seed(7)
    loader = DataLoader(
        WorkerView(), batch_size=2, shuffle=True, num_workers=2, worker_init_fn=_record_worker
    )
    batches = [[row.tolist() for row in batch] for batch in loader]
    indices = [i for batch in batches for i in batch[0]]
    chainrule.manual_seed(7)
    assert [b.tolist() for b in DataLoader(range(6), batch_size=2, shuffle=True)] == [
        indices[0:2],
        indices[2:4],
        indices[4:6],
    ]
    assert [batch[1] for batch in batches] == [[0, 0], [1, 1], [0, 0]]  # round robin
    seeds = {
        worker: seed for batch in batches for worker, seed in zip(batch[1], batch[2], strict=True)
    }
    assert seeds[1] == seeds[0] + 1
    # torch.initial_seed() inside a worker is the seed get_worker_info() reports.
    assert [batch[3] for batch in batches] == [batch[2] for batch in batches]
    assert data.get_worker_info() is None


def test_workers_match_torch(torch: Any) -> None:
    def run(library: Any) -> list[Any]:
        library.manual_seed(11)
        loader = library.utils.data.DataLoader(WorkerView(library), batch_size=2, num_workers=2)
        return plain(list(loader))

    assert run(chainrule) == run(torch)


def test_workers_iterable_and_persistent() -> None:
    loader = DataLoader(Stream(5), batch_size=2, num_workers=2, persistent_workers=True)
    # Worker 0 streams 0, 2, 4 and worker 1 streams 1, 3; batches alternate between them.
    expected = [[0, 2], [1, 3], [4]]
    assert [b.tolist() for b in loader] == expected
    assert [b.tolist() for b in loader] == expected


class Failing(data.Dataset):  # type: ignore[type-arg]
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        if i == 3:
            raise ValueError("bad three")
        return i


def test_worker_errors_reach_the_main_process() -> None:
    loader = DataLoader(Failing(), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as info:
        list(loader)
    lines = str(info.value).splitlines()
    assert lines[0] == "Caught ValueError in DataLoader worker process 1."
    assert lines[1] == "Original Traceback (most recent call last):"
    assert lines[-1] == "ValueError: bad three"


def test_worker_numpy_seed() -> None:
    """NumPy's global generator in a worker is seeded from the base seed as PyTorch seeds it."""

    class Draws(data.Dataset):  # type: ignore[type-arg]
        def __len__(self) -> int:
            return 2

        def __getitem__(self, i: int) -> Any:
            info = data.get_worker_info()
            base = info.seed - info.id
            entropy = [info.id, base & 0xFFFFFFFF, base >> 32, 0]
            expected = np.random.RandomState(
                np.random.SeedSequence(entropy).generate_state(4)
            ).randint(1000)
            return np.random.randint(1000) == expected

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [b.item() for b in DataLoader(Draws(), num_workers=2)] == [True, True]
