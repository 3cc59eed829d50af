"""The smallest cut: the fewest import statements whose deferral leaves no eager chain from
an `eager_imports` contract's source modules to a forbidden module (or to an import its
allowlist excuses)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..report import SmallestCutData


# PLACEHOLDER until h32fix's deferral/uses.py defines it: where an import's bound name is
# used while its module is imported (which rules out `lazy`).
class ImportTimeUse(NamedTuple):
    """A use, while its module is imported, of a name an import statement binds."""

    path: str
    line: int
    name: str
    how: str  # how it is used: "called", "read", ...


def import_time_use(module: str, path: Path, line: int) -> ImportTimeUse | None:
    """Return where a name the import statement on `line` of `module` (its file `path`)
    binds is used while the module is imported, or None where it is not.

    PLACEHOLDER: always None, until deferral/uses.py (h32fix) answers it."""
    return None


class Statement(NamedTuple):
    """An import statement: its module (the file it stands in) and line."""

    module: str
    line: int


class EagerStep(NamedTuple):
    """One step of the eager graph the walks followed: importing `runs_from` runs
    `statements` (in their modules; a function that `runs_from` calls at import time may
    stand in another), which import `imported`. No statements: `imported` is a parent
    package, which Python runs first, and no deferral cuts it. Any one of the statements
    runs the step: deferring it takes all of them."""

    runs_from: str
    imported: str
    statements: tuple[Statement, ...]


class ChainEnd(NamedTuple):
    """Where a chain ends: a finding's last import, `importer -> imported` (its key in the
    report), run by `step` (whose `imported` is the finding's)."""

    importer: str
    imported: str
    step: EagerStep


@dataclass(frozen=True)
class DeferredImport:
    """An import statement of a cut: deferring it (not running it while `importer` is
    imported) cuts every chain of `cuts`."""

    importer: str  # the module whose file holds the statement
    path: str  # that file, as reports show it
    line: int
    imported: tuple[str, ...]  # the modules of the eager graph it imports, sorted
    why: str  # why it runs at import time (as the chains say)
    cuts: tuple[tuple[str, str], ...]  # the findings (importer, imported) whose chain it is on
    import_time_use: ImportTimeUse | None  # where a name it binds is used at import time


@dataclass(frozen=True)
class SmallestCut:
    """The fewest import statements whose deferral leaves no eager chain to an end; among
    those, the fewest whose names are used at import time. `exact` says whether no smaller
    cut exists; `not_exact` says why that is not known (None when exact)."""

    statements: tuple[DeferredImport, ...]
    exact: bool
    not_exact: str | None

    def as_data(self) -> SmallestCutData:
        """Return the cut as the report holds it."""
        raise NotImplementedError  # (the interface first: the body follows)


def smallest_cut(
    sources: Sequence[str],
    steps: Sequence[EagerStep],
    ends: Sequence[ChainEnd],
    chains: dict[tuple[str, str], Sequence[Statement]],
    *,
    unseen_beyond: Sequence[tuple[str, str]] = (),
    use_at_import_time: Callable[[Statement], ImportTimeUse | None],
) -> SmallestCut:
    """Return the smallest cut between `sources` and `ends` in the eager graph of `steps`.

    `chains`: by finding, the statements on its chain as the report shows it (which say the
    chains a statement cuts). `unseen_beyond`: the findings whose last import the walks did
    not follow (an allowlist entry excused it, and what it imports is not forbidden), so a
    cut beyond them is not seen: the cut is then not known to be the smallest.
    `use_at_import_time` says whether a statement's names are used at import time.
    """
    raise NotImplementedError  # (the interface first: the body follows)
