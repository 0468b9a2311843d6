"""`chainrule.load` refuses what a weights-only load must refuse, and reports broken files.

A file whose pickle would run code (`os.system`, `exec`, ...) is refused before
anything runs: the marker file the code would write never appears. Messages and
exception types are PyTorch's (compared with PyTorch where it is installed).
"""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import pytest

import chainrule
from chainrule.serialization._zipfile import ZipWriter

DOCS = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
UNSAFE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source."
)
CORRUPT = (
    ". This is an internal miniz error. If you are seeing this error, there is a high "
    "likelihood that your checkpoint file is corrupted. This can happen if the checkpoint was "
    "not saved properly, was transferred incorrectly, or the file was modified after saving."
)


class _Calls:
    """Pickles as a call of `func(*args)`: what a malicious checkpoint holds."""

    def __init__(self, func: Any, *args: Any) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> Any:
        return (self.func, self.args)


def _checkpoint(payload: object) -> bytes:
    """A file laid out as torch.save lays it out, holding `payload`'s pickle."""
    stream = io.BytesIO()
    writer = ZipWriter(stream, "archive")
    writer.write_record("data.pkl", pickle.dumps(payload, protocol=2))
    writer.write_record("version", b"3\n")
    writer.close()
    return stream.getvalue()


def _error(module: Any, data: bytes, **kwargs: Any) -> tuple[str, str]:
    try:
        module.load(io.BytesIO(data), **kwargs)
    except Exception as error:  # the outcome under test
        return type(error).__name__, str(error)
    raise AssertionError("the load did not fail")


def _payloads(marker: Path) -> dict[str, object]:
    write = f"open({str(marker)!r}, 'w').write('ran')"
    return {
        "os.system": _Calls(os.system, f"touch {marker}"),
        "exec": _Calls(exec, write),
        "eval": _Calls(eval, write),
        "nested": {"weights": [1, _Calls(exec, write)]},
        "import": _Calls(__import__, "subprocess"),
    }


@pytest.mark.parametrize("name", ["os.system", "exec", "eval", "nested", "import"])
def test_code_in_a_file_never_runs(tmp_path: Path, name: str) -> None:
    marker = tmp_path / "marker"
    data = _checkpoint(_payloads(marker)[name])
    kind, message = _error(chainrule, data)
    assert kind == "UnpicklingError"
    assert message.startswith("Weights only load failed.")
    path = tmp_path / "evil.pt"
    path.write_bytes(data)
    with pytest.raises(pickle.UnpicklingError):
        chainrule.load(path)
    with pytest.raises(pickle.UnpicklingError):
        chainrule.load(path, weights_only=True)
    assert not marker.exists()


def test_unsupported_global_message(tmp_path: Path) -> None:
    _, message = _error(chainrule, _checkpoint(_Calls(exec, "1")))
    inner = (
        "Unsupported global: GLOBAL exec was not an allowed global by default. Please use "
        "`torch.serialization.add_safe_globals([exec])` or the "
        "`torch.serialization.safe_globals([exec])` context manager to allowlist this global "
        "if you trust this class/function."
    )
    assert message == (
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
        f"\n\t(1) {UNSAFE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
        "the recommended steps in the following error message.\n\tWeightsUnpickler error: "
        + inner
        + DOCS
    )


def test_blocked_module_message() -> None:
    _, message = _error(chainrule, _checkpoint(_Calls(os.system, "true")))
    module = os.system.__module__  # posix on Linux
    assert message == (
        f"Weights only load failed. {UNSAFE}\n\n\nTrying to load unsupported GLOBAL "
        f"{module}.system whose module {module} is blocked." + DOCS
    )


def test_safe_globals_let_a_trusted_global_through() -> None:
    data = _checkpoint(_Calls(divmod, 7, 2))
    with pytest.raises(pickle.UnpicklingError):
        chainrule.load(io.BytesIO(data))
    with chainrule.serialization.safe_globals([divmod]):
        assert chainrule.load(io.BytesIO(data)) == (3, 1)
    assert chainrule.serialization.get_safe_globals() == []


def test_weights_only_false_runs_the_pickle(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    data = _checkpoint(_Calls(exec, f"open({str(marker)!r}, 'w').write('ran')"))
    chainrule.load(io.BytesIO(data), weights_only=False)
    assert marker.read_text() == "ran"  # the caller trusted the file


def test_explicit_pickle_module_with_weights_only() -> None:
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit"):
        chainrule.load(io.BytesIO(b""), pickle_module=pickle, weights_only=True)


def _good() -> bytes:
    buffer = io.BytesIO()
    chainrule.save(chainrule.tensor([1, 2, 3, 4], dtype=chainrule.uint8), buffer)
    return buffer.getvalue()


def _rewritten(data: bytes, change: dict[str, bytes | None]) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            record = change.get(name, source.read(name))
            if record is not None:
                target.writestr(name, record)
    return out.getvalue()


def _corrupt_cases() -> dict[str, tuple[bytes, tuple[str, str]]]:
    good = _good()
    no_directory = (
        "RuntimeError",
        "PytorchStreamReader failed reading zip archive: failed "
        "finding central directory" + CORRUPT,
    )
    no_version = (
        "RuntimeError",
        'Expected hasRecord("version") to be true, but got false.  (Could this error message '
        "be improved?  If so, please report an enhancement request to PyTorch.)",
    )
    return {
        "empty": (b"", ("EOFError", "")),
        "truncated_half": (good[: len(good) // 2], no_directory),
        "truncated_by_one": (good[:-1], no_directory),
        "not_a_checkpoint": (
            pickle.dumps(5, protocol=2),
            ("RuntimeError", "Invalid magic number; corrupt file?"),
        ),
        "no_version": (_rewritten(good, {"archive/version": None}), no_version),
        "missing_storage": (
            _rewritten(good, {"archive/data/0": None}),
            (
                "RuntimeError",
                "PytorchStreamReader failed locating file data/0: file not found" + CORRUPT,
            ),
        ),
        "short_storage": (
            _rewritten(good, {"archive/data/0": b"\x01\x02"}),
            (
                "RuntimeError",
                "record size (2 bytes) does not match expected size (4 bytes = 4 "
                "elements * 1 bytes/element) for dtype Byte",
            ),
        ),
    }


@pytest.mark.parametrize("case", sorted(_corrupt_cases()))
def test_corrupt_files_give_torchs_errors(case: str) -> None:
    data, expected = _corrupt_cases()[case]
    assert _error(chainrule, data) == expected


@pytest.mark.parametrize("case", sorted(_corrupt_cases()))
def test_corrupt_files_match_torch(torch: Any, case: str) -> None:
    data, _ = _corrupt_cases()[case]
    assert _error(chainrule, data) == _error(torch, data)


@pytest.mark.parametrize("name", ["os.system", "exec", "eval", "nested", "import"])
def test_refusals_match_torch(torch: Any, tmp_path: Path, name: str) -> None:
    data = _checkpoint(_payloads(tmp_path / "marker")[name])
    assert _error(chainrule, data) == _error(torch, data)
    assert not (tmp_path / "marker").exists()
