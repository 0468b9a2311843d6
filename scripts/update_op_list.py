"""Write docs/ops.md and the op summary in README.md from the op table.

    python scripts/update_op_list.py

The public ops are the callables of `chainrule`, `chainrule.nn.functional`,
`chainrule.linalg` and `chainrule.special`, the Tensor methods that have no
`chainrule` function of the same name, and the operators. Which of them the op
table (tests/op_table.py and tests/optable_*.py) exercises is found by tracing:
every public op is wrapped with a recorder, each table line's `fn` runs once on
its first sample, and only the outermost calls are noted (the ops a line calls,
not the ones they call inside). A Tensor method and the `chainrule` function of
the same name count as one op: `x.exp()` counts for `chainrule.exp`.
tests/test_op_list.py checks that the committed files are up to date.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
DOC = ROOT / "docs" / "ops.md"
README = ROOT / "README.md"
BEGIN, END = "<!-- ops:begin -->", "<!-- ops:end -->"
STALE = "docs/ops.md is stale: run python scripts/update_op_list.py"

for path in (TESTS, ROOT / "scripts"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import torch_inventory  # noqa: E402

import chainrule  # noqa: E402
import chainrule.linalg  # noqa: E402
import chainrule.nn.functional  # noqa: E402
import chainrule.special  # noqa: E402
from chainrule._lazy import resolve  # noqa: E402

chainrule._load_all()  # what it lists is defined where it is found loaded

# --- what counts as an op ----------------------------------------------------------------

# Public callables of the top-level `chainrule` namespace that are not ops.
# (Classes, modules and dtypes are left out without being listed.)
# fmt: off
NOT_OPS_TOP = frozenset(
    {
        # factories
        "arange", "as_tensor", "empty", "empty_like", "eye", "from_numpy", "full",
        "full_like", "linspace", "ones", "ones_like", "rand", "rand_like", "randint",
        "randint_like", "randn", "randn_like", "randperm", "tensor", "zeros", "zeros_like",
        "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
        "HalfTensor", "IntTensor", "LongTensor", "ShortTensor",
        # random state
        "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
        # dtypes and printing
        "get_default_dtype", "set_default_dtype", "promote_types",
        "get_printoptions", "set_printoptions",
        # grad modes
        "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
        "inference_mode", "is_inference_mode_enabled", "is_inference",
        "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled",
        # questions answered with a Python value
        "is_tensor", "numel", "allclose", "equal", "is_floating_point", "is_complex",
        "is_signed", "is_nonzero", "is_same_size",
        # files
        "save", "load",
    }
)

# Public Tensor methods that are not ops (besides those named in NOT_OPS_TOP).
NOT_OPS_TENSOR = frozenset(
    {
        # autograd bookkeeping
        "backward", "register_hook", "retain_grad", "requires_grad_", "detach", "detach_",
        # questions answered with a Python value, and conversions out of chainrule
        "dim", "ndimension", "nelement", "element_size", "size", "stride", "data_ptr",
        "is_complex", "is_contiguous", "is_floating_point", "item", "tolist", "numpy",
        "is_signed", "is_same_size", "is_nonzero", "storage_offset",
        "type", "cpu", "cuda", "is_inference",
        # factories
        "new_tensor", "new_zeros", "new_ones", "new_full", "new_empty",
    }
)
# fmt: on

# Tensor properties that are ops.
TENSOR_PROPERTIES = ("T", "mT")

# The operators, each with the Tensor dunders that implement it.
OPERATORS: dict[str, tuple[str, ...]] = {
    "x + y": ("__add__", "__radd__"),
    "x - y": ("__sub__", "__rsub__"),
    "x * y": ("__mul__", "__rmul__"),
    "x / y": ("__truediv__", "__rtruediv__"),
    "x ** y": ("__pow__", "__rpow__"),
    "x @ y": ("__matmul__", "__rmatmul__"),
    "x // y": ("__floordiv__", "__rfloordiv__"),
    "x % y": ("__mod__", "__rmod__"),
    "-x": ("__neg__",),
    "+x": ("__pos__",),
    "abs(x)": ("__abs__",),
    "x[i]": ("__getitem__",),
    "x[i] = v": ("__setitem__",),
    "x += y": ("__iadd__",),
    "x -= y": ("__isub__",),
    "x *= y": ("__imul__",),
    "x /= y": ("__itruediv__",),
    "x **= y": ("__ipow__",),
    "x //= y": ("__ifloordiv__",),
    "x %= y": ("__imod__",),
    "x == y": ("__eq__",),
    "x != y": ("__ne__",),
    "x < y": ("__lt__",),
    "x <= y": ("__le__",),
    "x > y": ("__gt__",),
    "x >= y": ("__ge__",),
    "x & y": ("__and__", "__rand__"),
    "x | y": ("__or__", "__ror__"),
    "x ^ y": ("__xor__", "__rxor__"),
    "~x": ("__invert__",),
    "x << y": ("__lshift__", "__rlshift__"),
    "x >> y": ("__rshift__", "__rrshift__"),
    "x &= y": ("__iand__",),
    "x |= y": ("__ior__",),
    "x ^= y": ("__ixor__",),
    "x <<= y": ("__ilshift__",),
    "x >>= y": ("__irshift__",),
}

TOP, TENSOR, OPERATOR = "chainrule", "Tensor methods", "operators"
FUNCTIONAL, LINALG, SPECIAL = "chainrule.nn.functional", "chainrule.linalg", "chainrule.special"
NAMESPACES = (TOP, TENSOR, OPERATOR, FUNCTIONAL, LINALG, SPECIAL)
MODULES: dict[str, ModuleType] = {
    TOP: chainrule,
    FUNCTIONAL: chainrule.nn.functional,
    LINALG: chainrule.linalg,
    SPECIAL: chainrule.special,
}

Key = tuple[str, str]  # (namespace, op name)


def _is_op_callable(obj: Any) -> bool:
    return (
        callable(obj)
        and not isinstance(obj, (type, ModuleType, chainrule.dtype))
        and getattr(obj, "__module__", "").startswith("chainrule")
    )


def _module_ops(module: ModuleType, exclude: frozenset[str] = frozenset()) -> list[str]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return sorted(
        n for n in names if n not in exclude and _is_op_callable(getattr(module, n, None))
    )


def _tensor_methods() -> list[str]:
    """Public Tensor methods that are ops (those a `chainrule` function shares are kept too)."""
    out = []
    for name in dir(chainrule.Tensor):
        if name.startswith("_") or name in NOT_OPS_TENSOR or name in NOT_OPS_TOP:
            continue
        if inspect.isfunction(inspect.getattr_static(chainrule.Tensor, name)):
            out.append(name)
    return sorted(out)


def public_ops() -> dict[str, list[str]]:
    """Every public op, by namespace."""
    ops = {
        ns: _module_ops(mod, NOT_OPS_TOP if ns == TOP else frozenset())
        for ns, mod in MODULES.items()
    }
    top = set(ops[TOP])
    ops[TENSOR] = sorted(
        [m for m in _tensor_methods() if m not in top]
        + [p for p in TENSOR_PROPERTIES if hasattr(chainrule.Tensor, p)]
    )
    ops[OPERATOR] = [
        op for op, dunders in OPERATORS.items() if any(d in vars(chainrule.Tensor) for d in dunders)
    ]
    return {ns: ops[ns] for ns in NAMESPACES}


# --- tracing ---------------------------------------------------------------------------------


@dataclass
class _Recorder:
    hits: set[Key] | None = None  # None: not recording
    depth: int = 0

    def wrap(self, fn: Callable[..., Any], key: Key) -> Callable[..., Any]:
        @functools.wraps(fn)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            if self.hits is None or self.depth:
                return fn(*args, **kwargs)
            self.hits.add(key)
            self.depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1

        return recorded


@dataclass
class _Patches:
    undo: list[tuple[Any, str, Any]] = field(default_factory=list)

    def set(self, owner: Any, name: str, value: Any) -> None:
        self.undo.append((owner, name, vars(owner)[name]))
        setattr(owner, name, value)

    def restore(self) -> None:
        for owner, name, original in reversed(self.undo):
            setattr(owner, name, original)
        self.undo.clear()


@contextmanager
def _tracing(ops: dict[str, list[str]]) -> Iterator[_Recorder]:
    """Wrap every public op with a recorder; put everything back on exit."""
    rec, patches = _Recorder(), _Patches()
    tensor = chainrule.Tensor
    try:
        for ns, module in MODULES.items():
            for name in ops[ns]:
                patches.set(module, name, rec.wrap(getattr(module, name), (ns, name)))
        top = set(ops[TOP])
        for name in _tensor_methods():
            key = (TOP, name) if name in top else (TENSOR, name)
            patches.set(tensor, name, rec.wrap(vars(tensor)[name], key))
        for name in ops[TENSOR]:
            prop = vars(tensor).get(name)
            if isinstance(prop, property) and prop.fget is not None:
                fget = rec.wrap(prop.fget, (TENSOR, name))
                patches.set(tensor, name, property(fget, prop.fset, prop.fdel, prop.__doc__))
        for op in ops[OPERATOR]:
            for dunder in OPERATORS[op]:
                if dunder in vars(tensor):
                    patches.set(tensor, dunder, rec.wrap(vars(tensor)[dunder], (OPERATOR, op)))
        yield rec
    finally:
        patches.restore()


def trace_table() -> tuple[dict[str, list[str]], dict[str, set[Key]]]:
    """The public ops, and for each op table line the public ops its `fn` calls."""
    from op_table import OPS
    from test_ops import as_tensors, sample_arrays

    ops = public_ops()
    calls: dict[str, set[Key]] = {}
    with _tracing(ops) as rec:
        for line in OPS:
            inputs = as_tensors(chainrule, sample_arrays(line, 0), "float64")
            rec.hits = set()
            try:
                with warnings.catch_warnings():  # deprecated spellings the table tests on purpose
                    warnings.simplefilter("ignore")
                    line.fn(*inputs)
                calls[line.name] = rec.hits
            finally:
                rec.hits = None
    return ops, calls


# --- writing ---------------------------------------------------------------------------------

DOC_INTRO = """\
# Ops

Generated by `python scripts/update_op_list.py` from the op table (`tests/op_table.py`
and `tests/optable_*.py`), which checks each line's value, first and second derivatives
against PyTorch and finite differences; do not edit by hand. An op counts as tested by a
table line when the line calls it directly (the ops it calls inside do not count);
`x.f(...)` counts for `chainrule.f`. "Defined in" names the file under `src/chainrule/`
whose top level defines the function (see docs/architecture.md for the layout).
"""


# --- where each op is defined --------------------------------------------------------------

PACKAGE = Path(chainrule.__file__).resolve().parent


@functools.cache
def _bindings(module_name: str) -> frozenset[str]:
    """The names a module binds itself at its top level (by def, class or assignment)."""
    module = sys.modules[module_name]
    source = Path(module.__file__ or "").read_text()
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names.add(name.id)
    return frozenset(names)


def defined_in(obj: Any) -> str:
    """The file (relative to the package) whose top level defines `obj`, or "" if none does."""
    obj = inspect.unwrap(obj)  # through the keyword spellings' wrapper (_ops/keywords.py)
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("chainrule") or not getattr(module, "__file__", None):
            continue
        if Path(module.__file__).name == "__init__.py":
            continue  # a package's __init__ only re-exports
        for name, value in vars(module).items():
            if inspect.unwrap(value) is obj and name in _bindings(module_name):
                return Path(module.__file__).resolve().relative_to(PACKAGE).as_posix()
    return ""


def op_object(ns: str, op: str) -> Any:
    """The function behind a public op (for an operator, its first dunder)."""
    if ns == OPERATOR:
        return inspect.getattr_static(chainrule.Tensor, OPERATORS[op][0])
    if ns == TENSOR:
        method = inspect.getattr_static(chainrule.Tensor, op)
        return resolve(method.fget) if isinstance(method, property) else method
    return getattr(MODULES[ns], op)


def _lines_of(calls: dict[str, set[Key]]) -> dict[Key, list[str]]:
    by_op: dict[Key, list[str]] = {}
    for line, keys in calls.items():
        for key in keys:
            by_op.setdefault(key, []).append(line)
    # Lines that call fewer ops test this one more directly: they come first.
    return {
        key: sorted(lines, key=lambda line: (len(calls[line]), line))
        for key, lines in by_op.items()
    }


def _shorten(names: list[str], most: int = 4) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:most])
    return shown + (f" +{len(names) - most} more" if len(names) > most else "")


def _cell(op: str) -> str:
    return f"`{op}`".replace("|", "\\|")


def _where(ns: str, op: str) -> str:
    where = defined_in(op_object(ns, op))
    return f"`{where}`" if where else ""


def render_doc(
    ops: dict[str, list[str]], calls: dict[str, set[Key]], torch_names: dict[str, Any]
) -> str:
    lines_of = _lines_of(calls)
    out = [DOC_INTRO]
    for ns in NAMESPACES:
        tested = [op for op in ops[ns] if (ns, op) in lines_of]
        out += [f"## {ns}", "", f"{len(tested)} of {len(ops[ns])} tested.", ""]
        out += ["| op | defined in | table lines that test it |", "|---|---|---|"]
        out += [
            f"| {_cell(op)} | {_where(ns, op)} | {_shorten(lines_of[ns, op])} |" for op in tested
        ]
        out.append("")
    out += ["## Not exercised by the op table", ""]
    for ns in NAMESPACES:
        missing = [op for op in ops[ns] if (ns, op) not in lines_of]
        out.append(
            f"- **{ns}** ({len(missing)}): " + (", ".join(f"`{op}`" for op in missing) or "none")
        )
    out += ["", torch_inventory.render_gap(torch_names)]
    return "\n".join(out)


def render_readme_block(ops: dict[str, list[str]], calls: dict[str, set[Key]]) -> str:
    lines_of = _lines_of(calls)
    out = [BEGIN]
    for ns in NAMESPACES:
        tested = [op for op in ops[ns] if (ns, op) in lines_of]
        item = f"- **{ns}** ({len(tested)}): " + ", ".join(f"`{op}`" for op in tested)
        out += textwrap.wrap(
            item, width=100, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
        )
    out += ["", "What each op is tested by, and the public ops the table does not reach yet:"]
    out += ["[docs/ops.md](docs/ops.md).", END]
    return "\n".join(out)


def replace_block(readme: str, block: str) -> str:
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.DOTALL)
    if not pattern.search(readme):
        raise SystemExit(f"README.md has no {BEGIN} ... {END} block: add the two markers to it")
    return pattern.sub(lambda _: block, readme, count=1)


def generate(
    refresh: bool = False,
) -> tuple[str, str, dict[str, list[str]], dict[str, set[Key]]]:
    """docs/ops.md's text, README.md's text with the block rewritten, the ops and the calls.
    `refresh` reads PyTorch's names from torch (if installed) and saves them first."""
    ops, calls = trace_table()
    readme = replace_block(README.read_text(), render_readme_block(ops, calls))
    return render_doc(ops, calls, torch_inventory.torch_names(refresh)), readme, ops, calls


def main() -> None:
    doc, readme, ops, calls = generate(refresh=True)
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(doc)
    README.write_text(readme)
    lines_of = _lines_of(calls)
    for ns in NAMESPACES:
        tested = sum((ns, op) in lines_of for op in ops[ns])
        print(f"{ns}: {tested} of {len(ops[ns])} tested")
    print(f"wrote {DOC.relative_to(ROOT)} and the op block of {README.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
