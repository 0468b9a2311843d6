"""Every op of tests/op_table.py: forward values, first and second derivatives, graph names.

Fixed samples (one test case per op and sample) check each op against NumPy,
gradcheck and gradgradcheck in float64, and against torch when it is installed;
hypothesis then draws shapes (0-d, size-1 and empty included) and values for the
elementwise ops and the reductions.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule.autograd import functional, grad, gradcheck, gradgradcheck
from op_table import OPS, Mask, Op

CASES = [pytest.param(op, i, id=f"{op.name}-{i}") for op in OPS for i in range(len(op.samples))]
DTYPES = ["float32", "float64"]
RTOL64, ATOL64 = 1e-10, 1e-12


# --- inputs -------------------------------------------------------------------------------


def sample_arrays(op: Op, i: int) -> list[np.ndarray]:
    """The inputs of sample `i` of `op` (float64 or bool), the same on every run."""
    rng = np.random.default_rng(zlib.crc32(f"{op.name}-{i}".encode()))
    arrays = []
    for k, arg in enumerate(op.samples[i]):
        if isinstance(arg, Mask):
            mask = np.arange(int(np.prod(arg.shape))).reshape(arg.shape) % 3 != 1
            arrays.append(mask)
        else:
            d = op.domain_of(k)
            arrays.append(d.fix(rng.uniform(d.low, d.high, arg)))
    return arrays


def as_tensors(lib: Any, arrays: Sequence[np.ndarray], dtype: str) -> list[Any]:
    """Tensors of `lib`; float inputs in `dtype` and requiring grad, masks as they are."""
    out = []
    for a in arrays:
        if a.dtype == np.bool_:
            out.append(lib.tensor(a))
        else:
            out.append(lib.tensor(a.astype(dtype), requires_grad=True))
    return out


def float_inputs(tensors: Sequence[Any]) -> list[Any]:
    return [t for t in tensors if t.is_floating_point()]


def numpy_of(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def upstream(shape: Sequence[int], seed: int) -> np.ndarray:
    """A random gradient for an output of `shape`."""
    return np.random.default_rng(seed).uniform(-1.0, 1.0, tuple(shape))


def tolerances(op: Op, dtype: str) -> dict[str, float]:
    if dtype == "float64":
        return {"rtol": RTOL64, "atol": ATOL64}
    return {"rtol": op.rtol32, "atol": op.atol32}


def run_backward(lib: Any, op: Op, arrays: Sequence[np.ndarray], dtype: str, seed: int) -> Any:
    """Forward, then backward with a random upstream gradient; the output and input grads."""
    ts = as_tensors(lib, arrays, dtype)
    out = op.fn(*ts)
    g = lib.tensor(upstream(out.shape, seed).astype(str(out.dtype).split(".")[-1]))
    if out.requires_grad:
        out.backward(g)
    return out, [t.grad for t in float_inputs(ts)]


def assert_same(mine: Any, theirs: Any, **tol: float) -> None:
    """A chainrule tensor against a torch tensor: shape, dtype and values."""
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(numpy_of(mine), numpy_of(theirs), equal_nan=True, **tol)


# --- forward ------------------------------------------------------------------------------


@pytest.mark.parametrize(("op", "i"), CASES)
def test_forward_matches_numpy(op: Op, i: int) -> None:
    arrays = sample_arrays(op, i)
    expected = np.asarray(op.ref(*arrays))
    for dtype in DTYPES:
        cast = [a if a.dtype == np.bool_ else a.astype(dtype) for a in arrays]
        out = op.fn(*as_tensors(chainrule, cast, dtype))
        assert tuple(out.shape) == expected.shape
        tol = tolerances(op, dtype)
        np.testing.assert_allclose(numpy_of(out), expected, rtol=tol["rtol"], atol=tol["atol"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "i"), CASES)
def test_forward_matches_torch(torch: Any, op: Op, i: int, dtype: str) -> None:
    arrays = sample_arrays(op, i)
    mine = op.fn(*as_tensors(chainrule, arrays, dtype))
    theirs = op.fn(*as_tensors(torch, arrays, dtype))
    assert_same(mine, theirs, **tolerances(op, dtype))
    assert mine.requires_grad == theirs.requires_grad


# --- first derivatives --------------------------------------------------------------------


@pytest.mark.parametrize(("op", "i"), CASES)
def test_gradcheck(op: Op, i: int) -> None:
    ts = as_tensors(chainrule, sample_arrays(op, i), "float64")
    assert gradcheck(op.fn, ts, eps=op.gc_eps, atol=op.gc_atol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("op", "i"), CASES)
def test_grad_matches_torch(torch: Any, op: Op, i: int, dtype: str) -> None:
    arrays = sample_arrays(op, i)
    _, mine = run_backward(chainrule, op, arrays, dtype, seed=i)
    _, theirs = run_backward(torch, op, arrays, dtype, seed=i)
    for g_mine, g_theirs in zip(mine, theirs, strict=True):
        assert (g_mine is None) == (g_theirs is None)
        if g_mine is not None:
            assert_same(g_mine, g_theirs, **tolerances(op, dtype))


@pytest.mark.parametrize(("op", "i"), CASES)
def test_create_graph_gives_the_same_gradient(op: Op, i: int) -> None:
    """The rules run on arrays (fast) and on recorded Tensors (create_graph) agree."""
    arrays = sample_arrays(op, i)
    grads = []
    for create_graph in (False, True):
        ts = as_tensors(chainrule, arrays, "float64")
        out = op.fn(*ts)
        g = chainrule.tensor(upstream(out.shape, seed=i))
        grads.append(grad(out, float_inputs(ts), g, create_graph=create_graph, allow_unused=True))
    for fast, recorded in zip(*grads, strict=True):
        assert (fast is None) == (recorded is None)
        if fast is not None:
            np.testing.assert_allclose(numpy_of(fast), numpy_of(recorded), rtol=1e-14)


# --- second derivatives -------------------------------------------------------------------


@pytest.mark.parametrize(("op", "i"), CASES)
def test_gradgradcheck(op: Op, i: int) -> None:
    if not op.second_order:
        pytest.skip(op.note)
    ts = as_tensors(chainrule, sample_arrays(op, i), "float64")
    assert gradgradcheck(op.fn, ts, eps=op.gc_eps, atol=op.gc_atol)


@pytest.mark.parametrize(("op", "i"), CASES)
def test_backward_is_differentiable_in_its_grad_output(op: Op, i: int) -> None:
    """The backward as an op of (inputs, grad_output): its own derivative, in both, is right.

    This is what `hvp` and `grad(grad(y, x, v, create_graph=True), v)` run: the nodes a
    backward records under create_graph are differentiated in turn (a third-order check,
    in fast mode: one random projection per input).
    """
    if not op.second_order:
        pytest.skip(op.note)
    chainrule.manual_seed(zlib.crc32(f"{op.name}-{i}".encode()))
    ts = as_tensors(chainrule, sample_arrays(op, i), "float64")
    out = op.fn(*ts)
    if not out.requires_grad:
        pytest.skip("no gradient to differentiate")
    grad_output = chainrule.tensor(upstream(out.shape, seed=i), requires_grad=True)
    n = len(ts)

    def backward(*args: Any) -> tuple[Any, ...]:
        ins = args[:n]
        wanted = [t for t in ins if t.requires_grad]
        grads = grad(op.fn(*ins), wanted, args[n], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    assert gradgradcheck(
        backward, (*ts, grad_output), eps=op.gc_eps, atol=op.gc_atol, fast_mode=True
    )


@pytest.mark.parametrize(("op", "i"), CASES)
def test_jvp_by_double_vjp(op: Op, i: int) -> None:
    """`autograd.functional.jvp` differentiates J^T u in a grad_output u that is zero-valued
    but recorded: a rule that skips work on a zero gradient's value gets J v wrong.
    """
    if not op.second_order:
        pytest.skip(op.note)
    arrays = sample_arrays(op, i)
    ts = as_tensors(chainrule, arrays, "float64")
    diff = [k for k, t in enumerate(ts) if t.is_floating_point()]
    rng = np.random.default_rng(i)
    directions = [rng.uniform(-1.0, 1.0, arrays[k].shape) for k in diff]

    def at(*floats: Any) -> Any:
        args = list(ts)
        for k, t in zip(diff, floats, strict=True):
            args[k] = t
        return op.fn(*args)

    floats = tuple(ts[k].detach() for k in diff)
    _, jv = functional.jvp(at, floats, tuple(chainrule.tensor(d) for d in directions))
    eps = op.gc_eps
    shifted = [
        numpy_of(
            at(
                *(
                    chainrule.tensor(a._data + sign * eps * d)
                    for a, d in zip(floats, directions, strict=True)
                )
            )
        )
        for sign in (1.0, -1.0)
    ]
    expected = (shifted[0].astype(np.float64) - shifted[1]) / (2 * eps)
    np.testing.assert_allclose(numpy_of(jv), expected, rtol=1e-3, atol=op.gc_atol)


# --- graph names --------------------------------------------------------------------------


@pytest.mark.parametrize(("op", "i"), CASES)
def test_grad_fn_name_matches_torch(torch: Any, op: Op, i: int) -> None:
    arrays = sample_arrays(op, i)
    mine = op.fn(*as_tensors(chainrule, arrays, "float64")).grad_fn
    theirs = op.fn(*as_tensors(torch, arrays, "float64")).grad_fn
    mine_name = None if mine is None else mine.name()
    theirs_name = None if theirs is None else theirs.name()
    if op.name_differs is None:
        assert mine_name == theirs_name
    else:  # a recorded difference: still exactly what the table says, and still different
        assert mine_name == op.name_differs[0], op.name_differs[1]
        assert theirs_name != mine_name, "torch now agrees: drop name_differs from the table"


# --- drawn shapes and values --------------------------------------------------------------

ELEMENTWISE = [op for op in OPS if op.hypothesis is not None]
SMALL = 12  # gradcheck drawn inputs up to this many elements (it costs ~4 calls each)


def shapes_for(op: Op) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    if op.hypothesis == "unary":
        return hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3).map(lambda s: (s,))
    return hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=3
    ).map(lambda b: b.input_shapes)


# Ops whose gradient in torch's float64, the reference, is lost when the result underflows:
# torch divides the result by the input (prod's gradient at [5e-324, 0.5] is [0, 0] in
# torch, cumprod's at [5e-324, 5e-324] too), where chainrule multiplies the other entries
# and keeps it (prod's is [0.5, 5e-324]; see tests/test_reductions.py::
# test_products_that_underflow_keep_their_gradient). Compared with torch, they draw no
# subnormal values; against finite differences they do.
UNDERFLOW_IN_TORCH = {"prod", "cumprod_last"}


def draw_arrays(data: st.DataObject, op: Op, subnormal: bool = True) -> list[np.ndarray]:
    arrays = []
    for k, shape in enumerate(data.draw(shapes_for(op), label="shapes")):
        d = op.domain_of(k)
        values = st.floats(  # (None: subnormals wherever the domain has them)
            d.low,
            d.high,
            allow_nan=False,
            allow_infinity=False,
            allow_subnormal=None if subnormal else False,
        )
        arrays.append(d.fix(data.draw(hnp.arrays(np.float64, shape, elements=values))))
    return arrays


def ids(ops: Sequence[Op]) -> list[str]:
    return [op.name for op in ops]


@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
@given(data=st.data())
def test_drawn_elementwise_against_numpy(op: Op, data: st.DataObject) -> None:
    arrays = draw_arrays(data, op)
    ts = as_tensors(chainrule, arrays, "float64")
    out = op.fn(*ts)
    expected = np.asarray(op.ref(*arrays))
    assert tuple(out.shape) == expected.shape
    np.testing.assert_allclose(numpy_of(out), expected, rtol=RTOL64, atol=ATOL64)
    if sum(a.size for a in arrays) <= SMALL:
        assert gradcheck(op.fn, ts)


def assert_as_accurate_as_torch(mine: Any, theirs: Any, exact: Any, op: Op, dtype: str) -> None:
    """Within tolerance of torch, or of torch's own distance from its float64 result.

    A gradient of a broadcast input is a sum, and cancellation in it magnifies
    float32 rounding; torch suffers the same, so its own error sets the bar.
    """
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    a, b = numpy_of(mine).astype(np.float64), numpy_of(theirs).astype(np.float64)
    tol = tolerances(op, dtype)
    allowed = tol["atol"] + tol["rtol"] * np.abs(b) + 4 * np.abs(b - numpy_of(exact))
    assert np.all((np.abs(a - b) <= allowed) | (np.isnan(a) & np.isnan(b))), (a, b)


@pytest.mark.parametrize("op", ELEMENTWISE, ids=ids(ELEMENTWISE))
@given(data=st.data(), dtype=st.sampled_from(DTYPES))
def test_drawn_elementwise_against_torch(
    torch: Any, op: Op, data: st.DataObject, dtype: str
) -> None:
    arrays = draw_arrays(data, op, subnormal=op.name not in UNDERFLOW_IN_TORCH)
    out, mine = run_backward(chainrule, op, arrays, dtype, seed=0)
    out_t, theirs = run_backward(torch, op, arrays, dtype, seed=0)
    out_64, exact = run_backward(torch, op, arrays, "float64", seed=0)
    assert_as_accurate_as_torch(out, out_t, out_64, op, dtype)
    for g_mine, g_theirs, g_exact in zip(mine, theirs, exact, strict=True):
        assert_as_accurate_as_torch(g_mine, g_theirs, g_exact, op, dtype)


def reduction(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(op on tensors, NumPy reference) for `name` over `dims` (None: all) and `keepdim`."""

    def op(x: Any, dims: Any, keepdim: bool) -> Any:
        method = getattr(x, name)
        return method() if dims is None else method(dims, keepdim=keepdim)

    def ref(a: np.ndarray, dims: Any, keepdim: bool) -> np.ndarray:
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # mean of nothing is nan
            return np.asarray(
                getattr(np, name)(a, axis=dims, keepdims=keepdim and dims is not None)
            )

    return op, ref


@st.composite
def reduction_args(draw: st.DrawFn) -> tuple[np.ndarray, Any, bool]:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    values = draw(hnp.arrays(np.float64, shape, elements=st.floats(-2, 2)))
    n = len(shape)
    dim_lists = (
        st.lists(st.integers(-n, n - 1), min_size=1, max_size=n, unique_by=lambda d: d % n)
        if n
        else st.sampled_from([[0], [-1]])
    )
    dims = draw(st.none() | dim_lists.map(tuple) | st.integers(-max(n, 1), max(n, 1) - 1))
    return values, dims, draw(st.booleans())


def numpy_dims(dims: Any, ndim: int) -> Any:
    """NumPy has no dim 0 for a 0-d array; reducing a 0-d tensor over it keeps it as it is."""
    if ndim == 0 and dims is not None:
        return None
    return dims


@pytest.mark.parametrize("name", ["sum", "mean"])
@given(args=reduction_args())
def test_drawn_reductions_against_numpy(name: str, args: tuple[np.ndarray, Any, bool]) -> None:
    values, dims, keepdim = args
    op, ref = reduction(name)
    x = chainrule.tensor(values, requires_grad=True)
    out = op(x, dims, keepdim)
    expected = ref(values, numpy_dims(dims, values.ndim), keepdim)
    assert tuple(out.shape) == expected.shape
    np.testing.assert_allclose(numpy_of(out), expected, rtol=RTOL64, atol=ATOL64)
    if values.size <= SMALL and not np.isnan(expected).any():
        assert gradcheck(lambda t: op(t, dims, keepdim), (x,))


@pytest.mark.parametrize("name", ["sum", "mean"])
@given(args=reduction_args(), dtype=st.sampled_from(DTYPES))
def test_drawn_reductions_against_torch(
    torch: Any, name: str, args: tuple[np.ndarray, Any, bool], dtype: str
) -> None:
    values, dims, keepdim = args
    op, _ = reduction(name)
    results = []
    for lib in (chainrule, torch):
        x = lib.tensor(values.astype(dtype), requires_grad=True)
        out = op(x, dims, keepdim)
        out.backward(lib.tensor(upstream(out.shape, seed=1).astype(dtype)))
        results.append((out, x.grad))
    (out, g), (out_t, g_t) = results
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": RTOL64, "atol": ATOL64}
    assert_same(out, out_t, **tol)
    assert_same(g, g_t, **tol)
