"""The order in which an op's node saves its tensors, as `saved_tensors_hooks` sees it.

PyTorch's generated nodes save their inputs sorted by argument name, then their
outputs: `a * b` packs `other` (b) before `self` (a); a Python number operand is saved
but not packed. Each case runs under a pack
hook that names what it is given (a, b, c for the inputs, `out` for the op's
result, else the shape), against the recorded order and against PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import chainrule

Op = Callable[[Any, Any, Any, Any], Any]

# op name -> (the op on the module and three 3x3 inputs, the names packed in order)
CASES: dict[str, tuple[Op, list[str]]] = {
    "mul": (lambda t, a, b, c: a * b, ["b", "a"]),
    "div": (lambda t, a, b, c: a / b, ["b", "a"]),
    "pow": (lambda t, a, b, c: b**a, ["a", "b", "out"]),
    "atan2": (lambda t, a, b, c: t.atan2(a, b), ["b", "a"]),
    "hypot": (lambda t, a, b, c: t.hypot(a, b), ["b", "a", "out"]),
    "mm": (lambda t, a, b, c: a.mm(b), ["b", "a"]),
    "addmm": (lambda t, a, b, c: t.addmm(c, a, b), ["a", "b"]),
    "addcmul": (lambda t, a, b, c: t.addcmul(c, a, b), ["a", "b"]),
    "addcdiv": (lambda t, a, b, c: t.addcdiv(c, a, b), ["a", "b"]),
    "lerp": (lambda t, a, b, c: t.lerp(a, b, c), ["b", "a", "c"]),
    "maximum": (lambda t, a, b, c: t.maximum(a, b), ["b", "a"]),
    "xlogy": (lambda t, a, b, c: t.xlogy(a, b), ["b", "a"]),
    "fmod": (lambda t, a, b, c: t.fmod(a, b), ["b", "a"]),
    "logaddexp": (lambda t, a, b, c: t.logaddexp(a, b), ["b", "a"]),
    "clamp": (lambda t, a, b, c: t.clamp(a, b - 2, c + 2), ["3x3", "3x3", "a"]),
    "mv": (lambda t, a, b, c: a.mv(b[0]), ["a", "3"]),
    "conv1d": (
        lambda t, a, b, c: t.nn.functional.conv1d(a[None], b[:, :, None]),
        ["1x3x3", "3x3x1"],
    ),
    "exp": (lambda t, a, b, c: a.exp(), ["out"]),
    # A Python number becomes a tensor PyTorch calls a wrapped number: saved, never packed.
    "mul_number": (lambda t, a, b, c: (a + 3) * 0.5, []),
    "div_number": (lambda t, a, b, c: a / 2, []),
    "pow_number": (lambda t, a, b, c: a**2, ["a"]),
    "mul_0d_tensor": (lambda t, a, b, c: a * t.tensor(2.0, dtype=t.float64), ["0-d"]),
}


def _pack_order(torch: Any, op: Op) -> list[str]:
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(3, 3, generator=gen, dtype=torch.float64).requires_grad_()
    b = (torch.randn(3, 3, generator=gen, dtype=torch.float64).abs() + 1).requires_grad_()
    c = torch.randn(3, 3, generator=gen, dtype=torch.float64).requires_grad_()
    seen: list[Any] = []
    with torch.autograd.graph.saved_tensors_hooks(
        lambda x: seen.append(x) or x.detach(), lambda x: x
    ):
        out = op(torch, a, b, c)
    names = []
    for x in seen:
        match = [n for n, t in (("a", a), ("b", b), ("c", c), ("out", out)) if x is t]
        match = match or [n for n, t in (("a", a), ("b", b), ("c", c)) if x.equal(t)]
        names.append(match[0] if match else "x".join(map(str, x.shape)) or "0-d")
    return names


@pytest.mark.parametrize("name", sorted(CASES))
def test_saved_tensors_are_packed_in_pytorchs_order(name: str) -> None:
    op, expected = CASES[name]
    assert _pack_order(chainrule, op) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_recorded_order_is_pytorchs(torch: Any, name: str) -> None:
    op, expected = CASES[name]
    assert _pack_order(torch, op) == expected
