"""`Module`, the base class of every layer: registration of parameters, buffers and submodules.

Note: how attributes work. A Module keeps its parameters, buffers and submodules
in three dicts (`_parameters`, `_buffers`, `_modules`), not in its `__dict__`.
`__setattr__` routes a Parameter, a Buffer or a Module (or None, or a Tensor for a
name already registered as a buffer) into the right dict and takes the name out of
the others; any other value is an ordinary attribute. `__getattr__`, which Python
calls only when normal lookup fails, then finds the name in those dicts.

The rest of Module's methods live beside this file by job and are bound in the
class body: walking the tree of submodules (`_module_tree`), calling and hooks
(`_module_call`, `_module_hooks`), `state_dict` and loading (`_module_state`),
dtype and device conversion (`_module_convert`).
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from ..._dtype import legacy_type_name
from ..._tensor import Tensor
from ..parameter import Buffer, Parameter
from . import _module_call, _module_convert, _module_hooks, _module_state, _module_tree
from ._module_hooks import (
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from ._module_state import _IncompatibleKeys

__all__ = [
    "Module",
    "_IncompatibleKeys",
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

T = TypeVar("T", bound="Module")

# The dicts of hooks every Module starts with, in PyTorch's order.
_HOOK_DICTS = (
    "_backward_pre_hooks",
    "_backward_hooks",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


def typename(obj: Any) -> str:
    """A value's type as PyTorch's messages name it: `torch.FloatTensor`, `int`, `a.b.C`."""
    if isinstance(obj, Tensor):
        return "torch." + legacy_type_name(obj).rpartition(".")[2]
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins") else f"{module}.{cls.__qualname__}"


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of `text` but the first by `spaces` (nested reprs)."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return "\n".join([first, *(pad + line for line in rest)])


def _forward_unimplemented(self: Module, *input: Any) -> Any:
    """The forward a Module has until a subclass defines one."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


def _check_member_name(module: Module, kind: str, name: Any, registry: dict[str, Any]) -> None:
    """PyTorch's checks on a parameter or buffer name, with its messages."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in registry:
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """The base class of every layer and model: subclass it and define `forward`."""

    dump_patches: bool = False
    # Saved in state_dict's `_metadata`; a subclass that changes its state bumps it.
    _version: int = 1
    call_super_init: bool = False
    _compiled_call_impl: Callable[..., Any] | None = None

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _is_full_backward_hook: bool | None
    _backward_pre_hooks: OrderedDict[int, Callable[..., Any]]
    _backward_hooks: OrderedDict[int, Callable[..., Any]]
    _forward_hooks: OrderedDict[int, Callable[..., Any]]
    _forward_hooks_with_kwargs: OrderedDict[int, bool]
    _forward_hooks_always_called: OrderedDict[int, bool]
    _forward_pre_hooks: OrderedDict[int, Callable[..., Any]]
    _forward_pre_hooks_with_kwargs: OrderedDict[int, bool]
    _state_dict_hooks: OrderedDict[int, Callable[..., Any]]
    _state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]]
    _load_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]]
    _load_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if not self.call_super_init and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # object.__setattr__ skips the routing below: these are plain attributes.
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_is_full_backward_hook", None)
        for name in _HOOK_DICTS:
            setattr_(name, OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # --- registering parameters, buffers and submodules ---------------------------------

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep `tensor` as state under `name` (in `state_dict` unless `persistent=False`)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name(self, "buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        tensor = _module_hooks.run_registration_hooks("buffer", self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add `param` (a Parameter, or None for an absent one) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name(self, "parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = _module_hooks.run_registration_hooks(
            "parameter", self, name, param
        )

    def add_module(self, name: str, module: Module | None) -> None:
        """Add `module` as a child under `name` (an attribute of that name finds it)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _module_hooks.run_registration_hooks("module", self, name, module)

    def register_module(self, name: str, module: Module | None) -> None:
        """The same as `add_module`."""
        self.add_module(name, module)

    # --- finding members by dotted name ---------------------------------------------------

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path `target` (`""` is this module)."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put `module` at dotted path `target`; `strict` requires the name to exist."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target`."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path `target`."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        buffer: Tensor = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buffer

    # --- attribute routing (see the Note at the top) ------------------------------------

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            members = d.get(registry)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "__dict__", "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "__dict__", "_parameters", "_buffers")
            self._modules[name] = _module_hooks.run_registration_hooks("module", self, name, value)
        elif name in d.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._modules[name] = _module_hooks.run_registration_hooks("module", self, name, value)
        elif isinstance(value, Buffer) or name in d.get("_buffers", ()):
            self._assign_buffer(name, value)
        else:
            super().__setattr__(name, value)

    def _forget(self, name: str, *registries: str) -> None:
        """Take `name` out of the given dicts (an attribute changing kind)."""
        for registry in registries:
            members = self.__dict__ if registry == "__dict__" else getattr(self, registry)
            members.pop(name, None)
        if "_buffers" in registries:
            self._non_persistent_buffers_set.discard(name)

    def _assign_buffer(self, name: str, value: Any) -> None:
        """`self.name = value` for a Buffer, or for a name that is already a buffer."""
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(
                f"cannot assign '{typename(value)}' as buffer '{name}' "
                "(torch.nn.Buffer, torch.Tensor or None expected)"
            )
        if isinstance(value, Buffer):
            persistent = value.__dict__["persistent"]
        else:
            persistent = name not in self._non_persistent_buffers_set
        # A subclass may override register_buffer without `persistent` (as in PyTorch).
        own = getattr(self.register_buffer, "__func__", None) is Module.register_buffer
        if own or "persistent" in inspect.signature(self.register_buffer).parameters:
            self.register_buffer(name, value, persistent)
        elif not persistent:
            raise RuntimeError(
                "Registering a non-persistent buffer on a Module subclass that implements "
                "register_buffer() without the persistent argument is not allowed."
            )
        else:
            self.register_buffer(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list[str]:
        keys = [
            *dir(type(self)),
            *self.__dict__,
            *self._parameters,
            *self._modules,
            *self._buffers,
        ]
        # Sequential's children are "0", "1", ...: not attribute names.
        return sorted(key for key in keys if not key[0].isdigit())

    # --- modes and gradients ------------------------------------------------------------

    def train(self: T, mode: bool = True) -> T:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: T) -> T:
        return self.train(False)

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's `.grad`: to None, or (`set_to_none=False`) to zeros."""
        for p in self.parameters():
            grad = p.grad
            if grad is None:
                continue
            if set_to_none:
                p.grad = None
                continue
            if grad.grad_fn is not None:
                grad.detach_()
            else:
                grad.requires_grad_(False)
            grad.zero_()

    # --- printing -------------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings, as one line of its repr; subclasses override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"

    # --- copying and pickling -------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # A module pickled before a bookkeeping dict existed gets an empty one.
        for name in _HOOK_DICTS:
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # --- the methods that live beside this file (see the module docstring) ----------------

    # Walking the tree.
    _named_members = _module_tree.named_members
    parameters = _module_tree.parameters
    named_parameters = _module_tree.named_parameters
    buffers = _module_tree.buffers
    named_buffers = _module_tree.named_buffers
    children = _module_tree.children
    named_children = _module_tree.named_children
    modules = _module_tree.modules
    named_modules = _module_tree.named_modules
    apply = _module_tree.apply

    # Calling: forward pre-hooks, forward, forward hooks, backward hooks.
    _call_impl = _module_call.call_impl
    _wrapped_call_impl = _module_call.wrapped_call_impl
    __call__: Callable[..., Any] = _module_call.wrapped_call_impl

    # Registering hooks.
    register_forward_pre_hook = _module_hooks.register_forward_pre_hook
    register_forward_hook = _module_hooks.register_forward_hook
    register_full_backward_pre_hook = _module_hooks.register_full_backward_pre_hook
    register_full_backward_hook = _module_hooks.register_full_backward_hook
    register_backward_hook = _module_hooks.register_backward_hook
    _get_backward_hooks = _module_hooks.get_backward_hooks
    _get_backward_pre_hooks = _module_hooks.get_backward_pre_hooks

    # state_dict and loading.
    get_extra_state = _module_state.get_extra_state
    set_extra_state = _module_state.set_extra_state
    _save_to_state_dict = _module_state.save_to_state_dict
    state_dict = _module_state.state_dict
    _load_from_state_dict = _module_state.load_from_state_dict
    load_state_dict = _module_state.load_state_dict
    _register_state_dict_hook = _module_state.register_state_dict_hook_private
    register_state_dict_pre_hook = _module_state.register_state_dict_pre_hook
    register_state_dict_post_hook = _module_state.register_state_dict_post_hook
    _register_load_state_dict_pre_hook = _module_state.register_load_state_dict_pre_hook_private
    register_load_state_dict_pre_hook = _module_state.register_load_state_dict_pre_hook
    register_load_state_dict_post_hook = _module_state.register_load_state_dict_post_hook

    # dtype and device.
    _apply = _module_convert.apply_to_tensors
    to = _module_convert.to
    cuda = _module_convert.cuda
    ipu = _module_convert.ipu
    xpu = _module_convert.xpu
    mtia = _module_convert.mtia
    cpu = _module_convert.cpu
    type = _module_convert.type_
    float = _module_convert.float_
    double = _module_convert.double
    half = _module_convert.half
    bfloat16 = _module_convert.bfloat16
    to_empty = _module_convert.to_empty
    share_memory = _module_convert.share_memory
