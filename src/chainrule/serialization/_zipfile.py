"""PyTorch's zip container: records written as its writer lays them out, and read back.

The writer stores every record uncompressed, pads the local header's extra field
(`FB` + length + `Z`s) so each record's data starts on a 64-byte boundary, and
follows each non-empty record with a data descriptor, as PyTorch's writer does; the
loader relies on this layout when it computes record offsets itself. All records sit
under one folder, the archive name. The reader takes any zip laid out that way and
raises PyTorch's errors for broken ones.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from typing import IO, Any

__all__ = ["ALIGNMENT", "ZipReader", "ZipWriter", "archive_name", "is_zipfile"]

ALIGNMENT = 64
_UTF8_AND_DESCRIPTOR = 0x0808
_UTF8 = 0x0800
_CORRUPT = (
    ". This is an internal miniz error. If you are seeing this error, there is a high "
    "likelihood that your checkpoint file is corrupted. This can happen if the checkpoint "
    "was not saved properly, was transferred incorrectly, or the file was modified after saving."
)


def archive_name(f: Any) -> str:
    """The folder records go in: a path's file name without its extension, else "archive"."""
    if not isinstance(f, str):
        return "archive"
    try:
        f.encode("ascii")
    except UnicodeEncodeError:
        return "archive"  # PyTorch writes such paths through a Python file object
    base = os.path.basename(f.replace("\\", "/"))
    stem = base.rpartition(".")[0] if "." in base else base
    if not stem:
        raise RuntimeError(f"[enforce fail at inline_container.cc:720] . invalid file name: {f}")
    return stem


class ZipWriter:
    """Writes records one after another to a binary stream, then the central directory."""

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self._stream = stream
        self._name = name
        self._offset = 0
        self._entries: list[tuple[bytes, int, int, int]] = []  # name, crc, size, header offset

    def _write(self, data: bytes) -> None:
        self._stream.write(data)
        self._offset += len(data)

    def write_record(self, name: str, data: bytes) -> None:
        full = f"{self._name}/{name}".encode()
        header_offset = self._offset
        # The padding makes the data start on an ALIGNMENT boundary (the extra field's own
        # 4-byte header counts).
        start = header_offset + 30 + len(full) + 4
        padding = -start % ALIGNMENT
        extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
        crc = zlib.crc32(data) & 0xFFFFFFFF
        flags = _UTF8_AND_DESCRIPTOR if data else _UTF8
        header = struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(full), len(extra)
        )
        self._write(header + full + extra)
        self._write(data)
        if data:
            self._write(struct.pack("<IIII", 0x08074B50, crc, len(data), len(data)))
        self._entries.append((full, crc, len(data), header_offset))

    def close(self) -> None:
        directory_offset = self._offset
        for full, crc, size, header_offset in self._entries:
            flags = _UTF8_AND_DESCRIPTOR if size else _UTF8
            entry = struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                0,
                0,
                flags,
                0,
                0,
                0,
                crc,
                size,
                size,
                len(full),
                0,
                0,
                0,
                0,
                0,
                header_offset,
            )
            self._write(entry + full)
        directory_size = self._offset - directory_offset
        count = len(self._entries)
        zip64_end = self._offset
        self._write(
            struct.pack(
                "<IQHHIIQQQQ",
                0x06064B50,
                44,
                0x031E,
                0x2D,
                0,
                0,
                count,
                count,
                directory_size,
                directory_offset,
            )
        )
        self._write(struct.pack("<IIQI", 0x07064B50, 0, zip64_end, 1))
        self._write(
            struct.pack(
                "<IHHHHIIH",
                0x06054B50,
                0,
                0,
                count,
                count,
                directory_size,
                directory_offset,
                0,
            )
        )
        self._stream.flush()


class ZipReader:
    """Reads the records of a PyTorch zip file (a path's or a seekable stream's bytes)."""

    def __init__(self, stream: IO[bytes]) -> None:
        try:
            self._zip = zipfile.ZipFile(stream)
        except zipfile.BadZipFile:
            raise RuntimeError(
                "PytorchStreamReader failed reading zip archive: failed finding central "
                "directory" + _CORRUPT
            ) from None
        names = self._zip.namelist()
        if not names:
            raise RuntimeError(
                "PytorchStreamReader failed reading zip archive: failed finding central "
                "directory" + _CORRUPT
            )
        first = names[0]
        if "/" not in first:
            raise RuntimeError(
                "[enforce fail at inline_container.cc:180] . file in archive is not in a "
                f"subdirectory: {first}"
            )
        self._prefix = first.partition("/")[0] + "/"
        if not self.has_record("version"):
            raise RuntimeError(
                'Expected hasRecord("version") to be true, but got false.  (Could this error '
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )

    def has_record(self, name: str) -> bool:
        try:
            self._zip.getinfo(self._prefix + name)
        except KeyError:
            return False
        return True

    def records(self) -> list[str]:
        return [n[len(self._prefix) :] for n in self._zip.namelist() if n.startswith(self._prefix)]

    def get_record(self, name: str) -> bytes:
        if not self.has_record(name):
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {name}: file not found" + _CORRUPT
            )
        try:
            return self._zip.read(self._prefix + name)
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as error:
            raise RuntimeError(
                f"PytorchStreamReader failed reading file {name}: file read failed" + _CORRUPT
            ) from error

    def data_offset(self, name: str) -> int:
        """Where record `name`'s data starts in the file (after its local header)."""
        info = self._zip.getinfo(self._prefix + name)
        stream = self._zip.fp
        assert stream is not None  # open while the reader is
        stream.seek(info.header_offset)
        name_length, extra_length = struct.unpack("<HH", stream.read(30)[26:30])
        return int(info.header_offset) + 30 + name_length + extra_length

    def close(self) -> None:
        self._zip.close()


def is_zipfile(stream: IO[bytes]) -> bool:
    """Whether the stream starts with a zip local header (PyTorch's check: the first bytes only)."""
    start = stream.tell()
    magic = stream.read(4)
    stream.seek(start)
    return magic == b"PK\x03\x04"
