"""Import scopes of the graph's modules, read only for the modules asked about, cached per file."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..errors import UnreadableSourceError
from ..locations import display_path, source_file
from .scopes import ImportScope, import_scopes

# Raised whenever the classification changes, so that older cached results are not reused.
_CACHE_FORMAT = 2
_MODULE_LEVEL = ImportScope(eager=True, reason="module level")
_IMPORT_KEYWORDS = (b"import ", b"from ", b"import\t", b"from\t")


class ScopeIndex:
    """Answers "does this import run at import time, and why?" for lines grimp reported.

    Each file is read when a module of it is first asked about; its classification is
    cached in `cache_dir` by the file's content digest (no cache when `cache_dir` is None).
    """

    def __init__(self, cache_dir: Path | None) -> None:
        self._cache_file = (
            cache_dir / "importlinter_contracts" / "import-scopes.json" if cache_dir else None
        )
        self._cached: dict[str, Any] = self._load()
        self._dirty = False
        self._sources: dict[str, tuple[Path, bytes, list[bytes]]] = {}
        self._scopes: dict[str, dict[int, ImportScope]] = {}

    def scope(self, module: str, line: int) -> ImportScope:
        """The scope of the import statement that starts on `line` of `module`."""
        path, source, lines = self._source(module)
        if 0 < line <= len(lines) and lines[line - 1].startswith(_IMPORT_KEYWORDS):
            # A statement that starts in column 0 sits in no block: no need to parse the file.
            return _MODULE_LEVEL
        scopes = self._scopes.get(module)
        if scopes is None:
            scopes = self._scopes[module] = self._classify(path, source)
        found = scopes.get(line)
        if found is None:
            raise UnreadableSourceError(
                f"{display_path(path)}:{line}: grimp reports an import here, but no import "
                "statement starts on this line."
            )
        return found

    def save(self) -> None:
        """Write the classifications read in this run to the cache."""
        if self._cache_file is None or not self._dirty:
            return
        self._cache_file.parent.mkdir(parents=True, exist_ok=True)
        partial = self._cache_file.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps({"format": _CACHE_FORMAT, "files": self._cached}))
        partial.replace(self._cache_file)

    def _source(self, module: str) -> tuple[Path, bytes, list[bytes]]:
        found = self._sources.get(module)
        if found is None:
            path = source_file(module)
            if path is None:
                raise UnreadableSourceError(f"{module}: no source file found for this module.")
            source = path.read_bytes()
            found = self._sources[module] = (path, source, source.splitlines())
        return found

    def _classify(self, path: Path, source: bytes) -> dict[int, ImportScope]:
        key = str(path.resolve())
        digest = hashlib.blake2b(source, digest_size=16).hexdigest()
        cached = self._cached.get(key)
        if cached is not None and cached["digest"] == digest:
            return {int(line): ImportScope(*scope) for line, scope in cached["scopes"].items()}
        try:
            scopes = import_scopes(source)
        except UnreadableSourceError as error:
            raise UnreadableSourceError(
                f"{display_path(path)}: cannot classify its imports: {error}"
            ) from None
        self._cached[key] = {
            "digest": digest,
            "scopes": {line: [scope.eager, scope.reason] for line, scope in scopes.items()},
        }
        self._dirty = True
        return scopes

    def _load(self) -> dict[str, Any]:
        if self._cache_file is None:
            return {}
        try:
            data = json.loads(self._cache_file.read_text())
        except (OSError, ValueError):
            return {}  # no cache yet, or an unreadable one: it is rebuilt
        if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT:
            return {}
        files: dict[str, Any] = data.get("files", {})
        return files
