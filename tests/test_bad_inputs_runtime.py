"""Bad inputs and faults for the runtime contract, each with its exact outcome: the probed
code cannot forge or spoil the result channel unnoticed, nothing it starts outlives the run,
the result is bounded, and options mean what they say."""

from __future__ import annotations

import json
import re
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from test_runtime_isolation import TREE, configure

from helpers import Project, installed_python
from importlinter_contracts.runtime import process

CLEAN_LOOKING = json.dumps(
    {
        "probes": [],
        "detected": "pkg.platforms.cuda.platform.CudaPlatform",
        "detector_error": None,
        "detector_missing": None,
        "modules": [],
        "importers": {},
        "environment": {},
    }
)


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    configure(project)
    return project


def probe_code(tree: Project, source: str) -> None:
    tree.write({"pkg/connectors/__init__.py": textwrap.dedent(source)})


def only_violation(tree: Project) -> dict[str, object]:
    report = tree.contract("runtime")
    assert report["kept"] is False
    (violation,) = report["violations"]
    return dict(violation)


def test_a_clean_looking_result_written_to_argv_and_a_silent_exit_is_not_kept(
    tree: Project,
) -> None:
    probe_code(
        tree,
        f"""\
        import os, sys
        with open(sys.argv[-1], "w") as forged:
            forged.write({CLEAN_LOOKING!r})
        import pkg.platforms.npu.ops
        os._exit(0)
        """,
    )
    violation = only_violation(tree)
    assert (violation["kind"], violation["message"]) == (
        "crashed",
        "the probe process exited with status 0 before reporting",
    )


def test_writing_to_every_inherited_descriptor_is_caught_by_the_token(tree: Project) -> None:
    probe_code(
        tree,
        f"""\
        import os
        for fd in range(3, 256):
            try:
                os.write(fd, {CLEAN_LOOKING!r}.encode())
            except OSError:
                pass
        """,
    )
    violation = only_violation(tree)
    assert (violation["kind"], violation["message"]) == (
        "result_invalid",
        "the probe's result cannot be used: the result pipe carried something other than this "
        "run's result (its token does not match): did the code under test write to it?",
    )


@pytest.mark.parametrize(
    ("source", "cause"),
    [
        ("import os\nos.closerange(3, 256)\n", r"\[Errno 9\] Bad file descriptor"),
        (
            "import os\nnull = os.open(os.devnull, os.O_WRONLY)\nfor fd in range(3, 256):\n"
            "    if fd != null:\n        os.dup2(null, fd)\n",
            "it is now another file",
        ),
    ],
    ids=["closed", "replaced"],
)
def test_a_result_pipe_closed_or_replaced_by_the_code_is_reported_as_such(
    tree: Project, source: str, cause: str
) -> None:
    probe_code(tree, source)
    violation = only_violation(tree)
    assert (violation["kind"], violation["message"]) == (
        "crashed",
        "the probe process exited with status 1 before reporting",
    )
    (line,) = violation["stderr_tail"]  # type: ignore[misc]
    assert re.fullmatch(
        r"runtime_isolation probe: cannot send the result: the code under test closed or "
        rf"replaced the result pipe \(file descriptor \d+\): {cause}",
        line,
    ), line


def _gone(pid: int) -> bool:
    """Whether a process has ended (a zombie waiting for its new parent counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_until_gone(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


SPAWNS_A_SLEEPER = """\
import subprocess, sys
sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open("sleeper.pid", "w") as handle:
    handle.write(str(sleeper.pid))
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
def test_what_the_probe_started_is_killed_after_a_successful_run(tree: Project) -> None:
    probe_code(tree, SPAWNS_A_SLEEPER)
    assert tree.contract("runtime")["kept"]
    assert _wait_until_gone(int((tree.root / "sleeper.pid").read_text()))


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
def test_what_the_probe_started_is_killed_after_a_timeout(tree: Project) -> None:
    configure(tree, "timeout = 1\n")
    probe_code(tree, SPAWNS_A_SLEEPER + "import time\ntime.sleep(60)\n")
    assert only_violation(tree)["kind"] == "timeout"
    assert _wait_until_gone(int((tree.root / "sleeper.pid").read_text()))


def test_no_temporary_folder_is_needed(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tree.root / "deleted-temporary-folder"
    monkeypatch.setenv("TMPDIR", str(missing))
    monkeypatch.setattr(tempfile, "tempdir", str(missing))
    assert tree.contract("runtime")["kept"]


def test_a_huge_detector_result_makes_a_short_message(tree: Project) -> None:
    tree.write({"pkg/platforms/__init__.py": "def detect():\n    return ['x'] * 3_000_000\n"})
    result = tree.check("--format", "json", "--contract", "runtime")
    assert len(result.stdout) < 5000
    (violation,) = json.loads(result.stdout)["contracts"][0]["violations"]
    assert violation["message"] == (
        "the detector pkg.platforms:detect returned ['x', 'x', 'x', 'x', 'x', 'x', ...], "
        "not a class, a qualified name, a module, or an instance of a class that is not built in"
    )


def test_a_huge_detector_name_or_exception_is_cut(tree: Project) -> None:
    tree.write({"pkg/platforms/__init__.py": "def detect():\n    return 'x' * 10_000_000\n"})
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["message"] == (
        f"the detector pkg.platforms:detect returned '{'x' * 37}...{'x' * 38}', "
        "not a class, a qualified name, a module, or an instance of a class that is not built in"
    )
    tree.write(
        {"pkg/platforms/__init__.py": "def detect():\n    raise RuntimeError('y' * 10_000_000)\n"}
    )
    (violation,) = tree.contract("runtime")["violations"]
    # The exception's text is cut at 2,000 characters, its name included.
    assert violation["message"] == (
        "the detector pkg.platforms:detect failed: RuntimeError: "
        + "y" * 1986
        + "... (10000014 characters in all)"
    )


def test_a_result_larger_than_the_bound_is_refused(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "MAX_RESULT_BYTES", 2**20)
    probe_code(tree, "import sys\nsys.modules.update((f'm{i}', sys) for i in range(300_000))\n")
    violation = only_violation(tree)
    assert (violation["kind"], violation["message"]) == (
        "result_invalid",
        "the probe's result cannot be used: the result is larger than 1 MiB",
    )


TOML = """\
[tool.importlinter]
root_package = "pkg"
contract_types = ["runtime_isolation: importlinter_contracts.RuntimeIsolationContract"]

[[tool.importlinter.contracts]]
id = "runtime"
name = "R"
type = "runtime_isolation"
blocked_modules = ["fakesdk"]
probe_modules = {probes}
timeout = {timeout}
"""


def test_a_toml_timeout_with_a_fraction_is_kept_as_written(tree: Project) -> None:
    (tree.root / ".importlinter").unlink()
    (tree.root / "pyproject.toml").write_text(
        TOML.format(probes='["pkg.connectors"]', timeout="1.5")
    )
    probe_code(tree, "import time\ntime.sleep(60)\n")
    started = time.monotonic()
    violation = only_violation(tree)
    assert violation["message"] == "the probe process was killed after the 1.5 s timeout"
    assert time.monotonic() - started < 30


@pytest.mark.parametrize(
    ("probes", "timeout", "message"),
    [
        ('["pkg.connectors"]', "true", "timeout: 'True' is not a number of seconds."),
        ('["pkg.connectors"]', "-2.5", "timeout: '-2.5' is not a positive number of seconds."),
        ('["pkg.connectors"]', "inf", "timeout: 'inf' is not a positive number of seconds."),
        ("[]", "3", "probe_modules: This list is empty; give at least one value."),
    ],
    ids=["boolean", "negative", "infinite", "no-probes"],
)
def test_toml_values_that_do_not_fit_are_one_line_errors(
    tree: Project, probes: str, timeout: str, message: str
) -> None:
    (tree.root / ".importlinter").unlink()
    (tree.root / "pyproject.toml").write_text(TOML.format(probes=probes, timeout=timeout))
    result = tree.check()
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f'importlinter-contracts: Contract "R" is not configured correctly: {message}\n',
    )


def test_the_probe_leaves_nothing_in_argv_for_the_code_to_find(tree: Project) -> None:
    probe_code(tree, "import sys\nassert sys.argv == ['-c'], sys.argv\n")
    assert tree.contract("runtime")["kept"]


def test_pathlib_of_python_3_10_runs_under_the_probes_watch(tree: Project) -> None:
    # Python 3.10's pathlib holds os.stat as a class attribute, read when it is imported,
    # after the probe set its watch: a watching function would be bound as a method.
    # (Looked up here, not at collection, which every worker does.)
    python = installed_python("3.10")
    if python is None:
        pytest.skip("needs a Python 3.10 (on PATH or pyenv)")
    configure(tree, f"python = {python}\n")
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import pathlib
                if pathlib.Path(__file__).resolve().exists() and pathlib.Path("x").is_dir():
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert tree.contract("runtime")["violations"] == []
