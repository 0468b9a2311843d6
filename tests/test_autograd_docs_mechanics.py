"""The code of PyTorch's "Autograd mechanics" note, run under chainrule and PyTorch.

Each test is one example of the note (docs/source/notes/autograd.rst), its code kept
as written there, with prints added where the note only states the result; the
`lib` fixture runs it under chainrule, then under PyTorch, against the recorded output.
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from autograd_docs_support import printed, show_error


def test_mechanics_saved_tensors_of_pow(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    print(x.equal(y.grad_fn._saved_self))  # True
    print(x is y.grad_fn._saved_self)  # True
    printed(capsys, "True\nTrue\n")


def test_mechanics_saved_result_of_exp(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.randn(5, requires_grad=True)
    y = x.exp()
    print(y.equal(y.grad_fn._saved_result))  # True
    print(y is y.grad_fn._saved_result)  # False
    printed(capsys, "True\nFalse\n")


def test_mechanics_division_by_zero(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.tensor([1.0, 1.0], requires_grad=True)
    div = torch.tensor([0.0, 1.0])

    y = x / div  # Results in [inf, 1]
    mask = div != 0  # [False, True]
    loss = y[mask].sum()
    loss.backward()
    print(x.grad)  # [nan, 1], not [0, 1]
    printed(capsys, "tensor([nan, 1.])\n")


def test_mechanics_mask_before_division(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    x = torch.tensor([1.0, 1.0], requires_grad=True)
    div = torch.tensor([0.0, 1.0])

    mask = div != 0
    safe = torch.zeros_like(x)
    safe[mask] = x[mask] / div[mask]
    loss = safe.sum()
    loss.backward()  # Produces safe gradients [0, 1]
    print(x.grad, safe.grad_fn.name())
    printed(capsys, "tensor([0., 1.]) IndexPutBackward0\n")


def test_mechanics_multithreaded_autograd(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib
    grads = []

    # Define a train function to be used in different threads
    def train_fn() -> None:
        x = torch.ones(5, 5, requires_grad=True)
        # forward
        y = (x + 3) * (x + 4) * 0.5
        # backward
        y.sum().backward()
        # potential optimizer update
        grads.append(x.grad)

    # User write their own threading code to drive the train_fn
    threads = []
    for _ in range(10):
        p = threading.Thread(target=train_fn, args=())
        p.start()
        threads.append(p)

    for p in threads:
        p.join()

    print(len(grads), all(g.equal(grads[0]) for g in grads), grads[0][0])
    printed(capsys, "10 True tensor([4.5000, 4.5000, 4.5000, 4.5000, 4.5000])\n")


def _temp_file_hooks(torch: Any, tmp_dir: Path) -> tuple[type, Any, Any]:
    """The note's pair of hooks that keep saved tensors in self-deleting files."""

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


def test_mechanics_hooks_for_saved_tensors(
    lib: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    torch = lib
    _, pack_hook, unpack_hook = _temp_file_hooks(torch, tmp_path)
    x = torch.randn(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2)
    print(len(os.listdir(tmp_path)), y.grad_fn._saved_self.equal(x))
    y.sum().backward()
    print(x.grad.equal(2 * x), len(os.listdir(tmp_path)))
    printed(capsys, "1 True\nTrue 0\n")


def test_mechanics_registering_hooks_for_a_saved_tensor(
    lib: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    torch = lib
    _, pack_hook, unpack_hook = _temp_file_hooks(torch, tmp_path)
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
    print(len(os.listdir(tmp_path)), y.grad_fn._saved_self is x, y.grad_fn._saved_self.equal(x))
    y.sum().backward()
    print(x.grad.equal(2 * x), len(os.listdir(tmp_path)))
    printed(capsys, "1 False True\nTrue 0\n")


def test_mechanics_register_hooks_on_a_freed_saved_tensor(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The note's warnings: one pair of hooks per saved tensor, and none once it is freed.
    torch = lib
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: t.detach(), lambda t: t)
    show_error(lambda: raw.register_hooks(lambda t: t.detach(), lambda t: t))
    y.sum().backward()
    show_error(lambda: raw.register_hooks(lambda t: t.detach(), lambda t: t))

    def modify(t: Any) -> Any:
        return t.add_(1)

    show_error(lambda: x.pow(2).grad_fn._raw_saved_self.register_hooks(modify, lambda t: t))
    printed(
        capsys,
        """
        RuntimeError: Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of hooks is allowed at a time.
        RuntimeError: Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved variables after calling backward.
        RuntimeError: A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need to perform in-place operations on the input to a pack hook.
        """,  # noqa: E501
    )


def test_mechanics_registering_default_hooks(
    lib: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    torch = lib
    nn = torch.nn
    SelfDeletingTempFile, _, _ = _temp_file_hooks(torch, tmp_path)
    # Only save on disk tensors that have size >= 1000
    SAVE_ON_DISK_THRESHOLD = 1000

    def pack_hook(x: Any) -> Any:
        if x.numel() < SAVE_ON_DISK_THRESHOLD:
            return x.detach()
        temp_file = SelfDeletingTempFile()
        torch.save(x, temp_file.name)  # the note writes `tensor`, a name it never defines
        return temp_file

    def unpack_hook(tensor_or_sctf: Any) -> Any:
        if isinstance(tensor_or_sctf, torch.Tensor):
            return tensor_or_sctf
        return torch.load(tensor_or_sctf.name)

    class Model(nn.Module):
        def forward(self, x: Any) -> Any:
            with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
                # ... compute output
                output = x
            return output

    model = Model()
    net = nn.DataParallel(model)
    print(net)
    # ... and with an output that saves tensors, one large and one small
    x = torch.randn(1000, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x * torch.ones(1000) + x[:10].sum()
    print(net(x) is x, len(os.listdir(tmp_path)))
    y.sum().backward()
    print(x.grad[:3], len(os.listdir(tmp_path)))
    printed(
        capsys,
        """
        DataParallel(
          (module): Model()
        )
        True 1
        tensor([1001., 1001., 1001.]) 0
        """,
    )


def test_mechanics_hooks_do_not_go_through_data_parallel(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = lib
    nn = torch.nn
    model = nn.Linear(3, 2)
    input = torch.randn(4, 3)
    calls = []

    def pack_hook(x: Any) -> Any:
        calls.append(tuple(x.shape))
        return x.detach()

    def unpack_hook(x: Any) -> Any:
        return x

    # Example what NOT to do

    net = nn.DataParallel(model)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        output = net(input)
    # On a machine without accelerators, DataParallel calls the module in this thread.
    print(output.shape, calls)
    printed(capsys, "torch.Size([4, 2]) [(4, 3)]\n")


def test_mechanics_hooks_make_new_tensor_objects(
    lib: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = lib
    x = torch.randn(5, requires_grad=True)
    y = x * x
    print(y.grad_fn._saved_self is x, y.grad_fn._saved_other is x)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: x.detach(), lambda x: x):
        x = torch.randn(5, requires_grad=True)
        y = x * x
    saved_self, saved_other = y.grad_fn._saved_self, y.grad_fn._saved_other
    print(saved_self is x, saved_other is x, saved_self is saved_other)
    print(saved_self.equal(x), saved_self.data_ptr() == x.data_ptr())
    printed(capsys, "True True\nFalse False False\nTrue True\n")


def test_mechanics_tensor_hook_after_in_place(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    torch = lib

    def fn(grad: Any) -> None:
        print("hook", grad)

    t = torch.tensor(1.0, requires_grad=True).sin()
    t.cos_()
    t.register_hook(fn)
    t.backward()
    printed(capsys, "hook tensor(1.)\n")


def test_mechanics_order_of_backward_hooks(lib: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # The order the note's "Backward Hooks execution" section lists, shown on one graph.
    torch = lib
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b.retain_grad()
    b.register_hook(lambda g: print("tensor hook", b.grad))
    b.grad_fn.register_prehook(lambda gO: print("node pre-hook", b.grad))
    b.grad_fn.register_hook(lambda gI, gO: print("node post-hook", a.grad))
    a.register_hook(lambda g: print("leaf tensor hook", a.grad))
    a.register_post_accumulate_grad_hook(lambda p: print("post-accumulate-grad hook", p.grad))
    b.sum().backward()
    printed(
        capsys,
        """
        tensor hook None
        node pre-hook tensor([1., 1.])
        node post-hook None
        leaf tensor hook None
        post-accumulate-grad hook tensor([2., 2.])
        """,
    )
