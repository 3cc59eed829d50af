"""Which cache directory this run of lint-imports uses, so that our caches sit beside grimp's,
and how their files are sealed."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import click

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


# When this run's graph began to be built, at the latest, on the clock that stamps files'
# modification times (Linux stamps them from its coarse clock, which lags the precise one by
# a tick at most). lint-imports builds its graph before it imports the contract types, so
# this is when the process started (where the system says; else when this package was
# imported), until this package's own commands mark the start of a graph they build
# (`graph_build_starts`). A file modified since may have been read by grimp as it was before
# and by the contracts as it is after.
_COARSE = getattr(time, "CLOCK_REALTIME_COARSE", None)


def _now() -> float:
    return time.time() if _COARSE is None else time.clock_gettime(_COARSE)


def _process_start() -> float:
    now = _now()
    try:
        # Linux: the process's start, in clock ticks since boot (field 22 of its stat).
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age - 0.01  # (a tick earlier: the start is counted in whole ticks)


_graph_build_start = [_process_start()]


def graph_build_starts() -> None:
    """Mark the start of a graph's build: the files the contracts then read that were
    modified since may not be the files grimp read (`modified_during_run`)."""
    _graph_build_start[0] = _now()


def modified_during_run(modification_time: float) -> bool:
    """Whether a file with this modification time may have changed after grimp read it."""
    return modification_time >= _graph_build_start[0]


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
