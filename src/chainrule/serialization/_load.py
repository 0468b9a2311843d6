"""`load`: read a file written by `torch.save` or `chainrule.save` back into chainrule objects.

By default (`weights_only=True`, as in PyTorch 2.6 and later) the pickle is read by
the weights-only unpickler, which builds tensors and plain containers and refuses
any other global before calling it. `weights_only=False` trusts the file: a normal
unpickler runs it, reading PyTorch's globals as chainrule's namesakes.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import pickle
import re
import warnings
from collections.abc import Callable, Iterator
from typing import IO, Any

import numpy as np

from .._device import device
from ._names import allowed_globals
from ._storage import Storage, StorageType
from ._weights_only import WeightsUnpickler
from ._zipfile import ZipReader, is_zipfile

__all__ = ["load"]

_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
_NO_CPU_MAPPING = (
    "If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU."
)


def load(
    f: str | os.PathLike[str] | IO[bytes],
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load an object saved by `torch.save` or `chainrule.save` (PyTorch's zip format).

    `weights_only` (the default unless a `pickle_module` is given) accepts only
    tensors, dtypes, Size, device and plain containers, and runs nothing from the
    file. `map_location` ("cpu", a device, a dict or a callable) says where storages
    go; only the CPU exists. `mmap=True` maps a path's storages instead of reading them.
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError(
                "Can not safely load weights when explicit pickle_module is specified"
            )
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    elif pickle_module is None:
        pickle_module = pickle
    pickle_load_args.setdefault("encoding", "utf-8")
    with _opened(f) as stream:
        if not is_zipfile(stream):
            if mmap:
                name = f"{f}, " if isinstance(f, str) else ""
                raise RuntimeError(
                    "mmap can only be used with files saved with "
                    f"`torch.save({name}_use_new_zipfile_serialization=True), please torch.save "
                    "your checkpoint with this option in order to use mmap."
                )
            return _wrap_refusal(weights_only, lambda: _load_legacy(stream, weights_only))
        if mmap and not isinstance(f, str | os.PathLike):
            raise ValueError("f must be a file path in order to use the mmap argument")
        reader = ZipReader(stream)
        if reader.has_record("constants.pkl"):
            if weights_only:
                raise RuntimeError(
                    "Cannot use ``weights_only=True`` with TorchScript archives passed to "
                    "``torch.load``. " + _UNSAFE_MESSAGE
                )
            raise NotImplementedError("chainrule cannot load TorchScript archives")
        mapped = _map_file(f) if mmap else None
        return _wrap_refusal(
            weights_only,
            lambda: _load_zip(
                reader, map_location, weights_only, pickle_module, mapped, pickle_load_args
            ),
        )


def _map_file(f: Any) -> np.ndarray:
    """The file's bytes mapped copy-on-write (as PyTorch maps it): writes stay in memory."""
    return np.memmap(os.fspath(f), dtype=np.uint8, mode="c")


@contextlib.contextmanager
def _opened(f: Any) -> Iterator[IO[bytes]]:
    if isinstance(f, str | os.PathLike):
        with open(f, "rb") as stream:
            yield stream
        return
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as error:
        if "seek" in str(error) or "tell" in str(error):
            raise type(error)(
                f"{error}. You can only torch.load from a file that is seekable. Please pre-load "
                "the data into a buffer like io.BytesIO and try to load from it instead."
            ) from None
        raise
    yield f


def _wrap_refusal(weights_only: bool, run: Callable[[], Any]) -> Any:
    """Run the load; a weights-only refusal gets PyTorch's explanation around it."""
    if not weights_only:
        return run()
    try:
        return run()
    except pickle.UnpicklingError as error:
        raise pickle.UnpicklingError(_weights_only_message(str(error))) from None


def _weights_only_message(message: str) -> str:
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
            "please check the recommended steps in the following error message.\n\t"
            "WeightsUnpickler error: " + message + _DOCS_MESSAGE
        )
    if re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {_UNSAFE_MESSAGE}\n"
    result = f"Weights only load failed. {_UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        result += (
            "Please file an issue with the following so that we can make `weights_only=True` "
            "compatible with your use case: WeightsUnpickler error: "
        )
    return result + "\n\n" + message + _DOCS_MESSAGE


# --- where storages go ---------------------------------------------------------------------


def _restore(storage: Storage, location: str, map_location: Any) -> Storage:
    """`storage` placed where `map_location` sends a storage saved at `location`."""
    if isinstance(map_location, dict):
        location = map_location.get(location, location)
    elif isinstance(map_location, str | bytes | device):
        location = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
    elif map_location is not None:
        result = map_location(storage, location)
        if result is not None:
            if not isinstance(result, Storage):
                raise TypeError(
                    f"map_location must return a storage or None, got {type(result).__name__}"
                )
            return result
    if isinstance(location, device):
        location = str(location)
    kind = location.partition(":")[0]
    if kind == "cpu":
        return storage
    if kind == "cuda":
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            f"is False. {_NO_CPU_MAPPING}"
        )
    raise RuntimeError(
        "don't know how to restore data location of torch.storage.UntypedStorage "
        f"(tagged with {location})"
    )


# --- the zip format ------------------------------------------------------------------------


def _load_zip(
    reader: ZipReader,
    map_location: Any,
    weights_only: bool,
    pickle_module: Any,
    mapped: np.ndarray | None,
    pickle_load_args: dict[str, Any],
) -> Any:
    byteorder = reader.get_record("byteorder") if reader.has_record("byteorder") else b"little"
    if byteorder not in (b"little", b"big"):
        raise ValueError("Unknown endianness type: " + byteorder.decode())
    loaded: dict[str, Storage] = {}

    def persistent_load(saved_id: Any) -> Storage:
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _ascii(saved_id[0])
        if typename != "storage":
            raise AssertionError(
                f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'"
            )
        storage_type, key, location, numel = saved_id[1:]
        if key not in loaded:
            dtype = _storage_dtype(storage_type)
            name = f"data/{key}"
            if mapped is not None:
                start = reader.data_offset(name)
                flat = mapped[start : start + numel * dtype.itemsize].view(dtype)
            else:
                data = reader.get_record(name)
                if len(data) != numel * dtype.itemsize:
                    raise RuntimeError(
                        f"record size ({len(data)} bytes) does not match expected size "
                        f"({numel * dtype.itemsize} bytes = {numel} elements * "
                        f"{dtype.itemsize} bytes/element) for dtype {_scalar_name(dtype)}"
                    )
                flat = np.frombuffer(bytearray(data), dtype)  # writable, owns its memory
            if byteorder.decode() != "little":
                flat = flat.byteswap()
            storage = _restore(Storage(flat), _ascii(location), map_location)
            loaded[key] = storage
        return loaded[key]

    data = io.BytesIO(reader.get_record("data.pkl"))
    if weights_only:
        return WeightsUnpickler(data, persistent_load, **pickle_load_args).load()
    unpickler = _full_unpickler(pickle_module)(data, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    return unpickler.load()


def _storage_dtype(storage_type: Any) -> np.dtype:
    if isinstance(storage_type, StorageType):
        if storage_type.dtype is None:
            raise RuntimeError(
                f"chainrule cannot load a torch.{storage_type.name}: it has no such dtype"
            )
        return storage_type.dtype.np.newbyteorder("<")
    if getattr(storage_type, "__name__", None) == "UntypedStorage":
        return np.dtype(np.uint8)
    raise pickle.UnpicklingError(f"not a storage type: {storage_type!r}")


def _scalar_name(dtype: np.dtype) -> str:
    names = {"f2": "Half", "f4": "Float", "f8": "Double", "i1": "Char", "i2": "Short"}
    names.update({"i4": "Int", "i8": "Long", "u1": "Byte", "b1": "Bool"})
    return names.get(f"{dtype.kind}{dtype.itemsize}", dtype.name)


def _ascii(value: Any) -> Any:
    return value.decode("ascii") if isinstance(value, bytes) else value


def _full_unpickler(pickle_module: Any) -> type:
    """An unpickler that reads PyTorch's globals as chainrule's (`torch.x.Y` -> `chainrule.x.Y`)."""
    known = allowed_globals()

    class TorchNamesUnpickler(pickle_module.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            full = f"{module}.{name}"
            if full in known:
                return known[full]
            if module == "torch" or module.startswith("torch."):
                target = "chainrule" + module[len("torch") :]
                try:
                    found = importlib.import_module(target)
                except ImportError:
                    raise AttributeError(
                        f"chainrule has no module {target} for the file's {full}"
                    ) from None
                for part in name.split("."):
                    found = getattr(found, part)
                return found
            return super().find_class(module, name)

    return TorchNamesUnpickler


# --- the legacy format ---------------------------------------------------------------------


def _load_legacy(stream: IO[bytes], weights_only: bool) -> Any:
    """A file from before PyTorch 1.6: its header is checked as PyTorch checks it; the rest of
    the format is not supported."""

    def no_storages(saved_id: Any) -> Any:
        raise pickle.UnpicklingError("unsupported persistent id encountered")

    if weights_only:
        magic = WeightsUnpickler(stream, no_storages, encoding="utf-8").load()
    else:
        magic = pickle.load(stream)
    if magic != _MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    raise NotImplementedError(
        "chainrule cannot load PyTorch's legacy (pre-1.6) file format; re-save the file with "
        "torch.save in a recent PyTorch"
    )
