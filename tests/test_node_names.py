"""One declaration per PyTorch node name: an op's forward and rules live in one place.

A Primitive shared by several functions, or the variants one factory line makes
(an op's nodes for each pattern of optional inputs), is one declaration.
"""

from __future__ import annotations

import importlib
import pkgutil

import chainrule
from chainrule._ops.declarations import declared_at

# Names that more than one op wears on purpose, each with the reason.
SHARED = {
    # A batched matmul is one node under the name of PyTorch's outermost node; PyTorch
    # reaches it through reshapes, mm or bmm and an _unsafe_view, which is not reproduced.
    "UnsafeViewBackward0": {
        "chainrule/_ops/shape/views.py",
        "chainrule/_ops/linalg/matrix_multiply.py",
    },
    # PyTorch gives this node both to as_strided and to a view remade after an in-place
    # write to its base; the remade one gathers the view's places from the base.
    "AsStridedBackward0": {
        "chainrule/_ops/shape/strided.py",
        "chainrule/_ops/view_tracking.py",
    },
    # PyTorch's diag of a matrix is its diagonal_copy: the same node, for dims (0, 1) only.
    "DiagonalBackward0_copy": {
        "chainrule/_ops/shape/diagonals.py",
        "chainrule/_ops/indexing/view_copies.py",
    },
    # PyTorch's one node for every op without a derivative; each op's node names the op
    # in the error it raises when backward reaches it.
    "torch::autograd::NotImplemented": {
        "chainrule/_ops/indexing/gather_scatter.py",
        "chainrule/_ops/reduction/counting.py",
        "chainrule/_ops/reduction/histograms.py",
        "chainrule/_ops/indexing/view_copies.py",
        "chainrule/_ops/linalg/ldl.py",
        "chainrule/_random_distributions.py",
        "chainrule/nn/functional/_loss_ctc.py",
        "chainrule/nn/functional/_loss_multi_margin.py",
    },
}


def test_each_node_name_is_declared_once() -> None:
    for module in pkgutil.walk_packages(chainrule.__path__, "chainrule."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    repeated = {
        name: sorted(sites)
        for name, sites in declared_at.items()
        if len(sites) > 1 and {site.split(":")[0] for site in sites} != SHARED.get(name)
    }
    assert repeated == {}
