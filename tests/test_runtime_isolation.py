"""The runtime-isolation contract on synthetic packages with a fake hardware SDK of our own."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from helpers import Project

TREE = {
    # The fake SDK: importable unless the contract blocks it.
    "fakesdk/__init__.py": "",
    "pkg/platforms/__init__.py": """\
        def detect():
            try:
                import fakesdk
            except ImportError:
                return "pkg.platforms.cuda.platform.CudaPlatform"
            return "pkg.platforms.npu.platform.NpuPlatform"
        """,
    "pkg/platforms/interface.py": "",
    "pkg/platforms/cuda/platform.py": "class CudaPlatform:\n    pass\n",
    "pkg/platforms/npu/platform.py": "import fakesdk\nclass NpuPlatform:\n    pass\n",
    "pkg/platforms/npu/ops.py": "",
    "pkg/connectors/__init__.py": """\
        try:
            import fakesdk
        except ImportError:
            fakesdk = None
        """,
}

CONTRACT = """\
[importlinter:contract:runtime]
name = Optional SDKs stay optional
type = runtime_isolation
blocked_modules =
    fakesdk
probe_modules =
    pkg.platforms
    pkg.platforms.interface
    pkg.connectors
detector = pkg.platforms:detect
container = pkg.platforms
{options}
"""


def configure(project: Project, options: str = "") -> None:
    project.configure(CONTRACT.format(options=textwrap.dedent(options)))


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    configure(project)
    return project


def kinds(project: Project) -> list[str]:
    return [v["kind"] for v in project.contract("runtime")["violations"]]


def test_clean_run_is_kept_and_reports_what_was_loaded(tree: Project) -> None:
    report = tree.contract("runtime")
    assert report["kept"], report
    assert report["violations"] == []
    assert report["detected"] == "pkg.platforms.cuda.platform.CudaPlatform"
    assert report["loaded_container_modules"] == ["pkg.platforms", "pkg.platforms.interface"]


def test_detected_backend_may_load_its_own_platform_module(tree: Project) -> None:
    tree.write({"pkg/connectors/__init__.py": "import pkg.platforms.cuda.platform\n"})
    assert tree.contract("runtime")["kept"]


def test_probe_that_fails_to_import_shows_its_exception_and_stderr(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": "import sys\nprint('connector setup', file=sys.stderr)\nimport fakesdk\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "probe_failed"
    assert violation["module"] == "pkg.connectors"
    assert violation["message"] == (
        "importing pkg.connectors failed: ModuleNotFoundError: import of fakesdk halted; "
        "None in sys.modules"
    )
    assert "connector setup" in violation["stderr_tail"]
    output = tree.lint_imports().output
    assert "Optional SDKs stay optional BROKEN" in output
    assert (
        "-   importing pkg.connectors failed: ModuleNotFoundError: import of fakesdk halted"
        in output
    )
    assert "stderr (last lines):" in output and "connector setup" in output


@pytest.mark.parametrize(
    ("detector", "message"),
    [
        (
            "def detect():\n    raise RuntimeError('no device')\n",
            "the detector pkg.platforms:detect RuntimeError: no device",
        ),
        (
            "def detect():\n    return None\n",
            "the detector pkg.platforms:detect returned None, not a qualified name or a class",
        ),
        (
            "def detect():\n    return ''\n",
            "the detector pkg.platforms:detect returned '', not a qualified name or a class",
        ),
    ],
    ids=["raises", "returns-none", "returns-empty"],
)
def test_detector_that_fails_or_returns_nothing_breaks_the_contract(
    tree: Project, detector: str, message: str
) -> None:
    tree.write({"pkg/platforms/__init__.py": detector})
    (violation,) = tree.contract("runtime")["violations"]
    assert (violation["kind"], violation["message"]) == ("detector_failed", message)


def test_detector_may_return_a_class(tree: Project) -> None:
    tree.write(
        {
            "pkg/platforms/__init__.py": "def detect():\n    from pkg.platforms.cuda.platform import CudaPlatform\n    return CudaPlatform\n"
        }
    )
    report = tree.contract("runtime")
    assert report["kept"] and report["detected"] == "pkg.platforms.cuda.platform.CudaPlatform"


def test_blocked_module_that_gets_loaded_anyway_is_named(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import sys
                del sys.modules["fakesdk"]  # undoes the block
                import fakesdk
                """
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "blocked_module_loaded"
    assert violation["message"] == "the blocked module fakesdk was loaded: fakesdk"


def test_platform_module_of_another_backend_is_named(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": "import importlib\nimportlib.import_module('pkg.platforms.' + 'npu.ops')\nimport pkg.platforms.npu.platform as p\n"
        }
    )
    tree.write({"pkg/platforms/npu/platform.py": "class NpuPlatform:\n    pass\n"})
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "backend_loaded"
    assert violation["message"] == (
        "the platform modules of backends other than the detected one "
        "(detected: pkg.platforms.cuda.platform.CudaPlatform) were loaded: "
        "pkg.platforms.npu.platform"
    )


def test_forbidden_loaded_modules_are_named(tree: Project) -> None:
    configure(tree, "forbidden_loaded_modules =\n    pkg.platforms.npu\n")
    tree.write(
        {
            "pkg/connectors/__init__.py": "import importlib\nimportlib.import_module('pkg.platforms.npu.ops')\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "forbidden_loaded"
    assert (
        violation["message"]
        == "forbidden modules were loaded: pkg.platforms.npu, pkg.platforms.npu.ops"
    )


def test_forbidden_loaded_modules_take_wildcards(tree: Project) -> None:
    configure(tree, "forbidden_loaded_modules =\n    pkg.platforms.*.ops\n")
    tree.write(
        {
            "pkg/connectors/__init__.py": "import importlib\nimportlib.import_module('pkg.platforms.npu.ops')\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["modules"] == ["pkg.platforms.npu.ops"]


def test_run_that_exceeds_the_timeout_is_killed_and_reported(tree: Project) -> None:
    configure(tree, "timeout = 2\n")
    tree.write(
        {
            "pkg/connectors/__init__.py": "import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\ntime.sleep(60)\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "timeout"
    assert violation["message"] == "the probe process was killed after the 2 s timeout"


def test_child_that_dies_before_reporting_is_reported(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": "import os, sys\nprint('about to exit', file=sys.stderr, flush=True)\nos._exit(3)\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "crashed"
    assert violation["message"] == "the probe process exited with status 3 before reporting"
    assert violation["stderr_tail"] == ["about to exit"]


def test_child_that_floods_stdout_and_stderr_is_still_read(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": """\
                import sys
                line = "x" * 1023 + "\\n"
                for _ in range(20_000):  # 20 MB on each stream
                    sys.stdout.write(line)
                    sys.stderr.write(line)
                """
        }
    )
    assert tree.contract("runtime")["kept"]


def test_child_output_shaped_like_a_result_is_not_taken_for_one(tree: Project) -> None:
    fake = '{"probes": [], "detected": "pkg.platforms.npu.platform.NpuPlatform", "detector_error": null, "modules": []}'
    tree.write(
        {
            "pkg/connectors/__init__.py": f"import sys\nprint({fake!r})\nprint({fake!r}, file=sys.stderr)\nimport pkg.platforms.npu.ops\n"
        }
    )
    report = tree.contract("runtime")
    assert report["detected"] == "pkg.platforms.cuda.platform.CudaPlatform"
    assert report["kept"]
    assert "pkg.platforms.npu.ops" in report["loaded_container_modules"]


def test_child_runs_in_the_working_directory_with_our_sys_path(tree: Project) -> None:
    # pkg is importable only through the sys.path entry the test added to this process.
    assert "PYTHONPATH" not in os.environ or str(tree.root) not in os.environ["PYTHONPATH"]
    tree.write(
        {
            "pkg/connectors/__init__.py": f"import os\nassert os.getcwd() == {str(tree.root)!r}, os.getcwd()\n"
        }
    )
    assert tree.contract("runtime")["kept"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            "detector = pkg.platforms.detect",
            "detector: 'pkg.platforms.detect' is not of the form module:attribute.",
        ),
        ("timeout = 0", "timeout: Must be >= 1."),
        ("timeout = soon", "timeout: 'soon' is not an integer."),
        (
            "python = /nonexistent/python3",
            "python: '/nonexistent/python3' cannot be run: No such file or directory.",
        ),
    ],
    ids=["detector-form", "timeout-too-small", "timeout-not-integer", "python-missing"],
)
def test_configuration_errors_are_one_line(tree: Project, options: str, message: str) -> None:
    config = tree.root / ".importlinter"
    config.write_text(
        config.read_text().replace("detector = pkg.platforms:detect\n", "") + options + "\n"
    )
    if not options.startswith("detector"):
        config.write_text(config.read_text() + "detector = pkg.platforms:detect\n")
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "Optional SDKs stay optional" is not configured correctly: {message}\n'
    )


def test_required_options_are_named(project: Project) -> None:
    project.write(TREE)
    project.configure("[importlinter:contract:runtime]\nname = R\ntype = runtime_isolation\n")
    result = project.check()
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f'importlinter-contracts: Contract "R" is not configured correctly: {field}: This is a required field.'
        for field in ("blocked_modules", "probe_modules")
    ]


def test_without_a_detector_no_backend_platform_module_may_load(tree: Project) -> None:
    config = tree.root / ".importlinter"
    config.write_text(config.read_text().replace("detector = pkg.platforms:detect\n", ""))
    tree.write({"pkg/connectors/__init__.py": "import pkg.platforms.cuda.platform\n"})
    report = tree.contract("runtime")
    assert report["detected"] is None
    assert [v["message"] for v in report["violations"]] == [
        "the platform modules of backends other than the detected one (detected: nothing) "
        "were loaded: pkg.platforms.cuda.platform"
    ]


OTHER_PYTHONS = sorted(Path("/root/.pyenv/versions").glob("3.1[23]*/bin/python3"))


@pytest.mark.skipif(not OTHER_PYTHONS, reason="no second Python installed")
def test_another_interpreter_gets_the_working_directory_but_not_our_site_packages(
    tree: Project,
) -> None:
    python = OTHER_PYTHONS[0]
    configure(tree, f"python = {python}\n")
    # click is installed here, not in the other interpreter: it must not be importable there.
    tree.write({"pkg/connectors/__init__.py": "import click\n"})
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["message"] == (
        "importing pkg.connectors failed: ModuleNotFoundError: No module named 'click'"
    )
