"""nn.utils: clip_grad_norm_ (every norm type, non-finite norms), clip_grad_value_,
get_total_norm, clip_grads_with_norm_, parameters_to_vector and vector_to_parameters.

Scenarios run on chainrule and torch; the checks below them run without torch.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import chainrule
from nn_compare import assert_same, outcome
from torch_compare import registry

SCENARIOS, scenario = registry()
utils = chainrule.nn.utils

GRADS = [
    np.array([[3.0, -4.0], [1.0, 0.5]], dtype=np.float32),
    np.array([12.0, -0.25, 2.0], dtype=np.float32),
    np.array(0.75, dtype=np.float32),
]


def params_with_grads(m: Any, grads: list[np.ndarray] = GRADS) -> list[Any]:
    params = [m.nn.Parameter(m.zeros(tuple(g.shape))) for g in grads]
    for p, g in zip(params, grads, strict=True):
        p.grad = m.tensor(g)
    return params


def clipping(norm_type: Any, max_norm: float = 1.0, **kwargs: Any) -> None:
    def run(m: Any) -> Any:
        params = params_with_grads(m)
        params.append(m.nn.Parameter(m.ones(2)))  # no grad: skipped
        total = m.nn.utils.clip_grad_norm_(params, max_norm, norm_type, **kwargs)
        return [total, [p.grad for p in params[:3]]]

    run.__name__ = f"clip_grad_norm_{norm_type}_{max_norm}_{'_'.join(kwargs)}"
    scenario(run)


for _norm in (2.0, 1, 3.5, 0.5, math.inf, -math.inf, 0, "inf"):
    clipping(_norm)
clipping(2.0, max_norm=100.0)  # already small enough: unchanged
clipping(2.0, foreach=True)
clipping(2.0, foreach=False, error_if_nonfinite=True)


@scenario
def clip_grad_norm_single_tensor_and_generator(m: Any) -> Any:
    p = params_with_grads(m)[0]
    total = m.nn.utils.clip_grad_norm_(p, 0.5)
    lin = m.nn.Linear(3, 2)
    lin(m.ones(4, 3)).sum().backward()
    total2 = m.nn.utils.clip_grad_norm_(lin.parameters(), 0.1)
    return [total, p.grad, total2, lin.weight.grad, lin.bias.grad]


@scenario
def non_finite_norms(m: Any) -> Any:
    grads = [np.array([np.inf, 1.0], dtype=np.float32), np.array([np.nan], dtype=np.float32)]
    params = params_with_grads(m, grads)
    total = m.nn.utils.clip_grad_norm_(params, 1.0)
    try:
        m.nn.utils.clip_grad_norm_(params_with_grads(m, grads), 1.0, error_if_nonfinite=True)
    except RuntimeError as e:
        error = str(e)
    return [total, [p.grad for p in params], error]


@scenario
def total_norm_and_clip_with_norm(m: Any) -> Any:
    params = params_with_grads(m)
    grads = [p.grad for p in params]
    total = m.nn.utils.get_total_norm(grads, 3.0)
    m.nn.utils.clip_grads_with_norm_(params, 2.0, total)
    return [total, grads, m.nn.utils.get_total_norm([]), m.nn.utils.get_total_norm(grads[0])]


@scenario
def clip_grad_value(m: Any) -> Any:
    params = params_with_grads(m)
    m.nn.utils.clip_grad_value_(params, 1.5)
    one = params_with_grads(m)[1]
    result = m.nn.utils.clip_grad_value_(one, 0.5)
    return [[p.grad for p in params], one.grad, result]


@scenario
def vectors(m: Any) -> Any:
    m.manual_seed(0)
    model = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.Linear(2, 1))
    vec = m.nn.utils.parameters_to_vector(model.parameters())
    m.nn.utils.vector_to_parameters(m.arange(11.0), model.parameters())
    try:
        m.nn.utils.vector_to_parameters([1.0], model.parameters())
    except TypeError as e:
        error = str(e)
    return [vec, vec.grad_fn is not None, list(model.parameters()), error]


@pytest.mark.parametrize("fn", SCENARIOS, ids=[f.__name__ for f in SCENARIOS])
def test_matches_torch(torch: Any, fn: Any) -> None:
    # A p-norm of one value, (|x|^p)^(1/p), rounds in the last bit differently.
    loose = {"rtol": 2e-7} if fn is total_norm_and_clip_with_norm else {}
    assert_same(outcome(fn, chainrule), outcome(fn, torch), **loose)


def test_warnings_match_torch(torch: Any) -> None:
    def caught(m: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            m.nn.utils.clip_grad_norm_((p for p in []), 1.0)
            m.nn.utils.clip_grad_norm(params_with_grads(m), 1.0)
        return [f"{w.category.__name__}: {w.message}" for w in ws]

    assert caught(chainrule) == caught(torch)


# --- without torch ------------------------------------------------------------------------


def test_clip_grad_norm_scales_to_max_norm() -> None:
    params = params_with_grads(chainrule)
    flat = np.concatenate([g.ravel() for g in GRADS]).astype(np.float64)
    total = utils.clip_grad_norm_(params, 2.0)
    assert math.isclose(total.item(), np.linalg.norm(flat), rel_tol=1e-6)
    clipped = np.concatenate([p.grad.numpy().ravel() for p in params])
    assert math.isclose(np.linalg.norm(clipped), 2.0, rel_tol=1e-5)
    np.testing.assert_allclose(clipped / np.linalg.norm(clipped), flat / np.linalg.norm(flat), 1e-6)


def test_norm_types_by_hand() -> None:
    flat = np.concatenate([g.ravel() for g in GRADS]).astype(np.float64)
    for norm_type, expected in [
        (1, np.abs(flat).sum()),
        (math.inf, np.abs(flat).max()),
        (3.0, (np.abs(flat) ** 3).sum() ** (1 / 3)),
    ]:
        total = utils.get_total_norm([p.grad for p in params_with_grads(chainrule)], norm_type)
        assert math.isclose(total.item(), expected, rel_tol=1e-6)


def test_non_finite_error_recorded() -> None:
    params = params_with_grads(chainrule, [np.array([np.nan], dtype=np.float32)])
    with pytest.raises(RuntimeError) as info:
        utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    assert str(info.value) == (
        "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it "
        "cannot be clipped. To disable this error and scale the gradients by the non-finite "
        "norm anyway, set `error_if_nonfinite=False`"
    )


def test_vector_round_trip() -> None:
    model = chainrule.nn.Sequential(chainrule.nn.Linear(3, 2), chainrule.nn.Linear(2, 1))
    vec = utils.parameters_to_vector(model.parameters())
    assert tuple(vec.shape) == (11,)
    utils.vector_to_parameters(vec * 2, model.parameters())
    again = utils.parameters_to_vector(model.parameters())
    np.testing.assert_allclose(again.detach().numpy(), (vec * 2).detach().numpy())
    with pytest.raises(TypeError, match=r"^expected torch.Tensor, but got: list$"):
        utils.vector_to_parameters([1.0], model.parameters())  # type: ignore[arg-type]
