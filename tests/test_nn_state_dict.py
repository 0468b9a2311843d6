"""Module.state_dict and load_state_dict: keys and their order, `_metadata`, keep_vars,
shared memory, strict and non-strict loading, assign, the error texts, hooks, extra state
and subclasses that override the saving and loading steps.

Scenarios run on chainrule and torch; recorded expectations below run without torch
(loading checks every key and shape before it copies anything).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

import chainrule
from nn_compare import assert_same, error, nested, outcome
from torch_compare import registry

SCENARIOS, scenario = registry()
nn = chainrule.nn


@scenario
def state_dict_contents(m: Any) -> Any:
    model = nested(m)
    sd = model.state_dict()
    kept = model.state_dict(keep_vars=True)
    prefixed = model.state_dict(prefix="model.")
    return [
        type(sd).__name__,
        sd,
        list(sd._metadata.items()),
        [type(v).__name__ for v in kept.values()],
        [v.requires_grad for v in kept.values()],
        list(prefixed),
        list(prefixed._metadata),
    ]


@scenario
def state_dict_shares_memory(m: Any) -> Any:
    lin = m.nn.Linear(2, 2)
    sd = lin.state_dict()
    with m.no_grad():
        lin.weight.fill_(7.0)
    return sd["weight"]


@scenario
def load_state_dict_round_trip(m: Any) -> Any:
    src, dst = nested(m), nested(m)
    with m.no_grad():
        for p in src.parameters():
            p.add_(1)
    result = dst.load_state_dict(src.state_dict())
    return [repr(result), dst.state_dict(), result.missing_keys]


@scenario
def load_state_dict_not_strict(m: Any) -> Any:
    lin = m.nn.Linear(2, 2)
    sd = {"weight": m.ones(2, 2), "extra": m.ones(1), "sub.x": m.ones(1)}
    result = lin.load_state_dict(sd, strict=False)
    return [repr(result), result.missing_keys, result.unexpected_keys, lin.weight]


@pytest.mark.parametrize(
    "state",
    [
        "missing_and_unexpected",
        "size_mismatch",
        "not_a_tensor",
        "scalar_from_one_element",
        "not_a_mapping",
        "nested",
    ],
)
def test_load_state_dict_errors_match_torch(torch: Any, state: str) -> None:
    def run(m: Any) -> Any:
        m.manual_seed(0)
        lin = m.nn.Linear(5, 3)
        cases = {
            "missing_and_unexpected": {"weight": m.ones(3, 5), "x": m.ones(1), "x.y": m.ones(1)},
            "size_mismatch": {"weight": m.ones(3, 4), "bias": m.ones(3)},
            "not_a_tensor": {"weight": 3, "bias": m.ones(3)},
            "scalar_from_one_element": None,
            "not_a_mapping": [1],
            "nested": None,
        }
        if state == "scalar_from_one_element":
            mod = m.nn.Module()
            mod.p = m.nn.Parameter(m.tensor(1.0))
            return [mod.load_state_dict({"p": m.tensor([5.0])}), mod.p]
        if state == "nested":
            model = nested(m)
            sd = model.state_dict()
            sd["0.fc.weight"] = m.ones(5)
            del sd["1.bias"]
            return model.load_state_dict(sd)
        return [lin.load_state_dict(cases[state]), lin.bias]

    assert_same(outcome(run, chainrule), outcome(run, torch))


@scenario
def load_state_dict_assign(m: Any) -> Any:
    lin = m.nn.Linear(2, 2)
    w = m.ones(2, 2)
    lin.load_state_dict({"weight": w, "bias": m.zeros(2)}, assign=True)
    return [type(lin.weight).__name__, lin.weight.requires_grad, lin.weight, lin.bias]


@scenario
def state_dict_and_load_hooks(m: Any) -> Any:
    calls: list[Any] = []
    lin = m.nn.Linear(2, 2)
    lin.register_state_dict_pre_hook(lambda mod, prefix, keep: calls.append(("pre", prefix)))
    lin.register_state_dict_post_hook(lambda mod, sd, pre, meta: calls.append(("post", list(sd))))

    def rename(mod: Any, sd: Any, prefix: str, *rest: Any) -> None:
        if prefix + "w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "w")

    lin.register_load_state_dict_pre_hook(rename)

    def forgive(mod: Any, keys: Any) -> None:
        calls.append(("load_post", list(keys.missing_keys)))
        keys.missing_keys.clear()

    lin.register_load_state_dict_post_hook(forgive)
    outer = m.nn.Sequential(lin)
    outer.state_dict()
    result = outer.load_state_dict({"0.w": m.full((2, 2), 2.0)})
    return [calls, repr(result), lin.weight]


@scenario
def extra_state_and_overrides(m: Any) -> Any:
    class Counter(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.count = 0
            self.w = m.nn.Parameter(m.zeros(1))

        def get_extra_state(self) -> Any:
            return {"count": self.count}

        def set_extra_state(self, state: Any) -> None:
            self.count = state["count"]

        def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "note"] = m.tensor(1)

    a, b = Counter(), Counter()
    a.count = 5
    sd = a.state_dict()
    del sd["note"]
    missing = error(lambda: b.load_state_dict({"w": m.ones(1)}))
    return [list(sd), b.load_state_dict(sd), b.count, missing]


@pytest.mark.parametrize("fn", SCENARIOS, ids=[f.__name__ for f in SCENARIOS])
def test_matches_torch(torch: Any, fn: Any) -> None:
    assert_same(outcome(fn, chainrule), outcome(fn, torch))


# --- recorded from PyTorch 2.13 (no torch needed) -----------------------------------------


def test_load_state_dict_messages_recorded() -> None:
    lin = nn.Linear(5, 3)
    before = lin.bias.detach().clone()
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict({"weight": chainrule.ones(3, 4), "bias": chainrule.ones(3)})
    assert str(info.value) == (
        "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a "
        "param with shape torch.Size([3, 4]) from checkpoint, the shape in current model is "
        "torch.Size([3, 5])."
    )
    # Nothing was copied: the bias that did match keeps its value.
    assert chainrule.equal(lin.bias, before)
    result = lin.load_state_dict({"weight": chainrule.ones(3, 5)}, strict=False)
    assert repr(result) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"
    assert lin.state_dict()._metadata == OrderedDict([("", {"version": 1})])


def test_strict_key_errors_copy_nothing() -> None:
    model = nn.Sequential(nn.Linear(2, 2))
    ones = chainrule.ones
    sd = {"0.weight": chainrule.full((2, 2), 9.0), "0.bias": ones(2), "x": ones(1)}
    before = model[0].weight.detach().clone()
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "x". '):
        model.load_state_dict(sd)
    assert chainrule.equal(model[0].weight, before)
