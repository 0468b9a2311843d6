"""Op table lines for the `torch.*` forms of nn.functional ops whose signature differs from
`F`'s (torch.celu, torch.layer_norm, torch.max_pool2d, ...; chainrule's
nn/functional/_torch_forms.py), and for the methods `Tensor.hardshrink` and `Tensor.prelu`.

The forms PyTorch binds once (`torch.conv1d is F.conv1d`) are the same function in
chainrule, so their `F_*` lines cover them.
"""

from __future__ import annotations

import numpy as np

from op_table import ANY, NONZERO, POSITIVE, UNARY, Domain, Op, lib
from optable_nn_activation import (
    HALF_KINKS,
    IDX,
    PAIR,
    PROB,
    RATE,
    SELU,
    SIGNS4,
    SIGNS43,
    U23,
    W3,
    bce_logits,
    channels,
    cos_embedding,
    elu,
    pdist,
    tensor,
)
from optable_nn_conv import (
    ONE_D_AS_2D,
    RMS_NORM_LAYOUT,
    TIE_NOTE,
    adaptive_ref,
    batch_norm_eval_ref,
    batch_norm_ref,
    group_norm_ref,
    max_pool_ref,
    normalize_ref,
    per_channel,
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
    Op("torch_adaptive_max_pool1d", lambda x: lib(x).adaptive_max_pool1d(x, 3)[0],
       lambda x: adaptive_ref(x, (3,), np.max), (((2, 2, 7),),), note=TIE_NOTE,
       layout_differs=ONE_D_AS_2D),
    Op("torch_batch_norm",
       lambda x, w, b: lib(x).batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
       batch_norm_ref, (((4, 3, 2), (3,), (3,)),)),
    Op("torch_batch_norm_eval",
       lambda x, w, b: lib(x).batch_norm(
           x, w, b, lib(x).tensor([0.5, -1.0], dtype=x.dtype),
           lib(x).tensor([2.0, 0.5], dtype=x.dtype), False, 0.1, 1e-5, True),
       lambda x, w, b: batch_norm_eval_ref(x, [0.5, -1.0], [2.0, 0.5], w, b),
       (((3, 2, 3), (2,), (2,)),)),
    Op("torch_instance_norm",
       lambda x, w, b: lib(x).instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
       lambda x, w, b: normalize_ref(x, (2,)) * per_channel(w, x) + per_channel(b, x),
       (((2, 3, 4), (3,), (3,)),)),
    Op("torch_embedding", lambda w: lib(w).embedding(w, tensor(w, IDX, False)), lambda w: w[IDX],
       (((4, 3),),)),
    Op("torch_embedding_bag",
       lambda w: lib(w).embedding_bag(w, tensor(w, [0, 2, 3, 1], False), tensor(w, [0, 1], False),
                                      False, 1)[0],
       lambda w: np.stack([w[0], w[[2, 3, 1]].mean(0)]), (((4, 3),),)),
    Op("torch_bce_with_logits",
       lambda x, t: lib(x).binary_cross_entropy_with_logits(
           x, t, tensor(x, W3), tensor(x, [2.0, 0.5, 1.5]), 2),
       lambda x, t: bce_logits(x, t, W3, np.array([2.0, 0.5, 1.5]), "sum"), PAIR, (ANY, PROB)),
    Op("torch_kl_div", lambda x, t: lib(x).kl_div(x, t, 1),
       lambda x, t: (t * (np.log(t) - x)).mean(), PAIR, (ANY, POSITIVE)),
    Op("torch_kl_div_log_target", lambda x, t: lib(x).kl_div(x, t, 0, log_target=True),
       lambda x, t: np.exp(t) * (t - x), PAIR),
    Op("torch_margin_ranking_loss",
       lambda a, b: lib(a).margin_ranking_loss(a, b, tensor(a, SIGNS4), 0.5, 2),
       lambda a, b: np.sum(np.maximum(-SIGNS4 * (a - b) + 0.5, 0)), (((4,), (4,)),)),
    Op("torch_triplet_margin_loss",
       lambda a, p, n: lib(a).triplet_margin_loss(a, p, n, 2.0, 1, 1e-6, True, 0),
       lambda a, p, n: np.maximum(2 + pdist(a, p, 1)
                                  - np.minimum(pdist(a, n, 1), pdist(p, n, 1)), 0),
       (((4, 3), (4, 3), (4, 3)),)),
    Op("torch_cosine_embedding_loss",
       lambda a, b: lib(a).cosine_embedding_loss(a, b, tensor(a, SIGNS4), -0.5, 1),
       lambda a, b: cos_embedding(a, b, SIGNS4, -0.5), PAIR),
    Op("torch_hinge_embedding_loss",
       lambda x: lib(x).hinge_embedding_loss(x, tensor(x, SIGNS43), 1.0, 1),
       lambda x: np.mean(np.where(SIGNS43 == 1, x, np.maximum(1 - x, 0))), (((4, 3),),),
       Domain(avoid=(1.0,))),
    Op("torch_poisson_nll_loss", lambda x, t: lib(x).poisson_nll_loss(x, t, True, False, 1e-8, 1),
       lambda x, t: np.mean(np.exp(x) - t * x), PAIR, (ANY, RATE)),
)
# fmt: on
