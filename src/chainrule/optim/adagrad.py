"""Adagrad: steps scaled by the root of the running sum of squared gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._creation import full_like
from .._dtype import float32
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    ParamsT,
    as_number,
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

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """p ← p - lr / (1 + (t - 1) · lr_decay) · g / (sqrt(Σ g²) + eps)."""

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_lr(lr)
        check_nonnegative(lr_decay, "lr_decay value")
        check_nonnegative(weight_decay, "weight_decay value")
        check_nonnegative(initial_accumulator_value, "initial_accumulator_value value")
        check_nonnegative(eps, "epsilon value")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        check_fused_foreach(fused, foreach, differentiable)
        # Unlike the other optimizers, Adagrad makes its state when it is built.
        for group in self.param_groups:
            for p in group["params"]:
                self._new_state(p, group)

    def _new_state(self, param: Tensor, group: dict[str, Any]) -> None:
        state = self.state[param]
        state["step"] = new_step().to(dtype=float32) if group["fused"] else new_step()
        # PyTorch fills from the optimizer's defaults here, not from the group.
        state["sum"] = full_like(param, self.defaults["initial_accumulator_value"])

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)

    @use_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adagrad step over every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params = with_grad(group["params"])
            for p in params:
                if group["fused"]:
                    check_fused_param(p)
                if len(self.state[p]) == 0:
                    self._new_state(p, group)
            for p in params:
                _update(p, self.state[p], group)
        return loss


def _update(param: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
    """Adagrad's update of one parameter, in PyTorch's single-tensor order of operations."""
    lr = as_number(group["lr"])
    state["step"] += 1
    step = state["step"].item()
    grad = signed_grad(param, group["maximize"])
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    clr = lr / (1 + (step - 1) * group["lr_decay"])
    state_sum = state["sum"]
    state_sum.addcmul_(grad, grad, value=1)
    std = (
        state_sum.sqrt() + group["eps"]
        if group["differentiable"]
        else state_sum.sqrt().add_(group["eps"])
    )
    param.addcdiv_(grad, std, value=-clr)
