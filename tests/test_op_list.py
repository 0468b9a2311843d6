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

    assert not hasattr(chainrule.exp, "__wrapped__")
    assert not hasattr(chainrule.Tensor.__add__, "__wrapped__")
    assert not hasattr(chainrule.nn.functional.relu, "__wrapped__")
