"""Files read ahead of the walks by a second process, on a second core.

A walk reads each module's file when it first reaches one (`scope_cache`); where it will
reach thousands that the import-scope cache does not hold, reading them is most of the
check. A second process then reads the files of the modules the walks may reach while the
walks go on, and sends back what each file says, as the cache keeps it (`module_files`). It
reads first the modules the walks say they will reach (the eager imports of each module they
enter, which a breadth-first walk enters after those it has queued), the last said first:
the far end of the walks' queue, where the walks are not yet, so that the two seldom read the
same file; then the rest from the far end of a breadth-first walk through every import; and
none that a walk said it read itself. (The walks follow only the imports that run, in an
order that no walk through every import foretells.) A walk that reaches a module takes its
reading where it has come back, with the path and modification time the second process
found just before it read the file (a file changed since is read again by the next run);
otherwise it reads the file itself, and says so. What the second process cannot read (a file
that does not parse, say) it leaves to the walk, which reports it as before; if it cannot
start or fails, the walks read every file. Either way each reading is the one the walk makes
of the same file, with the same functions, so a verdict never depends on which process read
it.

The second process runs this Python isolated (`-I -S`: neither the working directory nor
site-packages on its path) and imports only this package's readers, by their path: it never
runs the code it reads, nor a module of the working directory named like one it imports.
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..interrupts import processes_ended_on_signals
from ..locations import Listings, source_file_status_in, top_level_folders
from .module_files import (
    FileReading,
    ReadingLevel,
    StoredReading,
    may_call,
    read_module_file,
    scopes_from_table,
    stored_reading,
    stored_scopes_table,
)
from .scopes import ImportScope
from .target import Target, set_target, target_python

if TYPE_CHECKING:
    import subprocess

# Fewer modules to read than this are read by the walks alone. On vllm-omni 0.30.0 (352
# modules the walks may reach, 74 they do) a second process costs a few milliseconds more
# than it saves; on the benchmark's whole-package trees it pays from a few hundred modules.
READ_AHEAD_FROM = 500
# The second process sends its readings in batches of this many files.
_BATCH = 16
# A batch is far smaller than this: a header that says more was not written by `serve`.
_MAX_BATCH_BYTES = 1 << 26
# What the walks say goes to the process once there are this many bytes of it (a few dozen
# modules' names: one write per few modules entered), in writes of at most `_SAYING` bytes,
# each whole lines: a pipe takes a write of up to 4,096 bytes whole or not at all (POSIX's
# PIPE_BUF), so that a full pipe drops what a write says rather than cutting a line.
_SAY_FROM = 512
_SAYING = 4096
# What the walks say is dropped past this many bytes unsent (the process is not reading it).
_UNSENT = 1 << 20
# The lines the walks send: a module they will reach, one they read themselves.
_WILL_REACH, _READ = b"+", b"-"

_STARTER = """\
import sys, types
# Last: where the compiled build keeps its modules' shared library, beside the package.
sys.path.append({site!r})
packages = ("importlinter_contracts", {package!r}), ("importlinter_contracts.eager", {eager!r})
for name, folder in packages:
    package = types.ModuleType(name)
    package.__path__ = [folder]
    sys.modules[name] = package
# The compiled modules load together or as pure Python, as in the first process.
from importlinter_contracts import compiled
compiled.install()
from importlinter_contracts.eager.read_ahead import serve
serve()
"""


class ReadAhead:
    """The second process, and the readings it has sent back so far."""

    def __init__(self, process: subprocess.Popen[bytes], work: bytes) -> None:
        self._process = process
        # By module: the file's cache entry, with its path and modification time. Filled by a
        # thread that hands the process its work and reads what it sends (the walks go on
        # meanwhile), taken by the walks.
        self._readings: dict[str, StoredReading] = {}
        # The scopes the entries are numbered in, as the process numbered them: each batch
        # brings those it added.
        self._table: list[ImportScope] = []
        # What the walks say (`will_reach`, `read_here`), not yet sent; and the pipe it goes
        # through, which never blocks them, once the process has its work (None till then,
        # and where nothing more can be sent).
        self._said = bytearray()
        self._saying: int | None = None
        self._thread = threading.Thread(target=self._exchange, args=(work,), daemon=True)
        self._thread.start()

    def will_reach(self, modules: Iterable[str]) -> None:
        """Say that the walks will reach `modules`, after those they have queued: the process
        reads them next (the last said first), where it has not yet."""
        self._tell(_WILL_REACH, modules)

    def read_here(self, module: str) -> None:
        """Say that a walk read `module`'s file itself: the process need not."""
        self._tell(_READ, (module,))

    def _tell(self, kind: bytes, modules: Iterable[str]) -> None:
        for module in modules:
            self._said += kind + module.encode() + b"\n"
        if len(self._said) >= _SAY_FROM:
            self._say()

    def _say(self) -> None:
        fd = self._saying
        if fd is None:
            if len(self._said) > _UNSENT:  # (kept until the process has its work)
                self._said.clear()
            return
        said, self._said = self._said, bytearray()
        start = 0
        while start < len(said):
            end = said.rfind(b"\n", start, start + _SAYING) + 1
            if end <= start:
                return  # (no module's name is this long)
            try:
                written = os.write(fd, said[start:end])
            except BlockingIOError:
                return  # a full pipe: what the walks say is only a hint
            except OSError:
                self._saying = None  # the process is gone
                return
            if written < end - start:
                return  # (a pipe that took part of it: the rest is dropped)
            start = end

    def take(self, module: str) -> FileReading | None:
        """Return the reading of `module`'s file, if it has come back; None otherwise. It holds
        the path and the modification time that the second process found just before it
        read the file, as a walk's own reading would: a file changed since is read again
        by the next run, whose modification time differs."""
        found = self._readings.pop(module, None)
        if found is None:
            return None
        record = FileReading.from_entry(found)
        record.unpack_scopes(self._table)
        # (Numbers not in the table: read again, by the walk.)
        return None if record.changed else record

    def kill(self) -> None:
        self._process.kill()

    def close(self) -> None:
        """Stop the process: the walks are done, whatever it has not read is not needed."""
        self._saying = None
        self._process.kill()
        self._process.wait()
        self._thread.join()
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe is not None:
                with suppress(OSError):
                    pipe.close()

    def _exchange(self, work: bytes) -> None:
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(len(work).to_bytes(4, "little") + work)
            process.stdin.flush()
            fd = process.stdin.fileno()
            try:
                os.set_blocking(fd, False)
            except (AttributeError, OSError):
                pass  # (Windows before Python 3.12: the walks say nothing)
            else:
                self._saying = fd
            while header := process.stdout.read(4):
                size = int.from_bytes(header, "little")
                if size > _MAX_BATCH_BYTES:
                    return  # not what `serve` sends
                scopes, readings = marshal.loads(process.stdout.read(size))
                self._table.extend(scopes_from_table(scopes))
                for module, entry in readings:
                    stored = stored_reading(entry)
                    if stored is not None:
                        self._readings[module] = stored
        except (OSError, ValueError, EOFError, TypeError):
            return  # the walks read the rest themselves


@contextmanager
def reading_ahead(modules: list[str], code: set[str]) -> Iterator[ReadAhead | None]:
    """Return a second process reading the files of `modules` while the block runs (those the
    walks say they will reach first, `ReadAhead.will_reach`; the rest in reverse: the walks
    take them from about the front), with the calls of those that may call a function of
    the top-level packages in `code`; None where there are too few modules, or the process
    cannot start."""
    # (Killed by Popen.kill, which never signals a process once it is reaped: the watch
    # needs no `forget` before it is.)
    with processes_ended_on_signals() as watch:
        with watch.starting():
            ahead = _start(modules, code) if len(modules) >= READ_AHEAD_FROM else None
            if ahead is not None:
                watch.kill_with(ahead.kill)
        try:
            yield ahead
        finally:
            if ahead is not None:
                ahead.close()


def _start(modules: list[str], code: set[str]) -> ReadAhead | None:
    executable = os.path.basename(sys.executable).lower()
    if not executable.startswith(("python", "pypy")) or getattr(sys, "frozen", False):
        # No Python to run: none at all, or a program that embeds it (a frozen application,
        # a server), which would take the arguments as its own.
        return None
    eager = Path(__file__).parent
    starter = _STARTER.format(
        package=str(eager.parent), eager=str(eager), site=str(eager.parent.parent)
    )
    folders = {top: top_level_folders(top) for top in {m.partition(".")[0] for m in modules}}
    # Imported here: it costs every run of a linter a millisecond or two, and most runs start
    # no second process.
    import subprocess

    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", starter],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        chosen = target_python()
        work = (folders, modules[::-1], frozenset(code), (chosen.version, chosen.lazy_imports))
        return ReadAhead(process, marshal.dumps(work))
    except RuntimeError:  # no thread can start: the walks read every file
        process.kill()
        process.wait()
        return None


def serve() -> None:
    """The second process: read the files of the modules it is given, those the walks say
    they will reach first (`ReadingOrder`), and send back each reading it can make."""
    given = sys.stdin.buffer
    work = given.read(int.from_bytes(given.read(4), "little"))
    folders, modules, code, chosen = marshal.loads(work)
    set_target(Target(*chosen))
    order = ReadingOrder(modules)
    threading.Thread(target=order.follow, args=(given,), daemon=True).start()
    out = sys.stdout.buffer
    table: dict[ImportScope, int] = {}
    sent = 0  # how many of the scopes in `table` were sent
    batch: list[Any] = []
    listings = Listings()
    for module in order:
        found = source_file_status_in(folders[module.partition(".")[0]], module, listings)
        if found is None:
            continue
        path, status = found
        try:
            record = _read(path, status.st_mtime, code.__contains__)
        except Exception:
            continue
        batch.append((module, tuple(record.to_entry(table))))
        if len(batch) == _BATCH:
            sent = _send(out, table, sent, batch)
            batch = []
    _send(out, table, sent, batch)


class ReadingOrder:
    """The order in which the second process reads the `modules` it is given: first those the
    walks say they will reach, the last said first, then the rest in the order given; each
    once, and none that a walk said it read itself. What the walks say comes while it reads
    (`follow`, on a thread of its own)."""

    def __init__(self, modules: list[str]) -> None:
        self._given = set(modules)
        self._rest = iter(modules)
        self._reach: list[str] = []  # what the walks will reach, as they said it
        self._done: set[str] = set()  # read, or read by a walk

    def say(self, line: bytes) -> None:
        """Take one line the walks sent (`ReadAhead.will_reach`, `ReadAhead.read_here`)."""
        module = line[1:].decode(errors="replace")
        if module in self._given:
            if line.startswith(_WILL_REACH):
                self._reach.append(module)
            elif line.startswith(_READ):
                self._done.add(module)

    def follow(self, said: Iterable[bytes]) -> None:
        """Take each line the walks send, until they end."""
        for line in said:
            self.say(line.rstrip(b"\n"))

    def __iter__(self) -> Iterator[str]:
        while (module := self._next()) is not None:
            self._done.add(module)
            yield module

    def _next(self) -> str | None:
        said, done = self._reach, self._done
        # (Only this thread takes from `said`: one that is not empty stays so here.)
        while said:
            module = said.pop()  # (the walks take theirs from the other end)
            if module not in done:
                return module
        return next((module for module in self._rest if module not in done), None)


def _read(path: str, mtime: float, has_code: Callable[[str], bool]) -> FileReading:
    """Return the file as a walk reads it first, with what the walk asks next: what its code
    calls at import time where it may call a function that runs an import (of a package
    that `has_code`); else, for a file read in part, the scope of each import statement that
    starts a line (`scope_of_line`, which the walk would ask)."""
    record = read_module_file(path, mtime)
    if record.level is not ReadingLevel.CALLS and may_call(record.callable_names, has_code):
        with suppress(Exception):  # the walk reads them, and says what it cannot
            record.read_calls()
    record.read_imports_ahead()
    return record


def _send(out: Any, table: dict[ImportScope, int], sent: int, batch: list[Any]) -> int:
    """Send a batch of readings, with the scopes they number that were not sent before (the
    last ones of `table`, which numbers them in order, past the `sent` first); return how
    many have been sent."""
    added = list(islice(reversed(table), len(table) - sent))[::-1]
    data = marshal.dumps((stored_scopes_table(added), batch))
    out.write(len(data).to_bytes(4, "little") + data)
    out.flush()
    return len(table)
