"""Scenarios of autograd's public surface (gradient edges, engine entry points, switches,
gradcheck's modes, checkpointing), each run on chainrule and on PyTorch by
tests/test_autograd_surface.py."""

from __future__ import annotations

import contextlib
import importlib
from typing import Any

from autograd_cases import first_line, outcome, warnings_of


def _sub(lib: Any, name: str) -> Any:
    return importlib.import_module(f"{lib.__name__}.{name}")


def gradient_edges(lib: Any) -> Any:
    graph = lib.autograd.graph
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = (y**2).sum()
    e = graph.get_gradient_edge(y)
    leaf = graph.get_gradient_edge(x)
    return [
        type(e).__name__,
        e.node.name(),
        e.output_nr,
        e.ownership_token,
        leaf.node.name(),
        graph.GradientEdge(y.grad_fn, 0) == e,
        outcome(lambda: lib.autograd.grad(z, e, retain_graph=True)),
        outcome(lambda: lib.autograd.grad(z, [e, x], retain_graph=True)),
        outcome(lambda: lib.autograd.grad(e, x, lib.ones(2), retain_graph=True)),
        outcome(lambda: lib.autograd.grad(graph.get_gradient_edge(z), x, retain_graph=True)),
        outcome(lambda: lib.autograd.grad(e, x, lib.ones(3), retain_graph=True)),
        outcome(lambda: graph.get_gradient_edge(lib.ones(2))),
        outcome(lambda: lib.autograd.backward(z, inputs=[leaf], retain_graph=True)),
        x.grad,
        outcome(lambda: lib.autograd.backward(e, lib.ones(2))),
        x.grad,
    ]


def batched_and_dict_grads(lib: Any) -> Any:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x**2
    grad = lib.autograd.grad
    return [
        outcome(lambda: grad(y, {"a": x, "b": x}, lib.ones(2), retain_graph=True)),
        outcome(lambda: grad(y, x, lib.eye(2), retain_graph=True, is_grads_batched=True)),
        outcome(lambda: grad(y, x, lib.ones(3, 3), retain_graph=True, is_grads_batched=True)),
        outcome(lambda: grad([y, y * 3], x, [lib.eye(2)] * 2, is_grads_batched=True)),
    ]


def versions_and_inference(lib: Any) -> Any:
    graph = lib.autograd.graph
    c = lib.ones(3)
    start = c._version
    graph.increment_version(c)
    once = c._version - start
    graph.increment_version([c, c])
    with lib.inference_mode():
        inf = lib.ones(1)
    return [
        once,
        c._version - start,
        outcome(lambda: graph.increment_version(inf)),
        lib.is_inference(inf),
        lib.is_inference(c),
        outcome(lambda: lib.is_inference(2)),
    ]


def allow_mutation(lib: Any) -> Any:
    graph = lib.autograd.graph
    with graph.allow_mutation_on_saved_tensors():
        a = lib.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b**2).sum()
        b.sin_()
        out.sum().backward()
    nested = None
    with graph.allow_mutation_on_saved_tensors():
        nested = outcome(lambda: graph.allow_mutation_on_saved_tensors().__enter__())
    p = lib.ones(2, requires_grad=True)
    q = p * 1
    r = (q * q).sum()
    with lib.no_grad():
        q.mul_(2)
    return [a.grad, b, nested, first_line(outcome(r.backward))]


def switches(lib: Any) -> Any:
    ag = lib.autograd
    seen = [ag.is_multithreading_enabled(), ag.is_view_replay_enabled()]
    with ag.set_multithreading_enabled(False):
        seen.append(ag.is_multithreading_enabled())
    seen.append(ag.is_multithreading_enabled())

    @ag.set_multithreading_enabled(False)
    def inside() -> bool:
        return bool(ag.is_multithreading_enabled())

    seen += [inside(), ag.is_multithreading_enabled()]
    ag.set_multithreading_enabled(True)
    p = lib.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
    (p.contiguous() * 2).sum().backward()
    seen.append(p.grad.stride())
    p.grad = None
    with ag.enforce_grad_layout_policy(False):
        (p.contiguous() * 2).sum().backward()
    seen.append(p.grad.stride())
    q = lib.empty(4, 6)[:, ::2].requires_grad_()
    (q * 2).sum().backward()
    seen.append(q.grad.stride())
    seen.append(outcome(lambda: ag.variable(1)))
    return seen


def engine(lib: Any) -> Any:
    E = lib.autograd.Variable._execution_engine
    log: list[Any] = []
    x = lib.ones(2, requires_grad=True)

    def hook(g: Any) -> Any:
        log.append(["hook", E.is_checkpoint_valid()])
        E.queue_callback(lambda: (log.append("cb1"), E.queue_callback(lambda: log.append("cb3"))))
        E.queue_callback(lambda: log.append("cb2"))
        return g

    y = x * 2
    y.register_hook(hook)
    z = y.sum()
    z.backward(retain_graph=True)
    lib.autograd.grad(z, x, retain_graph=True)
    one = lib.tensor(1.0)
    w = lib.ones(2, requires_grad=True)
    return [
        outcome(lambda: E.queue_callback(lambda: None)),
        log,
        E.is_checkpoint_valid(),
        outcome(lambda: E.run_backward((z,), (one,), True, False, (), True, True)),
        x.grad,
        outcome(lambda: E.run_backward((z,), (one,), True, False, (x,), True, False)),
        outcome(lambda: E.run_backward((z,), (one,), True, False, (w,), False, False)),
        outcome(lambda: E.run_backward((z,), (None,), True, False, (x,), True, False)),
    ]


def legacy_function(lib: Any) -> Any:
    class H(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    made: list[Any] = []
    caught = warnings_of(lambda: made.append(H()))
    inplace = warnings_of(lambda: made.append(_sub(lib, "autograd.function").InplaceFunction(True)))
    return [
        [c[0] for c in caught],
        caught[0][1].replace("surface_scenarios.", "").split("H'>")[1],
        outcome(lambda: made[0](lib.ones(1))),
        made[1].inplace,
        len(inplace),
    ]


def gradcheck_modes(lib: Any) -> Any:
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)

    def f(a: Any, b: Any) -> Any:
        return a.sin() * 2, (a[:2] * b).exp()

    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            return t * 3

    gc, ggc = lib.autograd.gradcheck, lib.autograd.gradgradcheck
    runs = [
        dict(check_forward_ad=True),
        dict(check_forward_ad=True, check_backward_ad=False),
        dict(check_batched_grad=True),
        dict(check_forward_ad=True, check_batched_forward_grad=True),
        dict(check_backward_ad=False),
        dict(check_batched_grad=True, check_backward_ad=False, check_forward_ad=True),
        dict(check_batched_forward_grad=True),
        dict(fast_mode=True, check_forward_ad=True),
    ]
    grad_runs = [
        dict(check_fwd_over_rev=True),
        dict(check_fwd_over_rev=True, check_rev_over_rev=False, check_undefined_grad=False),
        dict(check_rev_over_rev=False),
        dict(check_batched_grad=True),
    ]
    return [
        *[outcome(lambda kw=kw: gc(f, (x, y), **kw)) for kw in runs],
        *[outcome(lambda kw=kw: ggc(f, (x, y), **kw)) for kw in grad_runs],
        first_line(outcome(lambda: gc(Bad.apply, (x,), check_forward_ad=True))),
        gc(Bad.apply, (x,), check_forward_ad=True, raise_exception=False),
    ]


def gradcheck_helpers(lib: Any) -> Any:
    g = _sub(lib, "autograd.gradcheck")
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    xf = lib.tensor([1.0, 2.0], requires_grad=True)
    results: list[Any] = []

    def run() -> None:
        results.append(g.get_analytical_jacobian((x,), x * 3))
        results.append(g.get_analytical_jacobian((xf,), xf * 3))
        results.append(outcome(lambda: g.get_analytical_jacobian((xf,), xf * 3, grad_out=2.0)))
        results.append(outcome(lambda: g.get_numerical_jacobian(lambda t: t[0], (x,), grad_out=2)))
        num = g.get_numerical_jacobian(lambda t: t[0] * 3, (x,))
        results.append([n.dtype == lib.float64 for n in num])

    caught = warnings_of(run)
    constants = [g.FAILED_BATCHED_GRAD_MSG, g.FAILED_BATCHED_GRAD_MSG_FWD_AD]
    constants += [g.FAILED_NONDET_MSG, g.FAST_FAIL_SLOW_OK_MSG]
    return [results, caught[0], len(caught), [len(c) for c in constants]]


def checkpointing(lib: Any) -> Any:
    cp = _sub(lib, "utils.checkpoint")
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 3)
    x = lib.randn(2, 3, requires_grad=True)
    out: list[Any] = []

    def fn(a: Any) -> Any:
        return lib.nn.functional.dropout(lin(a).tanh(), 0.5).sin()

    for reentrant in (True, False):
        lin.zero_grad()
        x.grad = None
        cp.checkpoint(fn, x, use_reentrant=reentrant).sum().backward()
        out += [x.grad, lin.weight.grad]
        y = cp.checkpoint(fn, x, use_reentrant=reentrant).sum()
        out.append(outcome(lambda y=y: lib.autograd.grad(y, lin.weight)))
    y = cp.checkpoint(lambda a: (a**3).sum(), x, use_reentrant=False)
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    out.append(lib.autograd.grad(g.sum(), x))
    out.append(outcome(lambda: cp.checkpoint(lambda a, k=1: a * k, x, use_reentrant=True, k=2)))
    out.append(cp.checkpoint(lambda a, k=1: a * k, x, use_reentrant=False, k=2).sum())
    out.append(outcome(lambda: cp.checkpoint(fn, x, use_reentrant=True, debug=True)))
    out.append(outcome(lambda: cp.checkpoint(fn, x, use_reentrant=False, determinism_check="x")))
    out.append(outcome(lambda: cp.checkpoint(lambda a: a.detach(), x, use_reentrant=True)))
    out.append(warnings_of(lambda: cp.checkpoint(lambda a: a * 2, lib.ones(2), use_reentrant=True)))
    out.append(warnings_of(lambda: cp.checkpoint(lambda a: a * 2, x)))
    return out


def checkpoint_recomputation(lib: Any) -> Any:
    cp = _sub(lib, "utils.checkpoint")
    x = lib.ones(2, requires_grad=True)
    out: list[Any] = []
    calls: list[int] = []

    def counted(a: Any) -> Any:
        b = a.sin()
        calls.append(1)
        return b.exp()

    for early_stop in (True, False):
        with cp.set_checkpoint_early_stop(early_stop):
            y = cp.checkpoint(counted, x, use_reentrant=False)
        calls.clear()
        y.sum().backward()
        out.append(list(calls))
    state = {"n": 0}

    def changes(a: Any) -> Any:
        state["n"] += 1
        return a.sin() if state["n"] == 1 else a.sin().cos().exp()

    for early_stop, check in ((True, "default"), (False, "default"), (True, "none")):
        state["n"] = 0
        with cp.set_checkpoint_early_stop(early_stop):
            y = cp.checkpoint(changes, x, use_reentrant=False, determinism_check=check)
        out.append(first_line(outcome(lambda y=y: y.sum().backward())))
    log: list[str] = []

    @contextlib.contextmanager
    def tag(name: str) -> Any:
        log.append(name + "+")
        yield
        log.append(name + "-")

    y = cp.checkpoint(
        lambda a: a.exp(), x, use_reentrant=False, context_fn=lambda: (tag("f"), tag("r"))
    )
    y.sum().backward()
    out.append(log)
    out.append(outcome(lambda: cp.detach_variable([x])))
    d = cp.detach_variable((x, 3))
    out += [d[0].requires_grad, d[0].grad_fn, d[1], cp.get_device_states(x)]
    out += [cp.DefaultDeviceType.get_device_type(), issubclass(cp.CheckpointError, RuntimeError)]
    return out
