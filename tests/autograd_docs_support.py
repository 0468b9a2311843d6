"""Helpers for the tests that run PyTorch's autograd documentation examples (under the
`lib` fixture of conftest.py: chainrule, then PyTorch): print an exception as PyTorch
would name it, and compare what an example printed with the recorded text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def show_error(fn: Callable[[], Any]) -> None:
    """Run `fn`, which must raise; print `ExceptionType: message`."""
    try:
        fn()
    except Exception as e:  # the examples' point is which exception, so catch them all
        print(f"{type(e).__name__}: {e}")
    else:
        raise AssertionError("expected an exception")


def printed(capsys: pytest.CaptureFixture[str], expected: str) -> None:
    """What the example printed is `expected` (leading newline and indentation ignored;
    chainrule's reprs name their package, `chainrule.float64`, where PyTorch's say `torch.`)."""
    out = capsys.readouterr().out.replace("chainrule.", "torch.")
    assert out == _dedent(expected), out


def _dedent(text: str) -> str:
    lines = text.split("\n")
    if lines and lines[0] == "":
        lines = lines[1:]
    body = [line for line in lines if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in body), default=0)
    return "\n".join(line[indent:] for line in lines)
