"""What the import graph cannot see: folders below the root packages that hold Python files
but no `__init__.py`, and packages that a module file of the same name hides from it.

grimp builds the graph from the root packages' folders and leaves out every folder without an
`__init__.py` inside a package (a namespace portion there), with everything below it: those
modules are not in the graph, nor is any import into, out of or within them, so no static
contract can check them. A run warns about them (`warnings`), and an error about a module
that is not in the graph names the missing `__init__.py` when that is the cause (`explain`).
Where a folder holds both `x.py` and a package `x/`, Python imports the package and never
the file, but grimp reads the file for module `x`: that is warned about too. The first static
contract of a run gives these warnings, the others do not (`run_warnings`). Only folder
listings are read, once per run (`unseen_folders`), and not at all where the cache keeps them
and no listed folder has changed since (its modification time: adding, removing or renaming
an entry changes it).
"""

import marshal
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from grimp import ImportGraph

from .cache import cache_directory, code_identity, sealed, unsealed, write_cache
from .locations import display_path, package_directories
from .modules import nearest_module, parents

# The paths a warning shows; the count says how many more there are.
SHOWN_FOLDERS = 5


class UnseenFolders(NamedTuple):
    """The folders without `__init__.py` that hide Python files from the graph."""

    folders: tuple[Path, ...]  # each folder without __init__.py with .py files at or below
    file_count: int  # the .py files the graph leaves out
    # Each module left out (the folders without __init__.py among them, as namespace
    # packages) -> the folders without __init__.py on its way, outermost first.
    missing_inits: Mapping[str, tuple[Path, ...]]
    # Each module file beside a package of the same name, which Python imports instead.
    shadowed: tuple[Path, ...] = ()

    def warnings(self) -> list[str]:
        """Return the warnings every static contract gives: none when the graph sees everything."""
        found = [self._folders_warning()] if self.folders else []
        return found + ([self._shadowed_warning()] if self.shadowed else [])

    def _shadowed_warning(self) -> str:
        one = len(self.shadowed) == 1
        files, them = ("file", "it") if one else ("files", "them")
        return (
            f"{len(self.shadowed)} module {files} beside a package of the same name: Python "
            f"imports the package and never the {files}, but the import graph reads the "
            f"{files} for the module, so no import of the package's __init__.py is checked. "
            f"Remove {them} (or rename {them}): {_listed(self.shadowed)}."
        )

    def _folders_warning(self) -> str:
        count = len(self.folders)
        return (
            f"{count} {'folder' if count == 1 else 'folders'} below the root packages "
            f"{'holds' if count == 1 else 'hold'} .py files but no __init__.py, so the import "
            f"graph leaves out the {self.file_count} "
            f"{'module' if self.file_count == 1 else 'modules'} in "
            f"{'it' if count == 1 else 'them'}: no import into, out of or within "
            f"{'it' if count == 1 else 'them'} is checked. Add an __init__.py to each (or, for "
            "a namespace package, use import-linter's namespace-package support: name its "
            f"portions as root packages): {_listed(self.folders)}."
        )

    def explain(self, *names: str) -> str:
        """Return why these modules (or module expressions) are not in the graph, as a parenthesis
        to insert after them, when a folder without `__init__.py` is the cause; else ''."""
        missing: set[Path] = set()
        for name in names:
            if "*" in name:
                for module in _matching(name, self.missing_inits):
                    missing |= set(self.missing_inits[module])
            else:
                missing |= set(self.missing_inits.get(name, ()))
        if not missing:
            return ""
        files = [display_path(folder / "__init__.py") for folder in sorted(missing)]
        listed = files[0] if len(files) == 1 else f"{', '.join(files[:-1])} and {files[-1]}"
        return (
            f" ({listed} {'is' if len(files) == 1 else 'are'} missing: the graph leaves out a "
            "folder without one, and everything in it)"
        )

    def why_absent(self, graph: ImportGraph, module: str, quote: str = "") -> str:
        """Return what follows "... is not a module of the graph" for `module` (a name, not an
        expression): why, where a folder without `__init__.py` is the cause, or else the
        nearest module's name (in `quote`s), as the end of the sentence. (A module that is
        not there at all may be in a package that the graph leaves out.)"""
        explanation = next(filter(None, map(self.explain, (module, *parents(module)))), "")
        if explanation:
            return f"{explanation}."
        near = nearest_module(graph, module)
        return f": did you mean {quote}{near}{quote}?" if near else "."


def _listed(paths: tuple[Path, ...]) -> str:
    """The first `SHOWN_FOLDERS` paths, and how many more there are."""
    shown = ", ".join(display_path(path) for path in paths[:SHOWN_FOLDERS])
    more = len(paths) - SHOWN_FOLDERS
    return f"{shown}, and {more} more" if more > 0 else shown


def _matching(expression: str, modules: Iterable[str]) -> set[str]:
    """The modules a wildcard expression matches, as grimp matches them."""
    graph = ImportGraph()
    for module in modules:
        graph.add_module(module)
    return set(graph.find_matching_modules(expression))


# The last run's scan, kept while the run's session options (one object that import-linter
# hands to every contract of a run) are the same object: one scan per run, however many
# static contracts it checks. A new run, even on the same folder, scans afresh. With it, the
# warning that the cache could not keep it (`_kept_scan`).
_last_scan: tuple[Mapping[str, Any], UnseenFolders, str | None] | None = None
# The session options of the last run whose warnings were given.
_last_warned: Mapping[str, Any] | None = None


def run_warnings(session_options: Mapping[str, Any]) -> list[str]:
    """Return the warnings about what the run's graph cannot see for the first static
    contract of the run that asks, and none for the others: they concern the graph that every
    contract of the run shares, and a report gives each once (in text, annotations and SARIF
    alike)."""
    global _last_warned
    if _last_warned is session_options:
        return []
    _last_warned = session_options
    unseen, cache_warning = _run_scan(session_options)
    return unseen.warnings() + ([cache_warning] if cache_warning else [])


def unseen_folders(session_options: Mapping[str, Any]) -> UnseenFolders:
    """Return the folders without `__init__.py` below the run's root packages, scanned once per
    run."""
    return _run_scan(session_options)[0]


def _run_scan(session_options: Mapping[str, Any]) -> tuple[UnseenFolders, str | None]:
    """Return `unseen_folders`, with the warning that the cache could not keep them."""
    global _last_scan
    if _last_scan is None or _last_scan[0] is not session_options:
        roots = [
            (package, directory)
            for package in session_options["root_packages"]
            for directory in package_directories(package)
        ]
        _last_scan = (session_options, *_kept_scan(roots, cache_directory()))
    return _last_scan[1], _last_scan[2]


def scan(roots: list[tuple[str, Path]]) -> UnseenFolders:
    """Return the folders without `__init__.py` that grimp leaves out below these root packages
    (package name, folder): as grimp walks, a folder without one counts only inside a
    package (above the first `__init__.py`, a root's folders are namespace packages, which
    the graph holds), and folders whose names are not identifiers are skipped."""
    return _scanned(roots, timed=False).found


_MAGIC = b"importlinter-contracts unseen folders\n"
CACHE_FILE = Path("importlinter_contracts") / "unseen-folders.cache"
# A folder changed this recently may change again within its file system's time step, its
# time staying the same (as git's "racy" files): a scan that lists one is not kept.
_SETTLED_NS = 2_000_000_000


def _kept_scan(
    roots: list[tuple[str, Path]], cache_dir: Path | None
) -> tuple[UnseenFolders, str | None]:
    """Return `scan(roots)`: as the cache in `cache_dir` keeps it where every folder it
    listed has its modification time still (none: scanned), else scanned and kept. A cache
    that cannot be written costs only time: return a warning with it."""
    if cache_dir is None:
        return scan(roots), None
    file = cache_dir / CACHE_FILE
    # (Two copies of a tree, unpacked from one archive, may have the same times: the key
    # holds where the folders are, and the paths the scan records are as they were found.)
    key = (
        os.getcwd(),
        [(package, str(folder), os.path.realpath(folder)) for package, folder in roots],
    )
    try:
        data = marshal.loads(unsealed(_MAGIC, file.read_bytes()))
        if (
            data[0] == code_identity()
            and data[1] == key
            and all(os.stat(folder).st_mtime_ns == time_ns for folder, time_ns in data[2])
        ):
            folders, file_count, missing, shadowed = data[3]
            kept = UnseenFolders(
                tuple(map(Path, folders)),
                file_count,
                {module: tuple(map(Path, way)) for module, way in missing.items()},
                tuple(map(Path, shadowed)),
            )
            return kept, None
    except (OSError, EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError):
        pass  # none yet, an unreadable file, or a folder gone: scanned again
    started = time.time_ns()
    scanned = _scanned(roots, timed=True)
    found = scanned.found
    if not scanned.settled(started):
        return found, None
    listing = (
        tuple(map(str, found.folders)),
        found.file_count,
        {module: tuple(map(str, way)) for module, way in found.missing_inits.items()},
        tuple(map(str, found.shadowed)),
    )
    record: Any = (code_identity(), key, scanned.listed, listing)
    return found, write_cache(
        file,
        sealed(_MAGIC, marshal.dumps(record)),
        "unseen-folders cache",
        "the folders are listed again on the next run",
    )


def _scanned(roots: list[tuple[str, Path]], timed: bool) -> "_Scan":
    """Return the scan of `roots` (`scan`), with each folder's modification time where
    `timed` (for the cache)."""
    found = _Scan(timed)
    for package, directory in roots:
        found.visible(str(directory), package, False)
    return found


class _Scan:
    """What `scan` has found so far, and its walk through the folders."""

    # (Methods, not functions nested in `scan`: a nested function that calls itself holds
    # itself through its closure, a reference cycle, which only the cyclic garbage
    # collector frees, and the eager-import contract pauses it.)

    def __init__(self, timed: bool) -> None:
        self.timed = timed
        # Folders are strings while walked (a Path per folder cost the most of the scan),
        # and Paths where recorded.
        self.folders: list[Path] = []
        self.missing_inits: dict[str, tuple[Path, ...]] = {}
        self.shadowed: list[Path] = []
        self.file_count = 0
        # Where `timed`: each folder listed, with its modification time before it was
        # listed; whether a folder holds a symbolic link (whose target may change with no
        # folder's time).
        self.listed: list[tuple[str, int]] = []
        self.linked = False

    @property
    def found(self) -> UnseenFolders:
        """What the scan found."""
        return UnseenFolders(
            tuple(sorted(self.folders)),
            self.file_count,
            self.missing_inits,
            tuple(sorted(self.shadowed)),
        )

    def settled(self, started_ns: int) -> bool:
        """Whether the folders' times tell whether they change after the scan (started at
        `started_ns`): none holds a symbolic link or changed just before it."""
        return not self.linked and all(
            time_ns < started_ns - _SETTLED_NS for _, time_ns in self.listed
        )

    def listing(self, directory: str) -> tuple[list[str], list[str]]:
        """A folder's files, and its subfolders whose names are identifiers (sorted)."""
        if self.timed:
            self.listed.append((directory, os.stat(directory).st_mtime_ns))
        files, subfolders = [], []
        with os.scandir(directory) as entries:
            for entry in entries:
                self.linked = self.linked or (self.timed and entry.is_symlink())
                if entry.is_dir(follow_symlinks=False):
                    if entry.name.isidentifier():
                        subfolders.append(entry.name)
                elif entry.is_file():
                    files.append(entry.name)
        return files, sorted(subfolders)

    def left_out(self, directory: str, module: str, missing: tuple[Path, ...]) -> bool:
        """Record the modules below a folder that the graph leaves out; whether it has any."""
        files, subfolders = self.listing(directory)
        if "__init__.py" not in files:
            missing = (*missing, Path(directory))
        found = False
        for name in files:
            if _is_python_file(name):
                stem = name.removesuffix(".py")
                self.missing_inits[module if stem == "__init__" else f"{module}.{stem}"] = missing
                self.file_count += 1
                found = True
        for name in subfolders:
            found = (
                self.left_out(os.path.join(directory, name), f"{module}.{name}", missing) or found
            )
        if found and "__init__.py" not in files:
            self.folders.append(Path(directory))
            self.missing_inits[module] = missing
        return found

    def visible(self, directory: str, module: str, in_package: bool) -> None:
        """Walk a folder that the graph holds (a root's, or one inside a package with an
        `__init__.py` all the way)."""
        files, subfolders = self.listing(directory)
        if in_package and "__init__.py" not in files:
            self.left_out(directory, module, ())
            return
        in_package = in_package or "__init__.py" in files
        for name in subfolders:
            if f"{name}.py" in files and os.path.isfile(
                os.path.join(directory, name, "__init__.py")
            ):
                self.shadowed.append(Path(directory, f"{name}.py"))
            self.visible(os.path.join(directory, name), f"{module}.{name}", in_package)


def _is_python_file(name: str) -> bool:
    # As grimp: no hidden files, and no extra dots (`some.module.py`).
    return name.endswith(".py") and not name.startswith(".") and name.count(".") == 1
