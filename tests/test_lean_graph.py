"""What a recorded op keeps, and what the first-order backward copies.

A node keeps its saved values in slots, as the tensors and arrays themselves, until
something needs a SavedTensor; the engine moves arrays, and AccumulateGrad takes
over a first gradient that only the backward holds (as PyTorch does).
"""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from collections.abc import Callable

import numpy as np
import pytest

import chainrule
from chainrule._backward.saved import SavedTensor


def _chain(x: chainrule.Tensor, rounds: int) -> chainrule.Tensor:
    y = x
    for _ in range(rounds):
        y = (y * 1.001 + 1e-4).tanh().sin()
    return y


def test_a_node_keeps_its_saved_input_and_output_without_saved_tensors() -> None:
    x = chainrule.tensor([0.5, -1.0], requires_grad=True)
    s = x.sin()
    t = x.tanh()
    assert s.grad_fn._keep_self is x
    assert type(t.grad_fn._keep_result) is np.ndarray
    assert t.grad_fn._keep_result is t._data
    assert x._vc is None  # no version counter until something needs one


def test_saved_reads_make_saved_tensors_that_stay() -> None:
    x = chainrule.tensor([0.5, -1.0], requires_grad=True)
    s = x.sin()
    saved = s.grad_fn._saved
    assert isinstance(saved["self"], SavedTensor)
    assert s.grad_fn._saved["self"] is saved["self"]
    assert s.grad_fn._saved_self is x


def test_a_lean_saved_input_written_in_place_fails_with_pytorchs_message() -> None:
    x = chainrule.tensor([0.5, -1.0], requires_grad=True)
    a = x * 1
    b = a.sin()
    a.add_(1)
    with pytest.raises(RuntimeError) as err:
        b.sum().backward()
    # As PyTorch's (the tensor's producer is now the in-place add).
    assert "FloatTensor [2]], which is output 0 of Add, is at version 1; expected version 0" in (
        str(err.value)
    )


def test_a_lean_saved_output_written_in_place_fails() -> None:
    x = chainrule.tensor([0.5, -1.0], requires_grad=True)
    y = x.exp()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="output 0 of Exp, is at version 1"):
        y.sum().backward()


def test_an_input_written_before_it_is_saved_is_checked_against_that_version() -> None:
    x = chainrule.tensor([0.5, -1.0], requires_grad=True)
    a = x * 1
    a.add_(1)
    b = a.sin()  # saved at version 1: the general form
    assert isinstance(b.grad_fn._keep_self, SavedTensor)
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.5, 0.0]))


def test_recorded_ops_add_few_objects_for_the_garbage_collector() -> None:
    x = chainrule.linspace(-1, 1, 4, dtype=chainrule.float64, requires_grad=True)
    _chain(x, 5)
    gc.collect()
    before = len(gc.get_objects())
    y = _chain(x, 250)
    gc.collect()
    per_op = (len(gc.get_objects()) - before) / 1000
    del y
    # A node, its edge and metadata tuples, and about one kept tensor: no dicts, no
    # SavedTensors, no version counters for inputs.
    assert per_op <= 4.0


def test_a_graph_dies_with_its_last_tensor_without_the_collector() -> None:
    enabled = gc.isenabled()
    gc.disable()
    try:
        x = chainrule.linspace(-1, 1, 4, dtype=chainrule.float64, requires_grad=True)
        y = _chain(x, 50)
        node = weakref.ref(y.grad_fn)
        first = weakref.ref(y.grad_fn.next_functions[0][0])
        y.sum().backward()
        del y
        assert node() is None and first() is None
    finally:
        if enabled:
            gc.enable()


def _backward_peak(
    x: chainrule.Tensor,
    gradient: chainrule.Tensor | None = None,
    op: Callable[[chainrule.Tensor], chainrule.Tensor] = lambda x: x * 2,
) -> int:
    y = op(x)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        if gradient is None:
            y.sum().backward()
        else:
            y.backward(gradient)
        return tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


def test_accumulate_grad_takes_over_a_gradient_only_the_backward_holds() -> None:
    n = 1_000_000
    x = chainrule.zeros(n, dtype=chainrule.float64, requires_grad=True)
    peak = _backward_peak(x)
    # One gradient array (8 MB) at the peak: the leaf's .grad is it, not a copy of it.
    assert 8 * n <= peak < 12 * n
    np.testing.assert_array_equal(x.grad.numpy(), np.full(n, 2.0))


@pytest.mark.parametrize("op", [chainrule.Tensor.neg, chainrule.Tensor.exp], ids=["neg", "exp"])
def test_a_one_input_node_hands_its_gradient_over_too(
    op: Callable[[chainrule.Tensor], chainrule.Tensor],
) -> None:
    # The engine keeps no reference to a gradient it has sent on, whatever the number
    # of the node's inputs: the leaf takes the only one over.
    n = 1_000_000
    x = chainrule.zeros(n, dtype=chainrule.float64, requires_grad=True)
    peak = _backward_peak(x, op=op)
    assert 8 * n <= peak < 12 * n


def test_a_gradient_someone_else_holds_is_copied() -> None:
    x = chainrule.zeros(3, requires_grad=True)
    g = chainrule.ones(3)
    x.backward(g)
    assert x.grad is not g and not np.shares_memory(x.grad._data, g._data)
    g.add_(1)
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(3))
    a = chainrule.zeros(3, requires_grad=True)
    b = chainrule.zeros(3, requires_grad=True)
    (a + b).backward(g)  # add passes one gradient array to both leaves
    assert not np.shares_memory(a.grad._data, b.grad._data)
    assert not np.shares_memory(a.grad._data, g._data)
    np.testing.assert_array_equal(a.grad.numpy(), np.full(3, 2.0))


def test_a_hook_keeping_the_gradient_keeps_it_apart_from_grad() -> None:
    x = chainrule.zeros(3, requires_grad=True)
    kept = []
    y = x * 2
    y.register_hook(lambda g: kept.append(g))
    (y * 3).sum().backward()
    x.grad.add_(1)
    np.testing.assert_array_equal(kept[0].numpy(), np.full(3, 3.0))


def test_grad_returns_the_callers_own_gradient_tensor() -> None:
    x = chainrule.ones(2, requires_grad=True)
    v = chainrule.tensor([1.0, 2.0])
    (got,) = chainrule.autograd.grad(x, x, v)
    assert got is v


def test_a_number_operand_is_kept_without_a_tensor_until_read() -> None:
    x = chainrule.tensor([1.0, 2.0], dtype=chainrule.float64, requires_grad=True)
    y = x * 1.5
    node = y.grad_fn
    assert type(node._keep_other) is np.ndarray  # the number operand's 0-d array
    assert node.next_functions[1] == (None, 0)
    saved = node._saved_other
    assert saved is node._saved_other  # one tensor, as PyTorch gives
    assert saved.item() == 1.5 and saved.dtype == chainrule.float64 and not saved.requires_grad
    (g,) = chainrule.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [1.5, 1.5])


def test_number_operands_match_torch(torch) -> None:  # type: ignore[no-untyped-def]
    for lib in (chainrule, torch):
        x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        y = ((x * 1.5 + 2) / 3.0 - 1) * 4
        y.sum().backward()
        node = (x * 2.5).grad_fn
        got = (y.detach().numpy(), x.grad.numpy(), node._saved_other.item())
        if lib is chainrule:
            ours = got
    np.testing.assert_array_equal(ours[0], got[0])
    np.testing.assert_array_equal(ours[1], got[1])
    assert ours[2] == got[2]


def test_shared_number_operands_stay_apart_from_the_tensors_given_out() -> None:
    x = chainrule.ones(2, requires_grad=True)
    first, second = (x * 1.25).grad_fn, (x * 1.25).grad_fn
    assert first._keep_other is second._keep_other  # one shared, read-only array
    saved = first._saved_other
    saved.add_(1)  # the caller's own copy: the other node and later ops keep 1.25
    assert second._saved_other.item() == 1.25
    np.testing.assert_array_equal((x * 1.25).detach().numpy(), [1.25, 1.25])
    (x * 1.25).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.25, 1.25])
    # -0.0 and 0.0 are equal keys but different numbers: they are not shared.
    assert np.signbit((x * -0.0).detach().numpy()).all()
    assert not np.signbit((x * 0.0).detach().numpy()).any()


def test_binary_nodes_share_their_parameters() -> None:
    x = chainrule.ones(2, requires_grad=True)
    y = chainrule.ones(2)
    # {dt, alpha: 1} and {dt}: one dict for every such node, not one per node.
    assert (x + y).grad_fn._params is (x + 2.0).grad_fn._params
    assert (x * y).grad_fn._params is (x * 3).grad_fn._params
    assert (x * y).grad_fn._params == {"dt": np.dtype(np.float32)}
    # An alpha given as a float is kept as given (explain shows it).
    node = chainrule.add(x, y, alpha=1.0).grad_fn
    assert node.alpha == 1.0 and type(node.alpha) is float
