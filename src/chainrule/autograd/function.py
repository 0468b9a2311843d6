"""Custom differentiable functions: subclass `Function`, write `forward` and `backward`.

As in PyTorch, the `ctx` a Function's forward receives *is* its backward node
(`<Name>Backward`, in this module), so `y.grad_fn.saved_tensors` and
`y.grad_fn.apply(g)` work on the output's `grad_fn`.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .._autograd import grad_mode
from .._autograd import tangents as _tangents
from .._autograd.node import SECOND_BACKWARD_MESSAGE, Node, flat_edges, node_watchers
from .._backward.saved import RawSavedTensor, SavedTensor
from .._creation import zeros, zeros_like
from .._ops.inplace import LEAF_VIEW_INPLACE, rebase, remake_views
from .._ops.view_errors import check_view_write
from .._tensor import Tensor

__all__ = [
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "FunctionMeta",
    "InplaceFunction",
    "NestedIOFunction",
    "once_differentiable",
]


class FunctionCtx:
    """What `forward` can record for `backward`: saved tensors and flags."""

    def save_for_backward(self, *tensors: Any) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    _saved_for_forward: tuple[Any, ...] | None = None

    def save_for_forward(self, *tensors: Any) -> None:
        """Tensors `jvp` will read as `ctx.saved_tensors` (forward mode)."""
        self._saved_for_forward = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        # PyTorch's messages end this way (their argument index is missing).
        _check_tensors(tensors, "mark_dirty can only accept variables, but argument ")
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        _check_tensors(tensors, "mark_non_differentiable only accepts variable arguments, but got ")
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


def _check_tensors(tensors: tuple[Any, ...], message: str) -> None:
    if not all(isinstance(t, Tensor) for t in tensors):
        raise RuntimeError(message)


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one call of a custom Function."""

    _forward_cls: type[Function]

    def __init__(self) -> None:
        super().__init__(())
        self._to_save: tuple[Any, ...] = ()
        self._saved: list[SavedTensor | None] | None = []
        self._dirty: tuple[Any, ...] = ()
        self._non_differentiable: tuple[Any, ...] = ()
        self.materialize_grads = True
        self.needs_input_grad: tuple[bool, ...] = ()
        self._input_meta: tuple[Any, ...] = ()
        self._output_meta: tuple[Any, ...] = ()
        self._tensor_positions: list[int] = []
        self._saved_for_forward = None
        self._in_jvp = False
        self._cleared = False  # saved_tensors read once under clear_saved_tensors_on_access

    def __repr__(self) -> str:
        cls = type(self)
        return f"<{cls.__module__}.{cls.__qualname__} object at {id(self):#x}>"

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        if self._in_jvp and self._saved_for_forward is not None:
            return tuple(self._saved_for_forward)
        if self._cleared:
            raise RuntimeError(_READ_ONCE_MESSAGE)
        if self._saved is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        tensors = tuple(s.unpack(self) if s is not None else None for s in self._saved)
        if self._forward_cls.clear_saved_tensors_on_access:
            self._saved, self._cleared = [], True  # the caller's names hold them now
        return tensors

    saved_variables = saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple[RawSavedTensor | None, ...]:
        """The saved tensors as objects to set hooks on (`register_hooks`), as PyTorch."""
        if self._saved is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        return tuple(RawSavedTensor(self, s) if s is not None else None for s in self._saved)

    def apply(self, *grad_outputs: Any) -> Any:
        """Call the user's backward directly (grad mode as it is now)."""
        return self._call_backward(grad_outputs)

    def _call_backward(self, grads: Sequence[Any]) -> Any:
        """The user's `backward` (or `vjp`, its other name): with the grad_outputs as
        arguments, or as one list it may empty as it goes (`boxed_grads_call`)."""
        cls = self._forward_cls
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        user_fn = vjp if vjp is not Function.vjp else backward
        if cls.boxed_grads_call:
            return user_fn(self, list(grads))
        return user_fn(self, *grads)

    def _apply(
        self, grad_outputs: list[Any], needed: Sequence[bool] | None = None
    ) -> Sequence[Any]:
        grads = list(grad_outputs) + [None] * (len(self._output_meta) - len(grad_outputs))
        if self.materialize_grads:
            # Non-tensor outputs (no dtype) keep a None gradient.
            grads = [
                zeros(shape, dtype=dtype) if g is None and dtype is not None else g
                for g, (shape, dtype) in zip(grads, self._output_meta, strict=True)
            ]
        result = self._call_backward(grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_inputs = len(self._tensor_positions)
        if len(result) < len(self.needs_input_grad) or (
            len(result) > len(self.needs_input_grad)
            and any(r is not None for r in result[len(self.needs_input_grad) :])
        ):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{len(self.needs_input_grad)}, got {len(result)})"
            )
        picked = [result[i] for i in self._tensor_positions]
        assert len(picked) == n_inputs
        return picked

    def _release(self) -> None:
        self._saved = None


class FunctionMeta(type):
    """Gives each Function subclass its own node class, `<Name>Backward`."""

    def __init__(cls, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> None:
        backward_cls = type(
            name + "Backward",
            (BackwardCFunction,),
            {"_forward_cls": cls, "__module__": __name__, "__qualname__": name + "Backward"},
        )
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class of custom differentiable functions; call them with `MyFn.apply(...)`."""

    _backward_cls: type[BackwardCFunction]

    # Class options: reading ctx.saved_tensors in backward lets them go (it can be read
    # once); backward receives its grad_outputs as one list instead of as arguments.
    clear_saved_tensors_on_access = False
    boxed_grads_call = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward mode: the outputs' tangents from the inputs' (`ctx.save_for_forward`)."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        ctx = cls._backward_cls()
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx._tensor_positions = positions
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        recording = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        inputs = [args[i] for i in positions]
        # Where the inputs' gradients go, taken before the forward can write into them.
        edges = [t._gradient_edge() if t._requires_grad else (None, 0) for t in inputs]
        uses_setup = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad(), _tangents._no_push():  # the Function's jvp gives tangents
            if uses_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(output, tuple)
        raw = (output,) if single else output
        if not all(_among(t, raw) for t in ctx._dirty):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function."
            )
        for t in ctx._dirty:
            if grad_mode.is_grad_enabled() and _no_grad_view_of_grad(t):
                raise RuntimeError(LEAF_INPLACE_FUNCTION)
            if recording and t.is_floating_point() and not _among(t, ctx._non_differentiable):
                _check_dirty(t, len(raw))  # PyTorch checks the outputs it differentiates
        for t in ctx._dirty:  # the in-place change the forward made counts as one more
            t._version_counter.value += 1
        outputs = tuple(_own_output(o, args, ctx, recording) for o in raw)
        if recording:
            _connect(ctx, edges, inputs, outputs, raw)
            for t in ctx._dirty:  # the other views of a written tensor now follow ctx
                remake_views(t)
        else:
            ctx._saved = [_save(t, ()) for t in ctx._to_save]
        ctx._to_save = ()
        if _tangents._active:
            _push_forward(cls, ctx, args, outputs)
        return outputs[0] if single else outputs


class InplaceFunction(Function):
    """A Function whose instances carry an `inplace` flag (kept for old code; use Function)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """The pre-1.0 Function taking nested inputs through instance methods `forward_extended`
    and `backward_extended`. Kept as a name only: as in PyTorch 2.x, it can be made but not
    called, because the legacy machinery it builds on is gone."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AttributeError("'super' object has no attribute '_do_forward'")


def _push_forward(
    cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], outputs: tuple[Any, ...]
) -> None:
    """Forward mode through a custom Function: its `jvp` maps input tangents to output ones."""
    tangents = [_tangents.tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    if cls.jvp is Function.jvp:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )
    if ctx.materialize_grads:  # tensors without a tangent get zeros, as PyTorch passes them
        tangents = [
            zeros_like(a) if t is None and isinstance(a, Tensor) and a.is_floating_point() else t
            for a, t in zip(args, tangents, strict=True)
        ]
    ctx._in_jvp = True
    try:
        result = _tangents._without_push(lambda: cls.jvp(ctx, *tangents))
    finally:
        ctx._in_jvp = False
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outputs):
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(outputs)} but got {len(result)})"
        )
    for out, tangent in zip(outputs, result, strict=True):
        if not isinstance(out, Tensor) or tangent is None or not out.is_floating_point():
            continue
        if _among(out, ctx._non_differentiable):
            continue
        if tangent._data.shape != out._data.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(out.shape)} "
                f"while the given forward gradient is of size {list(tangent.shape)}."
            )
        _tangents.set_tangent(out, tangent)


def _own_output(out: Any, args: tuple[Any, ...], ctx: BackwardCFunction, recording: bool) -> Any:
    """An input returned unchanged (and not marked dirty) comes back as a new alias.

    Without a graph being recorded, a dirty input that requires grad also comes
    back as an alias (one that does not require grad), as in PyTorch.
    """
    if not isinstance(out, Tensor) or not _among(out, args):
        return out
    if not _among(out, ctx._dirty) or (not recording and out._requires_grad):
        alias = Tensor._make(out._data)
        alias._version_counter = out._version_counter
        return alias
    return out


def _connect(
    ctx: BackwardCFunction,
    edges: list[tuple[Node | None, int]],
    inputs: list[Any],
    outputs: tuple[Any, ...],
    raw: tuple[Any, ...],
) -> None:
    """Make `outputs` (`raw`, what forward returned, after aliasing) outputs of `ctx`,
    whose inputs' gradients go to `edges`."""
    ctx._next = flat_edges(edges)
    ctx._input_meta = tuple((t._data.shape, t._data.dtype) for t in inputs)
    meta: list[tuple[Any, Any]] = []
    for nr, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            meta.append(((), None))
            continue
        meta.append((out._data.shape, out.dtype))
        if _among(raw[nr], ctx._non_differentiable):
            continue
        if not out.is_floating_point():
            continue
        if _among(out, ctx._dirty):
            # As an in-place op: a written view puts ctx into its base (CopySlices).
            rebase(out, Tensor._make(out._data, True, ctx, nr))
        else:
            out._grad_fn, out._output_nr, out._requires_grad = ctx, nr, True
    ctx._output_meta = tuple(meta)
    ctx._saved = [_save(t, outputs) for t in ctx._to_save]
    if node_watchers:
        for watch in node_watchers:
            watch(ctx, [o for o in outputs if isinstance(o, Tensor)])


def _check_dirty(t: Tensor, count: int) -> None:
    """What PyTorch refuses to see modified in place by a Function that records a graph
    and returns `count` outputs."""
    check_view_write(t, records=True)
    base = t._base
    if base is None and t._grad_fn is None and t._requires_grad:
        raise RuntimeError(LEAF_INPLACE_FUNCTION)
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError(LEAF_VIEW_INPLACE)
    if base is not None and count > 1:
        raise RuntimeError(_VIEW_WITH_OUTPUTS_MESSAGE)


def _no_grad_view_of_grad(t: Tensor) -> bool:
    """A view made without grad mode of a tensor that requires grad: in PyTorch, a leaf that
    requires grad (refused as one when a Function marks it dirty)."""
    base = t._base
    return base is not None and base._requires_grad and t.__dict__.get("_no_grad_view") == ""


LEAF_INPLACE_FUNCTION = "a leaf Variable that requires grad has been used in an in-place operation."
_VIEW_WITH_OUTPUTS_MESSAGE = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() "
    "for example) or make your Function only return one Tensor (potentially splitting it into "
    "two Functions: one doing the inplace that returns a single Tensor and a second one that "
    "does the other operations). You can ask on the forum https://discuss.pytorch.org/ if you "
    "need help to do this change."
)


def _among(t: Any, items: Sequence[Any]) -> bool:
    """Membership by identity (`in` would compare tensors elementwise)."""
    return any(t is item for item in items)


def _save(t: Any, outputs: tuple[Any, ...]) -> SavedTensor | None:
    if t is None:
        return None
    return SavedTensor(t, is_output=_among(t, outputs))


_READ_ONCE_MESSAGE = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set "
    "on the autograd.Function. Either access saved_tensors only once, or set "
    "clear_saved_tensors_on_access=False."
)

ONCE_DIFFERENTIABLE_MESSAGE = (
    "trying to differentiate twice a function that was marked with @once_differentiable"
)


class Error(Node):
    """Stands in the graph of a once-differentiable backward's results; raises if reached."""

    def _apply(self, grad_outputs: list[Any], needed: Sequence[bool] | None = None) -> Any:
        raise RuntimeError(ONCE_DIFFERENTIABLE_MESSAGE)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a backward with grad mode off: its results cannot be differentiated again.

    When a graph is being built (create_graph) and a grad_output requires grad,
    the results come back requiring grad through an `Error` node, so that a
    later backward through them raises, as in PyTorch.
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with grad_mode.no_grad():
            result = fn(ctx, *args)
        if not grad_mode.is_grad_enabled() or not any(
            isinstance(a, Tensor) and a._requires_grad for a in args
        ):
            return result
        single = not isinstance(result, tuple)
        results = (result,) if single else result
        edges = []
        for r in results:
            if isinstance(r, Tensor):  # a fresh leaf per result, as PyTorch's DelayedError
                edges.append(Tensor._make(r._data, True)._gradient_edge())
        err = Error(tuple(edges))
        wrapped: list[Any] = []
        for r in results:
            if isinstance(r, Tensor) and r.is_floating_point():
                wrapped.append(Tensor._make(r._data, True, err, len(wrapped)))
            else:
                wrapped.append(r)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper
