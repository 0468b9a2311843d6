"""docs/ops.md and README.md's op block are what scripts/update_op_list.py writes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "update_op_list.py"


@pytest.fixture(scope="module")
def op_list() -> ModuleType:
    spec = importlib.util.spec_from_file_location("update_op_list", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("update_op_list", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(op_list: ModuleType) -> tuple[str, str, dict, dict]:
    return op_list.generate()


def test_docs_ops_md_is_up_to_date(op_list: ModuleType, generated: tuple) -> None:
    doc = generated[0]
    committed = op_list.DOC.read_text() if op_list.DOC.exists() else ""
    assert doc == committed, op_list.STALE


def test_readme_op_block_is_up_to_date(op_list: ModuleType, generated: tuple) -> None:
    readme = generated[1]
    assert readme == op_list.README.read_text(), op_list.STALE


def test_every_table_line_calls_a_public_op(generated: tuple) -> None:
    """A line that reaches no public op means the tracer missed it (or the line tests nothing)."""
    from op_table import OPS

    calls = generated[3]
    silent = [op.name for op in OPS if not calls.get(op.name)]
    assert not silent, f"table lines that called no public op: {silent}"


def test_tracing_puts_everything_back(op_list: ModuleType, generated: tuple) -> None:
    import chainrule

    assert not hasattr(chainrule.Tensor.exp, "__wrapped__")
    assert not hasattr(chainrule.exp.__wrapped__, "__wrapped__")  # only the out= wrapper
    assert not hasattr(chainrule.Tensor.__add__, "__wrapped__")
    assert not hasattr(chainrule.nn.functional.relu, "__wrapped__")


# --- PyTorch's public names: each implemented, or left out with a reason ----------------------


@pytest.fixture(scope="module")
def inventory(op_list: ModuleType) -> ModuleType:
    return op_list.torch_inventory


def test_every_public_torch_name_is_implemented_or_left_out_with_a_reason(
    inventory: ModuleType,
) -> None:
    groups = inventory.inventory(inventory.torch_names(refresh=False))
    unexplained = {ns: g["unexplained"] for ns, g in groups.items() if g["unexplained"]}
    assert not unexplained, (
        f"add these to torch_inventory.LEFT_OUT or implement them: {unexplained}"
    )


def test_a_name_without_a_reason_is_caught(inventory: ModuleType) -> None:
    data = {"names": {"torch": {"exp": "native", "frobnicate": "native", "cudnn_frob": "native"}}}
    groups = inventory.inventory(data)["torch"]
    assert groups["implemented"] == ["exp"]
    assert groups["unexplained"] == ["frobnicate"]
    assert groups[inventory.INTERNAL] == ["cudnn_frob"]


def test_no_left_out_line_names_an_implemented_op(inventory: ModuleType) -> None:
    """A line of LEFT_OUT that matches no missing name is stale: the op is done, drop the line."""
    assert inventory.unused_patterns(inventory.torch_names(refresh=False)) == []


def test_saved_names_are_torch_2_13s(torch: ModuleType, inventory: ModuleType) -> None:
    if not torch.__version__.startswith(inventory.VERSION):
        pytest.skip(f"the saved names are PyTorch {inventory.VERSION}'s")
    saved = inventory.torch_names(refresh=False)
    assert inventory.read_torch(torch) == saved, "run python scripts/update_op_list.py"
