"""Adamax: Adam with the infinity norm of past gradients in place of their root mean square."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import zeros_like
from .._ops.elementwise import maximum
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    ParamsT,
    as_number,
    check_betas,
    check_capturable,
    check_lr,
    check_nonnegative,
    new_step,
    run_closure,
    signed_grad,
    use_grad,
    with_grad,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """p ← p - lr / (1 - β₁ᵗ) · m / u, with u = max(β₂ · u, |g| + eps)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_betas(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
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
            state["exp_avg"] = zeros_like(param)
            state["exp_inf"] = zeros_like(param)
        return state

    @use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adamax step over every parameter that has a gradient."""
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
    """Adamax's update of one parameter, in PyTorch's single-tensor order of operations."""
    lr, eps = as_number(group["lr"]), group["eps"]
    beta1, beta2 = group["betas"]
    grad = signed_grad(param, group["maximize"])
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    state["step"] += 1
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    exp_avg.lerp_(grad, 1 - beta1)
    exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
    clr = lr / (1 - beta1 ** state["step"].item())
    param.addcdiv_(exp_avg, exp_inf, value=-clr)
