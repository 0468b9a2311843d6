"""Adadelta: steps whose size comes from running averages of squared gradients and updates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import zeros_like
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    ParamsT,
    as_number,
    check_capturable,
    check_lr,
    check_nonnegative,
    new_step,
    run_closure,
    signed_grad,
    use_grad,
    with_grad,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """p ← p - lr · sqrt(E[Δ²] + eps) / sqrt(E[g²] + eps) · g."""

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps, "epsilon value")
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def _init_state(self, param: Tensor) -> dict[str, Any]:
        state = self.state[param]
        if len(state) == 0:
            state["step"] = new_step()
            state["square_avg"] = zeros_like(param)
            state["acc_delta"] = zeros_like(param)
        return state

    @use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adadelta step over every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params = with_grad(group["params"])
            states = [self._init_state(p) for p in params]
            if group["capturable"]:
                check_capturable(params)
            for p, state in zip(params, states, strict=True):
                _update(p, state, group)
        return loss


def _update(param: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """Adadelta's update of one parameter, in PyTorch's single-tensor order of operations."""
    lr, rho, eps = as_number(group["lr"]), group["rho"], group["eps"]
    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
    state["step"] += 1
    grad = signed_grad(param, group["maximize"])
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
    std = square_avg.add(eps).sqrt_()
    delta = acc_delta.add(eps).sqrt_()
    delta.div_(std).mul_(grad)
    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
    param.add_(delta, alpha=-lr)
