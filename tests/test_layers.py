"""The package's layers, read from the source: imports point downward only.

Below Tensor sit `chainrule._autograd` and a few leaf modules; they must not import
`chainrule._tensor` or anything above it. Every module imports at its top: imports
inside functions are the rare exception, and the module-level imports form no cycle
(see the Layers section of `chainrule._autograd`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "chainrule"

# What sits below Tensor: the lower package and the leaf modules Tensor is made of.
BELOW_TENSOR_PACKAGE = "chainrule._autograd"
BELOW_TENSOR_MODULES = {
    "chainrule._device",
    "chainrule._dims",
    "chainrule._dtype",
    "chainrule._float_math",
    "chainrule._layout",
    "chainrule._lazy",
    "chainrule._printing",
    "chainrule._public_names",
    "chainrule._size",
    "chainrule._strides",
}
MAX_FUNCTION_LEVEL_IMPORTS = 5


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The chainrule modules an import statement in `module` loads (outside chainrule: none)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "chainrule"]
    base = module if _is_package(module) else module.rpartition(".")[0]
    if node.level:
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        target = f"{base}.{node.module}" if node.module else base
    else:
        target = node.module or ""
    if target.split(".")[0] != "chainrule":
        return []
    # `from package import submodule` loads the submodule too.
    subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    return [target, *subs]


def _is_type_checking_block(node: ast.AST) -> bool:
    """`if TYPE_CHECKING:`, or `if TYPING:` (imports of modules loaded on first use)."""
    return isinstance(node, ast.If) and ast.unparse(node.test).rpartition(".")[2] in (
        "TYPE_CHECKING",
        "TYPING",
    )


def _top_level_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports run when the module loads: outside functions and `if TYPE_CHECKING:` blocks."""
    stack = list(ast.iter_child_nodes(tree))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if _is_type_checking_block(node):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _function_level_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    yield node


def _parse(module: str) -> ast.Module:
    return ast.parse(MODULES[module].read_text(), filename=str(MODULES[module]))


def _is_below_tensor(module: str) -> bool:
    return (
        module == BELOW_TENSOR_PACKAGE
        or module.startswith(BELOW_TENSOR_PACKAGE + ".")
        or module in BELOW_TENSOR_MODULES
    )


BELOW_TENSOR = sorted(m for m in MODULES if _is_below_tensor(m))


def test_the_lower_layer_exists() -> None:
    assert f"{BELOW_TENSOR_PACKAGE}.node" in BELOW_TENSOR
    assert "chainrule._tensor" not in BELOW_TENSOR


@pytest.mark.parametrize("module", BELOW_TENSOR)
def test_below_tensor_imports_nothing_above_it(module: str) -> None:
    tree = _parse(module)
    above = {
        target
        for node in _top_level_imports(tree)
        for target in _resolve(module, node)
        if target != "chainrule" and not _is_below_tensor(target)
    }
    assert not above, f"{module} imports {sorted(above)} at module level, above Tensor"


def test_function_level_imports_are_few() -> None:
    late = [
        f"{MODULES[module].relative_to(SRC)}:{node.lineno}: {ast.unparse(node)}"
        for module in MODULES
        for node in _function_level_imports(_parse(module))
        if _resolve(module, node)
    ]
    assert len(late) <= MAX_FUNCTION_LEVEL_IMPORTS, "\n".join(late)


# The layers, lowest first, by module-name prefix; what no prefix names is the top layer
# (nn, linalg, special, utils, viz and the package root).
LAYERS = [
    (BELOW_TENSOR_PACKAGE, *sorted(BELOW_TENSOR_MODULES)),
    ("chainrule._tensor",),
    (
        "chainrule._backward",
        "chainrule._conversion",
        "chainrule._creation",
        "chainrule._ops",
        "chainrule._random_distributions",
        "chainrule._random_factories",
        "chainrule._random_samplers",
        "chainrule.random",
        "chainrule.return_types",
    ),
    ("chainrule.autograd",),
]


def _layer(module: str) -> int:
    for i, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    return len(LAYERS)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the chainrule modules loading it loads first (a package's `__init__` included)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        own_packages = {module.rsplit(".", k)[0] for k in range(module.count(".") + 1)}
        for node in _top_level_imports(_parse(module)):
            for target in _resolve(module, node):
                parts = target.split(".")
                for k in range(2, len(parts) + 1):
                    loaded = ".".join(parts[:k])
                    if loaded in MODULES and loaded not in own_packages:
                        graph[module].add(loaded)
    return graph


def test_module_level_imports_form_no_cycle() -> None:
    graph = _import_graph()
    finished: set[str] = set()
    for start in sorted(graph):
        if start in finished:
            continue
        path = [start]
        walks = [iter(sorted(graph[start]))]
        while walks:
            nxt = next(walks[-1], None)
            if nxt is None:
                finished.add(path.pop())
                walks.pop()
                continue
            assert nxt not in path, "import cycle: " + " -> ".join([*path[path.index(nxt) :], nxt])
            if nxt not in finished:
                path.append(nxt)
                walks.append(iter(sorted(graph[nxt])))


def test_imports_point_downward() -> None:
    graph = _import_graph()
    upward = [
        f"{a} -> {b}" for a in sorted(graph) for b in sorted(graph[a]) if _layer(b) > _layer(a)
    ]
    assert not upward, "\n".join(upward)


def _lazy_references(module: str) -> Iterator[str]:
    """The modules `module` names for loading on first use (`LazyModule("chainrule.x")`)."""
    for node in ast.walk(_parse(module)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and ast.unparse(node.func).rpartition(".")[2] in ("LazyModule", "LazyMember")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            yield str(node.args[0].value)


def test_modules_loaded_on_first_use_exist_and_sit_no_higher() -> None:
    """A lazily loaded module is still a dependency: the same layering holds for it."""
    found = 0
    for module in MODULES:
        for target in _lazy_references(module):
            found += 1
            assert target in MODULES, f"{module} names {target}, which does not exist"
            assert _layer(target) <= _layer(module), f"{module} -> {target} points upward"
    assert found > 20


# The op library's own layers, lowest first: the core, then the families in the order
# they may import each other (a family imports only the core and the families before it).
OP_LAYERS = [
    (
        "primitive",
        "op_node",
        "operands",
        "lane",
        "declarations",
        "quiet",
        "broadcasting",
        "inplace",
        "view_tracking",
        "view_creation",
        "view_errors",
        "forward_mode",
        "keywords",
    ),
    ("elementwise", "shape"),
    ("indexing",),
    ("reduction", "special"),
    ("linalg",),
]


def _op_layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["chainrule", "_ops"] or len(parts) < 3:
        return None
    for i, names in enumerate(OP_LAYERS):
        if parts[2] in names:
            return i
    raise AssertionError(f"{module} belongs to no layer of the op library: add it to OP_LAYERS")


def test_op_families_import_downward() -> None:
    graph = _import_graph()
    wrong = []
    for a in sorted(graph):
        layer_a = _op_layer(a)
        if layer_a is None:
            continue
        family_a = a.split(".")[2]
        for b in sorted(graph[a]):
            layer_b = _op_layer(b)
            if layer_b is None or b.split(".")[2] == family_a:
                continue
            # The core's modules may use each other; families of one layer may not.
            if layer_b > layer_a or (layer_b == layer_a and layer_a > 0):
                wrong.append(f"{a} -> {b}")
    assert not wrong, "\n".join(wrong)
