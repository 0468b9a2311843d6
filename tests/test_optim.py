"""The optimizers' trajectories: PyTorch's to the last bit, option by option, and recorded
values and invariants that need no PyTorch.

Both libraries get the same gradient bits each step (a NumPy function of the parameters'
bits), so any difference comes from the update itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrule
from chainrule._tensor import Tensor

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "maximize": True, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "eps": 1e-3, "foreach": False}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "alpha": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True, "eps": 1e-5}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.9), "weight_decay": 0.1}),
    (
        "RAdam",
        {"lr": 0.01, "betas": (0.9, 0.9), "weight_decay": 0.1, "decoupled_weight_decay": True},
    ),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for name, kw in CONFIGS]


def _array(lib: Any, t: Any) -> np.ndarray:
    return t._data if isinstance(t, Tensor) else t.detach().numpy()


def _trajectory(
    lib: Any, name: str, kw: dict[str, Any], dtype: str, steps: int = 20
) -> tuple[list[Any], Any]:
    """Run `steps` steps on two parameters; each gradient is p / 2 plus fixed noise."""
    rng = np.random.default_rng(0)
    np_dtype = np.dtype(dtype)
    init = [rng.standard_normal((3, 4)).astype(np_dtype), rng.standard_normal(5).astype(np_dtype)]
    noise = [[rng.standard_normal(a.shape).astype(np_dtype) for a in init] for _ in range(steps)]
    params = [lib.tensor(a.copy(), requires_grad=True) for a in init]
    opt = getattr(lib.optim, name)(params, **kw)
    for k in range(steps):
        for p, n in zip(params, noise[k], strict=True):
            p.grad = lib.tensor(_array(lib, p) * np_dtype.type(0.5) + n)
        opt.step()
    return params, opt


@pytest.fixture
def torch_sqrt(torch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """chainrule's sqrt replaced by PyTorch's, for bit-for-bit comparisons.

    PyTorch's vectorised CPU sqrt is not correctly rounded (it is 1 ulp off NumPy's in about
    one float32 element in six here), so with it the two trajectories are identical.
    """

    def sqrt(self: Tensor) -> Tensor:
        return chainrule.tensor(torch.from_numpy(self._data.copy()).sqrt().numpy())

    def sqrt_(self: Tensor) -> Tensor:
        self._data[...] = torch.from_numpy(self._data.copy()).sqrt().numpy()
        return self

    monkeypatch.setattr(Tensor, "sqrt", sqrt)
    monkeypatch.setattr(Tensor, "sqrt_", sqrt_)


def _compare_states(torch: Any, t_opt: Any, c_opt: Any, exact: bool, dtype: str) -> None:
    t_state, c_state = t_opt.state_dict()["state"], c_opt.state_dict()["state"]
    assert list(t_state) == list(c_state)
    for index, t_entry in t_state.items():
        c_entry = c_state[index]
        assert list(t_entry) == list(c_entry)
        for key, t_value in t_entry.items():
            c_value = c_entry[key]
            assert str(c_value.dtype) == str(t_value.dtype).replace("torch.", "chainrule.")
            if exact:
                np.testing.assert_array_equal(c_value._data, t_value.numpy(), err_msg=key)
            else:
                rtol = 1e-5 if dtype == "float32" else 1e-13
                np.testing.assert_allclose(c_value._data, t_value.numpy(), rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "kw"), CONFIGS, ids=IDS)
def test_trajectory_is_torchs_bit_for_bit(
    torch: Any, torch_sqrt: None, name: str, kw: dict[str, Any], dtype: str
) -> None:
    t_params, t_opt = _trajectory(torch, name, kw, dtype)
    c_params, c_opt = _trajectory(chainrule, name, kw, dtype)
    for t, c in zip(t_params, c_params, strict=True):
        np.testing.assert_array_equal(c._data, t.detach().numpy())
    _compare_states(torch, t_opt, c_opt, exact=True, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "kw"), CONFIGS, ids=IDS)
def test_trajectory_with_own_sqrt_is_within_rounding(
    torch: Any, name: str, kw: dict[str, Any], dtype: str
) -> None:
    t_params, t_opt = _trajectory(torch, name, kw, dtype)
    c_params, c_opt = _trajectory(chainrule, name, kw, dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-13
    for t, c in zip(t_params, c_params, strict=True):
        np.testing.assert_allclose(c._data, t.detach().numpy(), rtol=rtol, atol=1e-7)
    _compare_states(torch, t_opt, c_opt, exact=False, dtype=dtype)


@pytest.mark.parametrize("name", ["SGD", "Adamax", "NAdam"])
def test_trajectories_without_patching_can_match_exactly(torch: Any, name: str) -> None:
    # SGD and Adamax take no square root; NAdam's square roots happen to round alike here.
    kw = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {}
    for dtype in ("float32", "float64"):
        params, _ = _trajectory(chainrule, name, kw, dtype)
        expected, _ = _trajectory(torch, name, kw, dtype)
        for c, t in zip(params, expected, strict=True):
            np.testing.assert_array_equal(c._data, t.detach().numpy())


# --- without PyTorch ---------------------------------------------------------------------------

# After 5 steps of _trajectory in float64, the first row of the first parameter (recorded
# from PyTorch 2.13).
RECORDED = [
    (
        "SGD",
        {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1},
        [0.12094586973785992, 0.1869788093919875, -0.41748743348728395, 0.43774756088187333],
    ),
    (
        "Adam",
        {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1},
        [0.13906576177233843, -0.15045600766359216, 0.6034354826363546, 0.13717515351843887],
    ),
]


@pytest.mark.parametrize(("name", "kw", "expected"), RECORDED)
def test_recorded_trajectories(name: str, kw: dict[str, Any], expected: list[float]) -> None:
    params, opt = _trajectory(chainrule, name, kw, "float64", steps=5)
    np.testing.assert_allclose(params[0]._data[0], expected, rtol=1e-15, atol=0)
    if name == "Adam":
        assert repr(opt.state[params[0]]["step"]) == "tensor(5.)"


def test_sgd_step_is_p_minus_lr_g() -> None:
    p = chainrule.tensor([1.0, -2.0, 3.0], requires_grad=True)
    p.grad = chainrule.tensor([0.5, 0.25, -1.0])
    chainrule.optim.SGD([p], lr=0.25).step()
    assert p.tolist() == [1.0 - 0.125, -2.0 - 0.0625, 3.25]


def test_adam_first_step_moves_each_coordinate_by_lr() -> None:
    # m̂ = g and v̂ = g² after one step, so the update is lr · g / (|g| + eps).
    p = chainrule.tensor([1.0, -2.0, 3.0], dtype=chainrule.float64, requires_grad=True)
    p.grad = chainrule.tensor([0.5, -4.0, 1e3], dtype=chainrule.float64)
    chainrule.optim.Adam([p], lr=0.01, eps=0.0).step()
    np.testing.assert_allclose(p._data, [0.99, -1.99, 2.99], rtol=0, atol=1e-15)


def test_a_parameter_without_gradient_is_left_alone() -> None:
    p = chainrule.tensor([1.0], requires_grad=True)
    q = chainrule.tensor([2.0], requires_grad=True)
    q.grad = chainrule.tensor([1.0])
    opt = chainrule.optim.Adam([p, q])
    opt.step()
    assert p.tolist() == [1.0] and p not in opt.state and q in opt.state


@pytest.mark.parametrize(
    "name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]
)
def test_training_a_tiny_model_lowers_the_loss(name: str) -> None:
    chainrule.manual_seed(0)
    x = chainrule.randn(32, 3)
    y = x @ chainrule.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    w = chainrule.zeros(3, 1, requires_grad=True)
    b = chainrule.zeros(1, requires_grad=True)
    lr = {"Adadelta": 20.0, "SGD": 0.1, "Adagrad": 0.5}.get(name, 0.05)
    opt = getattr(chainrule.optim, name)([w, b], lr=lr)

    def loss() -> Tensor:
        return ((x @ w + b - y) ** 2).mean()

    first = loss().item()
    for _ in range(100):
        opt.zero_grad()
        out = loss()
        out.backward()
        opt.step()
    assert loss().item() < 0.5 * first
    assert w.is_leaf and w.grad_fn is None
