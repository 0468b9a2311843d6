"""Fetchers: given what the sampler yielded (a key, or a list of keys when batching), read
the samples from the dataset and collate them. The main process and the workers share them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dataset import IterableDataset


class MapFetcher:
    """Reads a map-style dataset by key; a batch through `__getitems__` when there is one."""

    def __init__(
        self, dataset: Any, auto_collation: bool, collate_fn: Callable[..., Any], drop_last: bool
    ) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, keys: Any) -> Any:
        if not self.auto_collation:
            return self.collate_fn(self.dataset[keys])
        if getattr(self.dataset, "__getitems__", None):
            return self.collate_fn(self.dataset.__getitems__(keys))
        return self.collate_fn([self.dataset[k] for k in keys])


class IterableFetcher:
    """Reads the next samples of an iterable dataset; the keys only say how many. Raises
    StopIteration once the stream is exhausted (or, with `drop_last`, cannot fill a batch)."""

    def __init__(
        self, dataset: Any, auto_collation: bool, collate_fn: Callable[..., Any], drop_last: bool
    ) -> None:
        self.stream = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, keys: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        samples = []
        for _ in keys:
            try:
                samples.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(keys)):
            raise StopIteration
        return self.collate_fn(samples)


def make_fetcher(
    dataset: Any, auto_collation: bool, collate_fn: Callable[..., Any], drop_last: bool
) -> MapFetcher | IterableFetcher:
    kind = IterableFetcher if isinstance(dataset, IterableDataset) else MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)
