"""What runs inside the fresh interpreter of a `runtime_isolation` contract.

It is run as `python -c <this file's text>` with its request as JSON on stdin, so that it
needs nothing of this package (the interpreter may be another environment's), puts no folder
of ours on sys.path, and leaves nothing in sys.argv. It blocks the SDKs, imports the probes
with an import hook that notes who imported each module of the recorded packages, calls the
detector, and sends what it saw through a pipe it inherited (a file descriptor named only in
the request), framed with the run's random token: whatever the analysed code prints or
writes to files cannot be taken for the result. It also reports what the parent needs to
tell later whether a new run could see anything else (see `Observations`): every file read
or tried, every folder listed, the environment variables read, and whether the code did
something the parent cannot check again (started a process).

It uses only the standard library and must run on any Python 3 the analysed code supports
(annotations are never evaluated). The parent imports it too, for `folder_listing`: what runs
only in the child is under `__main__`.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    # No `__pycache__` in the analysed tree: the probe only reads it.
    sys.dont_write_bytecode = True
    # `python -c` puts the working directory first on sys.path: no module there may stand in
    # for one the probe imports. The request's sys.path, the working directory included, is
    # put in place before the probes are imported.
    sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]

import _thread
import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import reprlib
import stat
import traceback
from types import FrameType
from typing import Any

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


# What the machine reports of itself (the kernel's files, devices): not the analysed code's
# input, and different in every process (/proc/self), so not in the key.
MACHINE_FOLDERS = ("/proc/", "/sys/", "/dev/")
STANDARD_LIBRARY = os.path.dirname(os.__file__)
# The standard library's queries of the machine (`uname -p`, `file` on the interpreter): the
# interpreter and the machine are the same for every run of one key.
PLATFORM_MODULE = os.path.join(STANDARD_LIBRARY, "platform.py")
# Read by the interpreter, the C library and the dynamic linker, which no Python code sees.
READ_AT_START = ("PYTHON", "LC_", "LANG", "LD_", "TZ")


def read_at_start(environment: Any) -> dict[str, str]:
    """Return the variables whose names start with READ_AT_START, with their values."""
    return {name: value for name, value in environment.items() if name.startswith(READ_AT_START)}


# The probe's own checks, which the code under test's (os.stat once watched) must not note.
_stat = os.stat
PROCESS_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn")
FORK_EVENTS = ("os.fork", "os.forkpty")
# A socket that sends or connects asks another process or machine, whose answer may change.
SOCKET_EVENTS = ("socket.connect", "socket.sendto", "socket.sendmsg")


def folder_listing(folder: str, suffixes: list[str] | None) -> str | None:
    """Return the digest of what a folder holds, each name marked when it is a folder: every entry,
    or (given the interpreter's module suffixes) those an import could find: folders named
    like a module (packages, namespace packages), module files, `.pth` files and the
    installed distributions (`name-version.dist-info`, which importlib.metadata reads). Not
    other files, nor hidden ones such as import-linter's cache. None for a folder that cannot
    be listed."""
    found = []
    try:
        with os.scandir(folder or ".") as entries:
            for entry in entries:
                name = entry.name
                is_folder = entry.is_dir()
                if suffixes is None or (
                    name.endswith((".dist-info", ".egg-info"))
                    or (
                        name.partition(".")[0].isidentifier()
                        and (name.endswith(tuple(suffixes)) or ("." not in name and is_folder))
                    )
                ):
                    found.append(name + "/" if is_folder else name)
    except OSError:
        return None
    text = "\0".join(sorted(found)).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def module_suffixes() -> list[str]:
    """Return the endings of the files an import of this interpreter could find."""
    return [*importlib.machinery.all_suffixes(), ".pth"]


class Observations:
    """What the outcome of the run depended on besides the request, as an audit hook and the
    environment see it, for the parent to check again before it reuses the result:

    - every file opened for reading (by the import system or the code under test: a module
      whose import raised, one executed from its path, a data file), or tried and absent,
      with its size and modification time then; for a bytecode file, its source (which
      Python checks the bytecode against);
    - every folder listed: by the import system looking a module up (found or not), what an
      import could find there; by the code under test, every entry;
    - the kind of every path the code checked with os.stat or os.lstat (os.path.exists,
      isfile, isdir): a file, a folder, something else, or nothing;
    - the answer of every other question about a path (`QUERIES`: os.access, os.readlink,
      os.path.realpath), which the parent asks again;
    - every environment variable read (its value at the start), and all their names when
      the code iterated over them;
    - the first thing the code did that the parent cannot check again: it started a process,
      used a socket, or asked about a path relative to a folder's file descriptor.
    """

    def __init__(self, suffixes: list[str]) -> None:
        self.suffixes = suffixes
        self.recording = False
        self.files: dict[str, list[int] | None] = {}
        self.searched: dict[str, str | None] = {}
        self.listed: dict[str, str | None] = {}
        self.checked: dict[str, str | None] = {}
        self.checked_links: dict[str, str | None] = {}
        self.queries: dict[str, Any] = {}
        self.uncaptured: str | None = None
        self._busy: set[int] = set()  # threads inside the hook (its own listings are audited)

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.recording or event not in AUDITED:
            return
        thread = _thread.get_ident()
        if thread in self._busy:
            return
        self._busy.add(thread)
        try:
            self._note(event, args, sys._getframe(1))
        except Exception:  # never let the record change what the code under test sees
            self.uncaptured = self.uncaptured or f"the probe could not record an {event} event"
        finally:
            self._busy.discard(thread)

    def _note(self, event: str, args: tuple[Any, ...], caller: FrameType | None) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(flags, int) and flags & os.O_ACCMODE == os.O_WRONLY:
                return
            if not isinstance(flags, int) and isinstance(mode, str) and not set(mode) & set("r+"):
                return
            if isinstance(path, int):
                return  # a file descriptor: the file was opened, and noted, before
            self.read(os.fsdecode(path))
        elif event in ("os.listdir", "os.scandir"):
            folder = args[0] if args[0] is not None else "."
            if isinstance(folder, int):
                self.uncaptured = self.uncaptured or (
                    "the code under test listed a folder by its file descriptor"
                )
                return
            folder = os.path.abspath(os.fsdecode(folder))
            by_import = (
                caller is not None
                and caller.f_code.co_name == "_fill_cache"
                and caller.f_code.co_filename.startswith("<frozen importlib")
            )
            self.list_folder(folder, self.suffixes if by_import else None)
        elif event == "ctypes.dlopen":
            name = args[0]
            if isinstance(name, (str, bytes)) and os.path.isabs(os.fsdecode(name)):
                self.read(os.fsdecode(name))
            # A library named without a folder is the system's dynamic linker's choice.
        elif event.startswith(FORK_EVENTS):
            self.uncaptured = self.uncaptured or "the code under test forked a process"
        elif event in SOCKET_EVENTS:
            address = args[1] if len(args) > 1 else None
            self.uncaptured = self.uncaptured or (
                f"the code under test used a socket ({event} to {_bounded(repr(address))}), "
                "whose answer the cache cannot check"
            )
        elif not _within_platform_module(caller):
            command = args[0] if args else None
            shown = os.fsdecode(command) if isinstance(command, (str, bytes)) else event
            self.uncaptured = self.uncaptured or (
                f"the code under test started a process ({_bounded(shown)}), whose outcome "
                "the cache cannot check"
            )

    def read(self, path: str) -> None:
        """Note a file read or tried, as it is now (the bytecode file as its source)."""
        path = os.path.abspath(path)
        if path.startswith(MACHINE_FOLDERS) or path in self.files:
            return
        if path.endswith(".pyc"):
            with contextlib.suppress(ValueError):  # not in a __pycache__: a sourceless module
                path = importlib.util.source_from_cache(path)
                if path in self.files:
                    return
        try:
            status = _stat(path)
        except OSError:
            self.files[path] = None
            return
        if stat.S_ISREG(status.st_mode):
            self.files[path] = [status.st_size, status.st_mtime_ns]
        else:
            self.uncaptured = self.uncaptured or f"the code under test read {path}, not a file"

    def check(
        self,
        checked: dict[str, str | None],
        path: Any,
        options: dict[str, Any],
        status: os.stat_result | None,
    ) -> None:
        if options.get("follow_symlinks", True) is False:
            checked = self.checked_links
        try:
            path = os.path.abspath(os.fsdecode(path))
        except Exception:  # never let the record change what the code under test sees
            self.uncaptured = self.uncaptured or "the probe could not record a path checked"
            return
        if path not in checked and not (path + os.sep).startswith(MACHINE_FOLDERS):
            checked[path] = path_kind(status)

    def watch_status_checks(self) -> None:
        """Note the kind of every path the code under test checks with os.stat or os.lstat
        (os.path.exists, isfile, isdir, pathlib's exists: a file looked for, found or not).
        The import system calls its own stat, not these."""
        for name, checked in (("stat", self.checked), ("lstat", self.checked_links)):
            real = getattr(os, name)
            watching = _watching(real, checked, self)
            setattr(os, name, watching)
            for functions in (os.supports_fd, os.supports_dir_fd, os.supports_follow_symlinks):
                if real in functions:
                    functions.add(watching)

    def watch_queries(self) -> None:
        """Note the answer of every question in `QUERIES` that the code under test asks
        (os.path.exists(path) is os.stat; os.access(path, os.F_OK) is not, and a symbolic link
        such as /usr/local/cuda keeps its kind when it is pointed elsewhere)."""
        for name in QUERIES:
            module, _, attribute = name.rpartition(".")
            owner = os.path if module == "os.path" else os
            real = getattr(owner, attribute)
            watching = _asking(name, real, self)
            setattr(owner, attribute, watching)
            for functions in (
                os.supports_fd,
                os.supports_dir_fd,
                os.supports_effective_ids,
                os.supports_follow_symlinks,
            ):
                if real in functions:
                    functions.add(watching)

    def note_query(self, name: str, path: Any, options: dict[str, Any], answer: Any) -> None:
        """Note a question about a path and its answer, as `ask` gives it."""
        if options.get("dir_fd") is not None or options.get("effective_ids"):
            self.uncaptured = self.uncaptured or (
                f"the code under test called {name} with dir_fd or effective_ids, which the "
                "cache cannot ask again"
            )
            return
        try:
            path = os.path.abspath(os.fsdecode(path))
            if (path + os.sep).startswith(MACHINE_FOLDERS):
                return
            query = json.dumps([name, path, sorted(options.items())])
            if isinstance(answer, (str, bytes)):
                answer = os.fsdecode(answer)
        except Exception:  # never let the record change what the code under test sees
            self.uncaptured = self.uncaptured or "the probe could not record a path asked about"
            return
        self.queries.setdefault(query, answer)

    def list_folder(self, folder: str, suffixes: list[str] | None) -> None:
        noted = self.searched if suffixes is not None else self.listed
        if folder not in noted and not (folder + os.sep).startswith(MACHINE_FOLDERS):
            noted[folder] = folder_listing(folder, suffixes)

    def note_loaded_modules(self) -> None:
        """Add what the loaded modules came from (an extension module is not opened, but
        loaded by the dynamic linker) and the folders of the loaded packages (a module added
        beside a package's `__init__` may take its place)."""
        for module in list(sys.modules.values()):
            try:
                spec = getattr(module, "__spec__", None)
                if spec is not None and spec.has_location and isinstance(spec.origin, str):
                    self.read(spec.origin)
                for folder in list(getattr(module, "__path__", None) or []):
                    if isinstance(folder, str):
                        self.list_folder(os.path.abspath(folder or "."), self.suffixes)
            except Exception:  # a module object may refuse any attribute
                continue
        self.read(os.path.realpath(sys.executable))


def path_kind(status: os.stat_result | None) -> str | None:
    """Return what a path is, as a check of it sees: a file, a folder, something else, or
    nothing."""
    if status is None:
        return None
    if stat.S_ISREG(status.st_mode):
        return "file"
    return "folder" if stat.S_ISDIR(status.st_mode) else "other"


class _StandIn:
    """A function of `os` that a watching one stands in for: a callable object, not a
    function, so that a class holding it as an attribute does not bind it as a method, as it
    does not bind the built-in function (Python 3.10's pathlib: `_NormalAccessor.stat =
    os.stat`, read when pathlib is imported, after the watch is set)."""

    def __init__(self, call: Any) -> None:
        self.call = call

    def __call__(self, *args: Any, **options: Any) -> Any:
        return self.call(*args, **options)


def _watching(real: Any, checked: dict[str, str | None], observations: Observations) -> Any:
    def watching(path: Any, *args: Any, **options: Any) -> Any:
        noted = observations.recording and not args and options.get("dir_fd") is None
        noted = noted and isinstance(path, (str, bytes, os.PathLike))
        try:
            status = real(path, *args, **options)
        except OSError:
            if noted:
                observations.check(checked, path, options, None)
            raise
        if noted:
            observations.check(checked, path, options, status)
        return status

    return _StandIn(watching)


# The questions about a path, other than its kind, whose answers the key holds.
QUERIES = ("os.access", "os.readlink", "os.path.realpath")
_access, _readlink, _realpath = os.access, os.readlink, os.path.realpath


def ask(query: str) -> Any:
    """Return the answer to a question noted by `Observations.note_query` (JSON: the function,
    the absolute path, its other arguments), as it is now: what the function returns (a
    path as text), or None where it raises OSError."""
    name, path, options = json.loads(query)
    arguments: dict[str, Any] = dict(options)
    answer: Any
    try:
        if name == "os.access":
            answer = _access(path, arguments.pop("mode"), **arguments)
        elif name == "os.readlink":
            answer = _readlink(path, **arguments)
        else:
            answer = _realpath(path, **arguments)
    except OSError:
        return None
    return os.fsdecode(answer) if isinstance(answer, (str, bytes)) else answer


def _asking(name: str, real: Any, observations: Observations) -> Any:
    def asking(path: Any, *args: Any, **options: Any) -> Any:
        noted = observations.recording and isinstance(path, (str, bytes, os.PathLike))
        noted = noted and len(args) <= 1
        query = dict(options, **({"mode": args[0]} if args else {}))
        try:
            answer = real(path, *args, **options)
        except OSError:
            if noted:
                observations.note_query(name, path, query, None)
            raise
        if noted:
            observations.note_query(name, path, query, answer)
        return answer

    return _StandIn(asking)


AUDITED = frozenset(
    (
        "open",
        "os.listdir",
        "os.scandir",
        "ctypes.dlopen",
        *PROCESS_EVENTS,
        *FORK_EVENTS,
        *SOCKET_EVENTS,
    )
)


def _within_platform_module(frame: FrameType | None) -> bool:
    """Whether the process is the platform module's (called from the standard library only)."""
    while frame is not None and frame.f_code.co_filename.startswith(STANDARD_LIBRARY):
        if frame.f_code.co_filename == PLATFORM_MODULE:
            return True
        frame = frame.f_back
    return False


class EnvironmentReads:
    """The value each environment variable had at the start, for every variable the code
    read (by name, through `in`, os.getenv, or while iterating: .items(), .copy(),
    dict(os.environ), through os.environ or os.environb); and whether it iterated over
    them, when the names of all of them count. (The variables the interpreter, the C library
    and the dynamic linker read, set or not, the parent always counts: `read_at_start`.)"""

    def __init__(self) -> None:
        self.original = dict(os.environ)
        self.values: dict[str, str | None] = {}
        self.every_name = False

    def install(self) -> None:
        reads = self

        class RecordingEnviron(type(os.environ)):  # type: ignore[misc]
            def __iter__(self) -> Any:
                reads.every_name = True
                return super().__iter__()

            def __len__(self) -> int:
                reads.every_name = True
                length: int = super().__len__()
                return length

            def __getitem__(self, key: Any) -> Any:
                reads.note(key)
                return super().__getitem__(key)

            def __repr__(self) -> str:
                reads.every_name = True
                for name in reads.original:
                    reads.note(name)
                text: str = super().__repr__()
                return text

        os.environ.__class__ = RecordingEnviron
        if hasattr(os, "environb"):
            os.environb.__class__ = RecordingEnviron

        # os.environ and os.environb keep their values in the dict the `posix` (or `nt`)
        # module holds as `environ`, which code may read directly.
        class RecordingDict(dict):  # type: ignore[type-arg]
            def __getitem__(self, key: Any) -> Any:
                reads.note(key)
                return super().__getitem__(key)

            def get(self, key: Any, default: Any = None) -> Any:
                reads.note(key)
                return super().get(key, default)

            def __contains__(self, key: Any) -> bool:
                reads.note(key)
                return super().__contains__(key)

            def __iter__(self) -> Any:
                reads.every_name = True
                return super().__iter__()

            def __len__(self) -> int:
                reads.every_name = True
                return super().__len__()

            def _every(self) -> None:
                reads.every_name = True
                for name in reads.original:
                    reads.note(name)

            def keys(self) -> Any:
                reads.every_name = True
                return super().keys()

            def values(self) -> Any:
                self._every()
                return super().values()

            def items(self) -> Any:
                self._every()
                return super().items()

            def copy(self) -> Any:
                self._every()
                return dict(super().items())

            def __repr__(self) -> str:
                self._every()
                return super().__repr__()

        system: Any = sys.modules.get(os.name)
        shared: dict[Any, Any] | None = vars(os.environ).get("_data")
        if getattr(system, "environ", None) is shared and shared is not None:
            recording = RecordingDict(shared)
            system.environ = recording
            for environ in (os.environ, getattr(os, "environb", None)):
                if getattr(environ, "_data", None) is shared:
                    environ._data = recording  # type: ignore[union-attr]

    def note(self, key: Any) -> None:
        if isinstance(key, bytes):
            key = os.fsdecode(key)
        if isinstance(key, str) and key not in self.values:
            self.values[key] = self.original.get(key)


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
    environment = EnvironmentReads()
    environment.install()
    observations = Observations(module_suffixes())
    sys.addaudithook(observations.audit)
    observations.watch_status_checks()
    observations.watch_queries()
    observations.recording = True
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
    observations.recording = False
    observations.note_loaded_modules()

    result["modules"] = sorted(
        name
        for name, module in list(sys.modules.items())
        if isinstance(name, str) and module is not None
    )
    result["importers"] = dict(recorder.importers)
    # (Python 3.15's lazy imports: the global mode this interpreter ran with.)
    result["lazy_imports"] = sys.get_lazy_imports() if hasattr(sys, "get_lazy_imports") else None
    result["environment"] = {
        "sys_path": [entry for entry in sys.path if isinstance(entry, str)],
        "suffixes": observations.suffixes,
        "files": observations.files,
        "searched": observations.searched,
        "listed": observations.listed,
        "checked": observations.checked,
        "checked_links": observations.checked_links,
        "queries": observations.queries,
        "variables": environment.values,
        "read_at_start": read_at_start(environment.original),
        "every_variable": sorted(environment.original) if environment.every_name else None,
        "uncaptured": observations.uncaptured,
    }
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a stream the code under test replaced or closed
            stream.flush()
    _send(result_fd, identity, token, result)
    # Done: what the code under test left running (threads, atexit handlers) is not waited for.
    os._exit(0)


if __name__ == "__main__":
    main()
