"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    ParamsT,
    as_number,
    check_fused_foreach,
    check_fused_param,
    check_nonnegative,
    run_closure,
    signed_grad,
    use_grad,
    with_grad,
)

__all__ = ["SGD"]


class SGD(Optimizer):
    """p ← p - lr · g, where g may carry weight decay and a momentum buffer."""

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float | Tensor = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        check_nonnegative(momentum, "momentum value")
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused_foreach(fused, foreach, differentiable)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One SGD step over every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params = with_grad(group["params"])
            if group["fused"]:
                for p in params:
                    check_fused_param(p)
            for p in params:
                self._update(p, group)
        return loss

    def _update(self, param: Tensor, group: dict[str, Any]) -> None:
        lr = as_number(group["lr"])
        momentum, weight_decay = group["momentum"], group["weight_decay"]
        grad = signed_grad(param, group["maximize"])
        if weight_decay != 0:
            grad = grad.add(param, alpha=as_number(weight_decay))
        if momentum != 0:
            state = self.state[param]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.detach().clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            state["momentum_buffer"] = buf
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        param.add_(grad, alpha=-lr)
