"""How an op pushes tangents forward: its Primitive's tangent rule, or its reverse rules transposed.

Views share their tangent with their base, and in-place ops update the tangent in
place (see `inplace`), as in PyTorch. The level and the tangents themselves are
kept in `chainrule._autograd.tangents`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._autograd import grad_mode
from .._autograd import tangents as _tangents
from .._autograd.tangents import _without_push, set_tangent, tangent_of
from .._backward.engine import run_backward
from .._creation import ones_like, zeros_like
from .._tensor import Tensor

if TYPE_CHECKING:
    from .primitive import Primitive

__all__ = ["Primals", "push_forward"]


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
    out = _without_push(lambda: _tangents_of_results(prim, inputs, params, results, tangents))
    for r, tan in zip(results, out, strict=True):
        if r._data.dtype.kind != "f":
            continue
        if tan is None:  # no input moves this output (floor, round, ...): a zero tangent
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


def _keep_in_saved(r: Tensor, tangent: Tensor) -> None:
    """A node saves its own output as an array: keep the tangent beside it, for rules that
    read the output during a backward inside this level (forward-over-reverse)."""
    saved = getattr(r._grad_fn, "_saved", None)
    if not isinstance(saved, dict):
        return
    for s in saved.values():
        if getattr(s, "is_output", False) and s.output_nr == r._output_nr and s.data is r._data:
            s.tangent = (_tangents._generation, tangent)


def _tangents_of_results(
    prim: Primitive,
    inputs: Sequence[Tensor],
    params: dict[str, Any],
    results: Sequence[Tensor],
    tangents: list[Tensor | None],
) -> list[Tensor | None]:
    kind = prim.tangent
    if kind == "linear":
        args = [_tangent_or_zero(t, tan) for t, tan in zip(inputs, tangents, strict=True)]
        return _as_list(prim(*args, **params))
    if kind == "multilinear":
        total: list[Tensor | None] = [None] * len(results)
        for i, tan in enumerate(tangents):
            if tan is None:
                continue
            args = list(inputs)
            args[i] = tan
            part = _as_list(prim(*args, **params))
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
    return zeros_like(t)


def _transposed(
    prim: Primitive,
    inputs: Sequence[Tensor],
    primals: Primals,
    results: Sequence[Tensor],
    tangents: list[Tensor | None],
) -> list[Tensor | None]:
    """J t from the reverse rules: J_i t_i = d/du <rule_i(u), t_i>, each rule being linear in u."""
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


def unsupported(op: str) -> Callable[..., Any]:
    """A tangent rule for an op PyTorch has no forward mode for: its NotImplementedError."""

    def refuse(tangents: Any, primals: Any) -> Any:
        raise NotImplementedError(
            f"Trying to use forward AD with {op} that does not support it because it has not "
            "been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
            "that we can prioritize its implementation or submit a PR adding the "
            "implementation to derivatives.yaml"
        )

    return refuse
