"""`save`: an object to a file in PyTorch's zip format, readable by `torch.load`."""

from __future__ import annotations

import io
import os
import pickle
import secrets
from typing import IO, Any

from ._pickler import TorchPickler
from ._zipfile import ALIGNMENT, ZipWriter, archive_name

__all__ = ["DEFAULT_PROTOCOL", "save"]

DEFAULT_PROTOCOL = 2
_FILE_FORMAT_VERSION = b"3\n"  # what PyTorch's writer records for a pickled object


def save(
    obj: object,
    f: str | os.PathLike[str] | IO[bytes],
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save `obj` to `f` (a path or a binary file object) in PyTorch's zip format.

    Tensors are stored as their storages' raw bytes, each storage once however many
    tensors view it; everything else is pickled. Real PyTorch loads the file with
    `torch.load(f, weights_only=True)` when it holds only tensors and containers.
    """
    if not isinstance(f, str | os.PathLike) and not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )
    if pickle_module is not pickle:
        raise NotImplementedError("chainrule.save pickles with the standard pickle module only")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "chainrule.save writes PyTorch's zip format only "
            "(_use_new_zipfile_serialization=False is not supported)"
        )
    if isinstance(f, str | os.PathLike):
        path = os.fspath(f)
        name = archive_name(path)  # checked before the file is created
        with open(path, "wb") as stream:
            _write(obj, stream, name, pickle_protocol, _disable_byteorder_record)
        return
    if not callable(getattr(f, "write", None)):
        raise TypeError(f"Buffer of {str(type(f)).strip('<>')} has no callable attribute 'write'")
    _write(obj, f, "archive", pickle_protocol, _disable_byteorder_record)


def _write(obj: object, stream: IO[bytes], name: str, protocol: int, no_byteorder: bool) -> None:
    buffer = io.BytesIO()
    pickler = TorchPickler(buffer, protocol)
    pickler.dump(obj)
    writer = ZipWriter(stream, name)
    # The records in PyTorch's order: loaders that compute storage offsets rely on it.
    writer.write_record("data.pkl", buffer.getvalue())
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(ALIGNMENT).encode())
    if not no_byteorder:
        writer.write_record("byteorder", b"little")  # storage.data() is little-endian
    for storage in pickler.storages.values():
        writer.write_record(f"data/{storage.key}", storage.data())
    writer.write_record("version", _FILE_FORMAT_VERSION)
    serialization_id = f"{secrets.randbits(64):020d}{secrets.randbits(64):020d}"
    writer.write_record(".data/serialization_id", serialization_id.encode())
    writer.close()
