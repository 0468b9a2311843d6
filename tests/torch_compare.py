"""Helpers for tests that run one scenario on chainrule and on torch and compare."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Scenario = Callable[[Any], Any]


def registry() -> tuple[list[Scenario], Callable[[Scenario], Scenario]]:
    """A module's list of scenarios and the decorator that adds to it."""
    scenarios: list[Scenario] = []

    def scenario(fn: Scenario) -> Scenario:
        """Register `fn(m)` to be compared between chainrule and torch."""
        scenarios.append(fn)
        return fn

    return scenarios, scenario


def as_torch_text(text: str) -> str:
    return text.replace("chainrule.", "torch.")


def first_line(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return as_torch_text(lines[0]) if lines else ""
