"""Tensor layouts: how a tensor's elements are stored. A chainrule tensor is always dense
and strided (a NumPy array), so `strided` is the one layout there is."""

from __future__ import annotations

__all__ = ["layout", "strided"]


class layout:
    """A storage layout, printed by its name as PyTorch prints `torch.strided`."""

    __slots__ = ("name",)
    __module__ = "chainrule"  # printed as `chainrule.layout`, as PyTorch's `torch.layout`

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"chainrule.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # pickled by reference to the module's own object


strided = layout("strided")
