"""Neural-network building blocks: Module, Parameter, the layers, init, utils, functional,
parallel.

`nn.modules` holds the layers, a file per family; this namespace re-exports them all.
"""

from . import functional, init, parallel, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parallel import DataParallel
from .parameter import Buffer, Parameter

__all__ = [
    "Buffer",
    "DataParallel",
    "Parameter",
    "functional",
    "init",
    "parallel",
    "utils",
    *_modules_all,
]
