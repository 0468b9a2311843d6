"""chainrule.viz.record: forward values and backward gradients, per node, without leaks."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import numpy as np
import pytest

import chainrule as torch
from chainrule.autograd.graph import backward_watchers, node_watchers
from chainrule.viz import Recording, record


def as_lists(arrays: list[Any] | None) -> list[Any] | None:
    return None if arrays is None else [None if a is None else a.tolist() for a in arrays]


def seed_graph() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a + 3
    c = b * b * 3
    out = c.mean()
    return a, b, c, out


def test_forward_values_and_backward_gradients_of_the_seed_example() -> None:
    with record() as rec:
        _, b, c, out = seed_graph()
        out.backward()
    mean, times3 = out.grad_fn, c.grad_fn
    square = times3.next_functions[0][0]
    add = b.grad_fn
    acc = add.next_functions[0][0]
    assert as_lists(rec.value(mean)) == [91.5]
    assert as_lists(rec.value(times3)) == [[75.0, 108.0]]
    assert as_lists(rec.value(square)) == [[25.0, 36.0]]
    assert as_lists(rec.value(add)) == [[5.0, 6.0]]
    assert as_lists(rec.value(acc)) == [[2.0, 3.0]]  # a leaf's value is its tensor's
    assert as_lists(rec.grad_outputs(mean)) == [1.0]
    assert as_lists(rec.grad_inputs(mean)) == [[0.5, 0.5]]
    assert as_lists(rec.grad_inputs(times3)) == [[1.5, 1.5], None]  # 3 needs no gradient
    assert as_lists(rec.grad_inputs(square)) == [[7.5, 9.0], [7.5, 9.0]]
    # The engine added the two contributions before AddBackward0 ran.
    assert as_lists(rec.grad_outputs(add)) == [[15.0, 18.0]]
    assert as_lists(rec.grad_outputs(acc)) == [[15.0, 18.0]]
    assert rec.grad_inputs(acc) == []
    assert [rec.step(n) for n in (mean, times3, square, add, acc)] == [1, 2, 3, 4, 5]
    assert rec.last_root is mean


def test_values_are_copies_taken_when_the_node_was_made() -> None:
    with record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y.exp()
    y.data.add_(100)  # changes the tensor, not what MulBackward0 made
    assert as_lists(rec.value(y.grad_fn)) == [[2.0, 4.0]]
    assert rec.value(z.grad_fn)[0].dtype == np.float32


def test_nodes_outside_the_block_are_unknown() -> None:
    *_, out = seed_graph()
    with record() as rec:
        d = out * 2
    assert rec.value(out.grad_fn) is None
    assert rec.grad_outputs(out.grad_fn) is None and rec.step(out.grad_fn) is None
    assert rec.value(d.grad_fn) is not None
    assert rec.last_root is None
    out.backward()  # after the block: nothing recorded
    assert rec.grad_outputs(out.grad_fn) is None


def test_a_node_with_several_outputs() -> None:
    with record() as rec:
        x = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
        values, vectors = torch.linalg.eigh(x)
        (values.sum() + vectors.sum()).backward()
    node = values.grad_fn
    assert node is vectors.grad_fn
    got = rec.value(node)
    assert len(got) == 2
    np.testing.assert_allclose(got[0], values.detach().numpy())
    np.testing.assert_allclose(got[1], vectors.detach().numpy())
    assert len(rec.grad_outputs(node)) == 2


def test_a_custom_function() -> None:
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: torch.Tensor) -> torch.Tensor:
            ctx.save_for_backward(t)
            return t**3

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
            (t,) = ctx.saved_tensors
            return 3 * t * t * grad

    with record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = Cube.apply(x)
        y.sum().backward()
    assert as_lists(rec.value(y.grad_fn)) == [[1.0, 8.0]]
    assert as_lists(rec.grad_inputs(y.grad_fn)) == [[3.0, 12.0]]


def test_a_second_backward_overwrites_the_gradients() -> None:
    with record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        first = rec.last_root
        y.backward(torch.tensor(2.0))
    assert first is y.grad_fn and rec.last_root is y.grad_fn
    assert as_lists(rec.grad_outputs(y.grad_fn)) == [2.0]
    assert rec.step(y.grad_fn) == 1


def test_create_graph_records_the_nodes_backward_makes() -> None:
    with record() as rec:
        x = torch.tensor(3.0, requires_grad=True)
        (dy,) = torch.autograd.grad(x**2, x, create_graph=True)
    assert dy.grad_fn is not None
    assert as_lists(rec.value(dy.grad_fn)) == [6.0]


def test_watchers_are_removed_on_exit_and_on_error() -> None:
    before = (len(node_watchers), len(backward_watchers))
    with record():
        assert (len(node_watchers), len(backward_watchers)) == (before[0] + 1, before[1] + 1)
    assert (len(node_watchers), len(backward_watchers)) == before
    with pytest.raises(ZeroDivisionError), record():
        1 / 0  # noqa: B018
    assert (len(node_watchers), len(backward_watchers)) == before


def test_nested_recordings_each_remove_their_own_watchers() -> None:
    with record() as outer:
        with record() as inner:
            y = torch.tensor(1.0, requires_grad=True) * 2
        z = y * 3
    assert inner.value(y.grad_fn) is not None and inner.value(z.grad_fn) is None
    assert outer.value(y.grad_fn) is not None and outer.value(z.grad_fn) is not None
    assert not node_watchers and not backward_watchers


def test_other_threads_are_not_recorded() -> None:
    made: list[torch.Tensor] = []

    def work() -> None:
        made.append(torch.tensor(1.0, requires_grad=True) * 2)

    with record() as rec:
        worker = threading.Thread(target=work)
        worker.start()
        worker.join()
    assert rec.value(made[0].grad_fn) is None


def test_a_recording_keeps_no_graph_alive() -> None:
    def run() -> tuple[Recording, weakref.ref[Any], weakref.ref[Any]]:
        with record() as rec:
            a, *_, out = seed_graph()
            out.backward(retain_graph=True)
        assert rec.value(out.grad_fn) is not None
        return rec, weakref.ref(out.grad_fn), weakref.ref(a)

    gc.collect()
    gc.disable()  # reference counting alone must free the graph
    try:
        rec, node, leaf = run()
        assert node() is None and leaf() is None
        assert repr(rec) == "<Recording of 0 forward and 0 backward nodes>"
        assert rec.last_root is None
    finally:
        gc.enable()
