"""Linear layers as functions: linear and bilinear.

`linear` on a matrix is one op, PyTorch's addmm: `bias + input @ weight.T`.
"""

from __future__ import annotations

from ... import _dtype
from ..._dtype import scalar_name
from ..._ops.linalg.fused_products import checked_addmm
from ..._tensor import Tensor

__all__ = ["bilinear", "linear"]


# --- linear, bilinear ---------------------------------------------------------------------


def _check_bias(bias: Tensor, rows: int, cols: int) -> None:
    """PyTorch's message when the bias does not broadcast to the (rows, cols) output."""
    have = bias._data.shape
    target = (rows, cols)
    if len(have) > 2:
        raise RuntimeError(
            f"The expanded size of the tensor ({cols}) must match the existing size "
            f"({have[-1]}) at non-singleton dimension 1.  Target sizes: {list(target)}.  "
            f"Tensor sizes: {list(have)}"
        )
    for i in range(1, len(have) + 1):
        if have[-i] != 1 and have[-i] != target[-i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[-i]}) must match the existing size "
                f"({have[-i]}) at non-singleton dimension {2 - i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(have)}"
            )


def _addmm_checked(bias: Tensor, input: Tensor, weight: Tensor) -> Tensor:
    rows, inner = input._data.shape
    cols, k = weight._data.shape
    if inner != k:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and {k}x{cols})"
        )
    if bias.dtype is not weight.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {scalar_name(bias)} and "
            f"{scalar_name(weight)}"
        )
    if input.dtype is not weight.dtype:
        names = " != ".join(_dtype.c_type_name(t) for t in (input, weight))
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {names}")
    _check_bias(bias, rows, cols)
    return checked_addmm(bias, input, weight.t(), 1, 1)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, over any leading dims of input."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
            f"{weight.ndim}D"
        )
    if bias is None:
        return input.matmul(weight.t())
    if weight.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {weight.ndim}-D tensor")
    if input.ndim == 2:
        return _addmm_checked(bias, input, weight)
    # Other shapes go through a matrix, as in PyTorch (its graph shows the two views).
    flat = input.reshape(-1, input._data.shape[-1])
    out = _addmm_checked(bias, flat, weight)
    return out.reshape(*input._data.shape[:-1], weight._data.shape[0])


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    a, b, w = input1._data.shape, input2._data.shape, weight._data.shape
    if input1.ndim != input2.ndim:
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}"
        )
    for d, (x, y) in enumerate(zip(a[:-1], b[:-1], strict=True)):
        if x != y:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got {x} and {y}"
            )
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.ndim}D")
    if a[-1] != w[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {a[-1]} but expected {w[1]}"
        )
    if b[-1] != w[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {b[-1]} but expected {w[2]}"
        )
    # (..., 1, 1, I) @ (O, I, J) -> (..., O, 1, J), then contract J with input2.
    left = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight).squeeze(-2)
    out = (left * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias
