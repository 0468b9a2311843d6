"""`backward` and `grad`: a backward pass from outputs, accumulated into `.grad` or returned."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._backward.engine import run_backward
from .._creation import zeros_like
from .._ops.shape.views import stack
from .._size import Size
from .._tensor import Tensor
from ._gradient_edge import GradientEdge, edge_meta

__all__ = ["as_outputs", "backward", "grad", "input_edge", "root_edges"]


Output = Tensor | GradientEdge


def as_outputs(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, Tensor | GradientEdge):  # an edge is a tuple, but stands for one tensor
        return (x,)
    if type(x) is dict:
        return tuple(x.values())
    return tuple(x)


def _as_grad_tuple(grads: Any, n_outputs: int) -> tuple[Any, ...]:
    """The user's gradients argument as a tuple: None for each output, a Tensor alone, or
    a sequence (a number fails here, as in PyTorch)."""
    if grads is None:
        return (None,) * n_outputs
    if isinstance(grads, Tensor):
        return (grads,)
    return tuple(grads)


def _output_meta(out: Output) -> tuple[Any, Any]:
    """(shape, dtype) of an output; (None, None) for an edge whose tensor is unknown."""
    if isinstance(out, GradientEdge):
        return edge_meta(out) or (None, None)
    return out._data.shape, out.dtype


def _root_grads(
    outputs: Sequence[Output], grads: Sequence[Any], batched: bool = False
) -> list[Tensor]:
    """Check the gradients given for `outputs`; an omitted one is 1 for a scalar output.

    `batched`: each gradient has one more leading dim than its output (is_grads_batched).
    """
    out_grads = []
    # zip stops at the shorter (as PyTorch): the count is checked after the loop.
    for i, (out, g) in enumerate(zip(outputs, grads, strict=False)):
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        shape, dtype = _output_meta(out)
        if isinstance(g, Tensor):
            first = g._data.shape[1:] if batched else g._data.shape
            if shape is not None and first != shape:
                _shape_mismatch(i, first, shape, batched)
            if dtype is not None and g.dtype != dtype:
                g = g.to(dtype)
        elif isinstance(out, GradientEdge) or out._requires_grad:
            if shape is None or _numel(shape) != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not dtype.is_floating_point:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {dtype!r}"
                )
            # ones_like(out), without its argument handling: this runs on every backward.
            g = Tensor._make(np.ones(shape, dtype.np))
        out_grads.append(g)
    if len(out_grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(out_grads)} gradients")
    return out_grads


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _shape_mismatch(i: int, grad_shape: Any, out_shape: Any, batched: bool) -> None:
    if batched:
        # PyTorch's message drops the batch dim twice: grad[0]'s shape without its first dim.
        raise RuntimeError(
            "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
            "as the batch dimension. The sizes of the remaining dimensions are expected to "
            "match the shape of corresponding output, but a mismatch was detected: "
            f"grad_output[{i}] has a shape of {Size(grad_shape[1:])!r} and output[{i}] has a "
            f"shape of {Size(out_shape)!r}. If you only want some tensors in `grad_output` to "
            "be considered batched, consider using vmap."
        )
    raise RuntimeError(
        f"Mismatch in shape: grad_output[{i}] has a shape of {Size(grad_shape)!r} and "
        f"output[{i}] has a shape of {Size(out_shape)!r}."
    )


def root_edges(outputs: Sequence[Output]) -> list[tuple[Any, int]]:
    edges = []
    for i, out in enumerate(outputs):
        if isinstance(out, GradientEdge):
            edges.append((out.node, out.output_nr))
            continue
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        edges.append(out._gradient_edge())
    return edges


def input_edge(t: Output) -> tuple[Any, int]:
    return (t.node, t.output_nr) if isinstance(t, GradientEdge) else t._gradient_edge()


def backward(
    tensors: Output | Sequence[Output],
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Output | Sequence[Output] | None = None,
) -> None:
    """Accumulate into leaves' `.grad` the vector-Jacobian products of `tensors`.

    `grad_tensors` are the vectors (one per tensor; omitted ones default to 1 for
    scalar outputs). With `inputs`, only those tensors accumulate a gradient.
    Outputs and inputs may be `GradientEdge`s in place of tensors.
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = as_outputs(tensors)
    if inputs is not None:
        inputs_t = as_outputs(inputs)
        if len(inputs_t) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    else:
        inputs_t = ()
    root_grads = _root_grads(outputs, _as_grad_tuple(grad_tensors, len(outputs)))
    roots = root_edges(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    captures = None
    if inputs_t:
        # As PyTorch: a non-leaf input retains its grad (from now on), which is how its
        # .grad gets filled; an input that does not require grad fails here.
        for t in inputs_t:
            if isinstance(t, Tensor):
                t.retain_grad()
        captures = [input_edge(t) for t in inputs_t]
    run_backward(roots, root_grads, retain_graph, create_graph, captures)


def grad(
    outputs: Output | Sequence[Output],
    inputs: Output | Sequence[Output] | dict[str, Tensor],
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> Any:
    """The vector-Jacobian products of `outputs` with respect to `inputs`, as a tuple (a
    dict for a dict of inputs). Unlike `backward`, nothing is accumulated into `.grad`.

    Outputs and inputs may be `GradientEdge`s in place of tensors. With
    `is_grads_batched`, each grad_output's first dim is a batch: one product per entry,
    stacked (computed one after another).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = as_outputs(outputs)
    ins = as_outputs(inputs)
    gouts = _as_grad_tuple(grad_outputs, len(outs))
    for t in ins:
        if not isinstance(t, Tensor | GradientEdge):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(t).__name__}")
    root_grads = _root_grads(outs, gouts, is_grads_batched)
    roots = root_edges(outs)  # outputs are checked before inputs, as in PyTorch
    for t in ins:
        if isinstance(t, Tensor) and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    captures = [input_edge(t) for t in ins]
    if is_grads_batched:
        result = _batched(roots, root_grads, retain_graph, create_graph, captures)
    else:
        result = run_backward(
            roots, root_grads, retain_graph, create_graph, captures, accumulate=False
        )
    out: list[Tensor | None] = []
    for i, (t, g) in enumerate(zip(ins, result, strict=True)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                if isinstance(t, GradientEdge):
                    raise RuntimeError(
                        "materialize_grads cannot be used when the given input is a GradientEdge"
                    )
                g = zeros_like(t, requires_grad=create_graph)
        out.append(g)
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), out, strict=True))
    return tuple(out)


def _batched(
    roots: list[tuple[Any, int]],
    root_grads: list[Tensor],
    retain_graph: bool,
    create_graph: bool,
    captures: list[tuple[Any, int]],
) -> list[Tensor | None]:
    """One backward per entry of the grad_outputs' first dim, the results stacked."""
    size = root_grads[0]._data.shape[0] if root_grads else 0
    rows: list[list[Tensor | None]] = []
    for k in range(size):
        last = k == size - 1
        grads = [g[k] for g in root_grads]
        rows.append(
            run_backward(
                roots, grads, retain_graph or not last, create_graph, captures, accumulate=False
            )
        )
    return [
        None if not rows or rows[0][i] is None else stack([r[i] for r in rows])  # type: ignore[misc]
        for i in range(len(captures))
    ]
