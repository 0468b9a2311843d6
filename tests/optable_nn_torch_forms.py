"""Op table lines for the `torch.*` forms of nn.functional ops whose signature differs from
`F`'s (torch.celu, torch.layer_norm, torch.max_pool2d, ...; chainrule's
nn/functional/_torch_forms.py), and for the methods `Tensor.hardshrink` and `Tensor.prelu`.

The forms PyTorch binds once (`torch.conv1d is F.conv1d`) are the same function in
chainrule, so their `F_*` lines cover them.
"""

from __future__ import annotations

import numpy as np

from op_table import NONZERO, UNARY, Domain, Op, lib
from optable_nn_activation import HALF_KINKS, SELU, U23, channels, elu
from optable_nn_conv import (
    ONE_D_AS_2D,
    RMS_NORM_LAYOUT,
    TIE_NOTE,
    group_norm_ref,
    max_pool_ref,
    normalize_ref,
)
from optable_nn_pool3d import pool_ref

# fmt: off
OPS: tuple[Op, ...] = (
    Op("torch_celu", lambda x: lib(x).celu(x, 0.7), lambda x: elu(x, 0.7, 1.0, 1 / 0.7), UNARY,
       NONZERO),
    Op("torch_celu_", lambda x: lib(x).celu_(x * 1, 0.7), lambda x: elu(x, 0.7, 1.0, 1 / 0.7),
       U23, NONZERO),
    Op("torch_selu", lambda x: lib(x).selu(x), lambda x: elu(x, *SELU), UNARY, NONZERO),
    Op("torch_selu_", lambda x: lib(x).selu_(x * 1), lambda x: elu(x, *SELU), U23, NONZERO),
    Op("torch_threshold", lambda x: lib(x).threshold(x, 0.1, 20.0),
       lambda x: np.where(x > 0.1, x, 20), UNARY, Domain(avoid=(0.1,))),
    Op("torch_threshold_", lambda x: lib(x).threshold_(x * 1, 0.1, -1.0),
       lambda x: np.where(x > 0.1, x, -1.0), U23, Domain(avoid=(0.1,))),
    Op("torch_rrelu_eval", lambda x: lib(x).rrelu(x, 0.1, 0.3),
       lambda x: np.where(x > 0, x, 0.2 * x), UNARY, NONZERO),
    Op("torch_hardshrink", lambda x: lib(x).hardshrink(x, 0.5),
       lambda x: np.where(np.abs(x) > 0.5, x, 0), UNARY, HALF_KINKS),
    Op("Tensor_hardshrink", lambda x: x.hardshrink(), lambda x: np.where(np.abs(x) > 0.5, x, 0),
       U23, HALF_KINKS),
    Op("Tensor_prelu", lambda x, w: x.prelu(w), lambda x, w: np.where(x > 0, x, x * channels(w, x)),
       (((2, 3, 4), (3,)), ((4,), (1,))), (NONZERO, Domain())),
    Op("torch_layer_norm", lambda x, w, b: lib(x).layer_norm(x, [2, 3], w, b, 1e-5, False),
       lambda x, w, b: normalize_ref(x, (-2, -1)) * w + b, (((3, 2, 3), (2, 3), (2, 3)),)),
    Op("torch_group_norm", lambda x, w, b: lib(x).group_norm(x, 2, w, b, 1e-5, False),
       lambda x, w, b: group_norm_ref(x, 2, w, b), (((2, 4, 3), (4,), (4,)),)),
    Op("torch_rms_norm", lambda x: lib(x).rms_norm(x, [4], eps=1e-3),
       lambda x: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-3), (((3, 4),),),
       layout_differs=RMS_NORM_LAYOUT),
    Op("torch_max_pool1d", lambda x: lib(x).max_pool1d(x, 3, (), 1, 1, True),
       lambda x: max_pool_ref(x[..., None, :], (1, 3), (1, 3), (0, 1), ceil=True)[..., 0, :],
       (((2, 3, 8),), ((2, 6),)), note=TIE_NOTE, layout_differs=ONE_D_AS_2D),
    Op("torch_max_pool2d", lambda x: lib(x).max_pool2d(x, 2, [1, 2]),
       lambda x: max_pool_ref(x, (2, 2), (1, 2)), (((2, 2, 4, 5),), ((3, 4, 4),)),
       note=TIE_NOTE),
    Op("torch_max_pool3d", lambda x: lib(x).max_pool3d(x, 2, (), 1),
       lambda x: pool_ref(x, (2,) * 3, (2,) * 3, (1,) * 3, (1,) * 3, False, "max"),
       (((1, 2, 3, 4, 3),),), note=TIE_NOTE),
)
# fmt: on
