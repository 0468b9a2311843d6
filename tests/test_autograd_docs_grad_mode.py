"""The examples of the grad-mode docstrings (`no_grad`, `enable_grad`, `set_grad_enabled`,
`inference_mode`, `set_multithreading_enabled`, `enforce_grad_layout_policy`) and what the
docstrings of `torch.autograd.backward` and `grad` state, run under chainrule and PyTorch
(`lib` fixture), against the recorded output.
"""

from __future__ import annotations

from typing import Any

import pytest

from autograd_docs_support import printed, show_error


def test_grad_mode_no_grad(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
    print(y.requires_grad)

    @torch.no_grad()
    def doubler(x: Any) -> Any:
        return x * 2

    z = doubler(x)
    print(z.requires_grad)

    @torch.no_grad()
    def tripler(x: Any) -> Any:
        return x * 3

    z = tripler(x)
    print(z.requires_grad)
    # factory function exception
    with torch.no_grad():
        a = torch.nn.Parameter(torch.rand(10))
    print(a.requires_grad)
    printed(capsys, "False\nFalse\nFalse\nTrue\n")


def test_grad_mode_enable_grad(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad(), torch.enable_grad():
        y = x * 2
    print(y.requires_grad)
    y.backward()
    print(x.grad)

    @torch.enable_grad()
    def doubler(x: Any) -> Any:
        return x * 2

    with torch.no_grad():
        z = doubler(x)
    print(z.requires_grad)

    @torch.enable_grad()
    def tripler(x: Any) -> Any:
        return x * 3

    with torch.no_grad():
        z = tripler(x)
    print(z.requires_grad)
    printed(capsys, "True\ntensor([2.])\nTrue\nTrue\n")


def test_grad_mode_set_grad_enabled(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.tensor([1.0], requires_grad=True)
    is_train = False
    with torch.set_grad_enabled(is_train):
        y = x * 2
    print(y.requires_grad)
    _ = torch.set_grad_enabled(True)
    y = x * 2
    print(y.requires_grad)
    _ = torch.set_grad_enabled(False)
    y = x * 2
    print(y.requires_grad)
    printed(capsys, "False\nTrue\nFalse\n")


def test_grad_mode_inference_mode(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.ones(1, 2, 3, requires_grad=True)
    with torch.inference_mode():
        y = x * x
    print(y.requires_grad)
    show_error(lambda: y._version)

    @torch.inference_mode()
    def func(x: Any) -> Any:
        return x * x

    out = func(x)
    print(out.requires_grad)

    @torch.inference_mode()
    def doubler(x: Any) -> Any:
        return x * 2

    out = doubler(x)
    print(out.requires_grad)
    printed(
        capsys,
        """
        False
        RuntimeError: Inference tensors do not track version counter.
        False
        False
        """,
    )


def test_grad_mode_set_multithreading_enabled(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # The docstring has no example: it says the class works as a context manager and as
    # a function, and that the backward pass then runs on the calling thread.
    torch = lib
    x = torch.ones(2, requires_grad=True)
    with torch.autograd.set_multithreading_enabled(False):
        (x * 2).sum().backward()
    print(x.grad)
    mode = torch.autograd.set_multithreading_enabled(False)
    (x * 3).sum().backward()
    torch.autograd.set_multithreading_enabled(True)
    print(x.grad, type(mode).__name__)
    printed(capsys, "tensor([2., 2.])\ntensor([5., 5.]) set_multithreading_enabled\n")


def test_grad_mode_enforce_grad_layout_policy(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    if not hasattr(torch.autograd, "enforce_grad_layout_policy"):
        pytest.skip("this version lacks torch.autograd.enforce_grad_layout_policy")
    p = torch.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
    with torch.autograd.enforce_grad_layout_policy(False):
        (p * 2).sum().backward()
        # p.grad may now have the same strides as the incoming
        # gradient rather than being forced to match p's strides.
    print(p.grad.shape, bool((p.grad == 2).all()))
    printed(capsys, "torch.Size([4, 2, 3]) True\n")


def test_autograd_backward_and_grad_take_named_inputs(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # backward's and grad's docstrings: `inputs` may be a dict such as
    # dict(model.named_parameters()); grad then answers with a dict of the same keys.
    torch = lib
    model = torch.nn.Linear(2, 1)
    y = model(torch.ones(3, 2)).sum()
    print(torch.autograd.grad(y, dict(model.named_parameters())))
    y = model(torch.ones(3, 2)).sum()
    torch.autograd.backward(y, inputs=dict(model.named_parameters()))
    print(model.weight.grad, model.bias.grad)
    printed(
        capsys,
        """
        {'weight': tensor([[3., 3.]]), 'bias': tensor([3.])}
        tensor([[3., 3.]]) tensor([3.])
        """,
    )


def test_autograd_grad_materialize_grads(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # grad's docstring: materialize_grads gives zeros for unused inputs, allow_unused
    # defaults to its value, and asking for both materialize_grads and not allow_unused fails.
    torch = lib
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    print(torch.autograd.grad((a * 2).sum(), (a, b), materialize_grads=True))
    show_error(
        lambda: torch.autograd.grad(
            (a * 2).sum(), (a, b), materialize_grads=True, allow_unused=False
        )
    )
    show_error(lambda: torch.autograd.grad((a * 2).sum(), (a, b)))
    printed(
        capsys,
        """
        (tensor([2., 2.]), tensor([0., 0.]))
        ValueError: Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False.
        RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.
        """,  # noqa: E501
    )
