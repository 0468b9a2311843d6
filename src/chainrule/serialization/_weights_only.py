"""The weights-only unpickler: a small pickle machine that builds only what a checkpoint holds.

It runs the opcodes of pickle protocol 2 that `torch.save` writes and nothing else.
A global is looked up in an allow-list (PyTorch's rebuild functions, storage classes,
dtypes, Size, device, OrderedDict, ... by their PyTorch names), so no other code can
run while loading; anything else raises `pickle.UnpicklingError` with PyTorch's
message, before it is called.
"""

from __future__ import annotations

import _compat_pickle
import pickle
import struct
import warnings
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import IO, Any

from .. import nn
from ._names import TORCH_ONLY, allowed_globals

__all__ = ["WeightsUnpickler", "add_safe_globals", "clear_safe_globals", "get_safe_globals"]

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_user_globals: set[Any] = set()


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these globals (objects, or (object, "module.name") pairs) in weights-only loads."""
    _user_globals.update(safe_globals)


def get_safe_globals() -> list[Any]:
    return list(_user_globals)


def clear_safe_globals() -> None:
    _user_globals.clear()


def _user_allowed() -> dict[str, Any]:
    table = {}
    for entry in _user_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"tuple of length: {len(entry)}"
                )
            obj, name = entry
            table[name] = obj
        else:
            table[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return table


def _unsupported_global(full_path: str) -> pickle.UnpicklingError:
    # PyTorch names a builtin without its module: "GLOBAL eval".
    shown = full_path.removeprefix("builtins.") if full_path.startswith("builtins.") else full_path
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function."
    )


class WeightsUnpickler:
    """Loads one pickle, allowing only allow-listed globals; `persistent_load` gives storages."""

    def __init__(
        self,
        file: IO[bytes],
        persistent_load: Callable[[Any], Any],
        *,
        encoding: str = "bytes",
    ) -> None:
        self._read = file.read
        self._readline = file.readline
        self._persistent_load = persistent_load
        self._encoding = encoding
        self._memo: dict[int, Any] = {}
        self._stack: list[Any] = []
        self._marks: list[list[Any]] = []
        self._allowed = {**allowed_globals(), **_user_allowed()}
        self._parameter = getattr(nn, "Parameter", None)

    def load(self) -> Any:
        handlers = self._handlers()
        while True:
            code = self._read(1)
            if not code:
                raise EOFError
            if code == pickle.STOP:
                return self._stack.pop()
            handler = handlers.get(code)
            if handler is None:
                raise pickle.UnpicklingError(f"Unsupported operand {code[0]}")
            handler()

    def _handlers(self) -> dict[bytes, Callable[[], None]]:
        return {
            pickle.PROTO: self._proto,
            pickle.GLOBAL: self._global,
            pickle.REDUCE: self._reduce,
            pickle.NEWOBJ: self._newobj,
            pickle.BUILD: self._build,
            pickle.BINPERSID: self._persid,
            pickle.MARK: self._mark,
            pickle.TUPLE: self._tuple_from_mark,
            pickle.TUPLE1: lambda: self._tuple(1),
            pickle.TUPLE2: lambda: self._tuple(2),
            pickle.TUPLE3: lambda: self._tuple(3),
            pickle.EMPTY_TUPLE: lambda: self._stack.append(()),
            pickle.EMPTY_LIST: lambda: self._stack.append([]),
            pickle.EMPTY_DICT: lambda: self._stack.append({}),
            pickle.EMPTY_SET: lambda: self._stack.append(set()),
            pickle.APPEND: self._append,
            pickle.APPENDS: self._appends,
            pickle.SETITEM: self._setitem,
            pickle.SETITEMS: self._setitems,
            pickle.NONE: lambda: self._stack.append(None),
            pickle.NEWTRUE: lambda: self._stack.append(True),
            pickle.NEWFALSE: lambda: self._stack.append(False),
            pickle.BININT: lambda: self._stack.append(struct.unpack("<i", self._read(4))[0]),
            pickle.BININT1: lambda: self._stack.append(self._read(1)[0]),
            pickle.BININT2: lambda: self._stack.append(struct.unpack("<H", self._read(2))[0]),
            pickle.LONG1: self._long1,
            pickle.BINFLOAT: lambda: self._stack.append(struct.unpack(">d", self._read(8))[0]),
            pickle.BINUNICODE: self._binunicode,
            pickle.SHORT_BINSTRING: self._short_binstring,
            pickle.BINGET: lambda: self._stack.append(self._memo[self._read(1)[0]]),
            pickle.LONG_BINGET: lambda: self._stack.append(
                self._memo[struct.unpack("<I", self._read(4))[0]]
            ),
            pickle.BINPUT: lambda: self._put(self._read(1)[0]),
            pickle.LONG_BINPUT: lambda: self._put(struct.unpack("<I", self._read(4))[0]),
        }

    # --- the opcodes that can reach code: globals, calls, object state ----------------

    def _global(self) -> None:
        module = self._readline()[:-1].decode("utf-8")
        name = self._readline()[:-1].decode("utf-8")
        # Protocol 2 writes Python 2's names for some builtins (`__builtin__ set`).
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
            )
        if full_path in self._allowed:
            self._stack.append(self._allowed[full_path])
            return
        if full_path in TORCH_ONLY:
            raise RuntimeError(f"chainrule cannot load {full_path}: it has no equivalent")
        raise _unsupported_global(full_path)

    def _is_allowed(self, obj: Any) -> bool:
        return any(obj is allowed for allowed in self._allowed.values())

    def _reduce(self) -> None:
        args = self._stack.pop()
        func = self._stack[-1]
        if not self._is_allowed(func):
            message = f"Trying to call reduce for unrecognized function {func}"
            if hasattr(func, "__self__"):
                message += f" which belongs to {func.__self__}"
            raise pickle.UnpicklingError(message)
        self._stack[-1] = func(*args)

    def _newobj(self) -> None:
        args = self._stack.pop()
        cls = self._stack.pop()
        if self._parameter is not None and cls is self._parameter:
            self._stack.append(cls(*args))
        elif self._is_allowed(cls) and isinstance(cls, type):
            self._stack.append(cls.__new__(cls, *args))
        else:
            raise pickle.UnpicklingError(
                "Can only create new object for nn.Parameter or classes allowlisted via "
                f"`add_safe_globals` but got {cls}"
            )

    def _build(self) -> None:
        state = self._stack.pop()
        inst = self._stack[-1]
        if type(inst) is OrderedDict:
            inst.__dict__.update(state)
        elif self._is_allowed(type(inst)):
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
                return
            slots = None  # pickle's BUILD: a dict, or (dict, slots dict)
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            for key, value in (state or {}).items():
                setattr(inst, key, value)
            for key, value in (slots or {}).items():
                setattr(inst, key, value)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {type(inst)}"
            )

    def _persid(self) -> None:
        pid = self._stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise pickle.UnpicklingError(
                f"persistent_load id must be tuple or int, but got {type(pid)}"
            )
        if type(pid) is tuple and pid and _ascii(pid[0]) != "storage":
            raise pickle.UnpicklingError(
                f"Only persistent_load of storage is allowed, but got {type(pid[0])}"
            )
        self._stack.append(self._persistent_load(pid))

    # --- containers and values ----------------------------------------------------------

    def _proto(self) -> None:
        protocol = self._read(1)[0]
        if protocol != 2:
            warnings.warn(
                f"Detected pickle protocol {protocol} in the checkpoint, which was not the "
                "default pickle protocol used by `torch.load` (2). The weights_only Unpickler "
                "might not support all instructions implemented by this protocol, please file "
                "an issue for adding support if you encounter this.",
                stacklevel=4,
            )

    def _mark(self) -> None:
        self._marks.append(self._stack)
        self._stack = []

    def _pop_mark(self) -> list[Any]:
        items = self._stack
        self._stack = self._marks.pop()
        return items

    def _tuple_from_mark(self) -> None:
        items = tuple(self._pop_mark())  # first: popping the mark switches stacks
        self._stack.append(items)

    def _tuple(self, n: int) -> None:
        items = tuple(self._stack[-n:])
        del self._stack[-n:]
        self._stack.append(items)

    def _append(self) -> None:
        item = self._stack.pop()
        target = self._stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only append to lists, but got {type(target)}")
        target.append(item)

    def _appends(self) -> None:
        items = self._pop_mark()
        target = self._stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only extend lists, but got {type(target)}")
        target.extend(items)

    def _dict_target(self, opcode: str) -> Any:
        target = self._stack[-1]
        if type(target) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, "
                f"but got {type(target)}"
            )
        return target

    def _setitem(self) -> None:
        value = self._stack.pop()
        key = self._stack.pop()
        self._dict_target("SETITEM")[key] = value

    def _setitems(self) -> None:
        items = self._pop_mark()
        target = self._dict_target("SETITEMS")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _long1(self) -> None:
        n = self._read(1)[0]
        self._stack.append(int.from_bytes(self._read(n), "little", signed=True))

    def _binunicode(self) -> None:
        (length,) = struct.unpack("<I", self._read(4))
        self._stack.append(str(self._read(length), "utf-8", "surrogatepass"))

    def _short_binstring(self) -> None:
        data = self._read(self._read(1)[0])
        self._stack.append(data if self._encoding == "bytes" else data.decode(self._encoding))

    def _put(self, index: int) -> None:
        self._memo[index] = self._stack[-1]


def _ascii(value: Any) -> Any:
    return value.decode("ascii") if isinstance(value, bytes) else value
