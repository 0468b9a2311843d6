"""einsum: Einstein summation over one or two operands per node (more are contracted pairwise,
in the order NumPy's einsum_path picks), the gradient of each operand an einsum of the others."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._dtype import scalar_name
from ..._strides import contiguous_array
from ..._tensor import Tensor
from ..primitive import Primitive
from .common import const

__all__ = ["einsum"]

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # sublist labels 0..51, in order


def _forward(*arrays: np.ndarray, spec: str, **_: Any) -> np.ndarray:
    try:
        out = np.einsum(spec, *arrays, optimize=len(arrays) > 1)
    except ValueError:  # size-1 dims broadcasting against a label confuse the BLAS path
        out = np.einsum(spec, *arrays)
    out = np.asarray(out)
    return out.copy() if any(np.may_share_memory(out, a) for a in arrays) else out


def _operand_grad(
    g: Tensor, spec: str, shapes: tuple[Any, ...], i: int, other: Tensor | None
) -> Tensor:
    """d(out)/d(operand i): the einsum of the output gradient with the other operand."""
    lhs, out = spec.split("->")
    terms = lhs.split(",")
    others = [] if other is None else [(other, terms[1 - i])]
    return einsum_grad(g, out, others, terms[i], shapes[i])


def _operands_grad(g: Tensor, n: Any, i: int) -> Tensor:
    """Operand i's gradient: an einsum of the output gradient with the other operand."""
    other = n.operands[1 - i] if len(n.operands) == 2 else None
    return _operand_grad(g, n.spec, n.shapes, i, other)


_einsum = Primitive(
    "EinsumBackward0",
    lambda arrays, **params: _forward(*arrays, **params),
    inputs=("operands",),
    grads=(_operands_grad,),  # type: ignore[arg-type]
    formulas=("einsum of grad and the other operands back to this operand's subscripts ({spec})",),
    variadic=True,
    tangent="multilinear",
    layout=contiguous_array,
)


def _contract(operands: Sequence[Tensor], terms: Sequence[str], out: str) -> Tensor:
    """One einsum node over one or two operands with explicit (ellipsis-free) subscripts."""
    spec = ",".join(terms) + "->" + out
    shapes = tuple(tuple(t._data.shape) for t in operands)
    return _einsum(*operands, spec=spec, shapes=shapes)


def einsum_grad(
    g: Tensor,
    g_term: str,
    others: Sequence[tuple[Tensor, str]],
    target: str,
    target_shape: tuple[int, ...],
) -> Tensor:
    """The gradient for an operand with subscripts `target`, from the output gradient `g`.

    Letters the operand shares with g or the other operand come from an einsum;
    letters only it has are broadcast (expand); a letter it repeats (a diagonal,
    "ii") puts the gradient on that diagonal through a constant 0/1 mask. Where a
    size-1 dim of the operand was broadcast, the engine sums the gradient back.
    """
    available = set(g_term).union(*(term for _, term in others))
    unique = list(dict.fromkeys(target))
    present = "".join(letter for letter in unique if letter in available)
    h = _contract([g, *(t for t, _ in others)], [g_term, *(term for _, term in others)], present)
    got = dict(zip(present, h._data.shape, strict=True))
    seen: set[str] = set()
    shape, full = [], []
    for letter, size in zip(target, target_shape, strict=True):
        shape.append(got[letter] if letter in got and letter not in seen else 1)
        full.append(max(got.get(letter, 1), size))
        seen.add(letter)
    h = h.reshape(shape)
    if len(unique) < len(target):
        return h * const(_diagonal_mask(target, tuple(full), g._data.dtype))
    return h.expand(full) if shape != full else h


def _diagonal_mask(target: str, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """1 where every repeated letter of `target` indexes the same position, else 0."""
    mask = np.ones(shape, dtype=dtype)
    for letter in set(target):
        dims = [d for d, x in enumerate(target) if x == letter]
        first = _index_along(dims[0], shape)
        for d in dims[1:]:
            mask = mask * (first == _index_along(d, shape))
    return mask


def _index_along(dim: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(shape[dim]).reshape([-1 if k == dim else 1 for k in range(len(shape))])


# --- parsing -----------------------------------------------------------------------------------


def _sublist_term(sub: Sequence[Any]) -> str:
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        elif not 0 <= int(s) < 52:
            raise ValueError(
                "einsum(): subscript in subscript list is not within the valid range [0, 52)"
            )
        else:
            out.append(_LETTERS[int(s)])
    return "".join(out)


def _from_sublists(args: Sequence[Any]) -> tuple[str, list[Tensor]]:
    """einsum(op0, sub0, op1, sub1, ..., [out]) as an equation and its operands."""
    operands = list(args[0::2])
    terms = [_sublist_term(s) for s in args[1::2]]
    equation = ",".join(terms[: len(operands)])
    if len(args) % 2:
        equation += "->" + _sublist_term(operands.pop())
    return equation, operands


def _parse_term(term: str, offset: int, operand: int) -> tuple[str, bool]:
    """A term's letters ('.' for the ellipsis) and whether it had one; PyTorch's errors."""
    letters, has_ellipsis, i = [], False, 0
    while i < len(term):
        c = term[i]
        if c == " ":
            i += 1
            continue
        if c == ".":
            if term[i : i + 3] != "...":
                raise RuntimeError(
                    f"einsum(): found '.' for operand {operand} that is not part of any ellipsis"
                )
            if has_ellipsis:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {operand} for which an ellipsis was "
                    "already found"
                )
            has_ellipsis = True
            letters.append(".")
            i += 3
            continue
        if c not in _LETTERS:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {offset + i} in the equation "
                "string, subscripts must be in [a-zA-Z]"
            )
        letters.append(c)
        i += 1
    return "".join(letters), has_ellipsis


def _parse(equation: str, operands: Sequence[Tensor]) -> tuple[list[str], str]:
    """Explicit subscripts for every operand and the output, ellipses spelled as letters."""
    lhs, arrow, rhs = equation.partition("->")
    raw_terms = lhs.split(",")
    if len(raw_terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(raw_terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    terms, offset = [], 0
    for k, raw in enumerate(raw_terms):
        letters, _ = _parse_term(raw, offset, k)
        terms.append(letters)
        offset += len(raw) + 1
    out_letters = None
    if arrow:
        out_letters, _ = _parse_term(rhs, len(lhs) + 2, -1)
    # How many dims each ellipsis covers, and their broadcast shape.
    ell_shape: list[int] = []
    for k, (term, t) in enumerate(zip(terms, operands, strict=True)):
        named = len(term.replace(".", ""))
        if "." not in term and named != t.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match "
                f"the number of dimensions ({t.ndim}) for operand {k} and no ellipsis was given"
            )
        if named > t.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) is more than the "
                f"number of dimensions ({t.ndim}) for operand {k}"
            )
        if "." in term:
            start = term.index(".")
            ell = t._data.shape[start : start + t.ndim - named]
            ell_shape = _broadcast_ellipsis(ell_shape, list(ell), k)
    used = set("".join(terms))
    spare = [c for c in _LETTERS if c not in used]
    ell_letters = "".join(spare[: len(ell_shape)])
    explicit = []
    for term, t in zip(terms, operands, strict=True):
        k = t.ndim - len(term.replace(".", ""))
        explicit.append(term.replace(".", ell_letters[len(ell_letters) - k :] if k else ""))
    if out_letters is None:
        counts = "".join(terms)
        once = sorted(c for c in set(counts) if c != "." and counts.count(c) == 1)
        out = ell_letters + "".join(once)
    else:
        for c in out_letters:
            if c == ".":
                continue
            if out_letters.count(c) > 1:
                raise RuntimeError(
                    f"einsum(): output subscript {c} appears more than once in the output"
                )
            if c not in used:
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any "
                    "input operand"
                )
        out = out_letters.replace(".", ell_letters)
    _check_sizes(explicit, operands)
    return explicit, out


def _broadcast_ellipsis(have: list[int], new: list[int], operand: int) -> list[int]:
    n = max(len(have), len(new))
    have = [1] * (n - len(have)) + have
    new = [1] * (n - len(new)) + new
    for d, (a, b) in enumerate(zip(have, new, strict=True)):
        if a != b and a != 1 and b != 1:
            raise RuntimeError(
                f"einsum(): dimension {d} covered by ellipsis in operand {operand}has size {b} "
                f"which does not broadcast with previously seen ellipsis with size {a} for the "
                "respective dimension"
            )
    return [max(a, b) for a, b in zip(have, new, strict=True)]


def _check_sizes(terms: Sequence[str], operands: Sequence[Tensor]) -> None:
    seen: dict[str, int] = {}
    for k, (term, t) in enumerate(zip(terms, operands, strict=True)):
        mine: dict[str, int] = {}
        for c, size in zip(term, t._data.shape, strict=True):
            if c in mine and mine[c] != size:
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't "
                    f"match, {size} != {mine[c]}"
                )
            mine[c] = size
        for c, size in mine.items():
            before = seen.get(c)
            if before is not None and size != before and size != 1 and before != 1:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {size} for operand {k} which does not "
                    f"broadcast with previously seen size {before}"
                )
            if before is None or before == 1:
                seen[c] = size


# --- the public function -------------------------------------------------------------------------


def einsum(*args: Any) -> Tensor:
    """Sum of products over the subscripts of `equation` (NumPy's and PyTorch's einsum)."""
    if not args or (isinstance(args[0], str) and len(args) < 2):
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least "
            "one operand and its subscripts list"
        )
    if isinstance(args[0], str):
        equation = args[0]
        operands = (
            list(args[1])
            if len(args) == 2 and isinstance(args[1], list | tuple)
            else list(args[1:])
        )
    else:
        equation, operands = _from_sublists(args)
    for t in operands:
        if t._data.dtype != operands[0]._data.dtype:
            raise RuntimeError(
                f"expected scalar type {scalar_name(operands[0])} but found {scalar_name(t)}"
            )
    terms, out = _parse(equation, operands)
    if len(operands) <= 2:
        return _contract(operands, terms, out)
    return _contract_all(list(operands), list(terms), out)


def _contract_all(operands: list[Tensor], terms: list[str], out: str) -> Tensor:
    """Several operands, two at a time, in the order NumPy's einsum_path finds cheapest."""
    spec = ",".join(terms) + "->" + out
    try:
        path = np.einsum_path(spec, *[t._data for t in operands], optimize="greedy")[0][1:]
    except ValueError:
        path = [(0, 1)] * (len(operands) - 1)
    for step in path:
        picked = sorted(step, reverse=True)
        pair = [operands.pop(i) for i in picked][::-1]
        pair_terms = [terms.pop(i) for i in picked][::-1]
        while len(pair) > 2:  # fold a longer step pairwise
            a, b = pair.pop(0), pair.pop(0)
            ta, tb = pair_terms.pop(0), pair_terms.pop(0)
            keep = _needed(ta + tb, [*pair_terms, *terms], out)
            pair.insert(0, _contract([a, b], [ta, tb], keep))
            pair_terms.insert(0, keep)
        keep = _needed("".join(pair_terms), terms, out)
        operands.append(_contract(pair, pair_terms, keep))
        terms.append(keep)
    if terms[0] != out:
        return _contract(operands, terms, out)
    return operands[0]


def _needed(letters: str, rest: Sequence[str], out: str) -> str:
    """The letters of an intermediate result: those the remaining terms or the output use."""
    later = set("".join(rest)) | set(out)
    return "".join(c for c in dict.fromkeys(letters) if c in later)
