"""The speed issue's workloads W1-W6: NumPy by hand, PyTorch, HIPS autograd, MyGrad and
chainrule in one run, taking turns, one thread each.

    python benchmarks/bench_workloads.py [--quick] [--libs KEY ...] [--only W1 ...]
                                         [--clock cpu|wall] [--write-readme]

Prints the issue's table (each library's figure; chainrule's ratio to PyTorch or to
NumPy by hand; the target), which targets hold, and the figures behind some cells.
A library that is not installed is skipped (`pip install -e .[bench]` installs the
others). `--write-readme` puts the report into README.md between its
`bench_workloads` markers. `--quick` runs tiny sizes, to check that the harness works.
What each workload measures, and how, is in the modules of `workloads/`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from workloads import libraries, run, table

README = Path(__file__).resolve().parent.parent / "README.md"


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, few turns")
    parser.add_argument("--libs", nargs="+", choices=list(libraries.COLUMNS), default=None)
    parser.add_argument("--only", nargs="+", choices=run.WORKLOADS, default=None)
    parser.add_argument("--clock", choices=sorted(run.CLOCKS), default="cpu")
    parser.add_argument("--write-readme", action="store_true")
    parser.add_argument("--readme", type=Path, default=README)
    args = parser.parse_args(argv)
    if args.write_readme and args.quick:
        parser.error("--write-readme takes a full run, not --quick")
    load_before = os.getloadavg()
    wanted = args.libs or list(libraries.COLUMNS)
    libs, missing = libraries.load(wanted)
    absent = {key: "not installed" for key in missing}
    absent |= {key: "not run" for key in libraries.COLUMNS if key not in wanted}
    plan = run.QUICK if args.quick else run.FULL
    results = run.run(libs, absent, plan, set(args.only or run.WORKLOADS), args.clock)
    report = table.render(results, run.run_line(args.clock, plan, load_before))
    print(report, end="")
    if args.write_readme:
        table.rewrite_readme(args.readme, report)
    return report


if __name__ == "__main__":
    main()
