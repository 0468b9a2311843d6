"""A long training loop keeps memory flat: graphs, saved arrays and optimizer state are
freed or reused each step, nothing accumulates."""

from __future__ import annotations

import gc
import tracemalloc

import chainrule as torch
from chainrule import nn, optim
from chainrule.utils.data import DataLoader, TensorDataset


def _training_loop(steps: int) -> list[int]:
    """Train a small network for `steps` steps; the traced memory after each 100 steps."""
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(256, 20), torch.randint(0, 4, (256,)))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    model = nn.Sequential(
        nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.BatchNorm1d(64), nn.Linear(64, 4)
    )
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.9)
    loss_fn = nn.CrossEntropyLoss()
    memory = []
    step = 0
    while step < steps:
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 100 == 0:
                gc.collect()
                memory.append(tracemalloc.get_traced_memory()[0])
            if step == steps:
                break
    return memory


def test_a_thousand_training_steps_keep_memory_flat() -> None:
    tracemalloc.start()
    try:
        memory = _training_loop(1000)
    finally:
        tracemalloc.stop()
    # After the first steps have made the optimizer state and caches, nothing grows:
    # the last reading is within 64 KiB of the second (a leak of even one small array
    # per step would add far more over 800 steps).
    assert len(memory) == 10
    assert memory[-1] - memory[1] < 64 * 1024, memory
