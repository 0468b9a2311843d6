"""PyTorch 2.13's public op names, and why chainrule leaves out the ones it does not have.

update_op_list.py writes the gap into docs/ops.md. The names PyTorch has are read from
torch when it is importable (and written to torch_2_13_names.json beside this file);
without torch they are read from that file, so the inventory needs no torch to check.
Every public name is either implemented by chainrule or matched by a line of LEFT_OUT
with its reason; tests/test_op_list.py fails on a name that is neither.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import inspect
import json
import types
from pathlib import Path
from typing import Any

import chainrule
import chainrule.linalg
import chainrule.nn.functional
import chainrule.special

chainrule._load_all()  # what it lists is defined where it is found loaded

DATA = Path(__file__).resolve().parent / "torch_2_13_names.json"
VERSION = "2.13"

# PyTorch's namespaces, and chainrule's object that should have the same names.
NAMESPACES: dict[str, Any] = {
    "torch": chainrule,
    "torch.Tensor": chainrule.Tensor,
    "torch.linalg": chainrule.linalg,
    "torch.special": chainrule.special,
    "torch.nn.functional": chainrule.nn.functional,
    "torch.fft": None,  # no chainrule.fft: every name is left out (see LEFT_OUT)
}

# --- why a name is left out ------------------------------------------------------------------

INTERNAL = (
    "internal or backend-specific: CUDA libraries, quantization, sparse layouts, autocast, "
    "devices other than the CPU"
)
COMPILER = "compilers, TorchScript, vmap and symbolic shapes: chainrule runs eagerly, in Python"
MEMORY = "storage, memory and sharing between processes: a chainrule tensor is a NumPy array"
COMPLEX = "needs complex dtypes, which chainrule does not have"
DTYPE = "needs a dtype chainrule does not have (bfloat16, complex32, ...)"
REMOVED = "removed from PyTorch: calling it there raises an error too"
RARE = "not differentiable and rarely used"
NOT_YET = "not yet done"

# Each reason with the names it covers: a glob on the bare name, or on "namespace.name"
# when it contains a dot ("torch.Tensor.new"). The first reason that matches is the one.
# fmt: off
LEFT_OUT: dict[str, tuple[str, ...]] = {
    INTERNAL: (
        "cudnn_*", "miopen_*", "mkldnn_*", "fbgemm_*", "*quantize*", "quantized_*", "q_*",
        "int_repr", "qscheme", "choose_qparams_optimized", "fused_moving_avg_obs_fake_quant",
        "*sparse*", "*spmm", "*smm", "saddmm", "hspmm", "sspaddmm", "segment_reduce",
        "ccol_indices*", "col_indices*", "crow_indices*", "row_indices*", "indices*", "values*",
        "coalesce", "is_coalesced", "dense_dim", "to_dense", "to_mkldnn", "is_mkldnn",
        "*autocast*", "*_dtype", "xpu", "is_xpu", "ipu", "is_ipu", "mtia", "is_mtia", "is_maia",
        "is_mps", "is_vulkan*", "is_xla", "is_meta", "is_nested", "to_padded_tensor",
        "torch.Tensor.get_device", "torch.get_device_module", "*_dlpack", "is_distributed",
        "has_torch_function*", "handle_torch_function", "boolean_dispatch",
        "assert_int_or_pair", "torch.nn.functional.Optional", "batch_norm_*", "native_*",
        "*_backward*", "classproperty", "thread_safe_generator", "hash_tensor",
        "profiler_allow_*", "prepare_multiprocessing_environment", "compiled_with_cxx11_abi",
        "torch.get_file_path", "set_flush_denormal", "init_num_threads",
        "*deterministic*", "*warn_always*", "*float32_matmul_precision",
        "*num_interop_threads", "is_storage", "norm_except_dim",
        "torch.conv_tbc", "torch.nn.functional.conv_tbc", "constant_pad_nd",
        "*grid_sampler*", "affine_grid_generator", "torch.convolution",
        "torch.max_pool1d_with_indices", "*grouped_mm", "scaled_mm", "linear_cross_entropy",
        "torch.rnn_*", "torch.gru*", "torch.lstm*", "torch.dsmm",
        "torch.embedding_renorm_", "torch.Tensor.module_load", "torch.Tensor.as_subclass",
    ),
    COMPILER: (
        "compile", "vmap", "fork", "wait", "while_loop", "torch.cond", "sym_*",
        "torch.Tensor.index", "*_ir*",
        "parse_schema", "parse_type_comment", "merge_type_from_type_comment",
        "unify_type_list", "typename",
    ),
    MEMORY: (
        "storage", "storage_type", "untyped_storage", "pin_memory", "is_pinned",
        "share_memory_", "is_shared", "record_stream", "set_", "is_set_to", "from_file",
        "const_data_ptr", "resize", "resize_", "resize_as*", "empty_permuted", "dim_order",
        "apply_", "map_", "map2_", "torch.Tensor.new",
    ),
    COMPLEX: (
        "torch.fft.*", "complex", "polar", "view_as_real*", "view_as_complex*", "conj*",
        "is_conj", "resolve_conj", "is_neg", "resolve_neg", "real", "imag", "angle",
        "stft", "istft", "cdouble", "cfloat", "torch.linalg.eig", "torch.linalg.eigvals",
    ),
    DTYPE: ("bfloat16", "chalf"),
    REMOVED: (
        "torch.eig", "torch.Tensor.eig", "*lstsq", "torch.solve", "torch.Tensor.solve",
        "*symeig", "torch.matrix_rank", "reinforce", "volatile",
    ),
    RARE: (
        "slice_inverse", "geqrf", "ormqr",
        "binomial", "poisson", "torch.Tensor.name",
    ),
    NOT_YET: (
        # torch

        # torch.linalg
                         # torch.special
                        # torch.nn.functional
    ),
}
# fmt: on


def reason_for(namespace: str, name: str) -> str | None:
    """Why `namespace.name` is left out, or None if LEFT_OUT does not say."""
    qualified = f"{namespace}.{name}"
    for reason, patterns in LEFT_OUT.items():
        for pattern in patterns:
            if fnmatch.fnmatchcase(qualified if "." in pattern else name, pattern):
                return reason
    return None


# --- PyTorch's names -------------------------------------------------------------------------


def _kind(obj: Any) -> str:
    """ "native" for an op bound from C++ (its parser takes `axis=`, `keepdims=`, ...),
    "python" for one written in Python, "property" for a Tensor attribute."""
    if isinstance(obj, types.BuiltinFunctionType | types.MethodDescriptorType):
        return "native"
    if isinstance(obj, types.FunctionType):
        return "python"
    if isinstance(obj, types.GetSetDescriptorType | property):
        return "property"
    return type(obj).__name__


@functools.cache
def _stub_outs(torch: Any) -> frozenset[str]:
    """The torch.* functions bound from C++ that take `out=` in some signature, from the
    type stub PyTorch ships for them."""
    stub = Path(torch.__file__).parent / "_C" / "_VariableFunctions.pyi"
    return frozenset(
        node.name
        for node in ast.parse(stub.read_text()).body
        if isinstance(node, ast.FunctionDef)
        and any(a.arg == "out" for a in node.args.args + node.args.kwonlyargs)
    )


def _takes_out(torch: Any, label: str, name: str) -> bool:
    fn = getattr(torch.linalg if label == "torch.linalg" else torch.special, name, None)
    if label == "torch":
        fn = getattr(torch, name)
        if not isinstance(fn, types.FunctionType):
            return name in _stub_outs(torch)
    if isinstance(fn, types.FunctionType):
        return "out" in inspect.signature(fn).parameters
    # linalg and special have no stub: their docstrings open with the signature
    return "out=" in (fn.__doc__ or "").strip().split("\n\n", 1)[0]


def read_torch(torch: Any) -> dict[str, Any]:
    """The public names of PyTorch's op namespaces, with their kinds, and the functions of
    `torch`, `torch.linalg` and `torch.special` that take `out=`."""
    modules = {
        "torch": torch,
        "torch.Tensor": torch.Tensor,
        "torch.linalg": torch.linalg,
        "torch.special": torch.special,
        "torch.nn.functional": torch.nn.functional,
        "torch.fft": torch.fft,
    }
    names: dict[str, dict[str, str]] = {}
    for label, module in modules.items():
        found = {}
        for name in dir(module):
            if name.startswith("_"):
                continue
            obj = (
                getattr(module, name)
                if label != "torch.Tensor"
                else vars(torch.Tensor).get(name, getattr(module, name))
            )
            if label != "torch.Tensor" and (
                isinstance(obj, type | types.ModuleType | torch.dtype) or not callable(obj)
            ):
                continue  # classes, modules, dtypes and constants are not ops
            found[name] = _kind(obj)
        names[label] = dict(sorted(found.items()))
    out = {
        label: sorted(n for n in names[label] if _takes_out(torch, label, n))
        for label in ("torch", "torch.linalg", "torch.special")
    }
    return {"version": torch.__version__.split("+")[0], "names": names, "out": out}


def torch_names(refresh: bool = True) -> dict[str, Any]:
    """PyTorch's names: read from torch 2.13 (and saved) when it is importable, else the
    saved ones."""
    if refresh:
        try:
            import torch  # only where installed; the saved file stands in otherwise
        except ImportError:
            torch = None
        if torch is not None and torch.__version__.startswith(VERSION):
            data = read_torch(torch)
            text = json.dumps(data, indent=1, sort_keys=True) + "\n"
            if not DATA.exists() or DATA.read_text() != text:
                DATA.write_text(text)
            return data
    return json.loads(DATA.read_text())


def has(namespace: str, name: str) -> bool:
    """chainrule has `namespace.name` (a Tensor attribute counts as well as a function)."""
    target = NAMESPACES[namespace]
    return target is not None and hasattr(target, name)


def inventory(data: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """For each namespace, the names chainrule has ("implemented"), those left out by
    reason, and those neither ("unexplained", which must be empty)."""
    out: dict[str, dict[str, list[str]]] = {}
    for label in NAMESPACES:
        if label not in data["names"]:
            continue
        names = data["names"][label]
        groups: dict[str, list[str]] = {"implemented": [], "unexplained": []}
        for name in names:
            if has(label, name):
                groups["implemented"].append(name)
            else:
                groups.setdefault(reason_for(label, name) or "unexplained", []).append(name)
        out[label] = groups
    return out


def unused_patterns(data: dict[str, Any]) -> list[str]:
    """Lines of LEFT_OUT that match no left-out name (an op since implemented, or a typo)."""
    used: set[str] = set()
    for label, names in data["names"].items():
        for name in names:
            if has(label, name):
                continue
            qualified = f"{label}.{name}"
            for patterns in LEFT_OUT.values():
                for pattern in patterns:
                    if fnmatch.fnmatchcase(qualified if "." in pattern else name, pattern):
                        used.add(pattern)
    return [p for patterns in LEFT_OUT.values() for p in patterns if p not in used]


def render_gap(data: dict[str, Any]) -> str:
    """docs/ops.md's section on the public names of PyTorch chainrule leaves out."""
    inv = inventory(data)
    out = [
        f"## Left out of PyTorch {VERSION}'s public lists",
        "",
        "Read from PyTorch's namespaces by `scripts/torch_inventory.py` (saved in",
        "`scripts/torch_2_13_names.json`); functions and, for `torch.Tensor`, methods and",
        "attributes. Each name chainrule does not have is listed under its reason.",
        "",
        "| namespace | public names | in chainrule | left out |",
        "|---|---|---|---|",
    ]
    for label, groups in inv.items():
        total = sum(len(v) for v in groups.values())
        have = len(groups["implemented"])
        out.append(f"| `{label}` | {total} | {have} | {total - have} |")
    out.append("")
    for reason in LEFT_OUT:
        rows = [(label, groups.get(reason, [])) for label, groups in inv.items()]
        count = sum(len(names) for _, names in rows)
        if not count:
            continue
        out += [f"### {reason[0].upper()}{reason[1:]} ({count})", ""]
        for label, names in rows:
            if names:
                out.append(f"- **{label}** ({len(names)}): " + ", ".join(f"`{n}`" for n in names))
        out.append("")
    unexplained = {label: g["unexplained"] for label, g in inv.items() if g["unexplained"]}
    if unexplained:
        out += ["### Without a reason (add one to LEFT_OUT)", ""]
        out += [f"- **{label}**: " + ", ".join(names) for label, names in unexplained.items()]
        out.append("")
    return "\n".join(out)
