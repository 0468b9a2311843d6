"""The examples of `torch.autograd.graph`'s docstrings (and of the Tensor hooks they point
to), run under chainrule and PyTorch (`lib` fixture), against the recorded output.

Each test is one docstring's example, named after it, its code kept as written there;
the CUDA example of `save_on_cpu` runs on the CPU.
"""

from __future__ import annotations

from typing import Any

import pytest

from autograd_docs_support import printed, show_error


def test_graph_node_name(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    a = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    b = a.clone()
    assert isinstance(b.grad_fn, torch.autograd.graph.Node)
    print(b.grad_fn.name())
    printed(capsys, "CloneBackward0\n")


def test_graph_node_register_hook(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    a = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    b = a.clone()
    assert isinstance(b.grad_fn, torch.autograd.graph.Node)
    handle = b.grad_fn.register_hook(lambda gI, gO: (gO[0] * 2,))
    b.sum().backward(retain_graph=True)
    print(a.grad)
    handle.remove()  # Removes the hook
    a.grad = None
    b.sum().backward(retain_graph=True)
    print(a.grad)
    printed(capsys, "tensor([2., 2., 2.])\ntensor([1., 1., 1.])\n")


def test_graph_node_register_prehook(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    a = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    b = a.clone()
    assert isinstance(b.grad_fn, torch.autograd.graph.Node)
    handle = b.grad_fn.register_prehook(lambda gI: (gI[0] * 2,))
    b.sum().backward(retain_graph=True)
    print(a.grad)
    handle.remove()
    a.grad = None
    b.sum().backward(retain_graph=True)
    print(a.grad)
    printed(capsys, "tensor([2., 2., 2.])\ntensor([1., 1., 1.])\n")


def test_graph_allow_mutation_on_saved_tensors(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = lib
    if not hasattr(torch.autograd.graph, "allow_mutation_on_saved_tensors"):
        pytest.skip("this version lacks torch.autograd.graph.allow_mutation_on_saved_tensors")
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        # forward
        a = torch.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b**2).sum()
        b.sin_()
        # backward
        out.sum().backward()
    print(b)
    print(a.grad)
    printed(
        capsys,
        """
        tensor([[0.8415, 0.8415, 0.8415],
                [0.8415, 0.8415, 0.8415]], grad_fn=<SinBackward0>)
        tensor([[2., 2., 2.],
                [2., 2., 2.]])
        """,
    )


def test_graph_disable_saved_tensors_hooks(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    message = "saved tensors default hooks are disabled"

    def run() -> None:
        with torch.autograd.graph.disable_saved_tensors_hooks(message):  # noqa: SIM117
            # Raises RuntimeError: saved tensors default hooks are disabled
            with torch.autograd.graph.save_on_cpu():
                pass

    show_error(run)
    printed(capsys, "RuntimeError: saved tensors default hooks are disabled\n")


def test_graph_register_multi_grad_hook(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib

    a = torch.rand(2, 3, requires_grad=True)
    b = torch.rand(2, 3, requires_grad=True)
    c = a * b
    d = a * b

    def fn(grads: Any) -> None:
        print([g is not None for g in grads])

    torch.autograd.graph.register_multi_grad_hook((a, b, c, d), fn)

    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    printed(capsys, "[True, True, True, False]\n[True, False, True, False]\n")


def test_graph_save_on_cpu(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    a = torch.randn(5, requires_grad=True)
    b = torch.randn(5, requires_grad=True)
    c = torch.randn(5, requires_grad=True)

    def f(a: Any, b: Any, c: Any) -> Any:
        prod_1 = a * b  # a and b are saved on GPU
        with torch.autograd.graph.save_on_cpu():
            prod_2 = prod_1 * c  # prod_1 and c are saved on CPU
        y = prod_2 * a  # prod_2 and a are saved on GPU
        return y

    y = f(a, b, c)
    expected = (2 * a * b * c, a * a * c, a * a * b)
    y.sum().backward()  # all CPU tensors are moved back to GPU, for backward
    print([t.grad.allclose(e) for t, e in zip((a, b, c), expected, strict=True)])
    printed(capsys, "[True, True, True]\n")


def test_graph_saved_tensors_hooks(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib

    def pack_hook(x: Any) -> Any:
        print("Packing", x)
        return x.detach()

    def unpack_hook(x: Any) -> Any:
        print("Unpacking", x)
        return x

    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b
    y.sum().backward()
    # The docstring shows `a` packed first; PyTorch 2.13 packs `other` (b) first.
    printed(
        capsys,
        """
        Packing tensor([2., 2., 2., 2., 2.], grad_fn=<MulBackward0>)
        Packing tensor([1., 1., 1., 1., 1.], requires_grad=True)
        Unpacking tensor([2., 2., 2., 2., 2.])
        Unpacking tensor([1., 1., 1., 1., 1.])
        """,
    )


def test_graph_saved_tensors_hooks_innermost_pair(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The docstring's warning: when nested, only the inner-most pair of hooks applies.
    torch = lib
    x = torch.ones(2, requires_grad=True)
    outer = torch.autograd.graph.saved_tensors_hooks(
        lambda t: print("outer") or t.detach(), lambda t: t
    )
    inner = torch.autograd.graph.saved_tensors_hooks(
        lambda t: print("inner") or t.detach(), lambda t: t
    )
    with outer, inner:
        x.exp()
    printed(capsys, "inner\n")


def test_tensor_register_hook(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    h = v.register_hook(lambda grad: grad * 2)  # double the gradient
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    print(v.grad)
    h.remove()  # removes the hook
    v.grad = None
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    print(v.grad)
    printed(capsys, "tensor([2., 4., 6.])\ntensor([1., 2., 3.])\n")


def test_tensor_register_post_accumulate_grad_hook(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = lib
    v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    lr = 0.01
    # simulate a simple SGD update
    h = v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-lr))
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    print(v)
    h.remove()  # removes the hook
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    print(v, v.grad)
    printed(
        capsys,
        """
        tensor([-0.0100, -0.0200, -0.0300], requires_grad=True)
        tensor([-0.0100, -0.0200, -0.0300], requires_grad=True) tensor([2., 4., 6.])
        """,
    )
