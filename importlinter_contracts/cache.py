"""Which cache directory this run of lint-imports uses, so that our caches sit beside grimp's,
and how their files are sealed and written."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import click
import grimp

from .errors import FileWriteError
from .files import write_atomically
from .locations import display_path, package_directories

DEFAULT_CACHE_DIR = Path(".import_linter_cache")

_chosen: ContextVar[tuple[Path | None] | None] = ContextVar("cache_directory", default=None)
_chosen_for_grimp: ContextVar[Path | None] = ContextVar("grimp_cache_directory", default=None)


def cache_directory() -> Path | None:
    """Return the cache directory of the current run, or None when caching is off.

    import-linter hands contracts no cache setting, so this reads the `--no-cache` and
    `--cache-dir` options of the running click command (lint-imports' or ours), unless
    `using_cache_directory` chose one.
    """
    chosen = _chosen.get()
    if chosen is not None:
        return chosen[0]
    context = click.get_current_context(silent=True)
    params = context.params if context is not None else {}
    if params.get("no_cache"):
        return None
    if params.get("cache_dir"):
        return Path(params["cache_dir"])
    return DEFAULT_CACHE_DIR


@contextmanager
def using_cache_directory(
    directory: Path | None, grimp_directory: Path | None = None
) -> Iterator[None]:
    """Run contracts with this cache directory (None: no cache), outside any command line;
    grimp's cache is in `grimp_directory` when given (`grimp_cache_folder`)."""
    token = _chosen.set((directory,))
    grimp_token = _chosen_for_grimp.set(grimp_directory)
    try:
        yield
    finally:
        _chosen_for_grimp.reset(grimp_token)
        _chosen.reset(token)


@contextmanager
def using_caches(cache_dir: Path | None, session_options: Mapping[str, Any]) -> Iterator[None]:
    """Run with `cache_dir` as the cache directory (None: no cache), and grimp's cache in the
    folder of it for the tree and graph of these session options (`grimp_cache_folder`), as
    every command of this package does."""
    grimp_cache = None if cache_dir is None else grimp_cache_folder(cache_dir, session_options)
    with using_cache_directory(cache_dir, grimp_cache):
        yield


def without_caches() -> None:
    """Use no cache for the rest of the run that `using_caches` (or `using_cache_directory`)
    chose the caches of, as `--no-cache` does: the run's graph was built without grimp's
    cache, and the caches beside it go by the modification times grimp read."""
    _chosen.set((None,))
    _chosen_for_grimp.set(None)


def grimp_cache_directory() -> Path | None:
    """Return the folder of grimp's cache in the current run: the one `using_cache_directory`
    chose, or else the cache directory itself (where lint-imports has grimp keep it)."""
    return _chosen_for_grimp.get() or cache_directory()


def grimp_cache_folder(cache_dir: Path, session_options: Mapping[str, Any]) -> Path:
    """Return the folder of `cache_dir` where this package's commands have grimp keep its cache:
    one per tree and per graph, named by the digest of the real paths of the root packages'
    folders and of the session options that shape grimp's graph.

    grimp's cache keys each module by its name and its file's modification time, not by the
    file's path: two trees with the same module names and file times (unpacked from one
    archive, or built reproducibly) that share a folder would get each other's imports. And it
    keeps one file of its modules' times per root package, whatever those options, beside a
    file of imports for each choice of them: a run with one choice records a file's new time,
    and a run with the other then takes its own file of imports, made before the edit, as
    fresh.
    """
    folders = sorted(
        os.path.realpath(folder)
        for package in session_options.get("root_packages", ())
        for folder in package_directories(package)
    )
    options = [session_options.get(option) for option in _GRAPH_OPTIONS]
    return cache_dir / "grimp" / digest(("\0".join(folders) + repr(options)).encode()).hex()


def grimp_file_times(cache_dir: Path, root_packages: Iterable[str]) -> dict[str, float] | None:
    """Return the modification time of each module's file as grimp found it when it built this
    run's graph, from the cache grimp writes in `cache_dir` at the end of each build (one
    `<root package>.meta.json` per root package, module -> time: grimp 3's format); None
    where grimp wrote none that can be read."""
    times: dict[str, float] = {}
    for package in root_packages:
        try:
            found = json.loads((cache_dir / f"{package}.meta.json").read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(found, dict):
            return None
        times.update(found)
    return times


# A cache file starts with its kind's magic bytes and the digest of what follows: `marshal`
# reads only what this package wrote (it is not made to read damaged data: a few wrong bytes
# can make it allocate without end).
DIGEST_SIZE = 16


def digest(data: bytes) -> bytes:
    """Return the digest the caches key and seal their contents with."""
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).digest()


# The session options that shape grimp's graph, besides the root packages.
_GRAPH_OPTIONS = ("include_external_packages", "exclude_type_checking_imports")


def graph_digest(graph: grimp.ImportGraph, session_options: Mapping[str, Any]) -> bytes:
    """Return a digest of the modules grimp found in `graph`, with the options that shape it
    (lint-imports' `session_options`): the graph that what the eager walks read is kept for."""
    options = [session_options.get(option) for option in _GRAPH_OPTIONS]
    return digest(
        "\n".join(sorted(graph.modules)).encode()
        + repr(options + sorted(session_options.get("root_packages", ()))).encode()
    )


def imported_digest(graph: grimp.ImportGraph, module: str) -> bytes:
    """Return a digest of the modules that grimp reports `module` imports, in `graph`."""
    return modules_digest(sorted(graph.find_modules_directly_imported_by(module)))


def modules_digest(modules: list[str]) -> bytes:
    """Return a digest of the names of `modules`, in their order."""
    return digest("\n".join(modules).encode())


def sealed(magic: bytes, payload: bytes) -> bytes:
    """Return `payload` as a cache file holds it: after `magic` and its digest."""
    return magic + digest(payload) + payload


def unsealed(magic: bytes, data: bytes) -> bytes:
    """Return what `sealed` wrote with `magic`.

    Raises ValueError for anything else.
    """
    start = len(magic) + DIGEST_SIZE
    payload = data[start:]
    if not data.startswith(magic) or data[len(magic) : start] != digest(payload):
        raise ValueError("not a cache file of this version")
    return payload


def write_cache(file: Path, data: bytes, name: str, then: str) -> str | None:
    """Write a cache file's `data`, and its folder where there is none.
    A cache that cannot be written costs only time: return a warning that names it (`name`:
    "import-scope cache", say) and says what the next run does without it (`then`); None
    where it is written."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(file, data, durable=False)
    except (OSError, FileWriteError) as error:
        reason = error.reason if isinstance(error, FileWriteError) else error.strerror
        return f"The {name} {display_path(file)} cannot be written ({reason or error}): {then}."
    return None


@functools.cache
def code_identity() -> tuple[object, ...]:
    """Return what a cache this package writes depends on besides the files it read: the code that
    reads and walks them (this package's own files, as installed or edited: each one's name,
    modification time and size, when first asked, which is about when the code running was
    imported), how the running Python's `ast` reads files, and how grimp reports imports. A
    cache written by other code is not used, even where its format looks the same."""
    # (os.scandir, not Path.rglob: every run asks, and a Path per file costs most of it.)
    files = []
    folders = [(os.path.dirname(__file__), "")]
    for folder, prefix in folders:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir() and entry.name != "__pycache__":
                    folders.append((entry.path, f"{prefix}{entry.name}/"))
                elif entry.name.endswith(".py"):
                    status = entry.stat()
                    files.append((f"{prefix}{entry.name}", status.st_mtime_ns, status.st_size))
    return (sys.version_info[:2], grimp.__version__, tuple(sorted(files)))
