"""Reductions, scans and sorting beyond the op table: conventions at ties, zeros and NaN,
named tuples, keyword forms and result dtypes, each checked against torch.

The op table (tests/optable_reductions.py) covers values, gradients and second
derivatives at generic inputs; here the inputs are the awkward ones. Errors and
drawn shapes are in tests/test_reductions_errors.py.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import grad, gradcheck, gradgradcheck
from reductions_support import INF, NAN, check, lib_of, numpy_of

# --- named tuples -------------------------------------------------------------------------


def test_named_tuple_fields_unpacking_and_repr(torch: Any) -> None:
    values = [[1.0, 3.0], [4.0, 2.0]]
    mine = chainrule.tensor(values, requires_grad=True).max(1)
    theirs = torch.tensor(values, requires_grad=True).max(1)
    assert isinstance(mine, tuple) and len(mine) == 2
    v, i = mine
    assert v is mine.values is mine[0] and i is mine.indices is mine[-1]
    assert repr(mine) == repr(theirs).replace("torch.", "chainrule.")
    assert str(mine) == repr(mine)
    assert type(mine).__name__ == "max" and type(mine).__module__ == "chainrule.return_types"
    assert mine == (v, i)


def test_named_tuple_types_construct_and_pickle() -> None:
    pair = chainrule.return_types.aminmax((chainrule.tensor(1.0), chainrule.tensor(2.0)))
    assert pair.min.item() == 1.0 and pair.max.item() == 2.0
    back = pickle.loads(pickle.dumps(pair))
    assert type(back) is type(pair) and back.max.item() == 2.0
    with pytest.raises(TypeError, match="takes a 2-sequence"):
        chainrule.return_types.sort((1, 2, 3))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.min(0),
        lambda x: x.median(1),
        lambda x: x.nanmedian(0, keepdim=True),
        lambda x: x.kthvalue(1),
        lambda x: x.topk(1),
        lambda x: x.sort(),
        lambda x: x.cummax(0),
        lambda x: x.cummin(1),
        lambda x: x.aminmax(),
    ],
)
def test_named_tuple_reprs_match_torch(torch: Any, fn: Callable[..., Any]) -> None:
    values = [[1.0, 5.0, 3.0], [4.0, 2.0, 0.0]]
    mine = fn(chainrule.tensor(values, requires_grad=True))
    theirs = fn(torch.tensor(values, requires_grad=True))
    assert repr(mine) == repr(theirs).replace("torch.", "chainrule.")


# --- ties, kinks, zeros and NaN: torch's conventions --------------------------------------

TIES = [[1.0, 3.0, 3.0, 1.0], [2.0, 2.0, 2.0, 2.0]]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.max(1),
        lambda x: x.min(0, keepdim=True),
        lambda x: x.amax(),
        lambda x: x.amax(1),
        lambda x: x.amin((0, 1), keepdim=True),
        lambda x: x.aminmax(),
        lambda x: x.aminmax(dim=1),
        lambda x: x.median(),
        lambda x: x.nanmedian(),
        lambda x: x.argmax(1),
        lambda x: x.argmin(),
        lambda x: x.cummax(1),
        lambda x: x.cummin(1),
        lambda x: x.sort(1, descending=True),
        lambda x: x.sort(dim=0, stable=True),
        lambda x: x.norm(INF, 1),
        lambda x: x.norm(-INF),
        lambda x: lib_of(x).max(x, x[:, [3, 2, 1, 0]]),
        lambda x: x.min(x[[1, 0]]),
    ],
)
def test_ties_follow_torch(torch: Any, fn: Callable[..., Any]) -> None:
    check(torch, fn, TIES)


WITH_NAN = [[1.0, NAN, 3.0, NAN], [2.0, 0.0, -1.0, 5.0]]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.max(),
        lambda x: x.max(1),
        lambda x: x.min(1),
        lambda x: x.amax(1),
        lambda x: x.argmax(1),
        lambda x: x.argmin(),
        lambda x: x.median(),
        lambda x: x.median(1),
        lambda x: x.nanmedian(),
        lambda x: x.nanmedian(1),
        lambda x: x.cummax(1),
        lambda x: x.cummin(1),
        lambda x: x.sort(1),
        lambda x: x.sort(1, descending=True),
        lambda x: x.argsort(1, descending=True),
        lambda x: x.kthvalue(4, 1),
        lambda x: x.nansum(1),
        lambda x: x.nansum(),
        lambda x: x.nanmean(1),
        lambda x: x.logsumexp(1),
        lambda x: x.max(x[:, [3, 2, 1, 0]]),
        lambda x: lib_of(x).min(x[:, [1, 0, 3, 2]], x),
    ],
)
def test_nan_follows_torch(torch: Any, fn: Callable[..., Any]) -> None:
    check(torch, fn, WITH_NAN)


def test_nanmedian_of_all_nan_rows(torch: Any) -> None:
    check(torch, lambda x: x.nanmedian(1), [[NAN, NAN], [NAN, 1.0]])
    check(torch, lambda x: x.nanmedian(), [NAN, NAN])


ZEROS = [
    [2.0, 0.0, 3.0, 0.5],  # one zero
    [2.0, 0.0, 0.0, 4.0],  # two zeros
    [0.0, 0.0, 0.0, 0.0],
    [1.5, -2.0, 3.0, 0.5],
]


@pytest.mark.parametrize("values", ZEROS)
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.prod(),
        lambda x: x.prod(0),
        lambda x: x.reshape(2, 2).prod(1, keepdim=True),
        lambda x: x.cumprod(0),
        lambda x: x[[3, 2, 1, 0]].cumprod(0),
        lambda x: x.reshape(2, 2).cumprod(0),
        lambda x: x.norm(),
        lambda x: x.norm(1),
        lambda x: x.norm(0.5),
        lambda x: x.norm(1.5),
        lambda x: x.norm(3),
        lambda x: x.norm(-1),
        lambda x: x.norm(0),
        lambda x: x.reshape(2, 2).norm(dim=1),
        lambda x: x.std(),
        lambda x: x.reshape(2, 2).std(1),
        lambda x: lib_of(x).std_mean(x),
    ],
)
def test_zeros_follow_torch(torch: Any, fn: Callable[..., Any], values: list[float]) -> None:
    check(torch, fn, values)


@pytest.mark.parametrize("values", ZEROS[:3])
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.prod(),
        lambda x: x.reshape(2, 2).prod(0),
        lambda x: x.cumprod(0),
        lambda x: x[[3, 2, 1, 0]].reshape(2, 2).cumprod(1),
    ],
)
def test_products_with_zeros_are_twice_differentiable(
    fn: Callable[..., Any], values: list[float]
) -> None:
    x = chainrule.tensor(values, dtype=chainrule.float64, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("values", ZEROS[:2])
@pytest.mark.parametrize("fn", [lambda x: x.prod(), lambda x: x.cumprod(0).sum()])
def test_hessians_with_zeros_match_torch(
    torch: Any, fn: Callable[..., Any], values: list[float]
) -> None:
    rows = []
    for lib in (chainrule, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(fn(x), x, create_graph=True)
        rows.append(
            np.stack([numpy_of(lib.autograd.grad(gi, x, retain_graph=True)[0]) for gi in g])
        )
    np.testing.assert_allclose(rows[0], rows[1], rtol=1e-12, atol=1e-12)


def test_products_that_underflow_keep_their_gradient() -> None:
    x = chainrule.tensor(np.array([1e-300, 1e-300, 0.5]), requires_grad=True)
    (g,) = grad(x.prod(), x)
    np.testing.assert_allclose(numpy_of(g), [0.5e-300, 0.5e-300, 0.0], rtol=1e-12, atol=0)
    (g,) = grad(x.cumprod(0).sum(), x)
    np.testing.assert_allclose(numpy_of(g)[2], 0.0, atol=1e-300)
    assert numpy_of(g)[0] == pytest.approx(1 + 1e-300 + 0.5e-300)


def test_long_running_products_that_underflow(torch: Any) -> None:
    values = np.random.default_rng(0).normal(size=(3, 300))
    values[1, 150] = 0.0
    mine = chainrule.tensor(values.astype("float32"), requires_grad=True)
    exact = torch.tensor(values, requires_grad=True)
    weights = np.random.default_rng(1).uniform(-1, 1, values.shape)
    (mine.cumprod(1) * chainrule.tensor(weights.astype("float32"))).sum().backward()
    (exact.cumprod(1) * torch.tensor(weights)).sum().backward()
    assert mine.grad is not None and exact.grad is not None
    np.testing.assert_allclose(numpy_of(mine.grad), numpy_of(exact.grad), rtol=1e-4, atol=1e-30)


def test_selected_values_have_derivatives_of_any_order() -> None:
    x = chainrule.tensor(np.array([[1.0, 3.0, 2.0, 5.0], [0.5, 0.2, 0.9, 0.1]]), requires_grad=True)
    (g,) = grad((x.cummax(1).values ** 3).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x, create_graph=True)
    (t,) = grad(h.sum(), x)
    np.testing.assert_allclose(numpy_of(t), [[6.0, 12.0, 0.0, 6.0], [12.0, 0.0, 12.0, 0.0]])
    assert gradgradcheck(lambda t: t.sort(1, descending=True).values ** 2, (x,))
    assert gradgradcheck(lambda t: t.topk(2, 0).values ** 3, (x,))


def test_norm_of_order_zero_has_no_gradient(torch: Any) -> None:
    for lib in (chainrule, torch):
        x = lib.tensor([1.0, 0.0], requires_grad=True)
        out = x.norm(0)
        assert out.requires_grad
        out.backward()
        assert x.grad is None


def test_norm_of_one_element_is_its_size(torch: Any) -> None:
    check(torch, lambda x: x.norm(), 1e-200)
    check(torch, lambda x: x.norm(dim=1), [[1e-200], [-3.0]])
    check(torch, lambda x: x.norm(), [1e-200, 1e-200])


@pytest.mark.parametrize(
    "values", [[1000.0, 1000.0, -1000.0], [-INF, -INF], [INF, 1.0], [-INF, 1.0, 2.0], [88.0, 89.0]]
)
@pytest.mark.parametrize("fn", [lambda x: x.logsumexp(0), lambda x: x.logcumsumexp(0)])
def test_log_sum_exp_is_stable(torch: Any, fn: Callable[..., Any], values: list[float]) -> None:
    check(torch, fn, values)
    check(torch, fn, values, "float32")


def test_log_sum_exp_second_order_at_large_values() -> None:
    x = chainrule.tensor([500.0, 501.0, -300.0], dtype=chainrule.float64, requires_grad=True)
    assert gradgradcheck(lambda t: t.logsumexp(0), (x,))
    assert gradgradcheck(lambda t: t.logcumsumexp(0), (x,))


def test_kthvalue_and_median_pick_a_tied_entry() -> None:
    # PyTorch's selection returns some index holding the value; chainrule's is the stable one.
    x = chainrule.tensor([2.0, 1.0, 2.0, 2.0], requires_grad=True)
    values, index = x.kthvalue(3)
    assert values.item() == 2.0 and x[index].item() == 2.0
    values.backward()
    assert x.grad is not None and x.grad.sum().item() == 1.0
    assert x.median(0).indices.item() == 0


# --- keyword arguments and forms ----------------------------------------------------------

MATRIX = [[1.0, -3.0, 3.0, 0.5], [2.0, 0.0, 2.5, -1.0], [4.0, 1.0, -2.0, 0.25]]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: lib_of(x).max(x, dim=1, keepdim=True),
        lambda x: lib_of(x).min(x, 0),
        lambda x: x.max(dim=-1),
        lambda x: lib_of(x).amax(x, dim=(0, 1), keepdim=True),
        lambda x: lib_of(x).amin(x, dim=[1]),
        lambda x: x.amax([]),
        lambda x: lib_of(x).argmax(x, dim=0, keepdim=True),
        lambda x: x.argmin(keepdim=True),
        lambda x: lib_of(x).aminmax(x, dim=0, keepdim=True),
        lambda x: lib_of(x).aminmax(x, keepdim=True),
        lambda x: lib_of(x).prod(x, 1, keepdim=True, dtype=lib_of(x).float32),
        lambda x: x.prod(dim=0),
        lambda x: lib_of(x).var(x, dim=1, correction=0, keepdim=True),
        lambda x: x.var(1, True, True),
        lambda x: x.var(False),
        lambda x: x.std(unbiased=False),
        lambda x: x.std(dim=(0, 1), correction=1.5),
        lambda x: lib_of(x).var_mean(x, 1, unbiased=False),
        lambda x: lib_of(x).std_mean(x, dim=0, keepdim=True, correction=2),
        lambda x: lib_of(x).var_mean(x, [0, 1]),
        lambda x: x.var(dim=None, keepdim=True),
        lambda x: lib_of(x).norm(x, p="fro", dim=(0, 1), keepdim=True),
        lambda x: lib_of(x).norm(x, dim=1, p=INF),
        lambda x: x.norm(2, 0, True, dtype=lib_of(x).float64),
        lambda x: x.norm(p=-2.5, dim=-1),
        lambda x: lib_of(x).logsumexp(x, dim=(0, 1), keepdim=True),
        lambda x: lib_of(x).nansum(x, dim=1, keepdim=True, dtype=lib_of(x).float32),
        lambda x: lib_of(x).nanmean(x, dim=(1,), keepdim=True),
        lambda x: lib_of(x).cumsum(x, dim=1, dtype=lib_of(x).float32),
        lambda x: lib_of(x).cumprod(x, dim=-1),
        lambda x: lib_of(x).cummax(x, dim=0),
        lambda x: lib_of(x).logcumsumexp(x, dim=0),
        lambda x: lib_of(x).diff(x, n=2, dim=0, append=x[:1]),
        lambda x: x.diff(n=0),
        lambda x: x.diff(n=9),
        lambda x: lib_of(x).sort(x, dim=0, descending=True),
        lambda x: x.sort(descending=True, stable=True, dim=0),
        lambda x: lib_of(x).argsort(x, dim=0, descending=True),
        lambda x: lib_of(x).argsort(x, stable=True),
        lambda x: lib_of(x).msort(x),
        lambda x: lib_of(x).topk(x, k=2, dim=0, largest=False, sorted=True),
        lambda x: x.topk(0),
        lambda x: lib_of(x).kthvalue(x, 2, dim=0, keepdim=True),
        lambda x: lib_of(x).median(x, dim=1, keepdim=True),
        lambda x: lib_of(x).nanmedian(x, 0),
        lambda x: lib_of(x).all(x, dim=(0, 1), keepdim=True),
        lambda x: lib_of(x).any(x, 1),
        lambda x: lib_of(x).count_nonzero(x, dim=[0, 1]),
        lambda x: x.count_nonzero(0),
    ],
)
def test_keyword_forms_follow_torch(torch: Any, fn: Callable[..., Any]) -> None:
    check(torch, fn, MATRIX)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.max(0),
        lambda x: x.max(-1, keepdim=True),
        lambda x: x.amax(0),
        lambda x: x.argmax(0),
        lambda x: x.argmax(keepdim=True),
        lambda x: x.aminmax(dim=0),
        lambda x: x.prod(0),
        lambda x: x.prod(),
        lambda x: x.var(0),
        lambda x: x.norm(dim=0),
        lambda x: x.logsumexp(0),
        lambda x: x.cumsum(0),
        lambda x: x.cumprod(-1),
        lambda x: x.cummax(0),
        lambda x: x.logcumsumexp(0),
        lambda x: x.sort(0),
        lambda x: x.topk(1),
        lambda x: x.kthvalue(1),
        lambda x: x.median(0),
        lambda x: x.median(),
        lambda x: x.msort(),
        lambda x: x.all(0),
        lambda x: x.count_nonzero(0),
    ],
)
def test_zero_dim_tensors_follow_torch(torch: Any, fn: Callable[..., Any]) -> None:
    check(torch, fn, 2.5)


# --- result dtypes ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.prod(),
        lambda x: x.prod(1),
        lambda x: x.cumsum(1),
        lambda x: x.cumprod(0),
        lambda x: x.nansum(),
        lambda x: x.max(),
        lambda x: x.max(1),
        lambda x: x.amin(0),
        lambda x: x.aminmax(),
        lambda x: x.all(),
        lambda x: x.any(1, keepdim=True),
        lambda x: x.count_nonzero(1),
        lambda x: x.sort(1),
        lambda x: x.argsort(0),
        lambda x: x.cummax(1),
        lambda x: x.logsumexp(1),
        lambda x: x.diff(),
    ],
)
def test_result_dtypes_follow_torch(torch: Any, fn: Callable[..., Any], dtype: str) -> None:
    check(torch, fn, [[1, 0, 3], [2, 2, 1]], dtype)


@pytest.mark.parametrize("dtype", ["int64", "float32"])
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.argmax(),
        lambda x: x.argmin(1),
        lambda x: x.median(),
        lambda x: x.median(1),
        lambda x: x.topk(2),
        lambda x: x.kthvalue(2, 0),
        lambda x: x.cummin(0),
        lambda x: x.nanmedian(),
    ],
)
def test_more_result_dtypes_follow_torch(torch: Any, fn: Callable[..., Any], dtype: str) -> None:
    check(torch, fn, [[1, 0, 3], [2, 4, 1]], dtype)
