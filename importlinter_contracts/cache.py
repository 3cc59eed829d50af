"""Which cache directory this run of lint-imports uses, so that our caches sit beside grimp's,
and how their files are sealed."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import click
import grimp

DEFAULT_CACHE_DIR = Path(".import_linter_cache")

_chosen: ContextVar[tuple[Path | None] | None] = ContextVar("cache_directory", default=None)


def cache_directory() -> Path | None:
    """The cache directory of the current run, or None when caching is off.

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
def using_cache_directory(directory: Path | None) -> Iterator[None]:
    """Run contracts with this cache directory (None: no cache), outside any command line."""
    token = _chosen.set((directory,))
    try:
        yield
    finally:
        _chosen.reset(token)


def grimp_file_times(cache_dir: Path, root_packages: Iterable[str]) -> dict[str, float] | None:
    """The modification time of each module's file as grimp found it when it built this
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
    """The digest the caches key and seal their contents with."""
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).digest()


def sealed(magic: bytes, payload: bytes) -> bytes:
    return magic + digest(payload) + payload


def unsealed(magic: bytes, data: bytes) -> bytes:
    """What `sealed` wrote with `magic`; ValueError for anything else."""
    start = len(magic) + DIGEST_SIZE
    payload = data[start:]
    if not data.startswith(magic) or data[len(magic) : start] != digest(payload):
        raise ValueError("not a cache file of this version")
    return payload


@functools.cache
def code_identity() -> tuple[object, ...]:
    """What a cache this package writes depends on besides the files it read: the code that
    reads and walks them (this package's own files, as installed or edited: each one's name,
    modification time and size, when first asked, which is about when the code running was
    imported), how the running Python's `ast` reads files, and how grimp reports imports. A
    cache written by other code is not used, even where its format looks the same."""
    package = Path(__file__).parent
    files = []
    for path in sorted(package.rglob("*.py")):
        status = path.stat()
        files.append((path.relative_to(package).as_posix(), status.st_mtime_ns, status.st_size))
    return (sys.version_info[:2], grimp.__version__, tuple(files))
