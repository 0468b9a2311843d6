"""Names for a drawing's tensors: `t.name`, a `names=` mapping, or `names_from(locals())`.
A name given in `names=` wins over `t.name`; in a mapping, a tensor's first name wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._tensor import Tensor

__all__ = ["NameTable", "names_from"]


def names_from(mapping: Mapping[str, Any]) -> dict[str, Tensor]:
    """The tensors of `mapping` (e.g. `locals()`) by name, ready for a `names=` argument.

    Entries that are not tensors, and private names (`_x`), are left out.
    """
    return {
        key: value
        for key, value in mapping.items()
        if isinstance(key, str) and not key.startswith("_") and isinstance(value, Tensor)
    }


class NameTable:
    """Looks up the name of a leaf tensor, or of an op node's output, for one drawing."""

    def __init__(self, names: Mapping[str, Any] | None = None) -> None:
        self._by_tensor: dict[int, str] = {}
        self._by_output: dict[tuple[int, int], str] = {}
        self._outputs: dict[tuple[int, int], Tensor] = {}
        # The mapping's tensors are kept so the ids above stay theirs while we draw.
        self._keep: list[Tensor] = []
        if names is None:
            return
        if not isinstance(names, Mapping):
            raise TypeError(
                f"names must be a mapping of name -> tensor (e.g. names_from(locals())), "
                f"got {type(names).__name__}"
            )
        for key, value in names.items():
            if not isinstance(key, str) or not isinstance(value, Tensor):
                raise TypeError(
                    "names must map str -> Tensor (e.g. names_from(locals())), "
                    f"got {type(key).__name__} -> {type(value).__name__} for {key!r}"
                )
            self._add(value, key)

    def _add(self, tensor: Tensor, name: str | None) -> None:
        self._keep.append(tensor)
        if tensor._grad_fn is not None:
            key = (id(tensor._grad_fn), tensor._output_nr)
            self._outputs.setdefault(key, tensor)
            if name is not None:
                self._by_output.setdefault(key, name)
        if name is not None:
            self._by_tensor.setdefault(id(tensor), name)

    def add_drawn(self, tensor: Tensor) -> None:
        """Remember a drawn tensor: its value and `.name` also describe its grad_fn."""
        own = tensor.__dict__.get("name")
        self._add(tensor, own if isinstance(own, str) else None)

    def of_tensor(self, tensor: Any) -> str | None:
        """The name of `tensor`: from `names=`, else its `.name` attribute."""
        name = self._by_tensor.get(id(tensor))
        if name is not None:
            return name
        own = tensor.__dict__.get("name")
        return own if isinstance(own, str) else None

    def tensor_of_output(self, node: Any, output_nr: int = 0) -> Tensor | None:
        """The drawn or named tensor that `node` produced as output `output_nr`, if any."""
        return self._outputs.get((id(node), output_nr))

    def of_output(self, node: Any, output_nr: int = 0) -> str | None:
        """The name of the tensor that `node` produced as output `output_nr`, if one was named."""
        return self._by_output.get((id(node), output_nr))
