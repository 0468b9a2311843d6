"""Adam: per-coordinate steps from running averages of the gradient and its square."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import zeros_like
from .._dtype import float32
from .._ops.elementwise import maximum
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    ParamsT,
    as_number,
    check_betas,
    check_capturable,
    check_fused_foreach,
    check_fused_param,
    check_lr,
    check_nonnegative,
    new_step,
    run_closure,
    signed_grad,
    use_grad,
    with_grad,
)

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (and AMSGrad); with decoupled_weight_decay=True it is AdamW."""

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError(
                "lr as a Tensor is not supported for capturable=False and foreach=True"
            )
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_betas(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        if not (
            all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor) for b in betas)
        ):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, beta in enumerate(betas):
            if isinstance(beta, Tensor):
                if not capturable and foreach:
                    raise ValueError(
                        f"betas[{i}] as a Tensor is not supported for capturable=False and "
                        "foreach=True"
                    )
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() != 0 else b for b in betas)  # type: ignore[assignment]
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        check_fused_foreach(fused, foreach, differentiable)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)

    def _init_state(self, param: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = self.state[param]
        if len(state) == 0:
            if group["fused"]:
                check_fused_param(param)
            # capturable and fused keep the count in float32, as PyTorch's kernels need it.
            fixed = group["capturable"] or group["fused"]
            state["step"] = new_step().to(dtype=float32) if fixed else new_step()
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(param)
        return state

    @use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adam step over every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params = with_grad(group["params"])
            states = [self._init_state(p, group) for p in params]
            if group["capturable"]:
                check_capturable(params)
            for p, state in zip(params, states, strict=True):
                _update(p, state, group)
        return loss


def _update(param: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """Adam's update of one parameter, in PyTorch's single-tensor order of operations."""
    lr, weight_decay, eps = as_number(group["lr"]), group["weight_decay"], group["eps"]
    beta1, beta2 = (as_number(b) for b in group["betas"])
    grad = signed_grad(param, group["maximize"])
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    state["step"] += 1
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

    step = state["step"].item()
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = (1 - beta2**step) ** 0.5
    if group["amsgrad"]:
        max_exp_avg_sq = state["max_exp_avg_sq"]
        max_exp_avg_sq.copy_(maximum(max_exp_avg_sq, exp_avg_sq))
        denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    else:
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)
