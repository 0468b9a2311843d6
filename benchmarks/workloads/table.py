"""The run's figures as the speed issue's Markdown table, its targets, and the README.

`Results` holds raw figures per library key (see `libraries.COLUMNS`); `render` turns
them into the table, a line saying which targets hold, and a table of the details
behind some cells (memory as tracemalloc counts it, import times' min and median).
`rewrite_readme` puts a rendering between two marker lines of the README.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from workloads.libraries import COLUMNS

BEGIN = "<!-- bench_workloads: begin -->"
END = "<!-- bench_workloads: end -->"
KIB, MIB = 1024, 1024 * 1024

Figures = dict[str, float]


@dataclass
class Sizes:
    w1_ops: int = 1000
    w3_ops: int = 100_000
    mlp: tuple[int, ...] = (784, 512, 512, 10)
    batch: int = 128
    hvp_n: int = 1000


@dataclass
class Results:
    sizes: Sizes
    absent: dict[str, str]  # library key -> why its cells are empty ("not installed", ...)
    w1_us: Figures = field(default_factory=dict)  # µs per op
    w3_s: Figures = field(default_factory=dict)
    w3_node_rss: Figures = field(default_factory=dict)  # bytes per node
    w3_node_traced: Figures = field(default_factory=dict)
    w2_ms: dict[str, Figures] = field(default_factory=dict)  # per dtype name
    w6_rss: Figures = field(default_factory=dict)  # bytes
    w6_traced: Figures = field(default_factory=dict)
    w5_ms: dict[str, tuple[float, float]] = field(default_factory=dict)  # (min, median)
    w5_no_pyc_ms: tuple[float, float] | None = None  # chainrule's
    w4_ms: Figures = field(default_factory=dict)


def number(value: float) -> str:
    """About three significant figures, as the issue writes them (0.99, 4.84, 13.1, 285)."""
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 0.1:
        return f"{value:.2f}"
    return f"{value:.2g}"


def ratio(ours: float | None, theirs: float | None) -> float | None:
    return None if ours is None or not theirs else ours / theirs


class _Row:
    """Builds one table row: a label, one cell per library, the target."""

    def __init__(self, results: Results, label: str, target: str) -> None:
        self.results, self.label, self.target = results, label, target

    def cells(
        self,
        figures: Figures,
        text: Callable[[str, float], str],
        not_applicable: dict[str, str] | None = None,
    ) -> str:
        """A library's cell: its figure, else why it has none (not applicable to it,
        not installed, not run), else a dash."""
        out = [self.label]
        for key in COLUMNS:
            if key in figures:
                out.append(text(key, figures[key]))
            elif not_applicable and key in not_applicable:
                out.append(not_applicable[key])
            else:
                out.append(self.results.absent.get(key, "—"))
        return "| " + " | ".join([*out, self.target]) + " |"


def _vs(value: float | None, name: str) -> str:
    return "" if value is None else f" ({value:.2f}x {name})"


def rows(results: Results) -> list[str]:
    """The issue's table: header, separator, then W1, W3, W2 (f32, f64), W6, W5, W4."""
    r, s = results, results.sizes
    lines = [
        "| workload | " + " | ".join(COLUMNS.values()) + " | target |",
        "|---|" + "---|" * (len(COLUMNS) + 1),
    ]
    torch_w1, torch_w3 = r.w1_us.get("torch"), r.w3_s.get("torch")

    def w1(key: str, v: float) -> str:
        return number(v) + (_vs(ratio(v, torch_w1), "torch") if key == "chainrule" else "")

    row = _Row(r, f"W1: {s.w1_ops:,}-op chain on (16,), fwd+bwd, µs/op", "≤ 0.6x torch")
    lines.append(row.cells(r.w1_us, w1))

    def w3(key: str, v: float) -> str:
        cell = number(v)
        if key == "chainrule":
            cell += _vs(ratio(v, torch_w3), "torch")
            if key in r.w3_node_rss:
                cell += f", about {r.w3_node_rss[key] / KIB:.2f} KiB per node"
        return cell

    label = f"W3: {s.w3_ops:,}-op chain on a 0-d tensor, s"
    lines.append(_Row(r, label, "≤ 0.6x torch, ≤ 0.5 KiB/node").cells(r.w3_s, w3))
    sizes = "-".join(map(str, s.mlp))
    for dtype, short in (("float32", "f32"), ("float64", "f64")):
        figures = r.w2_ms.get(dtype, {})
        numpy_ms = figures.get("numpy")

        def w2(key: str, v: float, numpy_ms: float | None = numpy_ms) -> str:
            return number(v) + (_vs(ratio(v, numpy_ms), "NumPy") if key == "chainrule" else "")

        label = f"W2: MLP {sizes} step, batch {s.batch}, {short}, ms"
        lines.append(_Row(r, label, "≤ 1.05x NumPy").cells(figures, w2))
    torch_w6 = r.w6_rss.get("torch")

    def w6(key: str, v: float) -> str:
        cell = number(v / MIB)
        return cell + (_vs(ratio(v, torch_w6), "torch") if key == "chainrule" else "")

    label = "W6: peak memory of that step's fwd+bwd (f32), MiB"
    lines.append(_Row(r, label, "≤ torch").cells(r.w6_rss, w6))
    medians = {key: median for key, (_, median) in r.w5_ms.items()}
    numpy_import = medians.get("numpy")

    def w5(key: str, v: float) -> str:
        if key == "numpy":
            return f"{number(v)} (numpy)"
        if key != "chainrule":
            return number(v)
        cell = f"{number(v)} with `.pyc`"
        if numpy_import is not None:
            cell += f" (+{number(v - numpy_import)} over NumPy)"
        if r.w5_no_pyc_ms is not None:
            cell += f", {number(r.w5_no_pyc_ms[1])} without"
        return cell

    label = "W5: `import`, ms over a bare interpreter"
    lines.append(_Row(r, label, "≤ NumPy + 30 ms").cells(medians, w5))
    torch_w4 = r.w4_ms.get("torch")

    def w4(key: str, v: float) -> str:
        return f"{number(v)} ms" + (_vs(ratio(v, torch_w4), "torch") if key != "torch" else "")

    label = f"W4: Hessian-vector product, n = {s.hvp_n:,}, f64"
    not_applicable = {"mygrad": "none", "numpy": "—"}  # no double backward / not asked for
    lines.append(_Row(r, label, "stay ≤ 0.9x torch").cells(r.w4_ms, w4, not_applicable))
    return lines


def targets(results: Results) -> list[tuple[str, bool | None]]:
    """Each target with whether it holds (None: a figure it needs is missing)."""
    r = results
    cr = "chainrule"

    def at_most(value: float | None, bound: float) -> bool | None:
        return None if value is None else value <= bound

    def both(*checks: bool | None) -> bool | None:
        return None if None in checks else all(checks)

    w2 = [ratio(r.w2_ms.get(d, {}).get(cr), r.w2_ms.get(d, {}).get("numpy")) for d in r.w2_ms]
    medians = {key: median for key, (_, median) in r.w5_ms.items()}
    w5_over = medians[cr] - medians["numpy"] if {cr, "numpy"} <= medians.keys() else None
    w3_node = r.w3_node_rss.get(cr)
    return [
        ("W1 ≤ 0.6x torch", at_most(ratio(r.w1_us.get(cr), r.w1_us.get("torch")), 0.6)),
        (
            "W3 ≤ 0.6x torch and ≤ 0.5 KiB/node",
            both(
                at_most(ratio(r.w3_s.get(cr), r.w3_s.get("torch")), 0.6),
                at_most(None if w3_node is None else w3_node / KIB, 0.5),
            ),
        ),
        ("W2 ≤ 1.05x NumPy (f32 and f64)", both(*(at_most(x, 1.05) for x in w2)) if w2 else None),
        ("W6 ≤ torch", at_most(ratio(r.w6_rss.get(cr), r.w6_rss.get("torch")), 1.0)),
        ("W5 ≤ NumPy + 30 ms", at_most(w5_over, 30.0)),
        ("W4 ≤ 0.9x torch", at_most(ratio(r.w4_ms.get(cr), r.w4_ms.get("torch")), 0.9)),
    ]


def target_line(results: Results) -> str:
    words = {True: "holds", False: "not yet", None: "not measured"}
    return "Targets: " + "; ".join(f"{name}: {words[ok]}" for name, ok in targets(results)) + "."


def detail_rows(results: Results) -> list[str]:
    """The figures behind some cells, for every library."""
    r = results
    lines = [
        "| detail | " + " | ".join(COLUMNS.values()) + " |",
        "|---|" + "---|" * len(COLUMNS),
    ]

    def line(label: str, cell: Callable[[str], str | None]) -> str:
        cells = []
        for key in COLUMNS:
            text = cell(key)
            cells.append(text if text is not None else r.absent.get(key, "—"))
        return "| " + " | ".join([label, *cells]) + " |"

    def figure(figures: Figures, scale: float) -> Callable[[str], str | None]:
        return lambda key: number(figures[key] / scale) if key in figures else None

    lines.append(line("W3 memory per node, KiB (RSS)", figure(r.w3_node_rss, KIB)))
    lines.append(line("W3 memory per node, KiB (tracemalloc)", figure(r.w3_node_traced, KIB)))
    lines.append(line("W6 peak, MiB (tracemalloc)", figure(r.w6_traced, MIB)))

    def imports(key: str) -> str | None:
        if key not in r.w5_ms:
            return None
        low, mid = r.w5_ms[key]
        return f"{number(low)} / {number(mid)}"

    lines.append(line("W5 with `.pyc`, ms: min / median", imports))
    no_pyc = r.w5_no_pyc_ms

    def without(key: str) -> str | None:
        if key != "chainrule" or no_pyc is None:
            return "—" if key != "chainrule" else None
        return f"{number(no_pyc[0])} / {number(no_pyc[1])}"

    lines.append(line("W5 without `.pyc`, ms: min / median", without))
    return lines


def render(results: Results, run_line: str) -> str:
    """The whole report: the run's description, the table, the targets, the details."""
    parts = [run_line, "", *rows(results), "", target_line(results), "", *detail_rows(results)]
    return "\n".join(parts) + "\n"


def rewrite_readme(readme: Path, report: str) -> None:
    """Replace what stands between the README's two marker lines with `report`."""
    text = readme.read_text()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{readme} has no '{BEGIN}' ... '{END}' section to rewrite")
    head = text[: start + len(BEGIN)]
    readme.write_text(head + "\n" + report + text[end:])
