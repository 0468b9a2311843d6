"""NAdam: Adam with Nesterov momentum, the momentum coefficient warming up over the steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import tensor, zeros_like
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
    scalar_dtype,
    signed_grad,
    use_grad,
    with_grad,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Adam whose first moment looks one step ahead (Dozat's NAdam), momentum μₜ warming up."""

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
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
        check_nonnegative(momentum_decay, "momentum_decay value")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)

    def _init_state(self, param: Tensor) -> dict[str, Any]:
        state = self.state[param]
        if len(state) == 0:
            state["step"] = new_step()
            state["mu_product"] = tensor(1.0, dtype=scalar_dtype())
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        return state

    @use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One NAdam step over every parameter that has a gradient."""
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
    """NAdam's update of one parameter, in PyTorch's single-tensor order of operations."""
    lr, weight_decay, eps = as_number(group["lr"]), group["weight_decay"], group["eps"]
    beta1, beta2 = group["betas"]
    momentum_decay = group["momentum_decay"]
    grad = signed_grad(param, group["maximize"])
    exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
    state["step"] += 1
    step = state["step"].item()
    bias_correction2 = 1 - beta2**step
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
    mu_product *= mu
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = exp_avg_sq.div(bias_correction2).sqrt()
    # The products of the momenta are read as the 0-d tensor holds them (rounded to its dtype).
    product = mu_product.item()
    product_next = product * mu_next
    denom.add_(eps)
    param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - product))
    param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - product_next))
