"""Device idioms on a machine without CUDA: `torch.cuda`, `torch.backends`, `device` and the
errors for asking a tensor onto a device that is not there, as a CPU build of PyTorch gives them."""

from __future__ import annotations

from typing import Any

import pytest

import chainrule

NO_CUDA = "Torch not compiled with CUDA enabled"

# (expression, expected): a value's repr, or "!Type: message" for an exception.
CASES = [
    ("torch.cuda.is_available()", "False"),
    ("torch.cuda.device_count()", "0"),
    ("torch.cuda.is_initialized()", "False"),
    ("torch.cuda.manual_seed(1)", "None"),
    ("torch.cuda.manual_seed_all(1)", "None"),
    ("torch.cuda.seed()", "None"),
    ("torch.cuda.seed_all()", "None"),
    ("torch.cuda.empty_cache()", "None"),
    ("torch.cuda.memory_allocated()", "0"),
    ("torch.cuda.is_bf16_supported()", "False"),
    ("torch.cuda.current_device()", f"!AssertionError: {NO_CUDA}"),
    ("torch.cuda.synchronize()", f"!AssertionError: {NO_CUDA}"),
    ("torch.cuda.get_device_name()", f"!AssertionError: {NO_CUDA}"),
    ("torch.cuda.initial_seed()", f"!AssertionError: {NO_CUDA}"),
    ("torch.cuda.init()", f"!AssertionError: {NO_CUDA}"),
    ("torch.backends.mps.is_available()", "False"),
    ("torch.backends.mps.is_built()", "False"),
    ("torch.backends.cuda.is_built()", "False"),
    ("torch.backends.cudnn.is_available()", "False"),
    ("torch.backends.cudnn.enabled", "True"),
    ("torch.backends.cudnn.benchmark", "False"),
    ("torch.backends.cudnn.deterministic", "False"),
    ('torch.device("cuda")', "device(type='cuda')"),
    ('torch.device("cuda:1")', "device(type='cuda', index=1)"),
    ('torch.device("cuda", 0)', "device(type='cuda', index=0)"),
    ('torch.device("cpu", 0)', "device(type='cpu', index=0)"),
    ('torch.device("mps")', "device(type='mps')"),
    ('str(torch.device("cuda:1"))', "'cuda:1'"),
    ('torch.device("cpu") == "cpu"', "False"),
    ('torch.device("cpu", 0) == torch.device("cpu")', "False"),
    ('torch.device("cuda:0") == torch.device("cuda", 0)', "True"),
    ('torch.device("cuda:x")', "!RuntimeError: Invalid device string: 'cuda:x'"),
    ('torch.device("cuda:01")', "!RuntimeError: Invalid device string: 'cuda:01'"),
    ('torch.device("")', "!RuntimeError: Device string must not be empty"),
    ('torch.device("cuda", -1)', "!RuntimeError: Device index must not be negative"),
    (
        'torch.device("cuda:0", 1)',
        "!RuntimeError: type (string) must not include an index because index was passed "
        "explicitly: cuda:0",
    ),
    (
        "torch.device(0)",
        "!RuntimeError: Cannot access accelerator device when none is available.",
    ),
    (
        'torch.device("CUDA")',
        "!RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, "
        "ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at "
        "start of device string: CUDA",
    ),
    ('torch.zeros(2, device="cuda")', f"!AssertionError: {NO_CUDA}"),
    ('torch.zeros(2, device="cuda:1")', f"!AssertionError: {NO_CUDA}"),
    ('torch.ones(2, device=torch.device("cuda", 0))', f"!AssertionError: {NO_CUDA}"),
    ('torch.tensor([1.0], device="cuda")', f"!AssertionError: {NO_CUDA}"),
    ('torch.randn(2, device="cuda")', f"!AssertionError: {NO_CUDA}"),
    ('torch.arange(3, device="cuda")', f"!AssertionError: {NO_CUDA}"),
    ("torch.zeros(2).cuda()", f"!AssertionError: {NO_CUDA}"),
    ('torch.zeros(2).cuda("cuda:0")', f"!AssertionError: {NO_CUDA}"),
    (
        "torch.zeros(2).cuda(0)",
        "!RuntimeError: Cannot access accelerator device when none is available.",
    ),
    ('torch.zeros(2).cuda("cpu")', "!RuntimeError: Invalid device, must be cuda device"),
    ('torch.zeros(2).to("cuda")', f"!AssertionError: {NO_CUDA}"),
    ('torch.zeros(2).to(device="cuda")', f"!AssertionError: {NO_CUDA}"),
    ('torch.zeros(2).to(torch.device("cuda"))', f"!AssertionError: {NO_CUDA}"),
    ('torch.zeros(2).to("cuda", torch.float64)', f"!AssertionError: {NO_CUDA}"),
    (
        'torch.zeros(2).to("mps")',
        "!RuntimeError: PyTorch is not linked with support for mps devices",
    ),
    ('torch.zeros(2).to("cpu:0")', "tensor([0., 0.])"),
    ('torch.zeros(2, device="cpu:1")', "tensor([0., 0.])"),
    ("torch.zeros(2).cpu()", "tensor([0., 0.])"),
    ("torch.zeros(2).is_cuda", "False"),
    (
        'torch.Generator("mps")',
        "!RuntimeError: Cannot execute getNewGenerator() without MPS backend.",
    ),
    ('torch.Generator("meta")', "!RuntimeError: META device type not an accelerator."),
]


def _outcome(module: Any, expression: str) -> str:
    try:
        return repr(eval(expression, {"torch": module}))
    except Exception as error:  # the outcome under test
        return f"!{type(error).__name__}: {error}"


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_recorded(expression: str, expected: str) -> None:
    assert _outcome(chainrule, expression) == expected


@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_matches_torch(torch: Any, expression: str, expected: str) -> None:
    assert _outcome(chainrule, expression) == _outcome(torch, expression)


def test_cuda_generator_refused_with_torchs_message(torch: Any) -> None:
    with pytest.raises(RuntimeError) as ours:
        chainrule.Generator("cuda")
    with pytest.raises(RuntimeError) as theirs:
        torch.Generator("cuda")
    assert str(ours.value) == str(theirs.value)
    assert str(ours.value).startswith("Cannot get CUDA generator without ATen_cuda library.")


def test_the_usual_device_pick_is_the_cpu() -> None:
    device = "cuda" if chainrule.cuda.is_available() else "cpu"
    x = chainrule.ones(2, device=device).to(device)
    assert x.device == chainrule.device("cpu")
    assert hash(chainrule.device("cuda:1")) == hash(chainrule.device("cuda", 1))
