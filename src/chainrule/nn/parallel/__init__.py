"""Running a module on several devices: `DataParallel`, which on a machine without
accelerators (the only kind chainrule runs on) calls its module directly."""

from .data_parallel import DataParallel

__all__ = ["DataParallel"]
