"""Activation layers: each applies one function of `nn.functional` to its input, with the
function's options as attributes (`ReLU`, `LeakyReLU`, `GELU`, `PReLU`, ...); the softmax
family is in `activation_softmax.py`."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

from ..._creation import empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "SELU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "Mish",
    "PReLU",
    "RReLU",
    "ReLU",
    "ReLU6",
    "SiLU",
    "Sigmoid",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
]


def _inplace_note(inplace: bool, first: bool = False) -> str:
    """The `inplace=True` PyTorch appends to a repr, alone or after other options."""
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class _InplaceActivation(Module):
    """A function with only an `inplace` option (its repr says `inplace=True` when set)."""

    __constants__: ClassVar[list[str]] = ["inplace"]
    inplace: bool

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return _inplace_note(self.inplace, first=True)


class Threshold(Module):
    """`input` where it exceeds `threshold`, else `value`."""

    __constants__: ClassVar[list[str]] = ["threshold", "value", "inplace"]
    threshold: float
    value: float
    inplace: bool

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_note(self.inplace)}"


class ReLU(_InplaceActivation):
    """max(0, input)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """A leaky ReLU whose negative slope is drawn uniformly from [lower, upper] per element
    in training, and is (lower + upper) / 2 in evaluation."""

    __constants__: ClassVar[list[str]] = ["lower", "upper", "inplace"]
    lower: float
    upper: float
    inplace: bool

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_note(self.inplace)}"


class Hardtanh(Module):
    """input clipped to [min_val, max_val]."""

    __constants__: ClassVar[list[str]] = ["min_val", "max_val", "inplace"]
    min_val: float
    max_val: float
    inplace: bool

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        # The old keyword names still work, with PyTorch's warning.
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_note(self.inplace)}"


class ReLU6(Hardtanh):
    """min(max(0, input), 6): a Hardtanh on [0, 6]."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_note(self.inplace, first=True)


class Sigmoid(Module):
    """1 / (1 + exp(-input))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Hardsigmoid(_InplaceActivation):
    """relu6(input + 3) / 6: a piecewise-linear sigmoid. Its repr shows no options."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class Tanh(Module):
    """The hyperbolic tangent."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class SiLU(_InplaceActivation):
    """input * sigmoid(input) (also called swish)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Mish(_InplaceActivation):
    """input * tanh(softplus(input))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)


class Hardswish(_InplaceActivation):
    """input * relu6(input + 3) / 6. Its repr shows no options."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class _WithAlpha(Module):
    """A function with options `alpha` and `inplace` (ELU, CELU: distinct classes in PyTorch)."""

    __constants__: ClassVar[list[str]] = ["alpha", "inplace"]
    alpha: float
    inplace: bool

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_note(self.inplace)}"


class ELU(_WithAlpha):
    """input where positive, else alpha * (exp(input) - 1)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)


class CELU(_WithAlpha):
    """input where positive, else alpha * (exp(input / alpha) - 1)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class SELU(_InplaceActivation):
    """scale * elu(input, alpha) with the self-normalising constants."""

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class GLU(Module):
    """a * sigmoid(b), where a and b are the halves of the input along `dim`."""

    __constants__: ClassVar[list[str]] = ["dim"]
    dim: int

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """input * Φ(input), Φ the standard normal CDF (or its tanh approximation)."""

    __constants__: ClassVar[list[str]] = ["approximate"]
    approximate: str

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class _Shrink(Module):
    """A function with one option, `lambd`; its repr is the bare number."""

    __constants__: ClassVar[list[str]] = ["lambd"]
    lambd: float

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """input, and 0 within [-lambd, lambd]."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """input moved `lambd` towards 0, and 0 within [-lambd, lambd]."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    """input where positive, else negative_slope * input."""

    __constants__: ClassVar[list[str]] = ["inplace", "negative_slope"]
    inplace: bool
    negative_slope: float

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_note(self.inplace)}"


class LogSigmoid(Module):
    """log(sigmoid(input)), computed stably."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * input)) / beta, linear where beta * input > threshold."""

    __constants__: ClassVar[list[str]] = ["beta", "threshold"]
    beta: float
    threshold: float

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """input where positive, else a * input, with `a` learnt: one weight, or one per channel."""

    __constants__: ClassVar[list[str]] = ["num_parameters"]
    num_parameters: int
    weight: Parameter

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope starts at `init`."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """input / (1 + |input|)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """input - tanh(input)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)
