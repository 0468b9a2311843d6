"""Anomaly mode: forward traces on nodes, NaN checks in backward, PyTorch's messages."""

from __future__ import annotations

import threading
import timeit
import warnings
from types import ModuleType

import pytest

import chainrule

ENABLED_TEXT = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should "
    "only be enabled for debugging."
)


@pytest.fixture(autouse=True)
def _restore_mode():
    yield
    chainrule.autograd.set_anomaly_enabled(False, True)


def _error(fn) -> str:
    try:
        fn()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return "no error"


def _states(m: ModuleType) -> list[object]:
    out: list[object] = [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with m.autograd.detect_anomaly():
            out += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
            with m.autograd.detect_anomaly(check_nan=False):
                out += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
            out += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
    out += [str(x.message) for x in w]
    out += [x.category.__name__ for x in w]
    out += [m.is_anomaly_enabled()]
    m.autograd.set_detect_anomaly(True)
    out.append(m.is_anomaly_enabled())
    m.autograd.set_detect_anomaly(False)
    out.append(m.is_anomaly_enabled())
    with m.autograd.set_detect_anomaly(True, check_nan=False):
        out += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
    out += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
    return out


def _nan_errors(m: ModuleType) -> list[object]:
    out: list[object] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with m.autograd.detect_anomaly():
            x = m.tensor([0.0, 1.0], requires_grad=True)
            out.append(_error(lambda: (x / x).sum().backward()))
            a = m.tensor([-1.0], requires_grad=True)
            out.append(_error(lambda: (a.sqrt() * 0).sum().backward()))
            b = m.tensor([float("nan")])
            out.append(_error(lambda: (a * b).sum().backward()))
            # A NaN in a node's incoming gradient that it does not pass on is fine.
            out.append(_error(lambda: m.autograd.grad((a * b).sum(), b.requires_grad_())))
        with m.autograd.detect_anomaly(check_nan=False):
            c = m.tensor([1.0], requires_grad=True)
            (c * b).sum().backward()
            out.append(str(c.grad))
        # The mode is off: NaN flows through silently.
        d = m.tensor([0.0], requires_grad=True)
        (d / d).sum().backward()
        out.append(str(d.grad))
    return out


def test_mode_states_match_torch():
    torch = pytest.importorskip("torch")
    assert _states(chainrule) == _states(torch)


def test_nan_errors_match_torch():
    torch = pytest.importorskip("torch")
    got = _nan_errors(chainrule)
    assert got == _nan_errors(torch)
    assert got[0] == "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output."


def test_decorator():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):

        @chainrule.autograd.detect_anomaly()
        def f() -> bool:
            return chainrule.is_anomaly_enabled()

    assert not chainrule.is_anomaly_enabled()
    assert f() is True
    assert not chainrule.is_anomaly_enabled()


def test_mode_is_process_wide_like_torch():
    # PyTorch keeps the anomaly flag in a process-wide static, not per thread.
    torch = pytest.importorskip("torch")

    def seen_from_thread(m: ModuleType) -> list[bool]:
        seen: list[bool] = []
        with m.autograd.set_detect_anomaly(True, check_nan=False):
            t = threading.Thread(
                target=lambda: seen.extend(
                    [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
                )
            )
            t.start()
            t.join()
        return seen

    assert seen_from_thread(chainrule) == seen_from_thread(torch) == [True, False]


def _last_frame(msg: str) -> list[str]:
    # PyTorch appends where in its C++ the warning was raised.
    lines = msg.split(" (Triggered internally at ")[0].rstrip("\n").splitlines()
    return lines[-2:]


def _backward_warnings(m: ModuleType) -> list[str]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with m.autograd.detect_anomaly():
            x = m.tensor([0.0, 1.0], requires_grad=True)
            y = x / x  # the forward line the warning must show
            with pytest.raises(RuntimeError, match="returned nan values"):
                y.sum().backward()
    return [str(x.message) for x in w if "Error detected" in str(x.message)]


def test_warning_names_node_and_forward_line():
    (msg,) = _backward_warnings(chainrule)
    head = "Error detected in DivBackward0. Traceback of forward call that caused the error:\n"
    assert msg.startswith(head)
    assert "y = x / x  # the forward line the warning must show" in msg
    assert "_backward_warnings" in msg
    assert "/src/chainrule/" not in msg  # no frames of chainrule's own
    torch = pytest.importorskip("torch")
    (tmsg,) = _backward_warnings(torch)
    assert tmsg.startswith(head)
    # The innermost frame is the user's, as in PyTorch.
    assert _last_frame(tmsg) == _last_frame(msg)


def test_error_in_custom_backward_warns_with_trace():
    class Boom(chainrule.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with chainrule.autograd.detect_anomaly():
            x = chainrule.ones(2, requires_grad=True)
            y = Boom.apply(x)  # made here
            with pytest.raises(ValueError, match="boom"):
                y.sum().backward()
    msgs = [str(x.message) for x in w if "Error detected" in str(x.message)]
    assert len(msgs) == 1
    assert msgs[0].startswith("Error detected in BoomBackward. Traceback")
    assert "y = Boom.apply(x)  # made here" in msgs[0]


def test_double_backward_reports_parent():
    def run(m: ModuleType) -> tuple[list[str], str, str]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with m.autograd.detect_anomaly():
                x = m.tensor([0.0, 1.0], requires_grad=True)
                y = x.pow(3)
                (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
                parent = g.grad_fn.metadata["parent_"].name()
                err = _error(lambda: g.sqrt().sum().backward())
        msgs = [str(x.message) for x in w if not str(x.message).startswith("Anomaly Detection")]
        return msgs, parent, err

    msgs, parent, err = run(chainrule)
    assert parent == "PowBackward0"
    assert err == "RuntimeError: Function 'PowBackward0' returned nan values in its 0th output."
    assert len(msgs) == 2
    assert msgs[0].startswith("Error detected in PowBackward0.")
    assert "m.autograd.grad(y.sum(), x, create_graph=True)" in msgs[0]
    assert msgs[1].startswith(
        "\n\nPrevious calculation was induced by PowBackward0. Traceback of forward call that "
        "induced the previous calculation:\n"
    )
    assert "y = x.pow(3)" in msgs[1]
    torch = pytest.importorskip("torch")
    tmsgs, tparent, terr = run(torch)
    assert (parent, err, len(msgs)) == (tparent, terr, len(tmsgs))
    assert _last_frame(tmsgs[1]) == _last_frame(msgs[1])


def test_node_made_outside_mode_has_no_trace():
    x = chainrule.tensor([0.0], requires_grad=True)
    y = x / x
    assert y.grad_fn._metadata is None
    assert dict(y.grad_fn.metadata) == {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with chainrule.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="DivBackward0"):
            y.backward()
    msgs = [str(x.message) for x in w if "Error detected" in str(x.message)]
    assert msgs == [
        "Error detected in DivBackward0. No forward pass information available. Enable "
        "detect anomaly during forward pass for more information."
    ]


def test_no_metadata_and_no_slowdown_when_off():
    x = chainrule.ones(4, requires_grad=True)
    y = (x * 2).exp()
    assert y.grad_fn._metadata is None
    assert y.grad_fn.next_functions[0][0]._metadata is None

    def step() -> None:
        ((x * 2).exp() + 1).sum().backward()

    off = min(timeit.repeat(step, number=200, repeat=3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with chainrule.autograd.detect_anomaly():
            on = min(timeit.repeat(step, number=200, repeat=3))
    # Recording a stack per node costs something; with the mode off there is nothing to pay.
    assert off < on
