"""Every differentiable op of chainrule declares, beside its rules, the formulas `viz.explain`
prints for them (`Primitive.formulas`): one per input, None where the rule is None.
"""

from __future__ import annotations

import importlib
import pkgutil

import chainrule as torch
from chainrule._ops.primitive import Primitive, declared


def chainrule_primitives() -> list[Primitive]:
    """Every Primitive chainrule declares: all its modules imported, and the ops that make
    their Primitives on first use (per operand pattern, per output count) run once."""
    for module in pkgutil.walk_packages(torch.__path__, "chainrule."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    x = torch.tensor([1.0, -2.0, 3.0, 4.0], requires_grad=True)
    torch.heaviside(x, x)  # an op PyTorch does not differentiate
    torch.floor_divide(x, 2.0)
    x.split(2), x.split(4), x.unbind(), x.chunk(1)  # several views at once, or one
    return [p for p in list(declared) if _rule_module(p).startswith("chainrule.")]


def _rule_module(prim: Primitive) -> str:
    rule = next((r for r in prim.grads if r is not None), None)
    return getattr(rule, "__module__", None) or ""


def missing_formulas(prims: list[Primitive]) -> list[str]:
    """The names of the ops with a derivative rule but no formulas."""
    return sorted({p.name for p in prims if p.formulas is None and any(p.grads)})


def mismatched_formulas(prims: list[Primitive]) -> list[str]:
    """The names of the ops whose formulas are not one per rule, None where the rule is."""
    return sorted(
        {
            p.name
            for p in prims
            if p.formulas is not None
            and (
                len(p.formulas) != len(p.grads)
                or any((f is None) != (r is None) for f, r in zip(p.formulas, p.grads, strict=True))
            )
        }
    )


def test_every_differentiable_primitive_has_formulas() -> None:
    prims = chainrule_primitives()
    assert len(prims) > 300
    missing = missing_formulas(prims)
    assert not missing, f"ops with derivative rules but no formulas: {', '.join(missing)}"


def test_one_formula_per_rule() -> None:
    wrong = mismatched_formulas(chainrule_primitives())
    assert not wrong, f"ops whose formulas do not match their rules one to one: {', '.join(wrong)}"


def test_wrong_declarations_are_found() -> None:
    """The registry holds Primitives made at any time; the checks name the wrong ones."""
    rule = lambda g, n: g  # noqa: E731
    made = [
        Primitive("NoFormulaBackward0", lambda a: a, grads=(rule,)),
        Primitive(
            "OneShortBackward0",
            lambda a, b: a,
            inputs=("a", "b"),
            grads=(rule, rule),
            formulas=("1",),
        ),
        Primitive("NoneForARuleBackward0", lambda a: a, grads=(rule,), formulas=(None,)),
        Primitive(
            "FineBackward0",
            lambda a, b: a,
            inputs=("a", "b"),
            grads=(rule, None),
            formulas=("1", None),
        ),
    ]
    assert all(any(p is m for p in declared) for m in made)
    assert missing_formulas(made) == ["NoFormulaBackward0"]
    assert mismatched_formulas(made) == ["NoneForARuleBackward0", "OneShortBackward0"]
