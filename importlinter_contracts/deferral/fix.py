"""`importlinter-contracts fix`: the edit that makes each import of the `eager_imports`
contracts' smallest cuts lazy, as a unified diff of the source files, written on demand.

The imports are those of each selected contract's `smallest_cut` (`cut.py`), broken or with
imports its allowlist excuses; each is made lazy in the form asked for (`edit.py`), or
refused with why. Written, each file is replaced atomically, after it reads back as it must
(`edit.check_edited`), and the contracts are checked again.
"""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path
from typing import NamedTuple

from importlinter import Contract

from ..eager.contract import EagerImportContract
from ..eager.smallest_cut import CALL_NOT_LAZY
from ..eager.target import RUNNING, Target, target_python
from ..errors import FileWriteError, UsageError
from ..files import write_atomically
from ..report import ContractResult, SkippedContract, contract_key
from ..running import RunResult, run_contracts
from .edit import (
    FORMS,
    IN_FUNCTIONS,
    KEYWORD,
    LAZY_MODULES,
    Checked,
    FileEdit,
    Refusal,
    lazy_edits,
    source_lines,
)

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


def check_form(form: str | None, write: bool) -> None:
    """Refuse to write what the running Python cannot read back, nor lint after.

    Raises UsageError for `--form lazy --write` on a Python older than 3.15.
    """
    if form == KEYWORD and write and not RUNNING.lazy:
        raise UsageError(
            f"--form {KEYWORD} --write: Python {RUNNING.shown}, running here, cannot parse "
            "`lazy import`, so it could neither check the edited files nor lint them after; "
            f"run it on Python 3.15 or later, or use --form {LAZY_MODULES}."
        )


def plan(result: RunResult, form: str | None) -> FixPlan:
    """Return the edits that make the imports of each checked contract's smallest cut lazy
    in `form`, with their diff and the imports refused. None: the soft keyword where both
    the target Python and the running one have it; `__lazy_modules__` where only the target
    has it (which the running Python parses); else each import moved into the functions
    that use it.

    Raises UsageError for the soft keyword on a target older than Python 3.15.
    """
    target = target_python()
    chosen = form or ((KEYWORD if RUNNING.lazy else LAZY_MODULES) if target.lazy else IN_FUNCTIONS)
    assert chosen in FORMS
    if chosen == KEYWORD and not target.lazy:
        raise UsageError(
            f"--form {KEYWORD}: `lazy import` is a syntax error before Python 3.15, and "
            f"python_version is {target.shown}; use --form {IN_FUNCTIONS} (the default there), "
            "or set python_version."
        )
    statements: list[tuple[str, int]] = []
    checked: dict[tuple[str, int], Checked] = {}
    refused: list[Refusal] = []
    for contract in result.contracts:
        for deferred in contract.get("smallest_cut", {}).get("statements", []):
            location = deferred["location"]
            if deferred["call"] is not None:
                # (A call, not an import: what to change, which fix does not edit.)
                where = location["path"] if location else deferred["importer"]
                refused.append(Refusal(where, deferred["line"], CALL_NOT_LAZY))
            elif location is None:
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
                statement = (location["path"], deferred["line"])
                statements.append(statement)
                checked[statement] = Checked(deferred["importer"], tuple(deferred["imported"]))
    edits, more = lazy_edits(statements, chosen, checked)
    diff = "".join(_diff(edit) for edit in edits)
    uncut = [
        contract_key(contract)
        for contract in result.contracts
        if not contract["kept"] and "smallest_cut" not in contract
    ]
    return FixPlan(chosen, edits, diff, refused + more, target, result.skipped, uncut)


def stale_after(contract: ContractResult) -> str:
    """Return what a contract checked again after the edit says of the allowlist entries
    that break it as stale (the edit deferred the imports they excused), or ""."""
    stale = contract.get("unmatched_ignores", [])
    if contract["kept"] or not stale:
        return ""
    if len(stale) == 1:
        return (
            f": its allowlist entry {stale[0]} excuses no import now: importlinter-contracts "
            "allowlist --write removes it"
        )
    listed = ", ".join(stale[:-1]) + f" and {stale[-1]}"
    return (
        f": its allowlist entries {listed} excuse no import now: importlinter-contracts "
        "allowlist --write removes them"
    )


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
    """Replace each edited file, atomically (each has read back as it must), once each is
    found unchanged since it was read and writable.

    Raises FileWriteError, leaving every file as it was, when one has changed or is
    read-only; or, when one cannot be written after all, saying which were written and
    which were not.
    """
    for edit in edits:
        path = Path(edit.path)
        try:
            now = path.read_bytes()
        except OSError as error:
            raise FileWriteError(
                f"cannot read {path} again ({error.strerror}); nothing was written.",
                error.strerror,
            ) from None
        if now != edit.original.encode(edit.encoding):
            raise FileWriteError(
                f"{path} changed since fix read it; nothing was written (run fix again).", None
            )
        why = _unwritable(path)
        if why is not None:
            raise FileWriteError(f"{path} {why}; nothing was written.", why)
    for done, edit in enumerate(edits):
        try:
            write_atomically(Path(edit.path), edit.edited.encode(edit.encoding))
        except FileWriteError as error:
            written = ", ".join(each.path for each in edits[:done]) or "none"
            left = ", ".join(each.path for each in edits[done:])
            raise FileWriteError(
                f"{error}\nwritten: {written}; not written: {left}.", error.reason
            ) from None


def _unwritable(path: Path) -> str | None:
    """Why `write_atomically` would refuse to replace the file `path`, or None: the file is
    read-only (as it tells), or no file can be made in its folder."""
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError as error:
        return f"cannot be written ({error.strerror})"
    if not mode & 0o222 or not os.access(target, os.W_OK):
        return "is read-only"
    if not os.access(target.parent, os.W_OK | os.X_OK):
        return f"cannot be replaced: its folder {target.parent} is read-only"
    return None
