"""`backward` and `grad`: a backward pass from outputs, accumulated into `.grad` or returned."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._backward.engine import run_backward
from .._creation import zeros_like
from .._tensor import Tensor

__all__ = ["backward", "grad"]


def _as_tuple(x: Any) -> tuple[Any, ...]:
    """Tensors given alone, in a sequence, or as the values of a dict (`named_parameters`)."""
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, dict):
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


def _root_grads(outputs: Sequence[Tensor], grads: Sequence[Any]) -> list[Tensor]:
    """Check the gradients given for `outputs`; an omitted one is 1 for a scalar output."""
    out_grads = []
    # zip stops at the shorter (as PyTorch): the count is checked after the loop.
    for i, (out, g) in enumerate(zip(outputs, grads, strict=False)):
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if isinstance(g, Tensor):
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and "
                    f"output[{i}] has a shape of {out.shape!r}."
                )
            if g._data.dtype != out._data.dtype:
                g = g.to(out.dtype)
        elif out._requires_grad:
            data = out._data
            if data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if data.dtype.kind != "f":
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{out.dtype!r}"
                )
            # ones_like(out), without its argument handling: this runs on every backward.
            g = Tensor._make(np.ones(data.shape, data.dtype))
        out_grads.append(g)
    if len(out_grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(out_grads)} gradients")
    return out_grads


def _root_edges(outputs: Sequence[Tensor]) -> list[tuple[Any, int]]:
    edges = []
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        edges.append(out._gradient_edge())
    return edges


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Tensor | Sequence[Tensor] | dict[str, Tensor] | None = None,
) -> None:
    """Accumulate into leaves' `.grad` the vector-Jacobian products of `tensors`.

    `grad_tensors` are the vectors (one per tensor; omitted ones default to 1 for
    scalar outputs). With `inputs` (tensors, or a dict of them such as
    `dict(model.named_parameters())`), only those tensors accumulate a gradient.
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    if inputs is not None:
        inputs_t = _as_tuple(inputs)
        if len(inputs_t) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    else:
        inputs_t = ()
    root_grads = _root_grads(outputs, _as_grad_tuple(grad_tensors, len(outputs)))
    roots = _root_edges(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    captures = None
    if inputs_t:
        # As PyTorch: a non-leaf input retains its grad (from now on), which is how its
        # .grad gets filled; an input that does not require grad fails here.
        for t in inputs_t:
            t.retain_grad()
        captures = [t._gradient_edge() for t in inputs_t]
    run_backward(roots, root_grads, retain_graph, create_graph, captures)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor] | dict[str, Tensor],
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> Any:
    """The vector-Jacobian products of `outputs` with respect to `inputs`, as a tuple (a
    dict with the same keys when `inputs` is a dict, such as `dict(m.named_parameters())`).

    Unlike `backward`, nothing is accumulated into `.grad`.
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    gouts = _as_grad_tuple(grad_outputs, len(outs))
    for t in ins:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(t).__name__}")
    root_grads = _root_grads(outs, gouts)
    roots = _root_edges(outs)  # outputs are checked before inputs, as in PyTorch
    for t in ins:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    captures = [t._gradient_edge() for t in ins]
    result = run_backward(roots, root_grads, retain_graph, create_graph, captures, accumulate=False)
    out: list[Tensor | None] = []
    for i, (t, g) in enumerate(zip(ins, result, strict=True)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                g = zeros_like(t)
        out.append(g)
    if isinstance(inputs, dict):
        return dict(zip(inputs, out, strict=True))
    return tuple(out)
