"""Activation checkpointing: trade compute for memory.

`checkpoint(function, *args)` runs `function` without recording a graph, so
none of its intermediate tensors are kept. During backward the segment's
forward is run again, this time with grad enabled, and gradients flow through
that recomputed graph.

Gradients reach the tensors passed as arguments and the tensors requiring grad
that `function` closes over (closure cells, default values, `functools.partial`
arguments, bound-method owners, callable objects' attributes, lists, tuples and
dicts of these, and globals it reads by name), which matches PyTorch's non-reentrant variant for
the usual uses. Tensors reached any other way (e.g. through a module's
attributes) get no gradient.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .. import random
from .._tensor import Tensor
from ..autograd import grad as autograd_grad
from ..autograd import grad_mode
from ..autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential"]

_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants."
)


def _is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def _captured_leaves(obj: Any, depth: int = 0) -> list[Any]:
    """Tensors requiring grad that `obj` (a callable, or what it holds) can reach.

    Looks into closure cells, `functools.partial` arguments, bound-method owners,
    callable objects' attributes, and lists, tuples and dicts of these.
    """
    if _is_tensor(obj):
        return [obj] if obj._requires_grad else []
    if depth > 4 or isinstance(obj, (str, bytes, int, float, type)):
        return []
    values: list[Any] = []
    if isinstance(obj, (list, tuple)):
        values = list(obj)
    elif isinstance(obj, dict):
        values = list(obj.values())
    elif isinstance(obj, functools.partial):
        values = [obj.func, *obj.args, *obj.keywords.values()]
    elif inspect.ismethod(obj):
        values = [obj.__self__, obj.__func__]
    elif inspect.isfunction(obj):
        for cell in obj.__closure__ or ():
            with contextlib.suppress(ValueError):  # an empty cell raises
                values.append(cell.cell_contents)
        values.extend(obj.__defaults__ or ())
        values.extend((obj.__kwdefaults__ or {}).values())
        # Globals the function reads by name: only tensors and containers of them.
        for name in obj.__code__.co_names:
            value = obj.__globals__.get(name)
            if _is_tensor(value) or isinstance(value, (list, tuple, dict)):
                values.append(value)
    elif callable(obj) and hasattr(obj, "__dict__"):
        values = list(vars(obj).values())
    found: list[Any] = []
    for value in values:
        found.extend(_captured_leaves(value, depth + 1))
    return found


def _unique(tensors: Iterable[Any], exclude: Sequence[Any]) -> list[Any]:
    seen = {id(t) for t in exclude}
    out = []
    for t in tensors:
        if id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    return out


class CheckpointFunction(Function):
    """Forward without a graph; backward recomputes the forward and differentiates it."""

    @staticmethod
    def forward(
        ctx: Any, run: Callable[..., Any], preserve_rng_state: bool, n_args: int, *inputs: Any
    ) -> Any:
        ctx.run = run
        ctx.n_args = n_args
        ctx.rng_state = random.get_rng_state() if preserve_rng_state else None
        ctx.tensor_index = [i for i, a in enumerate(inputs) if _is_tensor(a)]
        ctx.others = [None if _is_tensor(a) else a for a in inputs]
        ctx.save_for_backward(*(inputs[i] for i in ctx.tensor_index))
        outputs = run(*inputs[:n_args])
        ctx.single = not isinstance(outputs, tuple)
        return outputs

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        create_graph = grad_mode.is_grad_enabled()
        inputs = list(ctx.others)
        for i, t in zip(ctx.tensor_index, ctx.saved_tensors, strict=True):
            inputs[i] = t
        # For a double backward the recomputed graph must reach the real inputs,
        # so they are used as they are; otherwise detached copies cut it short.
        args = [
            a.detach().requires_grad_(a.requires_grad) if _is_tensor(a) and not create_graph else a
            for a in inputs[: ctx.n_args]
        ]
        leaves = inputs[ctx.n_args :]
        with random.fork_rng(enabled=ctx.rng_state is not None):
            if ctx.rng_state is not None:
                random.set_rng_state(ctx.rng_state)
            with grad_mode.enable_grad():
                outputs = ctx.run(*args)
        if ctx.single:
            outputs = (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs, strict=False)
            if _is_tensor(o) and o.requires_grad and g is not None
        ]
        targets = [a for a in args if _is_tensor(a) and a.requires_grad]
        targets += [t for t in leaves if t.requires_grad]
        grads: list[Any] = [None] * len(targets)
        if pairs and targets:
            grads = list(
                autograd_grad(
                    [o for o, _ in pairs],
                    targets,
                    [g for _, g in pairs],
                    create_graph=create_graph,
                    allow_unused=True,
                )
            )
        found = iter(grads)
        result: list[Any] = [None, None, None]
        for a in [*args, *leaves]:
            result.append(next(found) if _is_tensor(a) and a.requires_grad else None)
        return tuple(result)


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """Run `function(*args, **kwargs)` keeping only its inputs; recompute it in backward.

    Both values of `use_reentrant` give the non-reentrant behaviour: gradients
    also reach tensors requiring grad that `function` closes over.
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)

    def run(*call_args: Any) -> Any:
        return function(*call_args, **kwargs)

    leaves = _captured_leaves([function, kwargs])
    leaves = _unique(leaves, exclude=[a for a in args if _is_tensor(a)])
    return CheckpointFunction.apply(run, preserve_rng_state, len(args), *args, *leaves)


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Any,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Split `functions` (a sequence of callables) into `segments` checkpointed runs.

    The last segment runs normally, as in PyTorch.
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            _Segment(functions[start : end + 1]),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return _Segment(functions[end + 1 :])(input)


class _Segment:
    """A run of callables applied one after another (its closures are searched for leaves)."""

    def __init__(self, layers: list[Any]) -> None:
        self.layers = layers

    def __call__(self, x: Any) -> Any:
        for f in self.layers:
            x = f(x)
        return x
