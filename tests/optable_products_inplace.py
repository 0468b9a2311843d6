"""Op table lines for addr and the in-place add-products (`c.addmm_(a, b)`, ..., each on a
copy of `c`, recording the out-of-place op's node). Shapes, dtypes and errors are in
tests/test_products_inplace.py."""

from __future__ import annotations

import numpy as np

from op_table import Op, lib

# fmt: off
OPS: tuple[Op, ...] = (
    Op("addr", lambda c, a, b: lib(a).addr(c, a, b), lambda c, a, b: c + np.outer(a, b),
       (((3, 4), (3,), (4,)), ((4,), (3,), (4,)), ((), (2,), (3,)))),
    Op("addr_scaled", lambda c, a, b: c.addr(a, b, beta=0.5, alpha=-2),
       lambda c, a, b: 0.5 * c + -2 * np.outer(a, b), (((3, 4), (3,), (4,)),)),
    Op("addr_beta0", lambda c, a, b: lib(a).addr(c, a, b, beta=0, alpha=3),
       lambda c, a, b: 3 * np.outer(a, b), (((3, 1), (3,), (2,)),)),
    Op("addr_", lambda c, a, b: (c * 1).addr_(a, b, alpha=2),
       lambda c, a, b: c + 2 * np.outer(a, b), (((3, 4), (3,), (4,)),)),
    Op("addmm_", lambda c, a, b: (c * 1).addmm_(a, b, beta=0.5, alpha=-2),
       lambda c, a, b: 0.5 * c - 2 * a @ b, (((2, 4), (2, 3), (3, 4)),)),
    Op("addmv_", lambda c, a, b: (c * 1).addmv_(a, b, beta=2), lambda c, a, b: 2 * c + a @ b,
       (((2,), (2, 3), (3,)),)),
    Op("torch_addmv_", lambda c, a, b: lib(a).addmv_(c * 1, a, b, alpha=0.5),
       lambda c, a, b: c + 0.5 * a @ b, (((2,), (2, 3), (3,)),)),
    Op("baddbmm_", lambda c, a, b: (c * 1).baddbmm_(a, b, alpha=1.5),
       lambda c, a, b: c + 1.5 * a @ b, (((2, 2, 4), (2, 2, 3), (2, 3, 4)),)),
    Op("addbmm_", lambda c, a, b: (c * 1).addbmm_(a, b, beta=-1),
       lambda c, a, b: -c + (a @ b).sum(0), (((2, 4), (3, 2, 3), (3, 3, 4)),)),
)
# fmt: on
