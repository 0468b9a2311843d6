"""`python -m chainrule.viz script.py`: run a script and draw the graph it built."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import chainrule
from chainrule import Tensor
from chainrule.viz.__main__ import main

SCRIPT = """\
import sys
import chainrule as torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a + 3
c = b * b * 3
out = c.mean()
out.backward()
print("script", __name__, sys.argv[1:])
"""

SEED = """\
out = MeanBackward0 #1  float32[]
└─ c = MulBackward0 #2  float32[2]  saved: other float32[] [freed]
   └─ self: MulBackward0 #3  float32[2]  saved: self float32[2], other float32[2] [freed]
      ├─ self: b = AddBackward0 #4  float32[2]
      │  └─ self: a = AccumulateGrad #5  float32[2]
      └─ other: b = AddBackward0  float32[2]  (see #4)
"""


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "seed.py"
    path.write_text(SCRIPT)
    return path


def write(tmp_path, text):
    path = tmp_path / "script.py"
    path.write_text(text)
    return str(path)


def test_subprocess_draws_last_backward(script):
    # The same chainrule as this test process, wherever it is installed from.
    src = str(Path(chainrule.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run(
        [sys.executable, "-m", "chainrule.viz", str(script), "--", "--lr", "0.1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    # The script ran as __main__ with its own arguments; module-level tensors are named.
    assert run.stdout == "script __main__ ['--lr', '0.1']\n" + SEED
    assert run.stderr == ""


def test_named_tensor_and_depth_limit(script, capsys):
    assert main([str(script), "--tensor", "b", "--max-depth", "1"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "b = AddBackward0 #1  float32[2]\n└─ self: … 1 hidden node #2  float32[2]\n"
    )


def test_files_written(script, tmp_path, capsys):
    dot, html = tmp_path / "g.dot", tmp_path / "g.html"
    assert main([str(script), "--dot", str(dot), "--html", str(html), "--show-saved"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "script __main__ []\n"  # no text unless asked for, with files
    assert captured.err == f"chainrule.viz: wrote {dot}\nchainrule.viz: wrote {html}\n"
    text = dot.read_text()
    assert text.startswith("digraph chainrule {") and text.count(" -> ") == 6 + 3
    assert '"c = MulBackward0"' in text and '"self\\nfloat32[2]\\n[freed]"' in text
    assert "<html" in html.read_text().lower()
    assert main([str(script), "--dot", str(dot), "--text"]) == 0
    assert capsys.readouterr().out.endswith(SEED)


def test_svg(script, tmp_path, capsys):
    from chainrule.viz._dot import graphviz_available

    if not graphviz_available():
        pytest.skip("Graphviz is not installed")
    svg = tmp_path / "g.svg"
    assert main([str(script), "--svg", str(svg)]) == 0
    assert ">c = MulBackward0<" in svg.read_text()
    capsys.readouterr()


def test_explain(script, capsys):
    assert main([str(script)]) == 0
    plain = capsys.readouterr().out
    assert main([str(script), "--explain"]) == 0
    narrated = capsys.readouterr().out
    # Each backward is narrated as it runs, with the script's names; the graph comes after.
    narration = narrated[: len(narrated) - len(plain)]
    assert narrated.endswith(plain)
    assert "step 1  MeanBackward0" in narration and "\na.grad = [15, 18]" in narration


def test_errors(tmp_path, capsys):
    no_backward = write(tmp_path, "import chainrule as torch\nx = torch.ones(2)\n")
    with pytest.raises(SystemExit) as stop:
        main([no_backward])
    assert stop.value.code == 2
    assert "never called .backward(): pass --tensor NAME" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([no_backward, "--tensor", "y"])
    assert "defines no module-level tensor named 'y' (its tensors: x)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "missing.py")])
    assert "no such script" in capsys.readouterr().err


def test_backward_restored_and_exit_codes(tmp_path, capsys):
    original = Tensor.backward
    argv, path = list(sys.argv), list(sys.path)
    failing = write(tmp_path, "raise KeyError('boom')\n")
    with pytest.raises(KeyError, match="boom"):
        main([failing])
    assert Tensor.backward is original and sys.argv == argv and sys.path == path
    exits = write(
        tmp_path,
        "import sys\nimport chainrule as torch\n"
        "x = torch.ones(2, requires_grad=True)\n(x * x).sum().backward()\nsys.exit(0)\n",
    )
    assert main([exits]) == 0  # the graph of a script that exits cleanly is still drawn
    assert capsys.readouterr().out.startswith("SumBackward0 #1  float32[]\n")
    with pytest.raises(SystemExit):
        main([exits, "--tensor", "x"])
    assert "ended with sys.exit(): its tensors are gone" in capsys.readouterr().err
    fails = write(tmp_path, "import sys\nsys.exit(3)\n")
    with pytest.raises(SystemExit) as stop:
        main([fails])
    assert stop.value.code == 3
    assert Tensor.backward is original
