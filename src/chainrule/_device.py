"""device: where a tensor lives (chainrule computes on the CPU only), as `torch.device`."""

from __future__ import annotations

__all__ = ["CPU", "device"]


class device:
    """Where a tensor lives. chainrule computes on the CPU only."""

    __slots__ = ("index", "type")

    def __init__(self, type: str = "cpu", index: int | None = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        kind, _, idx = str(type).partition(":")
        if kind != "cpu":
            raise RuntimeError(f"chainrule runs on the CPU only; device '{type}' is not available")
        self.type = kind
        self.index = int(idx) if idx else index

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and other.type == self.type

    def __hash__(self) -> int:
        return hash(self.type)


CPU = device("cpu")
