"""Forward-mode AD: inside a `dual_level`, a dual tensor carries a tangent that every op
pushes forward, so one pass gives a Jacobian-vector product.

Each op's tangent comes from its `Primitive` (see `push_forward`): a written tangent
rule, or one derived from the reverse rules. Views share their tangent with their
base, and in-place ops update the tangent in place, as in PyTorch. Only one level
exists at a time (PyTorch does not support nested levels either); leaving it strips
every tangent made in it.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import grad_mode

if TYPE_CHECKING:
    from .._ops.primitive import Primitive
    from .._tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

# Process-wide, as PyTorch's levels. `_active` is what every op reads: True while a
# level is open and no tangent is being computed (tangent rules themselves are not
# pushed forward: there is no second level to push them into).
_active = False
_level: int | None = None
_generation = 0  # counts levels opened, so a tangent kept from a closed level is ignored
_duals: list[weakref.ref[Tensor]] = []

_KEY = "_fw_grad"


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal (a view without tangent) and the tangent."""

    primal: Any
    tangent: Any


def enter_dual_level() -> int:
    """Open the level that dual tensors live in; returns its index (always 0)."""
    global _active, _level, _generation
    if _level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level, _active = 0, True
    _generation += 1
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the level: every tangent made in it is dropped."""
    global _active, _level
    if level is None:
        level = -1 if _level is None else _level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    for ref in _duals:
        t = ref()
        if t is not None:
            t.__dict__.pop(_KEY, None)
    _duals.clear()
    _level, _active = None, False


class dual_level:
    """Context manager (and decorator) for a forward-AD level: `with dual_level(): ...`."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


def _check_level(level: int | None, what: str) -> None:
    if level is not None and level != _level:
        raise RuntimeError(f"Invalid level given to {what}")


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` whose tangent is `tangent` (used as is, not copied)."""
    from .._tensor import Tensor

    if _level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    _check_level(level, "_make_dual")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        bad = tensor if not isinstance(tensor, Tensor) else tangent
        raise TypeError(f"make_dual(): expected Tensor, but got {type(bad).__name__}")
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if t._data.dtype.kind not in "fc":
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            "same level 0 is not supported."
        )
    dual = _without_push(lambda: tensor.view(tensor.shape))
    set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """`(primal, tangent)`: the primal as a view without tangent; tangent None if it has none."""
    from .._ops.view_tracking import identity_view
    from .._tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"unpack_dual(): expected Tensor, but got {type(tensor).__name__}")
    _check_level(level, "_fw_primal")
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_without_push(lambda: identity_view(tensor)), tangent)


# --- what ops use ------------------------------------------------------------------


def tangent_of(t: Tensor) -> Tensor | None:
    """The tangent `t` carries at the open level, or None."""
    if _level is None:
        return None
    d = t.__dict__
    return d.get(_KEY) if d else None


def set_tangent(t: Tensor, tangent: Tensor) -> None:
    if _KEY not in t.__dict__:
        _duals.append(weakref.ref(t))
    t.__dict__[_KEY] = tangent


def restore_tangent(t: Tensor, generation: int, tangent: Tensor) -> None:
    """Give a re-wrapped saved output back its tangent, if its level is still open."""
    if generation == _generation and _level is not None:
        set_tangent(t, tangent)


def _keep_in_saved(r: Tensor, tangent: Tensor) -> None:
    """A node saves its own output as an array: keep the tangent beside it, for rules that
    read the output during a backward inside this level (forward-over-reverse)."""
    saved = getattr(r._grad_fn, "_saved", None)
    if not isinstance(saved, dict):
        return
    for s in saved.values():
        if getattr(s, "is_output", False) and s.output_nr == r._output_nr and s.data is r._data:
            s.tangent = (_generation, tangent)


@contextlib.contextmanager
def _no_push() -> Iterator[None]:
    """No tangent is pushed forward inside (a custom Function's forward, tangent rules)."""
    global _active
    was, _active = _active, False
    try:
        yield
    finally:
        _active = was


def _without_push(fn: Callable[[], Any]) -> Any:
    """Run `fn` with no tangent pushed forward (tangent rules, primal views)."""
    global _active
    was, _active = _active, False
    try:
        return fn()
    finally:
        _active = was


def push_forward(
    prim: Primitive, inputs: Sequence[Tensor], params: dict[str, Any], results: Sequence[Tensor]
) -> None:
    """Give `results` the tangents of an op whose `inputs` may carry some."""
    tangents = [tangent_of(t) for t in inputs]
    if all(t is None for t in tangents):
        return
    floats = [r for r in results if r._data.dtype.kind == "f"]
    if not floats:
        return
    out = _without_push(lambda: _tangents(prim, inputs, params, results, tangents))
    for r, tan in zip(results, out, strict=True):
        if r._data.dtype.kind != "f":
            continue
        if tan is None:  # no input moves this output (floor, round, ...): a zero tangent
            from .._creation import zeros_like

            tan = zeros_like(r)
        if not prim.view and any(
            t is not None and np.may_share_memory(tan._data, t._data) for t in tangents
        ):
            tan = _without_push(tan.clone)  # only a view shares its input's tangent
        if tan._data.dtype != r._data.dtype:
            tan = tan.to(r.dtype)
        if tan._data.shape != r._data.shape:
            tan = tan.expand(r.shape).clone()  # a broadcast input's tangent: own memory
        set_tangent(r, tan)
        if r._grad_fn is not None:
            _keep_in_saved(r, tan)


def _tangents(
    prim: Primitive,
    inputs: Sequence[Tensor],
    params: dict[str, Any],
    results: Sequence[Tensor],
    tangents: list[Tensor | None],
) -> list[Tensor | None]:
    kind = prim.tangent
    if kind == "linear":
        args = [_tangent_or_zero(t, tan) for t, tan in zip(inputs, tangents, strict=True)]
        return _as_list(_call(prim, args, params))
    if kind == "multilinear":
        total: list[Tensor | None] = [None] * len(results)
        for i, tan in enumerate(tangents):
            if tan is None:
                continue
            args = list(inputs)
            args[i] = tan
            part = _as_list(_call(prim, args, params))
            total = [_add(a, b) for a, b in zip(total, part, strict=True)]
        return total
    primals = Primals(prim, inputs, params, results)
    if callable(kind):
        return _as_list(kind(tangents, primals))
    if kind == "elementwise":
        total_e: Tensor | None = None
        for i, tan in enumerate(tangents):
            if tan is not None and prim.grads[i] is not None:
                total_e = _add(total_e, prim.grads[i](tan, primals))  # type: ignore[misc,arg-type]
        return [total_e]
    return _transposed(prim, inputs, primals, results, tangents)


def _call(prim: Primitive, args: list[Any], params: dict[str, Any]) -> Any:
    return prim(*args, **params)


def _as_list(out: Any) -> list[Any]:
    return list(out) if isinstance(out, tuple | list) else [out]


def _add(a: Tensor | None, b: Tensor | None) -> Tensor | None:
    if a is None:
        return b
    return a if b is None else a + b


def _tangent_or_zero(t: Tensor, tangent: Tensor | None) -> Tensor:
    """What a linear op sees for input `t`: its tangent, zeros, or (not floating) `t` itself."""
    if tangent is not None:
        return tangent
    if t._data.dtype.kind != "f":
        return t  # an index or a mask: part of the op, not a linear argument
    from .._creation import zeros_like

    return zeros_like(t)


def _transposed(
    prim: Primitive,
    inputs: Sequence[Tensor],
    primals: Primals,
    results: Sequence[Tensor],
    tangents: list[Tensor | None],
) -> list[Tensor | None]:
    """J t from the reverse rules: J_i t_i = d/du <rule_i(u), t_i>, each rule being linear in u."""
    from .._creation import ones_like
    from .engine import run_backward

    records = grad_mode.is_grad_enabled() and any(
        t is not None and t._requires_grad for t in (*inputs, *tangents)
    )
    out: list[Tensor | None] = [None] * len(results)
    with grad_mode.enable_grad():
        # Any u will do for a rule linear in u; ones keep rules that treat zero (or a
        # sign) specially, like logcumsumexp's, on a smooth branch.
        us = [ones_like(r, requires_grad=r._data.dtype.kind == "f") for r in results]
        grad: Any = us[0] if len(results) == 1 else tuple(us)
        for i, tan in enumerate(tangents):
            rule = prim.grads[0] if prim.variadic else prim.grads[i]
            if tan is None or rule is None:
                continue
            v = rule(grad, primals, i) if prim.variadic else rule(grad, primals)  # type: ignore[call-arg,arg-type]
            if v is None or not v._requires_grad:
                continue
            if v._data.shape != inputs[i]._data.shape:
                v = v.sum_to_size(inputs[i]._data.shape)
            wrt = [u for u in us if u._requires_grad]
            got = run_backward(
                [v._gradient_edge()],
                [tan.to(v.dtype)],
                retain_graph=records,
                create_graph=records,
                captures=[u._gradient_edge() for u in wrt],
                accumulate=False,
            )
            k = 0
            for j, u in enumerate(us):
                if u._requires_grad:
                    out[j] = _add(out[j], got[k])
                    k += 1
    if not records:
        out = [o.detach() if o is not None else None for o in out]
    return out


class Primals:
    """What a rule reads as its node when it computes a tangent: the op's tensors and params."""

    __slots__ = ("_inputs", "_params", "_prim", "_results")

    def __init__(
        self,
        prim: Primitive,
        inputs: Sequence[Tensor],
        params: dict[str, Any],
        results: Sequence[Tensor],
    ) -> None:
        self._prim, self._inputs, self._params, self._results = prim, inputs, params, results

    def __getattr__(self, name: str) -> Any:
        params = object.__getattribute__(self, "_params")
        if name in params:
            return params[name]
        prim = object.__getattribute__(self, "_prim")
        if prim.variadic and name == prim.inputs[0]:
            return tuple(self._inputs)
        if name in prim.inputs:
            return self._inputs[prim.inputs.index(name)]
        if name in prim.outputs:
            return self._results[prim.outputs.index(name)]
        raise AttributeError(f"'{prim.name}' has no attribute '{name}'")
