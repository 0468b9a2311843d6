"""`chainrule.nn.functional`: activations, losses, convolutions, pooling, normalisation."""

from ._activation import *  # noqa: F403

# The families' sub-files, named too so that type checkers see every function.
from ._activation_rrelu import *  # noqa: F403
from ._activation_smooth import *  # noqa: F403
from ._activation_softmax import *  # noqa: F403
from ._channel_shuffle import *  # noqa: F403
from ._conv import *  # noqa: F403
from ._distance import *  # noqa: F403
from ._dropout import *  # noqa: F403
from ._embedding import *  # noqa: F403
from ._linear import *  # noqa: F403
from ._loss import *  # noqa: F403
from ._loss_ctc import *  # noqa: F403
from ._loss_margin import *  # noqa: F403
from ._loss_multi_margin import *  # noqa: F403
from ._loss_nll import *  # noqa: F403
from ._norm import *  # noqa: F403
from ._pool import *  # noqa: F403
from ._pool3d import *  # noqa: F403
from ._pool_lp import *  # noqa: F403
from ._sampling import *  # noqa: F403
from ._unpool import *  # noqa: F403
