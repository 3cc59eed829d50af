"""Imports that no file in the working directory can replace.

lint-imports puts the working directory first on sys.path and then imports this package, so a
module there named like one we import (a `contextvars.py` in the analysed repository, say)
would run in place of the real one. Our modules import what they need with the working
directory off sys.path. This module imports only `os` and `sys`, which the interpreter has
loaded before any code of ours runs (hence also no `from __future__ import` here).
"""

import os
import sys


class working_directory_off_sys_path:
    """Within it, sys.path holds no entry that names the working directory ('' and '.'
    included); on leaving, sys.path is as it was."""

    def __enter__(self) -> None:
        self._saved = sys.path[:]
        try:
            here = os.path.realpath(os.getcwd())
        except OSError:  # no working directory: nothing can be found there either
            return
        sys.path[:] = [
            entry
            for entry in sys.path
            if not (isinstance(entry, str) and os.path.realpath(entry or os.curdir) == here)
        ]

    def __exit__(self, *exc_info: object) -> None:
        sys.path[:] = self._saved
