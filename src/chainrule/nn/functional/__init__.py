"""`chainrule.nn.functional`: activations, attention, losses, convolutions, pooling,
normalisation."""

from ..._ops.keywords import accept_in as _accept_in
from ._activation import *  # noqa: F403
from ._activation_rrelu import *  # noqa: F403
from ._activation_smooth import *  # noqa: F403
from ._activation_softmax import *  # noqa: F403
from ._attention import *  # noqa: F403
from ._attention import _canonical_mask as _canonical_mask
from ._attention import _none_or_dtype as _none_or_dtype
from ._channel_shuffle import *  # noqa: F403
from ._conv import *  # noqa: F403
from ._distance import *  # noqa: F403
from ._dropout import *  # noqa: F403
from ._embedding import *  # noqa: F403
from ._embedding_bag import *  # noqa: F403
from ._fractional_pool import *  # noqa: F403
from ._grid_sample import *  # noqa: F403
from ._linear import *  # noqa: F403
from ._loss import *  # noqa: F403
from ._loss_ctc import *  # noqa: F403
from ._loss_margin import *  # noqa: F403
from ._loss_multi_margin import *  # noqa: F403
from ._loss_nll import *  # noqa: F403
from ._multi_head_attention import *  # noqa: F403
from ._multi_head_attention import _in_projection as _in_projection
from ._multi_head_attention import _in_projection_packed as _in_projection_packed
from ._multi_head_attention import _mha_shape_check as _mha_shape_check
from ._norm import *  # noqa: F403
from ._norm_composed import *  # noqa: F403
from ._pdist import *  # noqa: F403
from ._pool import *  # noqa: F403
from ._pool3d import *  # noqa: F403
from ._pool_lp import *  # noqa: F403
from ._sampling import *  # noqa: F403
from ._torch_forms import TWINS as _TWINS
from ._unpool import *  # noqa: F403

# These are the very functions torch.* binds too (as in PyTorch), so they take the spellings
# PyTorch's parser gives torch.* ops (`axis=`, `keepdims=`, `out=`).
_accept_in(globals(), "torch", _TWINS)
