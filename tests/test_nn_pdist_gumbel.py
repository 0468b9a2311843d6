"""nn.functional.pdist and gumbel_softmax: PyTorch's errors, pdist's missing second
derivative, gumbel_softmax's draws (PyTorch's, from the same seed) and its hard
samples. The op table checks values and derivatives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule

F = chainrule.nn.functional

CALLS = [
    lambda m: m.nn.functional.pdist(m.ones(3)),
    lambda m: m.nn.functional.pdist(m.ones(3, 2), p=-1),
    lambda m: m.nn.functional.pdist(m.ones(3, 2, dtype=m.long)),
    lambda m: m.nn.functional.pdist(m.ones(3, 2, dtype=m.float16)),
]
MESSAGES = [
    "pdist only supports 2D tensors, got: 1D",
    "pdist only supports non-negative p values",
    "pdist only supports floating-point dtypes",
    "\"pdist\" not implemented for 'Half'",
]


@pytest.mark.parametrize(("call", "message"), zip(CALLS, MESSAGES, strict=True))
def test_pdist_errors(call: Any, message: str) -> None:
    with pytest.raises((RuntimeError, NotImplementedError)) as info:
        call(chainrule)
    assert str(info.value) == message


@pytest.mark.parametrize("call", CALLS)
def test_pdist_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises((RuntimeError, NotImplementedError)) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as mine:
        call(chainrule)
    assert str(mine.value) == str(theirs.value)


def test_pdist_small_inputs() -> None:
    assert F.pdist(chainrule.ones(1, 2)).shape == (0,)
    assert F.pdist(chainrule.ones(3, 0)).tolist() == [0.0, 0.0, 0.0]
    x = chainrule.tensor([[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]], requires_grad=True)
    (g,) = chainrule.autograd.grad(F.pdist(x).sum(), x)  # no nan at the zero distance
    np.testing.assert_allclose(
        g.tolist(), [[-0.4472136, -0.8944272]] * 2 + [[0.8944272, 1.7888544]]
    )


def _second_derivative(m: Any) -> None:
    x = m.tensor([[0.0, 1.0], [2.0, 0.5], [1.0, 1.0]], requires_grad=True)
    (g,) = m.autograd.grad(m.nn.functional.pdist(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "PdistBackwardBackward0"
    m.autograd.grad(g.sum(), x)


def test_pdist_has_no_second_derivative() -> None:
    with pytest.raises(NotImplementedError, match="the derivative for '_pdist_backward' is not"):
        _second_derivative(chainrule)


def test_pdist_second_derivative_matches_torch(torch: Any) -> None:
    with pytest.raises(NotImplementedError) as theirs:
        _second_derivative(torch)
    with pytest.raises(NotImplementedError) as mine:
        _second_derivative(chainrule)
    assert str(mine.value) == str(theirs.value)


def test_gumbel_softmax_hard_is_one_hot_with_soft_gradient() -> None:
    chainrule.manual_seed(0)
    logits = chainrule.randn(4, 5, requires_grad=True)
    chainrule.manual_seed(1)
    soft = F.gumbel_softmax(logits, tau=0.5)
    chainrule.manual_seed(1)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    assert hard.sum(-1).tolist() == [1.0] * 4 and set(hard.flatten().tolist()) == {0.0, 1.0}
    assert (hard.argmax(-1) == soft.argmax(-1)).all()
    w = chainrule.arange(20.0).reshape(4, 5)
    (g_soft,) = chainrule.autograd.grad((soft * w).sum(), logits)
    (g_hard,) = chainrule.autograd.grad((hard * w).sum(), logits)
    np.testing.assert_allclose(g_hard.numpy(), g_soft.numpy(), rtol=1e-6)


def test_gumbel_softmax_eps_is_deprecated() -> None:
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        F.gumbel_softmax(chainrule.zeros(3), eps=0.1)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_draws_match_torch(torch: Any, hard: bool) -> None:
    x = np.random.default_rng(2).standard_normal((3, 6)).astype(np.float32)
    out = []
    for m in (chainrule, torch):
        m.manual_seed(5)
        out.append(m.nn.functional.gumbel_softmax(m.tensor(x), tau=0.3, hard=hard, dim=0))
    np.testing.assert_allclose(out[0].numpy(), out[1].numpy(), rtol=1e-6)
