"""gcd, lcm, frexp, torch.igamma/igammac, dist, renorm, the deprecated chain_matmul,
frobenius_norm and nuclear_norm, torch.fill and the torch.* forms of xlogy_, ldexp_,
detach, detach_, fill_ and zero_: results (shape, dtype, strides, version, node, values
rounded to 4 places, requires_grad) and errors, compared with PyTorch and with its
recorded output. Gradients of the float ops are in the op table
(tests/optable_math_forms.py)."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import chainrule
from chainrule._ops.linalg import decompositions


def _env(name: str, lib: Any) -> dict[str, Any]:
    """The tensors each group's expressions use, made in `lib`."""
    ns: dict[str, Any] = {"torch": lib}
    if name == "GCD":
        ns["x"] = lib.tensor([1.0, 2.0, 3.0])
        ns["a"], ns["b"] = lib.tensor([12, 18, -4, 0]), lib.tensor([8, 27, 6, 0])
        ns["y"] = lib.tensor([[1.5, -3.0, 0.0], [8.0, 0.1, float("inf")]], requires_grad=True)
        ns["ga"] = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        ns["gx"] = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    elif name == "NORMS":
        ns["a"] = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        ns["b"] = lib.tensor([0.5, -1.0], requires_grad=True)
    else:
        g = lib.Generator().manual_seed(0)
        ns["a"] = lib.randn(2, 3, generator=g).requires_grad_()
        ns["b"], ns["c"] = lib.randn(3, 4, generator=g), lib.randn(4, 2, generator=g)
        ns["m"] = lib.randn(3, 4, generator=g).requires_grad_()
    return ns


def _plain(value: Any) -> Any:
    """Values as comparable literals: nan and the infinities as text, floats to 4 places."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return str(value) if value != value or abs(value) == float("inf") else round(value, 4)
    return value


def _describe(r: Any, lib: Any) -> Any:
    if isinstance(r, tuple):
        return (
            type(r).__name__,
            [
                (
                    str(x.dtype).split(".")[1],
                    _plain(x.tolist()),
                    x.stride(),
                    type(x.grad_fn).__name__,
                )
                for x in r
            ],
        )
    values = _plain(r.tolist())
    if r.dtype in (lib.float32, lib.float64, lib.float16):
        values = _plain(r.flatten().tolist())
    name = type(r.grad_fn).__name__
    dtype = str(r.dtype).split(".")[1]
    return tuple(r.shape), dtype, r.stride(), r._version, name, values, r.requires_grad


def _outcome(group: str, lib: Any, expr: str) -> Any:
    ns = _env(group, lib)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _describe(eval(expr, ns), lib)
    except Exception as e:  # the type and text are what is compared
        return f"{type(e).__name__}: {e}".replace("chainrule", "torch")


# What PyTorch 2.13 gives for each expression.
GCD: dict[str, Any] = {
    "torch.xlogy_(x.clone(), 2)": (
        ((3,), "float32", (1,), 1, "NoneType", [0.6931, 1.3863, 2.0794], False)
    ),
    "torch.xlogy_(x.clone(), x)": (
        ((3,), "float32", (1,), 1, "NoneType", [0.0, 1.3863, 3.2958], False)
    ),
    "torch.ldexp_(x.clone(), torch.tensor([1,2,3]))": (
        ((3,), "float32", (1,), 1, "NoneType", [2.0, 8.0, 24.0], False)
    ),
    "torch.ldexp_(x.clone(), 2)": (
        "TypeError: ldexp_(): argument 'other' (position 2) must be Tensor, not int"
    ),
    "torch.gcd(a,b)); t('lcm', lambda: torch.lcm(a,b)": (
        "SyntaxError: unmatched ')' (<string>, line 1)"
    ),
    "torch.gcd(a.float(),b)": "NotImplementedError: \"gcd_cpu\" not implemented for 'Float'",
    "torch.gcd(a.bool(),b.bool())": "NotImplementedError: \"gcd_cpu\" not implemented for 'Bool'",
    "torch.gcd(a.to(torch.uint8),b.to(torch.int16))": (
        ((4,), "int16", (1,), 0, "NoneType", [4, 9, 6, 0], False)
    ),
    "torch.gcd(a[:,None],b)": (
        (
            (4, 4),
            "int64",
            (4, 1),
            0,
            "NoneType",
            [[4, 3, 6, 12], [2, 9, 6, 18], [4, 1, 2, 4], [8, 27, 6, 0]],
            False,
        )
    ),
    "torch.gcd(a[:,None].expand(4,4).t(),b)": (
        (
            (4, 4),
            "int64",
            (4, 1),
            0,
            "NoneType",
            [[4, 9, 2, 0], [4, 9, 2, 0], [4, 9, 2, 0], [4, 9, 2, 0]],
            False,
        )
    ),
    "torch.gcd(torch.tensor(12),torch.tensor(8, dtype=torch.int8))": (
        ((), "int64", (), 0, "NoneType", 4, False)
    ),
    "torch.gcd(a, 4)": "TypeError: gcd(): argument 'other' (position 2) must be Tensor, not int",
    "a.gcd(4)": "TypeError: gcd(): argument 'other' (position 1) must be Tensor, not int",
    (
        "a.clone().gcd_(b)); t('torch.gcd_', lambda: torch.gcd_(a.clone(),b)); t('lcm_', "
        "lambda: torch.lcm_(a.clone(),b)"
    ): ("SyntaxError: unmatched ')' (<string>, line 1)"),
    "a.clone().gcd_(b[:,None])": (
        "RuntimeError: output with shape [4] doesn't match the broadcast shape [4, 4]"
    ),
    "torch.lcm(torch.tensor([2**40]), torch.tensor([3**20]))": (
        ((1,), "int64", (1,), 0, "NoneType", [3162774884111613952], False)
    ),
    "torch.lcm(torch.tensor([100], dtype=torch.int8), torch.tensor([3], dtype=torch.int8))": (
        ((1,), "int8", (1,), 0, "NoneType", [44], False)
    ),
    "torch.gcd(torch.tensor([-12, -7, 0]), torch.tensor([-8, 0, -5]))": (
        ((3,), "int64", (1,), 0, "NoneType", [4, 7, 5], False)
    ),
    "torch.lcm(torch.tensor([-12, -7, 0]), torch.tensor([-8, 0, -5]))": (
        ((3,), "int64", (1,), 0, "NoneType", [24, 0, 0], False)
    ),
    "torch.gcd(torch.tensor([-2**63]), torch.tensor([0]))": (
        ((1,), "int64", (1,), 0, "NoneType", [-9223372036854775808], False)
    ),
    "torch.gcd(a,b,out=torch.empty(0,dtype=torch.long))": (
        ((4,), "int64", (1,), 1, "NoneType", [4, 9, 2, 0], False)
    ),
    "a.gcd(b)); t('Tlcm', lambda: a.lcm(b)": "SyntaxError: unmatched ')' (<string>, line 1)",
    "torch.tensor([4],dtype=torch.int8).gcd_(torch.tensor([6]))": (
        ((1,), "int8", (1,), 1, "NoneType", [2], False)
    ),
    "torch.tensor([4]).gcd_(torch.tensor([6], dtype=torch.int8))": (
        ((1,), "int64", (1,), 1, "NoneType", [2], False)
    ),
    "torch.tensor([4]).gcd_(torch.tensor([6.]))": (
        "RuntimeError: result type Float can't be cast to the desired output type Long"
    ),
    "torch.frexp(y)": (
        (
            "frexp",
            [
                ("float32", [[0.75, -0.75, 0.0], [0.5, 0.8, "inf"]], (3, 1), "FrexpBackward0"),
                ("int32", [[1, 2, 0], [4, -3, 0]], (3, 1), "NoneType"),
            ],
        )
    ),
    "y.frexp()": (
        (
            "frexp",
            [
                ("float32", [[0.75, -0.75, 0.0], [0.5, 0.8, "inf"]], (3, 1), "FrexpBackward0"),
                ("int32", [[1, 2, 0], [4, -3, 0]], (3, 1), "NoneType"),
            ],
        )
    ),
    "torch.frexp(torch.tensor([1,2]))": (
        "RuntimeError: torch.frexp() only supports floating-point dtypes"
    ),
    "torch.frexp(y.double())": (
        (
            "frexp",
            [
                ("float64", [[0.75, -0.75, 0.0], [0.5, 0.8, "inf"]], (3, 1), "FrexpBackward0"),
                ("int32", [[1, 2, 0], [4, -3, 0]], (3, 1), "NoneType"),
            ],
        )
    ),
    "torch.frexp(y.half())": (
        (
            "frexp",
            [
                ("float16", [[0.75, -0.75, 0.0], [0.5, 0.7998, "inf"]], (3, 1), "FrexpBackward0"),
                ("int32", [[1, 2, 0], [4, -3, 0]], (3, 1), "NoneType"),
            ],
        )
    ),
    "torch.frexp(torch.tensor([float('nan'), -float('inf'), -0.0, 1e-40]))": (
        (
            "frexp",
            [
                ("float32", ["nan", "-inf", -0.0, 0.5444], (1,), "NoneType"),
                ("int32", [0, 0, 0, -132], (1,), "NoneType"),
            ],
        )
    ),
    "torch.frexp(y.detach().t())": (
        (
            "frexp",
            [
                ("float32", [[0.75, 0.5], [-0.75, 0.8], [0.0, "inf"]], (1, 3), "NoneType"),
                ("int32", [[1, 4], [2, -3], [0, 0]], (1, 3), "NoneType"),
            ],
        )
    ),
    "tuple(torch.frexp(y.detach(), out=(torch.empty(0), torch.empty(0, dtype=torch.int32))))": (
        (
            "tuple",
            [
                ("float32", [[0.75, -0.75, 0.0], [0.5, 0.8, "inf"]], (3, 1), "NoneType"),
                ("int32", [[1, 2, 0], [4, -3, 0]], (3, 1), "NoneType"),
            ],
        )
    ),
    "torch.frexp(y).mantissa": (
        ((2, 3), "float32", (3, 1), 0, "FrexpBackward0", [0.75, -0.75, 0.0, 0.5, 0.8, "inf"], True)
    ),
    "torch.frexp(y).exponent": (
        ((2, 3), "int32", (3, 1), 0, "NoneType", [[1, 2, 0], [4, -3, 0]], False)
    ),
    "torch.autograd.grad(torch.frexp(y).mantissa.sum(), y)": (
        ("tuple", [("float32", [[0.5, 0.25, 1.0], [0.0625, 8.0, 1.0]], (3, 1), "NoneType")])
    ),
    "torch.autograd.grad(torch.igamma(ga, gx).sum(), ga)": (
        "NotImplementedError: the derivative for 'igamma: input' is not implemented."
    ),
    "torch.igamma(torch.tensor([1,2]), torch.tensor([1,2]))": (
        "NotImplementedError: \"igamma_cpu\" not implemented for 'Long'"
    ),
    "torch.igamma(ga, 2.)": (
        "TypeError: igamma(): argument 'other' (position 2) must be Tensor, not float"
    ),
    "ga.igamma(2.)": "TypeError: igamma(): argument 'other' (position 1) must be Tensor, not float",
    "ga.detach().igamma_(2.)": (
        "TypeError: igamma_(): argument 'other' (position 1) must be Tensor, not float"
    ),
    "torch.tensor([1,2]).igamma_(torch.tensor([1.,2.]))": (
        "RuntimeError: result type Float can't be cast to the desired output type Long"
    ),
}

NORMS: dict[str, Any] = {
    (
        "torch.dist(a, b)); t('dist p', lambda: torch.dist(a, b, 3)); t('dist inf', lambda: "
        "a.dist(b, float('inf'))"
    ): ("SyntaxError: unmatched ')' (<string>, line 1)"),
    (
        "torch.dist(a, b, 0)); t('dist int', lambda: torch.dist(torch.tensor([1,2]), "
        "torch.tensor([3,4]))"
    ): ("SyntaxError: unmatched ')' (<string>, line 1)"),
    "torch.dist(a, torch.ones(3))": (
        "RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at "
        "non-singleton dimension 1"
    ),
    "torch.dist(a, b.double())": ((), "float64", (), 0, "DistBackward0", [6.364], True),
    "torch.dist(a, torch.tensor([1, 2]))": ((), "float32", (), 0, "DistBackward0", [2.8284], True),
    "torch.dist(a, b, -1)": ((), "float32", (), 0, "DistBackward0", [0.3409], True),
    "torch.dist(a, b, -float('inf'))": ((), "float32", (), 0, "DistBackward0", [0.5], True),
    "torch.dist(a, 2.)": (
        "TypeError: dist(): argument 'other' (position 2) must be Tensor, not float"
    ),
    "a.dist(2.)": "TypeError: dist(): argument 'other' (position 1) must be Tensor, not float",
    "torch.dist(torch.tensor(3.), torch.tensor(1.))": (
        ((), "float32", (), 0, "NoneType", [2.0], False)
    ),
    "torch.dist(torch.ones(0), torch.ones(0))": ((), "float32", (), 0, "NoneType", [0.0], False),
    "torch.autograd.grad(torch.dist(a, b, 3), (a, b))": (
        (
            "tuple",
            [
                ("float32", [[0.0082, 0.2959], [0.2055, 0.8219]], (2, 1), "NoneType"),
                ("float32", [-0.2137, -1.1178], (1,), "NoneType"),
            ],
        )
    ),
    "torch.autograd.grad(torch.dist(a, b, 0), (a, b), allow_unused=True)[0]": (
        "RuntimeError: Expected a proper Tensor but got None (or an undefined Tensor in C++) "
        "for argument #0 'self'"
    ),
    "torch.autograd.grad(torch.dist(a, b, float('inf')), (a, b))": (
        (
            "tuple",
            [
                ("float32", [[0.0, 0.0], [0.0, 1.0]], (2, 1), "NoneType"),
                ("float32", [0.0, -1.0], (1,), "NoneType"),
            ],
        )
    ),
    "torch.autograd.grad(torch.dist(a, a.detach()), (a,))": (
        ("tuple", [("float32", [[0.0, 0.0], [0.0, 0.0]], (2, 1), "NoneType")])
    ),
    "torch.renorm(a, 2, 0, 2.)": (
        ((2, 2), "float32", (2, 1), 0, "RenormBackward0", [0.8944, 1.7889, 1.2, 1.6], True)
    ),
    "a.renorm(1, 1, 3)": (
        ((2, 2), "float32", (2, 1), 0, "RenormBackward0", [0.75, 1.0, 2.25, 2.0], True)
    ),
    "(a*1).renorm_(2, 0, 1.)": (
        ((2, 2), "float32", (2, 1), 1, "RenormBackward0", [0.4472, 0.8944, 0.6, 0.8], True)
    ),
    "a.renorm_(2, 0, 1.)": (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    ),
    "torch.renorm(a, -1, 0, 1.)": "RuntimeError: renorm: non-positive-norm not supported",
    "torch.renorm(a, 2, 0, -1.5)": "RuntimeError: renorm: expected maxnorm to be >= 0 but got -1.5",
    "torch.renorm(torch.tensor(1.), 2, 0, 1.)": (
        "RuntimeError: renorm: input needs at least 2 dimensions, got 0 dimensions"
    ),
    "torch.renorm(torch.ones(3), 2, 0, 1.)": (
        "RuntimeError: renorm: input needs at least 2 dimensions, got 1 dimensions"
    ),
    "torch.renorm(torch.tensor([[1,2]]), 2, 0, 1.)": (
        "RuntimeError: linalg.vector_norm: Expected a floating point or complex tensor as "
        "input. Got Long"
    ),
    "torch.renorm(a, 2, 5, 1.)": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    ),
    "torch.renorm(torch.tensor(1), -2, 5, -1.)": (
        "RuntimeError: renorm: non-positive-norm not supported"
    ),
    "torch.renorm(torch.tensor([[1]]), 2, 5, 1.)": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    ),
    "torch.renorm(torch.arange(24.).reshape(2,3,4), 2, 1, 10.)": (
        (
            (2, 3, 4),
            "float32",
            (12, 4, 1),
            0,
            "NoneType",
            [
                0.0,
                0.3656,
                0.7313,
                1.0969,
                1.0863,
                1.3578,
                1.6294,
                1.9009,
                1.6979,
                1.9101,
                2.1224,
                2.3346,
                4.3876,
                4.7533,
                5.1189,
                5.4845,
                4.345,
                4.6166,
                4.8881,
                5.1597,
                4.2448,
                4.457,
                4.6692,
                4.8815,
            ],
            False,
        )
    ),
    "torch.renorm(torch.arange(6.).reshape(2, 3).t(), 2, 0, 1.)": (
        (
            (3, 2),
            "float32",
            (2, 1),
            0,
            "NoneType",
            [0.0, 1.0, 0.2425, 0.9701, 0.3714, 0.9285],
            False,
        )
    ),
    "torch.renorm(a, float('inf'), 0, 1.)": (
        ((2, 2), "float32", (2, 1), 0, "RenormBackward0", [0.5, 1.0, 0.75, 1.0], True)
    ),
    "torch.renorm(a, 0, 0, 1.)": "RuntimeError: renorm: non-positive-norm not supported",
    "torch.renorm(a, p=2, dim=0, maxnorm=1.)": (
        ((2, 2), "float32", (2, 1), 0, "RenormBackward0", [0.4472, 0.8944, 0.6, 0.8], True)
    ),
    "torch.renorm(a.detach(), 2, 0, 1., out=torch.empty(0))": (
        ((2, 2), "float32", (2, 1), 1, "NoneType", [0.4472, 0.8944, 0.6, 0.8], False)
    ),
}

DEPRECATED: dict[str, Any] = {
    "torch.chain_matmul(a,b,c)": (
        ((2, 2), "float32", (2, 1), 0, "ViewBackward0", [-2.4159, -5.2396, -1.2181, -4.868], True)
    ),
    "torch.chain_matmul(a)": (
        (
            (2, 3),
            "float32",
            (3, 1),
            0,
            "CloneBackward0",
            [1.541, -0.2934, -2.1788, 0.5684, -1.0845, -1.3986],
            True,
        )
    ),
    "torch.chain_matmul()": "RuntimeError: chain_matmul(): Expected one or more matrices",
    "torch.chain_matmul(a,b)": (
        (
            (2, 4),
            "float32",
            (4, 1),
            0,
            "ViewBackward0",
            [3.1305, 0.9706, 0.3769, -1.7574, 2.3745, 0.1073, 1.3123, -1.9447],
            True,
        )
    ),
    "torch.chain_matmul(a,c)": (
        "RuntimeError: multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 2] cannot be "
        "multiplied"
    ),
    "torch.chain_matmul(a,torch.ones(3))": (
        "RuntimeError: Tensor dimension is 1, expected 2 instead."
    ),
    "torch.chain_matmul(torch.ones(3))": "RuntimeError: Tensor dimension is 1, expected 2 instead.",
    "torch.chain_matmul(torch.ones(2,2), torch.ones(2,2).double())": (
        "RuntimeError: multi_dot(): all tensors must have be the same dtype but tensor 0 is "
        "float and tensor 1 double"
    ),
    "torch.chain_matmul([torch.ones(2,2), torch.ones(2,2)])": (
        "TypeError: expected Tensor as element 0 in argument 0, but got list"
    ),
    "torch.frobenius_norm(m, (0,1))": ((), "float32", (), 0, "NormBackward1", [3.3811], True),
    "torch.frobenius_norm(m, 1)": (
        ((3,), "float32", (1,), 0, "NormBackward1", [1.6756, 1.5242, 2.5102], True)
    ),
    "torch.frobenius_norm(m, [0,1], True)": (
        ((1, 1), "float32", (1, 1), 0, "NormBackward1", [3.3811], True)
    ),
    "torch.frobenius_norm(m, (0,1,1))": (
        "RuntimeError: Expected at most 2 dimensions, but got 3 dimensions instead."
    ),
    "torch.frobenius_norm(m, (0,0))": (
        "RuntimeError: dim 0 appears multiple times in the list of dims"
    ),
    "torch.frobenius_norm(torch.ones(2,2,dtype=torch.long), (0,1))": (
        "RuntimeError: norm(): input dtype should be either floating point or complex. Got Long "
        "instead."
    ),
    "torch.frobenius_norm(m, ())": ((), "float32", (), 0, "NormBackward1", [3.3811], True),
    "torch.nuclear_norm(m)": ((), "float32", (), 0, "SumBackward1", [5.1498], True),
    "torch.nuclear_norm(m, True)": (
        ((1, 1), "float32", (1, 1), 0, "PermuteBackward0", [5.1498], True)
    ),
    "torch.nuclear_norm(m, keepdim=True)": (
        ((1, 1), "float32", (1, 1), 0, "PermuteBackward0", [5.1498], True)
    ),
    "torch.nuclear_norm(m, (1,0))": ((), "float32", (), 0, "SumBackward1", [5.1498], True),
    "torch.nuclear_norm(m, (1,0), keepdim=True)": (
        ((1, 1), "float32", (1, 1), 0, "PermuteBackward0", [5.1498], True)
    ),
    "torch.nuclear_norm(torch.randn(2,3,4,generator=g))": "NameError: name 'g' is not defined",
    "torch.nuclear_norm(torch.randn(2,3,4,generator=g).requires_grad_(), (0, 2), True)": (
        "NameError: name 'g' is not defined"
    ),
    "torch.nuclear_norm(torch.randn(3), (0,))": (
        "RuntimeError: linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
    ),
    "torch.nuclear_norm(m, 0)": (
        "RuntimeError: linalg.matrix_norm: dims must be different. Got (0, 0)"
    ),
    "torch.nuclear_norm(m, (0,1,1))": (
        "RuntimeError: linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 1"
    ),
    "torch.nuclear_norm(torch.ones(2,2,dtype=torch.long))": (
        "RuntimeError: linalg.matrix_norm: Expected a floating point or complex tensor as "
        "input. Got Long"
    ),
    "torch.linalg.matrix_norm(m,'nuc',keepdim=True)": (
        ((1, 1), "float32", (1, 1), 0, "PermuteBackward0", [5.1498], True)
    ),
    "torch.linalg.matrix_norm(m,2,(1, 0), keepdim=True)": (
        ((1, 1), "float32", (1, 1), 0, "PermuteBackward0", [2.9222], True)
    ),
    "torch.detach(m)); t('det_', lambda: torch.detach_(m*1)": (
        "SyntaxError: unmatched ')' (<string>, line 1)"
    ),
    "torch.detach_((m*1)[0])": (
        "RuntimeError: Can't detach views in-place. Use detach() instead. If you are using "
        "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
        "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
        "these gradients. To fix this error, please refer to the Optimizer.zero_grad() function "
        "in torch/optim/optimizer.py as the solution."
    ),
    "torch.fill(m, 2.5)); t('fill t', lambda: torch.fill(m, torch.tensor(2.))": (
        "SyntaxError: unmatched ')' (<string>, line 1)"
    ),
    "torch.fill(m.detach(), torch.tensor(2., requires_grad=True))": (
        (
            (3, 4),
            "float32",
            (4, 1),
            0,
            "FillBackward1",
            [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
            True,
        )
    ),
    (
        "torch.autograd.grad(torch.fill(m.detach(), v := torch.tensor(2., "
        "requires_grad=True)).sum(), v)"
    ): (("tuple", [("float32", 12.0, (), "NoneType")])),
    "torch.fill(m.detach().t(), 1)": (
        (
            (4, 3),
            "float32",
            (1, 4),
            0,
            "NoneType",
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            False,
        )
    ),
    "torch.fill(torch.ones(2, dtype=torch.long), 2.7)": (
        ((2,), "int64", (1,), 0, "NoneType", [2, 2], False)
    ),
    "torch.fill(m, torch.ones(2))": (
        "RuntimeError: fill_ only supports 0-dimension value tensor but got tensor with 1 "
        "dimensions."
    ),
    "torch.fill_(m*1, 3)": (
        (
            (3, 4),
            "float32",
            (4, 1),
            1,
            "FillBackward2",
            [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0],
            True,
        )
    ),
    "torch.zero_(m*1)": (
        (
            (3, 4),
            "float32",
            (4, 1),
            1,
            "ZeroBackward0",
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            True,
        )
    ),
}

GROUPS = {"GCD": GCD, "NORMS": NORMS, "DEPRECATED": DEPRECATED}
CASES = [(group, expr) for group, cases in GROUPS.items() for expr in cases]


@pytest.mark.parametrize(("group", "expr"), CASES)
def test_as_recorded(group: str, expr: str) -> None:
    assert _outcome(group, chainrule, expr) == GROUPS[group][expr]


@pytest.mark.parametrize(("group", "expr"), CASES)
def test_as_torch(torch: ModuleType, group: str, expr: str) -> None:
    assert _outcome(group, chainrule, expr) == _outcome(group, torch, expr)


# --- gcd and lcm over drawn integers -----------------------------------------------------

INTS = st.sampled_from(["int8", "int16", "int32", "int64", "uint8"])


def _pair(dtype: str, data: Any) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    values = st.integers(int(info.min), int(info.max))
    lists = st.lists(values, min_size=1, max_size=6)
    a = data.draw(lists)
    b = data.draw(st.lists(values, min_size=len(a), max_size=len(a)))
    return np.array(a, dtype=dtype), np.array(b, dtype=dtype)


@given(dtype=INTS, data=st.data())
def test_gcd_lcm_as_torch(torch: ModuleType, dtype: str, data: Any) -> None:
    a, b = _pair(dtype, data)
    ours = chainrule.gcd(chainrule.from_numpy(a), chainrule.from_numpy(b))
    theirs = torch.gcd(torch.from_numpy(a), torch.from_numpy(b))
    assert ours.tolist() == theirs.tolist(), "gcd"
    # Where the gcd overflows to -1 (the dtype's minimum and an odd number), PyTorch's lcm
    # divides the minimum by -1, which traps (SIGFPE) and kills the process: not compared.
    keep = ours.numpy() != -1
    a, b = a[keep], b[keep]
    ours = chainrule.lcm(chainrule.from_numpy(a), chainrule.from_numpy(b))
    theirs = torch.lcm(torch.from_numpy(a), torch.from_numpy(b))
    assert ours.tolist() == theirs.tolist(), "lcm"


@given(data=st.data())
def test_gcd_divides_and_lcm_is_a_multiple(data: Any) -> None:
    small = st.integers(-1000, 1000)
    a = np.array(data.draw(st.lists(small, min_size=1, max_size=8)))
    b = np.array(data.draw(st.lists(small, min_size=len(a), max_size=len(a))))
    g = chainrule.gcd(chainrule.from_numpy(a), chainrule.from_numpy(b)).numpy()
    m = chainrule.lcm(chainrule.from_numpy(a), chainrule.from_numpy(b)).numpy()
    assert (g >= 0).all() and (m >= 0).all()
    nonzero = g != 0
    assert (a[nonzero] % g[nonzero] == 0).all() and (b[nonzero] % g[nonzero] == 0).all()
    assert (g[~nonzero] == 0).all()
    both = (a != 0) & (b != 0)
    assert (m[both] % np.abs(a[both]) == 0).all() and (m[~both] == 0).all()
    assert (np.abs(a * b) == g * m).all()


def test_deprecated_forms_warn_once() -> None:
    decompositions._warned.clear()
    m = chainrule.ones(2, 2)
    with pytest.warns(UserWarning, match="at::nuclear_norm is deprecated"):
        chainrule.nuclear_norm(m)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chainrule.nuclear_norm(m)  # once per process, as PyTorch
    with pytest.warns(UserWarning, match=r"torch\.chain_matmul is deprecated"):
        chainrule.chain_matmul(m, m)
    with pytest.warns(UserWarning, match=r"linalg\.vector_norm\(A, 2\., dim, keepdim\)"):
        chainrule.frobenius_norm(m, (0, 1))
