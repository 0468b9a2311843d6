"""Learning-rate schedules: 50-step sequences equal to PyTorch's (float equality), recorded
sequences, state-dict round trips, warnings and errors."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import chainrule


def _optimizer(lib: Any, name: str = "SGD") -> Any:
    params = [lib.tensor([1.0, 2.0], requires_grad=True) for _ in range(2)]
    groups = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)]
    return getattr(lib.optim, name)(groups, **({"momentum": 0.9} if name == "SGD" else {}))


def _lambda(epoch: int) -> float:
    return 0.95**epoch + 0.1


def _sequential(S: Any, o: Any) -> Any:
    return S.SequentialLR(
        o, [S.LinearLR(o, 0.1, total_iters=5), S.CosineAnnealingLR(o, T_max=20)], milestones=[5]
    )


def _chained(S: Any, o: Any) -> Any:
    return S.ChainedScheduler([S.ExponentialLR(o, 0.9), S.StepLR(o, 4, 0.5)])


Build = Callable[[Any, Any], Any]
CASES: list[tuple[str, str, Build]] = [
    ("SGD", "StepLR", lambda S, o: S.StepLR(o, step_size=3, gamma=0.5)),
    ("SGD", "MultiStepLR", lambda S, o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3)),
    ("SGD", "ConstantLR", lambda S, o: S.ConstantLR(o, factor=0.3, total_iters=4)),
    ("SGD", "LinearLR", lambda S, o: S.LinearLR(o, 0.2, 0.9, total_iters=7)),
    ("SGD", "ExponentialLR", lambda S, o: S.ExponentialLR(o, gamma=0.93)),
    ("SGD", "PolynomialLR", lambda S, o: S.PolynomialLR(o, total_iters=13, power=2.3)),
    ("SGD", "CosineAnnealingLR", lambda S, o: S.CosineAnnealingLR(o, T_max=7, eta_min=0.001)),
    (
        "SGD",
        "WarmRestarts",
        lambda S, o: S.CosineAnnealingWarmRestarts(o, 3, T_mult=2, eta_min=0.01),
    ),
    ("SGD", "LambdaLR", lambda S, o: S.LambdaLR(o, _lambda)),
    ("SGD", "MultiplicativeLR", lambda S, o: S.MultiplicativeLR(o, lambda e: 0.97)),
    ("SGD", "CyclicLR", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4, step_size_down=3)),
    ("SGD", "CyclicLR2", lambda S, o: S.CyclicLR(o, 0.01, 0.1, 4, mode="triangular2")),
    ("SGD", "CyclicLRexp", lambda S, o: S.CyclicLR(o, 0.01, 0.1, 4, mode="exp_range", gamma=0.97)),
    ("SGD", "CyclicLRnomom", lambda S, o: S.CyclicLR(o, 0.01, 0.1, 4, cycle_momentum=False)),
    ("Adam", "CyclicLRbetas", lambda S, o: S.CyclicLR(o, [0.01, 0.02], 0.1, step_size_up=5)),
    ("SGD", "OneCycleLR", lambda S, o: S.OneCycleLR(o, max_lr=0.5, total_steps=60)),
    (
        "Adam",
        "OneCycleLR3",
        lambda S, o: S.OneCycleLR(
            o, [0.5, 0.3], epochs=6, steps_per_epoch=10, anneal_strategy="linear", three_phase=True
        ),
    ),
    ("SGD", "SequentialLR", _sequential),
    ("SGD", "ChainedScheduler", _chained),
]


def _run(lib: Any, opt_name: str, build: Build, steps: int = 50) -> tuple[list[Any], Any, Any]:
    opt = _optimizer(lib, opt_name)
    sched = build(lib.optim.lr_scheduler, opt)
    seen = []
    for _ in range(steps):
        opt.step()
        sched.step()
        groups = opt.param_groups
        momenta = [g.get("momentum", g.get("betas")) for g in groups]
        seen.append((sched.get_last_lr(), [g["lr"] for g in groups], momenta))
    return seen, sched, opt


@pytest.mark.parametrize(("opt_name", "label", "build"), CASES, ids=[c[1] for c in CASES])
def test_sequence_equals_pytorchs(torch: Any, opt_name: str, label: str, build: Build) -> None:
    t_seen, t_sched, t_opt = _run(torch, opt_name, build)
    c_seen, c_sched, c_opt = _run(chainrule, opt_name, build)
    assert c_seen == t_seen
    t_sd, c_sd = t_sched.state_dict(), c_sched.state_dict()
    assert list(c_sd) == list(t_sd)
    assert [list(g) for g in c_opt.state_dict()["param_groups"]] == [
        list(g) for g in t_opt.state_dict()["param_groups"]
    ]


@pytest.mark.parametrize(("opt_name", "label", "build"), CASES, ids=[c[1] for c in CASES])
def test_state_dict_round_trip_resumes_the_sequence(
    opt_name: str, label: str, build: Build
) -> None:
    full, _, _ = _run(chainrule, opt_name, build, steps=30)
    opt = _optimizer(chainrule, opt_name)
    sched = build(chainrule.optim.lr_scheduler, opt)
    for _ in range(15):
        opt.step()
        sched.step()
    saved_sched = copy.deepcopy(sched.state_dict())
    saved_opt = copy.deepcopy(opt.state_dict())

    opt2 = _optimizer(chainrule, opt_name)
    sched2 = build(chainrule.optim.lr_scheduler, opt2)
    sched2.load_state_dict(saved_sched)
    opt2.load_state_dict(saved_opt)
    rest = []
    for _ in range(15):
        opt2.step()
        sched2.step()
        groups = opt2.param_groups
        momenta = [g.get("momentum", g.get("betas")) for g in groups]
        rest.append((sched2.get_last_lr(), [g["lr"] for g in groups], momenta))
    assert rest == full[15:]


def _lrs(build: Build, steps: int) -> list[float]:
    p = chainrule.tensor([1.0], requires_grad=True)
    opt = chainrule.optim.SGD([p], lr=1.0)
    sched = build(chainrule.optim.lr_scheduler, opt)
    out = []
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr()[0])
    return out


def test_recorded_step_lr() -> None:
    got = _lrs(lambda S, o: S.StepLR(o, 3, 0.5), 10)
    assert got == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125]


def test_recorded_cosine_annealing_uses_the_recursive_form() -> None:
    got = _lrs(lambda S, o: S.CosineAnnealingLR(o, 5, 0.1), 12)
    # Recorded from PyTorch: the recursion drifts from the closed form in the last bits.
    assert got == [
        0.9140576474687263,
        0.6890576474687263,
        0.41094235253127365,
        0.1859423525312737,
        0.1,
        0.18594235253127367,
        0.41094235253127387,
        0.6890576474687268,
        0.9140576474687271,
        1.0000000000000009,
        0.9140576474687274,
        0.689057647468727,
    ]


def test_initial_lr_is_written_into_the_groups() -> None:
    opt = _optimizer(chainrule)
    sched = chainrule.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.2]
    assert (
        sched.base_lrs == [0.1, 0.2] and sched.last_epoch == 0 and sched.get_last_lr() == [0.1, 0.2]
    )


def test_stepping_the_scheduler_first_warns() -> None:
    opt = _optimizer(chainrule)
    sched = chainrule.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"^Detected call of `lr_scheduler.step\(\)` before"):
        sched.step()


def test_optimizer_step_first_does_not_warn() -> None:
    opt = _optimizer(chainrule)
    sched = chainrule.optim.lr_scheduler.StepLR(opt, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()


def test_get_lr_outside_step_warns() -> None:
    sched = chainrule.optim.lr_scheduler.StepLR(_optimizer(chainrule), 2)
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        sched.get_lr()


def test_step_with_an_epoch_uses_the_closed_form() -> None:
    opt = _optimizer(chainrule)
    sched = chainrule.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match=r"^The epoch parameter in `scheduler.step\(\)`"):
        sched.step(5)
    assert sched.get_last_lr() == [0.1 * 0.5**2, 0.2 * 0.5**2]


def test_reduce_lr_on_plateau() -> None:
    opt = _optimizer(chainrule)
    sched = chainrule.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1)
    lrs = []
    for metric in [1.0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8]:
        sched.step(metric)
        lrs.append(sched.get_last_lr()[0])
    # Three bad epochs (more than patience=2) halve it; the cooldown epoch's bad count is dropped.
    assert lrs == [0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05]
    assert sched.best == 0.8


@pytest.mark.parametrize("mode", ["min", "max"])
@pytest.mark.parametrize("threshold_mode", ["rel", "abs"])
def test_reduce_lr_on_plateau_matches_pytorch(torch: Any, mode: str, threshold_mode: str) -> None:
    metrics = [1.0, 0.99, 1.01, 0.98, 0.98, 0.97, 1.2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49, 2.0] * 3
    results = []
    for lib in (torch, chainrule):
        opt = _optimizer(lib)
        S = lib.optim.lr_scheduler
        sched = S.ReduceLROnPlateau(
            opt, mode, factor=0.3, patience=1, threshold=0.01, threshold_mode=threshold_mode,
            cooldown=2, min_lr=[0.001, 0.01],
        )  # fmt: skip
        seen = []
        for m in metrics:
            sched.step(m)
            seen.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter))
        results.append((seen, list(sched.state_dict())))
    assert results[1] == results[0]


ERRORS: list[tuple[Build, type[Exception], str]] = [
    (lambda S, o: S.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
    (
        lambda S, o: S.ConstantLR(o, factor=2.0),
        ValueError,
        "Constant multiplicative factor expected to be between 0 and 1.",
    ),
    (
        lambda S, o: S.LinearLR(o, start_factor=0),
        ValueError,
        "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.",
    ),
    (lambda S, o: S.LambdaLR(o, [_lambda]), ValueError, "Expected 2 lr_lambdas, but got 1"),
    (
        lambda S, o: S.CosineAnnealingWarmRestarts(o, 0),
        ValueError,
        "Expected positive integer T_0, but got 0",
    ),
    (lambda S, o: S.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda S, o: S.ReduceLROnPlateau(o, mode="best"), ValueError, "mode best is unknown!"),
    (
        lambda S, o: S.OneCycleLR(o, 0.1),
        ValueError,
        "You must define either total_steps OR (epochs AND steps_per_epoch)",
    ),
    (
        lambda S, o: S.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="square"),
        ValueError,
        "anneal_strategy must be one of 'cos' or 'linear', instead got square",
    ),
    (
        lambda S, o: S.CyclicLR(o, 0.1, [0.2], cycle_momentum=False),
        ValueError,
        "max_lr must have the same length as optimizer.param_groups. max_lr has 1 values, "
        "param_groups has 2.",
    ),
    (
        lambda S, o: S.StepLR(o, 2, last_epoch=3),
        KeyError,
        "\"param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with "
        "last_epoch >= 0.\\nThis typically happens when:\\n1. You're trying to resume training "
        "from a checkpoint but haven't properly loaded the optimizer state\\n2. You're using "
        'last_epoch >= 0 for a fresh training run (not recommended)"',
    ),
    (
        lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2)], milestones=[3]),
        ValueError,
        "Sequential Schedulers expects number of schedulers provided to be one more than the "
        "number of milestone points, but got number of schedulers 1 and the number of "
        "milestones to be equal to 1",
    ),
]


@pytest.mark.parametrize(("build", "kind", "message"), ERRORS)
def test_errors_are_pytorchs(build: Build, kind: type[Exception], message: str) -> None:
    with pytest.raises(kind) as info:
        build(chainrule.optim.lr_scheduler, _optimizer(chainrule))
    assert str(info.value) == message


@pytest.mark.parametrize(("build", "kind", "message"), ERRORS)
def test_recorded_errors_are_still_pytorchs(
    torch: Any, build: Build, kind: type[Exception], message: str
) -> None:
    with pytest.raises(kind) as info:
        build(torch.optim.lr_scheduler, _optimizer(torch))
    assert str(info.value) == message


def test_one_cycle_refuses_to_step_past_the_end() -> None:
    opt = _optimizer(chainrule)
    sched = chainrule.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
    for _ in range(3):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match=r"^Tried to step 4 times\. The specified number of total"):
        sched.step()
