"""gradcheck and gradgradcheck: they pass on correct derivatives and catch wrong ones."""

from __future__ import annotations

import random
import re
import warnings
from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule.autograd import Function, GradcheckError, gradcheck, gradgradcheck


def leaf(*values: Any, dtype: Any = chainrule.float64) -> chainrule.Tensor:
    return chainrule.tensor(
        list(values) if len(values) > 1 else values[0], dtype=dtype
    ).requires_grad_()


@pytest.fixture
def x() -> chainrule.Tensor:
    return leaf(0.5, -1.25, 2.0)


# --- custom Functions with known mistakes -----------------------------------------------


class Square(Function):
    """x**2 with a correct backward that is itself differentiable."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 2 * g * x


class SquareWrongBackward(Function):
    """x**2 whose backward says 3x instead of 2x."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * g * x


class CubeDetachedBackward(Function):
    """x**3 with a right first derivative, computed from a detached x: no second derivative."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * g * x.detach() ** 2


class SquareDetachedGradOutput(Function):
    """x**2 whose backward detaches its grad_output: right first and second derivatives in x,
    but nothing flows back to the grad_output (what jvp and hvp differentiate)."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 2 * g.detach() * x


class TwoOutputsSecondWrong(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2, x * 3

    @staticmethod
    def backward(ctx: Any, g1: Any, g2: Any) -> Any:
        return g1 * 2 + g2 * 4


class OnesForZeroGrad(Function):
    """Right for every grad_output but zero, where it returns ones: not linear in it."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g * 2 + float(not g.detach().numpy().any())


class Noisy(Function):
    """A backward with a tiny random error: matches numerically, but not reproducible."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g * (2 + 1e-9 * random.random())


class NoneUnaware(Function):
    """With materialize_grads off, a backward must cope with a None grad_output."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.set_materialize_grads(False)
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g * 2


# --- gradcheck passes on correct derivatives -------------------------------------------


@pytest.mark.parametrize(
    ("func", "n_inputs"),
    [
        (lambda a: a.sin(), 1),
        (lambda a: a**3, 1),
        (lambda a, b: a * b, 2),
        (lambda a, b: (a * b).sum(), 2),
        (lambda a, b: (a + b, a / (b * b + 1)), 2),
        (Square.apply, 1),
    ],
)
def test_passes_on_correct_ops(func: Any, n_inputs: int) -> None:
    inputs = [leaf(0.5 + i, -1.25, 2.0 - i) for i in range(n_inputs)]
    assert gradcheck(func, inputs)
    assert gradcheck(func, inputs, fast_mode=True)


def test_matrix_op_and_mixed_inputs() -> None:
    a = chainrule.randn(2, 3, dtype=chainrule.float64, requires_grad=True)
    b = chainrule.randn(3, 4, dtype=chainrule.float64)  # not checked: no requires_grad
    assert gradcheck(lambda p, q, scale: (p @ q) * scale, (a, b, 2.5))


def test_a_single_tensor_is_accepted_as_inputs(x: chainrule.Tensor) -> None:
    assert gradcheck(chainrule.tanh, x)


def test_inputs_are_left_as_they_were(x: chainrule.Tensor) -> None:
    before = x.detach().numpy().copy()
    gradcheck(lambda a: a.exp(), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


def test_zero_size_and_0d_inputs() -> None:
    assert gradcheck(
        lambda a: a * 2, (chainrule.zeros(0, 3, dtype=chainrule.float64).requires_grad_(),)
    )
    assert gradcheck(lambda a: a.exp(), (leaf(0.3),))


def test_outputs_that_are_not_differentiable_are_skipped(x: chainrule.Tensor) -> None:
    assert gradcheck(lambda a: (a > 0, a * 2, a.detach() * 0), (x,))


# --- gradcheck fails on wrong derivatives ----------------------------------------------


def test_wrong_backward_raises_gradcheck_error(x: chainrule.Tensor) -> None:
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareWrongBackward.apply, (x,))
    assert isinstance(info.value, RuntimeError)
    assert chainrule.autograd.GradcheckError is GradcheckError


def test_wrong_backward_returns_false_without_raising(x: chainrule.Tensor) -> None:
    assert gradcheck(SquareWrongBackward.apply, (x,), raise_exception=False) is False
    assert (
        gradcheck(SquareWrongBackward.apply, (x,), raise_exception=False, fast_mode=True) is False
    )


def test_message_names_output_input_and_first_mismatch(x: chainrule.Tensor) -> None:
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareWrongBackward.apply, (x,))
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "\nanalytical:tensor(" in message
    # The first wrong entry is d out[0] / d x[0]: 2 * 0.5 numerically, 3 * 0.5 analytically.
    found = re.search(
        r"first mismatching entry is \[0, 0\].*numerical ([\d.]+), analytical ([\d.]+)\.", message
    )
    assert found is not None, message
    assert float(found.group(1)) == pytest.approx(1.0)
    assert float(found.group(2)) == pytest.approx(1.5)


def test_indices_count_differentiable_inputs_and_outputs(x: chainrule.Tensor) -> None:
    y = leaf(1.0, 2.0)

    def func(a: Any, n: int, b: Any) -> Any:
        return a.sum() * n, TwoOutputsSecondWrong.apply(b)[1]

    # b is input 1 among the inputs that require grad (the int is not counted).
    with pytest.raises(GradcheckError, match="for output 1 with respect to input 1,"):
        gradcheck(func, (x, 3, y))


def test_jacobian_layout_is_inputs_by_outputs() -> None:
    x = leaf(1.0, 2.0, 3.0)
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda a: SquareWrongBackward.apply(a[:2]), (x,))
    numerical = str(info.value).split("numerical:")[1].split("\nanalytical")[0]
    assert numerical.count("[") == 4  # 3 rows (input elements) of 2 columns (outputs)


def test_fast_mode_message(x: chainrule.Tensor) -> None:
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareWrongBackward.apply, (x,), fast_mode=True)
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "fast mode" in message
    assert "The max per-element difference (slow mode) is:" in message


def test_fast_mode_is_reproducible_with_manual_seed(x: chainrule.Tensor) -> None:
    messages = []
    for _ in range(2):
        chainrule.manual_seed(7)
        with pytest.raises(GradcheckError) as info:
            gradcheck(SquareWrongBackward.apply, (x,), fast_mode=True)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_nonzero_numerical_gradient_of_an_output_without_grad(x: chainrule.Tensor) -> None:
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: a.detach() * 2, (x,))


def test_backward_must_be_linear_in_grad_output(x: chainrule.Tensor) -> None:
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(OnesForZeroGrad.apply, (x,))


def test_nondeterministic_backward_and_nondet_tol(x: chainrule.Tensor) -> None:
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Noisy.apply, (x,))
    assert gradcheck(Noisy.apply, (x,), nondet_tol=1e-6)


def test_undefined_grad_check(x: chainrule.Tensor) -> None:
    with pytest.raises(GradcheckError, match="handle undefined output grads"):
        gradcheck(NoneUnaware.apply, (x,))
    assert gradcheck(NoneUnaware.apply, (x,), check_undefined_grad=False)


def test_check_grad_dtypes_passes_on_correct_ops(x: chainrule.Tensor) -> None:
    assert gradcheck(lambda a: (a * a).sum(0), (x,), check_grad_dtypes=True)


# --- what gradcheck refuses or warns about ---------------------------------------------


def test_needs_an_input_that_requires_grad() -> None:
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (chainrule.ones(2, dtype=chainrule.float64),))


def test_rejects_inputs_with_overlapping_memory() -> None:
    x = leaf(1.0, 2.0).expand(3, 2)
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda a: a * 2, (x,))


def test_warns_on_inputs_below_double_precision() -> None:
    x = leaf(1.0, 2.0, dtype=chainrule.float32)
    with pytest.warns(
        UserWarning, match=r"Input #0 requires gradient and is not a double precision"
    ):
        assert gradcheck(lambda a: a * 2, (x,), eps=1e-2, atol=1e-3)


def test_no_warning_for_double_inputs(x: chainrule.Tensor) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gradcheck(lambda a: a * 2, (x,))


def test_mode_flags_that_cannot_go_together(x: chainrule.Tensor) -> None:
    # PyTorch's AssertionErrors, word for word (the other modes: test_autograd_surface.py).
    with pytest.raises(AssertionError, match=r"^Expected at least one of check_forward_ad or"):
        gradcheck(lambda a: a * 2, (x,), check_backward_ad=False)
    with pytest.raises(AssertionError, match=r"^Setting check_batched_forward_grad=True requires"):
        gradcheck(lambda a: a * 2, (x,), check_batched_forward_grad=True)


# --- gradgradcheck ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("func", "n_inputs"),
    [(lambda a: a**3, 1), (lambda a: a.sin(), 1), (lambda a, b: a * b, 2), (Square.apply, 1)],
    ids=["cube", "sin", "product", "custom-square"],
)
def test_gradgradcheck_passes_on_ops_with_second_derivatives(func: Any, n_inputs: int) -> None:
    inputs = [leaf(0.5 + i, -1.25, 2.0 - i) for i in range(n_inputs)]
    assert gradgradcheck(func, inputs)
    assert gradgradcheck(func, inputs, fast_mode=True)
    assert gradgradcheck(func, inputs, gen_non_contig_grad_outputs=True)


def test_gradgradcheck_with_given_grad_outputs(x: chainrule.Tensor) -> None:
    g = chainrule.tensor([1.0, -2.0, 0.5], dtype=chainrule.float64, requires_grad=True)
    assert gradgradcheck(lambda a: a**3, (x,), (g,))
    assert gradgradcheck(lambda a: a**3, (x,), g.detach())  # not checked w.r.t. g then


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable(x: chainrule.Tensor) -> None:
    assert gradcheck(CubeDetachedBackward.apply, (x,))
    with pytest.raises(
        GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        gradgradcheck(CubeDetachedBackward.apply, (x,))
    assert gradgradcheck(CubeDetachedBackward.apply, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="fast mode"):
        gradgradcheck(CubeDetachedBackward.apply, (x,), fast_mode=True)


def test_gradgradcheck_differentiates_with_respect_to_grad_outputs(x: chainrule.Tensor) -> None:
    # The grad_outputs are numbered after the inputs: input 1 is the one of output 0.
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(SquareDetachedGradOutput.apply, (x,))
    first = str(info.value).splitlines()[0]
    assert first == "Jacobian mismatch for output 0 with respect to input 1,"
    assert "analytical:tensor([[0., 0., 0.]," in str(info.value)
    # Given grad_outputs that do not require grad, only the inputs are checked.
    g = chainrule.tensor([1.0, -2.0, 0.5], dtype=chainrule.float64)
    assert gradgradcheck(SquareDetachedGradOutput.apply, (x,), (g,))


def test_gradgradcheck_checks_grad_outputs_as_inputs(x: chainrule.Tensor) -> None:
    g32 = chainrule.tensor([1.0, -2.0, 0.5], requires_grad=True)
    with pytest.warns(UserWarning, match="Input #1 requires gradient and is not a double"):
        gradgradcheck(lambda a: a**3, (x,), (g32,), atol=1e-2, rtol=1e-2, eps=1e-3)
    expanded = chainrule.tensor([1.0], dtype=chainrule.float64).expand(3).requires_grad_()
    with pytest.raises(RuntimeError, match=r"^The 1th input has a dimension with stride 0"):
        gradgradcheck(lambda a: a**3, (x,), (expanded,))


def test_gradgradcheck_of_a_linear_op(x: chainrule.Tensor) -> None:
    # The first derivative does not depend on x: only the grad_outputs matter.
    assert gradgradcheck(lambda a: a * 2 + 1, (x,))


# --- agreement with torch ---------------------------------------------------------------


@pytest.mark.parametrize("fast_mode", [False, True])
def test_same_verdicts_as_torch(fast_mode: bool) -> None:
    torch = pytest.importorskip("torch")

    def verdicts(lib: Any) -> list[bool]:
        class Wrong(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (a,) = ctx.saved_tensors
                return 3 * g * a

        class Detached(lib.autograd.Function):  # type: ignore[name-defined,misc]
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (a,) = ctx.saved_tensors
                return 2 * g.detach() * a

        x = lib.tensor([0.5, -1.25, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([1.5, 0.25, -2.0], dtype=lib.float64, requires_grad=True)
        check = lib.autograd.gradcheck
        return [
            check(lambda a: a.sin(), (x,), fast_mode=fast_mode),
            check(lambda a, b: a * b + b.exp(), (x, y), fast_mode=fast_mode),
            check(Wrong.apply, (x,), raise_exception=False, fast_mode=fast_mode),
            check(lambda a, b: (a, Wrong.apply(b)), (x, y), raise_exception=False),
            lib.autograd.gradgradcheck(lambda a, b: a * b.sin(), (x, y), fast_mode=fast_mode),
            lib.autograd.gradgradcheck(
                Detached.apply, (x,), raise_exception=False, fast_mode=fast_mode
            ),
        ]

    assert verdicts(chainrule) == verdicts(torch)


def test_first_lines_of_the_message_match_torch() -> None:
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (chainrule, torch):

        class Wrong(lib.autograd.Function):  # type: ignore[name-defined,misc]
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                return a * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 3

        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        try:
            lib.autograd.gradcheck(lambda a, b: (a * 2, Wrong.apply(b)), (x, y))
        except RuntimeError as e:
            messages.append(str(e).replace("chainrule.", "torch."))
    mine, theirs = messages
    assert mine.splitlines()[0] == theirs.splitlines()[0]
    assert mine.splitlines()[0] == "Jacobian mismatch for output 1 with respect to input 1,"
    analytical = "analytical:tensor([[3., 0.],\n        [0., 3.]], dtype=torch.float64)"
    assert analytical in mine
    assert analytical in theirs
