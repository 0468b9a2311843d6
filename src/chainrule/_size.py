"""Size: the tuple subclass that `Tensor.shape` and `Tensor.size()` return."""

from __future__ import annotations

import math


class Size(tuple[int, ...]):
    """A tensor's shape; prints as `chainrule.Size([2, 3])`."""

    __slots__ = ()

    def numel(self) -> int:
        return math.prod(self)

    def __repr__(self) -> str:
        return f"chainrule.Size([{', '.join(map(str, self))}])"

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))
