"""The code of PyTorch's tutorial "Hooks for autograd saved tensors", run under chainrule
and PyTorch (`lib` fixture), against the recorded output.

Each test is one step of the tutorial (intermediate/autograd_saved_tensors_hooks_tutorial.py),
its code kept as written there; prints are added where the tutorial only asserts.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest

from autograd_docs_support import printed


def test_tutorial_saved_tensors_of_mul(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    a = torch.randn(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True)
    y = a * b

    print(y.grad_fn._saved_self)
    print(y.grad_fn._saved_other)
    printed(
        capsys,
        """
        tensor([ 1.5410, -0.2934, -2.1788,  0.5684, -1.0845], requires_grad=True)
        tensor([1., 1., 1., 1., 1.], requires_grad=True)
        """,
    )


def test_tutorial_graph_keeps_intermediates(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib

    def f(x: Any) -> Any:
        return x * x

    x = torch.randn(5, requires_grad=True)
    y = f(f(f(x)))
    # The graph keeps f(x) and f(f(x)) alive, as the saved tensors of the later products.
    middle = y.grad_fn.next_functions[0][0]
    print(y.grad_fn._saved_self.equal(f(f(x))), middle._saved_self.equal(f(x)))
    printed(capsys, "True True\n")


def test_tutorial_packing_and_unpacking(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    a = torch.randn(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True)
    y = a * b

    print(y.grad_fn._saved_self is a)  # True
    print(y.grad_fn._saved_other is b)  # True

    a = torch.randn(5, requires_grad=True)
    y = torch.exp(a)
    print(y.grad_fn._saved_result.equal(y))  # True
    print(y.grad_fn._saved_result is y)  # False
    printed(capsys, "True\nTrue\nTrue\nFalse\n")


def test_tutorial_saved_tensors_hooks(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
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
    # PyTorch saves (and so packs) `other` before `self` for a product.
    printed(
        capsys,
        """
        Packing tensor([2., 2., 2., 2., 2.], grad_fn=<MulBackward0>)
        Packing tensor([1., 1., 1., 1., 1.], requires_grad=True)
        Unpacking tensor([2., 2., 2., 2., 2.])
        Unpacking tensor([1., 1., 1., 1., 1.])
        """,
    )


def test_tutorial_unpack_of_pack_is_identity(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
        y = torch.pow(x, 2)
    y.sum().backward()
    assert x.grad.equal(2 * x)
    print(x.grad)
    printed(capsys, "tensor([ 3.0820, -0.5869, -4.3576,  1.1369, -2.1690])\n")


def test_tutorial_returning_an_int(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    # Returning the index of a Python list
    # Relatively harmless but with debatable usefulness

    storage = []

    def pack(x: Any) -> int:
        storage.append(x)
        return len(storage) - 1

    def unpack(x: int) -> Any:
        return storage[x]

    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()

    assert x.grad.equal(2 * x)
    print(len(storage), storage[0] is x)
    printed(capsys, "2 True\n")


def test_tutorial_returning_a_tuple(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    # Returning some tensor and a function how to unpack it
    # Quite unlikely to be useful in its current form

    def pack(x: Any) -> Any:
        delta = torch.randn(*x.size())
        return x - delta, lambda x: x + delta

    def unpack(packed: Any) -> Any:
        x, f = packed
        return f(x)

    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()

    assert torch.allclose(x.grad, 2 * x)
    print(torch.allclose(x.grad, 2 * x))
    printed(capsys, "True\n")


def test_tutorial_returning_a_str(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    # Returning the __repr__ of the tensor
    # Probably never do this

    x = torch.randn(5, requires_grad=True)
    # (eval is given the namespace where `torch` is this test's library.)
    with torch.autograd.graph.saved_tensors_hooks(
        lambda x: repr(x), lambda x: eval("torch." + x, {"torch": torch})
    ):
        y = x * x
    y.sum().backward()
    assert torch.all(x.grad - 2 * x <= 1e-4)
    print(x.grad)  # twice the printed (rounded) values of x
    printed(capsys, "tensor([ 3.0820, -0.5868, -4.3576,  1.1368, -2.1690])\n")


def test_tutorial_saving_tensors_to_cpu(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib

    def pack_hook(x: Any) -> Any:
        return (x.device, x.cpu())

    def unpack_hook(packed: Any) -> Any:
        device, tensor = packed
        return tensor.to(device)

    x = torch.randn(5, requires_grad=True)
    # (The tutorial passes the hooks of its previous step here, `pack, unpack`.)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x * x
    y.sum().backward()

    print(torch.allclose(x.grad, (2 * x)))
    printed(capsys, "True\n")


def test_tutorial_save_on_cpu(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    nn = torch.nn

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.randn(5))

        def forward(self, x: Any) -> Any:
            with torch.autograd.graph.save_on_cpu(pin_memory=True):
                # some computation
                return self.w * x

    x = torch.randn(5)
    model = Model()
    loss = model(x).sum()
    loss.backward()
    print(model.w.grad.equal(x))
    printed(capsys, "True\n")


def test_tutorial_save_to_cpu_module(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    nn = torch.nn

    class SaveToCpu(nn.Module):
        def __init__(self, module: Any) -> None:
            super().__init__()
            self.module = module

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            with torch.autograd.graph.save_on_cpu(pin_memory=True):
                return self.module(*args, **kwargs)

    model = nn.Sequential(
        nn.Linear(10, 100),
        SaveToCpu(nn.Linear(100, 100)),
        nn.Linear(100, 10),
    )

    x = torch.randn(10)
    loss = model(x).sum()
    loss.backward()
    print(model[1])
    print(f"{loss.item():.4f}", f"{model[0].weight.grad.sum().item():.4f}")
    printed(
        capsys,
        """
        SaveToCpu(
          (module): Linear(in_features=100, out_features=100, bias=True)
        )
        0.8492 1.6752
        """,
    )


def test_tutorial_saving_to_disk_naive(
    lib: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    torch = lib
    # Naive version - HINT: Don't do this

    tmp_dir = str(tmp_path)

    def pack_hook(tensor: Any) -> str:
        name = os.path.join(tmp_dir, str(uuid.uuid4()))
        torch.save(tensor, name)
        return name

    def unpack_hook(name: str) -> Any:
        return torch.load(name)

    x = torch.ones(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2)
    y.sum().backward()
    # The files stay on disk: the leak the tutorial warns about.
    print(x.grad, len(os.listdir(tmp_dir)))
    printed(capsys, "tensor([2., 2., 2., 2., 2.]) 1\n")


def test_tutorial_saving_to_disk_incorrect(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    # Incorrect version - HINT: Don't do this

    tmp_dir_obj = tempfile.TemporaryDirectory()
    tmp_dir = tmp_dir_obj.name

    def pack_hook(tensor: Any) -> str:
        name = os.path.join(tmp_dir, str(uuid.uuid4()))
        torch.save(tensor, name)
        return name

    def unpack_hook(name: str) -> Any:
        tensor = torch.load(name)
        os.remove(name)
        return tensor

    x = torch.ones(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2)
    print(y.grad_fn._saved_self)
    try:
        print(y.grad_fn._saved_self)
        print("Double access succeeded!")
    except Exception:
        print("Double access failed!")
    tmp_dir_obj.cleanup()
    printed(capsys, "tensor([1., 1., 1., 1., 1.], requires_grad=True)\nDouble access failed!\n")


def _self_deleting_hooks(torch: Any, tmp_dir: str) -> tuple[type, Any, Any]:
    class SelfDeletingTempFile:
        def __init__(self) -> None:
            self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

        def __del__(self) -> None:
            os.remove(self.name)

    def pack_hook(tensor: Any) -> SelfDeletingTempFile:
        temp_file = SelfDeletingTempFile()
        torch.save(tensor, temp_file.name)
        return temp_file

    def unpack_hook(temp_file: SelfDeletingTempFile) -> Any:
        return torch.load(temp_file.name)

    return SelfDeletingTempFile, pack_hook, unpack_hook


def test_tutorial_self_deleting_temp_file(
    lib: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    torch = lib
    _, pack_hook, unpack_hook = _self_deleting_hooks(torch, str(tmp_path))
    x = torch.ones(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2)
    print(y.grad_fn._saved_self, y.grad_fn._saved_self.equal(x), len(os.listdir(tmp_path)))
    y.sum().backward()
    # The backward released the packed object, and with it the file.
    print(x.grad, len(os.listdir(tmp_path)))
    printed(
        capsys,
        """
        tensor([1., 1., 1., 1., 1.], requires_grad=True) True 1
        tensor([2., 2., 2., 2., 2.]) 0
        """,
    )


def test_tutorial_save_to_disk_module(
    lib: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    torch = lib
    nn = torch.nn
    SelfDeletingTempFile, _, _ = _self_deleting_hooks(torch, str(tmp_path))

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.randn(5))

        def forward(self, x: Any) -> Any:
            return self.w * x

    # Only save on disk tensors that have size >= 1000
    SAVE_ON_DISK_THRESHOLD = 1000

    def pack_hook(x: Any) -> Any:
        if x.numel() < SAVE_ON_DISK_THRESHOLD:
            return x.detach()
        temp_file = SelfDeletingTempFile()
        torch.save(x, temp_file.name)  # the tutorial writes `tensor`, a name it never defines
        return temp_file

    def unpack_hook(tensor_or_sctf: Any) -> Any:
        if isinstance(tensor_or_sctf, torch.Tensor):
            return tensor_or_sctf
        return torch.load(tensor_or_sctf.name)

    class SaveToDisk(nn.Module):
        def __init__(self, module: Any) -> None:
            super().__init__()
            self.module = module

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
                return self.module(*args, **kwargs)

    net = nn.DataParallel(SaveToDisk(Model()))
    print(net)
    big = SaveToDisk(nn.Linear(1000, 1))
    out = net(torch.ones(5)).sum() + big(torch.ones(1000)).sum()
    print(len(os.listdir(tmp_path)))
    out.backward()
    print(net.module.module.w.grad, len(os.listdir(tmp_path)))
    printed(
        capsys,
        """
        DataParallel(
          (module): SaveToDisk(
            (module): Model()
          )
        )
        1
        tensor([1., 1., 1., 1., 1.]) 0
        """,
    )
