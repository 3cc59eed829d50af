"""What the graph's modules say about import time, read only for the modules asked about, and
kept between runs.

A module's file is read when the module is first asked about: its outline (`outline.py`:
the scope of each import statement and the names its code running at import time may call,
from the text alone), and its `ast` reading (`scopes.py`, `calls.py`) only where the outline
cannot answer, or where calls are followed into it (`module_files.py`). While the walks
may reach many modules the cache does not hold, a second process reads their files ahead
(`read_ahead.py`), and a module's reading is taken from it where it has come back.

With `cache_dir`, what a run read is kept for the next one, keyed as grimp keys its own
cache: by module, with the modification time of its file (one `stat` per module asked about);
a file that has not changed is not read again. The cache also keeps, per module,
the modules grimp reported it imports and those it imports at import time, with their lines
and why they run then: used only where grimp reports the same imported modules for the
unchanged file in the graph at hand (checked once per module and run: how grimp resolves a
file's import statements depends on the file and on which of the named modules exist, and a
graph built from a stale cache of grimp's can report other imports than the file makes). The
cache is loaded once, and read entry by entry as modules are asked about; one
that cannot be read, or an entry of any shape but the one this version writes, is ignored
and read again.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from grimp import ImportGraph

from ..cache import (
    code_identity,
    graph_digest,
    grimp_file_times,
    imported_digest,
    modules_digest,
    sealed,
    unsealed,
    write_cache,
)
from ..errors import UnreadableSourceError
from ..locations import (
    Listings,
    display_path,
    in_package_folders,
    modification_time,
    source_file,
    source_file_status,
)
from . import read_ahead
from .call_model import SERVED, Binding
from .import_bindings import bracketed_from_import, from_import_bindings, simple_from_import
from .module_files import (
    EagerLines,
    FileReading,
    StoredReading,
    file_source,
    may_define_getattr,
    read_module_file,
    scopes_from_table,
    stored_reading,
    stored_scopes_table,
)
from .outcomes import FilesRead
from .outline import source_lines
from .scopes import ImportScope, SourceReading
from .target import set_target, target_of, target_python

# Raised whenever what is kept, or how a file is read, changes, so that older caches are not
# reused. (Nor is a cache that other code wrote, `cache_format`: another version of this
# package, or another Python or grimp.)
_CACHE_FORMAT = 22


def cache_format() -> tuple[object, ...]:
    """Return what the cache file says it was written by: this format, `code_identity`, and the
    target Python the readings were made for."""
    return (_CACHE_FORMAT, *code_identity(), tuple(target_python()))


CACHE_FILE = Path("importlinter_contracts") / "import-scopes.cache"


class SearchedFile(NamedTuple):
    """A file only searched for a module `__getattr__` (`ScopeIndex.may_define_getattr`):
    its path, modification time and whether its text names one. The cache keeps it as a
    plain tuple, a shorter entry than a `StoredReading`."""

    path: str
    mtime: float
    may_getattr: bool


class ScopeIndex:
    """Answers "does this import run at import time, and why?" for lines grimp reported,
    and what a module's code running at import time may call.

    `session_options` are lint-imports' (with the graph's modules, the options that shape the
    graph make its digest, `graph_digest`).
    """

    def __init__(
        self,
        cache_dir: Path | None,
        session_options: Mapping[str, Any],
        grimp_cache: Path | None = None,
    ) -> None:
        self._cache_dir = cache_dir
        # Where grimp's cache of this run's graph is (`grimp_cache_directory`): by default,
        # in `cache_dir` itself.
        self._grimp_cache = grimp_cache or cache_dir
        self._cache_file = cache_dir / CACHE_FILE if cache_dir else None
        self._session_options = session_options
        # (Every reading depends on the Python the analysed code runs on.)
        set_target(target_of(session_options))
        # The digest of the graph's modules (`graph_digest`), once asked for, and that of the
        # graph the cache was written with.
        self._graph: bytes | None = None
        self._stored_graph: object = None
        self._modules: dict[str, FileReading] = {}
        # The lines of the files whose `from` imports were asked about (as bytes, each file
        # read once; decoded, for those that `ast` reads); and, by module, the lines that may
        # be `from` imports, as grimp reports them (from the cache).
        self._raw_lines: dict[str, list[bytes]] = {}
        self._statement_lines: dict[str, list[str]] = {}
        self._listings = Listings()  # the folders' files, listed once for the run
        self._from_lines: dict[str, dict[int, str]] = {}
        # The files only searched for a module `__getattr__`: each with its modification
        # time and what the search found; and their text, until they are read.
        self._searched: dict[str, SearchedFile] = {}
        self._sources: dict[str, bytes] = {}
        self._stored: dict[Any, Any] | None = None  # the cache's entries, once loaded
        self._table: list[ImportScope] = []  # the scopes the cache's entries refer to
        # The cache's entries of the modules whose file is as it was then (None: it is not).
        self._unchanged_entries: dict[str, StoredReading | None] = {}
        self._imported: dict[str, bytes] = {}  # `imported_digest`, by module
        # One of each tuple of line numbers and of reasons that eager lines hold: most are
        # the same few (`(1,)`, `("module level",)`), and a whole-package walk keeps one for
        # each import it reaches (80,000 at 20,000 modules).
        self._shared: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        # The second process reading files ahead, while `reading_ahead` runs.
        self._ahead: read_ahead.ReadAhead | None = None
        # grimp's modification time of each module's file, from its cache (`edited`).
        self._grimp_times: dict[str, float] | None = None
        self._dirty = False

    def may_read_ahead(self, graph: ImportGraph) -> bool:
        """Return whether the cache lacks enough of the graph's modules for a second process
        to read files ahead of the walks (`reading_ahead`). (Where it holds all but a few
        hundred of them, as after a run that walked through nearly every one, the modules
        the walks may reach need not even be worked out: too few of them can be unread.)"""
        return len(graph.modules - self._load().keys()) >= read_ahead.READ_AHEAD_FROM

    @contextmanager
    def reading_ahead(self, may_reach: list[str], code: set[str]) -> Iterator[None]:
        """While the block runs, a second process reads the files of the modules the walks
        `may_reach` (in the order they may reach them) that the cache holds no entry for, and
        they are taken from it (`read_ahead`); `code`: the top-level packages whose functions
        are followed."""
        stored = self._load()
        unread = [module for module in may_reach if module not in stored]
        try:
            with read_ahead.reading_ahead(unread, code) as self._ahead:
                yield
        finally:
            self._ahead = None

    def scope(self, module: str, line: int) -> ImportScope:
        """Return the scope of the import statement that starts on `line` of `module`."""
        return self._scope_in(self._module(module), line)

    def _scope_in(self, record: FileReading, line: int) -> ImportScope:
        found = record.scope(line, self._table)
        if found is None:
            raise UnreadableSourceError(
                f"{display_path(Path(record.path))}:{line}: grimp reports an import here, "
                "but no import statement starts on this line."
            )
        return found

    def reading(self, module: str) -> SourceReading:
        """Return everything `module`'s file says about import time, its calls included."""
        return self._module(module).call_reading(self._table)

    def callable_names(self, module: str) -> tuple[tuple[str, str], ...] | None:
        """Return the names `module`'s code running at import time may call, each with the
        top-level package it may reach an import of (`FileReading.callable_names`; None
        where it may call anything)."""
        entry = self._unchanged(module)
        return entry.callable_names if entry is not None else self._module(module).callable_names

    def has_unused_lazy(self, module: str) -> bool:
        """Return whether `module`'s file has a lazy import (PEP 810) that its code at import time
        does not use, or serves names through what replaces it in `sys.modules`: another
        module's `from` import of such a name would load it."""
        return any(
            scope.lazy and (not scope.eager or scope.lazy == SERVED)
            for scope in self._module(module).unpack_scopes(self._table).values()
        )

    def may_define_getattr(self, module: str) -> bool:
        """Return whether `module`'s file may define a module `__getattr__` (its text names one;
        False for a module without a file, a folder without `__init__.py`). Asked of the
        modules that others import, which the walks may not enter: a file not read yet is
        only searched for the name (the cache keeps what the search found, as a shorter
        entry); its text is kept until the walks enter it, as most do."""
        record = self._modules.get(module)
        if record is not None:
            return record.may_getattr
        entry = self._unchanged(module)
        if entry is not None:
            return entry.may_getattr
        found = self._searched.get(module)
        if found is None:
            stored = self._load().get(module)
            if (
                type(stored) is tuple
                and len(stored) == len(SearchedFile._fields)
                and type(stored[0]) is str
                and type(stored[2]) is bool
            ):
                kept = SearchedFile._make(stored)
                if (
                    in_package_folders(kept.path, module)
                    and modification_time(kept.path) == kept.mtime
                ):
                    found = self._searched[module] = kept
        if found is None:
            located = source_file_status(module, self._listings)
            if located is None:
                return False
            path, status = located
            source = file_source(path)
            found = SearchedFile(path, status.st_mtime, may_define_getattr(source))
            self._searched[module] = found
            self._sources[module] = source
            self._dirty = True
        return found.may_getattr

    def from_lines(self, module: str, graph: ImportGraph) -> dict[int, str]:
        """Return the lines of `module` that may be `from` imports, each with its text as grimp
        reports it (stripped): kept with its eager lines."""
        entry = self._unchanged(module)
        if (
            entry is not None
            and entry.from_lines is not None
            and entry.imported == self.imported_digest(module, graph)
        ):
            found = self._from_lines.get(module)
            if found is None:
                found = self._from_lines[module] = dict(entry.from_lines)
            return found
        record = self._module(module)
        if record.from_lines is None or not self._reports_the_same(record, module, graph):
            record.forget_eager_lines()
            self.eager_lines(module, graph)
        assert record.from_lines is not None
        return record.from_lines

    def from_import_bindings(self, module: str, line: int, text: str) -> tuple[Binding, ...] | None:
        """Return what the `from` import statements of `module` that start on `line` bind: read from
        the line's `text` (as grimp reports it), or their own lines; None where they do not
        tell (the file's call reading has them then)."""
        simple = simple_from_import(text, line)
        if simple is not None:
            return simple
        raw = self._raw_lines.get(module)
        if raw is None:
            raw = self._raw_lines[module] = self._module(module).source().split(b"\n")
        if "(" in text:
            found = bracketed_from_import(text, raw[line:], line)
            if found is not None:
                return found
        lines = self._statement_lines.get(module)
        if lines is None:
            lines = self._statement_lines[module] = source_lines(b"\n".join(raw))
        return from_import_bindings(lines, line)

    def eager_lines(self, module: str, graph: ImportGraph) -> EagerLines:
        """Return the modules `module` imports at import time, by name, each with the lines of its
        own import statements that run then (grimp's lines; lazy imports never do) and why
        each runs then."""
        entry = self._unchanged(module)
        if (
            entry is not None
            and entry.eager is not None
            and entry.imported == self.imported_digest(module, graph)
        ):
            return entry.eager
        record = self._module(module)
        if record.eager is not None and self._reports_the_same(record, module, graph):
            return record.eager
        eager = []
        from_lines: dict[int, str] = {}
        imported, lines_of = _import_lines(module, graph, from_lines)
        shared = self._shared
        scope_in = self._scope_in
        for target, numbers in lines_of:
            scopes = [(line, scope_in(record, line)) for line in numbers]
            lines = tuple(line for line, scope in scopes if scope.eager)
            if lines:
                reasons = tuple(scope.reason for _, scope in scopes if scope.eager)
                tests = tuple(scope.conditions for _, scope in scopes if scope.eager)
                eager.append(
                    (
                        sys.intern(target),
                        shared.setdefault(lines, lines),
                        shared.setdefault(reasons, reasons),
                        shared.setdefault(tests, tests),
                    )
                )
        found = tuple(eager)
        record.keep_eager_lines(self._keep_imported_digest(module, imported), found, from_lines)
        if self._ahead is not None:
            # The modules a walk entering this one reaches next, where none is read yet.
            read, stored = self._modules, self._load()
            self._ahead.will_reach(
                [target for target, _, _, _ in found if target not in read and target not in stored]
            )
        return found

    def imported_on(self, module: str, line: int, graph: ImportGraph) -> tuple[str, ...]:
        """Return the modules the import statement of `module` on `line` imports, as grimp resolved
        them (none for a lazy import)."""
        record = self._module(module)
        if record.by_line is None or not self._reports_the_same(record, module, graph):
            found: dict[int, list[str]] = {}
            imported, lines_of = _import_lines(module, graph)
            for target, numbers in lines_of:
                for number in numbers:
                    found.setdefault(number, []).append(sys.intern(target))
            record.keep_imported_by_line(
                self._keep_imported_digest(module, imported),
                {number: tuple(targets) for number, targets in found.items()},
            )
        assert record.by_line is not None
        return record.by_line.get(line, ())

    def _keep_imported_digest(self, module: str, imported: list[str]) -> bytes:
        """The digest of the modules grimp reports `module` imports (`imported`), kept."""
        found = self._imported[module] = modules_digest(imported)
        return found

    def _reports_the_same(self, record: FileReading, module: str, graph: ImportGraph) -> bool:
        """Whether grimp reports the same imported modules for `module` as when what is kept
        of them was worked out."""
        return record.reports_the_same(lambda: self.imported_digest(module, graph))

    def imported_digest(self, module: str, graph: ImportGraph) -> bytes:
        """Return a digest of the modules that grimp reports `module` imports, in `graph` (the one
        graph an index is asked about)."""
        found = self._imported.get(module)
        if found is None:
            found = self._imported[module] = imported_digest(graph, module)
        return found

    def path(self, module: str) -> Path:
        """Return the file of `module`."""
        return Path(self._module(module).path)

    def is_package(self, module: str) -> bool:
        """Return whether `module`'s file is a package's `__init__.py`."""
        return os.path.basename(self._module(module).path) == "__init__.py"

    def save(self) -> str | None:
        """Keep what this run read for the next one (but for the files changed since grimp
        read them, `edited`), with the entries of earlier runs whose files still exist. A
        cache that cannot be written costs only time: return a warning, and the run goes on."""
        if self._cache_file is None or not (
            self._dirty or any(record.changed for record in self._modules.values())
        ):
            return None
        edited = self.edited(self._times_read())
        if edited is None:
            return (
                f"The import-scope cache {display_path(self._cache_file)} is not written: "
                f"grimp's cache beside it does not say when the files it read were modified "
                f"(no {', '.join(f'{root}.meta.json' for root in self._roots())} to read)."
            )
        stored = self._load()
        table: dict[ImportScope, int] = {}
        # Stored entries refer to the stored table: keep its order, add new scopes after.
        for scope in self._table:
            table.setdefault(scope, len(table))
        # The file is stamped with this run's graph (`graph_digest`, where it was asked
        # for). A file that is gone takes its module out of the graph, so with the graph the
        # cache was last written with, its entries of the graph's modules still have their
        # files, and checking would cost a stat per entry. (Entries of modules of another
        # graph that shares the folder are dropped once the graph changes.)
        same_graph = self._graph is not None and self._graph == self._stored_graph
        entries = {
            module: entry
            for module, entry in stored.items()
            if module not in self._modules
            # (An entry found unchanged this run has its file.)
            and (same_graph or self._unchanged_entries.get(module) is not None or _exists(entry))
        }
        for module, record in self._modules.items():
            if module not in edited:
                entries[module] = tuple(record.to_entry(table))
        for module, searched in self._searched.items():
            if module not in self._modules and module not in edited:
                entries[module] = tuple(searched)
        data = sealed(
            _MAGIC,
            marshal.dumps(
                {
                    "format": cache_format(),
                    "graph": self._graph,
                    "scopes": stored_scopes_table(table),
                    "modules": entries,
                }
            ),
        )
        warning = write_cache(
            self._cache_file, data, "import-scope cache", "files are read again on the next run"
        )
        if warning is not None:
            return warning
        self._dirty = False
        for record in self._modules.values():
            record.mark_saved()
        return None

    def _unchanged(self, module: str) -> StoredReading | None:
        """The cache's entry for `module` when its file is unchanged since (and no record of
        the module was made in this run): read straight from it, as most modules are on a
        run after a first, with no object made for them."""
        if module in self._modules:
            return None
        try:
            return self._unchanged_entries[module]
        except KeyError:
            pass
        entry = stored_reading(self._load().get(module))
        if entry is not None and not (
            in_package_folders(entry.path, module) and modification_time(entry.path) == entry.mtime
        ):
            entry = None
        self._unchanged_entries[module] = entry
        return entry

    def know_digests(self, graph: bytes, imported: Mapping[str, bytes]) -> None:
        """Take the digests of the graph asked about (`graph_digest`) and of the modules
        grimp reports some of its modules import (`imported_digest`), worked out before."""
        self._graph = graph
        self._imported.update(imported)

    def graph_digest(self, graph: ImportGraph) -> bytes:
        """Return a digest of the modules grimp found, with the options that shape its graph."""
        if self._graph is None:
            self._graph = graph_digest(graph, self._session_options)
        return self._graph

    def files_read(self, graph: ImportGraph) -> FilesRead:
        """Return each module asked about so far, with its file, that file's modification time when
        it was read (or found unchanged), and the digest of the modules grimp reports it
        imports in `graph` (`imported_digest`)."""
        return {
            module: (path, time, self.imported_digest(module, graph))
            for module, (path, time) in self._times_read().items()
        }

    def edited(
        self, read: Mapping[str, tuple[str, float] | tuple[str, float, bytes]]
    ) -> dict[str, str] | None:
        """Return those of the files `read` (by module: each file's path and modification time, as
        read) whose modification time is not the one grimp found when it built this run's
        graph: changed since grimp read them, so that the lines grimp reports may not be
        theirs. From the cache grimp writes beside this one; None where there is none to read
        (or this index has no cache folder)."""
        if self._grimp_times is None and self._cache_dir is not None:
            assert self._grimp_cache is not None
            self._grimp_times = grimp_file_times(self._grimp_cache, self._roots())
        times = self._grimp_times
        if times is None:
            return None
        return {module: found[0] for module, found in read.items() if times.get(module) != found[1]}

    def _times_read(self) -> dict[str, tuple[str, float]]:
        """Each module asked about so far, with its file and that file's modification time
        when it was read (or found unchanged)."""
        read = {module: (found.path, found.mtime) for module, found in self._searched.items()}
        read.update(
            (module, (entry.path, entry.mtime))
            for module, entry in self._unchanged_entries.items()
            if entry is not None
        )
        read.update(
            (module, (record.path, record.mtime)) for module, record in self._modules.items()
        )
        return read

    def _roots(self) -> list[str]:
        return list(self._session_options.get("root_packages", ()))

    def _module(self, module: str) -> FileReading:
        record = self._modules.get(module)
        if record is not None:
            return record
        entry = self._unchanged(module)
        if entry is not None:
            record = self._modules[module] = FileReading.from_entry(entry)
            return record
        # (A reading the second process made saves the walk a stat as well as the reading.)
        record = self._ahead.take(module) if self._ahead else None
        source = self._sources.pop(module, None)
        if record is None:
            found = source_file_status(module, self._listings)
            if found is None:
                raise UnreadableSourceError(f"{module}: no source file found for this module.")
            path, status = found
            searched = self._searched.get(module)
            if searched is None or searched.mtime != status.st_mtime:
                source = None  # (changed since it was searched)
            record = read_module_file(path, status.st_mtime, source)
            if self._ahead is not None:
                self._ahead.read_here(module)
        self._modules[module] = record
        self._dirty = True
        return record

    def _load(self) -> dict[Any, Any]:
        if self._stored is not None:
            return self._stored
        self._stored = {}
        if self._cache_dir is None or self._cache_file is None:
            return self._stored
        try:
            data = marshal.loads(unsealed(_MAGIC, self._cache_file.read_bytes()))
        except (OSError, EOFError, ValueError, TypeError):
            return self._stored  # no cache yet, or an unreadable one: it is made again
        if not isinstance(data, dict) or data.get("format") != cache_format():
            return self._stored
        self._stored_graph = data.get("graph")
        scopes, modules = data.get("scopes"), data.get("modules")
        if not isinstance(modules, dict):
            return self._stored
        try:
            self._table = scopes_from_table(scopes)
        except ValueError:
            return self._stored
        # Each entry is checked when it is used (`_unchanged`).
        self._stored = modules
        return modules


# The cache file starts with these bytes (`cache.sealed`).
_MAGIC = b"importlinter-contracts import scopes\n"


def _import_lines(
    module: str, graph: ImportGraph, from_lines: dict[int, str] | None = None
) -> tuple[list[str], list[tuple[str, list[int]]]]:
    """The modules grimp reports `module` imports, sorted, and each with the lines of its
    import statements (a PEP 810 lazy one, which grimp marks, runs at import time where its
    name is used then: the reading decides, for Python 3.15; before, it is a syntax error);
    and, into `from_lines`, the text of each line that may be a `from` import, as grimp
    reports it (stripped)."""
    imported = sorted(graph.find_modules_directly_imported_by(module))
    found = []
    for target in imported:
        lazy: dict[int, bool] = {}
        for detail in graph.get_import_details(importer=module, imported=target):
            line = detail["line_number"]
            lazy[line] = bool(detail.get("is_lazy"))
            if from_lines is not None and "from" in detail["line_contents"]:
                from_lines[line] = detail["line_contents"]
        too_new = [line for line in sorted(lazy) if lazy[line]]
        if too_new and not target_python().lazy:
            path = source_file(module)
            raise UnreadableSourceError(
                f"{display_path(path) if path else module}:{too_new[0]}: `lazy import` is a "
                f"syntax error before Python 3.15, and python_version is {target_python().shown}."
            )
        found.append((target, sorted(lazy)))
    return imported, found


def _exists(entry: object) -> bool:
    stored = stored_reading(entry)
    return stored is not None and os.path.isfile(stored.path)
