"""The named tuples some ops return (`values, indices = x.max(0)`), printed as PyTorch prints them.

Each type is a tuple with named fields: `r.values`, `r[0]` and unpacking all work,
and its repr is `chainrule.return_types.max(\\nvalues=...,\\nindices=...)`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "_lu_with_info",
    "aminmax",
    "cummax",
    "cummin",
    "frexp",
    "histogram",
    "histogramdd",
    "kthvalue",
    "linalg_cholesky_ex",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_ldl_factor",
    "linalg_ldl_factor_ex",
    "linalg_lstsq",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_svd",
    "lu_unpack",
    "max",
    "median",
    "min",
    "mode",
    "nanmedian",
    "qr",
    "slogdet",
    "sort",
    "svd",
    "topk",
    "triangular_solve",
]


class _ReturnType(tuple[Any, ...]):
    """A tuple of fixed length whose items are also attributes (PyTorch's structseq)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    n_fields = n_sequence_fields = 0

    def __new__(cls, sequence: Iterable[Any]) -> _ReturnType:
        items = tuple(sequence)
        if len(items) != len(cls._fields):
            raise TypeError(
                f"{cls.__module__}.{cls.__qualname__}() takes a {len(cls._fields)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        body = ",\n".join(
            f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True)
        )
        return f"{type(self).__module__}.{type(self).__qualname__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (tuple(self),))


def _structseq(name: str, fields: tuple[str, ...]) -> type[_ReturnType]:
    """A named-tuple type `chainrule.return_types.<name>` with these fields."""
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__module__": __name__,
        "__qualname__": name,
        "_fields": fields,
        "n_fields": len(fields),
        "n_sequence_fields": len(fields),
    }
    for i, field in enumerate(fields):
        namespace[field] = _item(i)
    return type(name, (_ReturnType,), namespace)


def _item(i: int) -> property:
    def get(self: tuple[Any, ...]) -> Any:
        return tuple.__getitem__(self, i)

    return property(get)


_VALUES_INDICES = ("values", "indices")

max = _structseq("max", _VALUES_INDICES)
min = _structseq("min", _VALUES_INDICES)
median = _structseq("median", _VALUES_INDICES)
nanmedian = _structseq("nanmedian", _VALUES_INDICES)
mode = _structseq("mode", _VALUES_INDICES)
kthvalue = _structseq("kthvalue", _VALUES_INDICES)
topk = _structseq("topk", _VALUES_INDICES)
sort = _structseq("sort", _VALUES_INDICES)
cummax = _structseq("cummax", _VALUES_INDICES)
cummin = _structseq("cummin", _VALUES_INDICES)
aminmax = _structseq("aminmax", ("min", "max"))
frexp = _structseq("frexp", ("mantissa", "exponent"))
histogram = _structseq("histogram", ("hist", "bin_edges"))
histogramdd = _structseq("histogramdd", ("hist", "bin_edges"))

# torch.linalg's results, and those of the older torch.svd, torch.slogdet and torch.qr.
linalg_eigh = _structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd = _structseq("linalg_svd", ("U", "S", "Vh"))
svd = _structseq("svd", ("U", "S", "V"))
linalg_lstsq = _structseq("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_solve_ex = _structseq("linalg_solve_ex", ("result", "info"))
linalg_inv_ex = _structseq("linalg_inv_ex", ("inverse", "info"))
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ("L", "info"))
linalg_slogdet = _structseq("linalg_slogdet", ("sign", "logabsdet"))
slogdet = _structseq("slogdet", ("sign", "logabsdet"))
linalg_qr = _structseq("linalg_qr", ("Q", "R"))
qr = _structseq("qr", ("Q", "R"))
linalg_lu = _structseq("linalg_lu", ("P", "L", "U"))
lu_unpack = _structseq("lu_unpack", ("P", "L", "U"))
linalg_lu_factor = _structseq("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_lu_with_info = _structseq("_lu_with_info", ("LU", "pivots", "info"))
linalg_ldl_factor = _structseq("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = _structseq("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
triangular_solve = _structseq("triangular_solve", ("solution", "cloned_coefficient"))
