"""Memory layout: the strides results get, and what `view`, `reshape` and `contiguous` do
with them, as in PyTorch.

Recorded cases (from PyTorch 2.13) run without torch; hypothesis then draws layouts
(permuted, sliced, expanded, with size-0 and size-1 dims) and compares chainrule's
layout rules with torch's own results.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import assume, given
from numpy.lib.stride_tricks import as_strided

import chainrule
from chainrule import _strides

VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


def transposed(*shape: int) -> chainrule.Tensor:
    """A tensor of `shape` whose last two dims are swapped in memory."""
    return chainrule.arange(float(np.prod(shape))).reshape(*shape[:-2], shape[-1], shape[-2]).mT


# --- recorded from PyTorch ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "stride"),
    [
        # elementwise results follow their inputs' layout; the first input breaks ties
        (lambda: transposed(2, 3).exp(), (1, 2)),
        (lambda: transposed(2, 3) + chainrule.ones(2, 3), (1, 2)),
        (lambda: chainrule.ones(2, 3) + transposed(2, 3), (3, 1)),
        (lambda: transposed(2, 3) + chainrule.ones(3), (1, 2)),
        (lambda: transposed(2, 3).add(chainrule.ones(2, 3), alpha=2), (1, 2)),
        (lambda: transposed(2, 3).lerp(chainrule.ones(2, 3), 0.5), (1, 2)),
        (lambda: chainrule.ones(1, 3).expand(2, 3).to(chainrule.float64), (3, 1)),
        (lambda: chainrule.ones(1, 3).expand(2, 3).exp(), (3, 1)),
        (lambda: chainrule.ones(4, 6)[::2, ::2].exp(), (3, 1)),
        (lambda: transposed(2, 3).erf(), (1, 2)),
        # number ** tensor, softmax, reductions, cat, scans: new contiguous tensors
        (lambda: 3.0 ** transposed(2, 3), (3, 1)),
        (lambda: transposed(2, 3).softmax(-1), (3, 1)),
        (lambda: transposed(2, 3).sum(1, keepdim=True), (1, 1)),
        (lambda: transposed(2, 3).cumsum(0), (3, 1)),
        (lambda: chainrule.cat([transposed(2, 3), transposed(2, 3)]), (3, 1)),
        # copies keep the layout; sort and flip too
        (lambda: transposed(2, 3).clone(), (1, 2)),
        (lambda: transposed(2, 3).sort().values, (1, 2)),
        (lambda: transposed(2, 3).flip(0), (1, 2)),
        (lambda: transposed(2, 3).contiguous(), (3, 1)),
        # LAPACK results are stored by columns
        (lambda: chainrule.linalg.inv(chainrule.eye(3) * 2), (1, 3)),
        (lambda: chainrule.linalg.qr(chainrule.ones(3, 2)).Q, (1, 3)),
        # views
        (lambda: transposed(2, 3).unsqueeze(-1), (1, 2, 1)),
        (lambda: transposed(2, 3)[None, :, None], (2, 1, 6, 2)),
        (lambda: chainrule.ones(3, 1).expand(2, 3, 1), (0, 1, 1)),
        (lambda: chainrule.tensor(1.0).expand(1, 1), (0, 0)),
        (lambda: transposed(2, 3, 2, 1).flatten(1, 2), (6, 1, 2)),
        (lambda: chainrule.zeros(0, 3).t(), (1, 3)),
        (lambda: chainrule.zeros(2, 0, 3), (3, 3, 1)),
    ],
)
def test_recorded_strides(make: Any, stride: tuple[int, ...]) -> None:
    assert make().stride() == stride


def test_permuted_softmax_can_be_viewed() -> None:
    """The issue's example: a softmax of a permuted tensor is contiguous, so view works."""
    x = chainrule.arange(24.0).reshape(2, 3, 4).permute(0, 2, 1)
    y = x.softmax(-1)
    assert y.is_contiguous()
    assert y.view(-1).shape == (24,)
    z = 3.0 ** chainrule.ones(1, 3).expand(4, 3)
    assert z.view(-1).shape == (12,)


def test_view_of_a_transposed_tensor_fails_with_pytorchs_message() -> None:
    x = transposed(2, 3).exp()  # laid out as its input
    with pytest.raises(RuntimeError) as e:
        x.view(-1)
    assert str(e.value) == VIEW_ERROR


def test_reshape_views_when_it_can_and_copies_when_it_cannot() -> None:
    x = chainrule.arange(24.0).reshape(4, 6)[:, :3]  # rows with gaps between them
    split = x.reshape(2, 2, 3)  # splitting the rows: a view
    assert split._base is not None and split.stride() == (12, 6, 1)
    flat = x.reshape(-1)  # the rows cannot merge: a contiguous copy
    assert flat._base is None and flat.stride() == (1,)
    x.requires_grad_()
    assert x.reshape(-1).grad_fn.name() == "UnsafeViewBackward0"
    assert x.reshape(2, 2, 3).grad_fn.name() == "ViewBackward0"
    with pytest.raises(RuntimeError) as e:
        x.view(-1)
    assert str(e.value) == VIEW_ERROR


def test_contiguous_copies_only_what_is_not() -> None:
    x = chainrule.ones(2, 3)
    assert x.contiguous() is x
    t = x.t()
    c = t.contiguous()
    assert c is not t and c.is_contiguous() and c.stride() == (2, 1)


def test_contiguous_inputs_get_numpys_result_without_a_copy() -> None:
    out = np.ones((2, 3))
    assert _strides.elementwise(out, np.ones((2, 3)), np.ones(3)) is out
    assert _strides.contiguous_array(out) is out


def test_a_size_one_dims_stride_is_fixed_without_copying() -> None:
    a = np.ones((3, 4))[:1, :3]  # (1, 3), its row stride 4: NumPy calls it contiguous
    fixed = _strides.contiguous_array(a)
    assert _strides.of(fixed) == (3, 1) and np.shares_memory(fixed, a)


# --- drawn layouts, against torch -------------------------------------------------------------


@st.composite
def layouts(draw: st.DrawFn, shape: tuple[int, ...] | None = None) -> tuple[np.ndarray, Any]:
    """An array and the torch tensor viewing the same memory: permuted, sliced, expanded."""
    torch = pytest.importorskip("torch")
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=4)))
    order = draw(st.permutations(range(len(shape))))
    steps = [draw(st.sampled_from([1, 1, 2])) for _ in shape]
    stored = [shape[d] * steps[d] for d in order]
    base = torch.arange(float(np.prod(stored)), dtype=torch.float64).reshape(stored)
    t = base.permute(list(map(int, np.argsort(order))))
    t = t[tuple(slice(None, None, s) for s in steps)]
    stretch = [d for d in range(len(shape)) if draw(st.booleans()) and draw(st.booleans())]
    t = t[tuple(slice(0, 1) if d in stretch else slice(None) for d in range(len(shape)))]
    t = t.expand(list(shape))
    a = as_strided(t.numpy(), tuple(t.shape), [s * 8 for s in t.stride()])
    assume(_strides.of(a) == t.stride())  # (an empty array with all strides 0 reads as new)
    return a, t


@st.composite
def operand_layouts(draw: st.DrawFn) -> list[tuple[np.ndarray, Any]]:
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
    operands = []
    for _ in range(draw(st.integers(1, 3))):
        ndim = draw(st.integers(0, len(shape)))
        own = tuple(1 if draw(st.booleans()) else n for n in shape[len(shape) - ndim :])
        operands.append(draw(layouts(own)))
    return operands


@given(operands=operand_layouts())
def test_elementwise_layout_matches_torch(torch: Any, operands: Any) -> None:
    ts = [t for _, t in operands]
    result = (
        ts[0].exp() if len(ts) == 1 else torch.add(*ts) if len(ts) == 2 else ts[0].addcmul(*ts[1:])
    )
    arrays = [a for a, _ in operands]
    assert _strides.iterator(tuple(result.shape), arrays) == result.stride()
    # NumPy's own result, put in PyTorch's layout (returned as it is where it already is)
    if len(arrays) == 1:
        mine = np.exp(arrays[0])
    elif len(arrays) == 2:
        mine = np.add(*arrays)
    else:
        mine = np.add(arrays[0], np.multiply(arrays[1], arrays[2]))
    if result.numel():
        assert _strides.of(_strides.elementwise(mine, *arrays)) == result.stride()


@given(layout=layouts())
def test_copy_layout_matches_torch(torch: Any, layout: Any) -> None:
    a, t = layout
    assume(t.numel())  # (no one can observe the strides of an empty tensor but stride())
    assert _strides.preserving(a) == t.clone().stride()


@given(layout=layouts(), data=st.data())
def test_view_strides_match_torch(torch: Any, layout: Any, data: st.DataObject) -> None:
    a, t = layout
    n = t.numel()
    shapes = [(n,), (1, n), (n, 1), (1, *t.shape), (*t.shape, 1)]
    if t.ndim >= 2:
        shapes.append((t.shape[0] * t.shape[1], *t.shape[2:]))
    shape = data.draw(st.sampled_from(shapes))
    try:
        expected = t.view(shape).stride()
    except RuntimeError as e:
        assert str(e) == VIEW_ERROR
        expected = None
    assert _strides.view_strides(a, shape) == expected
    dim = data.draw(st.integers(0, t.ndim))
    assert _strides.unsqueezed(a, dim) == t.unsqueeze(dim).stride()
