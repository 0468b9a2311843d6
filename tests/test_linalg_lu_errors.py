"""Errors of the LU family, householder_product, cholesky_solve/inverse and triangular_solve:
PyTorch's exception types and messages, recorded (checked without PyTorch) and compared
with PyTorch where it is installed; a failing op records nothing."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule


def T(lib: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    return lib.tensor(np.asarray(a).astype(dtype), requires_grad=requires_grad)


SING = [[1.0, 2, 3], [2, 4, 6], [1, 1, 1]]
RNG = np.random.default_rng(7)
A3 = RNG.standard_normal((3, 3))
V3 = RNG.standard_normal(3)
R23 = RNG.standard_normal((2, 3))

# --- errors: (the call, the exception's type, the first line of its message) -------------------

ERRORS: dict[str, tuple[Callable[[Any], Any], str, str]] = {
    "lu 1-d": (
        lambda L: L.linalg.lu(T(L, V3)),
        "RuntimeError",
        "linalg.lu: Expected tensor with 2 or more dimensions. Got size: [3] instead",
    ),
    "lu int": (
        lambda L: L.linalg.lu(T(L, A3, "int64")),
        "NotImplementedError",
        "\"lu_cpu\" not implemented for 'Long'",
    ),
    "lu half": (
        lambda L: L.linalg.lu(T(L, A3, "float16")),
        "NotImplementedError",
        "\"lu_cpu\" not implemented for 'Half'",
    ),
    "lu without pivoting": (
        lambda L: L.linalg.lu(T(L, A3), pivot=False),
        "RuntimeError",
        "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
    ),
    "lu_factor 1-d": (
        lambda L: L.linalg.lu_factor(T(L, V3)),
        "RuntimeError",
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead",
    ),
    "lu_factor int": (
        lambda L: L.linalg.lu_factor(T(L, A3, "int64")),
        "NotImplementedError",
        "\"lu_cpu\" not implemented for 'Long'",
    ),
    "lu_factor without pivoting": (
        lambda L: L.linalg.lu_factor(T(L, A3), pivot=False),
        "RuntimeError",
        "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
    ),
    "lu_factor singular": (
        lambda L: L.linalg.lu_factor(T(L, SING)),
        "RuntimeError",
        (
            "torch.linalg.lu_factor: U[3,3] is zero and using it on lu_solve would result in a "
            "division by zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        ),
    ),
    "lu_factor singular batch": (
        lambda L: L.linalg.lu_factor(T(L, [A3, SING])),
        "RuntimeError",
        (
            "torch.linalg.lu_factor: (Batch element 1): U[3,3] is zero and using it on lu_solve "
            "would result in a division by zero. If you still want to perform the factorization, "
            "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        ),
    ),
    "lu_factor zero": (
        lambda L: L.linalg.lu_factor(T(L, np.zeros((2, 3, 3)))),
        "RuntimeError",
        (
            "torch.linalg.lu_factor: (Batch element 0): U[1,1] is zero and using it on lu_solve "
            "would result in a division by zero. If you still want to perform the factorization, "
            "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        ),
    ),
    "lu_factor_ex check": (
        lambda L: L.linalg.lu_factor_ex(T(L, [A3, SING]), check_errors=True),
        "RuntimeError",
        (
            "torch.linalg.lu_factor_ex: (Batch element 1): U[3,3] is zero and using it on lu_solve "
            "would result in a division by zero. If you still want to perform the factorization, "
            "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        ),
    ),
    "lu_factor_ex 1-d": (
        lambda L: L.linalg.lu_factor_ex(T(L, V3)),
        "RuntimeError",
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead",
    ),
    "torch.lu 1-d": (
        lambda L: L.lu(T(L, V3)),
        "RuntimeError",
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead",
    ),
    "Tensor.lu int": (
        lambda L: T(L, A3, "int64").lu(),
        "NotImplementedError",
        "\"lu_cpu\" not implemented for 'Long'",
    ),
    "lu_solve B 1-d": (
        lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(T(L, A3)), T(L, V3)),
        "RuntimeError",
        "linalg.lu_solve: The input tensor B must have at least 2 dimensions.",
    ),
    "lu_solve shapes": (
        lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(T(L, A3)), T(L, np.ones((4, 2)))),
        "RuntimeError",
        "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)",
    ),
    "lu_solve shapes right": (
        lambda L: L.linalg.lu_solve(
            *L.linalg.lu_factor(T(L, A3)), T(L, np.ones((4, 2))), left=False
        ),
        "RuntimeError",
        "linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 4x2)",
    ),
    "lu_solve LU not square": (
        lambda L: L.linalg.lu_solve(T(L, R23), T(L, [1, 2], "int32"), T(L, np.ones((2, 2)))),
        "RuntimeError",
        "torch.linalg.lu_solve: A must be batches of square matrices, but they are 2 by 3 matrices",
    ),
    "lu_solve LU 1-d": (
        lambda L: L.linalg.lu_solve(T(L, V3), T(L, [1, 2, 3], "int32"), T(L, A3)),
        "RuntimeError",
        "torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.",
    ),
    "lu_solve LU int": (
        lambda L: L.linalg.lu_solve(T(L, A3, "int64"), T(L, [1, 2, 3], "int32"), T(L, A3, "int64")),
        "RuntimeError",
        "torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got Long",
    ),
    "lu_solve pivots dtype": (
        lambda L: L.linalg.lu_solve(T(L, A3), T(L, [1, 2, 3], "int64"), T(L, A3)),
        "RuntimeError",
        "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32",
    ),
    "lu_solve pivots shape": (
        lambda L: L.linalg.lu_solve(T(L, A3), T(L, [1, 2], "int32"), T(L, A3)),
        "RuntimeError",
        "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix",
    ),
    "lu_solve pivots batch": (
        lambda L: L.linalg.lu_solve(T(L, np.ones((2, 3, 3))), T(L, [1, 2, 3], "int32"), T(L, A3)),
        "RuntimeError",
        (
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
            "pivots with shape [3] instead"
        ),
    ),
    "lu_solve dtypes": (
        lambda L: L.linalg.lu_solve(T(L, A3), T(L, [1, 2, 3], "int32"), T(L, A3, "float32")),
        "RuntimeError",
        (
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            "Double and B of type Float instead"
        ),
    ),
    "lu_solve pivot too large": (
        lambda L: L.linalg.lu_solve(T(L, A3), T(L, [4, 2, 3], "int32"), T(L, A3)),
        "RuntimeError",
        (
            "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
            "properly pass the result of lu_factor?"
        ),
    ),
    "lu_solve pivot zero": (
        lambda L: L.linalg.lu_solve(T(L, A3), T(L, [0, 2, 3], "int32"), T(L, A3)),
        "RuntimeError",
        (
            "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the "
            "result of lu_factor?"
        ),
    ),
    "lu_solve batches": (
        lambda L: L.linalg.lu_solve(
            T(L, np.ones((2, 3, 3))), T(L, np.ones((2, 3)), "int32"), T(L, np.ones((3, 3, 2)))
        ),
        "RuntimeError",
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
    ),
    "torch.lu_solve shapes": (
        lambda L: L.lu_solve(T(L, np.ones((4, 2))), *L.linalg.lu_factor(T(L, A3))),
        "RuntimeError",
        "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)",
    ),
    "lu_unpack 1-d": (
        lambda L: L.lu_unpack(T(L, V3), T(L, [1, 2, 3], "int32")),
        "RuntimeError",
        "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [3] instead",
    ),
    "lu_unpack pivots dtype": (
        lambda L: L.lu_unpack(T(L, A3), T(L, [1, 2, 3], "int64")),
        "RuntimeError",
        "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.",
    ),
    "lu_unpack pivot too large": (
        lambda L: L.lu_unpack(T(L, A3), T(L, [4, 2, 3], "int32")),
        "RuntimeError",
        (
            "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
            "properly pass the result of lu_factor?"
        ),
    ),
    "householder_product 1-d": (
        lambda L: L.linalg.householder_product(T(L, V3), T(L, V3[:2])),
        "RuntimeError",
        "torch.linalg.householder_product: input must have at least 2 dimensions.",
    ),
    "householder_product wide": (
        lambda L: L.linalg.householder_product(T(L, R23), T(L, V3[:2])),
        "RuntimeError",
        (
            "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
            "input.shape[-1]"
        ),
    ),
    "householder_product tau long": (
        lambda L: L.linalg.householder_product(T(L, R23.T), T(L, V3)),
        "RuntimeError",
        (
            "torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
            "tau.shape[-1]"
        ),
    ),
    "householder_product tau 0-d": (
        lambda L: L.linalg.householder_product(T(L, R23.T), T(L, 1.0)),
        "IndexError",
        "Dimension specified as -1 but tensor has no dimensions",
    ),
    "householder_product tau dims": (
        lambda L: L.linalg.householder_product(T(L, R23.T), T(L, [[1.0, 2]])),
        "RuntimeError",
        (
            "torch.linalg.householder_product: Expected tau to have one dimension less than input, "
            "but got tau.ndim equal to 2 and input.ndim is equal to 2"
        ),
    ),
    "householder_product tau batch": (
        lambda L: L.linalg.householder_product(T(L, np.ones((2, 3, 2))), T(L, np.ones((3, 2)))),
        "RuntimeError",
        (
            "torch.linalg.householder_product: Expected batch dimensions of tau to be equal to "
            "input.shape[:-2], but got [3]"
        ),
    ),
    "householder_product dtypes": (
        lambda L: L.linalg.householder_product(T(L, R23.T), T(L, [1.0, 2], "float32")),
        "RuntimeError",
        "torch.linalg.householder_product: tau dtype Float does not match input dtype Double",
    ),
    "householder_product int": (
        lambda L: L.linalg.householder_product(T(L, R23.T, "int64"), T(L, [1, 2], "int64")),
        "NotImplementedError",
        "\"orgqr_cpu\" not implemented for 'Long'",
    ),
    "orgqr wide": (
        lambda L: L.orgqr(T(L, R23), T(L, V3[:2])),
        "RuntimeError",
        (
            "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
            "input.shape[-1]"
        ),
    ),
    "cholesky_inverse 1-d": (
        lambda L: L.cholesky_inverse(T(L, V3)),
        "RuntimeError",
        "cholesky_inverse: The input tensor A must have at least 2 dimensions.",
    ),
    "cholesky_inverse not square": (
        lambda L: L.cholesky_inverse(T(L, R23)),
        "RuntimeError",
        "cholesky_inverse: A must be batches of square matrices, but they are 2 by 3 matrices",
    ),
    "cholesky_inverse int": (
        lambda L: L.cholesky_inverse(T(L, A3, "int64")),
        "NotImplementedError",
        "\"cholesky_inverse_out_cpu\" not implemented for 'Long'",
    ),
    "cholesky_inverse half": (
        lambda L: L.cholesky_inverse(T(L, A3, "float16")),
        "NotImplementedError",
        "\"cholesky_inverse_out_cpu\" not implemented for 'Half'",
    ),
    "cholesky_inverse singular": (
        lambda L: L.cholesky_inverse(T(L, np.diag([1.0, 0, 2]))),
        "LinAlgError",
        (
            "cholesky_inverse: The diagonal element 2 is zero, the inversion could not be "
            "completed because the input matrix is singular."
        ),
    ),
    "cholesky_inverse singular batch": (
        lambda L: L.cholesky_inverse(T(L, [np.eye(3), np.diag([1.0, 2, 0])])),
        "LinAlgError",
        (
            "cholesky_inverse: (Batch element 1): The diagonal element 3 is zero, the inversion "
            "could not be completed because the input matrix is singular."
        ),
    ),
    "cholesky_solve 1-d": (
        lambda L: L.cholesky_solve(T(L, V3), T(L, A3)),
        "RuntimeError",
        "b should have at least 2 dimensions, but has 1 dimensions instead",
    ),
    "cholesky_solve L 1-d": (
        lambda L: L.cholesky_solve(T(L, A3), T(L, V3)),
        "RuntimeError",
        "u should have at least 2 dimensions, but has 1 dimensions instead",
    ),
    "cholesky_solve not square": (
        lambda L: L.cholesky_solve(T(L, R23), T(L, R23)),
        "RuntimeError",
        "A must be batches of square matrices, but they are 2 by 3 matrices",
    ),
    "cholesky_solve shapes": (
        lambda L: L.cholesky_solve(T(L, np.ones((4, 2))), T(L, A3)),
        "RuntimeError",
        (
            "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b "
            "matrix is 4 by 2"
        ),
    ),
    "cholesky_solve dtypes": (
        lambda L: L.cholesky_solve(T(L, A3), T(L, A3, "float32")),
        "RuntimeError",
        (
            "Expected b and A to have the same dtype, but found b of type Double and A of type "
            "Float instead."
        ),
    ),
    "cholesky_solve int": (
        lambda L: L.cholesky_solve(T(L, A3, "int64"), T(L, A3, "int64")),
        "NotImplementedError",
        "\"cholesky_solve_cpu\" not implemented for 'Long'",
    ),
    "cholesky_solve batches": (
        lambda L: L.cholesky_solve(T(L, np.ones((2, 3, 2))), T(L, np.ones((3, 3, 3)))),
        "RuntimeError",
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    "triangular_solve 1-d": (
        lambda L: L.triangular_solve(T(L, V3), T(L, A3)),
        "RuntimeError",
        (
            "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has 1 "
            "dimensions instead"
        ),
    ),
    "triangular_solve A 1-d": (
        lambda L: L.triangular_solve(T(L, A3), T(L, V3)),
        "RuntimeError",
        (
            "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has 1 "
            "dimensions instead"
        ),
    ),
    "triangular_solve not square": (
        lambda L: L.triangular_solve(T(L, R23), T(L, R23)),
        "RuntimeError",
        "A must be batches of square matrices, but they are 2 by 3 matrices",
    ),
    "triangular_solve shapes": (
        lambda L: L.triangular_solve(T(L, np.ones((4, 2))), T(L, A3)),
        "RuntimeError",
        (
            "Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 but each b "
            "matrix is 4 by 2"
        ),
    ),
    "triangular_solve dtypes": (
        lambda L: L.triangular_solve(T(L, A3), T(L, A3, "float32")),
        "RuntimeError",
        (
            "Expected b and A to have the same dtype, but found b of type Double and A of type "
            "Float instead."
        ),
    ),
    "triangular_solve int": (
        lambda L: L.triangular_solve(T(L, A3, "int64"), T(L, A3, "int64")),
        "NotImplementedError",
        "\"triangular_solve_cpu\" not implemented for 'Long'",
    ),
    "triangular_solve half": (
        lambda L: L.triangular_solve(T(L, A3, "float16"), T(L, A3, "float16")),
        "NotImplementedError",
        "\"triangular_solve_cpu\" not implemented for 'Half'",
    ),
    "triangular_solve batches": (
        lambda L: L.triangular_solve(T(L, np.ones((2, 3, 2))), T(L, np.ones((3, 3, 3)))),
        "RuntimeError",
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
}


def _raised(make: Callable[[Any], Any], lib: Any) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            make(lib)
    return info.value


def _kind(error: BaseException, lib: Any) -> str:
    return "LinAlgError" if isinstance(error, lib.linalg.LinAlgError) else type(error).__name__


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_is_the_recorded_one(name: str) -> None:
    make, kind, message = ERRORS[name]
    error = _raised(make, chainrule)
    assert _kind(error, chainrule) == kind
    assert str(error).splitlines()[0] == message


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(torch: Any, name: str) -> None:
    make, _, _ = ERRORS[name]
    theirs, mine = _raised(make, torch), _raised(make, chainrule)
    assert _kind(mine, chainrule) == _kind(theirs, torch)
    assert str(mine).splitlines()[0] == str(theirs).splitlines()[0]


def test_errors_leave_no_graph() -> None:
    x = T(chainrule, SING, requires_grad=True)
    with pytest.raises(RuntimeError):
        chainrule.linalg.lu_factor(x)
    assert x.grad is None and x._version == 0
