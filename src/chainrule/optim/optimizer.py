"""The Optimizer base class: parameter groups, per-parameter state, state dicts and step hooks.

An algorithm subclasses `Optimizer`, passes its hyper-parameters on as `defaults` and
writes `step`; everything else (grouping, `zero_grad`, saving and loading) lives here.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any, TypeVar, cast

from .._autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .._autograd.hooks import RemovableHandle
from .._creation import tensor
from .._dtype import float32, float64, get_default_dtype
from .._tensor import Tensor

__all__ = [
    "Optimizer",
    "ParamsT",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
    "required",
]

StateDict = dict[str, Any]
ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]
_F = TypeVar("_F", bound=Callable[..., Any])

_global_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()


class _RequiredParameter:
    """The default of a hyper-parameter every group must set itself."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def typename(obj: object) -> str:
    """How PyTorch's messages name a value's type: `torch.FloatTensor`, `float`, `numpy.ndarray`."""
    if isinstance(obj, Tensor):
        return obj.type().replace("chainrule.", "torch.")
    cls = type(obj)
    module = cls.__module__
    if module in ("builtins", "__builtin__", None):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def scalar_dtype() -> Any:
    """The dtype of the `step` tensors: float64 under a float64 default, float32 otherwise."""
    return float64 if get_default_dtype() == float64 else float32


def new_step() -> Tensor:
    """A fresh `state['step']`: the 0-d tensor PyTorch keeps the count in."""
    return tensor(0.0, dtype=scalar_dtype())


def check_capturable(params: Iterable[Tensor]) -> None:
    """capturable=True needs an accelerator; every tensor here is on the CPU."""
    for _ in params:
        raise AssertionError(
            "If capturable=True, params and state_steps must be on supported devices: "
            "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']."
        )


def check_fused_foreach(fused: Any, foreach: Any, differentiable: Any) -> None:
    """The checks PyTorch makes after building an optimizer with fused=True."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def check_fused_param(p: Tensor) -> None:
    """fused=True takes floating-point parameters only."""
    if not p.is_floating_point():
        raise RuntimeError(
            "`fused=True` requires all the params to be floating point Tensors of "
            f"supported devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone'] "
            f"but {p.dtype} and cpu".replace("chainrule.", "torch.")
        )


def as_number(value: Any) -> Any:
    """A hyper-parameter given as a one-element tensor, as a Python number (others unchanged)."""
    return value.item() if isinstance(value, Tensor) else value


def check_lr(lr: Any) -> None:
    """The learning-rate checks every optimizer makes."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    check_nonnegative(lr, "learning rate")


def check_nonnegative(value: Any, what: str) -> None:
    """`Invalid epsilon value: -1.0` for a negative hyper-parameter."""
    if not value >= 0.0:
        raise ValueError(f"Invalid {what}: {value}")


def check_betas(betas: tuple[Any, Any]) -> None:
    """Both betas must lie in [0, 1)."""
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def run_closure(closure: Callable[[], Any] | None) -> Any:
    """A step's closure (which recomputes the loss), run with grad mode on: its loss."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def with_grad(params: list[Tensor]) -> list[Tensor]:
    """The parameters a step updates: those that have a gradient."""
    return [p for p in params if p.grad is not None]


def signed_grad(param: Tensor, maximize: bool) -> Tensor:
    """The parameter's gradient, negated when the optimizer maximizes."""
    grad = cast(Tensor, param.grad)
    return -grad if maximize else grad


def use_grad(step: _F) -> _F:
    """Run `step` with grad mode on only for a `differentiable` optimizer (off otherwise)."""

    @functools.wraps(step)
    def run(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        previous = is_grad_enabled()
        try:
            set_grad_enabled(bool(self.defaults.get("differentiable", False)))
            return step(self, *args, **kwargs)
        finally:
            set_grad_enabled(previous)

    return cast(_F, run)


def _with_step_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a subclass's `step` so that the registered pre- and post-hooks run around it."""

    @functools.wraps(step)
    def run(*args: Any, **kwargs: Any) -> Any:
        self = cast(Optimizer, args[0])
        for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
        out = step(*args, **kwargs)
        for hook in chain(
            self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()
        ):
            hook(self, args, kwargs)
        return out

    run.hooked = True  # type: ignore[attr-defined]
    return run


def _register(
    hooks: OrderedDict[int, Any], hook: Callable[..., Any], prepend: bool
) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A hook `hook(optimizer, args, kwargs)` run before every optimizer's step."""
    return _register(_global_step_pre_hooks, hook, prepend=False)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """A hook `hook(optimizer, args, kwargs)` run after every optimizer's step."""
    return _register(_global_step_post_hooks, hook, prepend=False)


class Optimizer:
    """Base class of the optimizers: holds `param_groups`, `defaults` and per-parameter `state`."""

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = (
            OrderedDict()
        )
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = (
            OrderedDict()
        )
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + typename(params)
            )
        self.state: defaultdict[Any, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(cast(dict, group))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Step hooks run around every subclass's own `step` (PyTorch patches it the same way).
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _with_step_hooks(step)  # type: ignore[method-assign]

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # --- hooks ---------------------------------------------------------------------------------

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` runs before each step; may return new (args, kwargs)."""
        return _register(self._optimizer_step_pre_hooks, hook, prepend=False)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` runs after each step."""
        return _register(self._optimizer_step_post_hooks, hook, prepend=False)

    def register_state_dict_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """`hook(optimizer)` runs before `state_dict` builds its dict."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """`hook(optimizer, state_dict)` runs on the built dict and may return a replacement."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """`hook(optimizer, state_dict)` runs before loading and may return a replacement dict."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """`hook(optimizer)` runs after loading."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # --- saving and loading --------------------------------------------------------------------

    def state_dict(self) -> StateDict:
        """The state: `{'state': {index: {...}}, 'param_groups': [{..., 'params': [index]}]}`.

        Parameters are replaced by their position across all groups; the state's
        tensors are the optimizer's own (not copies), as in PyTorch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack(g) for g in self.param_groups]
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict: StateDict = {"state": state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state(param: Tensor, value: Tensor, key: Hashable, group: dict[str, Any]) -> Tensor:
        # Floating-point state follows the parameter's dtype; the step count keeps its own,
        # unless the group is fused or capturable (then it is float32).
        if key == "step":
            if group.get("capturable", False) or group.get("fused", False):
                return value.to(dtype=float32)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Load a dict `state_dict()` returned, matching parameters by position."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )
        owner = {i: g for g in state_dict["param_groups"] for i in g["params"]}

        def cast_value(param: Tensor, value: Any, group: dict[str, Any], key: Hashable) -> Any:
            if isinstance(value, Tensor):
                return self._cast_state(param, value, key, group)
            if isinstance(value, dict):
                return {k: cast_value(param, v, group, k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(cast_value(param, v, group, None) for v in value)  # type: ignore[call-arg]
            return value

        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast_value(param, v, owner.get(k, {}), None)
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # --- gradients, steps, groups --------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the parameters' gradients: set them to None (default) or fill them with zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One optimization step; `closure` re-evaluates the model and returns the loss."""
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters, with its own hyper-parameters (the rest from `defaults`)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization parameter "
                    + name
                )
            param_group.setdefault(name, default)

        if len(tensors) != len(set(tensors)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen: set[Tensor] = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
