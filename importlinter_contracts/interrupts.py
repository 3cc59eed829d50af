"""The signals that end a run: SIGINT (Ctrl-C), SIGTERM (what `timeout`, a cancelled CI job
and systemd send) and SIGHUP (a closed terminal).

Two promises rest on this module. Every process a run starts ends with it: while one runs,
`processes_ended_on_signals` has each of these signals kill it first, and then do what the
handler before did (under lint-imports, whose SIGTERM and SIGHUP end the process at once and
run no `finally`, the signal then ends it as it would have; SIGINT, whose KeyboardInterrupt
click would turn into "Aborted!" and status 1, a broken contract's, exits with 130 instead).
And the console script (`exiting_on_signals`) turns each into `Interrupted`, which unwinds
the run, every `finally` included (files are written atomically: a write cut short leaves the
old file), and exits with 128 + the signal's number, printing one line and no traceback.

Handlers can only be set in the main thread; elsewhere the processes are ended as the
code that started them ends them, in its `finally`.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager, suppress

TYPE_CHECKING = False  # (typing is not imported: the console script imports this first)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import FrameType
    from typing import Any

    _Handler = Callable[[int, FrameType | None], Any] | int | None

# (Windows has no SIGHUP.)
SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(BaseException):
    """A signal asked the run to end. Not an Exception: no `except Exception` stops it."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(signal_number)
        self.signal_number = signal_number

    @property
    def exit_status(self) -> int:
        """The status a shell gives a process that a signal ended: 128 + its number."""
        return 128 + self.signal_number

    def __str__(self) -> str:
        return f"interrupted by {signal.Signals(self.signal_number).name}"


def exiting_on_signals() -> None:
    """Make each of the signals raise `Interrupted` (the console script does this first).
    Only the first raises: one that comes while the run unwinds lets it finish.

    Not inside grimp: its Rust code calls Python (to make the objects it returns), and an
    exception raised there makes it panic. A signal that comes then is raised a moment
    later (SIGALRM, as often as needed), once grimp has returned; so is one whose exception
    Python ignored (raised in a weakref callback or a `__del__`, `sys.unraisablehook`).
    """

    def interrupt(signal_number: int, frame: FrameType | None) -> None:
        if _raised:
            return
        if _in_grimp(frame) and hasattr(signal, "setitimer"):  # (not on Windows)
            _waiting.append(signal_number)
            signal.setitimer(signal.ITIMER_REAL, _AGAIN_SECONDS)
            return
        _raised.append(signal_number)
        raise Interrupted(signal_number)

    def again(_: int, frame: FrameType | None) -> None:
        if _waiting:
            interrupt(_waiting[0], frame)

    previous_hook = sys.unraisablehook

    def swallowed(unraisable: Any) -> None:
        # Raised where Python ignores exceptions (a weakref callback such as importlib's
        # module-lock clean-up, a __del__): the run did not stop. Print nothing, and raise it
        # again a moment later, where it unwinds the run.
        error = unraisable.exc_value
        if not isinstance(error, Interrupted) or not hasattr(signal, "setitimer"):
            previous_hook(unraisable)
            return
        _raised.clear()
        _waiting[:] = [error.signal_number]
        signal.setitimer(signal.ITIMER_REAL, _AGAIN_SECONDS)

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, again)
        sys.unraisablehook = swallowed
    for number in _heeded():
        signal.signal(number, interrupt)


# The signal raised as `Interrupted`, and one waiting to be raised again.
_raised: list[int] = []
_waiting: list[int] = []


def raise_waiting() -> None:
    """Raise `Interrupted` for a signal still waiting to be raised again (the run ended
    before the moment came): the run ends by it, not as though it had not come."""
    if _waiting and not _raised:
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        _raised.append(_waiting[0])
        raise Interrupted(_waiting[0])


def _heeded() -> list[int]:
    """The signals not ignored: one the run was started ignoring (SIGHUP under nohup, SIGINT
    in a shell script's background job) stays ignored."""
    return [number for number in SIGNALS if signal.getsignal(number) != signal.SIG_IGN]


# How soon a signal that came inside grimp is raised again.
_AGAIN_SECONDS = 0.02


def _in_grimp(frame: FrameType | None) -> bool:
    """Whether the code running is called, however deep, by grimp's."""
    grimp = sys.modules.get("grimp")
    folder = os.path.dirname(getattr(grimp, "__file__", None) or "") if grimp else ""
    while folder and frame is not None:
        if frame.f_code.co_filename.startswith(folder + os.sep):
            return True
        frame = frame.f_back
    return False


def ignoring_signals() -> None:
    """Ignore the signals from now on: the run has ended, and says so."""
    for number in SIGNALS:
        signal.signal(number, signal.SIG_IGN)


# How to kill each process that runs now, by the watch that started it.
_kills: dict[int, Callable[[], None]] = {}
# The handlers that ours replaced, and how many watches need ours.
_previous: dict[int, _Handler] = {}
_watches = 0
# While a process is being started (and is not yet known by its watch), a signal waits.
_starting = 0
_deferred: list[int] = []


class ProcessWatch:
    """Kills the process it watches when one of the signals comes (`kill_with`)."""

    def __init__(self) -> None:
        self._key = id(self)

    @contextmanager
    def starting(self) -> Iterator[None]:
        """Start the process in this block, and name how to kill it (`kill_with`) before it
        ends: a signal that comes meanwhile is handled on leaving it."""
        global _starting
        _starting += 1
        try:
            yield
        finally:
            _starting -= 1
            if _deferred and not _starting:
                number = _deferred[0]
                _deferred.clear()
                _handle(number, None)

    def kill_with(self, kill: Callable[[], None]) -> None:
        _kills[self._key] = kill

    def forget(self) -> None:
        """The process is killed and about to be reaped: its id may be reused after."""
        _kills.pop(self._key, None)


@contextmanager
def processes_ended_on_signals() -> Iterator[ProcessWatch]:
    """Yield a watch for one process: while the block runs, each of the signals kills it (and every
    other process a watch holds), then does what the handler before did."""
    global _watches
    watch = ProcessWatch()
    installed = threading.current_thread() is threading.main_thread()
    if installed:
        if not _watches:
            for number in _heeded():
                _previous[number] = signal.signal(number, _handle)
        _watches += 1
    try:
        yield watch
    finally:
        watch.forget()
        if installed:
            _watches -= 1
            if not _watches:
                for number, previous in list(_previous.items()):
                    signal.signal(number, previous or signal.SIG_DFL)
                _previous.clear()


def _handle(signal_number: int, frame: FrameType | None) -> None:
    if _starting:
        _deferred.append(signal_number)
        return
    for kill in list(_kills.values()):
        with suppress(OSError):
            kill()
    previous = _previous.get(signal_number)
    if previous is signal.default_int_handler and _in_click_command():
        interrupted = Interrupted(signal_number)
        with suppress(OSError):
            print(f"importlinter-contracts: {interrupted}.", file=sys.stderr, flush=True)
        # SystemExit, which click lets through, unwinds the run, every `finally` included.
        raise SystemExit(interrupted.exit_status)
    if callable(previous):
        previous(signal_number, frame)
    elif previous != signal.SIG_IGN:
        # The default (or a handler not set from Python): end as the signal would have.
        signal.signal(signal_number, signal.SIG_DFL)
        os.kill(os.getpid(), signal_number)


def _in_click_command() -> bool:
    """Whether a click command runs (lint-imports does), which would end a KeyboardInterrupt
    with status 1, not a Python session, where it stops the statement only."""
    click = sys.modules.get("click")
    return click is not None and click.get_current_context(silent=True) is not None
