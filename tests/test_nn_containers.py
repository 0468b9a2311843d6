"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, and the
Flatten/Unflatten/Identity/Bilinear layers: indexing, editing, arithmetic, reprs, errors.

Scenarios run on chainrule and torch; recorded expectations below run without torch.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

import chainrule
from nn_compare import assert_same, outcome
from torch_compare import registry

SCENARIOS, scenario = registry()
nn = chainrule.nn


def _error(fn: Any) -> Any:
    try:
        fn()
    except Exception as e:
        return (type(e).__name__, str(e))
    return None


def three(m: Any) -> Any:
    return m.nn.Sequential(m.nn.Identity(), m.nn.Linear(2, 3), m.nn.Flatten(0))


@scenario
def sequential_indexing(m: Any) -> Any:
    s = three(m)
    named = m.nn.Sequential(OrderedDict([("a", m.nn.Identity()), ("b", m.nn.Flatten())]))
    return [
        s[0],
        s[-1],
        s[1:],
        s[::2],
        s[-2:],
        named,
        named[1:],
        len(s),
        [type(x).__name__ for x in s],
        _error(lambda: s[3]),
        _error(lambda: s[-4]),
        _error(lambda: s["a"]),
        "0" in dir(s),
    ]


@scenario
def sequential_editing(m: Any) -> Any:
    s = three(m)
    out = []
    s[0] = m.nn.Flatten()
    out.append(s)
    del s[0]
    out.append(s)
    s.append(m.nn.Identity()).insert(0, m.nn.Flatten()).insert(-1, m.nn.Identity())
    out.append(s)
    out.append(s.pop(1))
    del s[1:3]
    out.append(s)
    s.extend([m.nn.Identity(), m.nn.Identity()])
    out.append(s)
    out.append(_error(lambda: s.insert(9, m.nn.Identity())))
    out.append(_error(lambda: s.insert(0, 3)))
    return out


@scenario
def sequential_arithmetic(m: Any) -> Any:
    a = m.nn.Sequential(m.nn.Identity(), m.nn.Flatten())
    b = m.nn.Sequential(m.nn.Linear(1, 1))
    c = a + b
    d = a * 2
    e = 2 * b
    a += b
    f = m.nn.Sequential(m.nn.Identity())
    f *= 3
    return [
        c,
        d,
        e,
        a,
        f,
        d[0] is d[2],
        _error(lambda: a + m.nn.ModuleList()),
        _error(lambda: a * 0),
        _error(lambda: a * 1.5),
    ]


@scenario
def sequential_forward_and_parameters(m: Any) -> Any:
    m.manual_seed(0)
    s = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.Linear(3, 1))
    x = m.ones(4, 2)
    return [s(x), [n for n, _ in s.named_parameters()], list(s.state_dict())]


@scenario
def module_list(m: Any) -> Any:
    ml = m.nn.ModuleList([m.nn.Linear(1, 1) for _ in range(3)])
    ml.append(m.nn.Identity())
    ml.extend([m.nn.Identity(), m.nn.Flatten()])
    ml.insert(1, m.nn.Flatten())
    out = [ml, len(ml), ml[-1], ml[1:3], ml[::3]]
    ml[0] = m.nn.Identity()
    del ml[1]
    del ml[::2]
    out += [ml, ml.pop(0), ml, ml + m.nn.ModuleList([m.nn.Identity()])]
    ml += [m.nn.Linear(2, 2)]
    out += [
        [n for n, _ in ml.named_parameters()],
        _error(lambda: ml[10]),
        _error(lambda: ml.extend(3)),
        m.nn.ModuleList(),
        _error(lambda: ml(1)),
    ]
    return out


@scenario
def module_list_repr_groups_repeats(m: Any) -> Any:
    lin = m.nn.Linear(2, 2)
    ml = m.nn.ModuleList([lin, lin, m.nn.Identity(), m.nn.Linear(2, 2), lin])
    return [ml, m.nn.Sequential(ml, ml)]


@scenario
def module_dict(m: Any) -> Any:
    md = m.nn.ModuleDict({"b": m.nn.Identity(), "a": m.nn.Linear(1, 1)})
    md["c"] = m.nn.Flatten()
    md.update([("d", m.nn.Identity())])
    md.update(m.nn.ModuleDict({"e": m.nn.Identity()}))
    out = [md, list(md), list(md.keys()), len(md), "a" in md, md["a"]]
    out.append(md.pop("b"))
    del md["c"]
    out += [next(iter(md.items()))[0], [type(v).__name__ for v in md.values()]]
    out += [
        _error(lambda: md.update(3)),
        _error(lambda: md.update([("x",)])),
        _error(lambda: md.update([3])),
        _error(lambda: md["zz"]),
    ]
    md.clear()
    out.append(md)
    return out


@scenario
def parameter_list(m: Any) -> Any:
    pl = m.nn.ParameterList([m.nn.Parameter(m.ones(3, 4)), m.zeros(2)])
    pl.append(m.ones(1, dtype=m.float64))
    pl.extend([m.nn.Parameter(m.ones(2), requires_grad=False)])
    pl.append("text")
    out = [pl, len(pl), type(pl[1]).__name__, pl[1].requires_grad, pl[-2], pl[1:3]]
    pl[0] = m.full((2,), 5.0)
    out += [
        pl[0],
        [n for n, _ in pl.named_parameters()],
        list(pl.state_dict()),
        _error(lambda: pl[7]),
        _error(lambda: pl.extend(m.ones(2))),
        _error(lambda: pl(1)),
        m.nn.ParameterList(),
    ]
    return out


@scenario
def parameter_dict(m: Any) -> Any:
    pd = m.nn.ParameterDict({"b": m.ones(2), "a": m.nn.Parameter(m.zeros(3, 1))})
    pd["c"] = m.ones(1, dtype=m.float64)
    pd["d"] = "text"
    pd.update([("e", m.ones(1))])
    out = [pd, list(pd), len(pd), "a" in pd, pd.get("zz", 3), list(reversed(pd))]
    out.append(pd.pop("b"))
    out.append(pd.popitem()[0])
    out.append(pd.setdefault("f", m.ones(2)))
    out.append(pd.copy())
    out.append(pd | m.nn.ParameterDict({"g": m.ones(1)}))
    out.append(pd.fromkeys(["x", "y"], m.ones(1)))
    out += [
        [n for n, _ in pd.named_parameters()],
        _error(lambda: pd[1]),
        _error(lambda: pd.update(3)),
        _error(lambda: pd.update([("x", 1, 2)])),
        _error(lambda: pd(1)),
    ]
    pd.clear()
    out.append(pd)
    return out


@scenario
def small_layers(m: Any) -> Any:
    m.manual_seed(0)
    bil = m.nn.Bilinear(2, 3, 4)
    x1, x2 = m.ones(5, 2), m.ones(5, 3)
    un = m.nn.Unflatten(1, (2, 3))
    return [
        bil,
        m.nn.Bilinear(1, 1, 1, bias=False),
        bil(x1, x2),
        bil.weight,
        m.nn.Identity(3, unused=True)(x1),
        m.nn.Flatten()(m.ones(2, 3, 4)).shape,
        m.nn.Flatten(0, 1),
        un,
        un(m.ones(4, 6)).shape,
        m.nn.Unflatten(-1, [2, 2]),
        _error(lambda: m.nn.Unflatten(1, 3)),
        _error(lambda: m.nn.Unflatten(1, (2, "a"))),
        m.nn.Linear(3, 2, dtype=m.float64).weight.dtype,
        m.nn.Linear(3, 2, bias=False),
        m.nn.Linear(0, 2).bias,
    ]


@pytest.mark.parametrize("fn", SCENARIOS, ids=[f.__name__ for f in SCENARIOS])
def test_matches_torch(torch: Any, fn: Any) -> None:
    assert_same(outcome(fn, chainrule), outcome(fn, torch))


# --- recorded from PyTorch 2.13 (no torch needed) -----------------------------------------


def test_container_reprs_recorded() -> None:
    lin = nn.Linear(1, 1)
    ml = nn.ModuleList([lin, lin, nn.Identity()])
    assert repr(ml) == (
        "ModuleList(\n"
        "  (0-1): 2 x Linear(in_features=1, out_features=1, bias=True)\n"
        "  (2): Identity()\n"
        ")"
    )
    pl = nn.ParameterList([nn.Parameter(chainrule.ones(3, 4)), 3])
    assert repr(pl) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [chainrule.float32 of size 3x4]\n"
        "    (1): Object of type: int\n"
        ")"
    )
    pd = nn.ParameterDict({"a": chainrule.ones(3)})
    assert repr(pd) == (
        "ParameterDict(  (a): Parameter containing: [chainrule.FloatTensor of size 3])"
    )
    assert repr(nn.Sequential()) == "Sequential()"
    assert repr(nn.Unflatten(1, (2, 3))) == "Unflatten(dim=1, unflattened_size=(2, 3))"


def test_sequential_recorded() -> None:
    s = nn.Sequential(nn.Identity(), nn.Flatten())
    assert isinstance(s[-1], nn.Flatten) and isinstance(s[:1], nn.Sequential)
    with pytest.raises(IndexError, match=r"^index 2 is out of range$"):
        s[2]
    with pytest.raises(ValueError, match=r"^Non-positive multiplication factor 0 for"):
        s * 0
    doubled = s * 2
    assert [k for k, _ in doubled.named_children()] == ["0", "1"]  # children are shared
    assert len(doubled) == 4 and doubled[0] is doubled[2]


def test_parameter_dict_sorts_plain_dicts() -> None:
    pd = nn.ParameterDict({"b": chainrule.ones(1), "a": chainrule.ones(1)})
    assert list(pd) == ["a", "b"]
    ordered = nn.ParameterDict(OrderedDict([("b", chainrule.ones(1)), ("a", chainrule.ones(1))]))
    assert list(ordered) == ["b", "a"]
    with pytest.raises(TypeError, match="cannot be used as a key as it is not a string"):
        pd[1]  # type: ignore[index]
