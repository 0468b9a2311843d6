"""Batch normalisation: `BatchNorm1d`, `BatchNorm2d`, `BatchNorm3d`, and `_NormBase`,
the parameters and running-statistics buffers they share with the instance norms."""

from __future__ import annotations

from typing import Any, ClassVar

from ..._creation import empty, ones, tensor, zeros
from ..._dtype import int64
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class _NormBase(Module):
    """Per-channel weight and bias (when `affine`) and, when `track_running_stats`,
    the buffers `running_mean`, `running_var` and `num_batches_tracked`."""

    # Version 2 added `num_batches_tracked`; older checkpoints are loaded without it.
    _version = 2
    __constants__: ClassVar[list[str]] = [
        "track_running_stats",
        "momentum",
        "eps",
        "num_features",
        "affine",
    ]
    num_features: int
    eps: float
    momentum: float | None
    affine: bool
    track_running_stats: bool
    weight: Parameter | None
    bias: Parameter | None
    running_mean: Tensor | None
    running_var: Tensor | None
    num_batches_tracked: Tensor | None

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            # The step count is int64 whatever the dtype asked for.
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.running_mean is not None and self.running_var is not None:
            self.running_mean.zero_()
            self.running_var.fill_(1)
        if self.num_batches_tracked is not None:
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset, then weight 1 and bias 0."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self,
        state_dict: Any,
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        # Checkpoints from before version 2 have no step count: keep ours (or start at 0).
        version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        old = version is None or version < 2
        if old and self.track_running_stats and key not in state_dict:
            state_dict[key] = (
                self.num_batches_tracked
                if self.num_batches_tracked is not None
                else tensor(0, dtype=int64)
            )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    """Normalises each channel over the batch: with the batch's statistics in training
    (updating the running ones), with the running ones in evaluation."""

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative average: the k-th batch weighs 1/k
                factor = 1.0 / float(self.num_batches_tracked)
        # Without running statistics, evaluation normalises with the batch's, too.
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        pass_stats = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if pass_stats else None,
            self.running_var if pass_stats else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch norm of (N, C) or (N, C, L) inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm of (N, C, H, W) inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch norm of (N, C, D, H, W) inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
