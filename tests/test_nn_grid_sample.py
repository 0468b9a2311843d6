"""grid_sample and affine_grid beyond the op table: drawn inputs against torch (values,
both gradients, second derivatives and node names, every mode and padding), PyTorch's
warnings and errors, and recorded values and invariants that need no torch."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
import chainrule.nn.functional as F
from chainrule.autograd import gradcheck, gradgradcheck
from layer_compare import error_of
from torch_compare import as_torch_text

MODES_2D = [
    (m, p) for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")
]
MODES_3D = [(m, p) for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection")]


def _arrays(k: int, seed: int, spread: float = 1.4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    size = (2, 3, 4, 5) if k == 2 else (2, 2, 3, 4, 3)
    out = (2, 3, 2, k) if k == 2 else (2, 2, 3, 2, k)
    return rng.standard_normal(size), rng.uniform(-spread, spread, out)


def _grads(m: Any, a: np.ndarray, g: np.ndarray, dtype: str, **kw: Any) -> dict[str, Any]:
    """Output, both gradients, and the second derivatives of a random projection of them
    in input, grid and grad_output, with the node names on the way."""
    x = m.tensor(a.astype(dtype), requires_grad=True)
    grid = m.tensor(g.astype(dtype), requires_grad=True)
    out = m.nn.functional.grid_sample(x, grid, **kw)
    rng = np.random.default_rng(5)
    go = m.tensor(rng.standard_normal(tuple(out.shape)).astype(dtype), requires_grad=True)
    gx, gg = m.autograd.grad(out, (x, grid), go, create_graph=True)
    vx = m.tensor(rng.standard_normal(tuple(gx.shape)).astype(dtype))
    vg = m.tensor(rng.standard_normal(tuple(gg.shape)).astype(dtype))
    second = m.autograd.grad((gx * vx).sum() + (gg * vg).sum(), (x, grid, go), allow_unused=True)
    return {
        "out": out.detach().numpy(),
        "gx": gx.detach().numpy(),
        "gg": gg.detach().numpy(),
        "second": [None if s is None else s.numpy() for s in second],
        "names": (out.grad_fn.name(), gx.grad_fn.name(), gg.grad_fn.name()),
        "stride": out.stride(),
    }


def _same(mine: Any, theirs: Any, tol: float) -> None:
    if mine is None or theirs is None:  # an absent gradient is a zero one
        assert not np.any(theirs if mine is None else mine)
        return
    np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize(
    ("k", "mode", "padding"), [(2, *c) for c in MODES_2D] + [(3, *c) for c in MODES_3D]
)
def test_first_and_second_derivatives_match_torch(
    torch: Any, k: int, mode: str, padding: str, align: bool
) -> None:
    a, g = _arrays(k, seed=len(mode) + len(padding) + k)
    kw = {"mode": mode, "padding_mode": padding, "align_corners": align}
    mine, theirs = _grads(chainrule, a, g, "float64", **kw), _grads(torch, a, g, "float64", **kw)
    assert mine["names"] == theirs["names"]
    assert mine["stride"] == theirs["stride"]
    for key in ("out", "gx", "gg"):
        _same(mine[key], theirs[key], 1e-10)
    for m2, t2 in zip(mine["second"], theirs["second"], strict=True):
        _same(m2, t2, 1e-9)


@pytest.mark.parametrize(("mode", "padding"), MODES_2D)
def test_float32_matches_torch(torch: Any, mode: str, padding: str) -> None:
    a, g = _arrays(2, seed=3)
    results = []
    for m in (chainrule, torch):
        x = m.tensor(a.astype("float32"), requires_grad=True)
        grid = m.tensor(g.astype("float32"), requires_grad=True)
        out = m.nn.functional.grid_sample(x, grid, mode, padding, align_corners=False)
        out.backward(m.ones_like(out))
        results.append([t.detach().numpy() for t in (out, x.grad, grid.grad)])
    for mine, theirs in zip(*results, strict=True):
        assert mine.dtype == theirs.dtype
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5)


@given(
    k=st.sampled_from([2, 3]),
    seed=st.integers(0, 2**16),
    spread=st.floats(0.5, 3.0),
    align=st.booleans(),
    choice=st.integers(0, 8),
)
def test_drawn_inputs_match_torch(
    torch: Any, k: int, seed: int, spread: float, align: bool, choice: int
) -> None:
    modes = MODES_2D if k == 2 else MODES_3D
    mode, padding = modes[choice % len(modes)]
    a, g = _arrays(k, seed, spread)
    kw = {"mode": mode, "padding_mode": padding, "align_corners": align}
    got = []
    for m in (chainrule, torch):
        x = m.tensor(a, requires_grad=True)
        grid = m.tensor(g, requires_grad=True)
        out = m.nn.functional.grid_sample(x, grid, **kw)
        out.backward(m.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape))))
        got.append([t.detach().numpy() for t in (out, x.grad, grid.grad)])
    for mine, theirs in zip(*got, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-9)


def test_empty_batch_and_empty_output_as_torch(torch: Any) -> None:
    for shapes in (
        ((0, 2, 3, 4), (0, 2, 2, 2)),
        ((1, 0, 3, 4), (1, 2, 2, 2)),
        ((1, 2, 3, 4), (1, 0, 2, 2)),
    ):
        results = []
        for m in (chainrule, torch):
            x = m.zeros(shapes[0], requires_grad=True)
            grid = m.zeros(shapes[1], requires_grad=True)
            out = m.nn.functional.grid_sample(x, grid, align_corners=True)
            out.sum().backward()
            results.append((tuple(out.shape), tuple(x.grad.shape), tuple(grid.grad.shape)))
        assert results[0] == results[1]


@pytest.mark.parametrize("k", [2, 3])
def test_non_finite_coordinates_as_torch(torch: Any, k: int) -> None:
    """NaN and infinite coordinates read what PyTorch's kernels read (its 2-D and 3-D
    kernels clamp NaN to opposite ends), quietly."""
    x = np.arange(2.0**k).reshape(1, 1, *(2,) * k)
    modes = MODES_2D if k == 2 else MODES_3D
    for value in (float("nan"), float("inf"), -float("inf"), 1e10):
        g = np.array([value, 0.3, -0.2][:k]).reshape(1, *(1,) * k, k)
        for mode, padding in modes:
            got = []
            for m in (chainrule, torch):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    out = m.nn.functional.grid_sample(
                        m.tensor(x), m.tensor(g), mode, padding, align_corners=False
                    )
                got.append(out.numpy())
            np.testing.assert_allclose(*got, rtol=1e-12, err_msg=f"{value} {mode} {padding}")


def test_affine_grid_then_grid_sample_matches_torch(torch: Any) -> None:
    """A spatial transformer: a grid from affine matrices, then sampling, differentiated
    twice in the matrices."""
    rng = np.random.default_rng(0)
    theta = np.array([[[0.9, -0.3, 0.1], [0.2, 1.1, -0.2]], [[1.2, 0.1, 0.0], [-0.1, 0.8, 0.3]]])
    image = rng.standard_normal((2, 3, 6, 5))
    results = []
    for m in (chainrule, torch):
        t = m.tensor(theta, requires_grad=True)
        grid = m.nn.functional.affine_grid(t, (2, 3, 4, 4), align_corners=False)
        out = m.nn.functional.grid_sample(m.tensor(image), grid, align_corners=False)
        (g,) = m.autograd.grad(out.square().sum(), t, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), t)
        results.append([v.detach().numpy() for v in (out, g, gg)])
    for mine, theirs in zip(*results, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-10)


# --- without torch ------------------------------------------------------------------------


def test_recorded_values() -> None:
    """Values recorded from torch 2.13."""
    x = chainrule.arange(12, dtype=chainrule.float64).reshape(1, 1, 3, 4)
    grid = chainrule.tensor([[[[-1.0, -1.0], [0.25, 0.1], [1.3, -0.7]]]], dtype=chainrule.float64)
    expected = {
        ("bilinear", "zeros", False): [0.0, 6.600000000000001, 0.0],
        ("bilinear", "border", True): [0.0, 6.275, 4.2],
        ("nearest", "reflection", False): [0.0, 6.0, 3.0],
        ("bicubic", "zeros", True): [0.0, 6.471363769531251, 2.481456914062506],
    }
    for (mode, padding, align), values in expected.items():
        out = F.grid_sample(x, grid, mode, padding, align)
        np.testing.assert_allclose(out.flatten().tolist(), values, atol=1e-12)


def test_identity_grid_reads_the_input_back() -> None:
    x = chainrule.randn(2, 3, 4, 5, dtype=chainrule.float64)
    eye = chainrule.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2, dtype=chainrule.float64)
    for align in (False, True):
        grid = F.affine_grid(eye, (2, 3, 4, 5), align_corners=align)
        for mode in ("bilinear", "nearest", "bicubic"):
            out = F.grid_sample(x, grid, mode, "zeros", align)
            np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-12)


@pytest.mark.parametrize(("mode", "padding"), [*MODES_2D, ("bilinear3d", "reflection")])
def test_derivatives_by_finite_differences(mode: str, padding: str) -> None:
    k = 3 if mode.endswith("3d") else 2
    a, g = _arrays(k, seed=11)
    x = chainrule.tensor(a[:1, :2], requires_grad=True)
    grid = chainrule.tensor(g[:1], requires_grad=True)

    def f(t: Any, u: Any) -> Any:
        return F.grid_sample(t, u, mode.removesuffix("3d"), padding, align_corners=False)

    assert gradcheck(f, (x, grid))
    assert gradgradcheck(f, (x, grid))


def test_double_backward_nodes() -> None:
    x = chainrule.randn(1, 2, 3, 4, requires_grad=True)
    grid = chainrule.rand(1, 2, 2, 2, requires_grad=True)
    out = F.grid_sample(x, grid, align_corners=True)
    assert out.grad_fn.name() == "GridSampler2DBackward0"
    gx, gg = chainrule.autograd.grad(out.sum(), (x, grid), create_graph=True)
    for t in (gx, gg):
        assert t.grad_fn.name() == "GridSampler2DBackwardBackward0"
        assert [e[0] is None for e in t.grad_fn.next_functions] == [True, False, False]
    theta = chainrule.randn(1, 3, 4, requires_grad=True)
    grid3 = F.affine_grid(theta, (1, 1, 2, 2, 2), align_corners=False)
    assert grid3.grad_fn.name() == "AffineGridGeneratorBackward0"
    go = chainrule.ones_like(grid3, requires_grad=True)
    (gt,) = chainrule.autograd.grad(grid3, theta, go, create_graph=True)
    assert gt.grad_fn.name() == "TransposeBackward0"
    assert gt.grad_fn.next_functions[0][0].name() == "BmmBackward0"


def test_affine_grid_recorded() -> None:
    theta = chainrule.tensor([[[1.0, 0.5, 0.0], [0.0, 1.0, 0.25]]])
    grid = F.affine_grid(theta, (1, 1, 2, 3), align_corners=False)
    assert grid.shape == (1, 2, 3, 2)
    np.testing.assert_allclose(
        grid.flatten().tolist(),
        [
            -0.9166667,
            -0.25,
            -0.25,
            -0.25,
            0.4166667,
            -0.25,
            -0.4166667,
            0.75,
            0.25,
            0.75,
            0.9166667,
            0.75,
        ],
        rtol=1e-6,
    )


# --- warnings and errors -------------------------------------------------------------------


def test_align_corners_warnings() -> None:
    x, grid = chainrule.zeros(1, 1, 2, 2), chainrule.zeros(1, 1, 1, 2)
    theta = chainrule.zeros(1, 2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.grid_sample(x, grid)
        F.affine_grid(theta, (1, 1, 2, 2))
        F.affine_grid(theta, (1, 1, 1, 2), align_corners=True)
        F.grid_sample(x, grid, align_corners=False)
    texts = [str(w.message) for w in caught]
    assert all(w.category is UserWarning and w.filename == __file__ for w in caught)
    default = (
        "Default grid_sample and affine_grid behavior has changed to align_corners=False "
        "since 1.3.0. Please specify align_corners=True if the old behavior is desired. See "
        "the documentation of grid_sample for details."
    )
    assert texts == [
        default,
        default,
        "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
        "align_corners=True. This is not an intended use case of affine_grid. See the "
        "documentation of affine_grid for details.",
    ]


def _gs(
    m: Any,
    x: tuple[int, ...],
    g: tuple[int, ...],
    dtypes: tuple[str, str] = ("float32",) * 2,
    **kw: Any,
) -> Any:
    kw.setdefault("align_corners", False)
    return m.nn.functional.grid_sample(
        m.zeros(x, dtype=getattr(m, dtypes[0])), m.zeros(g, dtype=getattr(m, dtypes[1])), **kw
    )


def _ag(m: Any, theta: tuple[int, ...], size: Any, dtype: str = "float32", **kw: Any) -> Any:
    kw.setdefault("align_corners", False)
    return m.nn.functional.affine_grid(m.zeros(theta, dtype=getattr(m, dtype)), size, **kw)


X, G = (2, 3, 4, 5), (2, 3, 4, 2)
ERRORS: dict[str, Callable[[Any], Any]] = {
    "mode": lambda m: _gs(m, X, G, mode="foo"),
    "mode_none": lambda m: _gs(m, X, G, mode=None),
    "padding": lambda m: _gs(m, X, G, padding_mode="foo"),
    "grid_dtype": lambda m: _gs(m, X, G, ("float32", "float64")),
    "input_dtype": lambda m: _gs(m, X, G, ("float64", "float32")),
    "half_grid": lambda m: _gs(m, X, G, ("float32", "float16")),
    "integers": lambda m: _gs(m, X, G, ("int64", "int64")),
    "bools": lambda m: _gs(m, X, G, ("bool", "bool")),
    "integer_input": lambda m: _gs(m, X, G, ("int64", "float32")),
    "integer_grid": lambda m: _gs(m, X, G, ("float32", "int64")),
    "integers_3d": lambda m: _gs(m, (1, 1, 2, 2, 2), (1, 1, 1, 1, 3), ("int64", "int64")),
    "batch": lambda m: _gs(m, X, (1, 3, 4, 2)),
    "last_dim": lambda m: _gs(m, X, (2, 3, 4, 1)),
    "three_dims": lambda m: _gs(m, (3, 4, 5), (3, 4, 2)),
    "grid_three_dims": lambda m: _gs(m, X, (3, 4, 2)),
    "empty_spatial": lambda m: _gs(m, (2, 3, 0, 5), G),
    "bicubic_3d": lambda m: _gs(m, (2, 3, 1, 4, 5), (2, 3, 4, 5, 3), mode="bicubic"),
    "3d_last_dim": lambda m: _gs(m, (2, 3, 1, 4, 5), (2, 3, 4, 5, 2)),
    "six_dims": lambda m: _gs(m, (2, 3, 1, 1, 4, 5), (2, 3, 4, 5, 3, 4)),
    "grid_list": lambda m: m.nn.functional.grid_sample(m.zeros(X), [1, 2], align_corners=False),
    "align_int": lambda m: _gs(m, X, G, align_corners=1),
    "theta_int": lambda m: _ag(m, (2, 2, 3), (2, 3, 4, 5), "int64"),
    "theta_2d_for_3d": lambda m: _ag(m, (2, 2, 3), (2, 3, 4, 5, 6)),
    "theta_3d_for_2d": lambda m: _ag(m, (2, 3, 4), (2, 3, 4, 5)),
    "theta_matrix": lambda m: _ag(m, (2, 3), (2, 3, 4, 5)),
    "size_three": lambda m: _ag(m, (2, 2, 3), (2, 3, 4)),
    "size_six": lambda m: _ag(m, (2, 2, 3), [2, 3, 4, 5, 6, 7]),
    "size_batch": lambda m: _ag(m, (2, 2, 3), (3, 3, 4, 5)),
    "size_batch_3d": lambda m: _ag(m, (2, 3, 4), (1, 3, 4, 5, 6)),
    "size_zero": lambda m: _ag(m, (2, 2, 3), (2, 3, 0, 5)),
    "size_zero_aligned": lambda m: _ag(m, (2, 2, 3), (2, 3, 0, 5), align_corners=True),
    "size_zero_channels": lambda m: _ag(m, (2, 2, 3), (2, 0, 4, 5)),
    "size_negative": lambda m: _ag(m, (2, 2, 3), (2, -1, 4, 5)),
    "size_float": lambda m: _ag(m, (2, 2, 3), (2, 3, 4.0, 5)),
    "empty_batch": lambda m: _ag(m, (0, 2, 3), (0, 3, 4, 5)),
}

# Recorded from torch 2.13 (dtype names as torch prints them).
RECORDED: dict[str, tuple[type[Exception], str]] = {
    "mode": (
        ValueError,
        "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
        "but got: 'foo'",
    ),
    "mode_none": (
        ValueError,
        "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
        "but got: 'None'",
    ),
    "padding": (
        ValueError,
        "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
        "'reflection', but got: 'foo'",
    ),
    "grid_dtype": (RuntimeError, "expected scalar type Float but found Double"),
    "input_dtype": (RuntimeError, "expected scalar type Double but found Float"),
    "half_grid": (RuntimeError, "expected scalar type Float but found Half"),
    "integers": (
        NotImplementedError,
        "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'",
    ),
    "bools": (
        NotImplementedError,
        "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Bool'",
    ),
    "integer_input": (
        NotImplementedError,
        "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'",
    ),
    "integer_grid": (RuntimeError, "expected scalar type Float but found Long"),
    "integers_3d": (NotImplementedError, "\"grid_sampler3d_cpu\" not implemented for 'Long'"),
    "batch": (
        RuntimeError,
        "grid_sampler(): expected grid and input to have same batch size, but got input with "
        "sizes [2, 3, 4, 5] and grid with sizes [1, 3, 4, 2]",
    ),
    "last_dim": (
        RuntimeError,
        "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes "
        "[2, 3, 4, 1]",
    ),
    "three_dims": (
        RuntimeError,
        "grid_sampler(): expected grid to have size 1 in last dimension, but got grid with sizes "
        "[3, 4, 2]",
    ),
    "grid_three_dims": (
        RuntimeError,
        "grid_sampler(): expected grid and input to have same batch size, but got input with "
        "sizes [2, 3, 4, 5] and grid with sizes [3, 4, 2]",
    ),
    "empty_spatial": (
        RuntimeError,
        "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
        "sizes [2, 3, 0, 5] with dimension 2 being empty",
    ),
    "bicubic_3d": (RuntimeError, "grid_sampler(): bicubic interpolation only supports 4D input"),
    "3d_last_dim": (
        RuntimeError,
        "grid_sampler(): expected grid to have size 3 in last dimension, but got grid with sizes "
        "[2, 3, 4, 5, 2]",
    ),
    "six_dims": (
        RuntimeError,
        "grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
        "input with sizes [2, 3, 1, 1, 4, 5] and grid with sizes [2, 3, 4, 5, 3, 4]",
    ),
    "grid_list": (
        TypeError,
        "grid_sampler(): argument 'grid' (position 2) must be Tensor, not list",
    ),
    "align_int": (
        TypeError,
        "grid_sampler(): argument 'align_corners' (position 5) must be bool, not int",
    ),
    "theta_int": (ValueError, "Expected theta to have floating point type, but got torch.int64"),
    "theta_2d_for_3d": (
        ValueError,
        "Expected a batch of 3D affine matrices of shape Nx3x4 for size (2, 3, 4, 5, 6). Got "
        "torch.Size([2, 2, 3]).",
    ),
    "theta_3d_for_2d": (
        ValueError,
        "Expected a batch of 2D affine matrices of shape Nx2x3 for size (2, 3, 4, 5). Got "
        "torch.Size([2, 3, 4]).",
    ),
    "theta_matrix": (
        ValueError,
        "Expected a batch of 2D affine matrices of shape Nx2x3 for size (2, 3, 4, 5). Got "
        "torch.Size([2, 3]).",
    ),
    "size_three": (
        NotImplementedError,
        "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
        "respectively. Got size (2, 3, 4).",
    ),
    "size_six": (
        NotImplementedError,
        "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
        "respectively. Got size [2, 3, 4, 5, 6, 7].",
    ),
    "size_batch": (
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [3, 3] but got: [2, 3].",
    ),
    "size_batch_3d": (
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [1, 4] but got: [2, 4].",
    ),
    "size_zero": (ValueError, "Expected non-zero, positive output size. Got (2, 3, 0, 5)"),
    "size_zero_aligned": (ValueError, "Expected non-zero, positive output size. Got (2, 3, 0, 5)"),
    "size_zero_channels": (ValueError, "Expected non-zero, positive output size. Got (2, 0, 4, 5)"),
    "size_negative": (ValueError, "Expected non-zero, positive output size. Got (2, -1, 4, 5)"),
    "size_float": (
        TypeError,
        "affine_grid_generator(): argument 'size' failed to unpack the object at pos 3 with "
        'error "type must be tuple of ints,but got float"',
    ),
    "empty_batch": (ValueError, "Expected non-zero, positive output size. Got (0, 3, 4, 5)"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_matches_torch(torch: Any, case: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert error_of(lambda: ERRORS[case](chainrule)) == error_of(lambda: ERRORS[case](torch))


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_as_recorded(case: str) -> None:
    kind, message = RECORDED[case]
    with pytest.raises(kind) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ERRORS[case](chainrule)
    assert as_torch_text(str(caught.value)) == message
