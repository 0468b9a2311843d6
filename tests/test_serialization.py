"""`chainrule.save` / `chainrule.load`: round trips, and files exchanged with real PyTorch.

Round trips check values, dtypes, strides, storage sharing and requires_grad; the
files saved by PyTorch in tests/data/ are loaded without PyTorch; with PyTorch
installed, each library loads the other's files and the bytes match PyTorch's.
"""

from __future__ import annotations

import collections
import io
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import chainrule

DATA = Path(__file__).resolve().parent / "data"
DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _round_trip(obj: Any, **load_args: Any) -> Any:
    buffer = io.BytesIO()
    chainrule.save(obj, buffer)
    buffer.seek(0)
    return chainrule.load(buffer, **load_args)


def _sample(module: Any, dtype_name: str) -> Any:
    values = [[0, 1, 2], [3, 4, 5]] if dtype_name != "bool" else [[True, False, True]] * 2
    return module.tensor(values, dtype=getattr(module, dtype_name))


def _same_tensor(a: Any, b: Any) -> None:
    assert type(a).__name__ == type(b).__name__ == "Tensor"
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert tuple(a.shape) == tuple(b.shape)
    if a.numel():  # chainrule gives an empty tensor NumPy's strides, not PyTorch's
        assert a.stride() == b.stride()
    assert a.requires_grad == b.requires_grad
    assert np.array_equal(np.asarray(a.detach().tolist()), np.asarray(b.detach().tolist()))


# --- round trips in chainrule -----------------------------------------------------------


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_round_trip_every_dtype(dtype_name: str) -> None:
    x = _sample(chainrule, dtype_name)
    _same_tensor(_round_trip(x), x)


def test_round_trip_keeps_views_sharing_one_storage() -> None:
    base = chainrule.arange(12.0).reshape(3, 4)
    saved = {"base": base, "t": base.t(), "row": base[1], "cols": base[:, 1::2]}
    loaded = _round_trip(saved)
    for key, value in saved.items():
        _same_tensor(loaded[key], value)
    assert loaded["t"].stride() == (1, 4)
    assert loaded["cols"].stride() == (4, 2)
    assert not loaded["cols"].is_contiguous()
    loaded["base"][1, 1] = 100.0  # the views see a write through the base, as in PyTorch
    assert loaded["row"][1].item() == 100.0
    assert loaded["t"][1, 1].item() == 100.0
    assert loaded["cols"][1, 0].item() == 100.0


def test_one_storage_per_shared_memory_in_the_file() -> None:
    base = chainrule.arange(6.0)
    buffer = io.BytesIO()
    chainrule.save([base, base[2:], base.reshape(2, 3), chainrule.ones(2)], buffer)
    names = zipfile.ZipFile(buffer).namelist()
    assert [n for n in names if "/data/" in n] == ["archive/data/0", "archive/data/1"]


def test_round_trip_requires_grad_and_non_leaf() -> None:
    leaf = chainrule.tensor([1.0, 2.0], requires_grad=True)
    loaded = _round_trip({"leaf": leaf, "computed": leaf * 2})
    assert loaded["leaf"].requires_grad and loaded["leaf"].is_leaf
    assert loaded["computed"].requires_grad and loaded["computed"].is_leaf  # as torch.load
    assert loaded["computed"].tolist() == [2.0, 4.0]


def test_round_trip_containers_and_values() -> None:
    state = collections.OrderedDict(
        [("layer.weight", chainrule.ones(2, 3)), ("layer.bias", chainrule.zeros(2))]
    )
    obj = {
        "state": state,
        "nested": [chainrule.tensor([1, 2]), (chainrule.tensor(3.5), {"k": [None, True]})],
        "size": chainrule.Size([2, 3]),
        "dtype": chainrule.float64,
        "device": chainrule.device("cpu"),
        "numbers": (1, 2.5, -(2**70), "text", b"raw", {1, 2}),
    }
    loaded = _round_trip(obj)
    assert type(loaded["state"]) is collections.OrderedDict
    assert list(loaded["state"]) == ["layer.weight", "layer.bias"]
    _same_tensor(loaded["state"]["layer.weight"], state["layer.weight"])
    _same_tensor(loaded["nested"][0], obj["nested"][0])
    _same_tensor(loaded["nested"][1][0], obj["nested"][1][0])
    assert loaded["nested"][1][1] == {"k": [None, True]}
    assert loaded["size"] == chainrule.Size([2, 3]) and type(loaded["size"]) is chainrule.Size
    assert loaded["dtype"] is chainrule.float64
    assert loaded["device"] == chainrule.device("cpu")
    assert loaded["numbers"] == obj["numbers"]


def test_round_trip_scalar_empty_and_expanded() -> None:
    expanded = chainrule.tensor([1.0, 2.0]).expand(3, 2)
    loaded = _round_trip([chainrule.tensor(7), chainrule.zeros(0, 3), expanded])
    _same_tensor(loaded[0], chainrule.tensor(7))
    assert loaded[1].shape == (0, 3) and loaded[1].stride() == (3, 1)
    assert loaded[2].stride() == (0, 1) and loaded[2].tolist() == [[1.0, 2.0]] * 3


def test_save_to_a_path_names_the_archive_after_the_file(tmp_path: Path) -> None:
    path = tmp_path / "model.ckpt.pt"
    chainrule.save({"w": chainrule.ones(1)}, path)
    names = zipfile.ZipFile(path).namelist()
    assert names == [
        "model.ckpt/data.pkl",
        "model.ckpt/.format_version",
        "model.ckpt/.storage_alignment",
        "model.ckpt/byteorder",
        "model.ckpt/data/0",
        "model.ckpt/version",
        "model.ckpt/.data/serialization_id",
    ]
    archive = zipfile.ZipFile(path)
    assert archive.read("model.ckpt/version") == b"3\n"
    assert archive.read("model.ckpt/byteorder") == b"little"
    assert archive.read("model.ckpt/.storage_alignment") == b"64"
    assert chainrule.load(str(path))["w"].tolist() == [1.0]


def test_storages_start_on_64_byte_boundaries() -> None:
    buffer = io.BytesIO()
    chainrule.save([chainrule.ones(3), chainrule.ones(5, dtype=chainrule.int8)], buffer)
    data = buffer.getvalue()
    for info in zipfile.ZipFile(buffer).infolist():
        name_length, extra_length = np.frombuffer(
            data[info.header_offset + 26 : info.header_offset + 30], "<u2"
        )
        assert (info.header_offset + 30 + name_length + extra_length) % 64 == 0


def test_mmap_load_shares_the_files_pages(tmp_path: Path) -> None:
    path = tmp_path / "w.pt"
    base = chainrule.arange(4.0)
    chainrule.save({"a": base, "b": base[1:]}, path)
    loaded = chainrule.load(path, mmap=True)
    assert loaded["b"].tolist() == [1.0, 2.0, 3.0]
    loaded["a"][1] = 9.0  # copy-on-write: the view sees it, the file does not change
    assert loaded["b"][0].item() == 9.0
    assert chainrule.load(path)["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        chainrule.load(io.BytesIO(path.read_bytes()), mmap=True)


def test_map_location_forms() -> None:
    x = chainrule.arange(3)
    for where in ["cpu", chainrule.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage]:
        assert _round_trip(x, map_location=where).tolist() == [0, 1, 2]
    seen = []

    def record(storage: Any, location: str) -> None:
        seen.append(location)

    _round_trip(x, map_location=record)
    assert seen == ["cpu"]


def test_weights_only_false_round_trips_any_picklable() -> None:
    loaded = _round_trip({"fn": collections.Counter("aab")}, weights_only=False)
    assert loaded["fn"] == collections.Counter("aab")


def test_save_rejects_a_target_without_write() -> None:
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like"):
        chainrule.save(chainrule.ones(1), 3)  # type: ignore[arg-type]


# --- PyTorch's files, without PyTorch --------------------------------------------------------


def test_loads_a_file_saved_by_torch() -> None:
    d = chainrule.load(DATA / "torch_tensors.pt")
    assert d["base"].tolist() == [[float(4 * r + c) for c in range(4)] for r in range(3)]
    assert d["transposed"].stride() == (1, 4)
    assert d["strided"].stride() == (4, 2) and d["strided"].tolist()[2] == [8.0, 10.0]
    assert d["row"].tolist() == [4.0, 5.0, 6.0, 7.0]
    # The views share the saved storage again.
    assert d["transposed"].data_ptr() == d["base"].data_ptr()
    assert d["row"].data_ptr() - d["base"].data_ptr() == 16
    expected = {
        "float64": ([1.5, -2.25], chainrule.float64),
        "float16": ([0.5, 65504.0], chainrule.float16),
        "int8": ([-128, 127], chainrule.int8),
        "int16": ([-300, 300], chainrule.int16),
        "int32": ([-70000, 70000], chainrule.int32),
        "int64": ([-(2**40), 2**40], chainrule.int64),
        "uint8": ([0, 255], chainrule.uint8),
        "bool": ([True, False], chainrule.bool),
    }
    for key, (values, dtype) in expected.items():
        assert d[key].tolist() == values and d[key].dtype is dtype, key
    assert d["scalar"].shape == () and d["scalar"].item() == 3.5
    assert d["empty"].shape == (0, 3)
    assert d["requires_grad"].requires_grad and d["requires_grad"].is_leaf
    assert d["parameter"].requires_grad and d["parameter"].tolist() == [0.75, -0.5]
    assert d["nested"][0].tolist() == [1, 2] and d["nested"][1][1]["k"].tolist() == [True]
    assert d["size"] == chainrule.Size([2, 3]) and d["dtype"] is chainrule.float64
    assert d["plain"] == {"int": 7, "float": 2.5, "str": "text", "none": None, "tuple": (1, 2)}


def test_loads_a_torch_state_dict_with_its_metadata() -> None:
    state = chainrule.load(DATA / "torch_state_dict.pt")
    assert type(state) is collections.OrderedDict and list(state) == ["weight", "bias"]
    assert state["weight"].tolist() == [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
    assert state["bias"].tolist() == [0.125, -2.0]
    assert state._metadata == {"": {"version": 1}}


# --- with PyTorch ------------------------------------------------------------------------------


def _build(module: Any) -> dict[str, Any]:
    base = module.arange(6.0).reshape(2, 3)
    obj: dict[str, Any] = {name: _sample(module, name) for name in DTYPES}
    obj.update(
        base=base,
        t=base.t(),
        row=base[1],
        cols=base[:, ::2],
        grad=module.ones(2, requires_grad=True),
        empty=module.zeros(0),
        state=collections.OrderedDict(w=module.tensor([1.5])),
        size=module.Size([4]),
        dtype=module.float16,
        device=module.device("cpu"),
        plain=[1, 2.5, "s", None, (True,)],
    )
    return obj


def _compare(ours: Any, theirs: Any) -> None:
    for key in theirs:
        if hasattr(theirs[key], "stride"):
            _same_tensor(ours[key], theirs[key])
    assert ours["plain"] == theirs["plain"]
    assert list(ours["size"]) == list(theirs["size"])
    assert str(ours["dtype"]).split(".")[-1] == str(theirs["dtype"]).split(".")[-1]
    assert str(ours["device"]) == str(theirs["device"])
    _same_tensor(ours["state"]["w"], theirs["state"]["w"])


def test_torch_loads_chainrules_file(torch: Any, tmp_path: Path) -> None:
    path = tmp_path / "from_chainrule.pt"
    chainrule.save(_build(chainrule), path)
    theirs = torch.load(path, weights_only=True)
    _compare(_build(chainrule), theirs)
    assert theirs["t"].untyped_storage().data_ptr() == theirs["base"].untyped_storage().data_ptr()
    assert theirs["row"].storage_offset() == 3


def test_chainrule_loads_torchs_file(torch: Any, tmp_path: Path) -> None:
    path = tmp_path / "from_torch.pt"
    torch.save(_build(torch), path)
    ours = chainrule.load(path)
    _compare(ours, _build(torch))
    assert ours["t"].data_ptr() == ours["base"].data_ptr()


def test_files_are_torchs_bytes_but_the_serialization_id(torch: Any, tmp_path: Path) -> None:
    chainrule.save(_build(chainrule), tmp_path / "same.pt")
    ours = (tmp_path / "same.pt").read_bytes()
    torch.save(_build(torch), tmp_path / "same.pt")
    theirs = (tmp_path / "same.pt").read_bytes()
    assert len(ours) == len(theirs)
    archive = zipfile.ZipFile(io.BytesIO(theirs))
    info = archive.getinfo("same/.data/serialization_id")
    different = [i for i in range(len(ours)) if ours[i] != theirs[i]]
    data_start = info.header_offset + 30 + len(info.filename) + 4
    data_start += -data_start % 64
    allowed = set(range(data_start, data_start + 40 + 8))  # the id and its checksum after it
    central = theirs.rfind(info.filename.encode()) - 30  # its central entry (the crc in it)
    allowed |= set(range(central, central + 30))
    assert set(different) <= allowed
