"""quantile, nanquantile, mode, unique, unique_consecutive, cov, corrcoef, trapz,
cumulative_trapezoid and gradient: errors as PyTorch's, values recorded from PyTorch
(ties, NaN, more than 16 entries, where the order of an unstable sort shows), and
drawn inputs compared with torch. Gradients of the smooth cases are in the op table.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule._ops.reduction.introsort import introsort, nan_last, plain_less

NAN = math.nan
M = [[1.0, 3.0, 2.0, 2.0], [4.0, 0.0, 5.0, 6.0]]
Y = [[1.0, 2.0, 4.0, 7.0], [0.0, 1.0, 3.0, 3.0], [2.0, 2.0, 2.0, 5.0]]
QUANTILE_SIGNATURES = (
    " * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, "
    'str interpolation = "linear", Tensor out = None)\n'
    " * (Tensor input, float q, int dim = None, bool keepdim = False, *, "
    'str interpolation = "linear", Tensor out = None)\n'
)
TRAPZ_SIGNATURES = (
    " * (Tensor y, *, float dx = 1, int dim = -1)\n * (Tensor y, Tensor x, *, int dim = -1)\n"
)
GRADIENT_SIGNATURES = "".join(
    f" * (Tensor input, *, {s})\n"
    for s in (
        "tuple of ints dim, int edge_order = 1",
        "Number spacing, tuple of ints dim, int edge_order = 1",
        "Number spacing = None, int dim = None, int edge_order = 1",
        "tuple of Scalars spacing, int dim = None, int edge_order = 1",
        "tuple of Scalars spacing, tuple of ints dim, int edge_order = 1",
        "tuple of Tensors spacing, int dim = None, int edge_order = 1",
        "tuple of Tensors spacing, tuple of ints dim, int edge_order = 1",
    )
)
FEWER = "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number"

# --- errors -------------------------------------------------------------------------------

ERRORS: list[tuple[Callable[[Any], Any], type[Exception], str]] = [
    (lambda L: L.quantile(L.tensor(M), 1.5), RuntimeError,
     "quantile() q must be in the range [0, 1] but got 1.5"),
    (lambda L: L.nanquantile(L.tensor(M), -1), RuntimeError,
     "quantile() q must be in the range [0, 1] but got -1"),
    (lambda L: L.quantile(L.tensor(M), L.tensor([0.5, 2.0])), RuntimeError,
     "quantile() q values must be in the range [0, 1]"),
    (lambda L: L.quantile(L.tensor(M), L.tensor([[0.5]])), RuntimeError,
     "quantile() q must be a scalar or 1D tensor"),
    (lambda L: L.quantile(L.tensor(M).int(), 0.5), RuntimeError,
     "quantile() input tensor must be either float or double dtype"),
    (lambda L: L.quantile(L.tensor(M), L.tensor(0.5, dtype=L.float64)), RuntimeError,
     "quantile() q tensor must be same dtype as the input tensor"),
    (lambda L: L.quantile(L.empty(0), 0.5), RuntimeError,
     "quantile() input tensor must be non-empty"),
    (lambda L: L.quantile(L.tensor(M), 0.5, dim=2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda L: L.quantile(L.tensor(M), 0.5, interpolation="foo"), RuntimeError,
     "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
     "but got foo"),
    (lambda L: L.quantile(L.tensor(M), "a"), TypeError,
     "quantile() received an invalid combination of arguments - got (Tensor, str), but "
     "expected one of:\n" + QUANTILE_SIGNATURES),
    (lambda L: L.quantile(L.tensor(M), 0.5, 1, True, "lower"), TypeError,
     "quantile() received an invalid combination of arguments - got (Tensor, float, int, "
     "bool, str), but expected one of:\n" + QUANTILE_SIGNATURES),
    (lambda L: L.mode(L.empty(2, 0)), IndexError,
     "mode(): Expected reduction dim 1 to have non-zero size."),
    (lambda L: L.mode(L.ones(2, 3), "a"), TypeError,
     "mode(): argument 'dim' (position 2) must be int, not str"),
    (lambda L: L.ones(2, 3).mode("a"), TypeError,
     "mode(): argument 'dim' (position 1) must be int, not str"),
    (lambda L: L.mode(L.ones(2, 3), dim="a"), TypeError,
     "mode(): argument 'dim' must be int, not str"),
    (lambda L: L.unique(L.ones(2), dim="a"), TypeError,
     "unique_dim(): argument 'dim' (position 2) must be int, not str"),
    (lambda L: L.unique(L.ones(3), "x"), TypeError,
     "_unique2(): argument 'sorted' must be bool, not str"),
    (lambda L: L.unique(L.tensor(1.0), dim=0), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda L: L.unique(L.empty(0, 3), dim=1), RuntimeError,
     "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"),
    (lambda L: L.unique_consecutive(L.ones(2), dim=3), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 3)"),
    (lambda L: L.cov(L.ones(2, 2, 2)), RuntimeError,
     "cov(): expected input to have two or fewer dimensions but got an input with 3 dimensions"),
    (lambda L: L.cov(L.ones(2, 2).bool()), RuntimeError,
     "cov(): bool dtype is not supported for input"),
    (lambda L: L.cov(L.ones(2, 2), fweights=L.ones(2)), RuntimeError,
     "cov(): expected fweights to have integral dtype but got fweights with Float dtype"),
    (lambda L: L.cov(L.ones(2, 2), fweights=L.ones(3).long()), RuntimeError,
     "cov(): expected fweights to have the same numel as there are observations in the input "
     "but got 3 != 2"),
    (lambda L: L.cov(L.ones(2, 2), fweights=-L.ones(2).long()), RuntimeError,
     "cov(): fweights cannot be negative"),
    (lambda L: L.cov(L.ones(2, 2), aweights=L.ones(1, 2)), RuntimeError,
     "cov(): expected aweights to have one or fewer dimensions but got aweights with 2 "
     "dimensions"),
    (lambda L: L.cov(L.ones(2, 2), aweights=L.ones(2).long()), RuntimeError,
     "cov(): expected aweights to have floating point dtype but got aweights with Long dtype"),
    (lambda L: L.cov(L.ones(2, 2), aweights=L.zeros(2)), RuntimeError,
     "cov(): weights sum to zero, can't be normalized"),
    (lambda L: L.cov(L.ones(2, 2), correction=1.5), TypeError,
     "cov(): argument 'correction' must be int, not float"),
    (lambda L: L.corrcoef(L.ones(2, 2, 2)), RuntimeError,
     "corrcoef(): expected input to have two or fewer dimensions but got an input with 3 "
     "dimensions"),
    (lambda L: L.trapz(L.tensor(Y), 2.0), TypeError,
     "trapz() received an invalid combination of arguments - got (Tensor, float), but "
     "expected one of:\n" + TRAPZ_SIGNATURES),
    (lambda L: L.trapz(1), TypeError, "trapz(): argument 'y' (position 1) must be Tensor, not int"),
    (lambda L: L.cumulative_trapezoid(L.tensor(Y), dx=True), RuntimeError,
     "cumulative_trapezoid: Currently, we only support dx as a real number."),
    (lambda L: L.cumulative_trapezoid(L.tensor(Y).bool()), RuntimeError,
     "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"),
    (lambda L: L.cumulative_trapezoid(L.tensor(Y), L.ones(3)), RuntimeError,
     "cumulative_trapezoid: There must be one `x` value for each sample point"),
    (lambda L: L.cumulative_trapezoid(L.tensor(1.0)), IndexError,
     "slice() cannot be applied to a 0-dim tensor."),
    (lambda L: L.gradient(L.tensor(Y), 1.0), TypeError,
     "gradient() received an invalid combination of arguments - got (Tensor, float), but "
     "expected one of:\n" + GRADIENT_SIGNATURES),
    (lambda L: L.gradient(L.tensor(Y), spacing=[1.0]), RuntimeError,
     "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
     "to 'self.dim() = 2', since dim argument was not given, but got a list of length 1"),
    (lambda L: L.gradient(L.tensor(Y), spacing=[1.0], dim=[0, 1]), RuntimeError,
     "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
     "arguments to have the same length, but got a spacing argument of length 1 and a dim "
     "argument of length 2."),
    (lambda L: L.gradient(L.tensor(Y), edge_order=3), RuntimeError,
     "torch.gradient only supports edge_order=1 and edge_order=2."),
    (lambda L: L.gradient(L.tensor(Y), dim=[0, 0]), RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    (lambda L: L.gradient(L.tensor(Y).byte()), RuntimeError,
     "torch.gradient does not support uint8 input."),
    (lambda L: L.gradient(L.tensor(Y), spacing=(L.ones(2, 4),), dim=1), RuntimeError,
     "torch.gradient expected each element of spacing to have one dimension, but got an "
     "element with 2 dimensions!"),
    (lambda L: L.gradient(L.tensor(Y)[:, :2], edge_order=2), RuntimeError,
     "torch.gradient expected each dimension size to be at least edge_order+1"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "kind", "message"), ERRORS)
def test_errors(fn: Callable[[Any], Any], kind: type[Exception], message: str) -> None:
    with pytest.raises(kind) as caught:
        fn(chainrule)
    assert str(caught.value) == message


@pytest.mark.parametrize(("fn", "kind", "message"), ERRORS)
def test_errors_match_torch(
    torch: Any, fn: Callable[[Any], Any], kind: type[Exception], message: str
) -> None:
    with pytest.raises(kind) as caught:
        fn(torch)
    assert str(caught.value) == message


def test_backward_through_unique_says_there_is_no_derivative() -> None:
    x = chainrule.tensor([1.0, 2.0, 1.0], requires_grad=True)
    cases = [
        (chainrule.unique(x), "_unique2", "Unique2Backward0"),
        (chainrule.unique(x, dim=0), "unique_dim", "UniqueDimBackward0"),
        (x.unique_consecutive(), "unique_consecutive", "UniqueConsecutiveBackward0"),
    ]
    for out, op, node in cases:
        assert out.grad_fn.name() == node
        with pytest.raises(NotImplementedError, match=f"the derivative for '{op}' is not"):
            out.sum().backward()


def test_cov_warns_when_no_degrees_of_freedom_are_left() -> None:
    with pytest.warns(UserWarning, match=re.escape(FEWER)):
        assert math.isinf(chainrule.cov(chainrule.tensor([1.0, 2.0, 3.0]), correction=3).item())


# --- values recorded from PyTorch ---------------------------------------------------------

# More than 16 entries with ties: PyTorch's introsort decides which tied entry is where.
TIES = [2.0, 0, 1, 1, 3, 1, 0, 2, 2, 1, 3, 0, 1, 2, 2, 0, 1, 3, 2, 1]


def test_quantile_gradient_at_ties_goes_where_pytorchs_does() -> None:
    x = chainrule.tensor(TIES, requires_grad=True)
    y = chainrule.quantile(x, chainrule.tensor([0.25, 0.5, 0.9]))
    y.sum().backward()
    assert y.tolist() == [1.0, 1.0, 3.0]
    expected = [0.0] * 20
    expected[2:5] = [0.5, 0.5, 0.10000038146972656]
    expected[10], expected[16], expected[19] = 0.8999996185302734, 0.75, 0.25
    assert x.grad.tolist() == expected
    assert y.grad_fn.name() == "SqueezeBackward4"


def test_nanquantile_midpoint_and_quantile_with_nan() -> None:
    x = chainrule.tensor([[3.0, NAN, 1, 2], [4, 0, 4, 4]], requires_grad=True)
    y = chainrule.nanquantile(x, 0.5, dim=1, interpolation="midpoint")
    y.sum().backward()
    assert y.tolist() == [2.0, 4.0]
    assert x.grad.tolist() == [[0.0, 0.0, 0.0, 1.0], [0.5, 0.0, 0.5, 0.0]]
    assert str(chainrule.quantile(x.detach(), 0.5, dim=1).tolist()) == "[nan, 4.0]"


def test_mode_index_is_pytorchs() -> None:
    m = chainrule.mode(chainrule.tensor(TIES))
    assert (m.values.item(), m.indices.item()) == (1.0, 2)
    m = chainrule.mode(chainrule.tensor([NAN, 1, NAN, 1.0]))  # NaN is unordered in its sort
    assert math.isnan(m.values.item()) and m.indices.item() == 0
    m = chainrule.tensor([[1, 2], [1, 2]]).mode(0)
    assert (m.values.tolist(), m.indices.tolist()) == ([1, 2], [1, 1])


def test_unique_values_inverse_counts() -> None:
    x = chainrule.tensor([3.0, 1, NAN, 2, NAN, 1])
    out, inverse, counts = chainrule.unique(x, return_inverse=True, return_counts=True)
    assert str(out.tolist()) == "[1.0, 2.0, 3.0, nan, nan]"
    assert inverse.tolist() == [2, 0, 3, 1, 4, 0]
    assert counts.tolist() == [2, 1, 1, 1, 1]
    m = chainrule.tensor([[1, 2, 1, 0], [2, 2, 1, 1]])
    out, inverse, counts = chainrule.unique(m, dim=1, return_inverse=True, return_counts=True)
    assert out.tolist() == [[0, 1, 1, 2], [1, 1, 2, 2]]
    assert (inverse.tolist(), counts.tolist()) == ([2, 3, 1, 0], [1, 1, 1, 1])
    out, inverse, counts = chainrule.tensor([[2, 2], [2, 3]]).unique_consecutive(
        return_inverse=True, return_counts=True
    )
    assert (out.tolist(), inverse.tolist(), counts.tolist()) == ([2, 3], [[0, 0], [0, 1]], [3, 1])


def test_cov_corrcoef_values() -> None:
    c = chainrule.cov(
        chainrule.tensor([[1.0, 2, 4], [0, 3, 1]]),
        fweights=chainrule.tensor([1, 2, 1]),
        aweights=chainrule.tensor([0.5, 1.0, 2.0]),
    )
    assert c.tolist() == [
        [1.8571428060531616, -0.7142857313156128],
        [-0.7142857313156128, 1.8571428060531616],
    ]
    r = chainrule.corrcoef(chainrule.tensor([[1.0, 2, 4], [0, 3, 1], [2, 2, 3]]))
    assert r.grad_fn is None and r.diagonal().tolist() == [1.0, 1.0, 1.0]
    assert abs(r[0, 2].item() - 0.9449111) < 1e-6


def test_gradient_and_cumulative_trapezoid_values() -> None:
    (g,) = chainrule.gradient(
        chainrule.tensor([1.0, 4, 9, 16, 25]),
        spacing=(chainrule.tensor([0.0, 1, 3, 4, 7]),),
        edge_order=2,
    )
    assert g.tolist() == [
        3.1666665077209473,
        2.8333332538604736,
        5.500000476837158,
        6.000000476837158,
        -9.5367431640625e-07,
    ]
    y, x = chainrule.tensor([1.0, 4, 9, 16]), chainrule.tensor([0.0, 1, 3, 4])
    assert chainrule.cumulative_trapezoid(y, x).tolist() == [2.5, 15.5, 28.0]
    assert chainrule.trapz(y, dx=2).item() == 43.0


# --- invariants, without torch ------------------------------------------------------------

KEYS = st.lists(st.sampled_from([0.0, 1.0, 2.0, NAN]), min_size=0, max_size=60)


@given(KEYS)
def test_introsort_sorts(keys: list[float]) -> None:
    order = introsort(keys, nan_last)
    assert sorted(order) == list(range(len(keys)))
    ranked = [keys[i] for i in order]
    numbers = [k for k in ranked if not math.isnan(k)]
    assert numbers == sorted(numbers) and ranked[: len(numbers)] == numbers
    assert sorted(introsort(keys, plain_less)) == list(range(len(keys)))


@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3), elements=st.integers(0, 3)))
def test_unique_inverse_rebuilds_the_input(a: np.ndarray) -> None:
    x = chainrule.tensor(a)
    out, inverse, counts = chainrule.unique(x, return_inverse=True, return_counts=True)
    assert np.array_equal(out.numpy()[inverse.numpy()], a)
    assert counts.sum().item() == a.size
    out, inverse, counts = x.unique_consecutive(dim=0, return_inverse=True, return_counts=True)
    assert np.array_equal(out.numpy()[inverse.numpy()], a)
    assert counts.sum().item() == a.shape[0]


# --- drawn inputs, against torch ----------------------------------------------------------

SMALL_INTS = st.integers(0, 3)


def _arrays(dtypes: list[Any]) -> Any:
    """Arrays of a few small values (so ties are many), up to 20 along a dim."""
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=20)
    return st.sampled_from(dtypes).flatmap(
        lambda dt: hnp.arrays(np.int64, shapes, elements=SMALL_INTS).map(lambda a: a.astype(dt))
    )


def _same(a: Any, b: Any) -> None:
    """Equal values, shapes and strides (a size-1 dim's stride, which no index uses, aside)."""
    assert np.array_equal(a.detach().numpy(), b.detach().numpy(), equal_nan=True)
    assert tuple(a.shape) == tuple(b.shape)
    used = [i for i, n in enumerate(a.shape) if n > 1]
    assert [a.stride(i) for i in used] == [b.stride(i) for i in used]


@given(_arrays([np.float32, np.float64, np.int64]), st.data())
def test_mode_matches_torch(torch: Any, a: np.ndarray, data: st.DataObject) -> None:
    if a.dtype.kind == "f" and a.ndim:
        a[data.draw(hnp.arrays(bool, a.shape))] = np.nan
    dim = data.draw(st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1))
    keepdim = data.draw(st.booleans())
    mine, theirs = (
        chainrule.mode(chainrule.tensor(a), dim, keepdim),
        torch.mode(torch.tensor(a), dim, keepdim),
    )
    _same(mine.values, theirs.values)
    _same(mine.indices, theirs.indices)


@given(_arrays([np.float32, np.float64]), st.data())
def test_quantile_matches_torch(torch: Any, a: np.ndarray, data: st.DataObject) -> None:
    if a.ndim and data.draw(st.booleans()):
        a[data.draw(hnp.arrays(bool, a.shape))] = np.nan
    dim = data.draw(st.none() | st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1))
    how = data.draw(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))
    q = data.draw(
        st.floats(0, 1) | hnp.arrays(a.dtype, st.integers(1, 3), elements=st.floats(0, 1, width=32))
    )
    name = data.draw(st.sampled_from(["quantile", "nanquantile"]))
    results = []
    for lib in (chainrule, torch):
        x = lib.tensor(a, requires_grad=True)
        y = getattr(lib, name)(
            x, q if isinstance(q, float) else lib.tensor(q), dim=dim, interpolation=how
        )
        y.sum().backward()
        results.append((y, x.grad))
    _same(results[0][0], results[1][0])
    _same(results[0][1], results[1][1])


@given(_arrays([np.float32, np.int64, np.bool_]), st.data())
def test_unique_matches_torch(torch: Any, a: np.ndarray, data: st.DataObject) -> None:
    if a.dtype.kind == "f" and a.ndim:
        a[data.draw(hnp.arrays(bool, a.shape))] = np.nan
    dim = data.draw(st.none() | st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1))
    if dim is not None and a.ndim == 0:
        return
    flags = {"return_inverse": data.draw(st.booleans()), "return_counts": data.draw(st.booleans())}
    for op in ("unique", "unique_consecutive"):
        mine = getattr(chainrule, op)(chainrule.tensor(a), dim=dim, **flags)
        theirs = getattr(torch, op)(torch.tensor(a), dim=dim, **flags)
        for m, t in zip(
            mine if isinstance(mine, tuple) else (mine,),
            theirs if isinstance(theirs, tuple) else (theirs,),
            strict=True,
        ):
            _same(m, t)


@pytest.mark.parametrize("name", ["chainrule", "torch"])
def test_cov_with_one_observation_writes_zeros_into_its_input(name: str) -> None:
    # PyTorch's corner case: one observation and one kind of weights (the input is zeroed).
    for lib in (pytest.importorskip(name),):
        x = lib.tensor([[1.0], [3.0]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = lib.cov(x, fweights=lib.tensor([2]))
        assert c.tolist() == [[0.0, 0.0], [0.0, 0.0]] and x.tolist() == [[0.0], [0.0]]
