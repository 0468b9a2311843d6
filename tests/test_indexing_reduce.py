"""scatter_reduce, index_reduce, put and torch.index_put_ beyond the op table: ties shared
by amax/amin, prod's zeros (and its double backward that refuses), include_self, integer
and bool dtypes, layouts, node names and errors, compared with PyTorch where it is
installed and with the values PyTorch 2.13 gave, recorded below."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chainrule
from chainrule._ops.indexing import reduce_into
from recorded_outcomes import outcome

RECORDED = {
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0], [1, 0, 0, 2]]), -x[:2], 'sum')": (
        "([[0.0, -4.0, -4.0, 0.0], [0.0, 4.0, 6.0, 7.0], [8.0, 9.0, 8.0, 4.0]], 'float32', (4, 1))"
    ),
    (
        "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0], [1, 0, 0, 2]]), -x[:2], 'prod', "
        "include_self=False)"
    ): (
        "([[-0.0, -5.0, -6.0, -3.0], [-4.0, -1.0, 6.0, 7.0], [8.0, 9.0, -2.0, -7.0]], 'float32', "
        "(4, 1))"
    ),
    "x.scatter_reduce(1, lib.tensor([[0, 0], [3, 3], [1, 2]]), x[:, :2] + 0.5, 'mean')": (
        "([[0.6666666865348816, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 5.666666507720947], [8.0, 8.75, "
        "9.75, 11.0]], 'float32', (4, 1))"
    ),
    (
        "x.scatter_reduce(1, lib.tensor([[0, 0], [3, 3], [1, 2]]), x[:, :2] + 0.5, 'mean', "
        "include_self=False)"
    ): "([[1.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 5.0], [8.0, 8.5, 9.5, 11.0]], 'float32', (4, 1))",
    "x.scatter_reduce(0, lib.tensor([[2, 2, 2, 2]]), x[:1] + 9, 'amax')": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [9.0, 10.0, 11.0, 12.0]], 'float32', (4, 1))"
    ),
    "x.scatter_reduce(0, lib.tensor([[2, 2, 2, 2]]), x[:1] + 9, 'amin', include_self=False)": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [9.0, 10.0, 11.0, 12.0]], 'float32', (4, 1))"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]), x[:1], 'max')": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]), x[:1], 'min')": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 1.0, 6.0, 7.0], [8.0, 9.0, 2.0, 11.0]], 'float32', (4, 1))"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]), x[:1], 'add')": (
        "RuntimeError: reduce argument must be either sum, prod, mean, amax or amin, got add"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]), x[:1], 3)": (
        "TypeError: scatter_reduce(): argument 'reduce' (position 4) must be str, not int"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]).int(), x[:1], 'sum')": (
        "([[0.0, 1.0, 2.0, 6.0], [4.0, 6.0, 6.0, 7.0], [8.0, 9.0, 12.0, 11.0]], 'float32', (4, 1))"
    ),
    "x.scatter_reduce(0, lib.tensor([[0.0, 1.0]]), x[:1], 'sum')": (
        "RuntimeError: scatter(): Expected dtype int32/int64 for index"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 0]]), x[:1].double(), 'sum')": (
        "RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1, 2, 3]]), x[:1], 'sum')": (
        "RuntimeError: index 3 is out of bounds for dimension 0 with size 3"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, -1, 2, 0]]), x[:1], 'sum')": (
        "RuntimeError: index -1 is out of bounds for dimension 0 with size 3"
    ),
    "x.scatter_reduce(0, lib.tensor([0, 1]), x[:1], 'sum')": (
        "RuntimeError: Index tensor must have the same number of dimensions as self tensor"
    ),
    "x.scatter_reduce(2, lib.tensor([[0, 1]]), x[:1], 'sum')": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    ),
    "x.scatter_reduce(0, lib.tensor([[0, 1]]), 1.0, 'sum')": (
        "TypeError: scatter_reduce(): argument 'src' (position 3) must be Tensor, not float"
    ),
    "x.scatter_reduce(0, lib.zeros(4, 4, dtype=lib.long), x[:2], 'sum')": (
        "RuntimeError: Expected index [4, 4] to be no larger than self [3, 4] apart from dimension "
        "0 and to be no larger size than src [2, 4]"
    ),
    "x.scatter_reduce(0, lib.zeros(2, 5, dtype=lib.long), x[:2], 'sum')": (
        "RuntimeError: Expected index [2, 5] to be no larger than self [3, 4] apart from dimension "
        "0 and to be no larger size than src [2, 4]"
    ),
    (
        "lib.scatter_reduce(lib.tensor([[5, -3, 7]]), 0, lib.zeros(2, 3, dtype=lib.long), "
        "lib.tensor([[1, 0, 0], [2, 0, 0]]), 'mean')"
    ): "([[2, -1, 2]], 'int64', (3, 1))",
    (
        "lib.scatter_reduce(lib.tensor([[5, -3, 7]]), 0, lib.zeros(2, 3, dtype=lib.long), "
        "lib.tensor([[1, 0, 0], [2, 0, 0]]), 'amax', include_self=False)"
    ): "([[2, 0, 0]], 'int64', (3, 1))",
    (
        "lib.scatter_reduce(lib.tensor([[5, -3, 7]]), 0, lib.zeros(2, 3, dtype=lib.long), "
        "lib.tensor([[1, 0, 0], [2, 0, 0]]), 'prod', include_self=False)"
    ): "([[2, 0, 0]], 'int64', (3, 1))",
    (
        "lib.scatter_reduce(lib.tensor([[True, False]]), 0, lib.tensor([[0, 0]]), "
        "lib.tensor([[True, True]]), 'sum')"
    ): "([[True, True]], 'bool', (2, 1))",
    (
        "lib.scatter_reduce(lib.tensor([[True, False]]), 0, lib.tensor([[0, 0]]), "
        "lib.tensor([[True, True]]), 'mean')"
    ): "NotImplementedError: \"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'",
    "lib.scatter_reduce(lib.tensor(2.0), 0, lib.tensor(0), lib.tensor(3.0), 'sum')": (
        "(5.0, 'float32', ())"
    ),
    (
        "lib.scatter_reduce(lib.tensor([2.0, 1.0]), 0, lib.tensor([0, 0, 1]), lib.tensor([3.0, "
        "float('nan'), 5.0]), 'amax')"
    ): "([nan, 5.0], 'float32', (1,))",
    (
        "lib.scatter_reduce(lib.tensor([2.0, 1.0]), 0, lib.tensor([0, 0, 1]), lib.tensor([3.0, "
        "4.0, 5.0]), 'sum', out=lib.zeros(2))"
    ): "([9.0, 6.0], 'float32', (1,))",
    "x.t().scatter_reduce(0, lib.tensor([[0, 1, 2]]), x[:1, :3], 'sum').stride()": "(3, 1)",
    "x.clone().scatter_reduce_(0, lib.tensor([[0, 1, 2, 0]]), x[:1].double(), 'sum')": (
        "RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype"
    ),
    (
        "x.clone().scatter_reduce_(0, lib.tensor([[0, 1, 2, 0]]), x[:1] + 1, 'prod', "
        "include_self=False)"
    ): "([[1.0, 1.0, 2.0, 4.0], [4.0, 2.0, 6.0, 7.0], [8.0, 9.0, 3.0, 11.0]], 'float32', (4, 1))",
    (
        "grads(lambda a, s: a.scatter_reduce(0, lib.tensor([[0, 0, 1]]), s, 'amax'), [[1.0, 2.0, "
        "3.0], [3.0, 2.0, 1.0]], [[1.0, 2.0, 3.0]])"
    ): "[[0.5, 1.0, 3.0, 4.0, 5.0, 0.0], [0.5, 1.0, 6.0]]",
    (
        "grads(lambda a, s: a.scatter_reduce(0, lib.tensor([[0, 0, 0], [0, 0, 0]]), s, 'amin', "
        "include_self=False), [[1.0, 2.0, 3.0]], [[4.0, 2.0, 3.0], [4.0, 2.0, 5.0]])"
    ): "[[0.0, 0.0, 0.0], [0.5, 0.666667, 1.5, 0.5, 0.666667, 0.0]]",
    (
        "grads(lambda a, s: a.scatter_reduce(0, lib.tensor([[0, 0, 0], [0, 0, 0]]), s, 'prod'), "
        "[[0.0, 2.0, 0.0]], [[4.0, 0.0, 0.0], [2.0, 3.0, 0.0]])"
    ): "[[8.0, 0.0, 0.0], [0.0, 12.0, 0.0, 0.0, 0.0, 0.0]]",
    (
        "grads(lambda a, s: a.scatter_reduce(0, lib.tensor([[0, 0, 0], [0, 0, 0]]), s, 'prod', "
        "include_self=False), [[0.0, 2.0, 0.0]], [[4.0, 0.0, 0.0], [2.0, 3.0, 0.0]])"
    ): "[[0.0, 0.0, 0.0], [2.0, 6.0, 0.0, 4.0, 0.0, 0.0]]",
    (
        "grads(lambda a, s: a.scatter_reduce(0, lib.tensor([[0, 1, 1]]), s, 'mean', "
        "include_self=False), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 2.0, 3.0]])"
    ): "[[0.0, 2.0, 3.0, 4.0, 0.0, 0.0], [1.0, 5.0, 6.0]]",
    (
        "grads(lambda a, s: a.scatter_reduce(0, lib.tensor([[0, 1, 1]]), s, 'max'), [[1.0, 2.0, "
        "3.0], [4.0, 5.0, 6.0]], [[1.0, 2.0, 3.0]])"
    ): (
        "RuntimeError: Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but "
        "got max."
    ),
    (
        "(lambda a, s: [t.grad_fn.name() for t in lib.autograd.grad(a.scatter_reduce(0, "
        "lib.tensor([[0, 0]]), s, 'prod').sum(), s, create_graph=True)])(lib.ones(1, 2, "
        "requires_grad=True), lib.zeros(1, 2, requires_grad=True))"
    ): "['WhereBackward0']",
    (
        "(lambda a, s: lib.autograd.grad(lib.autograd.grad(a.scatter_reduce(0, lib.tensor([[0, 0], "
        "[0, 0]]), s, 'prod').sum(), s, create_graph=True)[0].sum(), s))(lib.ones(1, 2, "
        "requires_grad=True), lib.zeros(2, 2, requires_grad=True))"
    ): (
        "RuntimeError: scatter_reduce(): Double backward is unsupported for src when >1 zeros in "
        "src are scattered to the same position in self"
    ),
    (
        "(lambda a, s: [type(n).__name__ for n, _ in a.scatter_reduce(0, lib.tensor([[0, 0]]), s, "
        "'sum').grad_fn.next_functions if n is not None])(lib.ones(1, 2, requires_grad=True), "
        "lib.zeros(1, 2, requires_grad=True))"
    ): "['AccumulateGrad', 'AccumulateGrad']",
    "x.index_reduce(0, lib.tensor([0, 2, 0]), x - 5, 'prod')": (
        "([[-0.0, -16.0, -30.0, -36.0], [4.0, 5.0, 6.0, 7.0], [-8.0, 0.0, 10.0, 22.0]], 'float32', "
        "(4, 1))"
    ),
    "x.index_reduce(1, lib.tensor([3, 3]), x[:, :2] * 2, 'mean', include_self=False)": (
        "([[0.0, 1.0, 2.0, 1.0], [4.0, 5.0, 6.0, 9.0], [8.0, 9.0, 10.0, 17.0]], 'float32', (4, 1))"
    ),
    "x.index_reduce(-1, lib.tensor([1]), x[:, :1] + 100, 'amax')": (
        "([[0.0, 100.0, 2.0, 3.0], [4.0, 104.0, 6.0, 7.0], [8.0, 108.0, 10.0, 11.0]], 'float32', "
        "(4, 1))"
    ),
    "x.index_reduce(0, lib.tensor([1, 1]), x[:2] - 100, 'amin', include_self=False)": (
        "([[0.0, 1.0, 2.0, 3.0], [-100.0, -99.0, -98.0, -97.0], [8.0, 9.0, 10.0, 11.0]], "
        "'float32', (4, 1))"
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 0]), x, 'sum')": (
        "RuntimeError: index_reduce(): Expected reduce to be one of prod, mean, amax or amin but "
        "got sum."
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 0]), x, 'foo')": (
        "RuntimeError: index_reduce(): Expected reduce to be one of prod, mean, amax or amin but "
        "got foo."
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 0]).int(), x, 'prod')": (
        "([[0.0, 9.0, 40.0, 99.0], [4.0, 5.0, 6.0, 7.0], [32.0, 45.0, 60.0, 77.0]], 'float32', (4, "
        "1))"
    ),
    "x.index_reduce(0, lib.tensor([0.0, 2.0, 0.0]), x, 'prod')": (
        "RuntimeError: index_reduce_(): Expected dtype int32/int64 for index but got: Float"
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 0]), x.double(), 'prod')": (
        "RuntimeError: index_reduce_(): self (Float) and source (Double) must have the same scalar "
        "type"
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 5]), x, 'prod')": "IndexError: index out of range in self",
    "x.index_reduce(0, lib.tensor([0, 2, -1]), x, 'prod')": (
        "IndexError: index out of range in self"
    ),
    "x.index_reduce(0, lib.tensor([0, 2]), x, 'prod')": (
        "RuntimeError: index_reduce_(): Number of indices (2) should be equal to source.size(dim): "
        "(3), for dim: 0"
    ),
    "x.index_reduce(0, lib.tensor([[0], [2], [1]]), x, 'prod')": (
        "IndexError: index_reduce_(): Index is supposed to be a vector, but got dim: 2 with type: "
        "Long and size: [3, 1]"
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 1]), lib.ones(3, 5), 'prod')": (
        "RuntimeError: source tensor shape must match self tensor shape, excluding the specified "
        "dimension. Got self.shape = [3, 4] source.shape = [3, 5]"
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 1]), lib.ones(3, 4, 1), 'prod')": (
        "RuntimeError: source tensor shape must match self tensor shape, excluding the specified "
        "dimension. Got self.shape = [3, 4] source.shape = [3, 4, 1]"
    ),
    "x.index_reduce(2, lib.tensor([0, 2, 1]), x, 'prod')": (
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    ),
    "x.long().index_reduce(0, lib.tensor([0, 2, 0]), lib.ones(3, 4).long() * -7, 'mean')": (
        "([[-5, -5, -4, -4], [4, 5, 6, 7], [0, 1, 1, 2]], 'int64', (4, 1))"
    ),
    "x.bool().index_reduce(0, lib.tensor([0, 2, 0]), lib.ones(3, 4).bool(), 'mean')": (
        "NotImplementedError: \"div_floor_cpu\" not implemented for 'Bool'"
    ),
    "x.bool().index_reduce(0, lib.tensor([0, 2, 0]), x.bool(), 'amin')": (
        "([[False, True, True, True], [True, True, True, True], [True, True, True, True]], 'bool', "
        "(4, 1))"
    ),
    "x.index_reduce(0, lib.tensor([0, 2, 0]), x, 3)": (
        "TypeError: index_reduce(): argument 'reduce' (position 4) must be str, not int"
    ),
    "lib.index_reduce(x, 0, lib.tensor([0, 2, 0]), x, 'amax', out=lib.zeros(3, 4))": (
        "([[8.0, 9.0, 10.0, 11.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    "lib.index_reduce(lib.tensor(2.0), 0, lib.tensor([0]), lib.tensor([3.0]), 'prod')": (
        "RuntimeError: source tensor shape must match self tensor shape, excluding the specified "
        "dimension. Got self.shape = [] source.shape = [1]"
    ),
    "lib.index_reduce(lib.tensor(2.0), 0, lib.tensor(0), lib.tensor(3.0), 'prod')": (
        "(6.0, 'float32', ())"
    ),
    "lib.index_reduce(lib.ones(3), 0, lib.tensor(0), lib.tensor(3.0), 'prod')": (
        "RuntimeError: source tensor shape must match self tensor shape, excluding the specified "
        "dimension. Got self.shape = [3] source.shape = []"
    ),
    "x.clone().index_reduce_(0, lib.tensor([0, 2, 0]), x * 3, 'prod')": (
        "([[0.0, 81.0, 360.0, 891.0], [4.0, 5.0, 6.0, 7.0], [96.0, 135.0, 180.0, 231.0]], "
        "'float32', (4, 1))"
    ),
    (
        "grads(lambda a, s: a.index_reduce(0, lib.tensor([0, 0]), s, 'amax'), [[1.0, 5.0, 3.0], "
        "[3.0, 2.0, 1.0]], [[1.0, 5.0, 3.0], [1.0, 2.0, 4.0]])"
    ): "[[0.333333, 1.0, 0.0, 4.0, 5.0, 6.0], [0.333333, 1.0, 0.0, 0.333333, 0.0, 3.0]]",
    (
        "grads(lambda a, s: a.index_reduce(0, lib.tensor([0, 0]), s, 'prod', include_self=False), "
        "[[1.0, 5.0, 3.0], [3.0, 2.0, 1.0]], [[0.0, 5.0, 0.0], [1.0, 2.0, 0.0]])"
    ): "[[0.0, 0.0, 0.0, 4.0, 5.0, 6.0], [1.0, 4.0, 0.0, 0.0, 10.0, 0.0]]",
    (
        "grads(lambda a, s: a.index_reduce(1, lib.tensor([1, 1]), s, 'mean'), [[1.0, 5.0, 3.0], "
        "[3.0, 2.0, 1.0]], [[0.0, 5.0], [1.0, 2.0]])"
    ): "[[1.0, 0.666667, 3.0, 4.0, 1.666667, 6.0], [0.666667, 0.666667, 1.666667, 1.666667]]",
    (
        "(lambda a, s: lib.autograd.grad(lib.autograd.grad(a.index_reduce(0, lib.tensor([0, 0]), "
        "s, 'prod').sum(), s, create_graph=True)[0].sum(), s))(lib.ones(1, 2, requires_grad=True), "
        "lib.zeros(2, 2, requires_grad=True))"
    ): (
        "RuntimeError: index_reduce(): Double backward is unsupported for source when >1 zeros in "
        "source are scattered to the same position in self"
    ),
    "x.put(lib.tensor([0, 5]), lib.tensor([-1.0, -2.0]))": (
        "([[-1.0, 1.0, 2.0, 3.0], [4.0, -2.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, "
        "1))"
    ),
    (
        "x.put(lib.tensor([[0, 5], [-1, 5]]), lib.tensor([-1.0, -2.0, -3.0, -4.0]), "
        "accumulate=True)"
    ): "([[-1.0, 1.0, 2.0, 3.0], [4.0, -1.0, 6.0, 7.0], [8.0, 9.0, 10.0, 8.0]], 'float32', (4, 1))",
    "x.put(lib.tensor([0, 5]), lib.tensor([1.0, 2.0, 3.0]))": (
        "IndexError: put_(): Expected source and index to have the same number of elements, but "
        "got source.numel() = 3, index.numel() = 2"
    ),
    "x.put(lib.tensor([0, 12]), lib.tensor([1.0, 2.0]))": (
        "IndexError: out of range: tried to access index 12 on a tensor of 12 elements."
    ),
    "x.put(lib.tensor([0, -13]), lib.tensor([1.0, 2.0]))": (
        "IndexError: out of range: tried to access index -13 on a tensor of 12 elements."
    ),
    "x.put(lib.tensor([0, 1]).int(), lib.tensor([1.0, 2.0]))": (
        "RuntimeError: put_(): Expected a long tensor for index, but got Int"
    ),
    "x.put(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))": (
        "RuntimeError: put_(): Expected a long tensor for index, but got Float"
    ),
    "x.put(lib.tensor([0, 1]), lib.tensor([1.0, 2.0]).double())": (
        "RuntimeError: put_(): self and source expected to have the same dtype, but got self.dtype "
        "= Float and source.dtype = Double"
    ),
    "x.put(lib.tensor([0, 1]), 1.0)": (
        "TypeError: put(): argument 'source' (position 2) must be Tensor, not float"
    ),
    "x.t().put(lib.tensor([0, 1]), lib.tensor([-5.0, -6.0]))": (
        "([[-5.0, -6.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]], 'float32', (1, "
        "4))"
    ),
    "x.t().put(lib.tensor([0, 1]), lib.tensor([-5.0, -6.0])).stride()": "(1, 4)",
    "lib.put(lib.tensor(1.0), lib.tensor([0, 0]), lib.tensor([2.0, 3.0]), True)": (
        "(6.0, 'float32', ())"
    ),
    "lib.put(lib.zeros(0), lib.tensor([0]), lib.tensor([1.0]))": (
        "IndexError: put_(): Tried to put elements into an empty tensor"
    ),
    "lib.put(lib.zeros(0), lib.tensor([], dtype=lib.long), lib.tensor([]))": (
        "([], 'float32', (1,))"
    ),
    "x.clone().put_(lib.tensor([0, 1, 1]), lib.tensor([1.0, 2.0, 3.0]), accumulate=True)": (
        "([[1.0, 6.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    (
        "grads(lambda a, s: a.put(lib.tensor([0, 2, 0]), s, accumulate=True), [1.0, 2.0, 3.0], "
        "[4.0, 5.0, 6.0])"
    ): "[[1.0, 2.0, 3.0], [1.0, 3.0, 1.0]]",
    (
        "grads(lambda a, s: a.put(lib.tensor([[2], [-1]]), s), [1.0, 2.0, 3.0, 4.0], [[4.0], "
        "[6.0]])"
    ): "[[1.0, 2.0, 0.0, 0.0], [3.0, 4.0]]",
    (
        "(lambda a, w: lib.autograd.grad((a.take(lib.tensor([0, 0])) * w).sum(), a, "
        "create_graph=True)[0].grad_fn.name())(lib.ones(3, requires_grad=True), lib.ones(2, "
        "requires_grad=True))"
    ): "'PutBackward0'",
    "lib.index_put_(x.clone(), (lib.tensor([0, 2]),), lib.tensor(-1.0))": (
        "([[-1.0, -1.0, -1.0, -1.0], [4.0, 5.0, 6.0, 7.0], [-1.0, -1.0, -1.0, -1.0]], 'float32', "
        "(4, 1))"
    ),
    "lib.index_put_(x.clone(), [lib.tensor([0, 0])], lib.tensor(1.0), accumulate=True)": (
        "([[2.0, 3.0, 4.0, 5.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
    "x.clone().index_put_((lib.tensor([1]), lib.tensor([2])), lib.tensor([-3.0]), True)": (
        "([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 3.0, 7.0], [8.0, 9.0, 10.0, 11.0]], 'float32', (4, 1))"
    ),
}


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_recorded(expression: str) -> None:
    assert outcome(chainrule, expression) == RECORDED[expression]


@pytest.mark.parametrize("expression", list(RECORDED))
def test_as_pytorch(torch: ModuleType, expression: str) -> None:
    assert outcome(chainrule, expression) == outcome(torch, expression)


def test_index_reduce_says_once_that_it_is_in_beta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reduce_into, "_warned", False)
    x = chainrule.ones(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x.index_reduce(0, chainrule.tensor([0]), x[:1], "prod")
        x.index_reduce(0, chainrule.tensor([0]), x[:1], "prod")
    messages = [str(w.message) for w in caught]
    assert messages == ["index_reduce() is in beta and the API may change at any time."]
    assert caught[0].filename == __file__


def test_refused_reduction_warns_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reduce_into, "_warned", False)
    x = chainrule.ones(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError):
            x.index_reduce(0, chainrule.tensor([0]), x[:1], "sum")
    assert caught == []


# --- drawn inputs -----------------------------------------------------------------------------

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


@st.composite
def scatter_cases(draw: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, str, bool]:
    """A (rows, cols) input, an index into it along `dim` and src; small integers as
    floats, so ties and zeros are frequent."""
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dim = draw(st.integers(0, 1))
    size = (rows, cols)[dim]
    irows, icols = draw(st.integers(1, 3)), draw(st.integers(1, cols if dim == 0 else 3))
    if dim == 1:
        irows = draw(st.integers(1, rows))
    index = np.array(
        draw(st.lists(st.integers(0, size - 1), min_size=irows * icols, max_size=irows * icols))
    ).reshape(irows, icols)
    values = st.integers(-2, 2).map(float)
    x = np.array(draw(st.lists(values, min_size=rows * cols, max_size=rows * cols)))
    src = np.array(draw(st.lists(values, min_size=irows * icols, max_size=irows * icols)))
    return (
        x.reshape(rows, cols),
        index,
        src.reshape(irows, icols),
        dim,
        draw(st.sampled_from(REDUCTIONS)),
        draw(st.booleans()),
    )


def _scatter_reduce_run(lib: ModuleType, case: Any) -> list[Any]:
    x, index, src, dim, reduce, include = case
    a = lib.tensor(x, requires_grad=True)
    s = lib.tensor(src, requires_grad=True)
    out = a.scatter_reduce(dim, lib.tensor(index), s, reduce, include_self=include)
    weights = lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(out.shape)
    ga, gs = lib.autograd.grad((out * weights).sum(), (a, s))
    return [out.detach().numpy(), ga.numpy(), gs.numpy()]


@given(scatter_cases())
def test_scatter_reduce_matches_pytorch(torch: ModuleType, case: Any) -> None:
    for ours, theirs in zip(
        _scatter_reduce_run(chainrule, case), _scatter_reduce_run(torch, case), strict=True
    ):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def _reference(
    x: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int, reduce: str, include: bool
) -> np.ndarray:
    """scatter_reduce one element at a time."""
    groups: dict[tuple[int, int], list[float]] = {}
    for (i, j), k in np.ndenumerate(index):
        place = (k, j) if dim == 0 else (i, k)
        groups.setdefault(place, []).append(src[i, j])
    reducer = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}
    out = x.copy()
    for place, values in groups.items():
        out[place] = reducer[reduce](([x[place]] if include else []) + values)
    return out


@given(scatter_cases())
def test_scatter_reduce_values_one_at_a_time(case: Any) -> None:
    x, index, src, dim, reduce, include = case
    out = chainrule.tensor(x).scatter_reduce(
        dim, chainrule.tensor(index), chainrule.tensor(src), reduce, include_self=include
    )
    np.testing.assert_allclose(out.numpy(), _reference(*case), rtol=1e-12)


@given(scatter_cases())
def test_amax_gradient_is_shared_evenly_among_ties(case: Any) -> None:
    x, index, src, dim, _, _ = case
    a = chainrule.tensor(x, requires_grad=True)
    s = chainrule.tensor(src, requires_grad=True)
    out = a.scatter_reduce(dim, chainrule.tensor(index), s, "amax")
    ga, gs = chainrule.autograd.grad(out.sum(), (a, s))
    # each place's gradient of 1 goes, in equal parts, to the values equal to its result
    # (with include_self=False PyTorch still counts the input's own among them, and then
    # drops its part: the total is less)
    total = ga.sum() + gs.sum()
    assert abs(float(total) - out.numel()) < 1e-9
