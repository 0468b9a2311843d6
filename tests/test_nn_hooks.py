"""Module hooks: forward pre-hooks and forward hooks (kwargs, prepend, always_call), full
backward hooks and pre-hooks (grad_input and grad_output), the deprecated backward hook,
global hooks and registration hooks: call order, arguments and replaced values.

Scenarios run on chainrule and torch; recorded expectations below run without torch.
"""

from __future__ import annotations

from typing import Any

import pytest

import chainrule
from nn_compare import assert_same, outcome
from torch_compare import registry

SCENARIOS, scenario = registry()
nn = chainrule.nn


def shapes(grads: Any) -> Any:
    return [None if g is None else tuple(g.shape) for g in grads]


def scaler(m: Any) -> Any:
    """A module computing 2·x + y with a keyword argument."""

    class Scale(m.nn.Module):
        def forward(self, x: Any, y: Any = None, *, shift: float = 0.0) -> Any:
            out = 2 * x + shift
            return out if y is None else out + y

    return Scale()


@scenario
def forward_hooks_order_and_arguments(m: Any) -> Any:
    mod = scaler(m)
    calls: list[Any] = []
    mod.register_forward_pre_hook(lambda md, args: calls.append(("pre", len(args))))
    mod.register_forward_pre_hook(
        lambda md, args, kwargs: calls.append(("pre_kw", sorted(kwargs))), with_kwargs=True
    )
    mod.register_forward_pre_hook(lambda md, args: calls.append("first"), prepend=True)
    mod.register_forward_hook(lambda md, args, out: calls.append(("fwd", out)))
    mod.register_forward_hook(
        lambda md, args, kwargs, out: calls.append(("fwd_kw", kwargs)), with_kwargs=True
    )
    mod.register_forward_hook(lambda md, args, out: calls.append("fwd_first"), prepend=True)
    out = mod(m.tensor([1.0]), shift=1.0)
    return [calls, out]


@scenario
def hooks_replace_inputs_and_outputs(m: Any) -> Any:
    mod = scaler(m)
    h1 = mod.register_forward_pre_hook(lambda md, args: args[0] + 1)  # one value: a 1-tuple
    h2 = mod.register_forward_hook(lambda md, args, out: out * 10)
    h3 = mod.register_forward_pre_hook(
        lambda md, args, kwargs: (args, {"shift": 5.0}), with_kwargs=True
    )
    first = mod(m.tensor([1.0]))
    h3.remove()
    second = mod(m.tensor([1.0]))
    h1.remove()
    h2.remove()
    third = mod(m.tensor([1.0]))
    bad = mod.register_forward_pre_hook(lambda md, a, k: 3, with_kwargs=True)
    try:
        mod(m.tensor([1.0]))
    except RuntimeError as e:
        error = str(e)
    bad.remove()
    return [first, second, third, error, len(mod._forward_pre_hooks_with_kwargs)]


@scenario
def always_call_hooks_run_when_forward_raises(m: Any) -> Any:
    class Broken(m.nn.Module):
        def forward(self, x: Any) -> Any:
            raise ValueError("broken forward")

    mod = Broken()
    calls: list[Any] = []
    mod.register_forward_hook(lambda md, a, out: calls.append(("always", out)), always_call=True)
    mod.register_forward_hook(lambda md, a, out: calls.append("normal"))
    try:
        mod(m.ones(1))
    except ValueError as e:
        calls.append(str(e))
    return calls


@scenario
def full_backward_hooks(m: Any) -> Any:
    m.manual_seed(0)
    lin = m.nn.Linear(3, 2)
    calls: list[Any] = []

    def pre(md: Any, grad_output: Any) -> Any:
        calls.append(("pre", shapes(grad_output)))
        return (grad_output[0] * 2,)

    def post(md: Any, grad_input: Any, grad_output: Any) -> Any:
        calls.append(("post", shapes(grad_input), grad_output[0]))

    lin.register_full_backward_pre_hook(pre)
    lin.register_full_backward_hook(post)
    x = m.ones(4, 3, requires_grad=True)
    y = lin(x)
    y.sum().backward()
    return [calls, y.grad_fn.name(), x.grad, lin.weight.grad]


@scenario
def full_backward_hook_replaces_grad_input(m: Any) -> Any:
    mod = scaler(m)
    mod.register_full_backward_hook(lambda md, gi, go: (gi[0] + 1, None))
    x = m.ones(2, requires_grad=True)
    y = m.ones(2, requires_grad=True)
    mod(x, y).sum().backward()
    wrong = scaler(m)
    wrong.register_full_backward_hook(lambda md, gi, go: (gi[0],))
    try:
        wrong(x, y).sum().backward()
    except RuntimeError as e:
        error = str(e)
    return [x.grad, y.grad, error]


@scenario
def full_backward_hook_with_non_tensor_argument(m: Any) -> Any:
    class Mixed(m.nn.Module):
        def forward(self, x: Any, k: int, z: Any) -> Any:
            return x * k, z.sum()

    seen: list[Any] = []
    mod = Mixed()
    mod.register_full_backward_hook(lambda md, gi, go: seen.append((shapes(gi), shapes(go))))
    a, b = mod(m.ones(2, requires_grad=True), 3, m.ones(3, requires_grad=True))
    (a.sum() + b).backward()
    return seen


@scenario
def backward_hook_when_no_input_requires_grad(m: Any) -> Any:
    lin = m.nn.Linear(2, 2)
    seen: list[Any] = []
    lin.register_full_backward_hook(lambda md, gi, go: seen.append((gi, shapes(go))))
    lin(m.ones(1, 2)).sum().backward()
    return seen


@scenario
def deprecated_backward_hook_and_mixing(m: Any) -> Any:
    mod = scaler(m)
    seen: list[Any] = []
    mod.register_backward_hook(lambda md, gi, go: seen.append((shapes(gi), shapes(go))))
    x = m.ones(2, requires_grad=True)
    mod(x).sum().backward()
    try:
        mod.register_full_backward_hook(lambda *a: None)
    except RuntimeError as e:
        seen.append(str(e))
    return seen


@scenario
def global_hooks(m: Any) -> Any:
    calls: list[Any] = []
    hooks = m.nn.modules.module
    handles = [
        hooks.register_module_forward_pre_hook(lambda md, a: calls.append(("pre", md._get_name()))),
        hooks.register_module_forward_hook(lambda md, a, o: calls.append(("gfwd", md._get_name()))),
        hooks.register_module_full_backward_hook(lambda md, gi, go: calls.append("gbwd")),
        hooks.register_module_parameter_registration_hook(
            lambda md, name, p: calls.append(("param", name))
        ),
        hooks.register_module_module_registration_hook(
            lambda md, name, sub: calls.append(("module", name))
        ),
        hooks.register_module_buffer_registration_hook(
            lambda md, name, b: calls.append(("buffer", name))
        ),
    ]
    try:
        mod = scaler(m)
        mod.register_forward_pre_hook(lambda md, a: calls.append("own_pre"))
        mod.w = m.nn.Parameter(m.ones(1))
        mod.sub = m.nn.Identity()
        mod.register_buffer("b", m.ones(1))
        mod(m.ones(1, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    mod(m.ones(1))
    return calls


@pytest.mark.parametrize("fn", SCENARIOS, ids=[f.__name__ for f in SCENARIOS])
def test_matches_torch(torch: Any, fn: Any) -> None:
    assert_same(outcome(fn, chainrule), outcome(fn, torch))


# --- recorded from PyTorch 2.13 (no torch needed) -----------------------------------------


def test_full_backward_hook_grads_recorded() -> None:
    lin = nn.Linear(3, 2)
    with chainrule.no_grad():
        lin.weight.copy_(chainrule.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    seen: list[Any] = []
    lin.register_full_backward_hook(lambda md, gi, go: seen.append((gi, go)))
    x = chainrule.ones(1, 3, requires_grad=True)
    out = lin(x)
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"
    out.sum().backward()
    (grad_input,), (grad_output,) = seen[0]
    assert grad_input.tolist() == [[5.0, 7.0, 9.0]]
    assert grad_output.tolist() == [[1.0, 1.0]]
    assert x.grad.tolist() == [[5.0, 7.0, 9.0]]


def test_hook_handles_remove_their_flags() -> None:
    mod = nn.Identity()
    handle = mod.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
    assert len(mod._forward_hooks_with_kwargs) == len(mod._forward_hooks_always_called) == 1
    handle.remove()
    assert not mod._forward_hooks and not mod._forward_hooks_with_kwargs
    assert not mod._forward_hooks_always_called


def test_mixing_backward_hook_kinds_recorded() -> None:
    mod = nn.Identity()
    mod.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError) as info:
        mod.register_backward_hook(lambda *a: None)
    assert str(info.value) == (
        "Cannot use both regular backward hooks and full backward hooks on a single Module. "
        "Please use only one of them."
    )
