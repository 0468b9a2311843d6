"""Op table lines for frexp's mantissa, torch.igamma/igammac (differentiable in `other`
only), dist, renorm, torch.fill with a tensor value, the deprecated chain_matmul,
frobenius_norm and nuclear_norm, and the torch.* forms of xlogy_ and ldexp_. Integer ops,
dtypes and errors are in tests/test_math_forms.py."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from op_table import ANY, NONZERO, Domain, Op, lib
from optable_unary import GAMMA, _const, _mp_expr


def _quiet(fn: Any) -> Any:
    """`fn` with the deprecated forms' warnings silenced."""

    def call(*args: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)

    return call


def _dist_ref(p: float) -> Any:
    def ref(a: np.ndarray, b: np.ndarray) -> Any:
        d = np.abs(a - b).reshape(-1)
        if p == np.inf:
            return d.max()
        return (d**p).sum() ** (1 / p)

    return ref


def _renorm_ref(p: float, dim: int, maxnorm: float) -> Any:
    def ref(x: np.ndarray) -> Any:
        others = tuple(d for d in range(x.ndim) if d != dim % x.ndim)
        norm = (np.abs(x) ** p).sum(others, keepdims=True) ** (1 / p)
        return x * np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)

    return ref


def _nuclear(x: np.ndarray) -> Any:
    return np.linalg.svd(x, compute_uv=False).sum(-1)


# A domain keeping renorm's slices away from the norm bound (where its derivative jumps).
WIDE = Domain(0.5, 2.0)

# fmt: off
OPS: tuple[Op, ...] = (
    Op("frexp", lambda x: lib(x).frexp(x).mantissa,
       lambda x: np.frexp(x)[0], (((2, 3),), ((),)), Domain(avoid=(-1.0, -0.5, 0.0, 0.5, 1.0))),
    Op("Tensor_frexp", lambda x: x.frexp()[0], lambda x: np.frexp(x)[0], (((4,),),),
       Domain(avoid=(-1.0, -0.5, 0.0, 0.5, 1.0))),
    Op("igamma", lambda x: lib(x).igamma(_const(x, 2.5), x),
       _mp_expr(lambda mp, v: mp.gammainc(2.5, 0, v, regularized=True)), (((2, 3),),), GAMMA),
    Op("igammac", lambda x: _const(x, 0.7).igammac(x),
       _mp_expr(lambda mp, v: mp.gammainc(0.7, v, mp.inf, regularized=True)), (((4,),),),
       GAMMA),
    Op("dist", lambda a, b: lib(a).dist(a, b), _dist_ref(2), (((2, 3), (3,)), ((4,), (4,)))),
    Op("dist_p3", lambda a, b: a.dist(b, 3), _dist_ref(3), (((2, 3), (2, 3)),),
       (Domain(0.1, 1.0), Domain(-1.0, -0.1))),
    Op("dist_p1_5", lambda a, b: lib(a).dist(a, b, 1.5), _dist_ref(1.5), (((3,), (2, 3)),),
       (Domain(0.1, 1.0), Domain(-1.0, -0.1))),
    Op("dist_inf", lambda a, b: lib(a).dist(a, b, float("inf")), _dist_ref(np.inf),
       (((2, 3), (2, 3)),)),
    Op("renorm", lambda x: lib(x).renorm(x, 2, 0, 1.5), _renorm_ref(2, 0, 1.5),
       (((2, 3),), ((3, 2, 2),)), WIDE),
    Op("renorm_p1", lambda x: x.renorm(1, 1, 2.0), _renorm_ref(1, 1, 2.0), (((3, 2),),), WIDE),
    Op("renorm_p3_small", lambda x: x.renorm(3, -1, 0.5), _renorm_ref(3, -1, 0.5),
       (((2, 2, 3),),), WIDE),
    Op("renorm_", lambda x: (x * 1).renorm_(2, 1, 1.0), _renorm_ref(2, 1, 1.0), (((2, 3),),),
       WIDE),
    Op("fill_tensor", lambda x, v: lib(x).fill(x, v), lambda x, v: np.full_like(x, v),
       (((2, 3), ()),)),
    Op("chain_matmul", _quiet(lambda a, b, c: lib(a).chain_matmul(a, b, c)),
       lambda a, b, c: a @ b @ c, (((2, 3), (3, 4), (4, 2)),)),
    Op("frobenius_norm", _quiet(lambda x: lib(x).frobenius_norm(x, (0, 1))),
       lambda x: np.sqrt((x * x).sum((0, 1))), (((2, 3),), ((2, 3, 2),)), NONZERO),
    Op("frobenius_norm_keepdim", _quiet(lambda x: lib(x).frobenius_norm(x, 1, True)),
       lambda x: np.sqrt((x * x).sum(1, keepdims=True)), (((2, 3),),), NONZERO),
    Op("nuclear_norm", _quiet(lambda x: lib(x).nuclear_norm(x)), _nuclear,
       (((3, 2),), ((2, 3, 3),)), ANY),
    Op("nuclear_norm_dim_keepdim", _quiet(lambda x: lib(x).nuclear_norm(x, (0, 2), True)),
       lambda x: _nuclear(np.moveaxis(x, 1, 0))[:, None, None].transpose(1, 0, 2),
       (((3, 2, 2),),)),
    Op("torch_xlogy_", lambda x, y: lib(x).xlogy_(x * 1, y), lambda x, y: x * np.log(y),
       (((2, 3), (2, 3)),), (ANY, Domain(0.1, 2.0))),
    Op("torch_ldexp_", lambda x: lib(x).ldexp_(x * 1, lib(x).tensor([1, 0, 3])),
       lambda x: x * 2.0 ** np.array([1, 0, 3]), (((3,),),)),
)
# fmt: on
