"""`chainrule.nn.functional`: activations, attention, losses, convolutions, pooling, normalisation."""

from ._activation import *  # noqa: F403
from ._attention import *  # noqa: F403
from ._attention import _canonical_mask, _none_or_dtype
from ._conv import *  # noqa: F403
from ._distance import *  # noqa: F403
from ._dropout import *  # noqa: F403
from ._embedding import *  # noqa: F403
from ._linear import *  # noqa: F403
from ._loss import *  # noqa: F403
from ._multi_head_attention import *  # noqa: F403
from ._multi_head_attention import _in_projection, _in_projection_packed, _mha_shape_check
from ._norm import *  # noqa: F403
from ._pool import *  # noqa: F403
from ._sampling import *  # noqa: F403
