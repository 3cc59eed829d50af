"""`importlinter-contracts fix`: the edit that makes each import of the `eager_imports`
contracts' smallest cuts lazy, as a unified diff of the source files, written on demand.

The imports are those of each selected contract's `smallest_cut` (`cut.py`), broken or with
imports its allowlist excuses; each is made lazy in the form asked for (`edit.py`), or
refused with why. Written, each file is replaced atomically, after it reads back as it must
(`edit.check_edited`), and the contracts are checked again.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import NamedTuple

from importlinter import Contract

from ..eager.contract import EagerImportContract
from ..eager.target import Target, target_python
from ..errors import FileWriteError, UsageError
from ..files import write_atomically
from ..report import SkippedContract, contract_key
from ..running import RunResult, run_contracts
from .edit import FORMS, KEYWORD, LAZY_MODULES, FileEdit, Refusal, lazy_edits, source_lines

NOT_EAGER = "is not an eager_imports contract, which fix reads the cut of"


class FixPlan(NamedTuple):
    """What `fix` found: the form of the edit, the edits, their unified diff, the imports
    refused, the target Python, the contracts left out, and the broken contracts that have
    no cut (a stale allowlist entry, a chain through parent packages alone)."""

    form: str
    edits: list[FileEdit]
    diff: str
    refused: list[Refusal]
    target: Target
    skipped: list[SkippedContract]
    uncut: list[str]


def _eager_only(contract_class: type[Contract]) -> str | None:
    return None if issubclass(contract_class, EagerImportContract) else NOT_EAGER


def check_eager(config: str | None, contracts: tuple[str, ...], cache: Path | None) -> RunResult:
    """Return the result of checking the selected `eager_imports` contracts."""
    return run_contracts(config, contracts, cache, select=_eager_only)


def plan(result: RunResult, form: str | None) -> FixPlan:
    """Return the edits that make the imports of each checked contract's smallest cut lazy
    in `form` (None: the soft keyword where the target Python has it, else
    `__lazy_modules__`), with their diff and the imports refused.

    Raises UsageError for the soft keyword on a target older than Python 3.15.
    """
    target = target_python()
    chosen = form or (KEYWORD if target.lazy else LAZY_MODULES)
    assert chosen in FORMS
    if chosen == KEYWORD and not target.lazy:
        raise UsageError(
            f"--form {KEYWORD}: `lazy import` is a syntax error before Python 3.15, and "
            f"python_version is {target.shown}; use --form {LAZY_MODULES} (which older "
            "Pythons ignore), or set python_version."
        )
    statements: list[tuple[str, int]] = []
    refused: list[Refusal] = []
    for contract in result.contracts:
        for deferred in contract.get("smallest_cut", {}).get("statements", []):
            location = deferred["location"]
            if location is None:
                refused.append(
                    Refusal(deferred["importer"], deferred["line"], "its file is not known")
                )
            elif not Path(location["path"]).is_file():
                refused.append(
                    Refusal(
                        location["path"],
                        deferred["line"],
                        "the file is not found from the working directory",
                    )
                )
            else:
                statements.append((location["path"], deferred["line"]))
    edits, more = lazy_edits(statements, chosen)
    diff = "".join(_diff(edit) for edit in edits)
    uncut = [
        contract_key(contract)
        for contract in result.contracts
        if not contract["kept"] and "smallest_cut" not in contract
    ]
    return FixPlan(chosen, edits, diff, refused + more, target, result.skipped, uncut)


def _diff(edit: FileEdit) -> str:
    shown = edit.path
    relative = not Path(shown).is_absolute()
    return "".join(
        difflib.unified_diff(
            source_lines(edit.original),
            source_lines(edit.edited),
            fromfile=f"a/{shown}" if relative else shown,
            tofile=f"b/{shown}" if relative else shown,
        )
    )


def write(edits: list[FileEdit]) -> None:
    """Replace each edited file, atomically (each has read back as it must).

    Raises FileWriteError, leaving that file as it was, when one cannot be written or has
    changed since it was read.
    """
    for edit in edits:
        path = Path(edit.path)
        try:
            now = path.read_bytes()
        except OSError as error:
            raise FileWriteError(
                f"cannot read {path} again ({error.strerror}); nothing more was written.",
                error.strerror,
            ) from None
        if now != edit.original.encode("utf-8"):
            raise FileWriteError(
                f"{path} changed since fix read it; it was not written (run fix again).", None
            )
        write_atomically(path, edit.edited.encode("utf-8"))
