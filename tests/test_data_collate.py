"""chainrule.utils.data's default_collate and default_convert: what each type of sample
becomes in a batch, and PyTorch's errors for what cannot be batched."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.utils.data import default_collate, default_convert
from data_support import plain

Point = collections.namedtuple("Point", ["x", "y"])


class Frozen(collections.abc.Mapping):  # type: ignore[type-arg]
    """A read-only mapping that cannot be built from a dict: collate falls back to dict."""

    def __init__(self, items: dict[str, Any], tag: str) -> None:
        self._items, self.tag = items, tag

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Any:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


# Each case builds its batch from a library (chainrule or torch), so both can be compared.
BATCHES: dict[str, Callable[[Any], list[Any]]] = {
    "ints": lambda t: [1, 2, 3],
    "floats": lambda t: [1.5, 2.0],
    "bools": lambda t: [True, False],
    "int_then_float": lambda t: [1, 2.5],
    "float_then_int": lambda t: [2.5, 1],
    "strings": lambda t: ["a", "b"],
    "bytes": lambda t: [b"a", b"b"],
    "tensors": lambda t: [t.arange(6).reshape(2, 3), t.ones(2, 3, dtype=t.int64)],
    "float_tensors": lambda t: [t.zeros(2), t.ones(2)],
    "scalar_tensors": lambda t: [t.tensor(1.5), t.tensor(2.5)],
    "numpy_arrays": lambda t: [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
    "numpy_scalars": lambda t: [np.float64(1.5), np.int32(2)],
    "numpy_bools": lambda t: [np.bool_(True), np.bool_(False)],
    "dicts": lambda t: [{"a": 1, "b": "s"}, {"a": 2, "b": "t"}],
    "ordered_dicts": lambda t: [collections.OrderedDict(x=1.0), collections.OrderedDict(x=2.0)],
    "frozen_mapping": lambda t: [Frozen({"k": 1}, "p"), Frozen({"k": 2}, "q")],
    "namedtuples": lambda t: [Point(1, np.float32(2)), Point(3, np.float32(4))],
    "tuples": lambda t: [(np.array([1, 2]), b"x"), (np.array([3, 4]), b"y")],
    "lists": lambda t: [[0, 1], [2, 3]],
    "nested": lambda t: [
        {"img": t.zeros(2), "meta": (1, ["a", 2.0])},
        {"img": t.ones(2), "meta": (2, ["b", 3.0])},
    ],
}


@pytest.mark.parametrize("name", BATCHES)
def test_default_collate_matches_torch(torch: Any, name: str) -> None:
    from torch.utils.data import default_collate as torch_collate

    expected = plain(torch_collate(BATCHES[name](torch)))
    assert plain(default_collate(BATCHES[name](chainrule))) == expected


CONVERTED: dict[str, Callable[[Any], Any]] = {
    "int": lambda t: 3,
    "numpy_array": lambda t: np.array([0, 1]),
    "numpy_scalar": lambda t: np.float32(2.5),
    "numpy_strings": lambda t: np.array(["a"]),
    "namedtuple": lambda t: Point(np.array(0), 1),
    "tuple": lambda t: (np.array([1.0]), [np.int32(3)], "s"),
    "dict": lambda t: {"a": (1, np.array([2])), "b": t.ones(1)},
    "string": lambda t: "abc",
}


@pytest.mark.parametrize("name", CONVERTED)
def test_default_convert_matches_torch(torch: Any, name: str) -> None:
    from torch.utils.data import default_convert as torch_convert

    expected = plain(torch_convert(CONVERTED[name](torch)))
    assert plain(default_convert(CONVERTED[name](chainrule))) == expected


def test_recorded_collations() -> None:
    assert plain(default_collate([1, 2])) == ("tensor", "int64", (2,), [1, 2])
    assert plain(default_collate([0.5, 1.0])) == ("tensor", "float64", (2,), [0.5, 1.0])
    assert plain(default_collate([True, False])) == ("tensor", "bool", (2,), [True, False])
    assert default_collate(["a", "b"]) == ["a", "b"]
    out = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(out) is Point
    assert out.x.tolist() == [1, 3] and out.y.dtype == chainrule.float64
    out = default_collate([(1, "a"), (2, "b")])
    assert isinstance(out, list) and out[0].tolist() == [1, 2] and out[1] == ("a", "b")
    out = default_collate([{"a": chainrule.zeros(2)}, {"a": chainrule.ones(2)}])
    assert out["a"].tolist() == [[0.0, 0.0], [1.0, 1.0]]
    frozen = default_collate([Frozen({"k": 1}, "p"), Frozen({"k": 2}, "q")])
    assert type(frozen) is dict and frozen["k"].tolist() == [1, 2]
    converted = default_convert((np.array([1, 2]), "s"))
    assert isinstance(converted, list) and converted[0].tolist() == [1, 2]


def test_collated_tensors_stay_differentiable() -> None:
    a = chainrule.ones(2, requires_grad=True)
    out = default_collate([a, a * 2])
    assert out.grad_fn.name() == "StackBackward0"
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


UNBATCHABLE = [
    ([object(), object()], TypeError, "found <class 'object'>"),
    ([np.array(["a"]), np.array(["b"])], TypeError, "found <U1"),
    ([{"a": None}], TypeError, "found <class 'NoneType'>"),
    ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
]


@pytest.mark.parametrize(("batch", "error", "tail"), UNBATCHABLE)
def test_unbatchable_samples(batch: list[Any], error: type[Exception], tail: str) -> None:
    with pytest.raises(error) as info:
        default_collate(batch)
    message = str(info.value)
    assert message.endswith(tail)
    if error is TypeError:
        assert message.startswith(
            "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists;"
        )


def test_unbatchable_samples_match_torch(torch: Any) -> None:
    from torch.utils.data import default_collate as torch_collate

    for batch, error, _ in UNBATCHABLE:
        with pytest.raises(error) as ours:
            default_collate(batch)
        with pytest.raises(error) as theirs:
            torch_collate(batch)
        assert str(ours.value) == str(theirs.value)


def test_tensors_of_different_sizes() -> None:
    message = (
        "stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1"
    )
    with pytest.raises(RuntimeError) as info:
        default_collate([chainrule.zeros(3), chainrule.zeros(4)])
    assert str(info.value) == message
