"""Tensor's attributes are exactly the recorded list, and the op methods come from one table.

tests/tensor_surface.txt is `sorted(dir(chainrule.Tensor))`. A change to Tensor's
surface (a new op method, a removed one) updates that list on purpose:

    python -c "import chainrule; print('\\n'.join(sorted(dir(chainrule.Tensor))))" \\
        > tests/tensor_surface.txt
"""

from __future__ import annotations

from pathlib import Path

import chainrule
from chainrule import Tensor
from chainrule._lazy import resolve
from chainrule._tensor_methods import entries

SURFACE = Path(__file__).resolve().parent / "tensor_surface.txt"


def test_tensor_has_exactly_the_recorded_attributes() -> None:
    recorded = set(SURFACE.read_text().split())
    actual = set(dir(chainrule.Tensor))
    assert sorted(actual - recorded) == [], "new attributes: update tests/tensor_surface.txt"
    assert sorted(recorded - actual) == [], "missing attributes"


def test_every_table_entry_is_bound_as_it_is() -> None:
    """As it is, or wrapped once to take PyTorch's `axis=`/`keepdims=` (_ops/keywords.py),
    once it has been used (until then it is a stand-in that loads its family)."""
    table = entries()
    assert len(table) > 400
    for name, member in table.items():
        getattr(Tensor, name)  # first use puts the real function on Tensor
        bound = Tensor.__dict__[name]
        if isinstance(member, property):  # its getter, loaded: a plain property now
            assert isinstance(bound, property), name
            assert bound.fget is resolve(member.fget), name
            continue
        assert bound is member or bound.__wrapped__ is member, name
    assert Tensor.__dict__["exp"] is table["exp"]  # nothing to spell differently


def test_tensor_derives_from_object_alone_at_run_time() -> None:
    # The table is Tensor's base class for type checkers only: lookups stay one dict deep.
    assert Tensor.__mro__ == (Tensor, object)


def test_operators_are_the_fast_paths_themselves() -> None:
    from chainrule._ops.elementwise import operators

    assert Tensor.__add__ is operators.add_operator
    assert Tensor.__mul__ is operators.mul_operator
    assert Tensor.__pow__ is operators._pow_op
    assert operators.add_operator.__qualname__ == "_float_op.<locals>.op"
