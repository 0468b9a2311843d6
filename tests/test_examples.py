"""The training demo runs, and prints what the same script prints under PyTorch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "train_digits.py"


def _run(script: Path, out: Path, epochs: int) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(script), "--epochs", str(epochs), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    return done.stdout.splitlines()


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    for extra in ("sklearn", "matplotlib", "tqdm"):
        pytest.importorskip(extra)
    out = tmp_path_factory.mktemp("digits")
    return out, _run(DEMO, out, epochs=2)


def test_the_demo_trains_and_writes_its_pictures(demo_output: tuple[Path, list[str]]) -> None:
    out, lines = demo_output
    assert lines[0] == "Sequential("
    assert [line[:9] for line in lines if line.startswith("epoch")] == ["epoch  1:", "epoch  2:"]
    accuracy = next(line for line in lines if line.startswith("test accuracy:"))
    assert float(accuracy.split()[-1].rstrip("%")) > 50
    assert (out / "loss_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert "<html" in (out / "graph.html").read_text()[:200].lower()


def test_the_demo_prints_what_pytorch_prints(
    demo_output: tuple[Path, list[str]], tmp_path: Path
) -> None:
    pytest.importorskip("torch")
    _, ours = demo_output
    source = DEMO.read_text()
    for old, new in [
        ("import chainrule as torch", "import torch"),
        ("from chainrule import nn, optim", "from torch import nn, optim"),
        ("from chainrule.utils.data import", "from torch.utils.data import"),
    ]:
        assert old in source
        source = source.replace(old, new)
    script = tmp_path / "train_digits_torch.py"
    script.write_text(source)
    theirs = _run(script, tmp_path / "out", epochs=2)
    # The same model repr, the same losses after each epoch, the same test accuracy.
    assert ours[:-1] == theirs[:-1]
