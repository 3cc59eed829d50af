"""Running the probe of a `runtime_isolation` contract in a fresh interpreter, and reading
what it reports.

The child gets its request on stdin and sends its result through a pipe of its own (an
inherited file descriptor), framed with a random token of this run: nothing the code under
test prints, or writes to a file it finds in sys.argv, can pass for the result. The child
runs in a session of its own; when the run ends, however it ends, the whole process group is
killed, so that nothing it started outlives it (a process that leaves the group, by calling
setsid itself, escapes).
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import json
import os
import secrets
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ImportlinterContractsError
from ..interrupts import processes_ended_on_signals

PROBE_SOURCE = Path(__file__).with_name("probe.py").read_text(encoding="utf-8")
# A result larger than this is refused: a normal one (thousands of modules) is a few MB.
MAX_RESULT_BYTES = 32 * 2**20
STDERR_TAIL_BYTES = 8192
STDERR_TAIL_LINES = 20
# How often the run checks whether the child has exited while its pipes stay open.
_POLL_SECONDS = 0.05


class ProbeStartError(ImportlinterContractsError):
    """The interpreter could not be started."""


@dataclass(frozen=True)
class ProbeRun:
    """The outcome of one probe run: its result (None if none could be read), why none could
    be read when that was the result channel's fault, and the end of stderr."""

    result: dict[str, Any] | None
    returncode: int | None
    timed_out: bool
    stderr_tail: list[str]
    channel_error: str | None
    started: float  # time.time() when the child was started


class _ResultReader:
    """Reads `token\\nlength\\npayload` from the result pipe, refusing anything else."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("ascii")
        self._buffer = bytearray()
        self._length: int | None = None
        self.error: str | None = None

    def feed(self, data: bytes) -> None:
        if self.done:
            return
        self._buffer += data
        if self._length is None and self._buffer.count(b"\n") >= 2:
            token, length, _ = bytes(self._buffer).split(b"\n", 2)
            if not hmac.compare_digest(token, self._token) or not length.isdigit():
                self.error = (
                    "the result pipe carried something other than this run's result (its "
                    "token does not match): did the code under test write to it?"
                )
            else:
                self._length = int(length)
                del self._buffer[: len(token) + len(length) + 2]
        if self.error is None and len(self._buffer) > MAX_RESULT_BYTES:
            self.error = f"the result is larger than {MAX_RESULT_BYTES // 2**20} MiB"

    @property
    def complete(self) -> bool:
        return self._length is not None and len(self._buffer) >= self._length

    @property
    def done(self) -> bool:
        return self.complete or self.error is not None

    def result(self, returncode: int | None) -> tuple[dict[str, Any] | None, str | None]:
        """The result, or None and what was wrong with what came through the pipe."""
        if self.error is not None:
            return None, self.error
        if not self.complete:
            if not self._buffer and self._length is None:
                return None, None  # nothing sent: the child died before reporting
            return None, (
                f"the probe process exited with status {returncode} before it had sent all of "
                "its result"
            )
        try:
            result = json.loads(bytes(self._buffer[: self._length]))
        except ValueError as error:
            return None, f"the result is not valid JSON: {error}"
        problem = _shape_problem(result)
        return (None, problem) if problem else (result, None)


_SHAPE: dict[str, type | tuple[type, ...]] = {
    "probes": list,
    "detected": (str, type(None)),
    "detector_error": (str, type(None)),
    "detector_missing": (str, type(None)),
    "modules": list,
    "importers": dict,
    "environment": dict,
}


def _shape_problem(result: Any) -> str | None:
    if not isinstance(result, dict):
        return "the result is not a JSON object"
    for key, kind in _SHAPE.items():
        if not isinstance(result.get(key), kind):
            return f"the result's {key!r} is missing or of the wrong type"
    return None


def run_probe(python: str, request: dict[str, Any], timeout: float) -> ProbeRun:
    """Return the probe's run in a fresh interpreter, in the working directory, with its result
    read.

    Raises ProbeStartError when `python` cannot be started.
    """
    token = secrets.token_hex(16)
    read_end, write_end = os.pipe()
    started = time.time()
    # SIGTERM and SIGHUP run no `finally` unless a handler makes them: the watch kills the
    # group on them (and on SIGINT) before anything else happens.
    with processes_ended_on_signals() as watch:
        try:
            # The global lazy-imports mode the analysed code runs with (Python 3.15; an older
            # Python ignores an -X option it does not know, and the probe says which mode ran).
            mode = (
                ["-X", f"lazy_imports={request['lazy_imports']}"]
                if "lazy_imports" in request
                else []
            )
            try:
                with watch.starting():
                    child = subprocess.Popen(
                        [python, *mode, "-c", PROBE_SOURCE],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                        pass_fds=(write_end,),
                        cwd=os.getcwd(),
                        start_new_session=True,  # its own process group, killed at the end
                    )
                    watch.kill_with(functools.partial(kill_group, child.pid))
            except OSError as error:
                raise ProbeStartError(error.strerror or str(error)) from None
            finally:
                os.close(write_end)
            message = json.dumps({**request, "token": token, "result_fd": write_end}).encode()
            with child:
                reader = _ResultReader(token)
                stderr = bytearray()
                try:
                    timed_out = _exchange(child, message, read_end, reader, stderr, timeout)
                finally:
                    # Kill the group while the child, even if it has exited, is not yet
                    # reaped: its process group id cannot have been reused.
                    kill_group(child.pid)
                    watch.forget()
                    child.wait()
        finally:
            os.close(read_end)
    result, channel_error = (None, None) if timed_out else reader.result(child.returncode)
    return ProbeRun(
        result, child.returncode, timed_out, _tail(bytes(stderr)), channel_error, started
    )


def kill_group(group: int) -> None:
    """Kill every process of the group, which may have ended (the probe's, or the import that
    `closure --measure` times)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _exchange(
    child: subprocess.Popen[bytes],
    message: bytes,
    read_end: int,
    reader: _ResultReader,
    stderr: bytearray,
    timeout: float,
) -> bool:
    """Send the request, read the result and stderr until the result is in, the child has
    exited or the timeout has passed; return whether it timed out."""
    assert child.stdin is not None and child.stderr is not None
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for stream in (child.stdin, child.stderr):
            os.set_blocking(stream.fileno(), False)
        os.set_blocking(read_end, False)
        selector.register(child.stdin, selectors.EVENT_WRITE)
        selector.register(child.stderr, selectors.EVENT_READ)
        selector.register(read_end, selectors.EVENT_READ)
        pending = memoryview(message)
        while not reader.done:
            if has_exited(child):
                _drain(read_end, reader.feed)
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            for key, _ in selector.select(min(remaining, _POLL_SECONDS)):
                if key.fileobj is child.stdin:
                    try:
                        pending = pending[os.write(child.stdin.fileno(), pending) :]
                    except BrokenPipeError:
                        pending = pending[:0]  # it has gone; its exit is seen next round
                    if not pending:
                        selector.unregister(child.stdin)
                        child.stdin.close()
                elif key.fileobj is child.stderr:
                    _drain(child.stderr.fileno(), lambda data: _keep_tail(stderr, data))
                elif not _drain(read_end, reader.feed):
                    selector.unregister(read_end)  # closed, by the child or its children
        _drain(child.stderr.fileno(), lambda data: _keep_tail(stderr, data))
    return False


def has_exited(child: subprocess.Popen[bytes]) -> bool:
    """Return whether the child has exited, without reaping it where the platform allows (os.waitid
    is on macOS only from Python 3.13): its process group id then stays its own until the
    group is killed."""
    if not hasattr(os, "waitid"):
        return child.poll() is not None
    return os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _drain(fd: int, take: Any) -> bool:
    """Read what is there now; False once the other end is closed."""
    while True:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not data:
            return False
        take(data)


def _keep_tail(tail: bytearray, data: bytes) -> None:
    tail += data
    del tail[:-STDERR_TAIL_BYTES]


def _tail(stderr: bytes) -> list[str]:
    return stderr.decode("utf-8", errors="replace").splitlines()[-STDERR_TAIL_LINES:]
