"""Calling a Module: forward pre-hooks, `forward`, forward hooks, and backward hooks set up.

Full backward hooks work as in PyTorch: the module's tensor inputs, and then its
tensor outputs, pass through an identity autograd Function
(`BackwardHookFunctionBackward` in the graph). The hook on the outputs' node sees
grad_output first (running the backward pre-hooks); the hook on the inputs' node
then sees grad_input and runs the backward hooks with both.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..._autograd import grad_mode
from ..._autograd.node import Node
from ..._tensor import Tensor
from ...autograd.function import Function
from . import _module_hooks as hooks

if TYPE_CHECKING:
    from .module import Module

__all__ = ["call_impl", "wrapped_call_impl"]

Hook = Callable[..., Any]


def wrapped_call_impl(self: Module, *args: Any, **kwargs: Any) -> Any:
    if self._compiled_call_impl is not None:
        return self._compiled_call_impl(*args, **kwargs)
    return self._call_impl(*args, **kwargs)


def call_impl(self: Module, *args: Any, **kwargs: Any) -> Any:
    """`module(*args, **kwargs)`: `forward` with every hook that applies, in PyTorch's order."""
    if not (
        self._backward_hooks
        or self._backward_pre_hooks
        or self._forward_hooks
        or self._forward_pre_hooks
        or hooks.any_global_forward_or_backward_hook()
    ):
        return self.forward(*args, **kwargs)
    call = _HookedCall(self, args, kwargs)
    try:
        return call.run()
    except Exception:
        call.run_always_called_hooks()
        raise


class _HookedCall:
    """One call of a module that has hooks (what PyTorch's `_call_impl` does inline)."""

    def __init__(self, module: Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.module = module
        self.args = args
        self.kwargs = kwargs
        self.result: Any = None
        self.called: set[int] = set()  # the always-call hooks that have run

    def forward_hooks(self) -> list[tuple[int, Hook, bool, bool]]:
        """(id, hook, with_kwargs, always_call) for every forward hook, global ones first."""
        m = self.module
        out = []
        for hook_id, hook in hooks._global_forward_hooks.items():
            with_kwargs = hook_id in hooks._global_forward_hooks_with_kwargs
            always = hook_id in hooks._global_forward_hooks_always_called
            out.append((hook_id, hook, with_kwargs, always))
        for hook_id, hook in m._forward_hooks.items():
            with_kwargs = hook_id in m._forward_hooks_with_kwargs
            always = hook_id in m._forward_hooks_always_called
            out.append((hook_id, hook, with_kwargs, always))
        return out

    def run(self) -> Any:
        m = self.module
        backward_pre_hooks = m._get_backward_pre_hooks()
        full_hooks, non_full_hooks = m._get_backward_hooks()
        self.run_forward_pre_hooks()
        bw_hook = None
        if full_hooks or backward_pre_hooks:
            bw_hook = BackwardHook(m, full_hooks, backward_pre_hooks)
            self.args = bw_hook.setup_input_hook(self.args)
        self.result = m.forward(*self.args, **self.kwargs)
        for hook_id, hook, with_kwargs, always in self.forward_hooks():
            if always:
                self.called.add(hook_id)
            if with_kwargs:
                out = hook(m, self.args, self.kwargs, self.result)
            else:
                out = hook(m, self.args, self.result)
            if out is not None:
                self.result = out
        if bw_hook is not None:
            if not isinstance(self.result, Tensor | tuple):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a "
                    f"tuple of Tensors but received {type(self.result)}",
                    stacklevel=3,
                )
            self.result = bw_hook.setup_output_hook(self.result)
        if non_full_hooks:
            self.attach_non_full_backward_hooks(non_full_hooks)
        return self.result

    def run_forward_pre_hooks(self) -> None:
        m = self.module
        for hook_id, hook in (
            *hooks._global_forward_pre_hooks.items(),
            *m._forward_pre_hooks.items(),
        ):
            if hook_id in m._forward_pre_hooks_with_kwargs:
                out = hook(m, self.args, self.kwargs)
                if out is None:
                    continue
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, "
                        f"new_kwargs), but got {out}."
                    )
                self.args, self.kwargs = out
            else:
                out = hook(m, self.args)
                if out is not None:
                    self.args = out if isinstance(out, tuple) else (out,)

    def attach_non_full_backward_hooks(self, non_full_hooks: list[Hook]) -> None:
        """The deprecated backward hooks: hooks on the grad_fn of the first output tensor."""
        var = self.result
        while not isinstance(var, Tensor):
            var = (
                next(v for v in var.values() if isinstance(v, Tensor))
                if isinstance(var, dict)
                else var[0]
            )
        grad_fn = var.grad_fn
        if grad_fn is None:
            return
        m = self.module
        for hook in non_full_hooks:
            grad_fn.register_hook(_bind_module(hook, m))

    def run_always_called_hooks(self) -> None:
        """After `forward` (or a hook) raised: the always-call hooks that have not run yet."""
        m = self.module
        for hook_id, hook, with_kwargs, always in self.forward_hooks():
            if not always or hook_id in self.called:
                continue
            try:
                if with_kwargs:
                    out = hook(m, self.args, self.kwargs, self.result)
                else:
                    out = hook(m, self.args, self.result)
                if out is not None:
                    self.result = out
            except Exception as e:
                scope = "global module" if hook_id in hooks._global_forward_hooks else "module"
                warnings.warn(
                    f"{scope} forward hook with ``always_call=True`` raised an exception that "
                    f"was silenced as another error was raised in forward: {e}",
                    stacklevel=3,
                )


def _bind_module(hook: Hook, module: Module) -> Hook:
    def node_hook(grad_input: Any, grad_output: Any) -> Any:
        return hook(module, grad_input, grad_output)

    return node_hook


# --- full backward hooks ---------------------------------------------------------------


class BackwardHookFunction(Function):
    """The identity, recorded as a node: where a module's backward hooks attach."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        return grad_outputs


class BackwardHook:
    """The backward hooks of one module call: set up on its inputs, then its outputs."""

    def __init__(self, module: Module, user_hooks: list[Hook], user_pre_hooks: list[Hook]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None

    @staticmethod
    def _pack(indices: Sequence[int], values: Sequence[Any], size: int) -> tuple[Any, ...]:
        """Gradients of the tensor arguments, spread back to all arguments (None elsewhere)."""
        out: list[Any] = [None] * size
        # The engine may hand over fewer values than tensors (none for the trailing
        # outputs that are not differentiable): those have no gradient.
        for i, v in zip(indices, values, strict=False):
            out[i] = v
        return tuple(out)

    def _through_identity(
        self, args: tuple[Any, ...], attach: Callable[[Node], None]
    ) -> tuple[tuple[Any, ...], list[int] | None]:
        """Pass the tensor arguments through BackwardHookFunction and attach to its node."""
        indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in indices]
        if not (any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        if not new:
            raise RuntimeError(
                "Cannot set Module backward hook for a Module with no input Tensors."
            )
        nodes = [
            t.grad_fn
            for t in new
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        attach(nodes[0])
        out = list(args)
        for i, t in zip(indices, new, strict=True):
            out[i] = t
        return tuple(out), indices

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        res, self.input_tensors_index = self._through_identity(args, self._attach_input_hook)
        self.n_inputs = len(args)
        return res

    def _attach_input_hook(self, node: Node) -> None:
        def hook(grad_input: tuple[Any, ...], _: Any) -> Any:
            if self.grad_outputs is None:
                return None
            assert self.input_tensors_index is not None
            res = self._pack(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, "
                        f"got {len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)

        node.register_hook(hook)

    def setup_output_hook(self, result: Any) -> Any:
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_tensors_index = self._through_identity(args, self._attach_output_hook)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]

    def _attach_output_hook(self, node: Node) -> None:
        def hook(_: Any, grad_output: tuple[Any, ...]) -> Any:
            assert self.output_tensors_index is not None
            self.grad_outputs = self._pack(self.output_tensors_index, grad_output, self.n_outputs)
            for pre_hook in self.user_pre_hooks:
                new = pre_hook(self.module, self.grad_outputs)
                if new is None:
                    continue
                if len(new) != len(self.grad_outputs):
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, "
                        f"got {len(new)}, but expected {len(self.grad_outputs)}"
                    )
                self.grad_outputs = tuple(new)
            local = self.grad_outputs
            if self.input_tensors_index is None:
                # No input requires grad: the hooks run here, with no grad_input.
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect to "
                    "module outputs since no inputs require gradients. See "
                    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                    "#torch.nn.Module.register_full_backward_hook for more details.",
                    stacklevel=5,
                )
                grad_inputs = self._pack([], [], self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, grad_inputs, self.grad_outputs)
                    if out is not None and not (
                        isinstance(out, tuple) and all(g is None for g in out)
                    ):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient should "
                            "always return None or None for all gradients."
                        )
                self.grad_outputs = None
            return tuple(local[i] for i in self.output_tensors_index)

        node.register_hook(hook)
