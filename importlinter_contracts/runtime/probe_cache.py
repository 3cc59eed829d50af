"""The probe's result, kept between runs under a key of everything that can change it.

The key has two parts. What the parent knows before any run: the probe's own code, the
interpreter's path, the working directory and the request (sys.path, blocked modules, probe
modules, detector). And what only the run can tell, which the child reports (see
`probe.Observations`) and a later run checks again without starting a process: the content
of every file the run read or tried (modules whose import raised, modules executed from their
path, data files; the files of the loaded modules; the interpreter's executable), and which
of them were absent; what each folder the import system searched holds that an import could
find, and everything in each folder the code itself listed; the kind of each path the code
checked with os.stat or os.lstat (a file, a folder, nothing), and the answer of every other
question it asked about a path (os.access, os.readlink, os.path.realpath: a symbolic link
pointed elsewhere keeps its kind); what each folder of its
sys.path holds (modules, packages, `.pth` files, the installed distributions); and the value
each environment variable had that the code read, with the names of all of them when the
code iterated over them (through os.environ, os.environb, os.getenv or the `posix` module's
`environ`), and every variable the interpreter reads at its start. A run that did something
this cannot capture (it started a process) is not kept.

A file whose size and modification time are unchanged is taken as unchanged, and so is a
folder whose modification time is, as git does, except one modified within two seconds of
the run, which is always read again; a file or folder that changed during the run makes the
result not cached. Anything unreadable or of another shape in the cache is ignored, and the
probe runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from stat import S_ISREG
from typing import Any

from ..cache import DIGEST_SIZE, digest, write_cache
from .probe import ask, folder_listing, path_kind, read_at_start
from .process import PROBE_SOURCE, ProbeRun

# Raised whenever what is stored, or how the key is made, changes.
_FORMAT = 3
# Entries kept per key: one per environment the code saw, so that runs from a shell, a
# Makefile and an IDE, whose environments differ, do not replace each other's.
_ENVIRONMENTS_KEPT = 4
# A file modified this close to the run may change again within its clock's resolution.
_RACY_NANOSECONDS = 2_000_000_000


def _digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(
            handle, lambda: hashlib.blake2b(digest_size=DIGEST_SIZE)
        ).hexdigest()


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
        self.folder = cache_dir / "importlinter_contracts" / "runtime"
        self.key = key

    def _entries(self) -> list[Path]:
        """This key's entries, one per environment the code saw, the most recently used
        first."""
        try:
            with os.scandir(self.folder) as found:
                named = [
                    (entry.stat().st_mtime_ns, Path(entry.path))
                    for entry in found
                    if entry.name.startswith(f"{self.key}.") and entry.name.endswith(".json")
                ]
        except OSError:
            return []
        return [path for _, path in sorted(named, reverse=True)]

    def load(self) -> tuple[ProbeRun | None, str]:
        """Return the cached run if nothing it depends on has changed, else None; and why not (as
        the most recently used entry tells)."""
        entries = self._entries()
        reasons = []
        for path in entries:
            try:
                entry = json.loads(path.read_bytes())
                run, why = self._check(entry)
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                run, why = None, "the cached result cannot be read"
            if run is None:
                reasons.append(why)
                continue
            # Neither is more than the next check's speed: a failure is no warning.
            if entry.get("refreshed"):
                write_cache(path, _stored(entry), _NAME, _THEN)
            elif path != entries[0]:
                with contextlib.suppress(OSError):
                    os.utime(path)  # the most recently used: the last to be dropped
            return run, why
        return None, reasons[0] if reasons else "nothing cached for these options yet"

    def _check(self, entry: dict[str, Any]) -> tuple[ProbeRun | None, str]:
        if entry["format"] != _FORMAT:
            return None, "the cached result is of another format"
        if entry["every_variable"] is not None and sorted(os.environ) != entry["every_variable"]:
            return None, "the environment has changed (the code under test read all of it)"
        for name, value in entry["variables"].items():
            if os.environ.get(name) != value:
                return None, f"the environment variable {name} has changed"
        now, then = read_at_start(os.environ), entry["read_at_start"]
        for name in sorted(now.keys() | then.keys()):
            if now.get(name) != then.get(name):
                return None, f"the environment variable {name} has changed"
        suffixes = entry["suffixes"]
        for folder, listing in entry["sys_path"].items():
            if folder_listing(folder, suffixes) != listing:
                return None, f"what {folder or '.'} holds has changed"
        by_link = set(entry["by_link"])
        entry["refreshed"] = False
        for kind, chosen in (("searched", suffixes), ("listed", None)):
            for folder, state in entry[kind].items():
                modified, listing = state
                status = _status(folder, folder in by_link)
                if folder in by_link and path_kind(status) != "folder":
                    return None, f"{folder} has changed"
                if modified is not None and status is not None and status.st_mtime_ns == modified:
                    continue
                if folder_listing(folder, chosen) != listing:
                    return None, f"what {folder} holds has changed"
                refreshed = _folder_state(status, listing)
                if refreshed != state:
                    entry[kind][folder] = refreshed
                    entry["refreshed"] = True
        for kind, link in (("checked", False), ("checked_links", True)):
            for path, found in entry[kind].items():
                if path_kind(_status(path, link)) != found:
                    return None, f"{path} has changed"
        for query, answer in entry["queries"].items():
            if ask(query) != answer:
                return None, f"{_asked(query)} has changed"
        # Thousands of files (6,600 on vllm-omni): one system call each, nothing more.
        for path, state in entry["files"].items():
            try:
                status = os.lstat(path) if path in by_link else os.stat(path)
            except OSError:
                if state is None:
                    continue
                return None, f"{path} has changed"
            if state is None:
                return None, f"{path} has appeared"
            size, modified, contents = state
            if not S_ISREG(status.st_mode):
                return None, f"{path} has changed"
            if modified == status.st_mtime_ns and size == status.st_size:
                continue
            try:
                if _digest(path) != contents:
                    return None, f"{path} has changed"
            except OSError:
                return None, f"{path} has changed"
            entry["files"][path] = _file_state(status, contents)
            entry["refreshed"] = True
        run = entry["run"]
        return ProbeRun(
            run["result"], run["returncode"], False, run["stderr_tail"], None, run["started"]
        ), "nothing it depends on has changed"

    def store(self, run: ProbeRun) -> tuple[str | None, str | None]:
        """Return why a run that reported a result is not kept, if it is not (the key cannot
        capture what it did, or what it read changed during the run), and a warning when it
        could not be written; keep it otherwise."""
        assert run.result is not None
        environment = run.result["environment"]
        if environment["uncaptured"] is not None:
            return environment["uncaptured"], None
        started_ns = int(run.started * 1e9)
        suffixes = environment["suffixes"]
        files: dict[str, list[Any] | None] = {}
        for path, seen in environment["files"].items():
            status = _status(path)
            if seen is None:
                if status is not None:
                    return f"{path} appeared during the run", None
                files[path] = None
                continue
            if (
                status is None
                or [status.st_size, status.st_mtime_ns] != seen
                or status.st_mtime_ns >= started_ns
            ):
                return f"{path} changed during the run", None
            try:
                files[path] = _file_state(status, _digest(path), started_ns)
            except OSError:
                return f"{path} changed during the run", None
        folders: dict[str, dict[str, list[Any]]] = {}
        for kind, chosen in (("searched", suffixes), ("listed", None)):
            folders[kind] = {}
            for folder, seen in environment[kind].items():
                status = _status(folder)
                if folder_listing(folder, chosen) != seen:
                    return f"what {folder} holds changed during the run", None
                folders[kind][folder] = _folder_state(status, seen, started_ns)
        for kind, link in (("checked", False), ("checked_links", True)):
            for path, found in environment[kind].items():
                if path_kind(_status(path, link)) != found:
                    return f"{path} changed during the run", None
        for query, answer in environment["queries"].items():
            if ask(query) != answer:
                return f"{_asked(query)} changed during the run", None
        checked, checked_links, by_link = _implied_checks(environment, files, folders)
        entry = {
            "format": _FORMAT,
            "variables": environment["variables"],
            "read_at_start": environment["read_at_start"],
            "every_variable": environment["every_variable"],
            "suffixes": suffixes,
            "sys_path": {
                folder: folder_listing(folder, suffixes) for folder in environment["sys_path"]
            },
            **folders,
            "checked": checked,
            "checked_links": checked_links,
            "by_link": by_link,
            "queries": environment["queries"],
            "files": files,
            "run": {
                "result": {k: v for k, v in run.result.items() if k != "environment"},
                "returncode": run.returncode,
                "stderr_tail": run.stderr_tail,
                "started": run.started,
            },
        }
        # One entry per environment the code saw (the shell's, CI's, an IDE's: code that
        # reads all of the environment sees each one differently), the oldest dropped.
        variant = digest(
            json.dumps(
                [entry["variables"], entry["read_at_start"], entry["every_variable"]],
                sort_keys=True,
            ).encode()
        ).hex()
        warning = write_cache(
            self.folder / f"{self.key}.{variant}.json", _stored(entry), _NAME, _THEN
        )
        if warning is not None:
            return None, warning
        for dropped in self._entries()[_ENVIRONMENTS_KEPT:]:
            with contextlib.suppress(OSError):
                dropped.unlink()
        return None, None


# What the warning of a cache that cannot be written calls it, and what happens without it.
_NAME = "runtime-result cache"
_THEN = "the probe runs again on the next check"


def _stored(entry: dict[str, Any]) -> bytes:
    """Return the entry as its cache file holds it (without the mark of a refreshed entry)."""
    return json.dumps({key: value for key, value in entry.items() if key != "refreshed"}).encode()


def _asked(query: str) -> str:
    """A question noted by the probe as messages name it: `os.readlink(/usr/local/cuda)`."""
    name, path, _ = json.loads(query)
    return f"{name}({path})"


def _status(path: str, link: bool = False) -> os.stat_result | None:
    """The path's status (of the link itself, for `link`), or None if there is none."""
    try:
        return os.lstat(path) if link else os.stat(path)
    except OSError:
        return None


def _implied_checks(
    environment: dict[str, Any],
    files: dict[str, list[Any] | None],
    folders: dict[str, dict[str, list[Any]]],
) -> tuple[dict[str, str | None], dict[str, str | None], list[str]]:
    """The paths the code checked whose kind the check of a file or folder it read does not
    already tell; and the files and folders to check without following a link, because the
    code checked them so (os.path.realpath does, for every part of a path: thousands on
    vllm-omni, each one system call fewer on every check)."""

    def told(path: str, kind: str | None) -> bool:
        if kind == "folder":
            return any(path in found for found in folders.values())
        return path in files and (files[path] is None) == (kind is None) and kind != "other"

    by_link = [path for path, kind in environment["checked_links"].items() if told(path, kind)]
    told_by_link = set(by_link)
    checked = {p: k for p, k in environment["checked"].items() if not told(p, k)}
    checked_links = {p: k for p, k in environment["checked_links"].items() if p not in told_by_link}
    return checked, checked_links, sorted(by_link)


def _racy(modified_ns: int, now_ns: int | None) -> bool:
    """Whether a modification time is too recent to trust: the file may change again within
    its clock's resolution, keeping its time."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    return modified_ns >= now_ns - _RACY_NANOSECONDS


def _file_state(status: os.stat_result, contents: str, now_ns: int | None = None) -> list[Any]:
    """[size, modification time, digest of the contents]; no time for a file modified too
    recently to trust it, which is then read again on every check."""
    racy = _racy(status.st_mtime_ns, now_ns)
    return [status.st_size, None if racy else status.st_mtime_ns, contents]


def _folder_state(
    status: os.stat_result | None, listing: str | None, now_ns: int | None = None
) -> list[Any]:
    """[modification time, digest of the listing]; no time for a folder that is missing or
    was modified too recently to trust it, which is then listed again on every check."""
    trusted = status is not None and not _racy(status.st_mtime_ns, now_ns)
    return [status.st_mtime_ns if trusted and status is not None else None, listing]
