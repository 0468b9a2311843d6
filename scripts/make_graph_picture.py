"""Write docs/graph.png: the interactive page of `chainrule.viz.to_html`, photographed.

    python scripts/make_graph_picture.py

The graph is a small two-layer network trained for one step, recorded with
`viz.record()` so the page knows every value and gradient; the picture shows
the page with the ReLU node clicked. It needs Chromium (`apt-get install
chromium`, or set $CHROMIUM to a Chrome or Chromium executable).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import chainrule as torch
import chainrule.nn.functional as F
from chainrule import viz

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "graph.png"
SIZE = (1100, 760)


def build_page(path: Path) -> int:
    """Write the page to `path`; returns the id of the node to show selected."""
    torch.manual_seed(1)
    x = torch.randn(2, 3)
    target = torch.tensor([[1.0], [-1.0]])
    W1 = torch.randn(3, 3, requires_grad=True)
    b1 = torch.zeros(3, requires_grad=True)
    W2 = torch.randn(1, 3, requires_grad=True)
    b2 = torch.zeros(1, requires_grad=True)
    with viz.record() as rec:
        h = F.relu(F.linear(x, W1, b1))
        y = F.linear(h, W2, b2)
        loss = F.mse_loss(y, target)
        loss.backward(retain_graph=True)
    names = {"W1": W1, "b1": b1, "W2": W2, "b2": b2, "h": h, "y": y, "loss": loss}
    viz.to_html(loss, path, names=names, recording=rec, title="A two-layer network, one step")
    graph = viz.build_graph(loss, names=names)  # the page's graph: same walk, same ids
    return next(n.id for n in graph.nodes if n.name == "ReluBackward0")


def main() -> int:
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(chromium):
        print("Chromium is needed: apt-get install chromium (or set $CHROMIUM)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "graph.html"
        node = build_page(page)  # shown selected: the picture includes its details
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                f"--user-data-dir={Path(tmp) / 'profile'}",
                f"--window-size={SIZE[0]},{SIZE[1]}",
                f"--screenshot={OUT}",
                f"{page.as_uri()}#node={node}",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
