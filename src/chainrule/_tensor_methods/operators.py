"""Tensor's operators: `x + y`, `x[i]`, `x == y`, `x += y`, ..."""

from __future__ import annotations

from .._lazy import TYPING, LazyModule

if TYPING:
    from .._ops.elementwise import (
        arithmetic,
        bitwise,
        division,
        inplace_forms,
        operators,
        rounding,
    )
    from .._ops.indexing import getitem, writes
    from .._ops.linalg import (
        matrix_multiply,
    )
else:  # each family is imported when one of its methods is first used (_lazy.py)
    arithmetic = LazyModule("chainrule._ops.elementwise.arithmetic")
    bitwise = LazyModule("chainrule._ops.elementwise.bitwise")
    division = LazyModule("chainrule._ops.elementwise.division")
    inplace_forms = LazyModule("chainrule._ops.elementwise.inplace_forms")
    operators = LazyModule("chainrule._ops.elementwise.operators")
    rounding = LazyModule("chainrule._ops.elementwise.rounding")
    getitem = LazyModule("chainrule._ops.indexing.getitem")
    writes = LazyModule("chainrule._ops.indexing.writes")
    matrix_multiply = LazyModule("chainrule._ops.linalg.matrix_multiply")

__all__ = ["OperatorMethods"]


class OperatorMethods:
    """Part of the table of Tensor's methods (see the package docstring)."""

    __slots__ = ()

    # --- operators -------------------------------------------------------------------------
    __add__ = operators.add_operator
    __radd__ = operators.radd_operator
    __iadd__ = inplace_forms.add_
    __sub__ = operators.sub_operator
    __rsub__ = operators.rsub_operator
    __isub__ = inplace_forms.sub_
    __mul__ = operators.mul_operator
    __rmul__ = operators.rmul_operator
    __imul__ = inplace_forms.mul_
    __truediv__ = operators.truediv_operator
    __rtruediv__ = operators.rtruediv_operator
    __itruediv__ = inplace_forms.div_
    __floordiv__ = division.floordiv_operator
    __rfloordiv__ = division.rfloordiv_operator
    __ifloordiv__ = division.ifloordiv_operator
    __mod__ = division.mod_operator
    __rmod__ = division.rmod_operator
    __imod__ = division.imod_operator
    __pow__ = operators.pow_operator
    __rpow__ = operators.rpow_operator
    __matmul__ = matrix_multiply.matmul_operator
    __rmatmul__ = matrix_multiply.rmatmul_operator
    __neg__ = arithmetic.neg
    __pos__ = operators.pos_operator
    __abs__ = rounding.abs
    # Elementwise, as in PyTorch: `a == b` is a bool tensor (Tensor hashes by identity).
    __eq__ = operators.eq_operator  # type: ignore[assignment]
    __ne__ = operators.ne_operator  # type: ignore[assignment]
    __lt__ = operators.lt_operator
    __le__ = operators.le_operator
    __gt__ = operators.gt_operator
    __ge__ = operators.ge_operator
    __invert__ = bitwise.bitwise_not
    __and__ = operators.and_operator
    __rand__ = operators.rand_operator
    __iand__ = bitwise.iand_operator
    __or__ = operators.or_operator
    __ror__ = operators.ror_operator
    __ior__ = bitwise.ior_operator
    __xor__ = operators.xor_operator
    __rxor__ = operators.rxor_operator
    __ixor__ = bitwise.ixor_operator
    __lshift__ = bitwise.lshift_operator
    __rlshift__ = bitwise.rlshift_operator
    __ilshift__ = bitwise.ilshift_operator
    __rshift__ = bitwise.rshift_operator
    __rrshift__ = bitwise.rrshift_operator
    __irshift__ = bitwise.irshift_operator
    __getitem__ = getitem.getitem
    __setitem__ = writes.setitem
