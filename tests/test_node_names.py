"""One declaration per PyTorch node name: an op's forward and rules live in one place.

A Primitive shared by several functions, or the variants one factory line makes
(an op's nodes for each pattern of optional inputs), is one declaration.
"""

from __future__ import annotations

import importlib
import pkgutil

import chainrule
from chainrule._ops.primitive import declared_at


def test_each_node_name_is_declared_once() -> None:
    for module in pkgutil.walk_packages(chainrule.__path__, "chainrule."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    repeated = {name: sorted(sites) for name, sites in declared_at.items() if len(sites) > 1}
    assert repeated == {}
