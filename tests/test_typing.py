"""mypy sees Tensor's methods with their signatures: a wrong call is reported.

One mypy run over the package and a small snippet: the snippet's correct calls
check, its wrong ones are reported on their lines, and the stub that gives
Tensor its op methods for type checkers (`_tensor_surface.pyi`) is the one
scripts/make_tensor_stub.py makes from the table in `_tensor_methods/`.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("mypy")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "make_tensor_stub.py"

SNIPPET = """\
import chainrule as torch

x = torch.ones(2, 3)
y: torch.Tensor = (x.exp() * 2 + x.sin()).sum(dim=0, keepdim=True)
z: torch.Tensor = x.add_(1, alpha=2).clamp(min=0).T @ x
ok: bool = x.requires_grad and x.shape[0] == 2
x.exp(1)
x.no_such_method()
x.exp() + "a"
x.add()
n: int = x.exp()
"""

# line -> the error code mypy gives it; every other line must check.
EXPECTED = {
    7: "call-arg",  # too many arguments
    8: "attr-defined",  # no such method
    9: "operator",  # Tensor + str
    10: "call-arg",  # missing argument
    11: "assignment",  # a Tensor is not an int
}


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_tensor_stub", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, Any, Path]:
    script = _load_script()
    snippet = tmp_path_factory.mktemp("typing") / "uses_chainrule.py"
    snippet.write_text(SNIPPET)
    return script, script.mypy_build([str(snippet)]), snippet


def test_wrong_method_calls_are_reported_and_right_ones_check(
    run: tuple[ModuleType, Any, Path],
) -> None:
    _, result, snippet = run
    found: dict[int, str] = {}
    for line in result.errors:
        m = re.match(rf"{re.escape(str(snippet))}:(\d+): error: .*\[([a-z-]+)\]$", line)
        if m:
            found.setdefault(int(m.group(1)), m.group(2))
    assert found == EXPECTED, "\n".join(result.errors)


def test_the_package_type_checks(run: tuple[ModuleType, Any, Path]) -> None:
    _, result, snippet = run
    errors = [e for e in result.errors if not e.startswith(str(snippet)) and ": error:" in e]
    assert errors == []


def test_the_tensor_stub_is_up_to_date(run: tuple[ModuleType, Any, Path]) -> None:
    script, result, _ = run
    assert script.STUB.read_text() == script.render(result), (
        "src/chainrule/_tensor_surface.pyi is out of date: run scripts/make_tensor_stub.py"
    )
