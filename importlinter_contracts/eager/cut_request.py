"""Whether a report asks for the smallest cut of a kept contract (`smallest_cut.py` finds it):
a module of its own, so that a run whose walks are all kept asks without loading the search."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

TYPE_CHECKING = False  # (not typing's: the contract types are imported on every run)
if TYPE_CHECKING:
    from collections.abc import Iterator

# Whether the smallest cut of a kept contract is asked for (`asked_for`): only a report's
# data shows it (a text report shows a broken contract's alone), and finding it reads the
# file of each statement it may take.
_asked: ContextVar[bool] = ContextVar("smallest_cut_asked", default=False)


@contextmanager
def asked_for(asked: bool = True) -> Iterator[None]:
    """Within the block, find the smallest cut of kept contracts too (with `asked`)."""
    token = _asked.set(asked)
    try:
        yield
    finally:
        _asked.reset(token)


def is_asked_for() -> bool:
    """Return whether the smallest cut of a kept contract is asked for (`asked_for`)."""
    return _asked.get()
