"""What runs inside the fresh interpreter of a `runtime_isolation` contract.

It is run as `python -c <this file's text>` with its request as JSON on stdin, so that it
needs nothing of this package (the interpreter may be another environment's), puts no folder
of ours on sys.path, and leaves nothing in sys.argv. It blocks the SDKs, imports the probes
with an import hook that notes who imported each module of the recorded packages, calls the
detector, and sends what it saw through a pipe it inherited (a file descriptor named only in
the request), framed with the run's random token: whatever the analysed code prints or
writes to files cannot be taken for the result. It also reports what the parent needs to
tell later whether a new run could see anything else: the files it loaded, its sys.path,
the folders of the packages it loaded, and the environment variables the code read.

It uses only the standard library and must run on any Python 3 the analysed code supports
(annotations are never evaluated).
"""

from __future__ import annotations

import sys

# `python -c` puts the working directory first on sys.path: no module there may stand in for
# one the probe imports. The request's sys.path, the working directory included, is put in
# place before the probes are imported.
sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]

import contextlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import reprlib  # noqa: E402
import traceback  # noqa: E402
from types import FrameType  # noqa: E402
from typing import Any  # noqa: E402

# Any text the probe reports is cut to this many characters: a detector may return anything.
MAX_TEXT = 2000
# Set in a function's code object (not in a module or class body).
CO_OPTIMIZED = 0x1
IMPORTLIB_FOLDER = os.path.dirname(importlib.__file__)
IMPORTLIB_METADATA = os.path.join(IMPORTLIB_FOLDER, "metadata")


def _bounded(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]}... ({len(text)} characters in all)"


def _failure(error: BaseException) -> tuple[str, str | None]:
    """The exception as one line, and the module it found missing, if that is what it was."""
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    missing = getattr(error, "name", None) if isinstance(error, ImportError) else None
    return _bounded(text), missing if isinstance(missing, str) else None


def _within(name: str, packages: list[str]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


class ImportRecorder:
    """A finder that finds nothing: it notes, for each module of the recorded packages, the
    code that first asked for it (module, function, line) and how (an import statement,
    importlib.import_module, an entry point), during which phase of the probe."""

    def __init__(self, packages: list[str]) -> None:
        self.packages = packages
        self.phase = "start"
        self.importers: dict[str, dict[str, Any] | None] = {}

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name not in self.importers and _within(name, self.packages):
            try:
                self.importers[name] = self._importer(name, sys._getframe(1))
            except Exception:  # never let the record change what the code under test sees
                self.importers[name] = None
        return None

    def _importer(self, name: str, frame: FrameType | None) -> dict[str, Any] | None:
        via = "import"
        requested = name
        while frame is not None:
            code = frame.f_code
            if code.co_filename.startswith("<frozen importlib"):
                if code.co_name == "_find_and_load":
                    requested = frame.f_locals.get("name", requested)
            elif code.co_filename.startswith(IMPORTLIB_METADATA):
                via = "entry point"
            elif code.co_filename.startswith(IMPORTLIB_FOLDER):
                if via == "import":
                    via = "importlib"
            else:
                break
            frame = frame.f_back
        if frame is None:
            return None
        code = frame.f_code
        function = None
        if code.co_flags & CO_OPTIMIZED:
            function = getattr(code, "co_qualname", code.co_name)
        importer = frame.f_globals.get("__name__")
        return {
            "importer": importer if isinstance(importer, str) else None,
            "function": function,
            "line": frame.f_lineno,
            "via": via,
            "parent_of": requested if requested != name else None,
            "phase": self.phase,
        }


def _record_environment_reads(reads: dict[str, str | None]) -> None:
    """Note the value each environment variable had when the run started, for every variable
    the code reads by name (os.environ[...], .get, `in`, os.getenv). Values read while
    iterating (os.environ.copy(), dict(os.environ), .items()) are not noted: that would put
    every variable of the shell, such as PWD, into the cache key."""
    original = dict(os.environ)
    iterated: set[str] = set()

    class RecordingEnviron(type(os.environ)):  # type: ignore[misc]
        def __iter__(self) -> Any:
            for key in super().__iter__():
                iterated.add(key)
                yield key

        def __getitem__(self, key: str) -> str:
            if key in iterated:
                iterated.discard(key)
            elif isinstance(key, str) and key not in reads:
                reads[key] = original.get(key)
            value: str = super().__getitem__(key)
            return value

    os.environ.__class__ = RecordingEnviron


def _loaded_files_and_folders() -> tuple[list[str], list[str]]:
    """The files the loaded modules came from, and the folders of the loaded packages."""
    found: set[str] = set()
    folders: set[str] = set()
    for module in list(sys.modules.values()):
        try:
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.has_location and isinstance(spec.origin, str):
                found.add(spec.origin)
            search = getattr(module, "__path__", None)
            if search is not None:
                folders.update(entry for entry in list(search) if isinstance(entry, str))
        except Exception:  # a module object may refuse any attribute
            continue
    files = sorted(f for f in found if os.path.isabs(f) and os.path.isfile(f))
    files.append(os.path.realpath(sys.executable))
    return files, sorted(os.path.abspath(folder or ".") for folder in folders)


def _detect(detector: str, result: dict[str, Any]) -> None:
    module_name, _, attribute = detector.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)()
    except BaseException as error:
        error_text, result["detector_missing"] = _failure(error)
        result["detector_error"] = f"failed: {error_text}"  # follows "the detector NAME"
        return
    detected = _detected_name(found)
    if detected is not None and len(detected) <= MAX_TEXT:
        result["detected"] = detected
    else:
        shown = reprlib.Repr()
        shown.maxstring = shown.maxother = 80
        result["detector_error"] = (
            f"returned {shown.repr(found)}, not a class, a qualified name, a module, or an "
            "instance of a class that is not built in"
        )


def _detected_name(found: object) -> str | None:
    """The qualified name a detector's result stands for: a qualified name as it is; a
    class's; a module's; an object's class (DeepSpeed's get_accelerator() returns one);
    None for anything else (None, '', a number, a list: an instance of a built-in class)."""
    if isinstance(found, str):
        return found or None
    if isinstance(found, type(sys)):  # a module (types.ModuleType)
        name = getattr(found, "__name__", None)
        return name if isinstance(name, str) and name else None
    if not isinstance(found, type):
        found = type(found)
        if found.__module__ == "builtins":
            return None
    module, qualname = getattr(found, "__module__", None), getattr(found, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        return f"{module}.{qualname}"
    return None


def _send(result_fd: int, identity: tuple[int, int], token: str, result: dict[str, Any]) -> None:
    """Write the result, framed as `token`, its length, and the JSON, each on its line."""
    payload = json.dumps(result).encode("utf-8")
    message = memoryview(b"%s\n%d\n%s" % (token.encode("ascii"), len(payload), payload))
    try:
        status = os.fstat(result_fd)
        if (status.st_dev, status.st_ino) != identity:
            raise OSError("it is now another file")
        while message:
            message = message[os.write(result_fd, message) :]
    except OSError as error:
        sys.stderr.write(
            "runtime_isolation probe: cannot send the result: the code under test closed or "
            f"replaced the result pipe (file descriptor {result_fd}): {error}\n"
        )
        sys.stderr.flush()
        os._exit(1)


def main() -> None:
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    token, result_fd = request["token"], request["result_fd"]
    os.set_inheritable(result_fd, False)  # not for the processes the code under test starts
    status = os.fstat(result_fd)
    identity = (status.st_dev, status.st_ino)
    sys.path[:] = request["sys_path"] + [p for p in sys.path if p not in request["sys_path"]]
    environment_reads: dict[str, str | None] = {}
    _record_environment_reads(environment_reads)
    recorder = ImportRecorder(request["record_packages"])
    sys.meta_path.insert(0, recorder)
    for name in request["blocked_modules"]:
        sys.modules[name] = None  # type: ignore[assignment]  # importing it raises ImportError

    result: dict[str, Any] = {
        "probes": [],
        "detected": None,
        "detector_error": None,
        "detector_missing": None,
    }
    recorder.phase = "probe"
    for module in request["probe_modules"]:
        try:
            importlib.import_module(module)
        except BaseException as error:  # a probe may raise anything, SystemExit included
            error_text, missing = _failure(error)
            result["probes"].append({"module": module, "error": error_text, "missing": missing})
        else:
            result["probes"].append({"module": module, "error": None, "missing": None})

    if request["detector"]:
        recorder.phase = "detector"
        _detect(request["detector"], result)
    recorder.phase = "end"

    result["modules"] = sorted(
        name
        for name, module in list(sys.modules.items())
        if isinstance(name, str) and module is not None
    )
    result["importers"] = dict(recorder.importers)
    files, folders = _loaded_files_and_folders()
    result["environment"] = {
        "sys_path": [entry for entry in sys.path if isinstance(entry, str)],
        "files": files,
        "folders": folders,
        "variables": dict(environment_reads),
    }
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a stream the code under test replaced or closed
            stream.flush()
    _send(result_fd, identity, token, result)
    # Done: what the code under test left running (threads, atexit handlers) is not waited for.
    os._exit(0)


if __name__ == "__main__":
    main()
