"""`python -m chainrule.viz script.py [options] [-- script args]`: run a script and draw
the graph of the last tensor it called `.backward()` on (or of `--tensor NAME`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import runpy
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .._tensor import Tensor
from ._dot import render, to_dot
from ._explain import explain
from ._html import to_html
from ._names import names_from
from ._record import record
from ._text import format_graph

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m chainrule.viz",
        description=(
            "Run a Python script and draw the backward graph of the last tensor it called "
            ".backward() on (or of --tensor NAME). Arguments after `--` go to the script."
        ),
    )
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("--html", metavar="PATH", help="write the interactive HTML page")
    parser.add_argument("--dot", metavar="PATH", help="write Graphviz DOT text")
    parser.add_argument("--svg", metavar="PATH", help="render an SVG (needs Graphviz)")
    parser.add_argument("--png", metavar="PATH", help="render a PNG (needs Graphviz)")
    parser.add_argument("--text", action="store_true", help="print the graph as text (the default)")
    parser.add_argument("--tensor", metavar="NAME", help="draw this module-level tensor")
    parser.add_argument(
        "--explain", action="store_true", help="narrate every backward step as it runs"
    )
    parser.add_argument("--max-depth", type=int, metavar="N", help="collapse nodes deeper than N")
    parser.add_argument(
        "--show-saved", action="store_true", help="draw saved tensors (DOT, SVG, PNG)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    script_args: list[str] = []
    if "--" in args_in:  # everything after `--` belongs to the script
        cut = args_in.index("--")
        args_in, script_args = args_in[:cut], args_in[cut + 1 :]
    parser = _parser()
    args = parser.parse_args(args_in)
    if not Path(args.script).is_file():
        parser.error(f"no such script: {args.script}")

    with record() as recording:
        namespace, last = _run(args.script, script_args, args.explain)

    if args.tensor is not None:
        if namespace is None:
            parser.error(f"{args.script} ended with sys.exit(): its tensors are gone")
        target = namespace.get(args.tensor)
        if not isinstance(target, Tensor):
            known = ", ".join(sorted(names_from(namespace))) or "none"
            parser.error(
                f"{args.script} defines no module-level tensor named {args.tensor!r} "
                f"(its tensors: {known})"
            )
    elif last is None:
        parser.error(
            f"{args.script} never called .backward(): pass --tensor NAME to draw one of "
            "its module-level tensors"
        )
    else:
        target = last
    names = names_from(namespace or {})
    common: dict[str, Any] = {"names": names, "recording": recording, "max_depth": args.max_depth}
    wrote = []
    if args.dot:
        text = to_dot(target, show_saved=args.show_saved, **common)
        Path(args.dot).write_text(text, encoding="utf-8")
        wrote.append(args.dot)
    for path in (args.svg, args.png):
        if path:
            try:
                render(target, path, show_saved=args.show_saved, **common)
            except (ImportError, RuntimeError) as error:
                print(f"chainrule.viz: error: {error}", file=sys.stderr)
                return 1
            wrote.append(path)
    if args.html:
        to_html(target, args.html, **common)
        wrote.append(args.html)
    if args.text or not wrote:
        sys.stdout.write(format_graph(target, **common))
    for path in wrote:
        print(f"chainrule.viz: wrote {path}", file=sys.stderr)
    return 0


def _run(
    script: str, script_args: list[str], narrate: bool
) -> tuple[dict[str, Any] | None, Tensor | None]:
    """Run `script` as __main__: its globals (None after sys.exit), its last backward tensor."""
    last: list[Tensor] = []
    with _catch_backward(last, narrate), _as_main(script, script_args):
        try:
            namespace = runpy.run_path(script, run_name="__main__")
        except SystemExit as stop:
            if stop.code not in (None, 0):
                raise
            # A script ending with sys.exit(0) still has its graph drawn, but its
            # globals are gone with runpy's temporary module.
            namespace = None
    return namespace, last[-1] if last else None


@contextlib.contextmanager
def _catch_backward(last: list[Tensor], narrate: bool) -> Iterator[None]:
    """Remember every tensor `.backward()` is called on, while the script runs.

    With `narrate`, each backward is explained, naming tensors by the caller's
    global variables as they are at that moment.
    """
    original = Tensor.backward

    def backward(self: Tensor, *args: Any, **kwargs: Any) -> None:
        last.append(self)
        del last[:-1]  # only the last one is drawn; keep no other graph alive
        if not narrate:
            return original(self, *args, **kwargs)
        with explain(names=names_from(sys._getframe(1).f_globals)):
            return original(self, *args, **kwargs)

    Tensor.backward = backward  # type: ignore[method-assign]
    try:
        yield
    finally:
        Tensor.backward = original  # type: ignore[method-assign]


@contextlib.contextmanager
def _as_main(script: str, script_args: list[str]) -> Iterator[None]:
    """sys.argv and sys.path as `python script.py args` would have them."""
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *script_args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        yield
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path


if __name__ == "__main__":
    sys.exit(main())
