"""The examples of `torch.autograd.function`'s docstrings (`Function`, the `ctx` methods,
`once_differentiable`) and of `detect_anomaly`, run under chainrule and PyTorch (`lib`
fixture), against the recorded output.

Each test is one docstring's example, its code kept as written there, then used the
way the docstring describes (a backward, a forward-mode tangent, an error).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from autograd_docs_support import printed, show_error


def test_function_exp(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    Function = torch.autograd.Function

    class Exp(Function):
        @staticmethod
        def forward(ctx: Any, i: Any) -> Any:
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (result,) = ctx.saved_tensors
            return grad_output * result

    input = torch.tensor([0.0, 1.0], requires_grad=True)
    # Use it by calling the apply method:
    output = Exp.apply(input)
    output.sum().backward()
    print(output, input.grad, sep="\n")
    printed(
        capsys,
        """
        tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)
        tensor([1.0000, 2.7183])
        """,
    )


def test_function_ctx_save_for_backward(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    Function = torch.autograd.Function
    once_differentiable = torch.autograd.function.once_differentiable

    class Func(Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any, z: int) -> Any:
            w = x * z
            out = x * y + y * z + w * y
            ctx.save_for_backward(x, y, w, out)
            ctx.z = z  # z is not a tensor
            return out

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad_out: Any) -> Any:
            x, y, w, out = ctx.saved_tensors  # noqa: RUF059
            z = ctx.z
            gx = grad_out * (y + y * z)
            gy = grad_out * (x + z + w)
            gz = None
            return gx, gy, gz

    a = torch.tensor(1.0, requires_grad=True, dtype=torch.double)
    b = torch.tensor(2.0, requires_grad=True, dtype=torch.double)
    c = 4
    d = Func.apply(a, b, c)
    d.backward()
    print(d, a.grad, b.grad, sep="\n")
    printed(
        capsys,
        """
        tensor(18., dtype=torch.float64, grad_fn=<FuncBackward>)
        tensor(10., dtype=torch.float64)
        tensor(9., dtype=torch.float64)
        """,
    )


def test_function_once_differentiable(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # The docstring of save_for_backward: with @once_differentiable, double backward raises.
    torch = lib
    once_differentiable = torch.autograd.function.once_differentiable

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad_out: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * grad_out

    x = torch.tensor([3.0], requires_grad=True)
    (g,) = torch.autograd.grad((Square.apply(x) ** 2).sum(), x, create_graph=True)
    print(g)
    show_error(lambda: g.sum().backward())
    printed(
        capsys,
        """
        tensor([108.], grad_fn=<Error>)
        RuntimeError: trying to differentiate twice a function that was marked with @once_differentiable
        """,  # noqa: E501
    )


def test_function_ctx_save_for_forward(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    fwAD = torch.autograd.forward_ad

    class Func(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any, z: int) -> Any:
            ctx.save_for_backward(x, y)
            ctx.save_for_forward(x, y)
            ctx.z = z
            return x * y * z

        @staticmethod
        def jvp(ctx: Any, x_t: Any, y_t: Any, _: Any) -> Any:
            x, y = ctx.saved_tensors
            z = ctx.z
            return z * (y * x_t + x * y_t)

        @staticmethod
        def vjp(ctx: Any, grad_out: Any) -> Any:
            x, y = ctx.saved_tensors
            z = ctx.z
            return z * grad_out * y, z * grad_out * x, None

    a = torch.tensor(1.0, requires_grad=True, dtype=torch.double)
    t = torch.tensor(1.0, dtype=torch.double)
    b = torch.tensor(2.0, requires_grad=True, dtype=torch.double)
    c = 4

    with fwAD.dual_level():
        a_dual = fwAD.make_dual(a, t)
        d = Func.apply(a_dual, b, c)
        print(fwAD.unpack_dual(d).tangent)
    # A Function that defines only vjp (backward's other name) runs in backward too.
    d.backward()
    print(a.grad, b.grad)
    printed(
        capsys,
        """
        tensor(8., dtype=torch.float64, grad_fn=<MulBackward0>)
        tensor(8., dtype=torch.float64) tensor(4., dtype=torch.float64)
        """,
    )


def test_function_ctx_mark_dirty(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    Function = torch.autograd.Function
    once_differentiable = torch.autograd.function.once_differentiable

    class Inplace(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x_npy = x.numpy()  # x_npy shares storage with x
            x_npy += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output

    a = torch.tensor(1.0, requires_grad=True, dtype=torch.double).clone()
    b = a * a
    out = Inplace.apply(a)  # This would lead to wrong gradients!
    #                         but the engine would not know unless we mark_dirty
    print(out is a, a, a._version)
    show_error(lambda: b.backward())  # RuntimeError: one of the variables needed for gradient
    #                                   computation has been modified by an inplace operation
    printed(
        capsys,
        """
        True tensor(2., dtype=torch.float64, grad_fn=<InplaceBackward>) 1
        RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.DoubleTensor []], which is output 0 of Inplace, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
        """,  # noqa: E501
    )


def test_function_ctx_mark_non_differentiable(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    Function = torch.autograd.Function
    once_differentiable = torch.autograd.function.once_differentiable

    class Func(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            sorted, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return sorted, idx

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:  # still need to accept g2
            x, idx = ctx.saved_tensors
            grad_input = torch.zeros_like(x)
            grad_input.index_add_(0, idx, g1)
            return grad_input

    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    sorted, idx = Func.apply(x)
    print(sorted, idx, idx.requires_grad)
    (sorted * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    print(x.grad)
    printed(
        capsys,
        """
        tensor([1., 2., 3.], grad_fn=<FuncBackward>) tensor([1, 2, 0]) False
        tensor([100.,   1.,  10.])
        """,
    )


def test_function_ctx_set_materialize_grads(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    Function = torch.autograd.Function
    once_differentiable = torch.autograd.function.once_differentiable

    class SimpleFunc(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone(), x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            return g1 + g2  # No check for None necessary

    # We modify SimpleFunc to handle non-materialized grad outputs
    class Func(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.clone(), x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            print(g2)
            x = ctx.saved_tensors[0]
            grad_input = torch.zeros_like(x)
            if g1 is not None:  # We must check for None now
                grad_input += g1
            if g2 is not None:
                grad_input += g2
            return grad_input

    a = torch.tensor(1.0, requires_grad=True)
    b, _ = Func.apply(a)  # induces g2 to be undefined
    b.backward()
    c, _ = SimpleFunc.apply(a)
    c.backward()
    print(a.grad)
    printed(capsys, "None\ntensor(2.)\n")


def test_function_detect_anomaly(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    autograd = torch.autograd

    class MyFunc(autograd.Function):
        @staticmethod
        def forward(ctx: Any, inp: Any) -> Any:
            return inp.clone()

        @staticmethod
        def backward(ctx: Any, gO: Any) -> Any:
            # Error during the backward pass
            raise RuntimeError("Some error in backward")

    def run_fn(a: Any) -> Any:
        out = MyFunc.apply(a)
        return out.sum()

    inp = torch.rand(10, 10, requires_grad=True)
    out = run_fn(inp)
    show_error(lambda: out.backward())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with autograd.detect_anomaly():
            inp = torch.rand(10, 10, requires_grad=True)
            out = run_fn(inp)
            show_error(lambda: out.backward())
    for w in caught:
        message = str(w.message)
        # The traceback of the forward call: where run_fn called MyFunc.apply.
        print(w.category.__name__, message.splitlines()[0], "out = MyFunc.apply(a)" in message)
    printed(
        capsys,
        """
        RuntimeError: Some error in backward
        RuntimeError: Some error in backward
        UserWarning Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging. False
        UserWarning Error detected in MyFuncBackward. Traceback of forward call that caused the error: True
        """,  # noqa: E501
    )


def test_function_backward_or_vjp(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # The note's step 1: a Function defines backward *or* vjp (its other name), not both.
    torch = lib

    class Both(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

        @staticmethod
        def vjp(ctx: Any, g: Any) -> Any:
            return g * 2

    x = torch.ones(2, requires_grad=True)
    show_error(lambda: Both.apply(x).sum().backward())
    printed(
        capsys,
        """
        RuntimeError: Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should only implement one of them.
        """,  # noqa: E501
    )
