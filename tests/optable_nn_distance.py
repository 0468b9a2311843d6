"""Op table lines for nn.functional's pdist and gumbel_softmax.

gumbel_softmax draws its noise from the default generator: each line seeds it
inside the call, so every evaluation (finite differences included) sees the same
draw, in chainrule and in torch alike.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from op_table import Op, lib
from optable_nn_conv import F


def np_pdist(x: np.ndarray, p: float) -> np.ndarray:
    i, j = np.triu_indices(x.shape[0], 1)
    d = np.abs(x[i] - x[j])
    if p == math.inf:
        return d.max(-1, initial=0.0)
    if p == 0:
        return (d != 0).sum(-1).astype(float)
    return (d**p).sum(-1) ** (1 / p)


def _gumbel(x: Any, **kwargs: Any) -> Any:
    lib(x).manual_seed(7)
    return F(x).gumbel_softmax(x, **kwargs)


def np_gumbel(x: np.ndarray, tau: float, dim: int) -> np.ndarray:
    """softmax((x + g) / tau) with g from torch's exponential draw (seed 7), if importable."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(7)
    g = -torch.empty(x.shape, dtype=torch.float64).exponential_().log().numpy()
    z = (x + g) / tau
    e = np.exp(z - z.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


_NO_SECOND = "PyTorch's PdistBackwardBackward0 has no derivative (NotImplementedError)"

# fmt: off
OPS: tuple[Op, ...] = (
    *(Op(f"nn_pdist_{p}", lambda x, p=p: F(x).pdist(x, p), lambda x, p=p: np_pdist(x, p),
         (((4, 3),), ((2, 1),), ((1, 3),)), second_order=False, forward_ad=False, note=_NO_SECOND)
      for p in (2.0, 1.0, 3.0, 0.5, math.inf)),
    Op("nn_gumbel_softmax", lambda x: _gumbel(x, tau=0.5), lambda x: np_gumbel(x, 0.5, -1),
       (((2, 3),), ((4,),))),
    Op("nn_gumbel_softmax_dim0", lambda x: _gumbel(x, dim=0), lambda x: np_gumbel(x, 1.0, 0),
       (((3, 2),),)),
)
# fmt: on
