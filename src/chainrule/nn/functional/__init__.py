"""`chainrule.nn.functional`: activations, attention, losses, convolutions, pooling,
normalisation."""

from ._activation import *  # noqa: F403
from ._attention import *  # noqa: F403
from ._attention import _canonical_mask as _canonical_mask
from ._attention import _none_or_dtype as _none_or_dtype
from ._conv import *  # noqa: F403
from ._distance import *  # noqa: F403
from ._dropout import *  # noqa: F403
from ._embedding import *  # noqa: F403
from ._linear import *  # noqa: F403
from ._loss import *  # noqa: F403
from ._multi_head_attention import *  # noqa: F403
from ._multi_head_attention import _in_projection as _in_projection
from ._multi_head_attention import _in_projection_packed as _in_projection_packed
from ._multi_head_attention import _mha_shape_check as _mha_shape_check
from ._norm import *  # noqa: F403
from ._pool import *  # noqa: F403
from ._sampling import *  # noqa: F403
