"""Op table lines for the in-place view ops (`x.t_()`, `x.squeeze_()`, ...: each records
PyTorch's `...Backward1` node on a copy of the input) and the conjugate transposes of a
real tensor (`torch.adjoint`, `x.H`, `x.mH`). Their views, versions and errors are in
tests/test_inplace_views.py."""

from __future__ import annotations

import numpy as np

from op_table import Op, lib

# fmt: off
OPS: tuple[Op, ...] = (
    Op("Tensor_t_", lambda x: (x * 1).t_(), lambda x: x.T, (((2, 3),), ((4,),), ((),))),
    Op("Tensor_transpose_", lambda x: (x * 1).transpose_(0, -1),
       lambda x: np.swapaxes(x, 0, -1), (((2, 3, 4),), ((3, 2),))),
    Op("Tensor_swapaxes_", lambda x: (x * 1).swapaxes_(1, 0), lambda x: np.swapaxes(x, 1, 0),
       (((2, 3),),)),
    Op("Tensor_swapdims_", lambda x: (x * 1).swapdims_(2, 1), lambda x: np.swapaxes(x, 2, 1),
       (((2, 3, 4),),)),
    Op("Tensor_unsqueeze_", lambda x: (x * 1).unsqueeze_(1), lambda x: np.expand_dims(x, 1),
       (((2, 3),), ((4,),))),
    Op("Tensor_squeeze_", lambda x: (x * 1).squeeze_(), np.squeeze, (((2, 1, 3, 1),), ((1,),))),
    Op("Tensor_squeeze_dim", lambda x: (x * 1).squeeze_(-1), lambda x: np.squeeze(x, -1),
       (((2, 1, 3, 1),),)),
    Op("Tensor_squeeze_dims", lambda x: (x * 1).squeeze_((1, 2)), lambda x: np.squeeze(x, 1),
       (((2, 1, 3, 1),),)),
    Op("adjoint", lambda x: lib(x).adjoint(x), lambda x: np.swapaxes(x, -1, -2),
       (((2, 3),), ((2, 3, 4),))),
)
# fmt: on
