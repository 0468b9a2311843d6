"""Activation checkpointing: trade compute for memory.

`checkpoint(function, *args, use_reentrant=...)` keeps none of `function`'s
intermediate tensors; backward runs `function` again to get them. Two variants, as
in PyTorch:

- `use_reentrant=False` (recommended): the forward records its graph as usual but
  every tensor saved for backward is replaced by a placeholder, filled by rerunning
  the function when backward first needs one (`_checkpoint_hooks`). Gradients reach
  everything the function used; `autograd.grad`, double backward, `context_fn`,
  `determinism_check`, `debug` and early stop all work.
- `use_reentrant=True` (the default when not given, with a warning): a
  `CheckpointFunction` runs the function without a graph; its backward reruns it with
  grad on and calls `backward` on the result (a backward inside the backward), which
  accumulates into the parameters it reaches. It cannot serve `autograd.grad` or
  `backward(inputs=...)`.

With `preserve_rng_state` (the default) the rerun draws the same random numbers
from chainrule's default generator as the first run.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import random
from .._backward.saved import SavedTensor
from .._tensor import Tensor
from ..autograd import backward as autograd_backward
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.variable import Variable
from ._checkpoint_hooks import CheckpointError, Frame, checkpoint_hook, debug_context

__all__ = [
    "CheckpointError",
    "CheckpointFunction",
    "DefaultDeviceType",
    "SavedTensor",
    "check_backward_validity",
    "checkpoint",
    "checkpoint_sequential",
    "detach_variable",
    "get_device_states",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "set_device_states",
]

_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants."
)
_REENTRANT_NEEDS_WHOLE_GRAPH = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing "
    "an `inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument."
)
_SUPPRESSED = (
    "torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
    "exception raised during the checkpointed forward. This is not supported because "
    "checkpoint cannot return a value for a failed forward."
)

# Overrides set by the context managers below (None: each call's own argument decides).
_early_stop: bool | None = None
_debug: bool | None = None


# --- small public helpers ------------------------------------------------------------------


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each tensor detached, keeping whether it requires grad; other values as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            f"Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warn when no input requires grad: a reentrant checkpoint then gives no gradients."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


def get_device_states(*args: Any) -> tuple[list[int], list[Tensor]]:
    """The accelerators the tensor arguments live on and their random states: none here."""
    return [], []


def set_device_states(devices: list[int], states: list[Tensor], *, device_type: Any = None) -> None:
    """Restore what `get_device_states` gave (there is nothing to restore on the CPU)."""


class DefaultDeviceType:
    """The accelerator type checkpoint saves random states for when no input says one
    (until set: the current accelerator's, and there is none here, so "cpu")."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        if not DefaultDeviceType._default_device_type:
            DefaultDeviceType._default_device_type = "cpu"
        return DefaultDeviceType._default_device_type


def noop_context_fn() -> tuple[Any, Any]:
    """The default `context_fn`: neither run is wrapped in anything."""
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Whether non-reentrant checkpoints made inside stop recomputing once every saved tensor
    is back (True, the default) or rerun the whole function (False)."""
    global _early_stop
    prev = _early_stop
    _early_stop = enable
    try:
        yield
    finally:
        _early_stop = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """Turn checkpoint's `debug` on or off for every checkpoint inside (None: each call's)."""
    global _debug
    prev = _debug
    _debug = enabled
    try:
        yield
    finally:
        _debug = prev


# --- the reentrant variant -----------------------------------------------------------------


class CheckpointFunction(Function):
    """Forward without a graph; backward reruns the forward with grad on and backpropagates
    through that graph, accumulating into every leaf it reaches."""

    @staticmethod
    def forward(
        ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any
    ) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = random.get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        if not Variable._execution_engine.is_checkpoint_valid():
            raise RuntimeError(_REENTRANT_NEEDS_WHOLE_GRAPH)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors, strict=True):
            inputs[i] = t
        with random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                random.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs, strict=False)
            if isinstance(o, Tensor) and o.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(x.grad if isinstance(x, Tensor) else None for x in detached)
        return (None, None, *grads)


# --- checkpoint ------------------------------------------------------------------------------


def _shape_dtype_device(x: Tensor) -> dict[str, Any]:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM_CHECKS: dict[str, Callable[[Tensor], Any]] = {
    "default": _shape_dtype_device,
    "none": lambda _: None,
}


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """Run `function(*args, **kwargs)` keeping only its inputs; recompute it in backward.

    `context_fn` returns two context managers, for the forward and for the
    recomputation; `determinism_check` ("default" or "none") compares the shapes,
    dtypes and devices of what the two runs saved; `debug` adds the log of the nodes
    each run recorded to such an error; `early_stop` ends the recomputation once
    everything needed is back. These four need `use_reentrant=False`.
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(
        function, preserve, context_fn, determinism_check, debug, early_stop, args, kwargs
    )


def _checkpoint_without_reentrant(
    function: Callable[..., Any],
    preserve_rng_state: bool,
    context_fn: Callable[[], tuple[Any, Any]],
    determinism_check: str,
    debug: bool,
    early_stop: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    on_error = None
    if debug if _debug is None else _debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        context_fn, on_error = debug_context()
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got "
            f"{determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    rng_state = random.get_rng_state() if preserve_rng_state else None

    def recompute(*call_args: Any) -> None:
        with random.fork_rng(enabled=rng_state is not None):
            if rng_state is not None:
                random.set_rng_state(rng_state)
            with recompute_context:
                function(*call_args, **kwargs)

    frame = Frame(
        recompute,
        early_stop if _early_stop is None else _early_stop,
        _DETERMINISM_CHECKS[determinism_check],
        on_error,
    )
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)
    frame.save_inputs(args)
    failed = False
    with checkpoint_hook(frame), forward_context:
        try:
            result = function(*args, **kwargs)
        except BaseException:
            failed = True
            raise
    if failed:  # the context swallowed the exception: there is no result to return
        raise RuntimeError(_SUPPRESSED)
    frame.forward_done = True
    return result


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Any,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Split `functions` (a sequence of callables, or a module's children) into
    `segments` runs, checkpointing all but the last, as PyTorch does."""
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
    """A run of callables applied one after another."""

    def __init__(self, layers: list[Any]) -> None:
        self.layers = layers

    def __call__(self, x: Any) -> Any:
        for f in self.layers:
            x = f(x)
        return x
