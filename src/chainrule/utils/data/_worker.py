"""What runs inside a DataLoader worker process: seeding, `get_worker_info()`, and the loop
that reads tasks from its index queue and sends collated batches (or errors) back.

Messages on a worker's index queue: `(task_index, keys)` to fetch, `ResumeIteration()` to
start a new epoch (persistent workers), `None` to exit. On the result queue: `(task_index,
batch | WorkerError | StreamEnd)`, and `(ResumeIteration(), None)` to acknowledge a resume.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...random import manual_seed
from ._fetch import IterableFetcher, make_fetcher

__all__ = ["WorkerInfo", "get_worker_info"]

# How often (seconds) a waiting worker checks that its parent is still alive.
STATUS_CHECK_INTERVAL = 5.0


@dataclass(frozen=True)
class WorkerInfo:
    """Who this worker is: its `id` in 0, ..., `num_workers` - 1, the `seed` its random
    generators were seeded with, and its own copy of the `dataset`."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's `WorkerInfo` inside a DataLoader worker process; None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class StreamEnd:
    """An iterable dataset's copy in worker `worker_id` has no more samples."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Start a new epoch with the same worker (persistent workers)."""


class WorkerError:
    """An exception raised in a worker, carried to the main process and raised there again
    with the worker's traceback in its message."""

    def __init__(self, where: str) -> None:
        self.exc_type = _current_exception_type()
        self.message = (
            f"Caught {self.exc_type.__name__} {where}.\nOriginal {traceback.format_exc()}"
        )

    def reraise(self) -> None:
        message = self.message
        if self.exc_type is KeyError:
            # KeyError shows its argument's repr; a message is clearer shown as it is.
            message = KeyErrorMessage(message)
        try:
            error = self.exc_type(message)
        except Exception:
            # A type whose constructor wants other arguments: say what happened anyway.
            raise RuntimeError(message) from None
        raise error


class KeyErrorMessage(str):
    """A string whose repr is itself, so a KeyError built from it prints it unquoted."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def _current_exception_type() -> type[BaseException]:
    kind = sys.exc_info()[0]
    return kind if kind is not None else RuntimeError


def numpy_seed_state(base_seed: int, worker_id: int) -> list[int]:
    """The four words NumPy's global generator is seeded with in a worker: NumPy's own
    SeedSequence hash of (worker id, low and high halves of the base seed)."""
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return [int(word) for word in np.random.SeedSequence(entropy).generate_state(4)]


def seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed Python's, chainrule's and NumPy's generators as PyTorch seeds a worker's."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(numpy_seed_state(base_seed, worker_id))
    return seed


def _parent_alive(parent_pid: int) -> bool:
    return os.getppid() == parent_pid


def worker_loop(
    dataset: Any,
    index_queue: Any,
    result_queue: Any,
    auto_collation: bool,
    collate_fn: Callable[..., Any],
    drop_last: bool,
    base_seed: int,
    init_fn: Callable[[int], None] | None,
    worker_id: int,
    num_workers: int,
) -> None:
    """The body of worker process `worker_id`; returns when told to (or when its parent dies)."""
    global _worker_info
    parent_pid = os.getppid()
    seed = seed_worker(base_seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"
    # A failing init_fn is reported as the answer to the first task, as PyTorch does.
    init_error: WorkerError | None = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = WorkerError(where)
    stream_ended = False
    try:
        while _parent_alive(parent_pid):
            try:
                message = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if message is None:
                # Shutting down: what is still queued for the main process is not wanted.
                result_queue.cancel_join_thread()
                break
            if isinstance(message, ResumeIteration):
                result_queue.put((message, None))
                stream_ended = False
                fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
                continue
            if stream_ended:
                continue
            task, keys = message
            answer: Any
            if init_error is not None:
                answer, init_error = init_error, None
            else:
                try:
                    answer = fetcher.fetch(keys)
                except StopIteration:
                    if not isinstance(fetcher, IterableFetcher):
                        answer = WorkerError(where)
                    else:
                        answer, stream_ended = StreamEnd(worker_id), True
                except Exception:
                    answer = WorkerError(where)
            result_queue.put((task, answer))
    except KeyboardInterrupt:
        pass  # the main process was interrupted too; it shuts the workers down
