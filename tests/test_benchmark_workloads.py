"""The workloads harness (benchmarks/bench_workloads.py): its quick run with NumPy by hand
and chainrule prints the issue's table, and the table, targets and README rewrite come
out right from recorded figures. No timing is asserted."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_workloads  # noqa: E402
from workloads import table  # noqa: E402
from workloads.table import KIB, MIB, Results, Sizes  # noqa: E402

HEADER = "| workload | NumPy by hand | PyTorch | HIPS autograd | MyGrad | chainrule | target |"
TARGETS = [
    "≤ 0.6x torch",
    "≤ 0.6x torch, ≤ 0.5 KiB/node",
    "≤ 1.05x NumPy",
    "≤ 1.05x NumPy",
    "≤ torch",
    "≤ NumPy + 30 ms",
    "stay ≤ 0.9x torch",
]
NUMBER = r"\d+(\.\d+)?(e-\d+)?"


def cells(line: str) -> list[str]:
    assert line.startswith("| ") and line.endswith(" |"), line
    return line[2:-2].split(" | ")


def test_quick_run_with_numpy_and_chainrule_prints_the_table() -> None:
    report = bench_workloads.main(["--quick", "--libs", "numpy", "chainrule"])
    lines = report.splitlines()
    assert lines[0].startswith("Run of ") and "Quick mode" in lines[0]
    start = lines.index(HEADER)
    assert lines[start + 1] == "|---|" + "---|" * 6
    body = [cells(line) for line in lines[start + 2 : start + 9]]
    labels = [row[0] for row in body]
    assert [label.split(":")[0] for label in labels] == ["W1", "W3", "W2", "W2", "W6", "W5", "W4"]
    assert labels[2].endswith("f32, ms") and labels[3].endswith("f64, ms")
    assert [row[-1] for row in body] == TARGETS
    for row in body:
        assert len(row) == 7
        numpy_cell, torch_cell, autograd_cell, mygrad_cell, ours = row[1:6]
        assert torch_cell == autograd_cell == "not run"
        assert mygrad_cell == ("none" if row[0].startswith("W4") else "not run")
        if row[0].startswith("W4"):
            assert numpy_cell == "—"
            assert re.fullmatch(NUMBER + " ms", ours), ours
        elif row[0].startswith("W5"):
            assert re.fullmatch(NUMBER + r" \(numpy\)", numpy_cell), numpy_cell
            over_numpy = r" \(\+-?" + NUMBER + r" over NumPy\), "
            assert re.fullmatch(NUMBER + " with `.pyc`" + over_numpy + NUMBER + " without", ours)
        else:
            assert re.fullmatch(NUMBER, numpy_cell), numpy_cell
            with_ratio = r"( \(" + NUMBER + r"x NumPy\))?"
            memory = "(, about " + NUMBER + " KiB per node)?"
            assert re.fullmatch(NUMBER + with_ratio + memory, ours), ours
    targets_line = lines[start + 10]
    # Without PyTorch the ratios to it cannot be formed; W2 and W5 compare with NumPy.
    assert targets_line.startswith("Targets: W1 ≤ 0.6x torch: not measured;")
    assert re.search(r"W2 ≤ 1\.05x NumPy \(f32 and f64\): (holds|not yet)", targets_line)
    assert lines[start + 12] == HEADER.replace("workload", "detail").removesuffix(" target |")


def issue_figures() -> Results:
    """The figures of the issue's table (where it gives them)."""
    names = ["numpy", "torch", "autograd", "mygrad", "chainrule"]
    return Results(
        Sizes(),
        {},
        w1_us=dict(zip(names, [0.99, 4.84, 8.64, 13.1, 10.1], strict=True)),
        w3_s=dict(zip(names, [0.03, 1.21, 1.98, 4.81, 1.97], strict=True)),
        w3_node_rss={"chainrule": 1.05 * KIB},
        w2_ms={
            "float32": dict(zip(names, [5.04, 5.83, 10.7, 5.59, 6.10], strict=True)),
            "float64": dict(zip(names, [9.0, 9.5, 15.0, 9.2, 9.1], strict=True)),
        },
        w6_rss={k: v * MIB for k, v in zip(names, [3.72, 2.95, 6.57, 6.00, 4.29], strict=True)},
        w5_ms={k: (v, v) for k, v in zip(names, [78, 1403, 95, 102, 145], strict=True)},
        w5_no_pyc_ms=(285, 285),
        w4_ms={"torch": 1.66, "autograd": 1.51, "chainrule": 1.39},
    )


def test_rows_from_the_issues_figures() -> None:
    assert table.rows(issue_figures()) == [
        HEADER,
        "|---|---|---|---|---|---|---|",
        "| W1: 1,000-op chain on (16,), fwd+bwd, µs/op | 0.99 | 4.84 | 8.64 | 13.1 "
        "| 10.1 (2.09x torch) | ≤ 0.6x torch |",
        "| W3: 100,000-op chain on a 0-d tensor, s | 0.03 | 1.21 | 1.98 | 4.81 "
        "| 1.97 (1.63x torch), about 1.05 KiB per node | ≤ 0.6x torch, ≤ 0.5 KiB/node |",
        "| W2: MLP 784-512-512-10 step, batch 128, f32, ms | 5.04 | 5.83 | 10.7 | 5.59 "
        "| 6.10 (1.21x NumPy) | ≤ 1.05x NumPy |",
        "| W2: MLP 784-512-512-10 step, batch 128, f64, ms | 9.00 | 9.50 | 15.0 | 9.20 "
        "| 9.10 (1.01x NumPy) | ≤ 1.05x NumPy |",
        "| W6: peak memory of that step's fwd+bwd (f32), MiB | 3.72 | 2.95 | 6.57 | 6.00 "
        "| 4.29 (1.45x torch) | ≤ torch |",
        "| W5: `import`, ms over a bare interpreter | 78.0 (numpy) | 1403 | 95.0 | 102 "
        "| 145 with `.pyc` (+67.0 over NumPy), 285 without | ≤ NumPy + 30 ms |",
        "| W4: Hessian-vector product, n = 1,000, f64 | — | 1.66 ms | 1.51 ms (0.91x torch) "
        "| none | 1.39 ms (0.84x torch) | stay ≤ 0.9x torch |",
    ]


def test_targets_hold_or_not_from_the_figures() -> None:
    figures = issue_figures()
    assert [ok for _, ok in table.targets(figures)] == [False, False, False, False, False, True]
    figures.w1_us["chainrule"] = 0.6 * 4.84
    figures.w2_ms["float32"]["chainrule"] = 5.04
    figures.w6_rss["chainrule"] = figures.w6_rss["torch"]
    figures.w5_ms["chainrule"] = (100, 108)
    assert [ok for _, ok in table.targets(figures)] == [True, False, True, True, True, True]
    del figures.w1_us["torch"]
    figures.w3_node_rss.clear()
    assert [ok for _, ok in table.targets(figures)][:2] == [None, None]


def test_a_library_without_figures_says_why() -> None:
    figures = issue_figures()
    figures.absent = {"mygrad": "not installed"}
    for field in (figures.w1_us, figures.w3_s, figures.w6_rss):
        del field["mygrad"]
    w1, w3, _, _, w6, _, w4 = (cells(row) for row in table.rows(figures)[2:])
    assert w1[4] == w3[4] == w6[4] == "not installed"
    assert w4[4] == "none"  # MyGrad has no double backward, installed or not


def test_numbers_keep_about_three_figures() -> None:
    got = [table.number(v) for v in (1403.4, 102.0, 13.14, 4.844, 0.994, 0.03, 0.00021)]
    assert got == ["1403", "102", "13.1", "4.84", "0.99", "0.03", "0.00021"]


def test_readme_rewrite_replaces_only_the_marked_section(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nbefore\n{table.BEGIN}\nold table\n{table.END}\nafter\n")
    table.rewrite_readme(readme, "new table\n")
    table.rewrite_readme(readme, "newer table\n")
    assert readme.read_text() == (
        f"# Title\n\nbefore\n{table.BEGIN}\nnewer table\n{table.END}\nafter\n"
    )
    (tmp_path / "plain.md").write_text("no markers\n")
    with pytest.raises(SystemExit, match="no '<!-- bench_workloads: begin -->'"):
        table.rewrite_readme(tmp_path / "plain.md", "table\n")
