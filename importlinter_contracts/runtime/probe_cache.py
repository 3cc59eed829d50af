"""The probe's result, kept between runs under a key of everything that can change it.

The key has two parts. What the parent knows before any run: the probe's own code, the
interpreter's path, the working directory and the request (sys.path, blocked modules, probe
modules, detector). And what only the run can tell, which the child reports and a later run
re-checks without starting a process: the content digest of every file the child loaded (its
modules' files and the interpreter's executable); what each folder of its sys.path holds that
an import could find (modules, packages, `.pth` files, and the distributions installed there,
`name-version.dist-info`); the modification time of every loaded package's folders (a module
added or removed there changes it); and the value each environment variable had that the
code read by name.

A file whose size and modification time are unchanged is taken as unchanged, as git does,
except a file modified within two seconds of the run, which is always read again; a file
modified during the run makes the result not cached. Anything unreadable or of another
shape in the cache is ignored, and the probe runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import json
import os
import time
from pathlib import Path
from typing import Any

from ..cache import DIGEST_SIZE, digest
from ..errors import FileWriteError
from ..files import write_atomically
from .process import PROBE_SOURCE, ProbeRun

# Raised whenever what is stored, or how the key is made, changes.
_FORMAT = 1
# A file modified this close to the run may change again within its clock's resolution.
_RACY_NANOSECONDS = 2_000_000_000


def _digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(
            handle, lambda: hashlib.blake2b(digest_size=DIGEST_SIZE)
        ).hexdigest()


def _modified(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


_MODULE_SUFFIXES = (*importlib.machinery.all_suffixes(), ".pth")


def importable_entries(folder: str) -> list[str] | None:
    """What of a sys.path folder an import could find: folders named like a module (packages,
    namespace packages), module files (`.py`, `.pyc`, extension modules), `.pth` files, and the
    installed distributions, as their metadata folders name them (`name-version.dist-info`,
    which importlib.metadata reads too). Not other files, nor hidden ones such as
    import-linter's own cache. None for a folder that cannot be listed."""
    try:
        with os.scandir(folder or ".") as entries:
            found = []
            for entry in entries:
                name = entry.name
                if name.endswith((".dist-info", ".egg-info")) or (
                    name.partition(".")[0].isidentifier()
                    and (name.endswith(_MODULE_SUFFIXES) or ("." not in name and entry.is_dir()))
                ):
                    found.append(name)
    except OSError:
        return None
    return sorted(found)


class ProbeCache:
    """The cached result for one request, in `cache_dir/importlinter_contracts/runtime/`."""

    def __init__(self, cache_dir: Path, python: str, request: dict[str, Any]) -> None:
        key = digest(
            json.dumps(
                {
                    "format": _FORMAT,
                    "probe": digest(PROBE_SOURCE.encode()).hex(),
                    "python": python,
                    "working_directory": os.getcwd(),
                    "request": request,
                },
                sort_keys=True,
            ).encode()
        ).hex()
        self.path = cache_dir / "importlinter_contracts" / "runtime" / f"{key}.json"

    def load(self) -> tuple[ProbeRun | None, str]:
        """The cached run if nothing it depends on has changed, else None; and why not."""
        try:
            entry = json.loads(self.path.read_bytes())
            run, why = self._check(entry)
        except FileNotFoundError:
            return None, "nothing cached for these options yet"
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None, "the cached result cannot be read"
        if run is not None and entry.get("refreshed"):
            with contextlib.suppress(OSError, FileWriteError):  # only the next check's speed
                self._write(entry)
        return run, why

    def _check(self, entry: dict[str, Any]) -> tuple[ProbeRun | None, str]:
        if entry["format"] != _FORMAT:
            return None, "the cached result is of another format"
        for name, value in entry["variables"].items():
            if os.environ.get(name) != value:
                return None, f"the environment variable {name} has changed"
        for folder, entries in entry["sys_path"].items():
            if importable_entries(folder) != entries:
                return None, f"what {folder or '.'} holds has changed"
        for folder, modified in entry["folders"].items():
            if _modified(folder) != modified:
                return None, f"{folder} has changed"
        entry["refreshed"] = False
        for path, (size, modified, contents) in entry["files"].items():
            try:
                status = os.stat(path)
                if modified is not None and (status.st_size, status.st_mtime_ns) == (
                    size,
                    modified,
                ):
                    continue
                if _digest(path) != contents:
                    return None, f"{path} has changed"
            except OSError:
                return None, f"{path} has changed"
            entry["files"][path] = _file_state(path, status, contents)
            entry["refreshed"] = True
        run = entry["run"]
        return ProbeRun(
            run["result"], run["returncode"], False, run["stderr_tail"], None, run["started"]
        ), "nothing it depends on has changed"

    def store(self, run: ProbeRun) -> str | None:
        """Keep a run that reported a result; a warning when that cannot be done."""
        assert run.result is not None
        environment = run.result["environment"]
        started_ns = int(run.started * 1e9)
        files = {}
        try:
            for path in environment["files"]:
                status = os.stat(path)
                if status.st_mtime_ns >= started_ns:
                    return None  # it changed during the run: which version the run saw is unknown
                files[path] = _file_state(path, status, _digest(path), started_ns)
        except OSError:
            return None  # a file the run loaded is gone already: nothing to keep
        entry = {
            "format": _FORMAT,
            "variables": environment["variables"],
            "sys_path": {folder: importable_entries(folder) for folder in environment["sys_path"]},
            "folders": {folder: _modified(folder) for folder in environment["folders"]},
            "files": files,
            "run": {
                "result": {k: v for k, v in run.result.items() if k != "environment"},
                "returncode": run.returncode,
                "stderr_tail": run.stderr_tail,
                "started": run.started,
            },
        }
        try:
            self._write(entry)
        except (OSError, FileWriteError) as error:
            reason = error.reason if isinstance(error, FileWriteError) else error
            return f"The runtime result could not be cached in {self.path.parent}: {reason}."
        return None

    def _write(self, entry: dict[str, Any]) -> None:
        """Write the entry whole or not at all (a cache: lost in a crash, it is made again)."""
        entry.pop("refreshed", None)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, json.dumps(entry).encode(), durable=False)


def _file_state(
    path: str, status: os.stat_result, contents: str, now_ns: int | None = None
) -> list[Any]:
    """[size, modification time, digest of the contents]; no time for a file modified too
    recently to trust it, which is then read again on every check."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    racy = status.st_mtime_ns >= now_ns - _RACY_NANOSECONDS
    return [status.st_size, None if racy else status.st_mtime_ns, contents]
