"""Neural-network building blocks: Module, Parameter, the layers, init, utils, functional.

`nn.modules` holds the layers, a file per family; this namespace re-exports them all.
"""

from . import functional, init, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "functional", "init", "utils", *_modules_all]
