"""Backward passes differentiated with respect to their incoming gradient.

`grad(grad(y, x, v, create_graph=True), v)`, `autograd.functional.jvp` and `hvp` (the
double-vjp trick) differentiate a backward in the grad_output it was given, which must
then be recorded like any input. Each op below is checked against finite differences,
which need no torch, and against torch where it is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import functional, grad

X = np.array([[0.7, -1.3, 0.4], [1.1, 0.2, -0.6], [-0.8, 0.9, 1.6]])
EPS = 1e-6


def _nn(m: Any) -> Any:
    return m.nn.functional


def _eye_plus(m: Any, x: Any, k: float = 3.0) -> Any:
    return x + k * m.eye(3, dtype=x.dtype)


def _copy_slices(m: Any, x: Any) -> Any:
    y = x * 1
    y[1:, 0] = x[0, 1:] ** 2
    return y


def _view_after_inplace(m: Any, x: Any) -> Any:
    """A view read after its base was written: its node is an AsStridedBackward0."""
    y = x * 1
    row = y[1]
    y.mul_(2)
    return row * x[0]


def _write_through_view(m: Any, x: Any) -> Any:
    y = x * 1
    y.t()[0].mul_(x[:, 1])
    return y


def _index_put_accumulate(m: Any, x: Any) -> Any:
    return (x * 1).index_put((m.tensor([0, 0, 2]),), x[1] * x[2], accumulate=True)


# (name, op on a 3x3 float64 tensor of library m); every one is differentiable at X.
OPS: dict[str, Callable[[Any, Any], Any]] = {
    # indexing and writes
    "select": lambda m, x: x[1],
    "slice": lambda m, x: x[::2, 1:],
    "advanced_index": lambda m, x: x[[0, 2, 0], [1, 1, 0]],
    "mask": lambda m, x: x[x > 0],
    "gather": lambda m, x: x.gather(1, m.tensor([[0, 0], [1, 0], [2, 1]])),
    "scatter_add": lambda m, x: m.zeros(3, 4, dtype=x.dtype).scatter_add(
        1, m.tensor([[0, 1, 0], [1, 2, 3], [3, 3, 0]]), x
    ),
    "index_select": lambda m, x: x.index_select(0, m.tensor([2, 0, 2])),
    "index_add": lambda m, x: x.index_add(0, m.tensor([0, 0, 1]), x * x),
    "take_along_dim": lambda m, x: m.take_along_dim(x, m.tensor([[0], [2], [1]]), 1),
    "masked_fill": lambda m, x: x.masked_fill(x > 0.3, 0.0) * x,
    "masked_scatter": lambda m, x: x.masked_scatter(x > 0, x * 3),
    "index_put_accumulate": _index_put_accumulate,
    "copy_slices": _copy_slices,
    "view_after_inplace": _view_after_inplace,
    "write_through_view": _write_through_view,
    # views
    "t": lambda m, x: x.t() * x,
    "expand": lambda m, x: x[:1].expand(3, 3) * x,
    "diagonal": lambda m, x: x.diagonal() * x.diagonal(1).sum(),
    "unbind": lambda m, x: m.unbind(x)[1] * m.unbind(x)[0],
    "split": lambda m, x: x.split(1, 1)[2] ** 2,
    # reductions and scans
    "sum": lambda m, x: (x**2).sum(0),
    "prod": lambda m, x: x.prod(1),
    "max_dim": lambda m, x: x.max(1).values,
    "var": lambda m, x: x.var(1),
    "norm": lambda m, x: x.norm(dim=1),
    "logsumexp": lambda m, x: x.logsumexp(1),
    "logcumsumexp": lambda m, x: x.logcumsumexp(1),
    "cumprod": lambda m, x: x.cumprod(0),
    "sort": lambda m, x: x.sort(1).values * x,
    "median": lambda m, x: x.median(0).values,
    # linear algebra
    "mm": lambda m, x: x @ x.t(),
    "inv": lambda m, x: m.linalg.inv(_eye_plus(m, x)),
    "det": lambda m, x: m.linalg.det(x),
    "solve": lambda m, x: m.linalg.solve(_eye_plus(m, x), x[:, :2]),
    "cholesky": lambda m, x: m.linalg.cholesky(_eye_plus(m, x @ x.t(), 1.0)),
    "qr": lambda m, x: m.linalg.qr(x)[1],
    "eigh_values": lambda m, x: m.linalg.eigh(x + x.t()).eigenvalues,
    "eigh_vectors": lambda m, x: m.linalg.eigh(x + x.t()).eigenvectors.abs(),
    "svdvals": lambda m, x: m.linalg.svdvals(x),
    "matrix_exp": lambda m, x: m.linalg.matrix_exp(x),
    # nn.functional
    "softmax": lambda m, x: _nn(m).softmax(x, 1),
    "log_softmax": lambda m, x: _nn(m).log_softmax(x, 0),
    "cross_entropy": lambda m, x: _nn(m).cross_entropy(x, m.tensor([0, 2, 1]), reduction="none"),
    "nll_loss": lambda m, x: _nn(m).nll_loss(x, m.tensor([0, 2, 1])).reshape(1),
    "layer_norm": lambda m, x: _nn(m).layer_norm(x, (3,), x[0], x[1]),
    "conv2d": lambda m, x: _nn(m).conv2d(x.reshape(1, 1, 3, 3), x[:2, :2].reshape(1, 1, 2, 2)),
    "max_pool1d": lambda m, x: _nn(m).max_pool1d(x.unsqueeze(0), 2),
    "avg_pool2d": lambda m, x: _nn(m).avg_pool2d(x.reshape(1, 1, 3, 3), 2, 1),
    "pad_circular": lambda m, x: _nn(m).pad(x.unsqueeze(0), (1, 2), mode="circular"),
    "bilinear": lambda m, x: _nn(m).interpolate(
        x.reshape(1, 1, 3, 3), size=(4, 5), mode="bilinear"
    ),
    "embedding": lambda m, x: _nn(m).embedding(m.tensor([0, 2, 2]), x),
    "attention": lambda m, x: _nn(m).scaled_dot_product_attention(
        x.unsqueeze(0), x.unsqueeze(0) * 2, x.unsqueeze(0)
    ),
    "gelu": lambda m, x: _nn(m).gelu(x) * x,
}
NAMES = list(OPS)


def _direction(shape: Any, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, tuple(shape))


def _at(m: Any, name: str, values: np.ndarray) -> Any:
    return OPS[name](m, m.tensor(values, dtype=m.float64))


def _jacobian_times(name: str, w: np.ndarray) -> np.ndarray:
    """J w by central differences of the op itself."""
    hi = _at(chainrule, name, X + EPS * w).numpy()
    lo = _at(chainrule, name, X - EPS * w).numpy()
    return (hi - lo) / (2 * EPS)


def _grad_of_half_square(m: Any, name: str, values: np.ndarray) -> np.ndarray:
    x = m.tensor(values, dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad((OPS[name](m, x) ** 2).sum() * 0.5, x)
    return g.detach().numpy()


def grad_of_grad_in_v(m: Any, name: str) -> np.ndarray:
    """`grad(grad(y, x, v, create_graph=True), v, w)`: J w, through the backward's graph."""
    x = m.tensor(X, dtype=m.float64, requires_grad=True)
    y = OPS[name](m, x)
    v = m.tensor(_direction(y.shape, 1), dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(y, x, v, create_graph=True)
    (h,) = m.autograd.grad(g, v, m.tensor(_direction(X.shape, 2), dtype=m.float64))
    return h.numpy()


def hvp_of_half_square(m: Any, name: str) -> np.ndarray:
    """H w for 0.5 * sum(op(x) ** 2): hvp's double-vjp differentiates second-order nodes."""

    def f(a: Any) -> Any:
        return (OPS[name](m, a) ** 2).sum() * 0.5

    w = m.tensor(_direction(X.shape, 2), dtype=m.float64)
    return m.autograd.functional.hvp(f, m.tensor(X, dtype=m.float64), w)[1].numpy()


# --- without torch: finite differences --------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_grad_of_grad_in_v_is_the_jacobian_times_w(name: str) -> None:
    expected = _jacobian_times(name, _direction(X.shape, 2))
    np.testing.assert_allclose(grad_of_grad_in_v(chainrule, name), expected, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_jvp_is_the_jacobian_times_v(name: str) -> None:
    v = _direction(X.shape, 2)
    _, jv = functional.jvp(
        lambda a: OPS[name](chainrule, a), chainrule.tensor(X), chainrule.tensor(v)
    )
    np.testing.assert_allclose(jv.numpy(), _jacobian_times(name, v), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_hvp_is_the_derivative_of_the_gradient(name: str) -> None:
    w = _direction(X.shape, 2)
    hi = _grad_of_half_square(chainrule, name, X + EPS * w)
    lo = _grad_of_half_square(chainrule, name, X - EPS * w)
    expected = (hi - lo) / (2 * EPS)
    np.testing.assert_allclose(hvp_of_half_square(chainrule, name), expected, atol=1e-5, rtol=1e-4)


def test_hvp_through_indexing() -> None:
    """The report's example: x[0] * x[1] once raised TypeError inside the index's scatter."""
    x = chainrule.tensor([0.5, -1.0, 2.0], dtype=chainrule.float64)
    v = chainrule.tensor([1.0, 2.0, -3.0], dtype=chainrule.float64)
    value, hv = functional.hvp(lambda a: (a**3).sum() + a[0] * a[1], x, v)
    hessian = np.diag(6 * x.numpy()) + np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    np.testing.assert_allclose(hv.numpy(), hessian @ v.numpy(), rtol=1e-14)
    assert value.item() == pytest.approx(0.125 - 1.0 + 8.0 - 0.5)


def test_third_derivative_through_an_index_records_the_sizes_it_scatters_into() -> None:
    x = chainrule.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=chainrule.float64, requires_grad=True)
    v = chainrule.tensor([0.5, -1.0], dtype=chainrule.float64, requires_grad=True)
    (g,) = grad(x[1], x, v, create_graph=True)
    assert g.grad_fn.name() == "SelectBackwardBackward0"
    w = chainrule.ones(2, 2, dtype=chainrule.float64, requires_grad=True)
    (h,) = grad(g, v, w, create_graph=True)
    assert h.grad_fn.name() == "SelectBackward0"
    (k,) = grad(h, w, chainrule.tensor([1.0, 2.0], dtype=chainrule.float64))
    np.testing.assert_array_equal(k.numpy(), [[0.0, 0.0], [1.0, 2.0]])


# --- against torch ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_grad_of_grad_in_v_matches_torch(torch: Any, name: str) -> None:
    np.testing.assert_allclose(
        grad_of_grad_in_v(chainrule, name), grad_of_grad_in_v(torch, name), rtol=1e-9, atol=1e-12
    )


# PyTorch's logcumsumexp rule works in log|grad|, which is flat where grad is 0: its
# double-vjp (zero dummy grad_outputs) gives nan; chainrule's matches finite differences.
TORCH_HVP_IS_NAN = {"logcumsumexp"}


@pytest.mark.parametrize("name", NAMES)
def test_hvp_matches_torch(torch: Any, name: str) -> None:
    theirs = hvp_of_half_square(torch, name)
    if name in TORCH_HVP_IS_NAN:
        assert np.isnan(theirs).all(), "torch now agrees: drop the name from TORCH_HVP_IS_NAN"
        return
    np.testing.assert_allclose(hvp_of_half_square(chainrule, name), theirs, rtol=1e-9, atol=1e-12)


def test_hvp_through_indexing_matches_torch(torch: Any) -> None:
    results = []
    for m in (chainrule, torch):
        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64)
        v = m.tensor([1.0, 2.0, -3.0], dtype=m.float64)
        value, hv = m.autograd.functional.hvp(lambda a: (a**3).sum() + a[0] * a[1], x, v)
        results.append((value.item(), hv.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-15)


def test_jvp_of_logcumsumexp_matches_torch_forward_mode(torch: Any) -> None:
    """PyTorch's own double-vjp gives nan here (its rule is flat in a zero grad_output);
    its forward mode gives the derivative, which chainrule's double-vjp now agrees with."""
    v = _direction(X.shape, 2)
    _, mine = functional.jvp(lambda a: a.logcumsumexp(1), chainrule.tensor(X), chainrule.tensor(v))
    _, theirs = torch.func.jvp(lambda a: a.logcumsumexp(1), (torch.tensor(X),), (torch.tensor(v),))
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-10)
