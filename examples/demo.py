"""A tour of chainrule: PyTorch-style autograd on NumPy, printing what PyTorch prints.

Run with `python examples/demo.py`. Every line of output matches what the same
code prints under `import torch`.
"""

import chainrule as torch


def section(title: str) -> None:
    print(f"\n== {title}")


section("A graph is built as the code runs")
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a + 3
c = b * b * 3
out = c.mean()
print("out =", out)
print("out.grad_fn =", out.grad_fn.name(), "->", out.grad_fn.next_functions[0][0].name())
print("is_leaf:", a.is_leaf, b.is_leaf, out.is_leaf)

section("backward() walks it, applying the chain rule")
out.backward()
print("a.grad =", a.grad, " # d(mean(3(a+3)^2))/da = 3(a+3)")

section("A non-scalar output needs the vector of a vector-Jacobian product")
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.backward(torch.tensor([1.0, 0.1, 0.01]))
print("x.grad =", x.grad, " # v * 2x")

section("Higher derivatives: differentiate the derivative")
x = torch.tensor(2.0, requires_grad=True)
y = x**3
(dy,) = torch.autograd.grad(y, x, create_graph=True)
(d2y,) = torch.autograd.grad(dy, x)
print("dy/dx =", dy, " d2y/dx2 =", d2y)

section("A Hessian, one row per backward")
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
f = (w.sin() * w).sum()
(g,) = torch.autograd.grad(f, w, create_graph=True)
rows = [torch.autograd.grad(g[i], w, retain_graph=True)[0] for i in range(3)]
print("H =", torch.stack(rows))


section("A custom Function with its own backward")


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Square.apply(x)
print("y =", y)
y.sum().backward()
print("x.grad =", x.grad)

section("Gradients accumulate until zeroed")
w = torch.tensor([1.0, 2.0], requires_grad=True)
for _ in range(3):
    (w * 2).mean().backward()
print("after 3 backward calls:", w.grad)
w.grad.zero_()
print("after zero_():", w.grad)
