"""In-place view ops (`t_`, `transpose_`, `squeeze_`, ...) and the conjugate transposes of a
real tensor (`adjoint`, `x.H`, `x.mH`), compared with PyTorch and with its recorded output."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import pytest

import chainrule
from chainrule._ops.shape import inplace_views
from inplace_view_scenarios import SCENARIOS, outcome

# What PyTorch 2.13 gives for each scenario.
RECORDED: dict[str, Any] = {
    "t_": (True, (3, 2), (1, 3), "TBackward1", "MulBackward0", 1),
    "transpose_": (
        ("TransposeBackward1", "TransposeBackward1", "TransposeBackward1", (3, 2), (1, 3), 3)
    ),
    "squeeze_": (
        ("UnsqueezeBackward1", (1, 2, 3), (6, 3, 1)),
        ("SqueezeBackward3", (2, 3)),
        "SqueezeBackward4",
        "SqueezeBackward5",
        (3,),
        None,
    ),
    "of_a_view": (
        ("UnsqueezeBackward1", "SelectBackward0", 1, 1, True),
        ("AsStridedBackward0", "CopySlices", "AsStridedBackward0", (1, 3)),
        [[8.0, 8.0, 8.0], [1.0, 1.0, 1.0]],
    ),
    "views_of_the_base": (
        ("AsStridedBackward0", "TBackward1", 1),
        ("CopySlices", (3, 2), [[0.0, 3.0], [3.0, 12.0], [2.0, 5.0]]),
        [[0.0, 6.0, 4.0], [1.0, 9.0, 5.0]],
    ),
    "view_written_after": (
        "CopySlices",
        (2, 1, 3),
        [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]],
        [[[0.0, 2.0, 4.0]], [[6.0, 8.0, 10.0]]],
    ),
    "retain_grad": ((2, 3), [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]),
    "second_order": (
        ([[0.0, 4.0, 32.0], [108.0, 256.0, 500.0]], [[0.0, 12.0, 48.0], [108.0, 192.0, 300.0]])
    ),
    "of_a_leaf": (
        "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    ),
    "of_a_leaf_view": (
        "RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place "
        "operation."
    ),
    "without_grad": (True, (3, 2), 1, (3, 2), None, 1),
    "errors": (
        [
            "RuntimeError: t_() expects a tensor with <= 2 dimensions, but self is 3D",
            "IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 5)",
            "IndexError: Dimension out of range (expected to be in range of [-4, 3], but got 5)",
            "IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 5)",
            "IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 7)",
            "IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 9)",
            (
                "RuntimeError: tensor.adjoint() is only supported on matrices or batches of "
                "matrices. Got 1-D tensor."
            ),
            (
                "RuntimeError: tensor.adjoint() is only supported on matrices or batches of "
                "matrices. Got 1-D tensor."
            ),
            (
                "RuntimeError: tensor.mH is only supported on matrices or batches of matrices. Got "
                "1-D tensor."
            ),
            (
                "RuntimeError: tensor.H is only supported on matrices (2-D tensors). Got 3-D "
                "tensor. For batches of matrices, consider using tensor.mH"
            ),
            "RuntimeError: tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor.",
        ],
        0,
        (2, 3, 4),
    ),
    "small": ((3,), "TBackward1"),
    "conj_transposes": (
        ["TransposeBackward0", "TransposeBackward0", "TransposeBackward0", "TransposeBackward0"],
        True,
        (1, 3),
        (12, 1, 4),
        [
            [[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]],
            [[12.0, 16.0, 20.0], [13.0, 17.0, 21.0], [14.0, 18.0, 22.0], [15.0, 19.0, 23.0]],
        ],
    ),
    "h_of_a_number": (True, True, True, True, True),
    "viewed_before": (
        [[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]],
        "CopySlices",
        [[0.0, 4.0, 8.0], [2.0, 6.0, 10.0]],
        [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]],
    ),
    "view_of_a_view": (
        [[30.0], [40.0], [50.0]],
        [30.0],
        "AsStridedBackward0",
        "AsStridedBackward0",
    ),
    "of_split_outputs": (
        "RuntimeError: Output 0 of Split is a view and is being modified inplace. This view is the "
        "output of a function that returns multiple views. Such functions do not allow the output "
        "views to be modified inplace. You should replace the inplace operation by an out-of-place "
        "one."
    ),
}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_as_recorded(scenario: Any) -> None:
    assert outcome(lambda: scenario(chainrule)) == RECORDED[scenario.__name__]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_as_torch(torch: ModuleType, scenario: Any) -> None:
    assert outcome(lambda: scenario(chainrule)) == outcome(lambda: scenario(torch))


def test_a_number_is_its_own_transpose_with_one_warning_each() -> None:
    inplace_views._warned.clear()
    z = chainrule.tensor(1.0)
    expected = {
        "H": "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
        "mT": "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
        "cases.",
        "mH": "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
    }
    for name, message in expected.items():
        with pytest.warns(UserWarning) as caught:
            assert getattr(z, name) is z
        assert [str(w.message) for w in caught] == [message]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert getattr(z, name) is z  # once per process, as PyTorch
    with pytest.warns(UserWarning, match=r"^adjoint\(\) is deprecated on 0-D tensors"):
        chainrule.adjoint(z)
