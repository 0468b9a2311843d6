"""chainrule: PyTorch's autograd, rebuilt as a readable Python package on NumPy.

`import chainrule as torch` runs PyTorch autograd code: tensors, the dynamic
graph, `backward`, `autograd.grad`, custom Functions and grad modes.

Importing it loads Tensor's core only; every other name (the ops, `nn`, `optim`, ...)
loads the first time it is read (see `_lazy.py` and docs/architecture.md).
"""

from __future__ import annotations

import builtins as _builtins

from inspect import isfunction as _isfunction
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from . import _dtype, _lazy, _public_names
from ._autograd import node as _autograd_node
from ._autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
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
from ._device import device
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
from ._layout import layout, strided
from ._printing import get_printoptions, set_printoptions
from ._size import Size
from ._tensor import Tensor

if _TYPE_CHECKING:  # what the type checker sees of the names loaded on first use
    from . import viz
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
    from ._ops.elementwise import *  # noqa: F403
    from ._ops.indexing import *  # noqa: F403
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
    from .nn.functional._activation_softmax import (
        tensor_log_softmax as log_softmax,
        tensor_softmax as softmax,
    )
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
        is_anomaly_check_nan_enabled,
        is_anomaly_enabled,
        set_anomaly_enabled,
    )
    from .autograd.grad_mode import is_inference
    from ._creation_data import asarray, empty_strided, frombuffer, scalar_tensor
    from ._ranges import logspace, range, tril_indices, triu_indices
    from ._runtime import (
        can_cast,
        get_default_device,
        get_device,
        get_num_threads,
        result_type,
        set_default_device,
        set_num_threads,
    )
    from ._windows import (
        bartlett_window,
        blackman_window,
        hamming_window,
        hann_window,
        kaiser_window,
    )

# Tensor's op methods and operators, from the table of them; each op family is imported
# when a tensor first uses one of its methods (see _lazy.py).
from ._tensor_methods import bind as _bind_tensor_methods

_bind_tensor_methods()
# `chainrule.autograd` binds these two once it is imported; until then, their first use
# imports it.
Tensor.backward = _lazy.LazyMember("chainrule.autograd", "_tensor_backward")  # type: ignore[method-assign]
_autograd_node.Node.__call__ = _lazy.LazyMember("chainrule.autograd", "_node_call")  # type: ignore[method-assign]

# Names that shadow Python builtins are bound last, so the imports above see the builtins.
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
bool = _dtype.bool_
uint8 = uint8

del _bind_tensor_methods


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


def _with_keywords(name: str, value: _Any) -> _Any:
    """Every op takes the spellings PyTorch's argument parser adds (`axis=`, `keepdims=`,
    `out=`; see `_ops/keywords.py`)."""
    if not _isfunction(value) or name in _public_names.AS_IS:
        return value
    return _keywords.accept_keywords(value, "torch", name)


_keywords = _lazy.LazyModule("chainrule._ops.keywords")
for _name in [n for n in globals() if not n.startswith("_")]:
    globals()[_name] = _with_keywords(_name, globals()[_name])

# The rest of the public names (the op library, nn, optim, ...) load on first use.
__getattr__, __dir__ = _lazy.package_loader(
    globals(),
    _public_names.NAMES,
    _public_names.SUBMODULES,
    _public_names.RENAMED,
    _with_keywords,
)

__version__ = "0.1.0"


def _load_all() -> None:
    """Load everything that otherwise loads on first use: every public name and every
    Tensor method (for tools that inspect the whole package, like the op list)."""
    for name in __dir__():
        if name not in globals():
            __getattr__(name)
    for name in dir(Tensor):
        getattr(Tensor, name)
