"""What the graph's modules say about import time (the scope of each import, their calls),
read only for the modules asked about, cached per file."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import UnreadableSourceError
from ..locations import display_path, source_file
from . import calls as call_reading
from .scopes import ImportScope, SourceReading, read_source

# Raised whenever the classification changes, so that older cached results are not reused.
_CACHE_FORMAT = 5
_MODULE_LEVEL = ImportScope(eager=True, reason="module level")
_IMPORT_KEYWORDS = (b"import ", b"from ", b"import\t", b"from\t")


class ScopeIndex:
    """Answers "does this import run at import time, and why?" for lines grimp reported.

    Each file is read when a module of it is first asked about; its classification is
    cached in `cache_dir` by the file's content digest (no cache when `cache_dir` is None),
    keyed by its path relative to the working directory (the project). A cache that cannot
    be read, or holds anything but what this version writes, is ignored and rebuilt.
    """

    def __init__(self, cache_dir: Path | None) -> None:
        self._cache_file = (
            cache_dir / "importlinter_contracts" / "import-scopes.json" if cache_dir else None
        )
        self._cached: dict[str, Any] = self._load()
        self._dirty = False
        self._sources: dict[str, tuple[Path, bytes, list[bytes]]] = {}
        self._readings: dict[str, SourceReading] = {}

    def scope(self, module: str, line: int) -> ImportScope:
        """The scope of the import statement that starts on `line` of `module`."""
        path, _, lines = self._source(module)
        if 0 < line <= len(lines) and lines[line - 1].startswith(_IMPORT_KEYWORDS):
            # A statement that starts in column 0 sits in no block: no need to parse the file.
            return _MODULE_LEVEL
        found = self.reading(module).scopes.get(line)
        if found is None:
            raise UnreadableSourceError(
                f"{display_path(path)}:{line}: grimp reports an import here, but no import "
                "statement starts on this line."
            )
        return found

    def reading(self, module: str) -> SourceReading:
        """Everything `module`'s file says about import time."""
        reading = self._readings.get(module)
        if reading is None:
            path, source, _ = self._source(module)
            reading = self._readings[module] = self._read(path, source)
        return reading

    def path(self, module: str) -> Path:
        """The file of `module`."""
        return self._source(module)[0]

    def save(self) -> str | None:
        """Write the classifications read in this run to the cache, dropping the entries of
        files that are gone. A cache that cannot be written costs only time: return a
        warning, and the run goes on."""
        if self._cache_file is None or not self._dirty:
            return None
        files = {key: entry for key, entry in self._cached.items() if os.path.isfile(key)}
        try:
            _write_atomically(
                self._cache_file, json.dumps({"format": _CACHE_FORMAT, "files": files})
            )
        except OSError as error:
            return (
                f"The import-scope cache {display_path(self._cache_file)} cannot be written "
                f"({error.strerror or error}): files are read again on the next run."
            )
        self._cached = files
        self._dirty = False
        return None

    def _source(self, module: str) -> tuple[Path, bytes, list[bytes]]:
        found = self._sources.get(module)
        if found is None:
            path = source_file(module)
            if path is None:
                raise UnreadableSourceError(f"{module}: no source file found for this module.")
            source = path.read_bytes()
            found = self._sources[module] = (path, source, source.splitlines())
        return found

    def _read(self, path: Path, source: bytes) -> SourceReading:
        key = display_path(path)
        digest = hashlib.blake2b(source, digest_size=16).hexdigest()
        cached = _cached_reading(self._cached.get(key), digest)
        if cached is not None:
            return cached
        try:
            reading = read_source(source)
        except UnreadableSourceError as error:
            raise UnreadableSourceError(
                f"{display_path(path)}: cannot classify its imports: {error}"
            ) from None
        self._cached[key] = {
            "digest": digest,
            "scopes": {line: [scope.eager, scope.reason] for line, scope in reading.scopes.items()},
            "calls": None if reading.calls is None else call_reading.to_json(reading.calls),
            "calls_unread": reading.calls_unread,
        }
        self._dirty = True
        return reading

    def _load(self) -> dict[str, Any]:
        if self._cache_file is None:
            return {}
        try:
            data = json.loads(self._cache_file.read_bytes())
        except (OSError, ValueError, RecursionError):
            return {}  # no cache yet, or an unreadable one: it is rebuilt
        if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT:
            return {}
        files = data.get("files")
        # Each entry is checked when it is used (`_cached_reading`).
        return files if isinstance(files, dict) else {}


def _cached_reading(entry: Any, digest: str) -> SourceReading | None:
    """The reading a cache entry holds for a file with this digest; None when the entry is
    missing, of another content, or not of the shape this version writes."""
    if not isinstance(entry, dict) or entry.get("digest") != digest:
        return None
    scopes = _cached_scopes(entry.get("scopes"))
    calls_unread = entry.get("calls_unread")
    if scopes is None or not isinstance(calls_unread, str):
        return None
    try:
        calls = None if entry.get("calls") is None else call_reading.from_json(entry["calls"])
    except ValueError:
        return None
    if (calls is None) != bool(calls_unread):
        return None
    return SourceReading(scopes, calls, calls_unread)


def _cached_scopes(scopes: Any) -> dict[int, ImportScope] | None:
    if not isinstance(scopes, dict):
        return None
    found = {}
    for line, scope in scopes.items():
        if not (
            isinstance(line, str)
            and line.isdigit()
            and isinstance(scope, list)
            and len(scope) == 2
            and isinstance(scope[0], bool)
            and isinstance(scope[1], str)
        ):
            return None
        found[int(line)] = ImportScope(eager=scope[0], reason=scope[1])
    return found


def _write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step; no temporary file is left behind on failure.

    Not synced to disk: a cache lost in a crash is only rebuilt.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
