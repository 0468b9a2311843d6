"""`chainrule.nn.functional`: activations, losses, convolutions, pooling, normalisation."""

from ._activation import *  # noqa: F403
from ._conv import *  # noqa: F403
from ._distance import *  # noqa: F403
from ._dropout import *  # noqa: F403
from ._embedding import *  # noqa: F403
from ._embedding_bag import *  # noqa: F403
from ._linear import *  # noqa: F403
from ._loss import *  # noqa: F403
from ._norm import *  # noqa: F403
from ._norm_composed import *  # noqa: F403
from ._pool import *  # noqa: F403
from ._sampling import *  # noqa: F403
