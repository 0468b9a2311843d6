"""The Optimizer base: parameter groups, errors, repr, state dicts and their round trips,
zero_grad, closures, hooks, and the options chainrule accepts but cannot honour."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrule

ALGORITHMS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]


def _param(lib: Any, values: list[float] | None = None) -> Any:
    return lib.tensor(values or [1.0, 2.0], requires_grad=True)


# Each case builds something wrong; PyTorch's exception type and message are recorded.
ERRORS: list[tuple[Callable[[Any, Any], Any], type[Exception], str]] = [
    (
        lambda O, w: O.Adam(w),
        TypeError,
        "params argument given to the optimizer should be an iterable of Tensors or dicts, "
        "but got torch.FloatTensor",
    ),
    (lambda O, w: O.Adam([]), ValueError, "optimizer got an empty parameter list"),
    (lambda O, w: O.Adam([w, w * 2]), ValueError, "can't optimize a non-leaf Tensor"),
    (
        lambda O, w: O.Adam([{"params": [w]}, {"params": [w]}]),
        ValueError,
        "some parameters appear in more than one parameter group",
    ),
    (
        lambda O, w: O.Adam([1.0]),
        TypeError,
        "optimizer can only optimize Tensors, but one of the params is float",
    ),
    (lambda O, w: O.Adam([w], lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
    (
        lambda O, w: O.Adam([w], betas=(1.0, 0.9)),
        ValueError,
        "Invalid beta parameter at index 0: 1.0",
    ),
    (
        lambda O, w: O.Adam([w], betas=(0.9, 1.5)),
        ValueError,
        "Invalid beta parameter at index 1: 1.5",
    ),
    (lambda O, w: O.Adam([w], eps=-1e-3), ValueError, "Invalid epsilon value: -0.001"),
    (lambda O, w: O.AdamW([w], weight_decay=-0.1), ValueError, "Invalid weight_decay value: -0.1"),
    (
        lambda O, w: O.SGD([w], lr=0.1, nesterov=True),
        ValueError,
        "Nesterov momentum requires a momentum and zero dampening",
    ),
    (lambda O, w: O.SGD([w], lr=0.1, momentum=-1), ValueError, "Invalid momentum value: -1"),
    (lambda O, w: O.RMSprop([w], alpha=-1), ValueError, "Invalid alpha value: -1"),
    (lambda O, w: O.Adadelta([w], rho=1.5), ValueError, "Invalid rho value: 1.5"),
    (lambda O, w: O.Adagrad([w], lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
    (lambda O, w: O.NAdam([w], momentum_decay=-1), ValueError, "Invalid momentum_decay value: -1"),
    (
        lambda O, w: O.Adam([w], fused=True, foreach=True),
        RuntimeError,
        "`fused` and `foreach` cannot be `True` together.",
    ),
    (
        lambda O, w: O.Adam([w]).add_param_group([w]),
        TypeError,
        "param_group must be a dict, but got <class 'list'>",
    ),
    (
        lambda O, w: O.LBFGS([{"params": [w]}, {"params": [w * 1]}]),
        ValueError,
        "can't optimize a non-leaf Tensor",
    ),
    (
        lambda O, w: O.Adam([w]).load_state_dict(
            O.Adam(
                [{"params": [w]}, {"params": [w.detach().clone().requires_grad_()]}]
            ).state_dict()
        ),
        ValueError,
        "loaded state dict has a different number of parameter groups",
    ),
    (
        lambda O, w: O.Adam([w]).load_state_dict(O.Adam([w, w.detach().clone()]).state_dict()),
        ValueError,
        "loaded state dict contains a parameter group that doesn't match the size of "
        "optimizer's group",
    ),
]


@pytest.mark.parametrize(("build", "kind", "message"), ERRORS)
def test_errors_are_pytorchs(build: Any, kind: type[Exception], message: str) -> None:
    with pytest.raises(kind) as info:
        build(chainrule.optim, _param(chainrule))
    assert str(info.value) == message


@pytest.mark.parametrize(("build", "kind", "message"), ERRORS)
def test_recorded_errors_are_still_pytorchs(
    torch: Any, build: Any, kind: type[Exception], message: str
) -> None:
    with pytest.raises(kind) as info:
        build(torch.optim, _param(torch))
    assert str(info.value) == message


def test_lbfgs_refuses_parameter_groups() -> None:
    groups = [{"params": [_param(chainrule)]}, {"params": [_param(chainrule)]}]
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options"):
        chainrule.optim.LBFGS(groups)


ADAM_REPR = """Adam (
Parameter Group 0
    amsgrad: False
    betas: (0.8, 0.9)
    capturable: False
    decoupled_weight_decay: False
    differentiable: False
    eps: 1e-08
    foreach: None
    fused: None
    lr: 0.001
    maximize: False
    weight_decay: 0
)"""


def test_repr_is_pytorchs() -> None:
    assert repr(chainrule.optim.Adam([_param(chainrule)], betas=(0.8, 0.9))) == ADAM_REPR


@pytest.mark.parametrize("name", [*ALGORITHMS, "LBFGS"])
def test_repr_and_group_keys_match_pytorch(torch: Any, name: str) -> None:
    def build(lib: Any) -> Any:
        if name == "LBFGS":
            return lib.optim.LBFGS([_param(lib)], lr=0.1)
        groups = [{"params": [_param(lib)], "lr": 0.5}, {"params": [_param(lib)]}]
        return getattr(lib.optim, name)(groups, lr=0.1)

    t_opt, c_opt = build(torch), build(chainrule)
    assert repr(c_opt) == repr(t_opt)
    assert c_opt.state_dict()["param_groups"] == t_opt.state_dict()["param_groups"]
    assert [list(g) for g in c_opt.state_dict()["param_groups"]] == [
        list(g) for g in t_opt.state_dict()["param_groups"]
    ]


def _stepped(lib: Any, name: str, steps: int = 3, **kw: Any) -> tuple[Any, list[Any]]:
    params = [_param(lib, [1.0, -2.0]), _param(lib, [0.5])]
    opt = getattr(lib.optim, name)(
        [{"params": params[:1]}, {"params": params[1:], "lr": 0.01}], **kw
    )
    for _ in range(steps):
        for p in params:
            p.grad = p.detach() * 0.5 + 1.0
        opt.step()
    return opt, params


@pytest.mark.parametrize("name", ALGORITHMS)
def test_state_dict_has_pytorchs_structure(torch: Any, name: str) -> None:
    kw = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    t_sd = _stepped(torch, name, **kw)[0].state_dict()
    c_sd = _stepped(chainrule, name, **kw)[0].state_dict()
    assert list(c_sd) == ["state", "param_groups"]
    assert c_sd["param_groups"] == t_sd["param_groups"]
    assert list(c_sd["state"]) == list(t_sd["state"])
    for index, entry in t_sd["state"].items():
        assert list(c_sd["state"][index]) == list(entry)
        for key, value in entry.items():
            assert repr(c_sd["state"][index][key]) == repr(value), key


def test_state_dict_shares_the_state_and_packs_params_as_indices() -> None:
    opt, params = _stepped(chainrule, "Adam")
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sd["state"][0] is opt.state[params[0]]
    assert repr(sd["state"][0]["step"]) == "tensor(3.)"
    assert list(sd["param_groups"][0])[-1] == "params"


def _more_steps(opt: Any, params: list[Any], steps: int) -> None:
    for _ in range(steps):
        for p in params:
            p.grad = p.detach() * 0.5 + 1.0
        opt.step()


@pytest.mark.parametrize("name", ALGORITHMS)
def test_round_trip_continues_the_same_trajectory(name: str) -> None:
    kw = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    uninterrupted, params_a = _stepped(chainrule, name, steps=6, **kw)
    first, params_first = _stepped(chainrule, name, steps=3, **kw)
    saved = copy.deepcopy(first.state_dict())
    resumed, params_b = _stepped(chainrule, name, steps=0, **kw)
    for p, q in zip(params_b, params_first, strict=True):
        p.data = q.detach().clone()
    resumed.load_state_dict(saved)
    _more_steps(resumed, params_b, 3)
    for a, b in zip(params_a, params_b, strict=True):
        np.testing.assert_array_equal(a._data, b._data)
    assert resumed.state_dict()["param_groups"] == uninterrupted.state_dict()["param_groups"]


def test_load_casts_state_to_the_parameter_dtype_but_not_step() -> None:
    opt, _ = _stepped(chainrule, "Adam")
    target = chainrule.optim.Adam(
        [
            {"params": [chainrule.zeros(2, dtype=chainrule.float64, requires_grad=True)]},
            {"params": [chainrule.zeros(1, dtype=chainrule.float64, requires_grad=True)]},
        ]
    )
    target.load_state_dict(opt.state_dict())
    state = next(iter(target.state.values()))
    assert state["exp_avg"].dtype == chainrule.float64
    assert state["step"].dtype == chainrule.float32
    # A tensor already of the right dtype is taken as it is, as in PyTorch.
    same = chainrule.optim.Adam(
        [{"params": [_param(chainrule)]}, {"params": [_param(chainrule, [0.0])]}]
    )
    sd = opt.state_dict()
    same.load_state_dict(sd)
    assert next(iter(same.state.values()))["exp_avg"] is sd["state"][0]["exp_avg"]


def test_load_state_dict_keeps_saved_hyper_parameters() -> None:
    opt, _ = _stepped(chainrule, "SGD", momentum=0.9)
    sd = opt.state_dict()
    sd["param_groups"][0]["lr"] = 0.123
    other, _ = _stepped(chainrule, "SGD", steps=0, momentum=0.9)
    other.load_state_dict(sd)
    assert other.param_groups[0]["lr"] == 0.123
    assert opt.param_groups[0]["lr"] == 0.001


def test_zero_grad() -> None:
    p = _param(chainrule)
    opt = chainrule.optim.SGD([p], lr=0.1)
    p.grad = chainrule.tensor([1.0, 1.0])
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_closure_runs_with_grad_enabled_and_its_loss_is_returned() -> None:
    p = _param(chainrule)
    opt = chainrule.optim.Adam([p], lr=0.1)
    seen = []

    def closure() -> Any:
        seen.append(chainrule.is_grad_enabled())
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with chainrule.no_grad():
        loss = opt.step(closure)
    assert seen == [True] and loss.item() == 5.0
    assert p.tolist() != [1.0, 2.0]


def test_add_param_group_uses_defaults() -> None:
    opt = chainrule.optim.SGD([_param(chainrule)], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": _param(chainrule), "lr": 0.5})
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["momentum"] == 0.9
    assert isinstance(opt.param_groups[1]["params"], list)


def test_named_parameters_are_kept_as_names() -> None:
    w, b = _param(chainrule), _param(chainrule)
    opt = chainrule.optim.SGD([("w", w), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["params"] == [w, b]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]


def test_step_hooks_run_around_step_and_can_be_removed() -> None:
    p = _param(chainrule)
    p.grad = chainrule.tensor([1.0, 1.0])
    opt = chainrule.optim.SGD([p], lr=0.1)
    calls: list[str] = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    post = opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    glob = chainrule.optim.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global"))
    opt.step()
    assert calls == ["global", "pre", "post"]
    for handle in (pre, post, glob):
        handle.remove()
    opt.step()
    assert calls == ["global", "pre", "post"]


def test_step_runs_without_recording_a_graph() -> None:
    p = _param(chainrule)
    p.grad = chainrule.tensor([1.0, 1.0])
    chainrule.optim.Adam([p]).step()
    assert p.grad_fn is None and p.is_leaf and p.requires_grad


def test_capturable_needs_an_accelerator() -> None:
    p = _param(chainrule)
    p.grad = chainrule.tensor([1.0, 1.0])
    opt = chainrule.optim.Adam([p], capturable=True)
    with pytest.raises(AssertionError, match=r"^If capturable=True, params and state_steps must"):
        opt.step()
    assert p.tolist() == [1.0, 2.0]


def test_fused_keeps_a_float32_step_and_foreach_is_stored() -> None:
    p = chainrule.tensor([1.0], dtype=chainrule.float64, requires_grad=True)
    p.grad = chainrule.tensor([1.0], dtype=chainrule.float64)
    opt = chainrule.optim.Adam([p], fused=True)
    opt.step()
    assert opt.state[p]["step"].dtype == chainrule.float32
    assert chainrule.optim.SGD([_param(chainrule)], foreach=True).param_groups[0]["foreach"]


def test_lbfgs_minimises_a_quadratic() -> None:
    x = chainrule.tensor([3.0, -1.0, 2.0], dtype=chainrule.float64, requires_grad=True)
    scale = chainrule.tensor([1.0, 10.0, 100.0], dtype=chainrule.float64)
    for line_search in (None, "strong_wolfe"):
        x.data = chainrule.tensor([3.0, -1.0, 2.0], dtype=chainrule.float64)
        opt = chainrule.optim.LBFGS([x], lr=1, max_iter=50, line_search_fn=line_search)

        def closure(opt: Any = opt) -> Any:
            opt.zero_grad()
            loss = (scale * (x - 1) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        np.testing.assert_allclose(x._data, [1.0, 1.0, 1.0], atol=1e-6)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_follows_pytorch(torch: Any, line_search: str | None) -> None:
    results = []
    for lib in (torch, chainrule):
        x = lib.tensor([-1.2, 1.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([x], lr=0.5, max_iter=7, history_size=3, line_search_fn=line_search)

        def closure(x: Any = x, opt: Any = opt) -> Any:
            opt.zero_grad()
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
            loss.backward()
            return loss

        losses = [opt.step(closure).item() for _ in range(4)]
        state = opt.state[x]
        results.append((losses, x.tolist(), state["func_evals"], state["n_iter"]))
    (t_losses, t_x, t_evals, t_iter), (c_losses, c_x, c_evals, c_iter) = results
    np.testing.assert_allclose(c_losses, t_losses, rtol=1e-10)
    np.testing.assert_allclose(c_x, t_x, rtol=1e-10)
    assert (c_evals, c_iter) == (t_evals, t_iter)
