"""Placeholder: filled in by the op library."""

__all__: list[str] = []
