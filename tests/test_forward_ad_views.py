"""Forward mode: the tangent of a view is a view of its base's tangent, for every view op,
as in PyTorch, so a write into either tangent shows in the other. Compared with torch,
and checked without it through shared memory and the values each write leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule

# Each takes (library, a (3, 4) dual tensor) and returns a view of it.
VIEW_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "view": lambda m, x: x.view(12),
    "view_as": lambda m, x: x.view_as(m.zeros(2, 6)),
    "reshape": lambda m, x: x.reshape(2, 6),
    "flatten": lambda m, x: x.flatten(),
    "unflatten": lambda m, x: x.unflatten(1, (2, 2)),
    "transpose": lambda m, x: x.transpose(0, 1),
    "swapaxes": lambda m, x: x.swapaxes(0, 1),
    "swapdims": lambda m, x: x.swapdims(0, 1),
    "permute": lambda m, x: x.permute(1, 0),
    "t": lambda m, x: x.t(),
    "T": lambda m, x: x.T,
    "mT": lambda m, x: x.mT,
    "movedim": lambda m, x: x.movedim(0, 1),
    "moveaxis": lambda m, x: m.moveaxis(x, 0, 1),
    "select": lambda m, x: x[1],
    "select_method": lambda m, x: x.select(1, 2),
    "slice": lambda m, x: x[:, 1:3],
    "slice_step": lambda m, x: x[::2],
    "narrow": lambda m, x: x.narrow(1, 1, 2),
    "ellipsis": lambda m, x: x[..., 1],
    "none": lambda m, x: x[None],
    "alias": lambda m, x: x[...],
    "unsqueeze": lambda m, x: x.unsqueeze(1),
    "unsqueeze_last": lambda m, x: x.unsqueeze(-1),
    "squeeze_dim": lambda m, x: x[:1].squeeze(0),
    "squeeze_all": lambda m, x: x[:1].squeeze(),
    "squeeze_dims": lambda m, x: x[:1, :1].squeeze((0, 1)),
    "diagonal": lambda m, x: x.diagonal(),
    "diagonal_offset": lambda m, x: m.diagonal(x, 1),
    "split": lambda m, x: x.split(1)[0],
    "split_dim1": lambda m, x: x.split(2, 1)[1],
    "split_sizes": lambda m, x: x.split([1, 2])[1],
    "split_with_sizes": lambda m, x: m.split_with_sizes(x, [2, 1])[0],
    "chunk": lambda m, x: x.chunk(2, 1)[1],
    "unbind": lambda m, x: x.unbind()[2],
    "unbind_dim1": lambda m, x: x.unbind(1)[1],
    "tensor_split": lambda m, x: x.tensor_split(2, 1)[1],
    "hsplit": lambda m, x: x.hsplit(2)[1],
    "vsplit": lambda m, x: x.vsplit(3)[1],
    "view_of_a_view": lambda m, x: x.t()[1:][0],
    "split_of_a_view": lambda m, x: x.t().split(1)[1],
    "flatten_of_a_slice": lambda m, x: x[:2].flatten(),
    "atleast_2d": lambda m, x: m.atleast_2d(x),
    "contiguous": lambda m, x: x.contiguous(),
}
# Views whose elements overlap: PyTorch refuses to write into their tangent.
EXPANDING_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "expand": lambda m, x: x[:1].expand(4, 4),
    "expand_as": lambda m, x: x[:1].expand_as(m.zeros(2, 4)),
    "broadcast_to": lambda m, x: m.broadcast_to(x[:1], (2, 4)),
}


def _dual(m: Any) -> tuple[Any, Any, Any]:
    """A dual tensor with primal arange(12) and a tangent of zeros; and that tangent."""
    fw = m.autograd.forward_ad
    tangent = m.zeros(3, 4)
    return fw.make_dual(m.arange(12.0).reshape(3, 4), tangent), tangent, fw


def _writes_both_ways(m: Any, op: Callable[[Any, Any], Any], into_view: bool) -> list[Any]:
    """What each tangent holds after writing into the view's tangent, then into the base's."""
    with m.autograd.forward_ad.dual_level():
        x, tangent, fw = _dual(m)
        v = op(m, x)
        vt = fw.unpack_dual(v).tangent
        out: list[Any] = [list(vt.shape), vt is tangent, vt._base is not None]
        if into_view:
            vt.add_(1.0)
            out.append(tangent.sum().item())
        tangent.mul_(3.0)
        tangent[0, 0] = 7.0
        out += [vt.sum().item(), fw.unpack_dual(x).tangent.sum().item()]
        return out


@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_view_tangents_match_torch(torch: Any, name: str) -> None:
    op = VIEW_OPS[name]
    assert _writes_both_ways(chainrule, op, True) == _writes_both_ways(torch, op, True)


@pytest.mark.parametrize("name", list(EXPANDING_OPS))
def test_expanded_tangents_follow_the_base(torch: Any, name: str) -> None:
    op = EXPANDING_OPS[name]
    assert _writes_both_ways(chainrule, op, False) == _writes_both_ways(torch, op, False)


@pytest.mark.parametrize("name", list(VIEW_OPS) + list(EXPANDING_OPS))
def test_view_tangents_share_the_base_tangent(name: str) -> None:
    op = {**VIEW_OPS, **EXPANDING_OPS}[name]
    with chainrule.autograd.forward_ad.dual_level():
        x, tangent, fw = _dual(chainrule)
        v = op(chainrule, x)
        vt = fw.unpack_dual(v).tangent
        assert np.shares_memory(vt._data, tangent._data)
        # The view of the tangent is the same view as the view of the primal.
        positions = op(chainrule, chainrule.arange(12.0).reshape(3, 4))
        tangent.copy_(chainrule.arange(12.0).reshape(3, 4) * 2)
        assert vt.tolist() == (positions * 2).tolist()


@pytest.mark.parametrize("name", ["split", "chunk", "unbind", "split_with_sizes"])
def test_every_output_of_a_multi_view_op_shares_the_tangent(name: str) -> None:
    make = {
        "split": lambda x: x.split(1),
        "chunk": lambda x: x.chunk(2, 1),
        "unbind": lambda x: x.unbind(1),
        "split_with_sizes": lambda x: x.split_with_sizes([2, 1]),
    }[name]
    with chainrule.autograd.forward_ad.dual_level():
        x, tangent, fw = _dual(chainrule)
        outs = make(x)
        for i, out in enumerate(outs):
            fw.unpack_dual(out).tangent.add_(i + 1)
        # Together the outputs cover the base once: each element got its output's number.
        expected = [(i + 1) * np.ones(o.shape) for i, o in enumerate(outs)]
        joined = chainrule.cat([chainrule.tensor(e) for e in expected], 0 if name != "chunk" else 1)
        if name == "unbind":
            joined = chainrule.stack([chainrule.tensor(e) for e in expected], 1)
        assert tangent.tolist() == joined.float().tolist()


def test_in_place_on_a_split_output_updates_the_base_tangent() -> None:
    fw = chainrule.autograd.forward_ad
    with fw.dual_level():
        x, tangent, _ = _dual(chainrule)
        y = x * 1.0  # not a leaf's view: the write into a piece is allowed without grad
        with chainrule.no_grad():
            piece = y.split(2)[1]
            piece.mul_(fw.make_dual(chainrule.full((1, 4), 2.0), chainrule.ones(1, 4)))
        # d(piece * c) = dpiece * c + piece * dc: zeros * 2 + values of row 2
        assert fw.unpack_dual(y).tangent[2].tolist() == [8.0, 9.0, 10.0, 11.0]
        assert tangent.abs().sum().item() == 0.0
