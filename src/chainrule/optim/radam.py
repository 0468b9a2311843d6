"""RAdam: Adam whose adaptive step is switched on and scaled by the variance's rectification."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import zeros_like
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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Rectified Adam: plain momentum steps until the variance estimate is reliable (ρₜ > 5)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
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
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("capturable", False)

    def _init_state(self, param: Tensor) -> dict[str, Any]:
        state = self.state[param]
        if len(state) == 0:
            state["step"] = new_step()
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        return state

    @use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RAdam step over every parameter that has a gradient."""
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
    """RAdam's update of one parameter, in PyTorch's single-tensor order of operations."""
    lr, weight_decay, eps = as_number(group["lr"]), group["weight_decay"], group["eps"]
    beta1, beta2 = group["betas"]
    grad = signed_grad(param, group["maximize"])
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    state["step"] += 1
    step = state["step"].item()
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    bias_corrected_exp_avg = exp_avg / bias_correction1
    # rho: the length of the simple moving average the exponential one approximates.
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
    if rho_t > 5.0:
        rect = (
            (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
        ) ** 0.5
        exp_avg_sq_sqrt = exp_avg_sq.sqrt()
        exp_avg_sq_sqrt = (
            exp_avg_sq_sqrt.add(eps) if group["differentiable"] else exp_avg_sq_sqrt.add_(eps)
        )
        adaptive_lr = (bias_correction2**0.5) / exp_avg_sq_sqrt
        param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
    else:
        param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
