"""Outputs of ops that return several views (split, split_with_sizes, chunk, unbind), and
views taken of them, after their memory is written in place: PyTorch refuses to use
their graph (grad_fn, ops that record, backward, hooks) and to write them in place,
while reads that need no graph still work. tensor_split and hsplit/vsplit return
slices, whose grad_fn is remade instead. Each pattern is run for each op on chainrule
and torch, and the messages are also checked against recorded text.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

import chainrule

ADVICE = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation "
    "by an out-of-place one."
)
WRITTEN = "its base or another view of its base has been modified inplace"

# Each takes (library, tensor of shape (4, 3)) and returns at least two outputs.
MULTI_VIEW_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "split": lambda m, x: x.split(2),
    "split_sizes": lambda m, x: m.split(x, [1, 3]),
    "split_with_sizes": lambda m, x: m.split_with_sizes(x, [3, 1]),
    "split_with_sizes_method": lambda m, x: x.split_with_sizes([2, 1], dim=1),
    "chunk": lambda m, x: x.chunk(2),
    "unbind": lambda m, x: x.unbind(),
    "unbind_dim1": lambda m, x: m.unbind(x, 1),
}
SLICING_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "tensor_split": lambda m, x: x.tensor_split(2),
    "hsplit": lambda m, x: x.hsplit(3),
    "vsplit": lambda m, x: m.vsplit(x, 2),
}
# The name PyTorch gives each multi-view op's outputs in its messages.
OP_NAMES = {
    "split": "Split",
    "split_sizes": "SplitWithSizes",
    "split_with_sizes": "SplitWithSizes",
    "split_with_sizes_method": "SplitWithSizes",
    "chunk": "Split",
    "unbind": "Unbind",
    "unbind_dim1": "Unbind",
}


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", fn())
    except RuntimeError as e:
        return ("RuntimeError", str(e).replace("chainrule.", "torch."))


def _values(t: Any) -> Any:
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def _node(t: Any) -> Any:
    return None if t.grad_fn is None else t.grad_fn.name()


def _start(m: Any, op: Callable[[Any, Any], Any]) -> tuple[Any, Any, Any]:
    leaf = m.arange(12.0).reshape(4, 3).requires_grad_()
    x = leaf.clone()
    return leaf, x, op(m, x)


# Patterns: each writes the outputs' memory some way, then uses one output.
def _base_written_then_op(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    x.mul_(2)
    return _node(outs[0] * 2)


def _base_written_then_grad_fn(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    x.add_(1)
    return _node(outs[-1])


def _another_view_written(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    x[0, 0] = 5.0
    return _node(outs[0].sum())


def _sibling_written_under_no_grad(m: Any, op: Any) -> Any:
    _, _, outs = _start(m, op)
    with m.no_grad():
        outs[1].mul_(2)
    return _node(outs[0])


def _written_output_under_no_grad(m: Any, op: Any) -> Any:
    _, _, outs = _start(m, op)
    with m.no_grad():
        outs[1].mul_(2)
    return _node(outs[1])


def _base_written_under_no_grad(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    with m.no_grad():
        x.mul_(2)
    return _node(outs[0].clone())


def _leaf_written_under_no_grad(m: Any, op: Any) -> Any:
    leaf = m.ones(4, 3, requires_grad=True)
    outs = op(m, leaf)
    with m.no_grad():
        leaf.mul_(3)
    return _node(outs[1] + 1)


def _detached_base_written(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    x.detach().zero_()
    return outs[0].is_leaf


def _backward_from_the_output(m: Any, op: Any) -> Any:
    leaf, x, outs = _start(m, op)
    x.mul_(2)
    outs[0].sum().backward()
    return _values(leaf.grad)


def _written_twice(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    x.mul_(2)
    x.mul_(2)
    return _node(outs[0].sum() + outs[1].sum())


def _hooks(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    x.mul_(2)
    return [
        _outcome(lambda: outs[0].register_hook(lambda g: g) and None),
        _outcome(lambda: outs[0].retain_grad()),
        _outcome(lambda: outs[0].is_leaf),
    ]


def _no_requires_grad(m: Any, op: Any) -> Any:
    x = m.arange(12.0).reshape(4, 3)
    outs = op(m, x)
    x.mul_(2)
    return [_node(outs[0] * 2), _values(outs[0]), outs[0].requires_grad]


def _base_gains_requires_grad(m: Any, op: Any) -> Any:
    x = m.arange(12.0).reshape(4, 3)
    outs = op(m, x)
    x.mul_(m.ones(4, 3, requires_grad=True))
    return [outs[0].requires_grad, _node(outs[0] * 2)]


def _written_with_a_requires_grad_value(m: Any, op: Any) -> Any:
    x = m.arange(12.0).reshape(4, 3)
    outs = op(m, x)
    outs[0].mul_(m.ones(outs[0].shape, requires_grad=True))
    return _node(outs[0])


def _written_directly(m: Any, op: Any) -> Any:
    _, _, outs = _start(m, op)
    outs[1].add_(1)
    return _node(outs[1])


def _data_written(m: Any, op: Any) -> Any:
    # `.data` shares no version counter: the write is invisible to autograd.
    leaf, x, outs = _start(m, op)
    x.data.mul_(2)
    (outs[0] * 1).sum().backward()
    return [_node(outs[0]), _values(leaf.grad)]


def _graph_recorded_before_the_write(m: Any, op: Any) -> Any:
    leaf, x, outs = _start(m, op)
    total = (outs[0] * outs[1].sum()).sum()
    x.mul_(2)
    total.backward()
    return _values(leaf.grad)


def _reads_that_need_no_graph(m: Any, op: Any) -> Any:
    _, x, outs = _start(m, op)
    x.mul_(2)
    v = outs[0]
    with m.no_grad():
        doubled = v * 2
    return [
        v.requires_grad,
        v.output_nr,
        v._version,
        list(v.shape),
        _values(v),
        _values(doubled),
        v.detach().requires_grad,
        (v > 4).tolist(),
        v.contiguous() is v,
        v.requires_grad_() is v,
        repr(v).replace("torch.", "chainrule."),
    ]


PATTERNS = [
    _base_written_then_op,
    _base_written_then_grad_fn,
    _another_view_written,
    _sibling_written_under_no_grad,
    _written_output_under_no_grad,
    _base_written_under_no_grad,
    _leaf_written_under_no_grad,
    _detached_base_written,
    _backward_from_the_output,
    _written_twice,
    _hooks,
    _no_requires_grad,
    _base_gains_requires_grad,
    _written_with_a_requires_grad_value,
    _written_directly,
    _data_written,
    _graph_recorded_before_the_write,
    _reads_that_need_no_graph,
]
ALL_OPS = {**MULTI_VIEW_OPS, **SLICING_OPS}
# Not `_hooks` on the slicing ops: torch 2.13 crashes (a segmentation fault) registering a
# hook on a view whose grad_fn it remade.
CASES = [
    (o, p) for o, p in itertools.product(ALL_OPS, PATTERNS) if o in MULTI_VIEW_OPS or p != _hooks
]


@pytest.mark.parametrize(
    ("op_name", "pattern"), CASES, ids=[f"{o}-{p.__name__.strip('_')}" for o, p in CASES]
)
def test_matches_torch(torch: Any, op_name: str, pattern: Any) -> None:
    op = ALL_OPS[op_name]
    assert _outcome(lambda: pattern(chainrule, op)) == _outcome(lambda: pattern(torch, op))


# Views of a split's output share its rules, under their own op's name.
DERIVED_VIEWS: dict[str, Callable[[Any], Any]] = {
    "Select": lambda v: v[0],
    "Slice": lambda v: v[:, 1:],
    "View": lambda v: v.view(-1),
    "T": lambda v: v.t(),
    "Transpose": lambda v: v.transpose(0, 1),
    "Unsqueeze": lambda v: v.unsqueeze(0),
    "Expand": lambda v: v[:1].expand(3, 3),
    "Alias": lambda v: v[...],
    "Diagonal": lambda v: v.diagonal(),
    "Permute": lambda v: v.permute(1, 0),
    "Squeeze": lambda v: v[:1].squeeze(),
    "Split": lambda v: v.chunk(2)[1],
    "Unbind": lambda v: v.unbind(1)[2],
}


def _derived(m: Any, make: Callable[[Any], Any], write_base: bool) -> Any:
    leaf = m.arange(12.0).reshape(4, 3).requires_grad_()
    x = leaf.clone()
    v = make(x.split(2)[1])
    if write_base:
        x.add_(1)
        return _outcome(lambda: _node(v))
    return _outcome(lambda: v.mul_(2) and None)


@pytest.mark.parametrize("write_base", [True, False], ids=["base_written", "written"])
@pytest.mark.parametrize("name", list(DERIVED_VIEWS))
def test_views_of_an_output(torch: Any, name: str, write_base: bool) -> None:
    make = DERIVED_VIEWS[name]
    assert _derived(chainrule, make, write_base) == _derived(torch, make, write_base)


@pytest.mark.parametrize("name", list(DERIVED_VIEWS))
def test_views_of_an_output_recorded(name: str) -> None:
    nr = {"Split": 1, "Unbind": 2}.get(name, 0)
    assert _derived(chainrule, DERIVED_VIEWS[name], True) == (
        "RuntimeError",
        f"Output {nr} of {name} is a view and {WRITTEN}. {ADVICE}",
    )
    assert _derived(chainrule, DERIVED_VIEWS[name], False) == (
        "RuntimeError",
        f"Output {nr} of {name} is a view and is being modified inplace. {ADVICE}",
    )


@pytest.mark.parametrize("op_name", list(MULTI_VIEW_OPS))
def test_recorded_messages(op_name: str) -> None:
    op, name = MULTI_VIEW_OPS[op_name], OP_NAMES[op_name]
    last = len(op(chainrule, chainrule.zeros(4, 3))) - 1
    for pattern, nr in [
        (_base_written_then_op, 0),
        (_base_written_then_grad_fn, last),
        (_another_view_written, 0),
        (_written_output_under_no_grad, 1),
        (_leaf_written_under_no_grad, 1),
    ]:
        assert _outcome(lambda p=pattern: p(chainrule, op)) == (
            "RuntimeError",
            f"Output {nr} of {name} is a view and {WRITTEN}. {ADVICE}",
        )
    assert _outcome(lambda: _written_directly(chainrule, op)) == (
        "RuntimeError",
        f"Output 1 of {name} is a view and is being modified inplace. {ADVICE}",
    )
    assert _outcome(lambda: _base_gains_requires_grad(chainrule, op)) == (
        "RuntimeError",
        f"A view was created in no_grad mode and {WRITTEN} with grad mode enabled. {ADVICE}",
    )
    assert _outcome(lambda: _written_with_a_requires_grad_value(chainrule, op)) == (
        "RuntimeError",
        f"A view was created in no_grad mode and is being modified inplace with grad mode "
        f"enabled. {ADVICE}",
    )


@pytest.mark.parametrize("op_name", list(MULTI_VIEW_OPS))
def test_stale_outputs_print_an_invalid_grad_fn(op_name: str) -> None:
    _, x, outs = _start(chainrule, MULTI_VIEW_OPS[op_name])
    x.mul_(2)
    assert repr(outs[0]).endswith("grad_fn=<Invalid>)")
    assert type(outs[0]) is not chainrule.Tensor and isinstance(outs[0], chainrule.Tensor)
    assert repr(type(outs[0])) == repr(chainrule.Tensor)


@pytest.mark.parametrize("op_name", list(SLICING_OPS))
def test_slicing_ops_remake_their_views(op_name: str) -> None:
    leaf, x, outs = _start(chainrule, SLICING_OPS[op_name])
    x.mul_(2)
    assert _node(outs[0]) == "AsStridedBackward0"
    outs[0].sum().backward()
    expected = chainrule.zeros(4, 3)
    expected[: outs[0].shape[0], : outs[0].shape[1]] = 2.0
    assert leaf.grad.tolist() == expected.tolist()


def test_a_graph_recorded_before_the_write_still_runs() -> None:
    leaf = chainrule.ones(4, 3, requires_grad=True)
    x = leaf.clone()
    a, b = x.split(2)
    total = (a * 3).sum() + (b * 5).sum()
    x.mul_(2)
    total.backward()
    assert leaf.grad.tolist() == [[3.0] * 3] * 2 + [[5.0] * 3] * 2
