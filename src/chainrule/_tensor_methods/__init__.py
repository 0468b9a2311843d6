"""Tensor's op methods and operators, in one table.

`_tensor.py` holds a tensor's state and the rules about it; the ops live in the
op library (`_ops/`, and a few in `nn.functional` and `_creation`). This table, in
four parts (operators, elementwise, shape and indexing, reductions and linear algebra),
says which op each method is: `x.add(y)` is `arithmetic.add(x, y)`, `x + y` is
`operators.add_operator(x, y)`, `x.add_(y)` is `inplace_forms.add_(x, y)`.
Where a method differs from the function of the same name (its errors name
only the arguments after `self`, it takes `x.flip(0, 1)` as well as a tuple, or
the tensor is not the first argument of the function) it is the op module's
`<name>_method`.

At import, `chainrule/__init__.py` runs `bind()`: it copies every entry onto
Tensor, so a method call costs what it did when the op modules set them.

Type checkers see these methods through `_tensor_surface.pyi`, Tensor's base
class when type checking (see `_tensor.py`): each entry with the signature mypy
infers for it here. After changing this table or an op's signature, rewrite it
with `python scripts/make_tensor_stub.py` (tests/test_typing.py checks it is up
to date). mypy cannot take this class itself as that base: the op modules use
tensor methods in their module-level rules, before the table could be inferred.
"""

from __future__ import annotations

from types import FunctionType
from typing import Any

from .._ops.keywords import accept_keywords
from .._tensor import Tensor
from .elementwise import ElementwiseMethods
from .operators import OperatorMethods
from .reduction_linalg import ReductionLinalgMethods
from .shape_indexing import ShapeIndexingMethods

__all__ = ["PARTS", "TensorMethods", "bind", "entries"]

# The table, in four parts (one file each, to keep files short).
PARTS: tuple[type, ...] = (
    OperatorMethods,
    ElementwiseMethods,
    ShapeIndexingMethods,
    ReductionLinalgMethods,
)


class TensorMethods(
    OperatorMethods, ElementwiseMethods, ShapeIndexingMethods, ReductionLinalgMethods
):
    """Every op method and operator of Tensor: the four parts together."""

    __slots__ = ()


def entries() -> dict[str, Any]:
    """Every table entry by name: the plain functions and properties Tensor gets."""
    out: dict[str, Any] = {}
    for part in PARTS:
        for name, member in vars(part).items():
            if isinstance(member, FunctionType | property):
                if name in out:
                    raise RuntimeError(f"Tensor.{name} is in the table twice")
                out[name] = member
    return out


def bind() -> None:
    """Copy the table onto Tensor (once, at import), each method taking the spellings
    PyTorch's argument parser adds (`axis=` for `dim=`, ...; see `_ops/keywords.py`)."""
    for name, member in entries().items():
        if name in Tensor.__dict__:
            raise RuntimeError(f"Tensor.{name} is defined twice: in _tensor.py and the table")
        if isinstance(member, FunctionType):
            member = accept_keywords(member, "torch.Tensor", name)
        setattr(Tensor, name, member)
