"""Spatial transformers: affine_grid makes a sampling grid from affine matrices, and
grid_sample reads an input at a grid's points (bilinear, nearest or bicubic, with
zero, border or reflection padding), in 2-D and 3-D.

grid_sample is PyTorch's GridSampler{2,3}DBackward0: its two rules run one node
GridSampler{2,3}DBackwardBackward0 each (the input's gradient, or the grid's, from
the NumPy kernels of `_grid_sample_kernels`). The input's gradient is linear in the
gradient and its weights depend on the grid only, so that node's rules are grid
sampling again; the grid's gradient is differentiated in `_grid_sample_rules`.
affine_grid's gradient is PyTorch's composition: the base grid's transpose times the
gradient, as a bmm.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..._creation import linspace
from ..._dtype import scalar_name
from ..._ops.forward_mode import unsupported
from ..._ops.primitive import Primitive
from ..._tensor import Tensor
from . import _grid_sample_kernels as kernels
from . import _grid_sample_rules as rules
from ._spatial_common import shape_list

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


# --- grid_sample --------------------------------------------------------------------------


def _params(n: Any) -> dict[str, Any]:
    return {"mode": n.mode, "padding": n.padding, "align": n.align}


def _backward_forward(
    grad_output: np.ndarray, a: np.ndarray, grid: np.ndarray, wrt: str, **p: Any
) -> np.ndarray:
    if wrt == "input":
        return kernels.input_grad(grad_output, a.shape, grid, p["mode"], p["padding"], p["align"])
    return kernels.grid_grad(grad_output, a, grid, p["mode"], p["padding"], p["align"])


def _backward_grad_output(g: Tensor, n: Any) -> Tensor | None:
    if n.wrt == "input":  # the input's gradient is sampling's transpose: its own is sampling
        return _sampler[n.grid.ndim](g, n.grid, **_params(n))
    if n.mode == "nearest":
        return None
    return rules.grad_output_rule(n.input, n.grid, g, _params(n))


def _backward_input(g: Tensor, n: Any) -> Tensor | None:
    if n.wrt == "input" or n.mode == "nearest":
        return None
    return rules.input_rule(n.grad_output, tuple(n.input.shape), n.grid, g, _params(n))


def _backward_grid(g: Tensor, n: Any) -> Tensor | None:
    if n.wrt == "input":  # d<g, sampling's transpose>/d grid: the grid gradient of sampling g
        return _backward[n.grid.ndim](n.grad_output, g, n.grid, wrt="grid", **_params(n))
    if n.mode == "nearest":
        return None
    return rules.grid_rule(n.grad_output, n.input, n.grid, g, _params(n))


def _make_backward(k: int) -> Primitive:
    """The gradient of k-D grid sampling in its input or (`wrt="grid"`) its grid, as an op
    of (grad_output, input, grid)."""
    return Primitive(
        f"GridSampler{k}DBackwardBackward0",
        _backward_forward,
        inputs=("grad_output", "input", "grid"),
        grads=(_backward_grad_output, _backward_input, _backward_grid),
        formulas=(
            "grid_sample(grad, grid); of the grid's gradient: "
            "Σ taps input · (grad · ∂weight/∂grid)",
            "of the grid's gradient: grad_output · (grad · ∂weight/∂grid) added where taps read",
            "the grid gradient of grid_sample(grad) at grad_output; of the grid's gradient: "
            "Σ taps (grad_output · input) · ∂(grad · ∂weight/∂grid)/∂grid",
        ),
    )


def _make_sampler(k: int) -> Primitive:
    """k-D grid sampling of (input, grid); each rule is a node of its backward's op."""
    return Primitive(
        f"GridSampler{k}DBackward0",
        lambda a, grid, **p: kernels.forward(a, grid, p["mode"], p["padding"], p["align"]),
        inputs=("input", "grid"),
        grads=(
            lambda g, n: _backward[n.grid.ndim](
                g, n.input, n.grid, wrt="input", mode=n.mode, padding=n.padding, align=n.align
            ),
            lambda g, n: _backward[n.grid.ndim](
                g, n.input, n.grid, wrt="grid", mode=n.mode, padding=n.padding, align=n.align
            ),
        ),
        formulas=(
            "grad times each tap's weight, added where the tap reads",
            "Σ over channels and taps of grad · input · d weight / d grid",
        ),
        tangent=unsupported(f"grid_sampler_{k}d"),
    )


# Keyed by the grid's number of dims: 4 for 2-D sampling, 5 for 3-D.
_sampler = {k + 2: _make_sampler(k) for k in (2, 3)}
_backward = {k + 2: _make_backward(k) for k in (2, 3)}

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _check_sampling(input: Tensor, grid: Tensor, mode: str, align_corners: Any) -> None:
    """PyTorch's checks of grid_sampler's arguments, in its order."""
    if not isinstance(grid, Tensor):
        raise TypeError(
            f"grid_sampler(): argument 'grid' (position 2) must be Tensor, not "
            f"{type(grid).__name__}"
        )
    if not isinstance(align_corners, bool):
        raise TypeError(
            "grid_sampler(): argument 'align_corners' (position 5) must be bool, not "
            f"{type(align_corners).__name__}"
        )
    a, g = tuple(input.shape), tuple(grid.shape)
    if a[:1] != g[:1]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {shape_list(a)} and grid with sizes {shape_list(g)}"
        )
    if g[-1:] != (input.ndim - 2,):
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, "
            f"but got grid with sizes {shape_list(g)}"
        )
    for d in range(2, input.ndim):
        if a[d] <= 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {shape_list(a)} with dimension {d} being empty"
            )
    k = 4 if input.ndim == 4 else 5
    if input.ndim != k or grid.ndim != k:
        raise RuntimeError(
            f"grid_sampler(): expected {k}D input and grid with same number of dimensions, but "
            f"got input with sizes {shape_list(a)} and grid with sizes {shape_list(g)}"
        )
    if k == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input._data.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if k == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input)}'")
    if grid._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input)} but found {scalar_name(grid)}"
        )


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """The input `(N, C, H, W)` (or `(N, C, D, H, W)`) read at the points of `grid`
    `(N, H_out, W_out, 2)` (or `(N, D_out, H_out, W_out, 3)`): coordinates in [-1, 1],
    x (the last dim) first. -1 and 1 are the corner pixels' centres with
    `align_corners`, else the input's edges; points outside read `padding_mode`.
    """
    if mode not in _MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_sampling(input, grid, mode, align_corners)
    sample = _sampler[grid.ndim]
    return sample(input, grid, mode=mode, padding=padding_mode, align=align_corners)


# --- affine_grid --------------------------------------------------------------------------


def _steps(n: int, align: bool, like: Tensor) -> np.ndarray:
    """n positions from -1 to 1 (pixel centres, unless `align`: corner centres) as PyTorch
    lays them: 0 for a single one."""
    if n <= 1:
        return np.zeros(1, like._data.dtype)
    steps = linspace(-1, 1, n, dtype=like.dtype)
    if not align:
        steps = steps * (n - 1) / n
    return steps._data


def _base_grid(theta: Tensor, spatial: list[int], align: bool) -> np.ndarray:
    """(*spatial, k + 1): each point's coordinates, x (the last dim) first, then 1."""
    k = len(spatial)
    base = np.ones((*spatial, k + 1), theta._data.dtype)
    for i in range(k):
        shape = [1] * k
        shape[k - 1 - i] = spatial[k - 1 - i]
        base[..., i] = _steps(spatial[k - 1 - i], align, theta).reshape(shape)
    return base


def _affine_grad(g: Tensor, n: Any) -> Tensor:
    # PyTorch's: base_grid.view(N, P, k + 1).transpose(1, 2).bmm(grad.view(N, P, k)).transpose(1, 2)
    base = Tensor._make(n.base.reshape(-1, n.base.shape[-1]))
    count = g.shape[0]
    flat = g.view(count, base.shape[0], g.shape[-1])
    return base.expand(count, *base.shape).transpose(1, 2).bmm(flat).transpose(1, 2)


_affine_grid = Primitive(
    "AffineGridGeneratorBackward0",
    lambda theta, base, size: np.matmul(
        base.reshape(-1, base.shape[-1]), theta.swapaxes(1, 2)
    ).reshape(size[0], *base.shape[:-1], theta.shape[1]),
    inputs=("theta",),
    grads=(_affine_grad,),
    formulas=("(base_gridᵀ · grad)ᵀ",),
    tangent="linear",
)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid `(N, H, W, 2)` (or `(N, D, H, W, 3)`) of affine matrices `theta`
    `(N, 2, 3)` (or `(N, 3, 4)`) for an output of `size` `(N, C, H, W)` (or
    `(N, C, D, H, W)`): each matrix maps the output's normalised coordinates into the input's.
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    rows = len(size) - 2
    if rows in (2, 3):
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (rows, rows + 1):
            raise ValueError(
                f"Expected a batch of {rows}D affine matrices of shape Nx{rows}x{rows + 1} for "
                f"size {size}. Got {theta.shape}."
            )
        spatial = list(size[-rows:])
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    for i, s in enumerate(size):
        if not isinstance(s, int | np.integer):
            raise TypeError(
                "affine_grid_generator(): argument 'size' failed to unpack the object at pos "
                f'{i + 1} with error "type must be tuple of ints,but got '
                f'{type(s).__name__}"'
            )
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {rows + 1}] but got: [{theta.shape[0]}, {rows + 1}]."
        )
    base = _base_grid(theta, spatial, align_corners)
    return _affine_grid(theta, base=base, size=tuple(int(s) for s in size))
