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
Tensor. The parts name their op modules through `_lazy.LazyModule`, so an entry is a
stand-in until a tensor first uses it: then its family is imported and the real
function takes the stand-in's place on Tensor, and a call costs what it did when the
op modules set them.

Type checkers see these methods through `_tensor_surface.pyi`, Tensor's base
class when type checking (see `_tensor.py`): each entry with the signature mypy
infers for it here. After changing this table or an op's signature, rewrite it
with `python scripts/make_tensor_stub.py` (tests/test_typing.py checks it is up
to date). mypy cannot take this class itself as that base: the op modules use
tensor methods in their module-level rules, before the table could be inferred.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any

from .._lazy import TYPING, LazyMember, LazyModule, LazyProperty, resolve
from .._tensor import Tensor
from .elementwise import ElementwiseMethods
from .operators import OperatorMethods
from .reduction_linalg import ReductionLinalgMethods
from .shape_indexing import ShapeIndexingMethods

if TYPING:
    from .._ops import keywords
else:  # it loads the op machinery, which plain tensors do not need yet
    keywords = LazyModule("chainrule._ops.keywords")

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


def _members() -> dict[str, Any]:
    """Every table entry by name, as the parts hold it (functions not imported yet are
    LazyMembers)."""
    out: dict[str, Any] = {}
    for part in PARTS:
        for name, member in vars(part).items():
            if isinstance(member, FunctionType | property | LazyMember):
                if name in out:
                    raise RuntimeError(f"Tensor.{name} is in the table twice")
                out[name] = member
    return out


def entries() -> dict[str, Any]:
    """Every table entry by name: the plain functions and properties Tensor gets
    (importing every op family)."""
    return {name: resolve(member) for name, member in _members().items()}


def _with_keywords(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        return keywords.accept_keywords(fn, "torch.Tensor", name)

    return wrap


def bind() -> None:
    """Copy the table onto Tensor (once, at import), each method taking the spellings
    PyTorch's argument parser adds (`axis=` for `dim=`, ...; see `_ops/keywords.py`)
    when it is first used."""
    for name, member in _members().items():
        if name in Tensor.__dict__:
            raise RuntimeError(f"Tensor.{name} is defined twice: in _tensor.py and the table")
        if isinstance(member, LazyMember):
            member.name = name
            member.wrap = _with_keywords(name)
        elif isinstance(member, property) and isinstance(member.fget, LazyMember):
            member = LazyProperty(name, member.fget)
        elif isinstance(member, FunctionType):
            member = _with_keywords(name)(member)
        setattr(Tensor, name, member)
