"""Every op of tests/op_table.py on inputs laid out in memory as PyTorch users make them.

Each sample of the table is rebuilt transposed, permuted, expanded (a stride-0
dimension), sliced with steps and with a zero-size dimension; the results must
have PyTorch's strides and contiguity, since `view()` succeeds or fails by them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import chainrule
from op_table import OPS, Op
from test_ops import sample_arrays

CASES = [pytest.param(op, i, id=f"{op.name}-{i}") for op in OPS for i in range(len(op.samples))]


# --- inputs in a layout -------------------------------------------------------------------


def new(lib: Any, a: np.ndarray) -> Any:
    """A contiguous tensor holding `a` (torch.tensor would keep an empty array's 0 strides)."""
    if a.size == 0:
        return lib.zeros(a.shape, dtype=lib.bool if a.dtype == np.bool_ else lib.float64)
    return lib.tensor(np.ascontiguousarray(a))


def _stored_as(lib: Any, a: np.ndarray, order: Sequence[int]) -> Any:
    """A tensor with `a`'s values whose memory holds the dims in `order` (a view of a leaf)."""
    inverse = np.argsort(order)
    return new(lib, a.transpose(order).copy()).permute(*map(int, inverse))


def contiguous(lib: Any, a: np.ndarray) -> Any:
    return new(lib, a)


def transposed(lib: Any, a: np.ndarray) -> Any:
    """The last two dims swapped in memory (what `.t()` and `.mT` give)."""
    if a.ndim < 2:
        return new(lib, a)
    order = list(range(a.ndim))
    order[-2:] = order[-1], order[-2]
    return _stored_as(lib, a, order)


def permuted(lib: Any, a: np.ndarray) -> Any:
    """Every dim reversed in memory (`.permute(2, 1, 0)` of a contiguous tensor)."""
    return _stored_as(lib, a, list(range(a.ndim))[::-1])


def expanded(lib: Any, a: np.ndarray) -> Any:
    """The first dim longer than 1 made a stride-0 expansion of one of its entries."""
    long = [d for d, n in enumerate(a.shape) if n > 1]
    if not long:
        return new(lib, a)
    d = long[0]
    return new(lib, np.take(a, [0], axis=d)).expand(*a.shape)


def sliced(lib: Any, a: np.ndarray) -> Any:
    """Every dim a step-2 slice of a twice longer one (strides in order, with gaps)."""
    if a.ndim == 0:
        return new(lib, a)
    big = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
    steps = (slice(None, None, 2),) * a.ndim
    big[steps] = a
    return lib.tensor(big)[steps]


def _first_dim_emptied(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The inputs with the most dims get a first dim of size 0 (so they still broadcast)."""
    most = max((a.ndim for a in arrays), default=0)
    return [a[:0] if a.ndim == most and a.ndim > 0 else a for a in arrays]


Build = Callable[[Any, np.ndarray], Any]
# name: (how each input is built, whether the inputs first lose their first dim's entries)
LAYOUTS: dict[str, tuple[Build, bool]] = {
    "contiguous": (contiguous, False),
    "transposed": (transposed, False),
    "permuted": (permuted, False),
    "expanded": (expanded, False),
    "sliced": (sliced, False),
    "zero_size": (contiguous, True),
    "zero_size_transposed": (transposed, True),
}


def laid_out(lib: Any, arrays: Sequence[np.ndarray], layout: str) -> list[Any]:
    """The inputs as tensors of `lib` in `layout`; float ones are leaves requiring grad."""
    build, empty = LAYOUTS[layout]
    if empty:
        arrays = _first_dim_emptied(arrays)
    out = []
    for a in arrays:
        if a.dtype == np.bool_:
            out.append(build(lib, a))
        else:
            out.append(build(lib, a.astype("float64")).requires_grad_())
    return out


def _tensors(result: Any) -> list[Any]:
    """The tensors an op returned (one, or a tuple or list of them)."""
    if isinstance(result, tuple | list):
        return [r for r in result if hasattr(r, "stride")]
    return [result] if hasattr(result, "stride") else []


def layout_of(result: Any) -> list[tuple[tuple[int, ...], tuple[int, ...] | None, bool]]:
    """Shape, strides and contiguity of each result. Strides of a tensor without elements
    are left out: nothing can observe them but `stride()` (PyTorch calls them arbitrary)."""
    return [
        (tuple(t.shape), tuple(t.stride()) if t.numel() else None, t.is_contiguous())
        for t in _tensors(result)
    ]


def differences(op: Op, i: int, torch: Any) -> list[str]:
    """Every layout of sample `i` whose results' strides or contiguity differ from torch's."""
    arrays = sample_arrays(op, i)
    found = []
    for layout in LAYOUTS:
        try:
            theirs = layout_of(op.fn(*laid_out(torch, arrays, layout)))
        except Exception:
            continue
        try:
            mine = layout_of(op.fn(*laid_out(chainrule, arrays, layout)))
        except Exception as e:
            found.append(f"{layout}: raised {type(e).__name__}: {e}")
            continue
        if mine != theirs:
            found.append(f"{layout}: {mine} != torch {theirs}")
    return found


@pytest.mark.parametrize(("op", "i"), CASES)
def test_result_layout_matches_torch(torch: Any, op: Op, i: int) -> None:
    found = differences(op, i, torch)
    if found and op.layout_differs:
        pytest.xfail(op.layout_differs)
    assert not found, "\n".join(found)
