"""nn.Module and nn.Parameter: registration, attribute routing, walking the tree,
conversion, modes, printing, copying, and a small model trained step for step.

Each scenario runs on chainrule and on torch (when installed) and must give the same
values, reprs and error messages; recorded expectations below run without torch.
Hooks are in test_nn_hooks.py, state_dict and loading in test_nn_state_dict.py.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

import chainrule
from nn_compare import assert_same, error, nested, outcome
from torch_compare import registry

SCENARIOS, scenario = registry()
nn = chainrule.nn


# --- Parameter and Buffer -----------------------------------------------------------------


@scenario
def parameter_basics(m: Any) -> Any:
    t = m.tensor([1.0, 2.0])
    p = m.nn.Parameter(t)
    t.add_(1)  # shared memory and version counter
    frozen = m.nn.Parameter(m.tensor([1, 2]), requires_grad=False)
    return [
        p,
        str(p),
        p._version,
        p.is_leaf,
        isinstance(p, m.Tensor),
        type(p * 2).__name__,
        type(p.detach()).__name__,
        frozen,
        m.nn.Parameter(),
        m.nn.Parameter(m.tensor(3.0, dtype=m.float64)),
    ]


@scenario
def parameter_of_an_integer_tensor(m: Any) -> Any:
    return m.nn.Parameter(m.tensor([1, 2]))


@scenario
def parameter_in_autograd_and_no_grad_updates(m: Any) -> Any:
    p = m.nn.Parameter(m.tensor([1.0, -2.0]))
    (p * p).sum().backward()
    with m.no_grad():
        p.sub_(0.5 * p.grad)
    return [p, p.grad, p.is_leaf, type(p).__name__]


@scenario
def parameter_copies(m: Any) -> Any:
    p = m.nn.Parameter(m.tensor([1.0, 2.0]))
    p.grad = m.ones(2)
    d = copy.deepcopy(p)
    s = copy.copy(p)
    q = pickle.loads(pickle.dumps(p))
    with m.no_grad():
        p.mul_(10)
    return [d, d.grad, s, q, type(q).__name__, d is p]


@scenario
def buffer(m: Any) -> Any:
    b = m.nn.Buffer(m.ones(2), persistent=False)
    mod = m.nn.Module()
    mod.b = b
    mod.c = m.nn.Buffer(m.zeros(1))
    mod.b = m.full((2,), 3.0)  # a plain tensor to a buffer name stays a buffer
    return [
        type(b).__name__,
        isinstance(b, m.nn.Buffer),
        isinstance(m.ones(1), m.nn.Buffer),
        b.persistent,
        list(mod.state_dict()),
        [n for n, _ in mod.named_buffers()],
        mod.b,
    ]


# --- registration and attribute routing ------------------------------------------------------


@scenario
def assignment_before_init(m: Any) -> Any:
    out = []
    for value in (m.nn.Parameter(m.ones(1)), m.nn.Linear(1, 1)):

        class Early(m.nn.Module):
            def __init__(self, v: Any = value) -> None:
                self.x = v

        out.append(error(Early))

    class EarlyBuffer(m.nn.Module):
        def __init__(self) -> None:
            self.register_buffer("b", m.ones(1))

    class EarlyParam(m.nn.Module):
        def __init__(self) -> None:
            self.register_parameter("p", None)

    return [*out, error(EarlyBuffer), error(EarlyParam)]


@scenario
def registration_errors(m: Any) -> Any:
    lin = m.nn.Linear(5, 3)
    seq = m.nn.Sequential(m.nn.Linear(1, 1))
    seq.register_buffer("buf", m.ones(1))
    cases = [
        lambda: setattr(lin, "weight", m.ones(3, 5)),
        lambda: setattr(lin, "weight", 3),
        lambda: lin.register_parameter("a.b", None),
        lambda: lin.register_parameter("", None),
        lambda: lin.register_parameter(3, None),
        lambda: lin.register_parameter("training", None),
        lambda: lin.register_parameter("x", m.ones(1)),
        lambda: lin.register_parameter("x", m.nn.Parameter(m.ones(1)) * 2),
        lambda: lin.register_buffer("a.b", None),
        lambda: lin.register_buffer("", None),
        lambda: lin.register_buffer("weight", None),
        lambda: lin.register_buffer("z", 3),
        lambda: lin.register_buffer(1, None),
        lambda: lin.add_module("a.b", None),
        lambda: lin.add_module("", None),
        lambda: lin.add_module("weight", None),
        lambda: lin.add_module("q", 3),
        lambda: lin.add_module(3, m.nn.Identity()),
        lambda: setattr(seq, "0", 5),
        lambda: setattr(seq, "buf", 5),
        lambda: lin.missing,
        lambda: delattr(lin, "missing"),
        lambda: m.nn.Module()(1),
        lambda: m.nn.Module(3),
        lambda: m.nn.Module(a=3),
        lambda: lin.train(1),
    ]
    return [error(c) for c in cases]


@scenario
def attribute_routing(m: Any) -> Any:
    mod = m.nn.Module()
    mod.x = 1
    mod.x = m.nn.Parameter(m.ones(1))  # moves out of __dict__
    out = ["x" in mod.__dict__, error(lambda: setattr(mod, "x", m.nn.Identity()))]
    mod.x = None  # a parameter name takes None and stays a parameter
    out.append([list(mod._parameters), mod.x])
    del mod.x
    mod.x = m.nn.Identity()
    mod.x = None  # a module name takes None and stays a module
    out.append([list(mod._parameters), list(mod._modules)])
    out.append(error(lambda: setattr(mod, "x", m.ones(1))))
    del mod.x
    mod.register_buffer("b", m.ones(1))
    mod.b = None
    mod.y = m.nn.Parameter(m.ones(1))
    mod.y = mod.y  # the same parameter again
    return [*out, list(mod._buffers), mod.b, "b" in dir(mod), "y" in dir(mod), hasattr(mod, "x")]


@scenario
def walking_the_tree(m: Any) -> Any:
    model = nested(m)
    return [
        [n for n, _ in model.named_parameters()],
        [n for n, _ in model.named_parameters(prefix="net", remove_duplicate=False)],
        [n for n, _ in model.named_parameters(recurse=False)],
        [n for n, _ in model.named_buffers()],
        [n for n, _ in model.named_modules()],
        [n for n, _ in model.named_modules(remove_duplicate=False)],
        [n for n, _ in model.named_children()],
        len(list(model.parameters())),
        len(list(model.modules())),
        [type(c).__name__ for c in model.children()],
        model.get_submodule("2.0") is model.get_submodule("1"),
        model.get_parameter("0.fc.bias").shape,
        model.get_buffer("0.steps"),
        error(lambda: model.get_submodule("0.zz")),
        error(lambda: model.get_submodule("0.fc.weight")),
        error(lambda: model.get_parameter("0.steps")),
        error(lambda: model.get_buffer("0.fc.weight")),
        error(lambda: model.set_submodule("", model)),
        error(lambda: model.set_submodule("zz", model, strict=True)),
        error(lambda: model.set_submodule("scale", m.nn.Identity())),
    ]


@scenario
def set_submodule_and_apply(m: Any) -> Any:
    model = nested(m)
    model.set_submodule("0.fc", m.nn.Identity())
    seen: list[str] = []
    model.apply(lambda mod: seen.append(type(mod).__name__))
    return [model, seen]


# --- modes, conversion and printing ---------------------------------------------------------


@scenario
def modes_and_gradients(m: Any) -> Any:
    model = nested(m)
    model.eval()
    flags = [mod.training for mod in model.modules()]
    model.train()
    model.requires_grad_(False)
    frozen = [p.requires_grad for p in model.parameters()]
    model.requires_grad_()
    x = model[0](m.ones(1, 3)).sum()
    x.backward()
    grad = model[0].fc.weight.grad.clone()
    model.zero_grad(set_to_none=False)
    zeros = model[0].fc.weight.grad
    model.zero_grad()
    return [flags, frozen, grad, zeros, model[0].fc.weight.grad]


@scenario
def conversion(m: Any) -> Any:
    model = nested(m)
    w = model[1].weight
    model[1].weight.grad = m.ones(2, 2)
    model.double()
    out = [w is model[1].weight, w.dtype, w.grad.dtype, model[0].steps.dtype]
    model.to(m.float16)
    out += [w.dtype, model[0].cache.dtype]
    model.to(m.ones(1, dtype=m.float32), non_blocking=True)
    model.to("cpu").float().cpu().type(m.float64)
    out += [w.dtype, model[0].steps.dtype]
    for bad in (
        lambda: model.to(m.int32),
        lambda: model.to("cuda"),
        lambda: model.to(device="cuda:0"),
        lambda: model.cuda(),
    ):
        out.append(error(bad))
    return out


@scenario
def reprs(m: Any) -> Any:
    class Wide(m.nn.Module):
        def extra_repr(self) -> str:
            return "a=1\nb=2"

    class Net(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = m.nn.Sequential(m.nn.Linear(2, 3, bias=False), m.nn.Flatten(0))
            self.wide = Wide()
            self.empty = m.nn.Module()
            self.none = None

    net = Net()
    net.add_module("missing", None)
    return [repr(net), str(nested(m)), repr(Wide()), repr(m.nn.Module())]


@scenario
def training_matches_step_for_step(m: Any) -> Any:
    """An MLP with fixed weights and hand-written SGD: the same losses and weights."""

    class Tanh(m.nn.Module):
        def forward(self, x: Any) -> Any:
            return m.tanh(x)

    rng = np.random.default_rng(0)
    model = m.nn.Sequential(m.nn.Linear(4, 8), Tanh())
    model.append(m.nn.Linear(8, 1))
    with m.no_grad():
        for p in model.parameters():
            p.copy_(m.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    x = m.tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = m.tensor(rng.standard_normal((16, 1)).astype(np.float32))
    losses = []
    for _ in range(5):
        model.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        m.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with m.no_grad():
            for p in model.parameters():
                p.sub_(0.1 * p.grad)
        losses.append(loss.item())
    return [losses, list(model.parameters())]


@pytest.mark.parametrize("fn", SCENARIOS, ids=[f.__name__ for f in SCENARIOS])
def test_matches_torch(torch: Any, fn: Any) -> None:
    tolerance = {"rtol": 1e-5, "atol": 1e-6} if fn is training_matches_step_for_step else {}
    assert_same(outcome(fn, chainrule), outcome(fn, torch), **tolerance)


# --- recorded from PyTorch 2.13 (no torch needed) -----------------------------------------


def test_parameter_repr_recorded() -> None:
    p = nn.Parameter(chainrule.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    frozen = nn.Parameter(chainrule.tensor([1.0]), requires_grad=False)
    assert repr(frozen) == "Parameter containing:\ntensor([1.])"
    with pytest.raises(RuntimeError, match=r"^Only Tensors of floating point and complex dtype"):
        nn.Parameter(chainrule.tensor([1, 2]))


def test_nested_repr_recorded() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Identity(), nn.Flatten()))
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): Sequential(\n"
        "    (0): Identity()\n"
        "    (1): Flatten(start_dim=1, end_dim=-1)\n"
        "  )\n"
        ")"
    )


def test_registration_messages_recorded() -> None:
    lin = nn.Linear(5, 3)
    with pytest.raises(TypeError) as info:
        lin.weight = chainrule.ones(3, 5)
    assert str(info.value) == (
        "cannot assign 'torch.FloatTensor' as parameter 'weight' "
        "(torch.nn.Parameter or None expected)"
    )
    with pytest.raises(AttributeError, match=r"^cannot assign parameter before Module.__init__"):
        nn.Module.__new__(nn.Module).register_parameter("w", None)
    with pytest.raises(NotImplementedError) as missing:
        nn.Module()(1)
    assert str(missing.value) == 'Module [Module] is missing the required "forward" function'
    with pytest.raises(ValueError, match=r"^training mode is expected to be boolean$"):
        lin.train("yes")  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match=r"^Torch not compiled with CUDA enabled$"):
        lin.cuda()


def test_deepcopy_keeps_sharing_and_leaves_grads() -> None:
    model = nn.Sequential(nn.Linear(2, 2))
    model.append(model[0])
    model[0].weight.grad = chainrule.ones(2, 2)
    clone = copy.deepcopy(model)
    assert clone[0] is clone[1] and clone[0] is not model[0]
    assert clone[0].weight.grad is None and type(clone[0].weight) is nn.Parameter
    assert chainrule.equal(clone[0].weight, model[0].weight)
    again = pickle.loads(pickle.dumps(model))
    assert [n for n, _ in again.named_parameters()] == ["0.weight", "0.bias"]
