"""Writes the files tests/test_serialization_files.py loads: checkpoints saved by real PyTorch.

Run from the repository root with PyTorch installed: `python tests/data/make_torch_files.py`.
The values are small and fixed, so the tests can state them without PyTorch.
"""

from __future__ import annotations

from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def main() -> None:
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    layer = torch.nn.Linear(3, 2)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
        layer.bias.copy_(torch.tensor([0.125, -2.0]))
    tensors = {
        "base": base,
        "transposed": base.t(),  # a view: shares base's storage
        "row": base[1],  # a view at an offset
        "strided": base[:, ::2],  # non-contiguous
        "float64": torch.tensor([1.5, -2.25], dtype=torch.float64),
        "float16": torch.tensor([0.5, 65504.0], dtype=torch.float16),
        "int8": torch.tensor([-128, 127], dtype=torch.int8),
        "int16": torch.tensor([-300, 300], dtype=torch.int16),
        "int32": torch.tensor([-70000, 70000], dtype=torch.int32),
        "int64": torch.tensor([-(2**40), 2**40], dtype=torch.int64),
        "uint8": torch.tensor([0, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False]),
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 3),
        "requires_grad": torch.tensor([1.0, 2.0], requires_grad=True),
        "parameter": torch.nn.Parameter(torch.tensor([0.75, -0.5])),
        "nested": [torch.tensor([1, 2]), (torch.tensor([3.0]), {"k": torch.tensor([True])})],
        "size": torch.Size([2, 3]),
        "dtype": torch.float64,
        "plain": {"int": 7, "float": 2.5, "str": "text", "none": None, "tuple": (1, 2)},
    }
    torch.save(tensors, HERE / "torch_tensors.pt")
    # A module's own state_dict: an OrderedDict carrying `_metadata` (pickle's BUILD).
    torch.save(layer.state_dict(), HERE / "torch_state_dict.pt")


if __name__ == "__main__":
    main()
