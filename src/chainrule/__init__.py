"""chainrule: PyTorch's autograd, rebuilt as a readable Python package on NumPy.

`import chainrule as torch` runs PyTorch autograd code: tensors, the dynamic
graph, `backward`, `autograd.grad`, custom Functions and grad modes.
"""

from __future__ import annotations

import builtins as _builtins

from . import (
    _dtype,
    autograd,
    backends,
    cuda,
    linalg,
    nn,
    optim,
    random,
    serialization,
    special,
    utils,
)
from ._creation import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from ._dtype import (
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)

# The op library, one package per family (each module lists its public names in __all__).
from ._ops.elementwise import *  # noqa: F403
from ._ops.indexing import *  # noqa: F403
from ._ops.inplace import apply_inplace as _apply_inplace
from ._ops.keywords import accept_in as _accept_keywords
from ._ops.linalg import *  # noqa: F403
from ._ops.linalg.matrix_multiply import ger
from ._ops.reduction import *  # noqa: F403
from ._ops.shape import *  # noqa: F403
from ._ops.shape.views import (
    broadcast_to,
    concat,
    concatenate,
    narrow,
    swapaxes,
    swapdims,
)
from ._ops.special import *  # noqa: F403

# Tensor's op methods and operators, from the table of them (once the op families are loaded).
from ._tensor_methods import bind as _bind_tensor_methods

_bind_tensor_methods()
from ._printing import get_printoptions, set_printoptions
from ._random_distributions import bernoulli, multinomial, normal
from ._random_factories import (
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from .nn.functional._activation_softmax import (
    tensor_log_softmax as log_softmax,
    tensor_softmax as softmax,
)
from .nn.functional._torch_forms import (
    celu,
    group_norm,
    layer_norm,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    rms_norm,
    rrelu,
    selu,
    threshold,
)
from ._size import Size
from ._device import device
from ._tensor import Tensor
from .serialization import load, save
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .autograd import (
    enable_grad,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_anomaly_enabled,
    set_grad_enabled,
)
from .autograd.grad_mode import is_inference

# Names that shadow Python builtins are bound last, so the imports above see the builtins.
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
bool = _dtype.bool_
uint8 = uint8

del _apply_inplace, _bind_tensor_methods


def is_tensor(obj: object) -> _builtins.bool:
    """Whether `obj` is a chainrule Tensor."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> _builtins.int:
    return input.numel()


# Questions about one tensor, as functions (each is also a Tensor method).
def is_floating_point(input: Tensor) -> _builtins.bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> _builtins.bool:
    return input.is_complex()


def is_signed(input: Tensor) -> _builtins.bool:
    return input.is_signed()


def is_nonzero(input: Tensor) -> _builtins.bool:
    return input.is_nonzero()


def is_same_size(input: Tensor, other: Tensor) -> _builtins.bool:
    return input.is_same_size(other)


# Every op takes the spellings PyTorch's argument parser adds (`axis=`, `keepdims=`, `out=`).
_accept_keywords(globals(), "torch", [n for n in list(globals()) if not n.startswith("_")])

# The nn.functional ops PyTorch binds once are the same functions here: bound after the line
# above, as nn.functional has given them PyTorch's spellings already.
from .nn.functional import (
    adaptive_avg_pool1d,
    avg_pool1d,
    bilinear,
    celu_,
    channel_shuffle,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    cosine_similarity,
    hardshrink,
    pairwise_distance,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
    prelu,
    rrelu_,
    selu_,
    threshold_,
)

__version__ = "0.1.0"
