"""What one module's file says about import time, as the import-scope cache (`scope_cache`)
keeps it: read from the file, or from a cache entry, and written to one.

This module imports only the readers (`outline`, `scopes`, `calls`), this package's errors
and file locations, and the standard library (not grimp, click or import-linter), so that
the process that reads files ahead of the walks (`read_ahead`) loads no more than it needs.
"""

from __future__ import annotations

import array
import enum
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Final, NamedTuple

from ..errors import UnreadableSourceError
from ..locations import display_path
from . import call_storage
from .call_model import GETATTR, Body, CallReading
from .conditions import Conditions, is_condition
from .outline import (
    calls_beyond_names,
    never_runs,
    read_calls_of,
    read_outline,
    scope_of_line,
    source_lines,
    text_calls,
)
from .scopes import ImportScope, SourceReading, read_source
from .target import target_python

# The modules a module imports at import time, each with the lines that do, why each runs
# then and the undecided tests it runs under.
EagerLines = tuple[tuple[str, tuple[int, ...], tuple[str, ...], tuple[Conditions, ...]], ...]


class ReadingLevel(enum.Enum):
    """How much of a module's file has been read."""

    # The scopes of the imports asked about so far, each read from the lines around it
    # (`outline.scope_of_line`), and the names its code may call, from the text alone
    # (`outline.text_calls`); the file's lines are kept while they are needed.
    IN_PART = 0
    # Every import's scope and the names its code may call, from its outline (or, where
    # `callable_names` is None, every scope from its `ast` reading, which may call anything).
    OUTLINE = 1
    # And what its code calls at import time (`calls`; or why `ast` cannot read it here,
    # `calls_unread`).
    CALLS = 2


class FileReading:
    """What has been read of one module's file (always its import scopes, as far as asked;
    the rest once asked), and what grimp reports of it. Its path, modification time, whether
    it may define a module `__getattr__` and the names its code may call are fixed by its
    first reading; the rest grows as it is asked, by its own methods only."""

    __slots__ = (
        "_checked",
        "_lines",
        "_stored_calls",
        "_stored_scopes",
        "bodies",
        "by_line",
        "callable_names",
        "calls",
        "calls_unread",
        "changed",
        "eager",
        "from_lines",
        "imported",
        "level",
        "may_getattr",
        "mtime",
        "path",
        "scopes",
    )

    def __init__(
        self,
        path: str,
        mtime: float,
        may_getattr: bool,
        level: ReadingLevel,
        scopes: dict[int, ImportScope],
        callable_names: tuple[tuple[str, str], ...] | None = None,
        bodies: tuple[Body, ...] | None = None,
    ) -> None:
        self.path: Final = path
        self.mtime: Final = mtime
        # Whether the file may define a module `__getattr__` (its text names one), which
        # imports from it may call.
        self.may_getattr: Final = may_getattr
        self.level = level
        self.scopes = scopes
        # The scopes as the cache keeps them, until asked (`unpack_scopes`).
        self._stored_scopes: bytes | None = None
        # From the first reading: the names its import-time code may call, with the
        # top-level package each may reach an import of (None where it was read with `ast`
        # first); and, from the outline, its functions' lines.
        self.callable_names = callable_names
        self.bodies = bodies
        self._lines: list[bytes] | None = None  # (read in part: the file's lines)
        self.calls: CallReading | None = None
        self.calls_unread = ""  # (at level CALLS, without `calls`: why)
        self._stored_calls: object = None  # the calls as the cache keeps them, until asked
        # What grimp reports: the digest of the modules it imports, those it imports at import
        # time (`eager_lines`), and those each import statement imports (`imported_on`).
        self.imported: bytes | None = None
        self.eager: EagerLines | None = None
        # With them, the lines that may be `from` imports, as grimp reports them (stripped).
        self.from_lines: dict[int, str] | None = None
        self.by_line: dict[int, tuple[str, ...]] | None = None
        self._checked = False  # whether they were found to be what this run's graph reports
        # Whether more was read of it, or kept with it, since it was made (a cache entry of
        # it is then written again).
        self.changed = False

    @classmethod
    def from_entry(cls, entry: StoredReading) -> FileReading:
        """Return the reading a cache entry keeps (checked by `stored_reading`): its scopes
        are numbers in the entry's table until `unpack_scopes` turns them back."""
        record = cls(
            entry.path,
            entry.mtime,
            entry.may_getattr,
            ReadingLevel(entry.level),
            {},
            entry.callable_names,
        )
        record._stored_scopes = entry.scopes
        if record.level is ReadingLevel.CALLS:
            record._stored_calls = entry.calls
            record.calls_unread = entry.calls_unread
        record.imported = entry.imported
        record.eager = entry.eager
        if entry.by_line is not None:
            record.by_line = dict(entry.by_line)
        if entry.from_lines is not None:
            record.from_lines = dict(entry.from_lines)
        return record

    def to_entry(self, table: dict[ImportScope, int]) -> StoredReading:
        """Return the reading's entry in the cache, its scopes numbered in `table` (its
        functions' lines are left out: the few modules whose calls are read in a later run
        read them again)."""
        flat = self._stored_scopes
        if flat is None:
            numbers = array.array("I")
            for line, scope in self.scopes.items():
                numbers.extend((line, table.setdefault(scope, len(table))))
            flat = numbers.tobytes()
        calls = self._stored_calls
        if self.calls is not None:
            calls = call_storage.to_tuples(self.calls)
        return StoredReading(
            path=self.path,
            mtime=self.mtime,
            scopes=flat,
            callable_names=self.callable_names,
            level=self.level.value,
            calls=calls,
            calls_unread=self.calls_unread,
            imported=self.imported,
            eager=self.eager,
            by_line=None if self.by_line is None else tuple(self.by_line.items()),
            may_getattr=self.may_getattr,
            from_lines=None if self.from_lines is None else tuple(self.from_lines.items()),
        )

    def unpack_scopes(self, table: list[ImportScope]) -> dict[int, ImportScope]:
        """Return the scopes, turned back from the numbers of the cache entry it was made
        from (in the entry's `table`) once. Where the numbers are not in it (the entry is
        not what this version writes), the file is read again from scratch."""
        if self._stored_scopes is not None:
            flat = array.array("I")
            flat.frombytes(self._stored_scopes)
            self._stored_scopes = None
            try:
                self.scopes = {flat[i]: table[flat[i + 1]] for i in range(0, len(flat), 2)}
            except IndexError:
                self.scopes = {}
                self.level = ReadingLevel.IN_PART
                self.calls = self._stored_calls = None
                self.calls_unread = ""
                self.changed = True
        return self.scopes

    def scope(self, line: int, table: list[ImportScope]) -> ImportScope | None:
        """Return the scope of the import statement that starts on `line`, reading as much
        more of the file as it takes (the lines around it, its outline, its `ast`
        reading); None where no import statement starts there."""
        found = self.unpack_scopes(table).get(line)
        if found is None and self.level is ReadingLevel.IN_PART:
            found = self._scope_of_line(line)
        if found is None and self.level is not ReadingLevel.CALLS:
            # The outline did not see this import: the `ast` reading decides.
            self.read_calls()
            found = self.scopes.get(line)
        return found

    def call_reading(self, table: list[ImportScope]) -> SourceReading:
        """Return everything the file says about import time, its calls included (read now
        where they were not)."""
        scopes = self.unpack_scopes(table)
        if self.level is not ReadingLevel.CALLS:
            self.read_calls()
            scopes = self.scopes
        elif self.calls is None and self._stored_calls is not None:
            self.calls = call_storage.from_tuples(
                self._stored_calls, _lines_of(self.path), never_runs
            )
        return SourceReading(scopes, self.calls, self.calls_unread)

    def source(self) -> bytes:
        """Return the file's text: its lines, kept while it is read in part, else read."""
        return file_source(self.path) if self._lines is None else b"\n".join(self._lines)

    def read_calls(self) -> None:
        """Read what the file's code calls at import time, and what each of its functions
        that may then be called runs (`calls`): from its outline, else with `ast`."""
        source = self.source()
        if self.level is ReadingLevel.IN_PART and not self._read_whole_outline(source):
            return  # no outline: the `ast` reading of the whole file has its calls
        bodies = self.bodies
        if bodies is None and self.callable_names is not None:
            # Read from the cache, whose entries leave out the functions' lines.
            outline = read_outline(source)
            bodies = None if outline is None else outline.bodies
        calls = None if bodies is None else read_calls_of(source, bodies)
        if calls is None:
            self._keep_ast_reading(read_with_ast(self.path, source))
        else:
            self.calls = calls
            self.calls_unread = ""
            self.level = ReadingLevel.CALLS
        self.changed = True

    def read_imports_ahead(self) -> None:
        """Of a file read in part, read the scope of each import statement that starts a
        line (as a walk would ask), and forget its lines."""
        lines = self._lines
        if lines is not None:
            for number, line in enumerate(lines, 1):
                # (Only the lines that start an import: asking of each line costs a call.)
                if line.lstrip(b" ").startswith((b"import ", b"from ")):
                    scope = scope_of_line(lines, number)
                    if scope is not None:
                        self.scopes[number] = scope
        self._lines = None

    def keep_eager_lines(
        self, imported: bytes, eager: EagerLines, from_lines: dict[int, str]
    ) -> None:
        """Keep what grimp reports the file imports (the digest of the modules, `imported`)
        and those of its imports that run at import time, with the lines that may be `from`
        imports."""
        self.imported = imported
        self.eager = eager
        self.from_lines = from_lines
        self.by_line = None
        self._checked = True
        self._lines = None  # no longer needed
        self.changed = True

    def keep_imported_by_line(self, imported: bytes, by_line: dict[int, tuple[str, ...]]) -> None:
        """Keep the modules each of the file's import statements imports, as grimp resolved
        them (`imported`: the digest of all of them; what was kept of another is dropped)."""
        self.by_line = by_line
        if self.imported != imported:
            self.imported = imported
            self.eager = None
            self.from_lines = None
        self._checked = True
        self.changed = True

    def mark_saved(self) -> None:
        """Note that the cache now holds the reading as it is."""
        self.changed = False

    def forget_eager_lines(self) -> None:
        """Drop what was kept of the imports that run at import time (to work out again)."""
        self.eager = None

    def reports_the_same(self, imported: Callable[[], bytes]) -> bool:
        """Return whether grimp reports the same imported modules for the file (the digest
        `imported` gives) as when what is kept of them was worked out."""
        if not self._checked:
            self._checked = self.imported == imported()
        return self._checked

    def _scope_of_line(self, line: int) -> ImportScope | None:
        """The scope of an import of a file read in part, from the lines around it; or, where
        they do not tell it, from the file's outline, read now."""
        if self._lines is None:
            self._lines = file_source(self.path).split(b"\n")
        self.changed = True
        found = scope_of_line(self._lines, line)
        if found is not None:
            self.scopes[line] = found
            return found
        self._read_whole_outline(b"\n".join(self._lines))
        return self.scopes.get(line)

    def _read_whole_outline(self, source: bytes) -> bool:
        """Read the whole outline of a file read in part (or, where it has none, read it
        with `ast`); return whether it has one. The names its code may call stay those its
        text gave: a walk may have asked them before, and whichever process reads the
        file, and whenever, it answers the same."""
        outline = read_outline(source)
        if outline is None:
            self._keep_ast_reading(read_with_ast(self.path, source))
        else:
            self.scopes = outline.scopes
            self.bodies = outline.bodies
            self.level = ReadingLevel.OUTLINE
        self._lines = None
        self.changed = True
        return outline is not None

    def _keep_ast_reading(self, reading: SourceReading) -> None:
        self.scopes = reading.scopes
        self.calls = reading.calls
        self.calls_unread = reading.calls_unread
        self.level = ReadingLevel.CALLS


def read_module_file(path: str, mtime: float, source: bytes | None = None) -> FileReading:
    """Return a module's file (whose text is `source`, where it has been read already), read
    as little as its first questions need: in part where it is short and its text alone
    says what its code may call, else its outline, else with `ast`."""
    if source is None:
        source = file_source(path)
    may_getattr = may_define_getattr(source)
    chosen = target_python()
    if chosen.lazy and (chosen.lazy_imports != "normal" or b"lazy" in source):
        # Which imports are lazy, and which of those code at import time uses, takes `ast`.
        record = FileReading(path, mtime, may_getattr, ReadingLevel.CALLS, {})
        record._keep_ast_reading(read_with_ast(path, source))
        return record
    # What the text readers read: one character a byte (str methods are native code when
    # compiled, bytes ones calls through Python).
    text = source.decode("latin-1")
    names = None if "\r" in text or len(source) > _SHORT else text_calls(text)
    if names is not None:
        names = _with_calls_beyond(names, text)
        # Read in part: each import asked about from the lines around it.
        record = FileReading(path, mtime, may_getattr, ReadingLevel.IN_PART, {}, names)
        record._lines = source.split(b"\n")
        return record
    outline = read_outline(source)
    if outline is not None:
        names = _with_calls_beyond(outline.callable_names, text)
        return FileReading(
            path, mtime, may_getattr, ReadingLevel.OUTLINE, outline.scopes, names, outline.bodies
        )
    record = FileReading(path, mtime, may_getattr, ReadingLevel.CALLS, {})
    record._keep_ast_reading(read_with_ast(path, source))
    return record


# Stands for the calls the names called do not show (`outline.calls_beyond_names`): a
# relative package, which has code.
_BEYOND_NAMES = ("<calls>", ".")


def _with_calls_beyond(
    names: tuple[tuple[str, str], ...], text: str
) -> tuple[tuple[str, str], ...]:
    """The names a file's code calls, with one that may call wherever the file makes calls
    they do not show (a dynamic import, a call through a name bound to classes); `text`: its
    bytes as latin-1."""
    return (*names, _BEYOND_NAMES) if calls_beyond_names(text) else names


def may_call(names: tuple[tuple[str, str], ...] | None, has_code: Callable[[str], bool]) -> bool:
    """Return whether a file whose code running at import time may call these `names`
    (`callable_names`) may call a function that runs an import of a module whose top-level
    package `has_code` (a relative import's included)."""
    if names is None:
        return True
    return bool(names) and any(top == "." or has_code(top) for _, top in names)


def file_source(path: str) -> bytes:
    """Return the bytes of the file at `path`."""
    with open(path, "rb") as file:
        return file.read()


def read_with_ast(path: str, source: bytes) -> SourceReading:
    """Return the `ast` reading of a file's `source`. Raise UnreadableSourceError, naming the
    file, where it cannot be read."""
    try:
        return read_source(source)
    except UnreadableSourceError as error:
        raise UnreadableSourceError(
            f"{display_path(Path(path))}: cannot classify its imports: {error}"
        ) from None


class StoredReading(NamedTuple):
    """A module's entry in the cache (`FileReading.to_entry`), which the cache file keeps as
    a plain tuple: the file's path and modification time, its scopes (line and number in the
    cache's table, one after the other), the names its code may call, its `ReadingLevel`
    (by value), its calls (as tuples) or why they are unread, what grimp reports of it, and
    whether it may define a module `__getattr__`."""

    path: str
    mtime: float
    scopes: bytes
    callable_names: tuple[tuple[str, str], ...] | None
    level: int
    # Any, not object: compiled (mypyc), a NamedTuple looks its fields' types up in the
    # module's names, where `object` is not.
    calls: Any
    calls_unread: str
    imported: bytes | None
    eager: EagerLines | None
    by_line: tuple[tuple[int, tuple[str, ...]], ...] | None
    may_getattr: bool
    from_lines: tuple[tuple[int, str], ...] | None


_LEVELS = {level.value for level in ReadingLevel}


def stored_reading(entry: object) -> StoredReading | None:
    """Return a cache entry (as the cache file keeps it) as a `StoredReading`; None where it
    has another shape (not what this version writes)."""
    if not (type(entry) is tuple and len(entry) == len(StoredReading._fields)):
        return None
    stored = StoredReading._make(entry)
    if not (
        type(stored.path) is str
        and type(stored.scopes) is bytes
        and not len(stored.scopes) % 8
        and stored.level in _LEVELS
        and type(stored.calls_unread) is str
        and type(stored.may_getattr) is bool
    ):
        return None
    return stored


def _lines_of(path: str) -> Callable[[], list[str]]:
    """The lines of a file, read when first asked for."""
    lines: list[str] = []

    def read() -> list[str]:
        if not lines:
            lines.extend(source_lines(file_source(path)))
        return lines

    return read


def may_define_getattr(source: bytes) -> bool:
    """Return whether a file's text may define a module `__getattr__`, or put an object in the
    module's place in `sys.modules` (whose attributes may run imports as one does): it names
    either."""
    return GETATTR.encode() in source or _OWN_ENTRY in source


_OWN_ENTRY = b"modules[__name__]"


def stored_scopes_table(
    table: Iterable[ImportScope],
) -> tuple[tuple[bool, str, Conditions, str], ...]:
    """Return the scopes that entries are numbered in, as the cache keeps them (`marshal`
    keeps plain tuples)."""
    return tuple(tuple(scope) for scope in table)  # type: ignore[misc]


def scopes_from_table(stored: object) -> list[ImportScope]:
    """Return the scopes `stored_scopes_table` kept. Raise ValueError where they have another
    shape (not what this version writes)."""
    if type(stored) is not tuple:
        raise ValueError("not a table of scopes")
    scopes = []
    for scope in stored:
        if not (
            type(scope) is tuple
            and len(scope) == 4
            and type(scope[0]) is bool
            and type(scope[1]) is str
            and type(scope[2]) is tuple
            and all(is_condition(condition) for condition in scope[2])
            and type(scope[3]) is str
        ):
            raise ValueError("not a scope")
        scopes.append(ImportScope._make(scope))
    return scopes


# A file of at most this many bytes is read in part first (`read_module_file`); a longer one
# has many imports, and half of such files call a function of their own at import time,
# which needs the outline anyway (on vllm-omni 0.30.0, reading every file in part first made
# the check 45 % slower).
_SHORT = 3000
