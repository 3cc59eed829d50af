"""A remembered runtime result is reused only when a fresh run could not differ. Each case runs
the real command (`importlinter-contracts check`, in a process of its own) on a synthetic
package, and compares the verdict read from the cache with the one of `--no-cache`, which
always runs the probe.

A process of its own, so that a verdict read from the cache comes from the disk, never from
what an earlier run left in memory: each run is forked from a server that has imported the
command and run nothing (tests/command_server.py). The runs that print to the console start
Python themselves, as a user's shell does: the console's width is read at import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_runtime_isolation import TREE, configure

from command_server import CommandServer
from helpers import Project

pytestmark = pytest.mark.matrix

Verdict = tuple[bool, list[str]]
ARGUMENTS = ["check", "--contract", "runtime"]
COMMAND = [sys.executable, "-m", "importlinter_contracts", *ARGUMENTS]


def command_environment(**variables: str) -> dict[str, str]:
    """This environment as a user's shell would have it (which writes bytecode), with more."""
    found = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**found, **variables}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CommandServer]:
    started = CommandServer(tmp_path_factory.mktemp("command-server"), command_environment())
    yield started
    started.close()


@pytest.fixture
def check(server: CommandServer) -> Check:
    return Check(server)


class Check:
    """`importlinter-contracts check --contract runtime` in a process of its own."""

    def __init__(self, server: CommandServer) -> None:
        self.server = server

    def __call__(self, root: Path, *args: str, **environment: str) -> dict[str, Any]:
        """The runtime contract's part of the JSON report of the command."""
        result = self.server.run(
            root, [*ARGUMENTS, "--format", "json", *args], command_environment(**environment)
        )
        assert result.returncode in (0, 1), result.stderr
        (contract,) = json.loads(result.stdout)["contracts"]
        return dict(contract)

    def cached_and_fresh(self, root: Path, **environment: str) -> tuple[dict[str, Any], Verdict]:
        """The cached run's report, and the verdict of a run that reads no cache."""
        cached = self(root, **environment)
        return cached, verdict(self(root, "--no-cache", **environment))


def verdict(report: dict[str, Any]) -> Verdict:
    return report["kept"], sorted(v["kind"] for v in report["violations"])


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    configure(project)
    return project


KEPT: Verdict = (True, [])
BACKEND_LOADED: Verdict = (False, ["backend_loaded"])


def test_a_module_whose_import_raised_is_in_the_key(tree: Project, check: Check) -> None:
    # A module whose import raised is not left in sys.modules.
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                try:
                    import pkg.models.optional
                except ImportError:
                    pass
                """,
            "pkg/models/optional.py": "raise ImportError('not on this machine')\n",
        }
    )
    assert verdict(check(tree.root)) == KEPT
    tree.write({"pkg/models/optional.py": "import pkg.platforms.npu.ops\n"})
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_probe_that_failed_and_is_restored_runs_again(tree: Project, check: Check) -> None:
    connectors = tree.root / "pkg/connectors/__init__.py"
    original = connectors.read_text()
    tree.write({"pkg/platforms/rocm/platform.py": "assert False, 'no ROCm device'\n"})
    assert verdict(check(tree.root)) == KEPT
    connectors.write_text(
        original + "import importlib\nimportlib.import_module('pkg.platforms.rocm.platform')\n"
    )
    failed = check(tree.root)
    assert (verdict(failed), failed["cached"]) == (
        (False, ["backend_loaded", "probe_failed"]),
        False,
    )
    connectors.write_text(original)
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (KEPT, False, KEPT)


def test_a_module_executed_from_its_path_outside_sys_modules_is_in_the_key(
    tree: Project,
    check: Check,
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import importlib.util, os
                path = os.path.join(os.path.dirname(__file__), "plugin.py")
                spec = importlib.util.spec_from_file_location("a_plugin", path)
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
                """,
            "pkg/connectors/plugin.py": "",
        }
    )
    assert verdict(check(tree.root)) == KEPT
    tree.write({"pkg/connectors/plugin.py": "import pkg.platforms.npu.ops\n"})
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_module_imported_then_deleted_from_sys_modules_is_in_the_key(
    tree: Project, check: Check
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import sys
                import pkg.models.big
                del sys.modules["pkg.models.big"]
                """,
        }
    )
    assert verdict(check(tree.root)) == KEPT
    tree.write({"pkg/models/big.py": "import pkg.platforms.npu.ops\n"})
    cached, fresh = check.cached_and_fresh(tree.root)
    # The backend is loaded, and stays: only pkg.models.big was deleted.
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_variable_read_by_name_after_iterating_over_the_environment_is_in_the_key(
    tree: Project,
    check: Check,
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import os
                names = list(os.environ)
                if os.environ.get("RP_FLAG") == "1":
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert verdict(check(tree.root, RP_FLAG="0")) == KEPT
    cached, fresh = check.cached_and_fresh(tree.root, RP_FLAG="1")
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


@pytest.mark.parametrize(
    "reading",
    ["dict(os.environ)", "os.environ.copy()", "dict(os.environ.items())"],
)
def test_code_that_read_the_whole_environment_depends_on_every_variable(
    tree: Project, check: Check, reading: str
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": f"""\
                import os
                if {reading}.get("RP_FLAG") == "1":
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert verdict(check(tree.root)) == KEPT
    assert check(tree.root)["cached"]
    cached, fresh = check.cached_and_fresh(tree.root, RP_FLAG="1")
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)
    # Any variable: the code saw them all.
    assert not check(tree.root, RP_FLAG="1", UNRELATED="x")["cached"]


def test_the_results_of_four_environments_are_kept_side_by_side(
    tree: Project, check: Check
) -> None:
    # A shell, a Makefile, an IDE: code that reads the whole environment sees each apart.
    tree.write({"pkg/connectors/__init__.py": "import os\nos.environ.copy()\n"})
    for shell in ["1", "2", "3", "4"]:
        assert not check(tree.root, SHELL_LEVEL=shell)["cached"]
    assert [check(tree.root, SHELL_LEVEL=shell)["cached"] for shell in "4321"] == [True] * 4
    assert not check(tree.root, SHELL_LEVEL="5")["cached"]  # drops the least recently used
    assert not check(tree.root, SHELL_LEVEL="4")["cached"]
    assert check(tree.root, SHELL_LEVEL="1")["cached"]


def test_a_variable_the_code_never_read_is_not_in_the_key(tree: Project, check: Check) -> None:
    tree.write({"pkg/connectors/__init__.py": "import os\nos.environ.get('RP_FLAG')\n"})
    check(tree.root)
    assert check(tree.root, UNRELATED="x")["cached"]
    assert not check(tree.root, RP_FLAG="1")["cached"]


def test_the_variables_the_interpreter_reads_at_its_start_are_in_the_key(
    tree: Project, check: Check
) -> None:
    # No Python code reads PYTHONOPTIMIZE: the interpreter does, and it drops asserts.
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                try:
                    assert False
                except AssertionError:
                    pass
                else:
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert verdict(check(tree.root)) == KEPT
    cached, fresh = check.cached_and_fresh(tree.root, PYTHONOPTIMIZE="1")
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_module_looked_up_and_not_found_is_found_once_it_appears(
    tree: Project, check: Check
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import importlib
                for name in ("pkg.models.late", "pkglate"):
                    try:
                        importlib.import_module(name)
                    except ImportError:
                        pass
                """,
        }
    )
    assert verdict(check(tree.root)) == KEPT
    tree.write({"pkg/models/late.py": "import pkg.platforms.npu.ops\n"})
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)
    (tree.root / "pkg/models/late.py").unlink()
    assert verdict(check(tree.root)) == KEPT
    tree.write({"pkglate/__init__.py": "import pkg.platforms.npu.ops\n"})
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_file_the_code_read_is_in_the_key(tree: Project, check: Check) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import os
                with open(os.path.join(os.path.dirname(__file__), "settings.txt")) as f:
                    if f.read().strip() == "npu":
                        import pkg.platforms.npu.ops
                """,
            "pkg/connectors/settings.txt": "cuda\n",
        }
    )
    assert verdict(check(tree.root)) == KEPT
    tree.write({"pkg/connectors/settings.txt": "npu\n"})
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_path_the_code_checked_for_is_in_the_key(tree: Project, check: Check) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import os
                if os.path.exists(os.path.join(os.path.dirname(__file__), "use-npu")):
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert verdict(check(tree.root)) == KEPT
    (tree.root / "pkg/connectors/use-npu").mkdir()
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_run_that_started_a_process_is_not_remembered_and_verbose_says_why(
    tree: Project,
    check: Check,
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import subprocess, sys
                subprocess.run([sys.executable, "-c", "pass"], check=True)
                """,
        }
    )
    for _ in range(2):
        assert not check(tree.root)["cached"]
    result = subprocess.run(
        [*COMMAND, "--verbose"],
        cwd=tree.root,
        env=command_environment(COLUMNS="300"),  # one line, not wrapped by the console
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in result.stderr.splitlines() if "not cached" in line]
    assert lines == [
        f"The probe's result is not cached: the code under test started a process "
        f"({sys.executable}), whose outcome the cache cannot check."
    ]


def test_the_platform_modules_own_queries_of_the_machine_do_not_stop_the_cache(
    tree: Project,
    check: Check,
) -> None:
    # platform.processor() runs `uname -p`; torch and vllm call it while they are imported.
    tree.write({"pkg/connectors/__init__.py": "import platform\nplatform.processor()\n"})
    check(tree.root)
    assert check(tree.root)["cached"]


def test_the_probe_writes_no_bytecode_into_the_analysed_tree(tree: Project, check: Check) -> None:
    check(tree.root)
    check(tree.root, "--no-cache")
    assert sorted(p.relative_to(tree.root) for p in tree.root.rglob("__pycache__")) == []


@pytest.mark.parametrize(
    "reading",
    [
        "posix.environ.get(b'RP_FLAG') == b'1'",
        "posix.environ[b'RP_FLAG'] == b'1'",
        "b'RP_FLAG' in posix.environ and posix.environ[b'RP_FLAG'] == b'1'",
        "dict(posix.environ).get(b'RP_FLAG') == b'1'",
        "os.environ._data.get(b'RP_FLAG') == b'1'",
    ],
)
def test_a_variable_read_through_the_posix_module_is_in_the_key(
    tree: Project, check: Check, reading: str
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": f"""\
                import os, posix
                if {reading}:
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert verdict(check(tree.root, RP_FLAG="0")) == KEPT
    assert check(tree.root, RP_FLAG="0")["cached"]
    cached, fresh = check.cached_and_fresh(tree.root, RP_FLAG="1")
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


def test_a_path_checked_with_os_access_is_in_the_key(tree: Project, check: Check) -> None:
    flag = tree.root / "pkg/connectors/use-cuda"
    flag.write_text("")
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import os
                if not os.access(os.path.join(os.path.dirname(__file__), "use-cuda"), os.F_OK):
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert verdict(check(tree.root)) == KEPT
    assert check(tree.root)["cached"]
    flag.unlink()
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


@pytest.mark.parametrize(
    "resolving",
    ["os.path.realpath(link)", "os.readlink(link)", "str(pathlib.Path(link).resolve())"],
)
def test_a_symbolic_link_pointed_elsewhere_is_in_the_key(
    tree: Project, check: Check, resolving: str
) -> None:
    # As /usr/local/cuda is between CUDA versions: the link keeps its kind, its target changes.
    for version in ("cuda-12", "npu-8"):
        (tree.root / version).mkdir()
    link = tree.root / "accelerator"
    link.symlink_to(tree.root / "cuda-12")
    tree.write(
        {
            "pkg/connectors/__init__.py": f"""\
                import os, pathlib
                link = {str(link)!r}
                if os.path.basename({resolving}).startswith("npu"):
                    import pkg.platforms.npu.ops
                """,
        }
    )
    assert verdict(check(tree.root)) == KEPT
    assert check(tree.root)["cached"]
    link.unlink()
    link.symlink_to(tree.root / "npu-8")
    cached, fresh = check.cached_and_fresh(tree.root)
    assert (verdict(cached), cached["cached"], fresh) == (BACKEND_LOADED, False, BACKEND_LOADED)


@pytest.mark.parametrize(
    ("code", "why"),
    [
        (
            "import os\nos.access(os.path.dirname(__file__), os.R_OK, effective_ids=True)\n",
            "called os.access with dir_fd or effective_ids, which the cache cannot ask again",
        ),
        (
            "import socket\nwith socket.socket() as s:\n    try:\n"
            "        s.connect(('127.0.0.1', 9))\n    except OSError:\n        pass\n",
            "used a socket (socket.connect to ('127.0.0.1', 9)), whose answer the cache cannot "
            "check",
        ),
    ],
    ids=["effective-ids", "socket"],
)
def test_a_question_the_cache_cannot_ask_again_is_not_remembered_and_verbose_says_why(
    tree: Project, check: Check, code: str, why: str
) -> None:
    tree.write({"pkg/connectors/__init__.py": code})
    for _ in range(2):
        assert not check(tree.root)["cached"]
    result = subprocess.run(
        [*COMMAND, "--verbose"],
        cwd=tree.root,
        env=command_environment(COLUMNS="300"),
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in result.stderr.splitlines() if "not cached" in line]
    assert lines == [f"The probe's result is not cached: the code under test {why}."]
