"""W4: a Hessian-vector product by double backward, n = 1000, float64.

The function and the PyTorch/chainrule code are `bench_hvp.py`'s: H v for
f(x) = sum(tanh(W x)^2). HIPS autograd runs its own `hessian_vector_product` (a grad
of the grad's dot product with v, the same double backward). MyGrad has no
higher-order derivatives and NumPy by hand is not asked for: both show a dash.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
from bench_hvp import Inputs, hvp, hvp_reference, make_inputs

N = 1000
LIBRARIES = ("torch", "autograd", "chainrule")

__all__ = ["LIBRARIES", "N", "hvp_reference", "hvp_run", "make_inputs"]


def autograd_run(m: ModuleType, inputs: Inputs) -> Callable[[], np.ndarray]:
    w, x, v = inputs
    anp = m.numpy

    def f(x: np.ndarray) -> np.ndarray:
        return anp.sum(anp.tanh(anp.dot(w, x)) ** 2)

    hessian_times = m.hessian_vector_product(f)
    return lambda: np.asarray(hessian_times(x, v))


def hvp_run(key: str, module: ModuleType, inputs: Inputs) -> Callable[[], np.ndarray]:
    """One library's HVP on the inputs, returning H v as an array."""
    if key == "autograd":
        return autograd_run(module, inputs)
    return lambda: hvp(module, inputs)
