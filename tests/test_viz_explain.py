"""chainrule.viz.explain: backward narrated step by step, and the pieces it is made of.

The transcripts are compared whole: the seed example must read as its hand
derivation (d out/d c = 1/2, d c/d b = 6b, d b/d a = 1, a.grad = [15, 18]).
"""

from __future__ import annotations

import gc
import io
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import chainrule as torch
import chainrule.nn.functional as F
from chainrule._ops.primitive import Primitive
from chainrule.autograd.graph import backward_watchers
from chainrule.viz import explain, names_from, record
from chainrule.viz._rules import (
    Derivative,
    derivatives,
    local_derivatives,
    local_value,
    saved_array,
)
from chainrule.viz._summary import format_number, summarize


def seed() -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a + 3
    c = b * b * 3
    out = c.mean()
    return a, out, names_from(locals())


def told(fn: Callable[[], Any], **kwargs: Any) -> str:
    """What `explain` writes while `fn` runs."""
    buf = io.StringIO()
    with explain(file=buf, **kwargs):
        fn()
    return buf.getvalue()


SEED = """\
backward pass 1, from out
step 1  MeanBackward0, made out
  grad_output: ∂out/∂out = 1  (the seed)
  self = c: ∂out/∂c = 1/n (n = 2) = 0.5 each
    grad_self = 1 * 0.5 = [0.5, 0.5] → c (MulBackward0)
step 2  MulBackward0, made c
  grad_output: ∂out/∂c = [0.5, 0.5]
  self: ∂c/∂self = other = 3 each  (uses saved other)
    grad_self = [0.5, 0.5] * 3 = [1.5, 1.5] → MulBackward0
  other = 3: a constant, no gradient
step 3  MulBackward0
  grad_output = [1.5, 1.5]
  self = b: ∂result/∂b = other = [5, 6]  (uses saved other)
    grad_self = [1.5, 1.5] * [5, 6] = [7.5, 9] → b (AddBackward0)
  other = b: ∂result/∂b = self = [5, 6]  (uses saved self)
    grad_other = [1.5, 1.5] * [5, 6] = [7.5, 9] → b (AddBackward0)
step 4  AddBackward0, made b
  grad_output: ∂out/∂b = [7.5, 9] + [7.5, 9] = [15, 18]  \
(b is used 2 times; the engine adds up their gradients)
  self = a: ∂b/∂a = 1 each
    grad_self = [15, 18] * 1 = [15, 18] → a (AccumulateGrad)
  other: a constant, no gradient
step 5  AccumulateGrad of a
  grad_output: ∂out/∂a = [15, 18]
  a.grad = None + [15, 18] = [15, 18]

a.grad = [15, 18]
"""


def test_seed_example_reads_as_the_hand_derivation() -> None:
    a, out, names = seed()
    assert told(out.backward, names=names) == SEED
    assert a.grad.tolist() == [15.0, 18.0]


def test_seed_example_without_names() -> None:
    _, out, _ = seed()
    text = told(out.backward)
    assert text.splitlines()[:5] == [
        "backward pass 1",
        "step 1  MeanBackward0",
        "  grad_output = 1  (the seed)",
        "  self: ∂result/∂self = 1/n (n = 2) = 0.5 each",
        "    grad_self = 1 * 0.5 = [0.5, 0.5] → MulBackward0",
    ]
    assert text.endswith(
        "step 5  AccumulateGrad of leaf1\n"
        "  grad_output = [15, 18]\n"
        "  leaf1.grad = None + [15, 18] = [15, 18]\n"
        "\n"
        "leaf1.grad = [15, 18]\n"
    )


def test_tensor_name_attribute_names_a_leaf() -> None:
    a, out, _ = seed()
    a.name = "alpha"
    assert told(out.backward).endswith("\nalpha.grad = [15, 18]\n")


def test_prints_to_stdout_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, names = seed()
    with explain(names=names):
        out.backward()
    assert capsys.readouterr().out == SEED


def test_two_leaves_accumulating_into_an_existing_grad() -> None:
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    x = torch.tensor([3.0, 4.0], requires_grad=True)
    w.grad = torch.tensor([10.0, 10.0])
    y = (w * x).sum()
    assert told(y.backward, names={"w": w, "x": x, "y": y}) == (
        "backward pass 1, from y\n"
        "step 1  SumBackward0, made y\n"
        "  grad_output: ∂y/∂y = 1  (the seed)\n"
        "  self: ∂y/∂self = 1 each\n"
        "    grad_self = 1 * 1 = [1, 1] → MulBackward0\n"
        "step 2  MulBackward0\n"
        "  grad_output = [1, 1]\n"
        "  self = w: ∂result/∂w = other = [3, 4]  (uses saved other)\n"
        "    grad_self = [1, 1] * [3, 4] = [3, 4] → w (AccumulateGrad)\n"
        "  other = x: ∂result/∂x = self = [1, -2]  (uses saved self)\n"
        "    grad_other = [1, 1] * [1, -2] = [1, -2] → x (AccumulateGrad)\n"
        "step 3  AccumulateGrad of x\n"
        "  grad_output: ∂y/∂x = [1, -2]\n"
        "  x.grad = None + [1, -2] = [1, -2]\n"
        "step 4  AccumulateGrad of w\n"
        "  grad_output: ∂y/∂w = [3, 4]\n"
        "  w.grad = [10, 10] + [3, 4] = [13, 14]\n"
        "\n"
        "x.grad = [1, -2]\n"
        "w.grad = [13, 14]\n"
    )


def test_two_passes_in_one_block_accumulate() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()

    def twice() -> None:
        y.backward(retain_graph=True)
        y.backward()

    text = told(twice, names={"x": x, "y": y})
    assert "\n\nbackward pass 2, from y\nstep 1  SumBackward0, made y\n" in text
    assert "  x.grad = None + [2, 2] = [2, 2]\n" in text
    assert "  x.grad = [2, 2] + [2, 2] = [4, 4]\n" in text
    assert text.endswith("\n\nx.grad = [4, 4]\n")


def test_large_tensors_are_summarised() -> None:
    v = torch.arange(100.0, requires_grad=True)
    s = (v * 2).sum()
    text = told(s.backward, names={"v": v, "s": s}, max_entries=4)
    assert text == (
        "backward pass 1, from s\n"
        "step 1  SumBackward0, made s\n"
        "  grad_output: ∂s/∂s = 1  (the seed)\n"
        "  self: ∂s/∂self = 1 each\n"
        "    grad_self = 1 * 1 = shape (100,), norm 10, [1, 1, …, 1] → MulBackward0\n"
        "step 2  MulBackward0\n"
        "  grad_output = shape (100,), norm 10, [1, 1, …, 1]\n"
        "  self = v: ∂result/∂v = other = 2 each  (uses saved other)\n"
        "    grad_self = grad_output * ∂result/∂v = shape (100,), norm 20, [2, 2, …, 2]"
        " → v (AccumulateGrad)\n"
        "  other = 2: a constant, no gradient\n"
        "step 3  AccumulateGrad of v\n"
        "  grad_output: ∂s/∂v = shape (100,), norm 20, [2, 2, …, 2]\n"
        "  v.grad = None + grad_output = shape (100,), norm 20, [2, 2, …, 2]\n"
        "\n"
        "v.grad = shape (100,), norm 20, [2, 2, …, 2]\n"
    )


def test_broadcasting_is_undone_and_said() -> None:
    x = torch.tensor([1.0], requires_grad=True)
    y = x * torch.tensor([2.0, 3.0])
    text = told(lambda: y.backward(torch.tensor([1.0, 1.0])), names={"x": x, "y": y})
    assert "    grad_self = [1, 1] * [2, 3], summed to shape (1,) = [5] → x (AccumulateGrad)\n" in (
        text
    )


def test_create_graph_then_a_second_order_pass() -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = x**3

    def second_derivative() -> None:
        (dy,) = torch.autograd.grad(y, x, create_graph=True)
        assert dy.requires_grad
        dy.backward()

    text = told(second_derivative, names={"x": x, "y": y})
    assert text == (
        "backward pass 1, from y (create_graph=True: every step is recorded as a new graph too)\n"
        "step 1  PowBackward0, made y\n"
        "  grad_output: ∂y/∂y = 1  (the seed)\n"
        "  self = x: ∂y/∂x = exponent * self^(exponent - 1), exponent = 3 = 12"
        "  (uses saved self)\n"
        "    grad_self = 1 * 12 = 12 → x (AccumulateGrad)\n"
        "captured: ∂y/∂x = 12  (returned to the caller, x.grad is not changed)\n"
        "\n"
        "backward pass 2\n"
        "step 1  MulBackward0\n"
        "  grad_output = 1  (the seed)\n"
        "  self = 1: a constant, no gradient\n"
        "  other: ∂result/∂other = self = 1  (uses saved self)\n"
        "    grad_other = 1 * 1 = 1 → MulBackward1\n"
        "step 2  MulBackward1\n"  # the exponent is a number (PyTorch's node too)
        "  grad_output = 1\n"
        "  self: ∂result/∂self = 3\n"
        "    grad_self = 1 * 3 = 3 → PowBackward0\n"
        "step 3  PowBackward0\n"
        "  grad_output = 3\n"
        "  self = x: ∂result/∂x = exponent * self^(exponent - 1), exponent = 2 = 4"
        "  (uses saved self)\n"
        "    grad_self = 3 * 4 = 12 → x (AccumulateGrad)\n"
        "step 4  AccumulateGrad of x\n"
        "  grad_output = 12\n"
        "  x.grad = None + 12 = 12\n"
        "\n"
        "x.grad = 12\n"
    )
    assert x.grad.item() == 12.0  # d2(x^3)/dx2 = 6x


def test_backward_with_create_graph_accumulates_a_grad_with_a_graph() -> None:
    a, out, names = seed()
    text = told(lambda: out.backward(create_graph=True), names=names)
    assert text.startswith("backward pass 1, from out (create_graph=True")
    assert text.endswith("\na.grad = [15, 18]\n")
    assert a.grad.requires_grad


def test_autograd_grad_captures_instead_of_accumulating() -> None:
    a, out, names = seed()
    got: list[Any] = []
    text = told(lambda: got.extend(torch.autograd.grad(out, a)), names=names)
    lines = text.splitlines()
    assert lines[-3:] == [
        "    grad_self = [15, 18] * 1 = [15, 18] → a (AccumulateGrad)",
        "  other: a constant, no gradient",
        "captured: ∂out/∂a = [15, 18]  (returned to the caller, a.grad is not changed)",
    ]
    assert "AccumulateGrad of" not in text and "a.grad =" not in text
    assert a.grad is None
    assert got[0].tolist() == [15.0, 18.0]


def test_autograd_grad_of_an_intermediate_result() -> None:
    _, out, names = seed()
    text = told(lambda: torch.autograd.grad(out, names["b"]), names=names)
    assert "step 4" not in text  # AddBackward0 does not run: nothing below b is needed
    assert text.endswith("captured: ∂out/∂b = [15, 18]  (returned to the caller)\n")


def test_two_roots_in_one_pass() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y1 = (x * 3).sum()
    y2 = (x * x).sum()
    text = told(lambda: torch.autograd.backward([y1, y2]), names=names_from(locals()))
    # Each root is a seed; below both, the gradient is that of their sum.
    assert "step 1  SumBackward0, made y2\n  grad_output: ∂y2/∂y2 = 1  (the seed)\n" in text
    assert "step 3  SumBackward0, made y1\n  grad_output: ∂y1/∂y1 = 1  (the seed)\n" in text
    assert (
        "  grad_output: ∂(y2 + y1)/∂x = [1, 2] + [1, 2] + [3, 3] = [5, 7]"
        "  (x is used 3 times; the engine adds up their gradients)\n"
    ) in text


def test_a_hook_that_changes_a_gradient_is_pointed_out() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = x * 2
    v.register_hook(lambda g: g * 10)
    text = told(v.sum().backward, names={"x": x, "v": v})
    assert "  grad_output = [10, 10]  (a hook changed [1, 1] into this)\n" in text
    assert text.endswith("\nx.grad = [20, 20]\n")


def test_a_pass_run_inside_another_is_told_as_such() -> None:
    from chainrule.utils.checkpoint import checkpoint

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = checkpoint(lambda t: t.exp() * 2, x, use_reentrant=True).sum()
    text = told(y.backward, names={"x": x, "y": y})
    # The reentrant variant reruns the function on a detached copy of x (leaf1) and runs
    # a backward pass of its own into it, inside the outer one.
    assert text == (
        "backward pass 1, from y\n"
        "step 1  SumBackward0, made y\n"
        "  grad_output: ∂y/∂y = 1  (the seed)\n"
        "  self: ∂y/∂self = 1 each\n"
        "    grad_self = 1 * 1 = [1, 1] → CheckpointFunctionBackward\n"
        "\n"
        "backward pass 2, run inside pass 1\n"
        "step 1  MulBackward0\n"
        "  grad_output = [1, 1]  (the seed)\n"
        "  self: ∂result/∂self = other = 2 each  (uses saved other)\n"
        "    grad_self = [1, 1] * 2 = [2, 2] → ExpBackward0\n"
        "  other = 2: a constant, no gradient\n"
        "step 2  ExpBackward0\n"
        "  grad_output = [2, 2]\n"
        "  self = leaf1: ∂result/∂leaf1 = exp(self) = result = [1, 2.71828]"
        "  (uses saved result)\n"
        "    grad_self = [2, 2] * [1, 2.71828] = [2, 5.43656] → leaf1 (AccumulateGrad)\n"
        "step 3  AccumulateGrad of leaf1\n"
        "  grad_output = [2, 5.43656]\n"
        "  leaf1.grad = None + [2, 5.43656] = [2, 5.43656]\n"
        "\n"
        "back in backward pass 1\n"
        "step 2  CheckpointFunctionBackward\n"
        "  grad_output = [1, 1]\n"
        "  input 0 = x: grad_input0 = CheckpointFunction.backward(ctx, grad)[2]"
        "  (uses saved ctx.saved_tensors)\n"
        "    grad_input0 = [2, 5.43656] → x (AccumulateGrad)\n"
        "step 3  AccumulateGrad of x\n"
        "  grad_output: ∂y/∂x = [2, 5.43656]\n"
        "  x.grad = None + [2, 5.43656] = [2, 5.43656]\n"
        "\n"
        "leaf1.grad = [2, 5.43656]\n"
        "x.grad = [2, 5.43656]\n"
    )


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, t: torch.Tensor, scale: float) -> torch.Tensor:
        ctx.save_for_backward(t)
        ctx.scale = scale
        return t * t * scale

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        (t,) = ctx.saved_tensors
        return 2 * t * grad * ctx.scale, None


def test_custom_function() -> None:
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    q = Square.apply(p, 3.0).sum()
    assert told(q.backward, names={"p": p, "q": q}) == (
        "backward pass 1, from q\n"
        "step 1  SumBackward0, made q\n"
        "  grad_output: ∂q/∂q = 1  (the seed)\n"
        "  self: ∂q/∂self = 1 each\n"
        "    grad_self = 1 * 1 = [1, 1] → SquareBackward\n"
        "step 2  SquareBackward\n"
        "  grad_output = [1, 1]\n"
        "  input 0 = p: grad_input0 = Square.backward(ctx, grad)[0]"
        "  (uses saved ctx.saved_tensors)\n"
        "    grad_input0 = [6, 12] → p (AccumulateGrad)\n"
        "step 3  AccumulateGrad of p\n"
        "  grad_output: ∂q/∂p = [6, 12]\n"
        "  p.grad = None + [6, 12] = [6, 12]\n"
        "\n"
        "p.grad = [6, 12]\n"
    )


def test_matrix_product_shows_the_vector_jacobian_product() -> None:
    W = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = torch.tensor([[1.0, -1.0]])
    loss = (x @ W).relu().sum()
    text = told(loss.backward, names={"W": W, "loss": loss})
    assert (
        "step 2  ReluBackward0\n"
        "  grad_output = [[1, 1]]\n"
        "  self: ∂result/∂self = 1 where result > 0, else 0 = [[0, 0]]  (uses saved result)\n"
        "    grad_self = [[1, 1]] * [[0, 0]] = [[0, 0]] → MmBackward0\n"
        "step 3  MmBackward0\n"
        "  grad_output = [[0, 0]]\n"
        "  self = [[1, -1]]: a constant, no gradient\n"
        "  mat2 = W: grad_mat2 = selfᵀ · grad  (uses saved self)\n"
        "    grad_mat2 = [[0, 0], [0, 0]] → W (AccumulateGrad)\n"
    ) in text


def test_as_a_decorator() -> None:
    _, out, names = seed()
    buf = io.StringIO()

    @explain(file=buf, names=names)
    def run() -> None:
        out.backward()

    run()
    assert buf.getvalue() == SEED
    assert not backward_watchers


def test_only_the_block_is_narrated() -> None:
    _, out, names = seed()
    buf = io.StringIO()
    with explain(file=buf, names=names):
        pass
    out.backward()
    assert buf.getvalue() == ""
    assert not backward_watchers


def test_other_threads_are_not_narrated() -> None:
    a, out, _ = seed()
    buf = io.StringIO()
    with explain(file=buf):
        worker = threading.Thread(target=out.backward)
        worker.start()
        worker.join()
    assert buf.getvalue() == ""
    assert a.grad.tolist() == [15.0, 18.0]


def test_watcher_removed_when_the_block_raises() -> None:
    _, out, _ = seed()
    out.backward()
    buf = io.StringIO()
    with pytest.raises(RuntimeError, match="second time"), explain(file=buf):
        out.backward()  # the graph was freed by the first backward
    assert not backward_watchers


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="max_entries must be at least 1"):
        explain(max_entries=0)
    with pytest.raises(TypeError, match="names must map str -> Tensor"):
        explain(names={"n": 3})


def test_no_graph_kept_alive_after_the_block() -> None:
    def run() -> tuple[weakref.ref[Any], weakref.ref[Any]]:
        a, out, names = seed()
        with explain(file=io.StringIO(), names=names):
            out.backward(retain_graph=True)
        return weakref.ref(out.grad_fn), weakref.ref(a)

    node, leaf = run()
    gc.collect()
    assert node() is None and leaf() is None
    assert not backward_watchers


def test_a_100k_node_chain_is_narrated() -> None:
    # How long it takes is benchmarks/bench_viz.py's business.
    gc.disable()  # the cycle collector would walk the 100k nodes again and again
    try:
        x = torch.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(100_000):
            y = y * 1.0
        buf = io.StringIO()
        with explain(file=buf, names={"x": x}):
            y.backward()
        del y
    finally:
        gc.enable()
    text = buf.getvalue()
    assert text.count("\nstep ") == 100_001
    assert text.endswith(
        "step 100001  AccumulateGrad of x\n  grad_output = 1\n  x.grad = None + 1 = 1\n\n"
        "x.grad = 1\n"
    )


# --- local derivatives ---------------------------------------------------------------------


def test_local_derivatives_read_as_math() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    m = torch.ones(2, 3, requires_grad=True)
    assert local_derivatives((x * x).grad_fn) == [
        "∂result/∂self = other  (uses saved other)",
        "∂result/∂other = self  (uses saved self)",
    ]
    assert local_derivatives((x.reshape(1, 2) @ m).grad_fn) == [
        "grad_self = grad · mat2ᵀ  (uses saved mat2)",
        "grad_mat2 = selfᵀ · grad  (uses saved self)",
    ]
    assert local_derivatives((m.t() @ x).grad_fn) == [
        "grad_self = grad ⊗ vec (outer product)  (uses saved vec)",
        "grad_vec = selfᵀ · grad  (uses saved self)",
    ]
    assert local_derivatives(x.mean().grad_fn) == ["∂result/∂self = 1/n (n = 2)"]
    assert local_derivatives((x**3).grad_fn) == [
        "∂result/∂self = exponent * self^(exponent - 1), exponent = 3  (uses saved self)"
    ]
    assert local_derivatives(x.reshape(2, 1).grad_fn) == ["grad_self = grad reshaped back to (2,)"]
    assert local_derivatives(m[:, ::2].grad_fn) == [
        "grad_self = zeros of shape (2, 3) with grad at self[:, ::2]"
    ]
    assert local_derivatives(torch.where(x > 1, x, 0.0).grad_fn) == [
        "no gradient flows to condition",
        "∂result/∂self = 1 where condition, else 0  (uses saved condition)",
        "∂result/∂other = 0 where condition, else 1  (uses saved condition)",
    ]
    assert local_derivatives(x.clamp(0, 1.5).grad_fn) == [
        "∂result/∂self = 1 where 0 ≤ self ≤ 1.5, else 0  (uses saved self)"
    ]
    assert local_derivatives(F.softmax(m, 1).grad_fn) == [
        "grad_self = result * (grad - Σ(grad * result) along dim 1)  (uses saved result)"
    ]
    acc = x.grad_fn or (x * 1).grad_fn.next_functions[0][0]
    assert local_derivatives(acc) == [
        "leaf.grad += grad  (adds the gradient into the leaf's .grad)"
    ]
    assert local_derivatives(Square.apply(x, 2.0).grad_fn) == [
        "grad_input0 = Square.backward(ctx, grad)[0]  (uses saved ctx.saved_tensors)"
    ]
    assert local_derivatives(F.gelu(x).grad_fn) == [
        "∂result/∂self = cdf(self) + self * pdf(self), the normal cdf and pdf "
        "(or their tanh approximation: approximate = none)  (uses saved self)"
    ]


def test_ops_without_a_written_formula_say_so() -> None:
    """A Primitive declared without formulas still gets a line per input."""
    square = Primitive("SquareBackward0", np.square, grads=(lambda g, n: g * 2 * n.self,))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert local_derivatives(square(x).grad_fn) == [
        "grad_self = vector-Jacobian product of SquareBackward0  (uses saved self)"
    ]


Case = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

# name: (the op on leaves x and y, whether x and y must be positive, their shape)
ELEMENTWISE: dict[str, tuple[Case, bool, tuple[int, ...]]] = {
    "add": (lambda x, y: torch.add(x, y, alpha=2), False, (2, 3)),
    "sub": (lambda x, y: torch.sub(x, y, alpha=3), False, (2, 3)),
    "rsub": (lambda x, y: 2 - x, False, (2, 3)),
    "mul": (lambda x, y: x * y, False, (2, 3)),
    "mul_broadcast": (lambda x, y: x * y, False, (3,)),
    "div": (lambda x, y: x / y, True, (2, 3)),
    "neg": (lambda x, y: -x, False, (2, 3)),
    "pow": (lambda x, y: x**2.5, True, (2, 3)),
    "pow_tensor": (lambda x, y: x**y, True, (2, 3)),
    "rpow": (lambda x, y: 2**x, False, (2, 3)),
    "exp": (lambda x, y: x.exp(), False, (2, 3)),
    "expm1": (lambda x, y: x.expm1(), False, (2, 3)),
    "log": (lambda x, y: x.log(), True, (2, 3)),
    "log1p": (lambda x, y: x.log1p(), True, (2, 3)),
    "log2": (lambda x, y: x.log2(), True, (2, 3)),
    "sin": (lambda x, y: x.sin(), False, (2, 3)),
    "cos": (lambda x, y: x.cos(), False, (2, 3)),
    "tan": (lambda x, y: x.tan(), False, (2, 3)),
    "tanh": (lambda x, y: x.tanh(), False, (2, 3)),
    "atan": (lambda x, y: x.atan(), False, (2, 3)),
    "erf": (lambda x, y: torch.erf(x), False, (2, 3)),
    "sigmoid": (lambda x, y: x.sigmoid(), False, (2, 3)),
    "relu": (lambda x, y: x.relu(), False, (2, 3)),
    "leaky_relu": (lambda x, y: F.leaky_relu(x, 0.1), False, (2, 3)),
    "abs": (lambda x, y: x.abs(), False, (2, 3)),
    "sqrt": (lambda x, y: x.sqrt(), True, (2, 3)),
    "rsqrt": (lambda x, y: x.rsqrt(), True, (2, 3)),
    "reciprocal": (lambda x, y: x.reciprocal(), True, (2, 3)),
    "clamp": (lambda x, y: x.clamp(-0.5, 0.7), False, (2, 3)),
    "clamp_min": (lambda x, y: x.clamp_min(0.1), False, (2, 3)),
    "maximum": (lambda x, y: torch.maximum(x, y), False, (2, 3)),
    "minimum": (lambda x, y: torch.minimum(x, y), False, (2, 3)),
    "where": (lambda x, y: torch.where(x > 0, x, y), False, (2, 3)),
    "dot": (lambda x, y: x @ y, False, (4,)),
    "mean": (lambda x, y: x.mean(), False, (2, 3)),
    "sum": (lambda x, y: x.sum(), False, (2, 3)),
    "max": (lambda x, y: x.max(), False, (2, 3)),
    "mse": (lambda x, y: F.mse_loss(x, y), False, (2, 3)),
    "norm": (lambda x, y: x.norm(), False, (2, 3)),
    "prod": (lambda x, y: x.prod(), True, (2, 3)),
    "clone": (lambda x, y: x.clone(), False, (2, 3)),
    "to": (lambda x, y: x.float(), False, (2, 3)),
    "addmm_bias": (lambda x, y: torch.addmm(x, y, y.t()), False, (2, 2)),
}
# Reductions over one dim: their gradient is unsqueezed at that dim before the product.
REDUCED: dict[str, tuple[Case, int]] = {
    "mean_dim": (lambda x, y: x.mean(1), 1),
    "sum_dim": (lambda x, y: x.sum(0), 0),
    "amax": (lambda x, y: x.amax(1), 1),
    "logsumexp": (lambda x, y: x.logsumexp(1), 1),
}


@pytest.mark.parametrize("op", sorted(ELEMENTWISE) + sorted(REDUCED))
def test_elementwise_values_times_grad_give_the_engines_gradient(op: str) -> None:
    """For every elementwise formula: a value is shown, the same for any grad_output, and
    grad_input == grad_output * value, entry by entry (summed back where broadcast)."""
    rng = np.random.default_rng(0)
    fn, positive, shape = ELEMENTWISE.get(op) or (REDUCED[op][0], False, (2, 3))
    low = 0.5 if positive else -1.5
    x = torch.tensor(rng.uniform(low, 1.5, shape), requires_grad=True)
    y = torch.tensor(rng.uniform(low, 1.5, (2, 3) if op == "mul_broadcast" else shape))
    y.requires_grad_()
    out = fn(x, y)
    node = out.grad_fn
    shown = []
    for _ in range(2):  # two unrelated grad_outputs, none of them 0
        g = rng.uniform(0.5, 1.5, out.shape) * rng.choice([-1.0, 1.0], out.shape)
        with record() as rec:
            out.backward(torch.tensor(g, dtype=out.dtype), retain_graph=True)
        shown.append(shown_values(node, rec, op))
    first, second = shown
    assert first and len(first) == len(second)
    for (d, v1), (_, v2) in zip(first, second, strict=True):
        assert v1 is not None and v2 is not None, d.formula
        np.testing.assert_allclose(v1, v2, rtol=1e-5, err_msg=d.formula)


def shown_values(node: Any, rec: Any, name: str) -> list[tuple[Derivative, np.ndarray | None]]:
    """The value `explain` shows for each elementwise input of `node` in the recorded pass,
    checked against the engine: grad_output * value, summed to shape, is the grad_input."""
    grad_outputs, grad_inputs = rec.grad_outputs(node), rec.grad_inputs(node)
    if not grad_outputs or len(grad_outputs) != 1 or grad_inputs is None:
        return []
    g = grad_outputs[0]
    shown: list[tuple[Derivative, np.ndarray | None]] = []
    derivs = derivatives(node)
    for (child, _), d, gi in zip(node.next_functions, derivs, grad_inputs, strict=True):
        if child is None or gi is None or not d.elementwise:
            continue
        value = local_value(node, d, g, gi)
        shown.append((d, value))
        if value is None:
            continue
        product = _unreduced(g, getattr(node, "_params", {}), gi.ndim) * value
        product = np.broadcast_to(product, np.broadcast_shapes(product.shape, gi.shape))
        np.testing.assert_allclose(
            _sum_to(product, gi.shape), gi, rtol=1e-6, atol=1e-9, err_msg=f"{name}: {d.formula}"
        )
    return shown


def op_table_graphs(all_samples: bool = True) -> Iterator[tuple[str, torch.Tensor]]:
    """For each sample (or the first) of each op of the op table: a scalar whose graph holds it."""
    for name, outs in op_table_outputs(all_samples):
        yield name, sum((o * o).sum() for o in outs)


def op_table_outputs(all_samples: bool = True) -> Iterator[tuple[str, list[torch.Tensor]]]:
    """For each sample (or the first) of each op of the op table: its outputs that need grad."""
    from op_table import OPS, Mask

    for op in OPS:
        for k, sample in enumerate(op.samples if all_samples else op.samples[:1]):
            rng = np.random.default_rng(k)
            inputs = []
            for i, arg in enumerate(sample):
                if isinstance(arg, Mask):
                    cells = np.arange(np.prod(arg.shape)).reshape(arg.shape)
                    inputs.append(torch.tensor(cells % 3 != 1))
                    continue
                d = op.domain_of(i)
                values = d.fix(rng.uniform(d.low, d.high, arg))
                inputs.append(torch.tensor(values, requires_grad=True))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the table spells some deprecated ops
                outs = op.fn(*inputs)
            outs = outs if isinstance(outs, tuple) else (outs,)
            used = [o for o in outs if isinstance(o, torch.Tensor) and o.requires_grad]
            if used:
                yield f"{op.name}-{k}", used


def graph_nodes(root: Any) -> list[Any]:
    nodes, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            nodes.append(node)
            stack.extend(child for child, _ in node.next_functions)
    return nodes


def test_every_op_of_the_op_table_is_explained() -> None:
    """Each node gets one formula per input, and a narrated backward meets no surprise."""
    count = 0
    for name, total in op_table_graphs(all_samples=False):
        for node in graph_nodes(total.grad_fn):
            if type(node).__name__ != "AccumulateGrad":
                assert len(local_derivatives(node)) == len(node.next_functions), name
        text = told(total.backward)
        assert "not explained" not in text, name
        count += 1
    assert count > 300


def test_every_elementwise_formula_is_a_local_derivative() -> None:
    """Over the op table: a formula that names no grad is a local derivative, so the value
    shown for it is the same whatever the grad_output (two unrelated ones here), and
    grad_output * value, summed to shape, is the engine's grad_input."""
    checked = 0
    for name, outs in op_table_outputs():
        rng = np.random.default_rng(0)
        weights = [torch.tensor(rng.uniform(0.5, 1.5, o.shape), dtype=o.dtype) for o in outs]
        shown = []
        for total in (
            sum((o * o).sum() for o in outs),
            sum((o * w).sum() for o, w in zip(outs, weights, strict=True)),
        ):
            with record() as rec:
                total.backward(retain_graph=True)
            shown.append(
                {node: shown_values(node, rec, name) for node in graph_nodes(total.grad_fn)}
            )
        for node, values in shown[0].items():
            for (d, v1), (_, v2) in zip(values, shown[1].get(node, []), strict=False):
                if v1 is not None and v2 is not None:
                    np.testing.assert_allclose(
                        v1, v2, rtol=1e-4, atol=1e-6, equal_nan=True, err_msg=f"{name}: {d.formula}"
                    )
                    checked += 1
    assert checked > 1500


def _unreduced(g: np.ndarray, params: dict[str, Any], ndim: int) -> np.ndarray:
    """A reduction's grad_output with its reduced dims back (size 1), as the rules see it."""
    dims = params.get("dim")
    if dims is None or params.get("keepdim", False) or g.ndim in (0, ndim):
        return g
    dims = dims if isinstance(dims, tuple) else (dims,)
    return np.expand_dims(g, tuple(sorted(d % ndim for d in dims)))


def _sum_to(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    while a.ndim > len(shape):
        a = a.sum(0)
    for i, size in enumerate(shape):
        if size == 1 and a.shape[i] != 1:
            a = a.sum(i, keepdims=True)
    return a


def test_values_of_a_freed_graph_are_not_invented() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward()  # frees the saved result
    (d,) = derivatives(y.grad_fn)
    assert d.formula == "∂result/∂self = exp(self) = result"
    assert (
        saved_array(y.grad_fn, "result") is None and local_value(y.grad_fn, d, None, None) is None
    )


# --- numbers ----------------------------------------------------------------------------------


def test_numbers_are_written_as_a_person_would() -> None:
    assert [
        format_number(v)
        for v in (
            np.float32(0.5),
            np.float32(15.0),
            np.float32(0.1),
            np.float32(1 / 3),
            7.0,
            -2.5e-7,
            1.0e7,
            float("nan"),
            -float("inf"),
            True,
            np.int64(-3),
            np.array(91.5),
        )
    ] == [
        "0.5",
        "15",
        "0.1",
        "0.333333",
        "7",
        "-2.5e-07",
        "1e+07",
        "nan",
        "-inf",
        "True",
        "-3",
        "91.5",
    ]


def test_arrays_in_full_or_summarised() -> None:
    assert summarize(np.array([15.0, 18.0], np.float32)) == "[15, 18]"
    assert summarize(torch.tensor([[1.0, 2.5], [3.0, 4.0]])) == "[[1, 2.5], [3, 4]]"
    assert summarize(np.float64(0.25)) == "0.25"
    assert summarize(None) == "None"
    assert summarize(np.zeros((0, 3))) == "[] (shape (0, 3))"
    assert summarize(np.arange(1000.0)) == "shape (1000,), norm 18243.7, [0, 1, 2, …, 999]"
    assert summarize(np.ones((3, 4)), max_entries=2) == "shape (3, 4), norm 3.4641, [1, …, 1]"
    assert summarize(np.arange(10) % 2 == 0) == (
        "shape (10,), 5 True, [True, False, True, …, False]"
    )
