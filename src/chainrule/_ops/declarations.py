"""Where each op's node name is declared, for the test that one name has one declaration."""

from __future__ import annotations

import os
import sys

__all__ = ["declared_at", "record_declaration"]

declared_at: dict[str, set[str]] = {}
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record_declaration(name: str) -> None:
    """Note where the Primitive being made under `name` is declared (`Primitive.__init__`)."""
    declared_at.setdefault(name, set()).add(_declaration_site())


def _declaration_site() -> str:
    """The module line that made a Primitive (through any factory, such as `Binary`,
    whose Primitives so count once); for one made while running, the innermost line of
    chainrule on the way; for one made outside chainrule, its caller."""
    caller = frame = sys._getframe(3)  # the code that called Primitive(...)
    innermost = None
    while frame is not None:
        path = frame.f_code.co_filename
        if path.startswith(_PACKAGE):
            where = f"{os.path.relpath(path, os.path.dirname(_PACKAGE))}:{frame.f_lineno}"
            if frame.f_code.co_name == "<module>":
                return where
            innermost = innermost or where
        frame = frame.f_back  # type: ignore[assignment]
    return innermost or f"{caller.f_code.co_filename}:{caller.f_lineno}"
