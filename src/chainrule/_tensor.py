"""Tensor: a NumPy array plus autograd state (requires_grad, grad, grad_fn, version).

Ops are not defined here: `_tensor_methods/` lists the op methods and
operators (`x.add(y)`, `x + y`, ...) and binds them onto Tensor, so this file
holds only the state and the rules about that state. Methods that need a layer
above Tensor are bound there: `__new__` (the legacy constructor) by
`chainrule._creation`, `backward` by `chainrule.autograd`.
"""

from __future__ import annotations

import builtins
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _dtype, _strides
from ._autograd import grad_mode
from ._autograd.hooks import HookDict, RemovableHandle, add_hook
from ._autograd.node import AccumulateGrad, Node
from ._autograd.tangents import tangent_of
from ._autograd.versions import VersionCounter
from ._device import CPU, device
from ._dims import wrap_dim
from ._dtype import dtype as DType
from ._layout import layout as Layout
from ._layout import strided
from ._printing import format_tensor
from ._size import Size

__all__ = ["Tensor", "device"]

_NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)

_NONLEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)


def _type_name(obj: object) -> str:
    """A type's name as CPython's tp_name gives it (extension types with their module)."""
    cls = builtins.type(obj)
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


if TYPE_CHECKING:
    # The op methods and operators with their signatures, for type checkers (a stub made
    # from the table in _tensor_methods/). At run time Tensor derives from object alone,
    # and `_tensor_methods.bind()` copies the table's entries onto it.
    from ._tensor_surface import TensorSurface as _OpMethods
else:
    _OpMethods = object


class Tensor(_OpMethods):
    """An n-dimensional array that can record the operations applied to it."""

    __slots__ = (
        "__dict__",
        "__weakref__",
        "_accumulator",
        "_base",
        "_data",
        "_grad",
        "_grad_fn",
        "_hooks",
        "_inference",
        "_output_nr",
        "_requires_grad",
        "_retains_grad",
        "_vc",
        "_view_fn",
    )

    _data: np.ndarray
    _requires_grad: bool
    _grad: Tensor | None
    _grad_fn: Node | None
    _output_nr: int
    _vc: VersionCounter | None  # made on first need: see _version_counter
    _base: Tensor | None
    _view_fn: Callable[[Tensor], Tensor] | None
    _retains_grad: bool
    _inference: bool
    _accumulator: weakref.ref[AccumulateGrad] | None
    _hooks: HookDict | None

    # NumPy defers to our reflected operators (ndarray + Tensor -> Tensor).
    __array_ufunc__ = None

    if TYPE_CHECKING:
        # Bound by the layers above (see the module docstring).
        def __new__(cls, *args: Any, **kwargs: Any) -> Tensor: ...
        def backward(
            self,
            gradient: Tensor | None = None,
            retain_graph: bool | None = None,
            create_graph: bool = False,
            inputs: Tensor | Sequence[Tensor] | dict[str, Tensor] | None = None,
        ) -> None: ...

    @staticmethod  # (not a classmethod: no bound method to make on every call)
    def _make(
        data: np.ndarray,
        requires_grad: bool = False,
        grad_fn: Node | None = None,
        output_nr: int = 0,
    ) -> Tensor:
        """Wrap an array without copying (the fast path every op uses)."""
        t = object.__new__(Tensor)
        if not data.size:  # NumPy gives an empty array strides 0; PyTorch does not
            data = _strides.with_torch_strides(data)
        t._data = data
        t._requires_grad = requires_grad
        t._grad = None
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = None
        t._base = None
        t._view_fn = None
        t._retains_grad = False
        t._inference = grad_mode.inference_seen and grad_mode._state.inference
        t._accumulator = None
        t._hooks = None
        return t

    @property
    def _version_counter(self) -> VersionCounter:
        """The counter of in-place writes to this tensor's memory, shared with its views;
        made on first need (most tensors are never written in place nor saved)."""
        counter = self._vc
        if counter is None:
            counter = self._vc = VersionCounter()
        return counter

    @_version_counter.setter
    def _version_counter(self, counter: VersionCounter) -> None:
        self._vc = counter

    # --- metadata ---------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> DType:
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> device:
        return CPU

    @property
    def layout(self) -> Layout:
        return strided

    @property
    def is_cuda(self) -> bool:
        return False

    def is_inference(self) -> bool:
        """Whether this tensor was made in `inference_mode` (it can never join a graph)."""
        return self._inference

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return False

    def is_signed(self) -> bool:
        return self._data.dtype.kind in "fi"

    def is_same_size(self, other: Tensor) -> bool:
        return self._data.shape == other._data.shape

    def is_nonzero(self) -> bool:
        """The one value as a bool (PyTorch's error for none or several)."""
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self._data.reshape(()))

    @property
    def is_cpu(self) -> bool:
        return True

    def element_size(self) -> int:
        return int(self._data.itemsize)

    @property
    def itemsize(self) -> int:
        return int(self._data.itemsize)

    @property
    def nbytes(self) -> int:
        """Bytes of all elements (an expanded tensor counts each of its elements)."""
        return int(self._data.size * self._data.itemsize)

    def storage_offset(self) -> int:
        """Elements between the start of the base's memory and this view's first element."""
        root = self._base if self._base is not None else self
        return (self.data_ptr() - root.data_ptr()) // int(self._data.itemsize)

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim: int | None = None) -> Any:
        strides = _strides.of(self._data)
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def data_ptr(self) -> int:
        return int(self._data.__array_interface__["data"][0])

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return _dtype.legacy_type_name(self)
        return self.to(dtype)

    def _wrap_dim(self, dim: int) -> int:
        return wrap_dim(dim, self._data.ndim)

    # --- autograd state ---------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    # The attribute and requires_grad_() differ, as in PyTorch: the attribute can't be set
    # on a non-leaf even to True, and the two word the dtype error differently.

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        if _raw_grad_fn(self) is not None:
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(_NONLEAF_REQUIRES_GRAD)
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self._check_inference_requires_grad(value)
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if not isinstance(requires_grad, bool):
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{builtins.type(requires_grad).__name__}"
            )
        if _raw_grad_fn(self) is not None:
            if requires_grad:
                return self
            raise RuntimeError(_NONLEAF_REQUIRES_GRAD)
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._check_inference_requires_grad(requires_grad)
        self._requires_grad = requires_grad
        return self

    def _check_inference_requires_grad(self, value: bool) -> None:
        if value and self._inference and not grad_mode._state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self) -> Node | None:
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        """In-place writes so far to this tensor's memory (shared with its views), as PyTorch."""
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def grad(self) -> Tensor | None:
        if _raw_grad_fn(self) is not None and not self._retains_grad and self._grad is None:
            warnings.warn(_NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{_type_name(value)}"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    "attempting to assign a gradient with dtype "
                    f"'{_dtype.c_type_name(value)}' to a tensor with grad_dtype "
                    f"'{_dtype.scalar_name(self)}'. The gradient must match the "
                    "tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and "
                    "its gradient may break downstream systems that assume they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                    f"tensor of size '{list(self.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in `.grad` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._grad_fn._retain_grad(self._output_nr, self)
        self._retains_grad = True

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """`hook(grad)` runs when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._add_tensor_pre_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = HookDict()
        return add_hook(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """`hook(self)` runs after backward has accumulated into this leaf's `.grad`."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        # Kept in the instance dict: most tensors never have one (AccumulateGrad reads it).
        hooks = self.__dict__.get("_post_accumulate_grad_hooks")
        if hooks is None:
            hooks = self.__dict__["_post_accumulate_grad_hooks"] = HookDict()
        return add_hook(hooks, hook)

    def _run_post_accumulate_grad_hooks(self, hooks: HookDict) -> None:
        """Call the post-accumulate-grad hooks (AccumulateGrad does); each must return None
        or the tensor it was given (`lambda p: p.add_(...)` does), as PyTorch allows."""
        for hook in list(hooks.values()):
            result = hook(self)
            if result is None or result is self:
                continue
            if not isinstance(result, Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")

    def _gradient_edge(self) -> tuple[Node, int]:
        """Where a gradient for this tensor enters the graph."""
        if self._grad_fn is not None:
            return self._grad_fn, self._output_nr
        acc = self._accumulator() if self._accumulator is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._accumulator = weakref.ref(acc)
        return acc, 0

    def _accumulate_grad(self, grad: Tensor, owned: bool = False) -> None:
        """Add `grad` into `.grad`: a fresh tensor the first time, in place after (as PyTorch).

        An `owned` first gradient (one nothing else holds) laid out as `.grad` must be
        becomes `.grad` itself, with no copy, as PyTorch does.
        """
        if self._grad is None:
            if owned and _fits_grad_layout(self._data, grad._data):
                self._grad = grad
                return
            data = _new_grad_array(self._data, grad._data)
            if grad_mode.is_grad_enabled():
                # create_graph: .grad is a copy that keeps the graph (CopyBackwards), as PyTorch.
                self._grad = Tensor._make(data).copy_(grad)
            else:
                np.copyto(data, grad._data, casting="unsafe")
                self._grad = Tensor._make(data)
        elif grad_mode.is_grad_enabled():
            self._grad = self._grad + grad
        else:
            old = self._grad
            if old._requires_grad:
                self._grad = Tensor._make(old._data + grad._data)
            else:
                np.add(old._data, grad._data, out=old._data, casting="unsafe")
                old._version_counter.value += 1

    # --- detaching and data -----------------------------------------------------

    def detach(self) -> Tensor:
        """A tensor sharing this one's data and version counter, outside any graph."""
        t = Tensor._make(self._data)
        t._version_counter = self._version_counter
        t._inference = self._inference
        return t

    def detach_(self) -> Tensor:
        if self._base is not None and _raw_grad_fn(self) is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view "
                "is set as True, gradients are views of DDP buckets, and hence detach_() "
                "cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def data(self) -> Tensor:
        """The same data outside autograd: writes through it are invisible to the graph."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(
                f"Variable data has to be a tensor, but got {builtins.type(value).__name__}"
            )
        self._data = value._data

    def __hash__(self) -> int:
        return id(self)  # by identity, as PyTorch

    # --- printing ---------------------------------------------------------------

    def __repr__(self) -> str:
        d = self.dtype
        show = d not in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool_)
        suffixes = []
        try:
            grad_fn = self._grad_fn
        except RuntimeError:  # a view whose graph an in-place write made unusable
            suffixes.append("grad_fn=<Invalid>")
            grad_fn = None
        if grad_fn is not None:
            # As PyTorch's class names: without the C++ namespace of `name()`.
            node_type = builtins.type(grad_fn).__name__.rpartition("::")[2]
            suffixes.append(f"grad_fn=<{node_type}>")
        elif self._requires_grad and not suffixes:
            suffixes.append("requires_grad=True")
        tangent = tangent_of(self)
        if tangent is not None:
            # As PyTorch: a 0-d tangent prints as a Python number.
            shown = repr(tangent._data.item()) if tangent.ndim == 0 else repr(tangent)
            suffixes.append(f"tangent={shown}")
        return format_tensor(self._data, suffixes, show_dtype=repr(d) if show else None)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # As PyTorch: a 0-d tensor formats as its value; others only with an empty spec.
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    # --- copying ----------------------------------------------------------------

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._data.copy(), self._requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        new = Tensor._make(self._data.copy(), self._requires_grad)
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new


# The grad_fn slot read as it is: a view that an in-place write made stale raises on
# `_grad_fn` (see `_ops/view_errors.py`), where these few reads must not, as in PyTorch.
_raw_grad_fn = Tensor.__dict__["_grad_fn"].__get__


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor._make(data, requires_grad)


def _new_grad_array(param: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """An empty array for a leaf's first gradient, laid out as PyTorch's gradient layout
    contract says: the leaf's strides when the leaf is dense and non-overlapping, else
    contiguous; with the contract relaxed (`enforce_grad_layout_policy(False)`), the
    incoming gradient's own layout."""
    if not grad_mode._state.grad_layout:
        return np.empty_like(grad, dtype=param.dtype)
    if _dense(param):
        return np.empty_like(param)
    return np.empty(param.shape, param.dtype)


def _fits_grad_layout(param: np.ndarray, grad: np.ndarray) -> bool:
    """Whether `grad` is laid out as `_new_grad_array` would lay out a copy of it, with
    the parameter's dtype and shape, in memory of its own that can be written."""
    if grad.dtype != param.dtype or grad.shape != param.shape or not grad.flags.writeable:
        return False
    if not grad_mode._state.grad_layout:
        return True
    if _dense(param):
        return grad.strides == param.strides
    return grad.flags.c_contiguous


def _dense(a: np.ndarray) -> bool:
    """Whether `a`'s elements fill one block of memory exactly once (in some dim order)."""
    dims = sorted((s, n) for s, n in zip(a.strides, a.shape, strict=True) if n != 1)
    expected = a.itemsize
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True
