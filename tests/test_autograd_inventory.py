"""The autograd inventory: every public name of PyTorch's autograd (recorded in
tests/data/torch_autograd_names.json) is in chainrule or left out with a reason, and
docs/autograd.md is what scripts/autograd_inventory.py writes."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "autograd_inventory.py"


@pytest.fixture(scope="module")
def inventory() -> ModuleType:
    spec = importlib.util.spec_from_file_location("autograd_inventory", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("autograd_inventory", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def recorded(inventory: ModuleType) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(inventory.DATA.read_text())
    return data


def test_every_name_is_implemented_or_left_out_with_a_reason(
    inventory: ModuleType, recorded: dict[str, Any]
) -> None:
    unaccounted = [
        dotted for _, dotted, _, has, why in inventory.entries(recorded) if not has and not why
    ]
    assert unaccounted == [], "implement these, or list them in LEFT_OUT with the reason"


def test_no_implemented_name_is_also_listed_as_left_out(
    inventory: ModuleType, recorded: dict[str, Any]
) -> None:
    stale = [dotted for _, dotted, _, has, why in inventory.entries(recorded) if has and why]
    assert stale == [], "these are implemented now: take them out of LEFT_OUT"


def test_every_left_out_entry_names_a_recorded_name(
    inventory: ModuleType, recorded: dict[str, Any]
) -> None:
    names = {dotted for _, dotted, _, _, _ in inventory.entries(recorded)}
    unused = [
        key
        for key in inventory.LEFT_OUT
        if not (key in names or (key.endswith(".") and any(n.startswith(key) for n in names)))
    ]
    assert unused == []


def test_the_inventory_counts_what_it_lists(
    inventory: ModuleType, recorded: dict[str, Any]
) -> None:
    rows = inventory.entries(recorded)
    assert len(rows) == sum(len(v) for v in recorded["modules"].values()) + len(
        recorded["elsewhere"]
    )
    assert len(rows) > 100 and recorded["version"] == "2.13.0"
    # The names the surface work was about are there and implemented.
    wanted = {
        "torch.autograd.graph.GradientEdge",
        "torch.autograd.graph.get_gradient_edge",
        "torch.autograd.graph.increment_version",
        "torch.autograd.graph.allow_mutation_on_saved_tensors",
        "torch.utils.checkpoint.set_checkpoint_early_stop",
        "torch.is_inference",
        "torch.autograd.Variable._execution_engine.queue_callback",
    }
    assert wanted <= {dotted for _, dotted, _, has, _ in rows if has}


def test_docs_autograd_md_is_up_to_date(inventory: ModuleType, recorded: dict[str, Any]) -> None:
    committed = inventory.DOC.read_text() if inventory.DOC.exists() else ""
    assert inventory.generate(recorded) == committed, inventory.STALE


def test_recorded_names_are_torchs(
    torch: Any, inventory: ModuleType, recorded: dict[str, Any]
) -> None:
    if torch.__version__.split("+")[0] != recorded["version"]:
        pytest.skip(f"names were recorded from PyTorch {recorded['version']}")
    assert inventory.record() == recorded, (
        "run python scripts/autograd_inventory.py --record with the installed torch"
    )
