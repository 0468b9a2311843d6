"""Feeding data to a model (`torch.utils.data`): datasets, samplers, `DataLoader`, and the
collate functions that turn samples into batches.

`dataset.py` holds the datasets and `random_split`, `sampler.py` the samplers,
`dataloader.py` the loader; `_collate.py` merges samples, `_fetch.py` reads them,
`_loader_iter.py` iterates (in the main process or through workers) and `_worker.py` is
what runs in a worker process.
"""

from __future__ import annotations

from ._collate import default_collate, default_convert
from ._worker import get_worker_info
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
