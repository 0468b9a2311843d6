"""Shape and indexing ops beyond the op table: errors, views, dtypes, keyword forms,
several outputs, in-place forms and assignment through an index.

Most checks are scenarios `fn(m)` run with `m=chainrule` and, when installed,
`m=torch`: the outcomes (values, dtypes, grad_fn names, gradients, or exception
type and first message line) must be equal. Fixed expectations follow, for the
deliberate differences and for runs without torch.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule.autograd import gradcheck, gradgradcheck

Scenario = Callable[[Any], Any]


def normalize(obj: Any, m: Any) -> Any:
    """A comparable form of a scenario's result."""
    if isinstance(obj, m.Tensor):
        name = None if obj.grad_fn is None else obj.grad_fn.name()
        data = obj.detach().numpy().copy()
        return ("tensor", str(obj.dtype).split(".")[-1], data, obj.requires_grad, name)
    if isinstance(obj, list | tuple):
        return [normalize(o, m) for o in obj]
    return obj


def outcome(fn: Scenario, m: Any) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return normalize(fn(m), m)
    except Exception as e:
        lines = str(e).replace("chainrule.", "torch.").splitlines()
        return ("raises", type(e).__name__, lines[0] if lines else "")


def assert_same(got: Any, want: Any) -> None:
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.shape == want.shape, (got, want)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    elif isinstance(want, list | tuple):
        assert isinstance(got, list | tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            assert_same(g, w)
    else:
        assert got == want


def x34(m: Any, requires_grad: bool = False) -> Any:
    """A (3, 4) float tensor with distinct values."""
    data = np.linspace(-1.5, 2.0, 12, dtype=np.float32).reshape(3, 4)
    return m.tensor(data, requires_grad=requires_grad)


def backward_grads(m: Any, out: Any, *inputs: Any) -> list[Any]:
    """Gradients of `sum(out * weights)` (fixed, distinct weights) for `inputs`."""
    weights = m.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return [out, *(t.grad for t in inputs)]


# --- errors: PyTorch's type and first line -----------------------------------------------------

T = Any
ERRORS: dict[str, Scenario] = {
    # gather and scatter
    "gather_index_too_large": lambda m: x34(m).gather(1, m.tensor([[0], [4], [1]])),
    "gather_index_negative": lambda m: x34(m).gather(1, m.tensor([[0], [-1], [1]])),
    "gather_float_index": lambda m: x34(m).gather(1, m.tensor([[0.0], [1.0], [1.0]])),
    "gather_bad_dim": lambda m: x34(m).gather(2, m.tensor([[0], [1], [1]])),
    "gather_rank": lambda m: x34(m).gather(1, m.tensor([0, 1, 1])),
    "gather_index_larger": lambda m: x34(m).gather(1, m.tensor([[0, 1]] * 4)),
    "gather_0d_index": lambda m: x34(m).gather(0, m.tensor(0)),
    "scatter_out_of_range": lambda m: x34(m).scatter(0, m.tensor([[0, 5]]), 1.0),
    "scatter_dtype": lambda m: x34(m).scatter(0, m.tensor([[0, 1]]), x34(m).double()),
    "scatter_reduce_name": lambda m: x34(m).scatter(0, m.tensor([[0, 1]]), 1.0, reduce="max"),
    "scatter_float_index": lambda m: x34(m).scatter(0, m.tensor([[0.0]]), 1.0),
    "scatter_rank_src": lambda m: x34(m).scatter(0, m.tensor([[0, 1]]), m.tensor(1.0)),
    "scatter_rank_self": lambda m: x34(m).scatter(0, m.tensor([0, 1]), x34(m)),
    "scatter_index_larger": lambda m: x34(m).scatter(0, m.tensor([[0, 1, 2, 0, 1]]), 1.0),
    "scatter_index_larger_src": lambda m: x34(m).scatter(0, m.tensor([[0, 1]]), x34(m)[:, :1]),
    "scatter_add_out_of_range": lambda m: x34(m).scatter_add(0, m.tensor([[0, 5]]), x34(m)),
    "scatter_add_number": lambda m: x34(m).scatter_add(0, m.tensor([[0]]), 2.0),
    "scatter_add_dtype": lambda m: x34(m).scatter_add(0, m.tensor([[0]]), x34(m).double()),
    # along a dim
    "index_select_out_of_range": lambda m: x34(m).index_select(0, m.tensor([0, 3])),
    "index_select_negative": lambda m: x34(m).index_select(0, m.tensor([-1])),
    "index_select_float": lambda m: x34(m).index_select(0, m.tensor([0.0])),
    "index_select_matrix": lambda m: x34(m).index_select(0, m.tensor([[0]])),
    "index_select_bad_dim": lambda m: x34(m).index_select(5, m.tensor([0])),
    "index_select_scalar": lambda m: m.tensor(5.0).index_select(0, m.tensor([0, 0])),
    "index_add_out_of_range": lambda m: x34(m).index_add(0, m.tensor([0, 3]), x34(m)[:2]),
    "index_add_count": lambda m: x34(m).index_add(0, m.tensor([0, 1]), x34(m)),
    "index_add_dtype": lambda m: x34(m).index_add(0, m.tensor([0]), x34(m)[:1].double()),
    "index_add_shape": lambda m: x34(m).index_add(0, m.tensor([0, 1]), x34(m)[:2, :2]),
    "index_add_float_index": lambda m: x34(m).index_add(0, m.tensor([0.0]), x34(m)[:1]),
    "index_add_matrix_index": lambda m: x34(m).index_add(0, m.tensor([[0]]), x34(m)[:1]),
    "index_copy_out_of_range": lambda m: x34(m).index_copy(0, m.tensor([0, 3]), x34(m)[:2]),
    "index_copy_int32_index": lambda m: x34(m).index_copy(
        0, m.tensor([0], dtype=m.int32), x34(m)[:1]
    ),
    "index_copy_count": lambda m: x34(m).index_copy(0, m.tensor([0, 1]), x34(m)),
    "index_copy_dtype": lambda m: x34(m).index_copy(0, m.tensor([0]), x34(m)[:1].double()),
    "index_copy_slices": lambda m: x34(m).index_copy(0, m.tensor([0, 1]), x34(m)[:2, :2]),
    "index_copy_rank": lambda m: x34(m).index_copy(0, m.tensor(1), x34(m)[0]),
    "index_fill_out_of_range": lambda m: x34(m).index_fill(0, m.tensor([0, 3]), 1.0),
    "index_fill_float_index": lambda m: x34(m).index_fill(0, m.tensor([0.0]), 1.0),
    "index_fill_matrix_index": lambda m: x34(m).index_fill(0, m.tensor([[0]]), 1.0),
    "index_fill_vector_value": lambda m: x34(m).index_fill(0, m.tensor([0]), m.tensor([1.0])),
    "take_out_of_range": lambda m: x34(m).take(m.tensor([12])),
    "take_negative_out_of_range": lambda m: x34(m).take(m.tensor([-13])),
    "take_int32": lambda m: x34(m).take(m.tensor([0], dtype=m.int32)),
    "take_along_dim_float": lambda m: x34(m).take_along_dim(m.tensor([[0.0]]), 1),
    "take_along_dim_rank": lambda m: x34(m).take_along_dim(m.tensor([0, 1]), 1),
    "take_along_dim_bad_dim": lambda m: x34(m).take_along_dim(m.tensor([[0]]), 2),
    "take_along_dim_broadcast": lambda m: x34(m).take_along_dim(m.tensor([[0, 1]]), 0),
    # masks
    "masked_fill_long_mask": lambda m: x34(m).masked_fill(m.tensor([1, 0, 1, 0]), 1.0),
    "masked_fill_byte_mask": lambda m: x34(m).masked_fill(m.tensor([1, 0, 1, 0]).byte(), 1.0),
    "masked_fill_vector_value": lambda m: x34(m).masked_fill(x34(m) > 0, m.tensor([1.0, 2.0])),
    "masked_fill_shape": lambda m: x34(m).masked_fill(m.tensor([True, False]), 1.0),
    "masked_fill_grows_inplace": lambda m: x34(m)[:, :1].masked_fill_(x34(m) > 0, 1.0),
    "masked_select_long_mask": lambda m: x34(m).masked_select(m.tensor([1, 0, 1, 0])),
    "masked_select_shape": lambda m: x34(m).masked_select(m.tensor([True, False])),
    "masked_scatter_short": lambda m: x34(m).masked_scatter(x34(m) > 0, m.tensor([1.0])),
    "masked_scatter_dtype": lambda m: x34(m).masked_scatter(x34(m) > 0, x34(m).double()),
    "masked_scatter_mask": lambda m: x34(m).masked_scatter(m.tensor([1]), x34(m)),
    "index_put_out_of_range": lambda m: x34(m).index_put_((m.tensor([0, 5]),), m.tensor(1.0)),
    "index_put_shape": lambda m: x34(m).index_put_((m.tensor([0, 1]),), m.tensor([1.0, 2, 3])),
    "index_put_dtype": lambda m: x34(m).index_put((m.tensor([0]),), x34(m)[0].double()),
    "index_put_number": lambda m: x34(m).index_put((m.tensor([0]),), 1.0),
    "where_two_args": lambda m: m.where(x34(m) > 0, x34(m)),
    # shape ops
    "split_zero": lambda m: x34(m).split(0),
    "split_negative": lambda m: x34(m).split(-1),
    "split_sizes_sum": lambda m: x34(m).split([1, 1]),
    "split_sizes_negative": lambda m: x34(m).split([1, -1, 3]),
    "split_0d": lambda m: m.tensor(1.0).split(1),
    "split_bad_dim": lambda m: x34(m).split(2, dim=5),
    "split_with_sizes_float": lambda m: m.split_with_sizes(x34(m), [1.0, 2]),
    "split_with_sizes_bool": lambda m: x34(m).split_with_sizes([True, 2]),
    "split_with_sizes_int": lambda m: m.split_with_sizes(x34(m), 2),
    "split_with_sizes_int_method": lambda m: x34(m).split_with_sizes(2),
    "split_with_sizes_str": lambda m: x34(m).split_with_sizes([1, "a"]),
    "split_with_sizes_sum": lambda m: x34(m).split_with_sizes([1, 1], 1),
    "split_with_sizes_negative": lambda m: x34(m).split_with_sizes([4, -1]),
    "split_with_sizes_0d": lambda m: m.split_with_sizes(m.tensor(1.0), [1]),
    "chunk_zero": lambda m: x34(m).chunk(0),
    "chunk_0d": lambda m: m.tensor(1.0).chunk(1),
    "chunk_float": lambda m: x34(m).chunk(2.0),
    "tensor_split_zero": lambda m: x34(m).tensor_split(0),
    "tensor_split_float_tensor": lambda m: x34(m).tensor_split(m.tensor([1.0])),
    "tensor_split_matrix": lambda m: x34(m).tensor_split(m.tensor([[1]])),
    "tensor_split_0d": lambda m: m.tensor(1.0).tensor_split(1),
    "hsplit_indivisible": lambda m: x34(m).hsplit(3),
    "vsplit_1d": lambda m: m.ones(3).vsplit(1),
    "dsplit_2d": lambda m: x34(m).dsplit(1),
    "unflatten_sizes": lambda m: x34(m).unflatten(1, (3, 2)),
    "unflatten_empty": lambda m: x34(m).unflatten(1, ()),
    "unflatten_bad_dim": lambda m: x34(m).unflatten(5, (2, 2)),
    "movedim_repeated_source": lambda m: x34(m).movedim((0, -2), (0, 1)),
    "movedim_repeated_destination": lambda m: x34(m).movedim((0, 1), (1, -1)),
    "movedim_lengths": lambda m: x34(m).movedim((0, 1), (0,)),
    "movedim_bad_dim": lambda m: x34(m).movedim(5, 0),
    "repeat_too_few": lambda m: x34(m).repeat(2),
    "repeat_negative": lambda m: x34(m).repeat(-1, 2),
    "repeat_interleave_negative": lambda m: x34(m).repeat_interleave(-1),
    "repeat_interleave_counts": lambda m: x34(m).repeat_interleave(m.tensor([1, 2]), dim=0),
    "repeat_interleave_negative_counts": lambda m: x34(m).repeat_interleave(
        m.tensor([1, -2, 1]), dim=0
    ),
    "repeat_interleave_float_counts": lambda m: x34(m).repeat_interleave(
        m.tensor([1.0, 2, 1]), dim=0
    ),
    "repeat_interleave_matrix_counts": lambda m: x34(m).repeat_interleave(
        m.tensor([[1, 2, 1]]), dim=0
    ),
    "repeat_interleave_output_size": lambda m: x34(m).repeat_interleave(2, output_size=5),
    "repeat_interleave_counts_only": lambda m: m.repeat_interleave(m.tensor([[1]])),
    "flip_repeated": lambda m: x34(m).flip(0, 0),
    "flip_bad_dim": lambda m: x34(m).flip(5),
    "flip_int_dims": lambda m: m.flip(x34(m), 0),
    "fliplr_1d": lambda m: m.ones(3).fliplr(),
    "flipud_0d": lambda m: m.tensor(1.0).flipud(),
    "roll_misaligned": lambda m: x34(m).roll((1, 2), (0,)),
    "roll_no_dims": lambda m: x34(m).roll((1, 2)),
    "roll_no_shifts": lambda m: x34(m).roll((), ()),
    "rot90_same_dims": lambda m: x34(m).rot90(1, (0, -2)),
    "rot90_one_dim": lambda m: x34(m).rot90(1, (0,)),
    "rot90_1d": lambda m: m.ones(3).rot90(),
    "tril_1d": lambda m: m.ones(3).tril(),
    "triu_float_diagonal": lambda m: x34(m).triu(1.5),
    "diag_3d": lambda m: m.ones(2, 2, 2).diag(),
    "trace_1d": lambda m: m.ones(3).trace(),
    "trace_bool": lambda m: m.ones(2, 2).bool().trace(),
    "diagonal_same_dims": lambda m: x34(m).diagonal(0, 0, 0),
    "diagonal_bad_dim": lambda m: x34(m).diagonal(0, 0, 5),
    "diag_embed_same_dims": lambda m: x34(m).diag_embed(0, 0, 0),
    "diag_embed_0d": lambda m: m.tensor(1.0).diag_embed(),
    "hstack_empty": lambda m: m.hstack([]),
    "vstack_tensor": lambda m: m.vstack(x34(m)),
    "unbind_0d": lambda m: m.tensor(1.0).unbind(),
    "roll_0d_dim": lambda m: m.tensor(1.0).roll(1, 0),
    "unflatten_0d": lambda m: m.tensor(1.0).unflatten(0, (1,)),
    "repeat_interleave_0d_dim": lambda m: m.tensor(1.0).repeat_interleave(2, dim=0),
    "take_along_dim_0d": lambda m: m.tensor(1.0).take_along_dim(m.tensor(0), 0),
    "index_put_too_many": lambda m: x34(m).index_put((m.tensor([0]),) * 3, m.tensor(1.0)),
    # in place on the views of an op with several outputs (split, chunk, unbind)
    "split_view_inplace": lambda m: (x34(m, True) * 1).split(2)[0].mul_(2),
    "split_sizes_view_inplace": lambda m: (x34(m, True) * 1).split([1, 2])[1].add_(1),
    "chunk_view_inplace": lambda m: (x34(m, True) * 1).chunk(2)[1].zero_(),
    "unbind_view_inplace": lambda m: (x34(m, True) * 1).unbind()[1].mul_(2),
    "split_leaf_view_inplace": lambda m: x34(m, True).split(2)[0].mul_(2),
    "inplace_leaf": lambda m: x34(m, True).scatter_(0, m.tensor([[0]]), 1.0),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(torch: Any, name: str) -> None:
    mine, theirs = outcome(ERRORS[name], chainrule), outcome(ERRORS[name], torch)
    assert theirs[0] == "raises", "torch accepts this: move it to BEHAVIOURS"
    assert_same(mine, theirs)


def test_split_with_sizes_messages() -> None:
    x = x34(chainrule)
    for call, kind, message in [
        (
            lambda: chainrule.split_with_sizes(x, [1.0, 2]),
            TypeError,
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, but "
            "found element of type float at pos 0",
        ),
        (
            lambda: x.split_with_sizes(2),
            TypeError,
            "split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not "
            "int",
        ),
        (
            lambda: x.split_with_sizes([1, 1], 1),
            RuntimeError,
            "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at "
            "dimension 1), but got split_sizes=[1, 1]",
        ),
    ]:
        with pytest.raises(kind) as caught:
            call()
        assert str(caught.value) == message
    pieces = x.split_with_sizes((1, 3), dim=-1)
    assert [p.shape for p in pieces] == [(3, 1), (3, 3)]
    assert pieces[1].tolist() == x[:, 1:].tolist()


def test_errors_leave_the_tensor_unchanged() -> None:
    x = x34(chainrule)
    before, version = x.numpy().copy(), x._version
    for bad in (
        lambda: x.scatter_(0, chainrule.tensor([[0, 5]]), 1.0),
        lambda: x.index_add_(0, chainrule.tensor([0, 3]), x[:2]),
        lambda: x.masked_fill_(chainrule.ones(2, 3, 4).bool(), 1.0),
        lambda: x.index_put_((chainrule.tensor([0, 1]),), chainrule.tensor([1.0, 2, 3])),
    ):
        with pytest.raises((RuntimeError, IndexError)):
            bad()
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == version


def assigned(index: Callable[[Any], Any], value: Callable[[Any], Any]) -> Scenario:
    """`y = x34 (as float64); y[index] = value; y` for a library `m`."""

    def scenario(m: Any) -> Any:
        y = x34(m).double()
        y[index(m)] = value(m)
        return y

    return scenario


ERRORS.update(
    {
        "assign_shape_advanced": assigned(lambda m: m.tensor([0, 1]), lambda m: m.ones(3)),
        "assign_shape_basic": assigned(lambda m: 0, lambda m: m.ones(3)),
        "assign_shape_slice": assigned(lambda m: slice(0, 2), lambda m: m.ones(3, 4)),
        "assign_shape_mask": assigned(lambda m: x34(m) > 0, lambda m: m.ones(2).double()),
        "assign_out_of_range": assigned(lambda m: m.tensor([0, 5]), lambda m: 1.0),
        "assign_dtype_advanced": assigned(lambda m: m.tensor([0]), lambda m: m.ones(4)),
        "assign_list": assigned(lambda m: 0, lambda m: [1.0, 2.0, 3.0, 4.0]),
        "assign_tuple": assigned(lambda m: 0, lambda m: (1.0, 2.0, 3.0, 4.0)),
    }
)
ASSIGNMENTS: dict[str, Scenario] = {
    "assign_cast_basic": assigned(lambda m: 0, lambda m: m.ones(4) * 1.5),
    "assign_cast_mask_0d": assigned(lambda m: x34(m) > 0, lambda m: m.tensor(2.5)),
    "assign_leading_ones": assigned(lambda m: m.tensor([0, 1]), lambda m: m.ones(1, 1, 4).double()),
    "assign_floats_into_long": lambda m: _floats_into_long(m),
}


def _floats_into_long(m: Any) -> Any:
    y = m.tensor([[3, -1, 0], [2, 5, 7]])
    y[0, 0] = 1.7
    y[1] = m.tensor([1.5, 2.5, -3.5])
    return y


# --- behaviours: values, dtypes, grad_fn names, keyword forms ----------------------------------

LONG = [[3, -1, 0], [2, 5, 7]]
BEHAVIOURS: dict[str, Scenario] = {
    # keyword arguments and function forms
    "flip_kw": lambda m: x34(m).flip(dims=(0,)),
    "flip_empty": lambda m: m.flip(x34(m), []),
    "tile_kw": lambda m: x34(m).tile(dims=(2,)),
    "repeat_kw": lambda m: x34(m).repeat(repeats=(2, 1)),
    "repeat_0d": lambda m: m.tensor(2.0).repeat(()),
    "repeat_interleave_kw": lambda m: x34(m).repeat_interleave(repeats=2, dim=0),
    "repeat_interleave_one_count": lambda m: x34(m, True).repeat_interleave(m.tensor([2]), 0),
    "repeat_interleave_0d_count": lambda m: x34(m, True).repeat_interleave(m.tensor(2), dim=0),
    "repeat_interleave_counts_only": lambda m: m.repeat_interleave(m.tensor([1, 0, 3])),
    "repeat_interleave_output_size": lambda m: x34(m).repeat_interleave(
        m.tensor([1, 2, 3]), dim=0, output_size=6
    ),
    "roll_kw": lambda m: x34(m).roll(shifts=1, dims=0),
    "rot90_kw": lambda m: x34(m).rot90(k=-3, dims=(1, 0)),
    "diagonal_kw": lambda m: x34(m).diagonal(offset=1, dim1=1, dim2=0),
    "split_fn_kw": lambda m: m.split(x34(m), split_size_or_sections=2),
    "split_method_kw": lambda m: x34(m).split(split_size=2, dim=1),
    "chunk_kw": lambda m: x34(m).chunk(chunks=2, dim=1),
    "chunk_fewer": lambda m: m.arange(6.0).chunk(4),
    "chunk_empty": lambda m: m.zeros(0).chunk(3),
    "split_empty": lambda m: m.zeros(0, 3).split(0),
    "tensor_split_sections_kw": lambda m: x34(m).tensor_split(sections=2),
    "tensor_split_indices_kw": lambda m: x34(m).tensor_split(indices=(1,)),
    "tensor_split_clamped": lambda m: m.arange(10.0).tensor_split([-3, 20, 2]),
    "tensor_split_tensor": lambda m: x34(m).tensor_split(m.tensor([1, 3]), 1),
    "tensor_split_0d_tensor": lambda m: x34(m).tensor_split(m.tensor(2)),
    "vsplit": lambda m: x34(m).vsplit([1]),
    "hsplit_1d": lambda m: m.arange(4.0).hsplit(2),
    "dsplit": lambda m: m.arange(8.0).reshape(1, 2, 4).dsplit([1, 3]),
    "movedim_kw": lambda m: m.moveaxis(x34(m), source=0, destination=1),
    "movedim_same": lambda m: x34(m, True).movedim(0, 0),
    "movedim_0d": lambda m: m.tensor(1.0, requires_grad=True).movedim(0, -1),
    "flip_0d": lambda m: m.tensor(1.0, requires_grad=True).flip(0),
    "roll_0d": lambda m: m.tensor(1.0, requires_grad=True).roll(3),
    "unflatten_kw": lambda m: x34(m).unflatten(dim=0, sizes=(1, 3)),
    "unflatten_zero": lambda m: m.zeros(3, 0).unflatten(1, (2, 0)),
    "unbind_kw": lambda m: x34(m).unbind(dim=1),
    "unbind_empty": lambda m: m.zeros(0, 3).unbind(),
    "tril_kw": lambda m: x34(m).tril(diagonal=1),
    "diag_kw": lambda m: x34(m).diag(diagonal=-1),
    "diag_embed_kw": lambda m: x34(m).diag_embed(offset=1, dim1=0, dim2=2),
    "hstack_kw": lambda m: m.hstack(tensors=[x34(m), x34(m)]),
    "column_stack_0d": lambda m: m.column_stack([m.tensor(1.0), m.tensor(2.0)]),
    "atleast_1d_many": lambda m: m.atleast_1d(m.tensor(1.0), x34(m)),
    "atleast_2d_list": lambda m: m.atleast_2d([m.tensor(1.0), m.ones(2)]),
    "stack": lambda m: m.stack([x34(m, True), x34(m)], 1),
    "stack_promotes": lambda m: m.stack([m.ones(2), m.ones(2).double()]),
    "gather_kw": lambda m: x34(m).gather(dim=1, index=m.tensor([[0], [1], [2]])),
    "gather_int32": lambda m: x34(m, True).gather(0, m.tensor([[0, 2]], dtype=m.int32)),
    "gather_0d": lambda m: m.tensor(5.0).gather(0, m.tensor([0, 0])),
    "gather_long": lambda m: m.tensor(LONG).gather(1, m.tensor([[2], [0]])),
    "scatter_kw": lambda m: x34(m).scatter(dim=1, index=m.tensor([[0], [1], [2]]), src=x34(m)),
    "scatter_value_kw": lambda m: x34(m).scatter(1, m.tensor([[0], [1]]), value=2.0),
    "scatter_long_float_value": lambda m: m.tensor(LONG).scatter(1, m.tensor([[0]]), 2.7),
    "scatter_reduce_add": lambda m: x34(m).scatter(
        1, m.tensor([[1], [1]]), x34(m)[:2, :1] * 1, reduce="add"
    ),
    "scatter_reduce_multiply": lambda m: x34(m).scatter(1, m.tensor([[1]]), 3.0, reduce="multiply"),
    "scatter_reduce_graph": lambda m: x34(m, True).scatter(1, m.tensor([[1]]), 3.0, reduce="add"),
    "scatter_0d": lambda m: m.tensor(1.0).scatter_add(0, m.tensor(0), m.tensor(2.0)),
    "index_select_0d_index": lambda m: x34(m).index_select(0, m.tensor(2)),
    "index_select_scalar": lambda m: m.tensor(5.0).index_select(0, m.tensor(0)),
    "index_add_kw": lambda m: x34(m).index_add(
        dim=0, index=m.tensor([0, 2, 1]), source=x34(m), alpha=2
    ),
    "index_add_int_alpha": lambda m: m.tensor(LONG).index_add(0, m.tensor([0]), m.tensor(LONG[:1])),
    "index_add_scalar": lambda m: m.tensor(1.0).index_add(0, m.tensor([0]), m.tensor(2.0)),
    "index_copy_scalar": lambda m: m.tensor(1.0).index_copy(0, m.tensor([0]), m.tensor(2.0)),
    "index_fill_kw": lambda m: x34(m).index_fill(dim=0, index=m.tensor([0, 2]), value=2.0),
    "index_fill_long": lambda m: m.tensor(LONG).index_fill(1, m.tensor([0, -1]), 2.5),
    "index_fill_scalar": lambda m: m.tensor(1.0).index_fill(0, m.tensor([0, 0]), 2.0),
    "index_fill_int_value": lambda m: x34(m, True).index_fill(0, m.tensor([0]), m.tensor(2)),
    "masked_fill_kw": lambda m: x34(m).masked_fill(mask=x34(m) > 0, value=1.0),
    "masked_fill_long": lambda m: m.tensor(LONG).masked_fill(m.tensor(LONG) > 0, 1.5),
    "masked_fill_int_tensor": lambda m: x34(m, True).masked_fill(x34(m) > 0, m.tensor(1)),
    "masked_fill_0d_mask": lambda m: x34(m).masked_fill(m.tensor(True), 0.0),
    "masked_fill_grows": lambda m: x34(m)[:, :1].masked_fill(x34(m) > 0, 1.0),
    "masked_select_grows": lambda m: x34(m)[:, :1].masked_select(x34(m) > 0),
    "masked_scatter_grows": lambda m: x34(m)[:, :1].masked_scatter(x34(m) > 0, x34(m)),
    "take_kw": lambda m: x34(m).take(index=m.tensor([[0, -1]])),
    "take_along_dim_kw": lambda m: x34(m).take_along_dim(indices=m.tensor([[1], [0], [3]]), dim=1),
    "take_along_dim_flat": lambda m: m.take_along_dim(x34(m), m.tensor([[5, 0]])),
    "trace_int": lambda m: m.tensor(LONG).int().trace(),
    "flip_long": lambda m: m.tensor(LONG).flip(1),
    "roll_long": lambda m: m.tensor(LONG).roll(1),
    # positions of nonzero elements
    "nonzero": lambda m: m.tensor(LONG).nonzero(),
    "nonzero_tuple": lambda m: m.tensor(LONG).nonzero(as_tuple=True),
    "nonzero_0d": lambda m: (m.tensor(2.0).nonzero(), m.tensor(0.0).nonzero()),
    "nonzero_0d_tuple": lambda m: (
        m.tensor(0.0).nonzero(as_tuple=True),
        m.tensor(2.0).nonzero(as_tuple=True),
    ),
    "nonzero_fn": lambda m: m.nonzero(x34(m) > 0),
    "argwhere": lambda m: m.argwhere(m.tensor([0.0, 1.0, 2.0])),
    "where_one_arg": lambda m: m.where(m.tensor([[0.0, 1.0], [2.0, 0.0]])),
    "where_three_args": lambda m: m.where(x34(m) > 0, x34(m, True), 0.0),
    # in-place forms
    "scatter_inplace_kw": lambda m: x34(m).scatter_(dim=1, index=m.tensor([[0], [1]]), src=x34(m)),
    "masked_fill_inplace_kw": lambda m: x34(m).masked_fill_(mask=x34(m) > 0, value=1.0),
    "index_add_inplace_kw": lambda m: x34(m).index_add_(0, m.tensor([0, 0, 1]), x34(m), alpha=2),
    "index_put_kw": lambda m: x34(m).index_put(
        indices=(m.tensor([0, 0]),), values=m.tensor(1.0), accumulate=True
    ),
    "index_put_inplace_kw": lambda m: x34(m).index_put_(
        indices=[m.tensor([1, 1])], values=m.tensor(2.0)
    ),
    "index_put_negative": lambda m: x34(m).index_put_((m.tensor([-1]),), m.tensor(1.0)),
    "tril_inplace": lambda m: x34(m).tril_(-1),
    "triu_inplace_long": lambda m: m.tensor(LONG).triu_(),
    "masked_scatter_inplace": lambda m: x34(m).masked_scatter_(x34(m) > 0, -x34(m)),
    "index_copy_inplace": lambda m: x34(m).index_copy_(1, m.tensor([3]), x34(m)[:, :1] * 0),
    "index_fill_inplace": lambda m: x34(m).index_fill_(1, m.tensor([3]), 9.0),
    "scatter_add_inplace": lambda m: x34(m).scatter_add_(1, m.tensor([[3, 3]]), x34(m)),
}


BEHAVIOURS.update(ASSIGNMENTS)


@pytest.mark.parametrize("name", list(BEHAVIOURS))
def test_behaviour_matches_torch(torch: Any, name: str) -> None:
    assert_same(outcome(BEHAVIOURS[name], chainrule), outcome(BEHAVIOURS[name], torch))


# --- views: which results share memory with their input, and how they behave ------------------

VIEWS: dict[str, Scenario] = {
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "movedim": lambda x: x.movedim(0, 1),
    "diagonal": lambda x: x.diagonal(1),
    "split": lambda x: x.split(2)[1],
    "split_sizes": lambda x: x.split([1, 2])[0],
    "chunk": lambda x: x.chunk(2, 1)[1],
    "tensor_split": lambda x: x.tensor_split(2, 1)[1],
    "unbind": lambda x: x.unbind(1)[3],
    "narrow": lambda x: x.narrow(0, 0, 3),
    "repeat_interleave": lambda x: x.repeat_interleave(2),
    "flip": lambda x: x.flip(0),
    "diag": lambda x: x.diag(),
    "index_select": lambda x: x.index_select(0, x.detach()[0, :2].long() * 0),
}


def view_facts(m: Any, name: str) -> Any:
    """Whether the result is a view, whether writes to the base show through, its grad_fn."""
    x = x34(m) * 1
    out = VIEWS[name](x)
    is_view = out._base is x
    before = out.detach().numpy().copy()
    x.detach().add_(100.0)
    seen = not np.allclose(out.detach().numpy(), before)
    leaf = x34(m, True)
    return is_view, seen, VIEWS[name](leaf).grad_fn.name()


@pytest.mark.parametrize("name", list(VIEWS))
def test_views_match_torch(torch: Any, name: str) -> None:
    assert view_facts(chainrule, name) == view_facts(torch, name)


def _inplace_on_diagonal(m: Any) -> Any:
    x = x34(m, True)
    y = x * 1
    y.diagonal().mul_(3)
    return [y, *backward_grads(m, y, x)[1:], y.grad_fn.name()]


def _write_into_split_piece(m: Any) -> Any:
    """A split piece of a tensor that needs no grad can take an in-place op with grad."""
    x = x34(m)
    v = m.tensor(2.0, requires_grad=True)
    a, _ = x.split(2)
    a.mul_(v)
    return [x, *backward_grads(m, x, v)[1:], x.grad_fn.name()]


def _split_some_pieces_used(m: Any) -> Any:
    x = x34(m, True)
    a, _, _, d = x.unbind(1)
    return backward_grads(m, a * d + 2 * a, x)


def _iadd_repeated(m: Any) -> Any:
    """`y[idx] += v` reads, adds and writes: a repeated index keeps only its last write."""
    x = x34(m, True)
    v = m.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    y = x * 1
    y[m.tensor([0, 0, 2])] += v
    return [*backward_grads(m, y, x, v), y.grad_fn.name()]


def _accumulate(m: Any) -> Any:
    x = x34(m, True)
    v = m.tensor(np.arange(8.0).reshape(2, 4), requires_grad=True)
    y = (x * 1).index_put_((m.tensor([1, 1]),), v, accumulate=True)
    return backward_grads(m, y, x, v)


def _assign_mask(m: Any) -> Any:
    x = x34(m, True)
    v = m.tensor([10.0, 20.0], requires_grad=True)
    y = x * 1
    y[x > 0.5] = v.repeat(3)[:5]
    return backward_grads(m, y, x, v)


def _assign_broadcast(m: Any) -> Any:
    x = x34(m, True)
    v = m.tensor([10.0, 20.0, 30.0], requires_grad=True)
    y = x * 1
    y[m.tensor([2, 0]), 1:] = v
    return backward_grads(m, y, x, v)


def _read_repeated(m: Any) -> Any:
    x = x34(m, True)
    return backward_grads(m, x[[0, 0, 2, 0]][:, m.tensor([1, 1])], x)


def _view_of_base_scattered(m: Any) -> Any:
    x = x34(m, True)
    y = x * 1
    y[1:].scatter_(1, m.tensor([[0], [3]]), x[:2, :1] * 5)
    return [*backward_grads(m, y, x), y.grad_fn.name()]


def _double_backward_gather(m: Any) -> Any:
    x = x34(m, True)
    out = (x.gather(1, m.tensor([[0, 0], [3, 1], [2, 2]])) ** 3).sum()
    (g,) = m.autograd.grad(out, x, create_graph=True)
    (gg,) = m.autograd.grad((g * g).sum(), x)
    return [g, gg]


def _double_backward_split(m: Any) -> Any:
    x = x34(m, True)
    a, b = x.split([1, 2])
    out = (a**2).sum() * (b**3).sum()
    (g,) = m.autograd.grad(out, x, create_graph=True)
    (gg,) = m.autograd.grad(g.sum(), x)
    return [g, gg]


GRADIENTS: dict[str, Scenario] = {
    "inplace_on_diagonal": _inplace_on_diagonal,
    "write_into_split_piece": _write_into_split_piece,
    "split_some_pieces_used": _split_some_pieces_used,
    "iadd_repeated": _iadd_repeated,
    "index_put_accumulate": _accumulate,
    "assign_mask": _assign_mask,
    "assign_broadcast": _assign_broadcast,
    "read_repeated": _read_repeated,
    "view_of_base_scattered": _view_of_base_scattered,
    "double_backward_gather": _double_backward_gather,
    "double_backward_split": _double_backward_split,
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients_match_torch(torch: Any, name: str) -> None:
    assert_same(outcome(GRADIENTS[name], chainrule), outcome(GRADIENTS[name], torch))


# --- fixed expectations, without torch -------------------------------------------------------


def test_scatter_reads_only_the_indexed_corner_of_src() -> None:
    """Deliberate difference: src larger than index gets zeros where unread (PyTorch errors)."""
    x = x34(chainrule, True)
    src = chainrule.full((3, 4), 2.0, requires_grad=True)
    index = chainrule.tensor([[0, 1]])
    for fn in (
        lambda a, s: a.scatter(0, index, s),
        lambda a, s: a.scatter_add(0, index, s),
        lambda a, s: (a * 1).scatter_(1, index, s),
    ):
        assert gradcheck(fn, (x.double(), src.double()))
        assert gradgradcheck(fn, (x.double(), src.double()))
    fn(x, src).sum().backward()
    expected = np.zeros((3, 4))
    expected[0, :2] = 1
    np.testing.assert_array_equal(src.grad.numpy(), expected)


def test_take_along_dim_checks_bounds() -> None:
    """Deliberate difference: PyTorch reads out-of-range indices here without a check."""
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 1 with size 4"):
        x34(chainrule).take_along_dim(chainrule.tensor([[0], [5], [1]]), 1)


def test_scatter_reduce_has_no_derivative() -> None:
    x = x34(chainrule, True)
    out = x.scatter(1, chainrule.tensor([[1]]), 2.0, reduce="multiply")
    assert out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        out.sum().backward()


def test_split_pieces_share_one_node_and_memory() -> None:
    x = x34(chainrule, True)
    pieces = x.split(1)
    assert len({id(p.grad_fn) for p in pieces}) == 1
    assert [p.output_nr for p in pieces] == [0, 1, 2]
    assert all(p._base is x for p in pieces)
    y = x.detach()
    y[1, 1] = 42.0
    # The write shows in the piece; its graph can no longer be used (as in PyTorch).
    assert pieces[1].detach()[0, 1].item() == 42.0
    assert pieces[1]._version == x._version == 1


def test_multi_output_views_are_writable_without_grad() -> None:
    x = x34(chainrule) * 1
    with chainrule.no_grad():
        x.requires_grad_(False)
        a, _ = x.split(2)
        a.mul_(0)
    assert float(x[:2].abs().sum()) == 0.0


def test_index_put_accumulate_adds_repeats() -> None:
    x = chainrule.zeros(3)
    x.index_put_((chainrule.tensor([0, 0, 2, 0]),), chainrule.tensor(1.0), accumulate=True)
    assert x.tolist() == [3.0, 0.0, 1.0]


# --- drawn shapes: rearranging ops against NumPy -----------------------------------------------


@st.composite
def shaped(draw: st.DrawFn) -> tuple[np.ndarray, int, int]:
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    values = draw(hnp.arrays(np.float64, shape, elements=st.floats(-2, 2)))
    n = len(shape)
    return values, draw(st.integers(-n, n - 1)), draw(st.integers(-5, 5))


REARRANGING: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "flip": (lambda x, d, k: x.flip(d), lambda a, d, k: np.flip(a, d)),
    "roll": (lambda x, d, k: x.roll(k, d), lambda a, d, k: np.roll(a, k, d)),
    "movedim": (lambda x, d, k: x.movedim(d, 0), lambda a, d, k: np.moveaxis(a, d, 0)),
    "repeat_interleave": (
        lambda x, d, k: x.repeat_interleave(abs(k), d),
        lambda a, d, k: np.repeat(a, abs(k), d),
    ),
    "split": (
        lambda x, d, k: x.split(abs(k) or 1, d)[-1],
        lambda a, d, k: (
            np.split(a, range(abs(k) or 1, a.shape[d], abs(k) or 1), d)[-1] if a.shape[d] else a
        ),
    ),
    "tensor_split": (
        lambda x, d, k: x.tensor_split(abs(k) or 1, d)[0],
        lambda a, d, k: np.array_split(a, abs(k) or 1, d)[0],
    ),
    "diagonal": (
        lambda x, d, k: x.diagonal(k, 0, -1) if x.ndim > 1 else x,
        lambda a, d, k: np.diagonal(a, k, 0, -1) if a.ndim > 1 else a,
    ),
    "tril": (
        lambda x, d, k: x.tril(k) if x.ndim > 1 else x,
        lambda a, d, k: np.tril(a, k) if a.ndim > 1 else a,
    ),
}


@pytest.mark.parametrize("name", list(REARRANGING))
@given(args=shaped())
def test_drawn_rearranging_against_numpy(name: str, args: tuple[np.ndarray, int, int]) -> None:
    values, dim, k = args
    op, ref = REARRANGING[name]
    x = chainrule.tensor(values, requires_grad=True)
    out = op(x, dim, k)
    expected = ref(values, dim, k)
    assert tuple(out.shape) == expected.shape
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    if 0 < values.size <= 12 and out.numel():
        assert gradcheck(lambda t: op(t, dim, k), (x,))
