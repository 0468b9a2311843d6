"""The speed issue's six workloads (W1-W6), each written once per library.

`benchmarks/bench_workloads.py` runs them: hand-written NumPy, PyTorch, HIPS autograd,
MyGrad and chainrule, taking turns in one run (`timing.py`), and prints the table.
One module per kind of workload; `table.py` turns the figures into Markdown.
"""
