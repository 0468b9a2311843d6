"""The autograd code of PyTorch's "Extending PyTorch" note, run under chainrule and PyTorch
(`lib` fixture), against the recorded output.

Each test is one example of the note's "Extending torch.autograd" section (and the
`Linear` module of "Extending torch.nn", which uses it), its code kept as written
there (docs/source/notes/extending.rst), with prints of what it computes.
"""

from __future__ import annotations

from typing import Any

import pytest

from autograd_docs_support import printed


def _linear_function(torch: Any) -> Any:
    Function = torch.autograd.Function

    # Inherit from Function
    class LinearFunction(Function):
        # Note that forward, setup_context, and backward are @staticmethods
        @staticmethod
        def forward(input: Any, weight: Any, bias: Any) -> Any:
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        # inputs is a Tuple of all of the inputs passed to forward.
        # output is the output of the forward().
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        # This function has only a single output, so it gets only one gradient
        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None

            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)

            return grad_input, grad_weight, grad_bias

    return LinearFunction


def test_extending_linear_function(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    LinearFunction = _linear_function(torch)

    # Option 1: alias
    linear = LinearFunction.apply

    # Option 2: wrap in a function, to support default args and keyword args.
    def linear_wrapped(input: Any, weight: Any, bias: Any = None) -> Any:
        return LinearFunction.apply(input, weight, bias)

    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(2, 4, requires_grad=True)
    b = torch.randn(2, requires_grad=True)
    out = linear(x, w, b)
    print(out.grad_fn.name(), out.equal(torch.nn.functional.linear(x, w, b)))
    out.sum().backward()
    print(x.grad[0], w.grad[0], b.grad)
    print(linear_wrapped(x, w).equal(x.mm(w.t())), linear_wrapped(x, weight=w).requires_grad)
    printed(
        capsys,
        """
        LinearFunctionBackward True
        tensor([-1.4230,  1.4737, -1.9632, -1.3864]) tensor([-0.2628, -2.0954, -2.3721,  1.5885]) tensor([3., 3.])
        True True
        """,  # noqa: E501
    )


def test_extending_mul_constant(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    Function = torch.autograd.Function

    class MulConstant(Function):
        @staticmethod
        def forward(tensor: Any, constant: float) -> Any:
            return tensor * constant

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            # ctx is a context object that can be used to stash information
            # for backward computation
            tensor, constant = inputs  # noqa: RUF059
            ctx.constant = constant

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            # We return as many input gradients as there were arguments.
            # Gradients of non-Tensor arguments to forward must be None.
            return grad_output * ctx.constant, None

    x = torch.ones(3, requires_grad=True)
    y = MulConstant.apply(x, 5.0)
    y.sum().backward()
    print(y, x.grad)
    printed(
        capsys,
        "tensor([5., 5., 5.], grad_fn=<MulConstantBackward>) tensor([5., 5., 5.])\n",
    )


def test_extending_mul_constant_without_materialized_grads(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = lib
    Function = torch.autograd.Function
    seen = []

    class MulConstant(Function):
        @staticmethod
        def forward(tensor: Any, constant: float) -> Any:
            return tensor * constant

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            tensor, constant = inputs  # noqa: RUF059
            ctx.set_materialize_grads(False)
            ctx.constant = constant

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            seen.append(grad_output)
            # Here we must handle None grad_output tensor. In this case we
            # can skip unnecessary computations and just return None.
            if grad_output is None:
                return None, None

            # We return as many input gradients as there were arguments.
            # Gradients of non-Tensor arguments to forward must be None.
            return grad_output * ctx.constant, None

    x = torch.ones(2, requires_grad=True)
    y = MulConstant.apply(x, 3.0)
    y.sum().backward()
    print(x.grad, seen)
    printed(capsys, "tensor([3., 3.]) [tensor([1., 1.])]\n")


def test_extending_clear_saved_tensors_on_access(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = lib
    Function = torch.autograd.Function

    class TwoMatmuls(Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx: Any, x: Any, weight1: Any, weight2: Any) -> Any:
            inter = x.mm(weight1)
            ctx.save_for_backward(x, weight1, inter, weight2)
            return inter.mm(weight2)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            x, weight1, inter, weight2 = ctx.saved_tensors

            # Compute gradients for second matmul
            grad_weight2 = inter.t().mm(grad_output)
            grad_inter = grad_output.mm(weight2.t())

            # Free inter and weight2, no longer needed
            del inter, weight2

            # Compute gradients for first matmul
            grad_weight1 = x.t().mm(grad_inter)
            grad_x = grad_inter.mm(weight1.t())

            return grad_x, grad_weight1, grad_weight2

    x = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
    w1 = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
    w2 = torch.randn(4, 2, dtype=torch.double, requires_grad=True)
    TwoMatmuls.apply(x, w1, w2).sum().backward()
    expected = torch.autograd.grad(x.mm(w1).mm(w2).sum(), (x, w1, w2))
    print(all(g.allclose(e) for g, e in zip((x.grad, w1.grad, w2.grad), expected, strict=True)))
    y = TwoMatmuls.apply(x, w1, w2)
    _ = y.grad_fn.saved_tensors
    try:  # saved_tensors can be read once only
        _ = y.grad_fn.saved_tensors
    except RuntimeError as e:
        print("RuntimeError:", e)
    printed(
        capsys,
        """
        True
        RuntimeError: saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the autograd.Function. Either access saved_tensors only once, or set clear_saved_tensors_on_access=False.
        """,  # noqa: E501
    )


def test_extending_boxed_grads_call(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    Function = torch.autograd.Function

    class MultiStageBackward(Function):
        boxed_grads_call = True

        @staticmethod
        def forward(ctx: Any, x: Any, weight: Any) -> Any:
            ctx.save_for_backward(x, weight)
            return x.mm(weight)

        @staticmethod
        def backward(ctx: Any, grads: Any) -> Any:
            print(type(grads).__name__, len(grads))
            grad_output = grads[0]
            grads[0] = None  # Free grad_output reference from the list

            x, weight = ctx.saved_tensors
            grad_x = grad_output.mm(weight.t())
            grad_weight = x.t().mm(grad_output)
            del grad_output  # Now grad_output can be freed

            return grad_x, grad_weight

    x = torch.ones(2, 3, requires_grad=True)
    w = torch.ones(3, 2, requires_grad=True)
    MultiStageBackward.apply(x, w).sum().backward()
    print(x.grad, w.grad, sep="\n")
    printed(
        capsys,
        """
        list 1
        tensor([[2., 2., 2.],
                [2., 2., 2.]])
        tensor([[2., 2.],
                [2., 2.],
                [2., 2.]])
        """,
    )


def test_extending_my_cube(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib

    class MyCube(torch.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            # We wish to save dx for backward. In order to do so, it must
            # be returned as an output.
            dx = 3 * x**2
            result = x**3
            return result, dx

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            (x,) = inputs
            result, dx = output  # noqa: RUF059
            ctx.save_for_backward(x, dx)

        @staticmethod
        def backward(ctx: Any, grad_output: Any, grad_dx: Any) -> Any:
            x, dx = ctx.saved_tensors
            # In order for the autograd.Function to work with higher-order
            # gradients, we must add the gradient contribution of `dx`,
            # which is grad_dx * 6 * x.
            result = grad_output * dx + grad_dx * 6 * x
            return result

    # Wrap MyCube in a function so that it is clearer what the output is
    def my_cube(x: Any) -> Any:
        result, dx = MyCube.apply(x)  # noqa: RUF059
        return result

    x = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
    (g,) = torch.autograd.grad(my_cube(x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    print(g, gg, sep="\n")
    print(torch.autograd.gradgradcheck(my_cube, (x,)))
    printed(
        capsys,
        """
        tensor([ 3., 12.], dtype=torch.float64, grad_fn=<AddBackward0>)
        tensor([ 6., 12.], dtype=torch.float64)
        True
        """,
    )


def test_extending_gradcheck(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    LinearFunction = _linear_function(torch)

    def linear(input: Any, weight: Any, bias: Any = None) -> Any:
        return LinearFunction.apply(input, weight, bias)

    gradcheck = torch.autograd.gradcheck  # from torch.autograd import gradcheck

    # gradcheck takes a tuple of tensors as input, check if your gradient
    # evaluated with these tensors are close enough to numerical
    # approximations and returns True if they all verify this condition.
    input = (
        torch.randn(20, 20, dtype=torch.double, requires_grad=True),
        torch.randn(30, 20, dtype=torch.double, requires_grad=True),
    )
    test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
    print(test)
    printed(capsys, "True\n")


def test_extending_combined_forward_and_context(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = lib
    Function = torch.autograd.Function

    class LinearFunction(Function):
        @staticmethod
        # ctx is the first argument to forward
        def forward(ctx: Any, input: Any, weight: Any, bias: Any = None) -> Any:
            # The forward pass can use ctx.
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None

            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)

            return grad_input, grad_weight, grad_bias

    x = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
    w = torch.randn(2, 4, dtype=torch.double, requires_grad=True)
    b = torch.randn(2, dtype=torch.double, requires_grad=True)
    print(torch.autograd.gradcheck(LinearFunction.apply, (x, w, b)))
    out = LinearFunction.apply(x, w)  # bias left at its default
    print(out.grad_fn.needs_input_grad, len(out.grad_fn.saved_tensors))
    printed(capsys, "True\n(True, True) 3\n")


def test_extending_linear_module(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    nn = torch.nn
    LinearFunction = _linear_function(torch)

    class Linear(nn.Module):
        def __init__(self, input_features: int, output_features: int, bias: bool = True) -> None:
            super().__init__()
            self.input_features = input_features
            self.output_features = output_features

            # nn.Parameters require gradients by default.
            self.weight = nn.Parameter(torch.empty(output_features, input_features))
            if bias:
                self.bias = nn.Parameter(torch.empty(output_features))
            else:
                # You should always register all possible parameters, but the
                # optional ones can be None if you want.
                self.register_parameter("bias", None)

            # Not a very smart way to initialize weights
            nn.init.uniform_(self.weight, -0.1, 0.1)
            if self.bias is not None:
                nn.init.uniform_(self.bias, -0.1, 0.1)

        def forward(self, input: Any) -> Any:
            # See the autograd section for explanation of what happens here.
            return LinearFunction.apply(input, self.weight, self.bias)

        def extra_repr(self) -> str:
            # (Optional)Set the extra information about this module. You can test
            # it by printing an object of this class.
            return "input_features={}, output_features={}, bias={}".format(  # noqa: UP032
                self.input_features, self.output_features, self.bias is not None
            )

    layer = Linear(3, 2)
    print(layer)
    print(Linear(3, 2, bias=False))
    out = layer(torch.ones(4, 3))
    out.sum().backward()
    print(out.grad_fn.name(), layer.weight.grad, layer.bias.grad, sep="\n")
    printed(
        capsys,
        """
        Linear(input_features=3, output_features=2, bias=True)
        Linear(input_features=3, output_features=2, bias=False)
        LinearFunctionBackward
        tensor([[4., 4., 4.],
                [4., 4., 4.]])
        tensor([4., 4.])
        """,
    )
