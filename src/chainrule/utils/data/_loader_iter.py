"""The iterators a DataLoader hands out: one that loads in the main process, and one that
farms batches out to worker processes and hands them back in sampler order.

Note: random numbers are drawn in PyTorch's order. Creating an iterator first draws the
workers' base seed from the loader's generator (or the global one), even with no workers;
the sampler draws its own seed only when its first key is asked for.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import warnings
from typing import TYPE_CHECKING, Any

from ._fetch import make_fetcher
from ._worker import STATUS_CHECK_INTERVAL, ResumeIteration, StreamEnd, WorkerError, worker_loop
from .dataset import IterableDataset
from .sampler import draw_seed

if TYPE_CHECKING:
    from .dataloader import DataLoader


class _BaseDataLoaderIter:
    """What both iterators share: the keys from the sampler, the base seed, and the check
    that an iterable dataset yields no more than the length it reported."""

    def __init__(self, loader: DataLoader[Any]) -> None:
        self._dataset = loader.dataset
        self._is_iterable = isinstance(loader.dataset, IterableDataset)
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as the "
                f"device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=3,
            )
        if loader.pin_memory:
            # Pinned memory only matters for copies to an accelerator; there is none here.
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, "
                "then device pinned memory won't be used.",
                stacklevel=3,
            )
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = draw_seed(loader.generator)
        self._num_yielded = 0
        self._reported_len = loader._IterableDataset_len_called

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def _reset(self, loader: DataLoader[Any], first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._reported_len = loader._IterableDataset_len_called

    def _next_index(self) -> Any:
        return next(self._sampler_iter)

    def _next_data(self) -> Any:
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if (
            self._is_iterable
            and self._reported_len is not None
            and self._num_yielded > self._reported_len
        ):
            message = (
                f"Length of IterableDataset {self._dataset} was reported to be "
                f"{self._reported_len}(when accessing len(dataloader)), but "
                f"{self._num_yielded} samples have been fetched. "
            )
            if self._num_workers > 0:
                message += (
                    "For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                    "for examples."
                )
            warnings.warn(message, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self) -> Any:
        raise NotImplementedError("{} cannot be pickled", type(self).__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Loads each batch in the main process when it is asked for."""

    def __init__(self, loader: DataLoader[Any]) -> None:
        super().__init__(loader)
        self._fetcher = make_fetcher(
            self._dataset, self._auto_collation, self._collate_fn, self._drop_last
        )

    def _next_data(self) -> Any:
        return self._fetcher.fetch(self._next_index())


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Sends each batch's keys to the workers in turn, keeping `prefetch_factor` tasks per
    worker in flight, and returns the batches in the order the sampler made them (or as
    they arrive, with `in_order=False`).

    A task is numbered when sent; `_task_worker` maps each task not yet returned to its
    worker, `_arrived` holds batches that came back before their turn.
    """

    def __init__(self, loader: DataLoader[Any]) -> None:
        super().__init__(loader)
        self._prefetch_factor: int = loader.prefetch_factor or 2
        self._in_order = loader.in_order
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self._result_queue = context.Queue()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        self._owner_pid = os.getpid()
        self._shutdown = False
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            args = (
                self._dataset,
                index_queue,
                self._result_queue,
                self._auto_collation,
                self._collate_fn,
                self._drop_last,
                self._base_seed,
                loader.worker_init_fn,
                worker_id,
                self._num_workers,
            )
            worker = context.Process(target=worker_loop, args=args, daemon=True)
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader[Any], first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker: dict[int, int] = {}
        self._arrived: dict[int, Any] = {}
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for index_queue in self._index_queues:
                index_queue.put(ResumeIteration())
            waiting = self._num_workers
            while waiting:
                task, _ = self._get()
                if isinstance(task, ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        try:
            keys = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._active[worker_id]:
                break
        else:
            return  # every worker's stream has ended
        self._index_queues[worker_id].put((self._send_idx, keys))
        self._task_worker[self._send_idx] = worker_id
        self._send_idx += 1

    def _get(self) -> Any:
        """The next message from the workers; RuntimeError if one died or time ran out."""
        while True:
            wait = self._timeout if self._timeout > 0 else STATUS_CHECK_INTERVAL
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                pass
            dead = [w for i, w in enumerate(self._workers) if self._active[i] and not w.is_alive()]
            if dead:
                pids = ", ".join(str(w.pid) for w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
            if self._timeout > 0:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _skip_unanswerable(self) -> bool:
        """Move `_rcvd_idx` past tasks that will never be answered (already returned out of
        order, or sent to a worker whose stream ended); False when no task is left."""
        while self._rcvd_idx < self._send_idx:
            if self._rcvd_idx in self._arrived:
                return True
            worker_id = self._task_worker.get(self._rcvd_idx)
            if worker_id is not None and self._active[worker_id]:
                return True
            self._task_worker.pop(self._rcvd_idx, None)
            self._rcvd_idx += 1
        return False

    def _next_data(self) -> Any:
        while True:
            if not self._skip_unanswerable():
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if self._rcvd_idx in self._arrived:
                return self._hand_out(self._rcvd_idx, self._arrived.pop(self._rcvd_idx))
            task, data = self._get()
            if isinstance(data, StreamEnd):
                self._active[data.worker_id] = False
                self._try_put_index()
                continue
            if task == self._rcvd_idx or not self._in_order:
                return self._hand_out(task, data)
            self._arrived[task] = data

    def _hand_out(self, task: int, data: Any) -> Any:
        del self._task_worker[task]
        if task == self._rcvd_idx:
            self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, WorkerError):
            data.reraise()
        return data

    def _shutdown_workers(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        for index_queue in self._index_queues:
            index_queue.put(None)
        for worker in self._workers:
            worker.join(timeout=STATUS_CHECK_INTERVAL)
            if worker.is_alive():
                worker.terminate()
        for index_queue in self._index_queues:
            index_queue.close()
        self._result_queue.cancel_join_thread()
        self._result_queue.close()

    def __del__(self) -> None:
        # Note: an iterator caught in a reference cycle is finalized by the garbage
        # collector after its queues' own finalizers have stopped their feeder threads, so
        # a goodbye message would never leave; the workers are stopped directly instead.
        # A forked worker holding a copy of this iterator must not touch the workers.
        if getattr(self, "_shutdown", True) or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        for worker in self._workers:
            if worker.is_alive():
                worker.terminate()
        for worker in self._workers:
            worker.join(timeout=STATUS_CHECK_INTERVAL)
