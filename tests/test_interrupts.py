"""SIGTERM, SIGHUP and SIGINT at random moments of real runs: the run ends with 128 + the
signal's number and one line, no traceback; no process it started survives it; every file
it wrote is whole.

Each run gets a mark in its environment, which every process it starts inherits: after it,
no process that is not a zombie may carry the mark. The moments are drawn with a fixed seed,
after the console script has set its handlers (Linux shows them in /proc/PID/status): before
that, Python itself is starting (`docs`: the first tens of milliseconds).
"""

from __future__ import annotations

import configparser
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from helpers import CONTRACT_TYPES
from importlinter_contracts.interrupts import processes_ended_on_signals

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

BIN = Path(sys.executable).parent
SEED = 28
MOMENTS = 3  # per command and signal
# Under nohup (and on some CI runners) this process, and every run it starts, inherits SIGHUP
# ignored: a run then rightly goes on, so a test that SIGHUP should end it cannot hold.
SIGHUP_IGNORED = pytest.mark.skipif(
    signal.getsignal(signal.SIGHUP) == signal.SIG_IGN,
    reason="SIGHUP is ignored by this test process (as under nohup), so by every run it starts",
)


def signals(*numbers: int) -> list[object]:
    """Return pytest parameters of the signals, named, SIGHUP's skipped where it is ignored."""
    return [
        pytest.param(
            number,
            id=signal.Signals(number).name,
            marks=[SIGHUP_IGNORED] if number == signal.SIGHUP else [],
        )
        for number in numbers
    ]


SIGNALS = signals(signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
MARK = "IMPORTLINTER_CONTRACTS_TEST_RUN"
CHAIN = 600  # modules the eager walks may reach: more than read_ahead.READ_AHEAD_FROM


def _catches_sigterm(pid: int) -> bool:
    """Whether the process has a handler for SIGTERM, which the console script sets first
    (Python sets none of its own)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def _alive_with(mark: str) -> list[int]:
    """The processes, zombies left out, whose environment has the run's mark."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
            environment = (entry / "environ").read_bytes()
        except OSError:
            continue
        if state not in ("Z", "X") and f"{MARK}={mark}".encode() in environment.split(b"\0"):
            found.append(int(entry.name))
    return found


def _survivors(mark: str) -> list[int]:
    """What still runs of a run that has exited, after a moment for the kernel to end it."""
    deadline = time.monotonic() + 10
    while (alive := _alive_with(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def run(
    args: list[str],
    cwd: Path,
    signal_number: int | None = None,
    delay: float = 0.0,
    ready: Callable[[int], bool] = _catches_sigterm,
) -> tuple[int | None, str]:
    """Run `args` in `cwd`, with `signal_number` sent `delay` seconds after it is `ready`;
    its exit status (None when it ended before the signal could be sent) and stderr."""
    mark = uuid.uuid4().hex
    errors = cwd.parent / f"stderr-{mark}"
    with open(errors, "wb") as stderr:
        process = subprocess.Popen(
            args,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env={**os.environ, MARK: mark},
        )
        ended_first = False
        if signal_number is not None:
            while process.poll() is None and not ready(process.pid):
                time.sleep(0.001)
            time.sleep(delay)
            ended_first = process.poll() is not None
            if not ended_first:
                process.send_signal(signal_number)
        status = process.wait(timeout=120)
    assert _survivors(mark) == []
    text = errors.read_text()
    errors.unlink()
    return (None if ended_first else status), text


def report(args: list[str], cwd: Path) -> dict[str, object]:
    mark = uuid.uuid4().hex
    found = subprocess.run(
        [*args, "--format", "json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, MARK: mark},
    )
    assert (found.returncode, found.stderr) == (1, "")
    assert _survivors(mark) == []
    data: dict[str, object] = json.loads(found.stdout)
    return data


def moments(name: str, signal_number: int, longest: float) -> list[float]:
    draw = random.Random(f"{SEED}-{name}-{signal_number}")
    return sorted(draw.uniform(0, longest) for _ in range(MOMENTS))


def assert_interrupted(
    status: int | None,
    stderr: str,
    signal_number: int,
    finished: tuple[int, str] | None = None,
) -> None:
    """Ended with 128 + the number and the line that says why; or, for a signal that comes
    while Python starts, by the signal itself, which a shell reports as 128 + the number
    too; or, where `finished` gives what the whole run ends with (its status and stderr), as
    that: a signal that comes once the run's own code has ended is ignored (Python handles a
    signal between two steps of Python code, and after the last one nothing could catch
    it)."""
    assert "Traceback" not in stderr, stderr
    if status == -signal_number:
        return
    if finished is not None and (status, stderr) == finished:
        return
    assert status == 128 + signal_number, stderr
    name = signal.Signals(signal_number).name
    assert stderr.splitlines()[-1] == f"importlinter-contracts: interrupted by {name}."


def assert_no_temporary_files(root: Path) -> None:
    assert [p for p in root.rglob("*.tmp")] == []


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


STATIC = """\
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms
backends = cuda

[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.m0
follow_modules = pkg
forbidden_modules = pkg.platforms.cuda.models
"""


@pytest.fixture(scope="module")
def static_original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tree the static contracts check, written once: each test changes a copy."""
    root = tmp_path_factory.mktemp("static") / "tree"
    files = {
        "pkg/__init__.py": "",
        "pkg/platforms/__init__.py": "",
        "pkg/platforms/cuda/__init__.py": "",
        "pkg/platforms/cuda/models.py": "",
        f"pkg/m{CHAIN}.py": "import pkg.platforms.cuda.models\n",
        ".importlinter": "[importlinter]\nroot_package = pkg\n" + CONTRACT_TYPES + "\n" + STATIC,
    }
    files.update({f"pkg/m{n}.py": f"import pkg.m{n + 1}\n" for n in range(CHAIN)})
    write(root, files)
    return root


@pytest.fixture
def static_tree(static_original: Path, tmp_path: Path) -> Path:
    return shutil.copytree(static_original, tmp_path / "tree")


CHECK = [str(BIN / "importlinter-contracts"), "check"]


@pytest.fixture(scope="module")
def uncached_report(static_original: Path) -> tuple[dict[str, object], float]:
    """The report of an uncached check of the static tree (its contracts break), and how
    long the check took."""
    started = time.monotonic()
    expected = report([*CHECK, "--no-cache"], static_original)
    return expected, time.monotonic() - started


def timed(args: list[str], cwd: Path) -> tuple[int | None, float]:
    started = time.monotonic()
    status, _ = run(args, cwd)
    return status, time.monotonic() - started


@pytest.mark.parametrize("signal_number", SIGNALS)
def test_check_of_static_contracts(
    static_tree: Path, uncached_report: tuple[dict[str, object], float], signal_number: int
) -> None:
    check = [*CHECK, "--cache-dir", "cache"]
    expected, longest = uncached_report
    for delay in moments("check", signal_number, longest):
        status, stderr = run(check, static_tree, signal_number, delay)
        if status is not None:
            # (The contracts break: the whole run ends with 1, its report on stdout.)
            assert_interrupted(status, stderr, signal_number, finished=(1, ""))
        assert_no_temporary_files(static_tree)
        # What the interrupted run left in the cache is whole, or not used.
        assert report(check, static_tree) == expected


RUNTIME = """\
[importlinter:contract:rt]
name = RT
type = runtime_isolation
blocked_modules = fakesdk
probe_modules = pkg.slow
"""
# The probe's module starts a process of its own, and takes a minute.
SLOW = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
with open("probe.pids", "a") as pids:
    pids.write(f"{os.getpid()} {child.pid}\\n")
time.sleep(60)
"""


@pytest.fixture
def runtime_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    write(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/slow.py": SLOW,
            ".importlinter": "[importlinter]\nroot_package = pkg\n" + CONTRACT_TYPES + RUNTIME,
        },
    )
    return root


def probe_started(root: Path) -> Callable[[int], bool]:
    return lambda _: (root / "probe.pids").exists()


def assert_probe_gone(root: Path) -> None:
    """The probe's process and the one it started (both also carry the run's mark) are ended.
    The run sends their group SIGKILL before it ends itself; the kernel carries it out when
    the process is next scheduled, which on a loaded machine may come a moment after the
    run has exited, so each is given a second to be gone."""
    for pid in map(int, (root / "probe.pids").read_text().split()):
        deadline = time.monotonic() + 1.0
        while True:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
            except OSError:
                state = "X"  # gone, and reaped
            if state in ("Z", "X") or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert state in ("Z", "X"), (pid, state)
    (root / "probe.pids").unlink()


@pytest.mark.parametrize("signal_number", SIGNALS)
def test_check_during_the_runtime_probe(runtime_tree: Path, signal_number: int) -> None:
    check = [str(BIN / "importlinter-contracts"), "check", "--no-cache"]
    for delay in moments("probe", signal_number, 0.5):
        status, stderr = run(check, runtime_tree, signal_number, delay, probe_started(runtime_tree))
        assert_interrupted(status, stderr, signal_number)
        assert_probe_gone(runtime_tree)


@pytest.mark.parametrize("signal_number", SIGNALS)
def test_check_before_and_while_the_probe_starts(runtime_tree: Path, signal_number: int) -> None:
    """From the handlers on: building the graph, starting the probe, reading its result."""
    check = [str(BIN / "importlinter-contracts"), "check", "--no-cache"]
    for delay in moments("probe-start", signal_number, 1.5):
        status, stderr = run(check, runtime_tree, signal_number, delay)
        assert_interrupted(status, stderr, signal_number)
        if (runtime_tree / "probe.pids").exists():
            assert_probe_gone(runtime_tree)


@pytest.mark.parametrize("signal_number", signals(signal.SIGTERM, signal.SIGHUP))
def test_signals_before_the_handlers_end_the_run_without_a_traceback(
    static_tree: Path, signal_number: int
) -> None:
    """While Python starts, SIGTERM and SIGHUP end the process as they end any."""
    check = [str(BIN / "importlinter-contracts"), "check", "--no-cache"]
    status, stderr = run(check, static_tree, signal_number, 0.0, ready=lambda _: True)
    assert (status, stderr) == (-signal_number, "")


@pytest.mark.parametrize("signal_number", SIGNALS)
def test_lint_imports_ends_the_probe(runtime_tree: Path, signal_number: int) -> None:
    """lint-imports sets no handler: SIGTERM and SIGHUP end it as they would have (a shell
    says 143 and 129), SIGINT with 130 and one line, not click's "Aborted!" and 1, the status
    of a broken contract; the probe ends first."""
    lint = [str(BIN / "lint-imports"), "--no-logo", "--no-cache"]
    for delay in moments("lint-imports", signal_number, 0.5):
        ended = run(lint, runtime_tree, signal_number, delay, probe_started(runtime_tree))
        assert ended == (
            (130, "importlinter-contracts: interrupted by SIGINT.\n")
            if signal_number == signal.SIGINT
            else (-signal_number, "")
        )
        assert_probe_gone(runtime_tree)


def _ending_of_sigint_while_a_process_is_watched() -> str:
    """Return how SIGINT ends a block that watches a process: the exception, and its code."""
    try:
        with processes_ended_on_signals():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
    except (KeyboardInterrupt, SystemExit) as ended:
        return f"{type(ended).__name__}({ended})"
    return "nothing"


@pytest.mark.skipif(
    signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
    reason="SIGINT is ignored by this test process (a shell's background job), so by the block",
)
def test_sigint_while_a_probe_runs_exits_130_in_a_click_command_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Inside a click command, as in lint-imports, SIGINT exits with 130 and one line; in a
    Python session it stops the statement, as it always does."""
    assert _ending_of_sigint_while_a_process_is_watched() == "KeyboardInterrupt()"
    assert capsys.readouterr().err == ""
    with click.Context(click.Command("lint-imports")):
        ending = _ending_of_sigint_while_a_process_is_watched()
    assert (ending, capsys.readouterr().err) == (
        "SystemExit(130)",
        "importlinter-contracts: interrupted by SIGINT.\n",
    )


ALLOWLIST = """\
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms
backends = cuda
"""


ORIGINAL = "[importlinter]\nroot_package = pkg\n" + CONTRACT_TYPES + "\n" + ALLOWLIST
ALLOWLIST_WRITE = [
    str(BIN / "importlinter-contracts"),
    "allowlist",
    "--add-violations",
    "--write",
]


@pytest.fixture(scope="module")
def allowlist_written(
    static_original: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, float]:
    """A tree whose allowlist misses 51 violations, after a whole run that wrote them in: the
    tree (with the cache the run left), the configuration written, and how long the run took."""
    root = shutil.copytree(static_original, tmp_path_factory.mktemp("allowlist") / "tree")
    write(root, {f"pkg/user{n}.py": "import pkg.platforms.cuda.models\n" for n in range(50)})
    configuration = root / ".importlinter"
    configuration.write_text(ORIGINAL)
    written, longest = timed(ALLOWLIST_WRITE, root)
    assert written == 0
    edited = configuration.read_text()
    assert edited != ORIGINAL
    return root, edited, longest


@pytest.mark.parametrize("signal_number", SIGNALS)
def test_allowlist_write(
    allowlist_written: tuple[Path, str, float], tmp_path: Path, signal_number: int
) -> None:
    written, edited, longest = allowlist_written
    root = shutil.copytree(written, tmp_path / "tree")
    configuration = root / ".importlinter"
    for delay in moments("allowlist", signal_number, longest):
        configuration.write_text(ORIGINAL)
        status, stderr = run(ALLOWLIST_WRITE, root, signal_number, delay)
        if status is not None:
            assert_interrupted(
                status, stderr, signal_number, finished=(0, ".importlinter: written.\n")
            )
        assert configuration.read_text() in (ORIGINAL, edited)
        configparser.ConfigParser().read_string(configuration.read_text())
        assert_no_temporary_files(root)


def test_a_signal_the_run_was_started_ignoring_stays_ignored(runtime_tree: Path) -> None:
    """As under nohup: SIGHUP neither ends the run nor its probe; SIGTERM then does."""
    ignoring = (
        "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
        "os.execv(sys.argv[1], sys.argv[1:])"
    )
    check = [sys.executable, "-c", ignoring, str(BIN / "importlinter-contracts"), "check"]
    mark = uuid.uuid4().hex
    process = subprocess.Popen(
        [*check, "--no-cache"],
        cwd=runtime_tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, MARK: mark},
    )
    while not (runtime_tree / "probe.pids").exists():
        time.sleep(0.01)
    process.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert process.poll() is None
    probe = int((runtime_tree / "probe.pids").read_text().split()[0])
    assert probe in _alive_with(mark)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert (process.returncode, stderr) == (
        143,
        b"importlinter-contracts: interrupted by SIGTERM.\n",
    )
    assert _survivors(mark) == []


# (Ignored from the start, a signal leaves the ending as it is too.)
@pytest.mark.parametrize(
    "signal_number",
    [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
    ids=lambda n: signal.Signals(n).name,
)
def test_a_signal_once_the_run_has_ended_leaves_its_ending(signal_number: int) -> None:
    """While Python exits (here, in an atexit callback, which runs Python code after the
    run's), a signal is ignored: it neither changes the status nor prints a traceback."""
    code = (
        "import atexit, os, sys\n"
        "from importlinter_contracts import console\n"
        f"atexit.register(lambda: [os.kill(os.getpid(), {int(signal_number)}), sum(range(10**5))])\n"
        "sys.argv = ['importlinter-contracts', '--version']\n"
        "console.main()\n"
    )
    ended = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (ended.returncode, ended.stderr) == (0, "")
    assert ended.stdout.startswith("importlinter-contracts ")


def test_the_sighup_tests_skip_saying_why_when_sighup_is_ignored(tmp_path: Path) -> None:
    """As under nohup: the test process inherits SIGHUP ignored, as its runs would."""
    ignoring = (
        "import signal, sys, pytest; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
        "sys.exit(pytest.main(sys.argv[1:]))"
    )
    test = f"{__file__}::test_signals_before_the_handlers_end_the_run_without_a_traceback[SIGHUP]"
    pytest_options = [
        "-q",
        "-n0",
        "-rs",
        "-p",
        "no:cacheprovider",
        "--basetemp",
        str(tmp_path / "inner"),
    ]
    result = subprocess.run(
        [sys.executable, "-c", ignoring, *pytest_options, test],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
    )
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert (result.returncode, [line.partition(": ")[2] for line in skipped]) == (
        0,
        ["SIGHUP is ignored by this test process (as under nohup), so by every run it starts"],
    )
