"""How the gradients of a matrix product's factors are laid out in memory.

PyTorch gives a factor stored by columns (a transposed contiguous matrix, such as the
`weight.t()` inside `linear`) a gradient stored by columns, so that after the
transpose back the leaf's `.grad` is contiguous. Hooks on the factors see those
strides; the nodes keep the factors' sizes and strides (`_saved_mat2_sym_strides`).
"""

from __future__ import annotations

import itertools
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule._ops.shape.views import transposed

LAYOUTS = list(itertools.product(("mm", "addmm"), "rc", "rc"))  # r: by rows, c: by columns

# (op, first factor's layout, second's): the strides each factor's gradient reaches
# its hook with, then the strides of the leaves' .grad, as PyTorch 2.13 gives them for
# a (4, 3) @ (3, 5) product.
RECORDED = {
    "r": {"first": (3, 1), "second": (5, 1)},
    "c": {"first": (1, 4), "second": (1, 3)},
}
LEAF_GRAD = {"first": (4, 1), "second": (3, 1)}  # a by-columns factor's leaf: (3, 4), (5, 3)


def _product(lib: Any, op: str, first: str, second: str, dtype: str = "float64") -> Any:
    """A (4, 3) @ (3, 5) product of factors laid out as asked; the strides each factor's
    gradient arrives with (by hooks) and the leaves."""
    rng = np.random.default_rng(0)
    a_np, b_np = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    # A factor stored by columns is the transpose of a contiguous leaf holding its transpose.
    leaf_a = lib.tensor((a_np if first == "r" else a_np.T.copy()).astype(dtype), requires_grad=True)
    leaf_b = lib.tensor(
        (b_np if second == "r" else b_np.T.copy()).astype(dtype), requires_grad=True
    )
    a = leaf_a if first == "r" else leaf_a.t()
    b = leaf_b if second == "r" else leaf_b.t()
    seen: dict[str, tuple[int, ...]] = {}
    a.register_hook(lambda g: seen.__setitem__("first", g.stride()))
    b.register_hook(lambda g: seen.__setitem__("second", g.stride()))
    bias = lib.tensor(np.arange(5.0).astype(dtype))
    y = a.mm(b) if op == "mm" else lib.addmm(bias, a, b)
    y.backward(lib.tensor(rng.standard_normal((4, 5)).astype(dtype)))
    return seen, leaf_a, leaf_b


@pytest.mark.parametrize(("op", "first", "second"), LAYOUTS)
def test_factor_gradients_have_torchs_strides(torch: Any, op: str, first: str, second: str) -> None:
    mine, a, b = _product(chainrule, op, first, second)
    theirs, ta, tb = _product(torch, op, first, second)
    assert mine == theirs
    assert (a.grad.stride(), b.grad.stride()) == (ta.grad.stride(), tb.grad.stride())
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize(("op", "first", "second"), LAYOUTS)
def test_factor_gradients_have_the_recorded_strides(op: str, first: str, second: str) -> None:
    seen, a, b = _product(chainrule, op, first, second)
    assert seen == {"first": RECORDED[first]["first"], "second": RECORDED[second]["second"]}
    assert a.grad.stride() == (LEAF_GRAD["first"] if first == "c" else (3, 1))
    assert b.grad.stride() == (LEAF_GRAD["second"] if second == "c" else (5, 1))
    assert a.grad.is_contiguous() and b.grad.is_contiguous()


@pytest.mark.parametrize(("op", "first", "second"), LAYOUTS)
def test_the_values_do_not_depend_on_the_layout(op: str, first: str, second: str) -> None:
    """Computed as the transposed product or not, each gradient is gradᵀ-products' value."""
    _, a, b = _product(chainrule, op, first, second)
    _, a_ref, b_ref = _product(chainrule, op, "r", "r")
    fa = a.grad.numpy() if first == "r" else a.grad.numpy().T
    fb = b.grad.numpy() if second == "r" else b.grad.numpy().T
    np.testing.assert_allclose(fa, a_ref.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fb, b_ref.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_weight_grad_is_contiguous_as_torchs(dtype: str) -> None:
    x = chainrule.randn(6, 4, dtype=getattr(chainrule, dtype))
    w = chainrule.randn(3, 4, dtype=x.dtype, requires_grad=True)
    b = chainrule.randn(3, dtype=x.dtype, requires_grad=True)
    chainrule.nn.functional.linear(x, w, b).sum().backward()
    assert w.grad.stride() == (4, 1) and b.grad.stride() == (1,)
    expected = np.ones((6, 3), dtype).T @ x.numpy()
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-5)


def _saved_layouts(lib: Any) -> list[Any]:
    x = lib.ones(3, 4)
    w = lib.ones(5, 4, requires_grad=True)
    linear = lib.nn.functional.linear(x, w, lib.ones(5)).grad_fn
    product = x.mm(w.t()).grad_fn
    return [
        linear._saved_mat1_sym_sizes,
        linear._saved_mat1_sym_strides,
        linear._saved_mat2_sym_sizes,
        linear._saved_mat2_sym_strides,
        product._saved_self_sym_sizes,
        product._saved_self_sym_strides,
        product._saved_mat2_sym_sizes,
        product._saved_mat2_sym_strides,
    ]


def test_nodes_keep_the_factors_layouts(torch: Any) -> None:
    assert _saved_layouts(chainrule) == _saved_layouts(torch)


def test_nodes_keep_the_factors_layouts_recorded() -> None:
    """Strides only for a factor that needs a gradient, as PyTorch keeps them."""
    assert _saved_layouts(chainrule) == [(3, 4), (), (4, 5), (1, 4)] * 2


def test_first_order_and_create_graph_agree_by_columns() -> None:
    """The array rules (first order) and the tensor rules (create_graph) give the same
    bits and strides for factors stored by columns."""
    rng = np.random.default_rng(3)
    for dtype in ("float32", "float64"):
        w = chainrule.tensor(rng.standard_normal((5, 7)).astype(dtype), requires_grad=True)
        x = chainrule.tensor(rng.standard_normal((7, 6)).astype(dtype), requires_grad=True)
        out = w.t().t().mm(x.t().t())  # plain layouts through views
        y = chainrule.addmm(chainrule.zeros(6, 5, dtype=w.dtype), x.t(), w.t()) + out.t()
        g = chainrule.tensor(rng.standard_normal((6, 5)).astype(dtype))
        fast = chainrule.autograd.grad(y, (w, x), g, retain_graph=True)
        slow = chainrule.autograd.grad(y, (w, x), g, create_graph=True)
        for f, s in zip(fast, slow, strict=True):
            assert f.stride() == s.stride()
            assert np.array_equal(f.numpy(), s.detach().numpy())


@given(
    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=5),
    st.sampled_from(["C", "F"]),
)
def test_transposed_gives_back_the_array_a_transpose_came_from(
    shape: tuple[int, ...], order: str
) -> None:
    base = np.arange(float(np.prod(shape))).reshape(shape).copy(order=order)
    back = transposed(base.T)
    assert np.array_equal(back, base) and back.strides == base.strides
    assert back is base  # (base.T).T is base's own layout: no view is needed
    sliced = transposed(base[:, :1].T) if shape[1] > 1 else None
    if sliced is not None:
        assert sliced is not base and np.array_equal(sliced, base[:, :1])
