"""The examples of `torch.autograd.functional`'s and `torch.autograd.forward_ad`'s
docstrings, run under chainrule and PyTorch (`lib` fixture), against the recorded output.

Each test is one docstring's example, its code kept as written there and its results
printed (the docstrings' own outputs come from unseeded random inputs).
"""

from __future__ import annotations

from typing import Any

import pytest

from autograd_docs_support import printed


def test_functional_vjp(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    vjp = torch.autograd.functional.vjp

    def exp_reducer(x: Any) -> Any:
        return x.exp().sum(dim=1)

    inputs = torch.rand(4, 4)
    v = torch.ones(4)
    print(vjp(exp_reducer, inputs, v))
    print(vjp(exp_reducer, inputs, v, create_graph=True))

    def adder(x: Any, y: Any) -> Any:
        return 2 * x + 3 * y

    inputs = (torch.rand(2), torch.rand(2))
    v = torch.ones(2)
    print(vjp(adder, inputs, v))
    printed(
        capsys,
        """
        (tensor([6.0321, 7.3285, 6.3710, 5.2277]), tensor([[1.6426, 2.1559, 1.0925, 1.1411],
                [1.3599, 1.8853, 1.6325, 2.4509],
                [1.5772, 1.8819, 1.4175, 1.4944],
                [1.0226, 1.1840, 1.3416, 1.6795]]))
        (tensor([6.0321, 7.3285, 6.3710, 5.2277], grad_fn=<SumBackward1>), tensor([[1.6426, 2.1559, 1.0925, 1.1411],
                [1.3599, 1.8853, 1.6325, 2.4509],
                [1.5772, 1.8819, 1.4175, 1.4944],
                [1.0226, 1.1840, 1.3416, 1.6795]], grad_fn=<MulBackward0>))
        (tensor([1.8784, 2.4468]), (tensor([2., 2.]), tensor([3., 3.])))
        """,  # noqa: E501
    )


def test_functional_jvp(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    jvp = torch.autograd.functional.jvp

    def exp_reducer(x: Any) -> Any:
        return x.exp().sum(dim=1)

    inputs = torch.rand(4, 4)
    v = torch.ones(4, 4)
    print(jvp(exp_reducer, inputs, v))
    print(jvp(exp_reducer, inputs, v, create_graph=True))

    def adder(x: Any, y: Any) -> Any:
        return 2 * x + 3 * y

    inputs = (torch.rand(2), torch.rand(2))
    v = (torch.ones(2), torch.ones(2))
    print(jvp(adder, inputs, v))
    printed(
        capsys,
        """
        (tensor([6.0321, 7.3285, 6.3710, 5.2277]), tensor([6.0321, 7.3285, 6.3710, 5.2277]))
        (tensor([6.0321, 7.3285, 6.3710, 5.2277], grad_fn=<SumBackward1>), tensor([6.0321, 7.3285, 6.3710, 5.2277], grad_fn=<SqueezeBackward1>))
        (tensor([1.8784, 2.4468]), tensor([5., 5.]))
        """,  # noqa: E501
    )


def test_functional_jacobian(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    jacobian = torch.autograd.functional.jacobian

    def exp_reducer(x: Any) -> Any:
        return x.exp().sum(dim=1)

    inputs = torch.rand(2, 2)
    print(jacobian(exp_reducer, inputs))
    print(jacobian(exp_reducer, inputs, create_graph=True))

    def exp_adder(x: Any, y: Any) -> Any:
        return 2 * x.exp() + 3 * y

    inputs = (torch.rand(2), torch.rand(2))
    print(jacobian(exp_adder, inputs))

    def linear_model(x: Any) -> Any:
        W = torch.tensor([[2.0, -1.0], [0.0, 1.0]])
        b = torch.tensor([1.0, 0.5])
        return x @ W.T + b

    x = torch.randn(4, 2, requires_grad=True)
    jac = jacobian(linear_model, x, vectorize=True)
    print(jac.shape, jac[1, :, 1])
    printed(
        capsys,
        """
        tensor([[[1.6426, 2.1559],
                 [0.0000, 0.0000]],

                [[0.0000, 0.0000],
                 [1.0925, 1.1411]]])
        tensor([[[1.6426, 2.1559],
                 [0.0000, 0.0000]],

                [[0.0000, 0.0000],
                 [1.0925, 1.1411]]], grad_fn=<ViewBackward0>)
        (tensor([[2.7198, 0.0000],
                [0.0000, 3.7706]]), tensor([[3., 0.],
                [0., 3.]]))
        torch.Size([4, 2, 4, 2]) tensor([[ 2., -1.],
                [ 0.,  1.]])
        """,
    )


def test_functional_hessian(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    hessian = torch.autograd.functional.hessian

    def pow_reducer(x: Any) -> Any:
        return x.pow(3).sum()

    inputs = torch.rand(2, 2)
    print(hessian(pow_reducer, inputs))
    print(hessian(pow_reducer, inputs, create_graph=True).grad_fn.name())

    def pow_adder_reducer(x: Any, y: Any) -> Any:
        return (2 * x.pow(2) + 3 * y.pow(2)).sum()

    inputs = (torch.rand(2), torch.rand(2))
    print(hessian(pow_adder_reducer, inputs))
    printed(
        capsys,
        """
        tensor([[[[2.9775, 0.0000],
                  [0.0000, 0.0000]],

                 [[0.0000, 4.6093],
                  [0.0000, 0.0000]]],


                [[[0.0000, 0.0000],
                  [0.5309, 0.0000]],

                 [[0.0000, 0.0000],
                  [0.0000, 0.7922]]]])
        ViewBackward0
        ((tensor([[4., 0.],
                [0., 4.]]), tensor([[0., 0.],
                [0., 0.]])), (tensor([[0., 0.],
                [0., 0.]]), tensor([[6., 0.],
                [0., 6.]])))
        """,
    )


def test_functional_vhp(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    vhp = torch.autograd.functional.vhp

    def pow_reducer(x: Any) -> Any:
        return x.pow(3).sum()

    inputs = torch.rand(2, 2)
    v = torch.ones(2, 2)
    print(vhp(pow_reducer, inputs, v))
    print(vhp(pow_reducer, inputs, v, create_graph=True))

    def pow_adder_reducer(x: Any, y: Any) -> Any:
        return (2 * x.pow(2) + 3 * y.pow(2)).sum()

    inputs = (torch.rand(2), torch.rand(2))
    v = (torch.zeros(2), torch.ones(2))
    print(vhp(pow_adder_reducer, inputs, v))
    printed(
        capsys,
        """
        (tensor(0.5786), tensor([[2.9775, 4.6093],
                [0.5309, 0.7922]]))
        (tensor(0.5786, grad_fn=<SumBackward0>), tensor([[2.9775, 4.6093],
                [0.5309, 0.7922]], grad_fn=<MulBackward0>))
        (tensor(4.1245), (tensor([0., 0.]), tensor([6., 6.])))
        """,
    )


def test_functional_hvp(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    hvp = torch.autograd.functional.hvp

    def pow_reducer(x: Any) -> Any:
        return x.pow(3).sum()

    inputs = torch.rand(2, 2)
    v = torch.ones(2, 2)
    print(hvp(pow_reducer, inputs, v))
    print(hvp(pow_reducer, inputs, v, create_graph=True))

    def pow_adder_reducer(x: Any, y: Any) -> Any:
        return (2 * x.pow(2) + 3 * y.pow(2)).sum()

    inputs = (torch.rand(2), torch.rand(2))
    v = (torch.zeros(2), torch.ones(2))
    print(hvp(pow_adder_reducer, inputs, v))
    printed(
        capsys,
        """
        (tensor(0.5786), tensor([[2.9775, 4.6093],
                [0.5309, 0.7922]]))
        (tensor(0.5786, grad_fn=<SumBackward0>), tensor([[2.9775, 4.6093],
                [0.5309, 0.7922]], grad_fn=<MulBackward0>))
        (tensor(4.1245), (tensor([0., 0.]), tensor([6., 6.])))
        """,
    )


def test_forward_ad_dual_level(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    dual_level = torch.autograd.forward_ad.dual_level
    make_dual = torch.autograd.forward_ad.make_dual
    unpack_dual = torch.autograd.forward_ad.unpack_dual

    def your_fn(t: Any) -> Any:
        return t * t

    x = torch.tensor([1.0])  # the docstring's integer tensors cannot carry a tangent
    x_t = torch.tensor([1.0])
    with dual_level():
        inp = make_dual(x, x_t)
        # Do computations with inp
        out = your_fn(inp)
        _, grad = unpack_dual(out)
    print(grad is None, grad)
    # After exiting the level, the grad is deleted
    _, grad_after = unpack_dual(out)
    print(grad_after is None)
    printed(capsys, "False tensor([2.])\nTrue\n")


def test_forward_ad_make_dual(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    dual_level = torch.autograd.forward_ad.dual_level
    make_dual = torch.autograd.forward_ad.make_dual
    unpack_dual = torch.autograd.forward_ad.unpack_dual

    def f(t: Any) -> Any:
        return t.sin() * 2

    x = torch.tensor([0.0, 1.0, 2.0])
    v = torch.tensor([1.0, 1.0, 0.5])
    with dual_level():
        inp = make_dual(x, v)
        out = f(inp)
        y, jvp = unpack_dual(out)
    print(y, jvp, sep="\n")
    printed(capsys, "tensor([0.0000, 1.6829, 1.8186])\ntensor([ 2.0000,  1.0806, -0.4161])\n")


def test_forward_ad_unpack_dual(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    dual_level = torch.autograd.forward_ad.dual_level
    make_dual = torch.autograd.forward_ad.make_dual
    unpack_dual = torch.autograd.forward_ad.unpack_dual

    def f(t: Any) -> Any:
        return t.exp()

    x = torch.tensor([0.0, 1.0])
    x_t = torch.tensor([2.0, 1.0])
    with dual_level():
        inp = make_dual(x, x_t)
        out = f(inp)
        y, jvp = unpack_dual(out)
        jvp = unpack_dual(out).tangent
        print(type(unpack_dual(out)).__name__, unpack_dual(out)._fields)
    print(y, jvp)
    printed(
        capsys,
        """
        UnpackedDualTensor ('primal', 'tangent')
        tensor([1.0000, 2.7183]) tensor([2.0000, 2.7183])
        """,
    )
