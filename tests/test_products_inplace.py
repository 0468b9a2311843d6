"""addr and the in-place add-products (addmm_, addmv_, baddbmm_, addbmm_, addr_): shapes,
dtypes, layouts, versions, nodes, values where exact, and errors, compared with PyTorch and
with its recorded output. Values and gradients of the float ops are in the op table
(tests/optable_products_inplace.py)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import chainrule


def _outcome(lib: Any, expr: str) -> Any:
    g = lib.Generator().manual_seed(0)

    def m(*shape: int, dt: Any = None) -> Any:
        return lib.randn(*shape, dtype=dt or lib.float32, generator=g)

    a = m(3, 4).requires_grad_()
    try:
        r = eval(expr, {"torch": lib, "m": m, "a": a})
    except Exception as e:  # the type and text are what is compared
        return f"{type(e).__name__}: {e}".replace("chainrule.", "torch.")
    values = r.tolist() if r.dtype != lib.float32 else None
    name = type(r.grad_fn).__name__
    return tuple(r.shape), str(r.dtype).split(".")[1], r.stride(), r._version, name, values


# What PyTorch 2.13 gives for each expression: (shape, dtype, strides, version, node,
# values unless float32) or the error.
CASES: dict[str, Any] = {
    "m(3,4).addmm_(m(3,5), m(5,4), beta=2, alpha=3)": (
        ((3, 4), "float32", (4, 1), 1, "NoneType", None)
    ),
    "m(1,4).addmm_(m(3,5), m(5,4))": (
        "RuntimeError: Bad in-place call: input tensor size [1, 4] and output tensor size [3, 4] "
        "should match"
    ),
    "m(3,4,dt=torch.float64).addmm_(m(3,5), m(5,4))": (
        "RuntimeError: self and mat2 must have the same dtype, but got Double and Float"
    ),
    "m(3,4).addmm_(m(3,5,dt=torch.float64), m(5,4,dt=torch.float64))": (
        "RuntimeError: self and mat2 must have the same dtype, but got Float and Double"
    ),
    "m(3,4).addmm_(m(3,5), m(6,4))": (
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x5 and 6x4)"
    ),
    "m(3,4).addmm_(m(5), m(5,4))": "RuntimeError: mat1 must be a matrix, got 1-D tensor",
    "m(4,3).t().addmm_(m(3,5), m(5,4))": ((3, 4), "float32", (1, 3), 1, "NoneType", None),
    "m(3).addmv_(m(3,2), m(2))": ((3,), "float32", (1,), 1, "NoneType", None),
    "torch.tensor(1.).addmv_(m(3,2), m(2))": (
        "RuntimeError: Bad in-place call: input tensor size [] and output tensor size [3] "
        "should match"
    ),
    "torch.addmv_(m(3), m(3,2), m(2), beta=0.5, alpha=2)": (
        ((3,), "float32", (1,), 1, "NoneType", None)
    ),
    "m(3,dt=torch.float64).addmv_(m(3,2), m(2))": (
        "RuntimeError: addmv input tensors must have the same dtype, but got Double, Float, "
        "and Float"
    ),
    "m(3).addmv_(m(3,2), m(3))": "RuntimeError: size mismatch, got input (3), mat (3x2), vec (3)",
    "m(2,3,4).baddbmm_(m(2,3,5), m(2,5,4))": (
        (2, 3, 4),
        "float32",
        (12, 4, 1),
        1,
        "NoneType",
        None,
    ),
    "m(3,4).baddbmm_(m(2,3,5), m(2,5,4))": (
        "RuntimeError: Bad in-place call: input tensor size [3, 4] and output tensor size [2, 3, "
        "4] should match"
    ),
    "m(2,3,4,dt=torch.float64).baddbmm_(m(2,3,5), m(2,5,4))": (
        "RuntimeError: Input dtypes must be the same, got: input double, batch1: float, "
        "batch2: float"
    ),
    "m(3,4).addbmm_(m(2,3,5), m(2,5,4))": ((3, 4), "float32", (4, 1), 1, "NoneType", None),
    "m(5).addbmm_(m(2,3,5), m(2,5,4))": (
        "RuntimeError: The expanded size of the tensor (4) must match the existing size (5) at "
        "non-singleton dimension 1.  Target sizes: [3, 4].  Tensor sizes: [5]"
    ),
    "m(3,4,dt=torch.float64).addbmm_(m(2,3,5), m(2,5,4))": (
        "RuntimeError: self and mat2 must have the same dtype, but got Double and Float"
    ),
    "m(3,4).addr_(m(3), m(4))": ((3, 4), "float32", (4, 1), 1, "NoneType", None),
    "m(1,4).addr_(m(3), m(4))": "RuntimeError: size mismatch, input: [1, 4], v1: [3], v2: [4]",
    "m(4).addr_(m(3), m(4))": "RuntimeError: 2D tensor expected, got 1D tensor for input",
    "m(3,4,dt=torch.float64).addr_(m(3), m(4))": (
        (3, 4),
        "float64",
        (4, 1),
        1,
        "NoneType",
        [
            [-1.008463013132816, 1.0965980383676135, -1.2090417156993905, 0.2222117755379453],
            [-1.5661089470171712, 0.3467272645216748, -1.800006652083402, -0.8536573108309458],
            [1.3912602155133422, 1.4834462118061484, 1.8669617664348066, 0.10558174710695334],
        ],
    ),
    "m(3,4).addr_(m(3,dt=torch.float64), m(4,dt=torch.float64))": (
        ((3, 4), "float32", (4, 1), 1, "NoneType", None)
    ),
    "torch.ones(3,4,dtype=torch.long).addr_(m(3), m(4))": (
        "RuntimeError: result type Float can't be cast to the desired output type Long"
    ),
    "torch.addr(m(3,4), m(3), m(4))": ((3, 4), "float32", (4, 1), 0, "NoneType", None),
    "torch.addr(torch.tensor(1.), m(3), m(4))": ((3, 4), "float32", (4, 1), 0, "NoneType", None),
    "torch.addr(m(1), m(3), m(4))": ((3, 4), "float32", (4, 1), 0, "NoneType", None),
    "torch.addr(m(3,1), m(3), m(4))": ((3, 4), "float32", (4, 1), 0, "NoneType", None),
    "torch.addr(m(1,3,4), m(3), m(4))": (
        "RuntimeError: expand(torch.FloatTensor{[1, 3, 4]}, size=[3, 4]): the number of sizes "
        "provided (2) must be greater or equal to the number of dimensions in the tensor (3)"
    ),
    "torch.addr(m(3,5), m(3), m(4))": (
        "RuntimeError: The expanded size of the tensor (4) must match the existing size (5) at "
        "non-singleton dimension 1.  Target sizes: [3, 4].  Tensor sizes: [3, 5]"
    ),
    "torch.addr(m(3,4), m(3), m(4,1))": (
        "RuntimeError: addr: Expected 1-D argument vec2, but got 2-D"
    ),
    "torch.addr(m(3,4), torch.tensor(1.), m(4))": (
        "RuntimeError: addr: Expected 1-D argument vec1, but got 0-D"
    ),
    (
        "torch.addr(torch.ones(3,4,dtype=torch.long), torch.arange(3), torch.arange(4), beta=2, "
        "alpha=3)"
    ): (((3, 4), "int64", (4, 1), 0, "NoneType", [[2, 2, 2, 2], [2, 5, 8, 11], [2, 8, 14, 20]])),
    (
        "torch.addr(torch.ones(3,4,dtype=torch.long), torch.ones(3,dtype=torch.long), "
        "torch.ones(4,dtype=torch.long), alpha=0.5)"
    ): (
        "RuntimeError: For integral input tensors, argument alpha must not be a floating point "
        "number."
    ),
    (
        "torch.addr(torch.ones(3,4,dtype=torch.bool), torch.tensor([True,False,True]), "
        "torch.tensor([True,False,True,False]), beta=False)"
    ): (
        (
            (3, 4),
            "bool",
            (4, 1),
            0,
            "NoneType",
            [[True, False, True, False], [False, False, False, False], [True, False, True, False]],
        )
    ),
    (
        "torch.addr(torch.tensor([[True],[False],[False]]), torch.tensor([True,False,True]), "
        "torch.tensor([True,False,True,False]), beta=2)"
    ): (
        (
            (3, 4),
            "bool",
            (4, 1),
            0,
            "NoneType",
            [[True, True, True, True], [False, False, False, False], [True, False, True, False]],
        )
    ),
    (
        "torch.addr(torch.tensor([[True],[False],[False]]), torch.tensor([True,False,True]), "
        "torch.tensor([True,False,True,False]), beta=0.5)"
    ): (
        "RuntimeError: For integral input tensors, argument beta must not be a floating point "
        "number."
    ),
    "torch.addr(m(3,4), m(3), m(4), alpha=True)": (
        "RuntimeError: Boolean alpha only supported for Boolean results."
    ),
    "torch.addr(m(3,4), m(3), m(4), out=torch.empty(0))": (
        ((3, 4), "float32", (4, 1), 1, "NoneType", None)
    ),
    "torch.addr(input=m(3,4), vec1=m(3), vec2=m(4))": (
        ((3, 4), "float32", (4, 1), 0, "NoneType", None)
    ),
    "m(3,4).addr(vec1=m(3), vec2=m(4), beta=0)": ((3, 4), "float32", (4, 1), 0, "NoneType", None),
    (
        "torch.addr(torch.full((3,1), float('nan'), dtype=torch.float64), torch.ones(3, "
        "dtype=torch.float64), torch.ones(2, dtype=torch.float64), beta=0)"
    ): (((3, 2), "float64", (2, 1), 0, "NoneType", [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])),
    (
        "torch.addr(m(3,4,dt=torch.float64), torch.ones(3,dtype=torch.long), "
        "torch.ones(4,dtype=torch.long))"
    ): (
        (
            (3, 4),
            "float64",
            (4, 1),
            0,
            "NoneType",
            [
                [0.1433254067036257, 2.100604170903427, -0.0711873631091473, 1.1227012391633122],
                [0.43368252484514536, 1.3731146341824996, 0.10800468519343753, -0.5091077446322021],
                [1.3703935333738153, 2.4565026067903366, 1.9398099079535256, 1.7748488177844168],
            ],
        )
    ),
    "torch.addr(torch.ones(3,4,dtype=torch.long), m(3,dt=torch.float64), m(4,dt=torch.float64))": (
        (3, 4),
        "float64",
        (4, 1),
        0,
        "NoneType",
        [
            [0.8948849658428084, 1.4851497927049147, 0.6803621725087817, 1.7641497235341834],
            [1.1350454955981604, 0.3767086247890691, 1.4106515226063654, 0.018266236097581823],
            [0.8685639831704268, 1.6066321228937588, 0.6003243188726142, 1.9554941091733555],
        ],
    ),
    "torch.addr(torch.tensor(2., dtype=torch.float64), m(3), m(4))": (
        (3, 4),
        "float64",
        (4, 1),
        0,
        "NoneType",
        [
            [1.8948849606857125, 2.485149823209472, 1.6803621560119701, 2.764149736386237],
            [2.1350455000326125, 1.3767085957113707, 2.410651537137774, 1.018266235514389],
            [1.8685639778239125, 2.606632155950855, 1.6003243015957551, 2.955494117232959],
        ],
    ),
    "torch.addr(m(4,3).t(), m(3), m(4))": ((3, 4), "float32", (1, 3), 0, "NoneType", None),
    "torch.addr(m(4), m(3), m(4))": ((3, 4), "float32", (4, 1), 0, "NoneType", None),
    "a.addmm_(m(3,5), m(5,4))": (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    ),
    "(a*1).addr_(m(3), m(4))": ((3, 4), "float32", (4, 1), 1, "AddrBackward0", None),
    "(a*1).addmm_(m(3,5), m(5,4))": ((3, 4), "float32", (4, 1), 1, "AddmmBackward0", None),
    "torch.arange(4.).addbmm_(m(2,3,5), m(2,5,4), beta=2)": (
        ((3, 4), "float32", (4, 1), 1, "NoneType", None)
    ),
    "m(1,4).addbmm_(m(2,3,5), m(2,5,4))": ((3, 4), "float32", (4, 1), 1, "NoneType", None),
    "torch.ones(4, dtype=torch.long).addbmm_(m(2,3,5), m(2,5,4))": (
        "RuntimeError: self and mat2 must have the same dtype, but got Long and Float"
    ),
    "(a[0]*1).addbmm_(m(2,3,5), m(2,5,4))": ((3, 4), "float32", (4, 1), 1, "AddbmmBackward0", None),
}


@pytest.mark.parametrize("expr", list(CASES))
def test_as_recorded(expr: str) -> None:
    assert _outcome(chainrule, expr) == CASES[expr]


@pytest.mark.parametrize("expr", list(CASES))
def test_as_torch(torch: ModuleType, expr: str) -> None:
    assert _outcome(chainrule, expr) == _outcome(torch, expr)


def test_addr_is_beta_input_plus_alpha_outer() -> None:
    x = chainrule.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    v1, v2 = chainrule.tensor([1.0, 2.0, 3.0]), chainrule.tensor([0.5, -1.0])
    got = chainrule.addr(x, v1, v2, beta=2, alpha=4)
    assert got.tolist() == [[4.0, 0.0], [10.0, 0.0], [16.0, 0.0]]
    y = x.clone()
    assert y.addr_(v1, v2, beta=2, alpha=4) is y and y.tolist() == got.tolist()


def test_addr_gradients() -> None:
    x = chainrule.zeros(3, 2, requires_grad=True)
    v1 = chainrule.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v2 = chainrule.tensor([0.5, -1.0], requires_grad=True)
    out = chainrule.addr(x, v1, v2, beta=2, alpha=3)
    gx, g1, g2 = chainrule.autograd.grad(out.sum(), (x, v1, v2))
    assert gx.tolist() == [[2.0, 2.0]] * 3
    assert g1.tolist() == [-1.5] * 3 and g2.tolist() == [18.0, 18.0]
