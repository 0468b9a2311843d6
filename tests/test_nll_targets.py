"""nll_loss and cross_entropy on class-index targets, where the targets are all valid
classes and `ignore_index` may or may not name one of them: the common case (nothing
ignored) and its neighbours give PyTorch's losses and gradients."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule

X = np.array(
    [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.0], [0.0, 0.5, 1.0]], dtype=np.float64
)
# (targets, ignore_index): none ignored (the index elsewhere, or between the classes
# present but absent itself), one class ignored, every target ignored.
CASES = [
    ((0, 2, 1, 1), -100),
    ((0, 2, 0, 2), 1),
    ((0, 2, 1, 1), 1),
    ((0, 2, 1, 1), 2),
    ((1, 1, 1, 1), 1),
]
# PyTorch 2.13's cross_entropy (mean) and its gradient's first row for each case.
RECORDED = [
    (1.4056362619674698, [-0.20617740196499082, 0.009778143317671862, 0.19639925864731897]),
    (2.03063626196747, [-0.20617740196499082, 0.009778143317671862, 0.19639925864731897]),
    (2.0466315802299793, [-0.41235480392998164, 0.019556286635343725, 0.39279851729463794]),
    (1.0901977280223594, [-0.27490320261998774, 0.013037524423562482, 0.26186567819642526]),
    (float("nan"), [0.0, 0.0, 0.0]),
]


def _loss_and_grad(lib: Any, target: tuple[int, ...], ignore: int, op: str) -> tuple[Any, Any]:
    x = lib.tensor(X, requires_grad=True)
    f = lib.nn.functional
    inputs = x if op == "cross_entropy" else f.log_softmax(x, 1)
    loss = getattr(f, op)(inputs, lib.tensor(list(target)), ignore_index=ignore)
    loss.backward()
    return loss.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize(("target", "ignore"), CASES)
def test_targets_and_ignore_index_as_torch(
    torch: Any, op: str, target: tuple[int, ...], ignore: int
) -> None:
    mine = _loss_and_grad(chainrule, target, ignore, op)
    theirs = _loss_and_grad(torch, target, ignore, op)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(("case", "expected"), list(zip(CASES, RECORDED, strict=True)))
def test_targets_and_ignore_index_recorded(case: Any, expected: Any) -> None:
    loss, grad = _loss_and_grad(chainrule, *case, "cross_entropy")
    np.testing.assert_allclose(loss, expected[0], rtol=1e-12)
    np.testing.assert_allclose(grad[0], expected[1], rtol=1e-12)
    ignored = [i for i, t in enumerate(case[0]) if t == case[1]]
    assert not grad[ignored].any()  # an ignored target's row gets no gradient


def test_an_out_of_range_target_still_raises() -> None:
    with pytest.raises(IndexError, match=r"^Target 3 is out of bounds\.$"):
        chainrule.nn.functional.cross_entropy(chainrule.tensor(X), chainrule.tensor([0, 3, 1, 1]))
