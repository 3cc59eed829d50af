"""What one module's file says about import time, as the import-scope cache (`scope_cache`)
keeps it: read from the file, or from a cache entry, and written to one.

This module imports only the readers (`outline`, `scopes`, `calls`), this package's errors
and file locations, and the standard library (not grimp, click or import-linter), so that
the process that reads files ahead of the walks (`read_ahead`) loads no more than it needs.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import UnreadableSourceError
from ..locations import display_path
from . import calls as call_reading
from .calls import GETATTR, Body, CallReading
from .outline import calls_beyond_names, read_calls_of, read_outline, text_calls
from .scopes import ImportScope, SourceReading, read_source
from .target import target_python

# The modules a module imports at import time, each with the lines that do and why each
# runs then.
EagerLines = tuple[tuple[str, tuple[int, ...], tuple[str, ...]], ...]


class ModuleFile:
    """What is known of one module's file: always its import scopes; the rest once asked."""

    __slots__ = (
        "bodies",
        "by_line",
        "callable_names",
        "calls",
        "calls_unread",
        "checked",
        "eager",
        "from_lines",
        "imported",
        "lines",
        "may_getattr",
        "mtime",
        "partial",
        "path",
        "scopes",
        "stored_calls",
        "stored_scopes",
    )

    def __init__(
        self,
        path: str,
        mtime: float,
        scopes: dict[int, ImportScope],
        callable_names: tuple[tuple[str, str], ...] | None,
        bodies: tuple[Body, ...] | None,
        may_getattr: bool,
    ) -> None:
        self.path = path
        self.mtime = mtime
        # Whether the file may define a module `__getattr__` (its text names one), which
        # imports from it may call.
        self.may_getattr = may_getattr
        self.scopes = scopes
        self.stored_scopes: bytes | None = None  # the scopes as the cache keeps them, until asked
        # From the outline: the names its import-time code may call, with the top-level
        # package each may reach an import of, and its functions' lines (None when the
        # outline did not answer, and the file was read with `ast`).
        self.callable_names = callable_names
        self.bodies = bodies
        # Whether the scopes are those of the imports asked about so far, each read from the
        # lines around it (`outline.scope_of_line`), and the names called from the text alone
        # (`outline.text_calls`); the file's lines while they are needed.
        self.partial = False
        self.lines: list[bytes] | None = None
        self.calls: CallReading | None = None
        self.calls_unread: str | None = None  # None: not read yet; "" read; else why not
        self.stored_calls: object = None  # the calls as the cache keeps them, until asked
        # What grimp reports: the digest of the modules it imports, those it imports at import
        # time (`eager_lines`), and those each import statement imports (`imported_on`).
        self.imported: bytes | None = None
        self.eager: EagerLines | None = None
        # With them, the lines that may be `from` imports, as grimp reports them (stripped).
        self.from_lines: dict[int, str] | None = None
        self.by_line: dict[int, tuple[str, ...]] | None = None
        self.checked = False  # whether they were found to be what this run's graph reports


def read_module_file(path: str, mtime: float, source: bytes | None = None) -> ModuleFile:
    """A module's file (whose text is `source`, where it has been read already), read as
    little as its first questions need: in part where it is short and its text alone says
    what its code may call, else its outline, else with `ast`."""
    if source is None:
        source = file_source(path)
    may_getattr = GETATTR.encode() in source
    chosen = target_python()
    if chosen.lazy and (chosen.lazy_imports != "normal" or b"lazy" in source):
        # Which imports are lazy, and which of those code at import time uses, takes `ast`.
        record = ModuleFile(path, mtime, {}, None, None, may_getattr)
        set_reading(record, read_with_ast(path, source))
        return record
    names = None if b"\r" in source or len(source) > _SHORT else text_calls(source)
    if names is not None:
        names = _with_calls_beyond(names, source)
        # Read in part: each import asked about from the lines around it.
        record = ModuleFile(path, mtime, {}, names, None, may_getattr)
        record.partial = True
        record.lines = source.split(b"\n")
        return record
    outline = read_outline(source)
    if outline is not None:
        names = _with_calls_beyond(outline.callable_names, source)
        return ModuleFile(path, mtime, outline.scopes, names, outline.bodies, may_getattr)
    record = ModuleFile(path, mtime, {}, None, None, may_getattr)
    set_reading(record, read_with_ast(path, source))
    return record


# Stands for the calls the names called do not show (`outline.calls_beyond_names`): a
# relative package, which has code.
_BEYOND_NAMES = ("<calls>", ".")


def _with_calls_beyond(
    names: tuple[tuple[str, str], ...], source: bytes
) -> tuple[tuple[str, str], ...]:
    """The names a file's code calls, with one that may call wherever the file makes calls
    they do not show (a dynamic import, a call through a name bound to classes)."""
    return (*names, _BEYOND_NAMES) if calls_beyond_names(source) else names


def may_call(names: tuple[tuple[str, str], ...] | None, has_code: Callable[[str], bool]) -> bool:
    """Whether a file whose code running at import time may call these `names`
    (`callable_names`) may call a function that runs an import of a module whose top-level
    package `has_code` (a relative import's included)."""
    if names is None:
        return True
    return bool(names) and any(top == "." or has_code(top) for _, top in names)


def read_whole_outline(record: ModuleFile, source: bytes) -> None:
    """Read the whole outline of a file read in part (or, where it has none, with `ast`)."""
    outline = read_outline(source)
    if outline is None:
        set_reading(record, read_with_ast(record.path, source))
        record.callable_names = None
    else:
        record.scopes = outline.scopes
        record.callable_names = _with_calls_beyond(outline.callable_names, source)
        record.bodies = outline.bodies
    record.partial = False
    record.lines = None


def read_calls(record: ModuleFile) -> None:
    """Read what the file's code calls at import time, and what each of its functions that
    may then be called runs (`calls`): from its outline, else with `ast`."""
    source = record_source(record)
    if record.partial:
        read_whole_outline(record, source)
        if record.calls_unread is not None:
            return  # no outline: the `ast` reading of the whole file has its calls
    bodies = record.bodies
    if bodies is None and record.callable_names is not None:
        # Read from the cache, whose entries leave out the functions' lines.
        outline = read_outline(source)
        bodies = None if outline is None else outline.bodies
    calls = None if bodies is None else read_calls_of(source, bodies)
    if calls is None:
        set_reading(record, read_with_ast(record.path, source))
    else:
        record.calls = calls
        record.calls_unread = ""


def record_source(record: ModuleFile) -> bytes:
    """The text of a module's file: its lines, kept while it is read in part, else read."""
    return file_source(record.path) if record.lines is None else b"\n".join(record.lines)


def file_source(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def read_with_ast(path: str, source: bytes) -> SourceReading:
    try:
        return read_source(source)
    except UnreadableSourceError as error:
        raise UnreadableSourceError(
            f"{display_path(Path(path))}: cannot classify its imports: {error}"
        ) from None


def set_reading(record: ModuleFile, reading: SourceReading) -> None:
    record.scopes = reading.scopes
    record.calls = reading.calls
    record.calls_unread = reading.calls_unread


def to_entry(record: ModuleFile, table: dict[ImportScope, int]) -> tuple[object, ...]:
    """A module's entry in the cache, its scopes numbered in `table` (its functions' lines
    are left out: the few modules whose calls are read in a later run read them again)."""
    flat = record.stored_scopes
    if flat is None:
        numbers = array.array("I")
        for line, scope in record.scopes.items():
            numbers.extend((line, table.setdefault(scope, len(table))))
        flat = numbers.tobytes()
    calls = record.stored_calls
    if record.calls is not None:
        calls = call_reading.to_tuples(record.calls)
    return (
        record.path,
        record.mtime,
        flat,
        record.callable_names,
        record.partial,
        calls,
        record.calls_unread,
        record.imported,
        record.eager,
        None if record.by_line is None else tuple(record.by_line.items()),
        record.may_getattr,
        None if record.from_lines is None else tuple(record.from_lines.items()),
    )


def from_entry(entry: tuple[Any, ...]) -> ModuleFile:
    """The module as a cache entry keeps it (of the shape `to_entry` writes): its scopes are
    numbers in the entry's table until `stored_scopes` turns them back."""
    (
        path,
        mtime,
        flat,
        names,
        partial,
        calls,
        calls_unread,
        imported,
        eager,
        by_line,
        may_getattr,
        from_lines,
    ) = entry
    record = ModuleFile(path, mtime, {}, names, None, may_getattr is True)
    record.stored_scopes = flat
    record.partial = partial is True
    if calls_unread is not None:
        record.stored_calls = calls
        record.calls_unread = calls_unread
    record.imported = imported
    record.eager = eager
    if by_line is not None:
        record.by_line = dict(by_line)
    if from_lines is not None:
        record.from_lines = dict(from_lines)
    return record


def stored_scopes(record: ModuleFile, table: list[ImportScope]) -> bool:
    """Turn the scopes of a record made `from_entry` back into scopes, from the table its
    entry was numbered in; False where the numbers are not in it (the entry is not what
    this version writes)."""
    if record.stored_scopes is not None:
        flat = array.array("I")
        flat.frombytes(record.stored_scopes)
        record.stored_scopes = None
        try:
            record.scopes = {flat[i]: table[flat[i + 1]] for i in range(0, len(flat), 2)}
        except IndexError:
            return False
    return True


ENTRY_SIZE = 12


def stored_scopes_table(table: Iterable[ImportScope]) -> tuple[tuple[bool, str], ...]:
    """The scopes that entries are numbered in, as the cache keeps them (`marshal` keeps
    plain tuples)."""
    return tuple((scope.eager, scope.reason) for scope in table)


def scopes_from_table(stored: object) -> list[ImportScope]:
    """The scopes `stored_scopes_table` kept. Raises ValueError where they have another
    shape (not what this version writes)."""
    if type(stored) is not tuple:
        raise ValueError("not a table of scopes")
    scopes = []
    for scope in stored:
        if not (
            type(scope) is tuple
            and len(scope) == 2
            and type(scope[0]) is bool
            and type(scope[1]) is str
        ):
            raise ValueError("not a scope")
        scopes.append(ImportScope(eager=scope[0], reason=scope[1]))
    return scopes


# A file of at most this many bytes is read in part first (`read_module_file`); a longer one
# has many imports, and half of such files call a function of their own at import time,
# which needs the outline anyway (on vllm-omni 0.30.0, reading every file in part first made
# the check 45 % slower).
_SHORT = 3000
