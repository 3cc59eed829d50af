"""A second process reads files ahead of the eager-import walks (`eager/read_ahead.py`): what
the walks find never depends on it."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from helpers import REPO, Project, forget_walk_outcomes
from importlinter_contracts.eager import check, module_files, read_ahead
from importlinter_contracts.eager.module_files import FileReading, ReadingLevel
from importlinter_contracts.eager.scopes import import_scopes_from_tokens

pytestmark = pytest.mark.matrix

R4 = "r4"


def write_reach(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The benchmark's whole-package reach tree, small: importing a platform module runs
    every module, through class bodies, try, if and with blocks and calls at import time."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import synthetic_tree

    synthetic_tree.write_reach_tree(project.root, 300)
    (project.root / ".importlinter").write_text(synthetic_tree.reach_configuration())
    return project


@pytest.fixture
def reach(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    return write_reach(project, monkeypatch)


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The report of the walks without a second process on the reach tree as written: the
    same in each test's tree, since it names files only inside it."""
    root = tmp_path_factory.mktemp("reach")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(root)
        monkeypatch.syspath_prepend(str(root))
        monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 10**9)
        return report(write_reach(Project(root), monkeypatch))


def taken(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The modules whose reading the walks take from the second process from now on, each
    with how its file was read."""
    found: dict[str, str] = {}
    real = read_ahead.ReadAhead.take

    def recording(self: read_ahead.ReadAhead, module: str) -> object:
        record = real(self, module)
        if record is not None:
            found[module] = (
                "with ast"
                if record.callable_names is None
                else "in part"
                if record.level is ReadingLevel.IN_PART
                else "outline, calls read"
                if record.level is ReadingLevel.CALLS and not record.calls_unread
                else "outline"
            )
        return record

    monkeypatch.setattr(read_ahead.ReadAhead, "take", recording)
    return found


def report(project: Project, contract: str = R4) -> str:
    result = project.check("--format", "json", "--contract", contract)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def patient_walks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the walks wait for each module's reading to come back (or for the second process
    to end) before they take it: they take every reading it makes."""
    real = read_ahead.ReadAhead.take

    def waiting(self: read_ahead.ReadAhead, module: str) -> object:
        deadline = time.monotonic() + 60
        while (
            module not in self._readings and self._thread.is_alive() and time.monotonic() < deadline
        ):
            time.sleep(0.001)
        return real(self, module)

    monkeypatch.setattr(read_ahead.ReadAhead, "take", waiting)


def test_the_walks_find_the_same_with_and_without_the_second_process(
    reach: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Files of each kind of reading: long ones (read from their outline) and one that the
    # outline leaves to `ast`.
    for long in ("reach/s1/m5.py", "reach/s2/m5.py"):
        with (reach.root / long).open("a") as file:
            file.write("# A long comment.\n" * 200)
    with (reach.root / "reach/s1/m6.py").open("a") as file:
        file.write("a = 1; b = 2\n")
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 10**9)
    alone = report(reach)
    assert json.loads(alone)["contracts"][0]["ignored"]  # a walk with something to say
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 1)
    patient_walks(monkeypatch)
    modules = taken(monkeypatch)
    assert report(reach) == alone
    # The walks took a reading of each module they read, of every kind.
    assert len(modules) > 300
    assert set(modules.values()) == {"in part", "outline", "outline, calls read", "with ast"}


def test_too_few_modules_start_no_second_process(
    reach: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    real = read_ahead._start

    def recording(modules: list[str], code: set[str]) -> read_ahead.ReadAhead | None:
        started.append(len(modules))
        return real(modules, code)

    monkeypatch.setattr(read_ahead, "_start", recording)
    report(reach)
    assert started == []
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 300)
    report(reach)
    assert len(started) == 1 and started[0] >= 300


def test_a_walk_through_the_cache_starts_no_second_process(
    reach: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Once a run has kept what it read, a walk reads only the files changed since: the
    # modules the walks may reach are not even worked out.
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 300)
    started: list[str] = []
    real = check._may_reach

    def recording(*args: Any) -> list[str]:
        started.append("may reach")
        return real(*args)

    monkeypatch.setattr(check, "_may_reach", recording)
    first = reach.check_with_cache("--format", "json", "--contract", R4)
    assert started == ["may reach"]
    forget_walk_outcomes(reach.root)  # the next run walks again, through the scope cache
    again = reach.check_with_cache("--format", "json", "--contract", R4)
    assert (again.exit_code, again.stdout) == (first.exit_code, first.stdout)
    assert started == ["may reach"]


# A second process that sends a reading of each module's file, as `entry`, numbered in the
# table of `scopes`, and then waits to be stopped.
_SENDS = """\
import marshal, os, sys, time
given = sys.stdin.buffer
folders, modules = marshal.loads(given.read(int.from_bytes(given.read(4), "little")))[:2]
readings = []
for module in modules:
    path = os.path.join(folders["reach"][0], *module.split(".")[1:]) + ".py"
    if os.path.isfile(path):
        mtime = os.stat(path).st_mtime
        readings.append((module, {entry}))
data = marshal.dumps(({scopes}, readings))
sys.stdout.buffer.write(len(data).to_bytes(4, "little") + data)
sys.stdout.buffer.flush()
time.sleep(60)
"""


@pytest.mark.parametrize(
    "breaks",
    [
        pytest.param(lambda m: m.setattr(read_ahead.sys, "executable", ""), id="no executable"),
        pytest.param(
            lambda m: m.setattr(read_ahead.sys, "executable", "/usr/bin/uwsgi"),
            id="a program that embeds Python",
        ),
        pytest.param(
            lambda m: m.setattr(read_ahead.sys, "frozen", True, raising=False),
            id="a frozen application, whose executable is not Python",
        ),
        pytest.param(
            lambda m: m.setattr(read_ahead.sys, "executable", "/nonexistent/python"),
            id="an executable that is not there",
        ),
        pytest.param(
            lambda m: m.setattr(read_ahead, "_STARTER", "import sys; sys.exit(3)"),
            id="a process that exits at once",
        ),
        pytest.param(
            lambda m: m.setattr(
                read_ahead, "_STARTER", "import sys; sys.stdout.buffer.write(b'\\x05\\0\\0\\0xx')"
            ),
            id="a process that sends what is not a reading",
        ),
        pytest.param(
            lambda m: m.setattr(read_ahead, "_STARTER", _SENDS.format(scopes="()", entry="(1, 2)")),
            id="a process that sends readings of another shape",
        ),
        pytest.param(
            lambda m: m.setattr(
                read_ahead,
                "_STARTER",
                _SENDS.format(scopes="()", entry="(path, mtime, bytes(8), (), True) + (None,) * 5"),
            ),
            id="a process that sends scopes it did not send",
        ),
        pytest.param(
            lambda m: m.setattr(
                read_ahead,
                "_STARTER",
                _SENDS.format(
                    scopes="((1, 2),)", entry="(path, mtime, bytes(8), (), True) + (None,) * 5"
                ),
            ),
            id="a process that sends scopes of another shape",
        ),
    ],
)
def test_a_second_process_that_fails_leaves_the_reading_to_the_walks(
    reach: Project,
    alone: str,
    monkeypatch: pytest.MonkeyPatch,
    breaks: Callable[[pytest.MonkeyPatch], None],
) -> None:
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 1)
    breaks(monkeypatch)
    modules = taken(monkeypatch)
    assert report(reach) == alone
    assert modules == {}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        pytest.param(
            # grimp reads `except A, B:` (PEP 758); this Python's `ast` does not, and the
            # outline leaves a file with a `;` to `ast`: the tokens tell the scopes.
            "a = 1; b = 2\ntry:\n    import reach.s1.m4\nexcept ValueError, TypeError:\n    pass\n",
            "reach/s1/m3.py: calls at import time are not followed in this file, which ast "
            "cannot read here (line 4: multiple exception types must be parenthesized): "
            "imports that such calls would run are not seen.",
            marks=pytest.mark.skipif(sys.version_info >= (3, 14), reason="3.14 reads PEP 758"),
            id="a file whose calls ast cannot read",
        ),
        pytest.param(
            # Nor can this Python's tokenizer read an f-string that reuses its quotes.
            'a = 1; b = 2\nx = f"{d["k"]}"\nimport reach.s1.m4\n',
            'importlinter-contracts: Contract "R4": reach/s1/m3.py: cannot classify its imports: '
            'line 2: this Python\'s tokenizer cannot read the f-string f"{d[" (its quotes need '
            "Python 3.12 or newer)\n",
            marks=pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 reads PEP 701"),
            id="a file this Python cannot read",
        ),
    ],
)
def test_what_it_cannot_read_the_walk_reports_as_without_it(
    reach: Project, monkeypatch: pytest.MonkeyPatch, text: str, said: str
) -> None:
    # In a module every walk reaches, and in one that nothing imports at import time.
    for module in ("m3", "unreached"):
        (reach.root / f"reach/s1/{module}.py").write_text(text)
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 10**9)
    alone = reach.check("--format", "json", "--contract", R4)
    if alone.exit_code == 0:
        assert json.loads(alone.stdout)["contracts"][0]["warnings"] == [said]
    else:
        assert (alone.exit_code, alone.stdout, alone.stderr) == (2, "", said)
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 1)
    patient_walks(monkeypatch)
    modules = taken(monkeypatch)
    ahead = reach.check("--format", "json", "--contract", R4)
    assert (ahead.exit_code, ahead.stdout, ahead.stderr) == (
        alone.exit_code,
        alone.stdout,
        alone.stderr,
    )
    # The second process read the file with `ast` where this Python can, and left it to the
    # walk where it cannot.
    assert modules.get("reach.s1.m3") == ("with ast" if alone.exit_code == 0 else None)
    assert len(modules) > 100


@pytest.mark.parametrize("from_modules", [10**9, 1], ids=["alone", "read ahead"])
def test_after_a_walk_a_touched_file_answers_as_before(
    reach: Project, monkeypatch: pytest.MonkeyPatch, from_modules: int
) -> None:
    # A file read in part whose text calls a name an import binds, inside a function that
    # nothing calls: what it answers the walks is kept, and asked again once it is touched.
    touched = reach.root / "reach/s1/m3.py"
    with touched.open("a") as file:
        file.write("from reach.s0 import m1 as other\n\n\ndef unused():\n    other.x()\n")
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", from_modules)
    patient_walks(monkeypatch)
    modules = taken(monkeypatch)
    first = reach.check_with_cache("--contract", R4)
    assert first.exit_code == 0
    assert modules.get("reach.s1.m3") == (None if from_modules > 1 else "outline, calls read")
    then = touched.stat().st_mtime
    os.utime(touched, (then + 10, then + 10))
    again = reach.check_with_cache("--verbose", "--contract", R4)
    # (import-linter wraps what it prints to the terminal's width.)
    assert (
        "as the cache keeps them (one file they run has changed since, and answers as before)."
        in " ".join(again.output.split())
    )


# Its text calls a name an import binds, which its outline finds only inside a function.
_CALLS_ONLY_IN_A_FUNCTION = b"from pkg.a import other\n\n\ndef unused():\n    other.x()\n"


@pytest.mark.parametrize("asked", ["calls", "a line the text does not tell"])
def test_a_file_read_in_part_keeps_the_names_its_text_may_call(asked: str) -> None:
    # Whichever process reads the rest of it, and whenever: the walks' first question of a
    # module (may its code call?) has one answer.
    record = module_files.read_module_file("m.py", 0.0, _CALLS_ONLY_IN_A_FUNCTION)
    assert record.level is ReadingLevel.IN_PART
    names = record.callable_names
    assert names == (("other", "pkg"),)
    if asked == "calls":
        record.read_calls()
        assert record.level is ReadingLevel.CALLS and record.calls is not None
    else:
        record._read_whole_outline(_CALLS_ONLY_IN_A_FUNCTION)
        assert record.level is ReadingLevel.OUTLINE
    assert record.callable_names == names


def test_a_reading_is_taken_once_with_the_time_its_file_was_read(reach: Project) -> None:
    ahead = read_ahead._start(["reach.s1.m3", "reach.s1.m5"], {"reach"})
    assert ahead is not None
    try:
        deadline = time.monotonic() + 30
        while len(ahead._readings) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        m3 = reach.root / "reach/s1/m3.py"
        read_at = m3.stat().st_mtime
        os.utime(m3, (read_at + 10, read_at + 10))  # changed since it was read
        record = ahead.take("reach.s1.m3")
        # Labelled with the time it was read at: the next run reads the file again.
        assert isinstance(record, FileReading)
        assert (record.path, record.mtime) == (str(m3), read_at)
        assert ahead.take("reach.s1.m3") is None  # (taken once at most)
        assert ahead.take("reach.s1.m4") is None  # (not asked for)
    finally:
        ahead.close()


def test_the_order_reads_what_the_walks_say_they_reach_first_the_last_said_first() -> None:
    order = read_ahead.ReadingOrder(["a", "b", "c", "d", "e", "f"])
    read = iter(order)
    assert next(read) == "a"
    order.say(b"+d")
    order.say(b"+e")
    order.say(b"-b")  # read by a walk
    order.say(b"+z")  # not given: not read
    assert next(read) == "e"  # (the walks reach d first)
    order.say(b"+a")  # read already
    assert list(read) == ["d", "c", "f"]


def test_the_second_process_reads_the_modules_said_first_and_none_read_here(
    reach: Project,
) -> None:
    modules = sorted(
        ".".join(path.relative_to(reach.root).with_suffix("").parts)
        for path in (reach.root / "reach").glob("s*/m*.py")
    )
    assert len(modules) > 200
    # It reads the list from its end: the first modules last.
    said, read_here = modules[:50], modules[50]
    ahead = read_ahead._start(modules, {"reach"})
    assert ahead is not None
    try:
        deadline = time.monotonic() + 30
        while ahead._saying is None and time.monotonic() < deadline:
            time.sleep(0.001)
        ahead.read_here(read_here)
        ahead.will_reach(said)
        assert ahead._said == bytearray()  # (sent)
        ahead._thread.join(60)
        arrived = list(ahead._readings)
    finally:
        ahead.close()
    assert read_here not in arrived
    assert len(arrived) == len(modules) - 1
    # The last said first, after at most the few it had started on.
    positions = [arrived.index(module) for module in said]
    assert positions == sorted(positions, reverse=True)
    assert positions[0] < len(said) + read_ahead._BATCH * 2


def test_what_the_walks_say_never_makes_them_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    # A process that takes its work and then reads nothing more: the pipe fills, and what
    # the walks say beyond it is dropped.
    monkeypatch.setattr(
        read_ahead,
        "_STARTER",
        "import sys, time\n"
        "given = sys.stdin.buffer\n"
        "given.read(int.from_bytes(given.read(4), 'little'))\n"
        "time.sleep(10)\n",
    )
    ahead = read_ahead._start(["reach.m"], {"reach"})
    assert ahead is not None
    try:
        deadline = time.monotonic() + 30
        while ahead._saying is None and time.monotonic() < deadline:
            time.sleep(0.001)
        assert ahead._saying is not None
        started = time.monotonic()
        for number in range(20_000):  # about 400 KB, several times what a pipe holds
            ahead.will_reach([f"reach.module{number}"])
        assert time.monotonic() - started < 5
    finally:
        ahead.close()


def test_the_second_process_runs_no_module_of_the_working_directory(
    reach: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Modules the second process imports, standing in the working directory and beside the
    # tree: none of them runs.
    marker = reach.root / "ran"
    for name in ("types", "marshal", "re", "ast", "tokenize", "dataclasses", "sitecustomize"):
        (reach.root / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r})\nraise SystemExit(9)\n"
        )
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 1)
    patient_walks(monkeypatch)
    modules = taken(monkeypatch)
    report(reach)
    assert modules
    assert not marker.exists()


@pytest.mark.real_tree
def test_on_the_newest_release_the_walks_find_the_same_with_the_second_process(
    copy: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With a chain into forbidden code added, so that there is a violation to find.
    with (copy.root / "vllm_omni/patch.py").open("a") as patch:
        patch.write("import vllm_omni.diffusion.quantization\n")
    shipped = "platform-classes-load-no-bodies"
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 10**9)
    alone = report(copy, shipped)
    assert json.loads(alone)["contracts"][0]["violations"]
    monkeypatch.setattr(read_ahead, "READ_AHEAD_FROM", 1)
    # The walks reach about a fifth of the modules they may reach, which the second process
    # reads last: they wait for it.
    patient_walks(monkeypatch)
    modules = taken(monkeypatch)
    assert report(copy, shipped) == alone
    assert len(modules) > 40


@pytest.mark.real_tree
def test_the_second_process_reads_each_file_of_the_newest_release_as_python_does() -> None:
    # Each import scope it sends (those the walks would read from the lines around each
    # import, for a file read in part: every import statement that starts a line) is the
    # one the tokenizer's reading gives.
    from vllm_omni_tree import NEWEST, tree

    compared = 0
    for path in sorted((tree(NEWEST) / "vllm_omni").rglob("*.py")):
        mtime = path.stat().st_mtime
        sent = read_ahead._read(str(path), mtime, lambda top: top == "vllm_omni")
        record = module_files.FileReading.from_entry(sent.to_entry(table := {}))
        record.unpack_scopes(list(table))
        assert not record.changed
        tokens = import_scopes_from_tokens(path.read_bytes())
        assert {line: tokens[line] for line in record.scopes} == record.scopes, path
        compared += len(record.scopes)
    assert compared > 10_000
