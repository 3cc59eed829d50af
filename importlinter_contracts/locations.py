"""Where a module's source file is, found without importing or running anything."""

from __future__ import annotations

import importlib.machinery
import os
import stat
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from .report import Location


@cache
def _package_directories(top_level: str, search_path: tuple[str, ...]) -> tuple[Path, ...]:
    # PathFinder only searches the path it is given; unlike importlib.util.find_spec it never
    # runs a parent package, and a top-level name has none anyway.
    spec = importlib.machinery.PathFinder.find_spec(top_level, list(search_path))
    if spec is None or spec.submodule_search_locations is None:
        return ()
    return tuple(Path(location) for location in spec.submodule_search_locations)


def package_directories(package: str) -> list[Path]:
    """Return the folders of a package on sys.path: one for a regular package, one per portion for a
    namespace package (the portions of a dotted root package, `namespace.portion`, included)."""
    top_level, *rest = package.split(".")
    found = (d.joinpath(*rest) for d in _package_directories(top_level, tuple(sys.path)))
    return [directory for directory in found if directory.is_dir()]


def modification_time(path: str) -> float | None:
    """Return a file's modification time, as the caches key it; None where it is gone."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def in_package_folders(path: str, module: str) -> bool:
    """Return whether `path` lies in a folder where `module`'s top-level package is found now: a
    cached file elsewhere is another checkout's (two that share a cache folder, say)."""
    return path.startswith(_folder_prefixes(module.partition(".")[0], tuple(sys.path)))


@cache
def _folder_prefixes(top_level: str, search_path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(os.path.join(folder, "") for folder in _folders(top_level, search_path))


def source_file(module: str) -> Path | None:
    """Return the file that defines `module`, or None for a module with no file of ours."""
    found = source_file_status(module)
    return None if found is None else Path(found[0])


def source_file_status(
    module: str, listings: Listings | None = None
) -> tuple[str, os.stat_result] | None:
    """Return the path of the file that defines `module`, with its status; None for a module with
    no file of ours."""
    return source_file_status_in(top_level_folders(module.partition(".")[0]), module, listings)


def top_level_folders(top_level: str) -> tuple[str, ...]:
    """Return the folders of a top-level package on sys.path (one per portion of a namespace
    package)."""
    return _folders(top_level, tuple(sys.path))


@cache
def _folders(top_level: str, search_path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(map(str, _package_directories(top_level, search_path)))


class Listings:
    """The names in each folder, each folder listed once: a run that looks for thousands of
    modules' files stats only those that exist (on some file systems a path that does not
    exist costs several times what one that does costs, and most modules are not packages,
    whose `__init__.py` is looked for first). Kept for one run: files that appear later are
    not seen."""

    def __init__(self) -> None:
        self._names: dict[str, frozenset[str]] = {}

    def has(self, path: str) -> bool:
        """Return whether the folder of `path` lists its name."""
        folder, name = os.path.split(path)
        names = self._names.get(folder)
        if names is None:
            # (A folder its own folder does not list is not listed: most are a plain
            # module's name, whose `__init__.py` is looked for first.)
            above, own = os.path.split(folder)
            exists = own in self._listed(above) if above != folder else True
            names = self._listed(folder) if exists else frozenset()
            self._names[folder] = names
        return name in names

    def _listed(self, folder: str) -> frozenset[str]:
        names = self._names.get(folder)
        if names is None:
            try:
                names = frozenset(os.listdir(folder))
            except OSError:
                names = frozenset()
            self._names[folder] = names
        return names


def source_file_status_in(
    folders: tuple[str, ...], module: str, listings: Listings | None = None
) -> tuple[str, os.stat_result] | None:
    """Return `source_file_status`, with the folders of `module`'s top-level package given
    (and, through `listings`, the files in them). (A package's `__init__.py` comes before a
    module file of the same name, as Python finds them.)"""
    for directory in folders:
        base = os.path.join(directory, *module.split(".")[1:])
        for candidate in (os.path.join(base, "__init__.py"), base + ".py"):
            if listings is not None and not listings.has(candidate):
                continue
            try:
                status = os.stat(candidate)
            except OSError:
                continue
            if stat.S_ISREG(status.st_mode):
                return candidate, status
    return None


def display_path(path: Path) -> str:
    """Return a path as editors and CI logs link it: relative to the working directory; or, when
    the working directory is outside the tree that holds the file (a configuration kept
    elsewhere), relative to that tree's root (the folder on sys.path the file is found in),
    not climbing out of the working directory and into the tree with `../../..`; a path
    outside both (a cache folder elsewhere), absolute."""
    try:
        shown = os.path.relpath(path)
    except ValueError:  # another drive, on Windows
        return str(path)
    if shown.partition(os.sep)[0] == os.pardir:
        absolute = os.path.abspath(path)
        root = _tree_root(absolute, tuple(sys.path))
        if root is None:
            return absolute
        if not _inside(os.getcwd(), root):
            return os.path.relpath(path, root)
    return shown


def _tree_root(path: str, search_path: tuple[str, ...]) -> str | None:
    """The folder of sys.path that holds `path` (the innermost, for folders inside one
    another), if one does."""
    folders = (os.path.abspath(entry) for entry in search_path if entry)
    return max((f for f in folders if _inside(path, f) and path != f), key=len, default=None)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(os.path.join(folder, ""))


def location(module: str, line_number: int | None) -> Location | None:
    """Return where an import in `module` stands (the module itself for no line), or None when its
    file is not known."""
    path = source_file(module)
    if path is None:
        return None
    return {"path": display_path(path), "line": line_number}


def locations(module: str, line_numbers: list[int]) -> list[Location]:
    """Return the locations of `module`'s imports on these lines; none when its file is not
    known."""
    path = source_file(module)
    if path is None:
        return []
    shown = display_path(path)
    return [{"path": shown, "line": line} for line in line_numbers]


def link_text(where: Location) -> str:
    """Return `path:line` (or just the path), as editors and CI logs link it."""
    return where["path"] if where["line"] is None else f"{where['path']}:{where['line']}"


def module_of_path(path: str, root_packages: Iterable[str]) -> str | None:
    """Return the module that a Python file (or a package's folder) below one of the root
    packages' folders defines, or None when it lies below none of them."""
    target = Path(path).resolve()
    for package in root_packages:
        for directory in package_directories(package):
            try:
                parts = list(target.relative_to(directory.resolve()).parts)
            except ValueError:
                continue
            if parts and parts[-1].endswith(".py"):
                parts[-1] = parts[-1].removesuffix(".py")
                if parts[-1] == "__init__":
                    parts.pop()
            return ".".join([package, *parts])
    return None
