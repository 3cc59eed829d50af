"""The runtime-isolation contract on synthetic packages with a fake hardware SDK of our own."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest
from click.testing import CliRunner

from helpers import Project, installed_python
from importlinter_contracts.cli import main

pytestmark = pytest.mark.matrix

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
    "pkg/models/big.py": "",
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
    assert report["loaded_modules"] == [
        "pkg",
        "pkg.connectors",
        "pkg.platforms",
        "pkg.platforms.interface",
    ]
    assert report["cached"] is False


def test_text_output_states_the_detected_platform_and_the_loaded_container_modules(
    tree: Project,
) -> None:
    result = tree.lint_imports()
    assert result.output.splitlines()[:4] == [
        "Optional SDKs stay optional: detected pkg.platforms.cuda.platform.CudaPlatform",
        "    loaded of pkg.platforms (2):",
        "        pkg.platforms",
        "        pkg.platforms.interface",
    ]
    assert "Optional SDKs stay optional KEPT" in result.output
    assert tree.check().stdout.splitlines()[:2] == result.output.splitlines()[:2]


def test_verbose_text_output_lists_every_loaded_module_of_the_root_package(tree: Project) -> None:
    # A call the static reading of calls at import time cannot follow: through a list.
    tree.write(
        {
            "pkg/connectors/__init__.py": "def load():\n    import pkg.extra\nfor hook in [load]:\n    hook()\n"
        }
    )
    tree.write({"pkg/extra.py": ""})
    lines = tree.lint_imports("--verbose").output.splitlines()
    start = lines.index("    loaded of the analysed packages (5):")
    assert lines[start : start + 8] == [
        "    loaded of the analysed packages (5):",
        "        pkg",
        "        pkg.connectors",
        "        pkg.extra",
        "        pkg.platforms",
        "        pkg.platforms.interface",
        "    loaded although the static eager walk from the probes does not reach them (1):",
        "        pkg.extra: imported inside pkg.connectors.load(), a function that ran while "
        "the probes were imported (pkg/connectors/__init__.py:2)",
    ]
    assert "loaded of the analysed packages" not in tree.lint_imports().output


def test_detected_backend_may_load_its_own_platform_module(tree: Project) -> None:
    tree.write({"pkg/connectors/__init__.py": "import pkg.platforms.cuda.platform\n"})
    assert tree.contract("runtime")["kept"]


def test_a_missing_dependency_says_that_the_contract_runs_the_code_and_how_to_go_on(
    tree: Project,
) -> None:
    tree.write({"pkg/connectors/__init__.py": "import torch_not_installed_here\n"})
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "probe_failed"
    assert violation["missing_dependency"] == "torch_not_installed_here"
    assert violation["message"] == (
        "importing pkg.connectors failed: ModuleNotFoundError: No module named "
        "'torch_not_installed_here'. This contract imports the code it checks, so it needs "
        "that code's dependencies where it runs: install the one that provides "
        "'torch_not_installed_here', or leave this contract out "
        "(importlinter-contracts check --static)"
    )
    assert violation["modules"] == ["pkg.connectors"]


def test_a_missing_module_of_the_analysed_package_is_not_called_a_dependency(
    tree: Project,
) -> None:
    tree.write({"pkg/connectors/__init__.py": "import pkg.gone\n"})
    (violation,) = tree.contract("runtime")["violations"]
    assert "missing_dependency" not in violation
    assert violation["message"] == (
        "importing pkg.connectors failed: ModuleNotFoundError: No module named 'pkg.gone'"
    )


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
    assert "missing_dependency" not in violation  # blocked on purpose, not missing
    assert "connector setup" in violation["stderr_tail"]
    output = tree.lint_imports().output
    assert "Optional SDKs stay optional BROKEN" in output
    assert (
        "-   importing pkg.connectors failed: ModuleNotFoundError: import of fakesdk halted"
        in output
    )
    assert "stderr of the probe (last lines):\n    connector setup\n" in output


@pytest.mark.parametrize(
    ("detector", "message"),
    [
        (
            "def detect():\n    raise RuntimeError('no device')\n",
            "the detector pkg.platforms:detect failed: RuntimeError: no device",
        ),
        (
            # Which backend may load is not known: no backend_loaded finding.
            "def detect():\n    import pkg.platforms.cuda.platform\n    raise RuntimeError('no')\n",
            "the detector pkg.platforms:detect failed: RuntimeError: no",
        ),
        (
            "def detect():\n    return None\n",
            "the detector pkg.platforms:detect returned None, not a class, a qualified name, "
            "a module, or an instance of a class that is not built in",
        ),
        (
            "def detect():\n    return ''\n",
            "the detector pkg.platforms:detect returned '', not a class, a qualified name, "
            "a module, or an instance of a class that is not built in",
        ),
    ],
    ids=["raises", "loads-a-backend-then-raises", "returns-none", "returns-empty"],
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


def test_any_module_of_another_backend_is_named(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": "import importlib\nimportlib.import_module('pkg.platforms.' + 'npu.ops')\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "backend_loaded"
    assert violation["modules"] == ["pkg.platforms.npu", "pkg.platforms.npu.ops"]
    assert violation["message"] == (
        "modules of backends other than the detected one "
        "(detected: pkg.platforms.cuda.platform.CudaPlatform) were loaded: "
        "pkg.platforms.npu, pkg.platforms.npu.ops"
    )


def test_a_module_that_registers_itself_as_a_backends_marker_counts_as_that_backend(
    tree: Project,
) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": "import sys, types\nsys.modules['pkg.platforms.rocm.platform'] = types.ModuleType('p')\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["modules"] == ["pkg.platforms.rocm.platform"]


def test_a_container_without_backends_is_a_configuration_error(tree: Project) -> None:
    configure(tree, "backend_marker = driver\n")
    result = tree.check()
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract "Optional SDKs stay optional" is not configured '
        "correctly: backends: no child package of 'pkg.platforms' has a 'driver' module; "
        "set backend_marker, or name the backends with backends = ... (or backends = * for "
        "every child).\n",
    )


def test_forbidden_loaded_modules_are_named(tree: Project) -> None:
    configure(tree, "forbidden_loaded_modules =\n    pkg.models\n")
    tree.write(
        {
            "pkg/connectors/__init__.py": "import importlib\nimportlib.import_module('pkg.models.big')\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "forbidden_loaded"
    assert violation["message"] == "forbidden modules were loaded: pkg.models, pkg.models.big"


def test_forbidden_loaded_modules_take_wildcards(tree: Project) -> None:
    configure(tree, "forbidden_loaded_modules =\n    pkg.*.big\n")
    tree.write(
        {
            "pkg/connectors/__init__.py": "import importlib\nimportlib.import_module('pkg.models.big')\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["modules"] == ["pkg.models.big"]


def test_run_that_exceeds_the_timeout_is_killed_and_reported(tree: Project) -> None:
    configure(tree, "timeout = 1.5\n")
    tree.write(
        {
            "pkg/connectors/__init__.py": "import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\ntime.sleep(60)\n"
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["kind"] == "timeout"
    assert violation["message"] == "the probe process was killed after the 1.5 s timeout"


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
    assert [v["modules"] for v in report["violations"]] == [
        ["pkg.platforms.npu", "pkg.platforms.npu.ops"]
    ]


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
        ("timeout = 0", "timeout: '0' is not a positive number of seconds."),
        ("timeout = nan", "timeout: 'nan' is not a positive number of seconds."),
        ("timeout = soon", "timeout: 'soon' is not a number of seconds."),
        (
            "ignore_loaded_modules = pkg.platforms.npu -> pkg.x",
            "ignore_loaded_modules: Entry 'pkg.platforms.npu -> pkg.x' is not a module "
            "expression (not a dotted module name, * or ** standing for a name): write it as "
            '"package.module  # reason".',
        ),
        (
            "python = /nonexistent/python3",
            "python: '/nonexistent/python3' cannot be run: No such file or directory.",
        ),
    ],
    ids=[
        "detector-form",
        "timeout-too-small",
        "timeout-nan",
        "timeout-not-a-number",
        "entry-not-a-module",
        "python-missing",
    ],
)
def test_configuration_errors_are_one_line(tree: Project, options: str, message: str) -> None:
    config = tree.root / ".importlinter"
    text = config.read_text().replace("detector = pkg.platforms:detect\n", "")
    config.write_text(text + options + "\n")
    if not options.startswith("detector"):
        config.write_text(config.read_text() + "detector = pkg.platforms:detect\n")
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    # An entry that cannot be read is named with its file and line.
    lines = config.read_text().splitlines()
    where = f".importlinter:{lines.index(options) + 1}: " if "Entry '" in message else ""
    assert result.stderr == (
        f'importlinter-contracts: {where}Contract "Optional SDKs stay optional" is not configured correctly: {message}\n'
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
        "modules of backends other than the detected one (detected: nothing) "
        "were loaded: pkg.platforms.cuda, pkg.platforms.cuda.platform"
    ]


def _another_python() -> str | None:
    """An installed Python of another version: on PATH, or one pyenv manages."""
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    others = (installed_python(v) for v in ("3.13", "3.12", "3.11") if v != running)
    return next((found for found in others if found), None)


def test_another_interpreter_gets_the_working_directory_but_not_our_site_packages(
    tree: Project,
) -> None:
    python = _another_python()  # (here, not at collection, which every worker does)
    if python is None:
        pytest.skip("no Python of another version installed")
    configure(tree, f"python = {python}\n")
    # click is installed here, not in the other interpreter: it must not be importable there.
    tree.write({"pkg/connectors/__init__.py": "import click\n"})
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["missing_dependency"] == "click"
    assert violation["message"] == (
        "importing pkg.connectors failed: ModuleNotFoundError: No module named 'click'. This "
        "contract imports the code it checks, so it needs that code's dependencies where it "
        "runs: install the one that provides 'click', or leave this contract out "
        "(importlinter-contracts check --static)"
    )


# The allowlist: ignore_loaded_modules.

NPU_LOADED = {
    "pkg/connectors/__init__.py": "try:\n    import pkg.platforms.npu.ops\nexcept ImportError:\n    pass\n"
}


def test_allowlisted_loaded_modules_are_excused_with_their_reasons(tree: Project) -> None:
    tree.write(NPU_LOADED)
    configure(
        tree,
        """\
        require_reasons = true
        ignore_loaded_modules =
            pkg.platforms.npu  # parent of the connector, runs first
            pkg.platforms.npu.ops  # the connector's try import
        """,
    )
    report = tree.contract("runtime")
    assert (report["kept"], report["violations"], report["unmatched_ignores"]) == (True, [], [])
    assert report["ignored"] == [
        {
            "module": "pkg.platforms.npu",
            "entry": "pkg.platforms.npu # parent of the connector, runs first",
            "reason": "parent of the connector, runs first",
        },
        {
            "module": "pkg.platforms.npu.ops",
            "entry": "pkg.platforms.npu.ops # the connector's try import",
            "reason": "the connector's try import",
        },
    ]
    lines = tree.lint_imports().output.splitlines()
    assert lines[:5] == [
        "Optional SDKs stay optional: detected pkg.platforms.cuda.platform.CudaPlatform",
        "    loaded of pkg.platforms (4):",
        "        pkg.platforms",
        "        pkg.platforms.interface",
        "        pkg.platforms.npu  (allowlisted: parent of the connector, runs first)",
    ]
    assert lines[5] == "        pkg.platforms.npu.ops  (allowlisted: the connector's try import)"
    assert "Optional SDKs stay optional KEPT" in lines  # no "ignored imports": they are modules


def test_an_entry_excuses_only_the_modules_it_names(tree: Project) -> None:
    tree.write(NPU_LOADED)
    configure(tree, "ignore_loaded_modules =\n    pkg.platforms.npu.ops  # connector\n")
    (violation,) = tree.contract("runtime")["violations"]
    assert violation["modules"] == ["pkg.platforms.npu"]


def test_entries_take_wildcards_and_excuse_forbidden_modules_too(tree: Project) -> None:
    tree.write(
        {"pkg/connectors/__init__.py": "import pkg.platforms.npu.ops\nimport pkg.models.big\n"}
    )
    configure(
        tree,
        """\
        forbidden_loaded_modules = pkg.models
        ignore_loaded_modules =
            pkg.platforms.npu.**  # the whole NPU package
            pkg.platforms.npu  # its package
            pkg.*  # the models package
            pkg.models.big  # the model
        """,
    )
    report = tree.contract("runtime")
    assert report["kept"], report["violations"]
    assert [item["module"] for item in report["ignored"]] == [
        "pkg.models",
        "pkg.models.big",
        "pkg.platforms.npu",
        "pkg.platforms.npu.ops",
    ]


@pytest.mark.parametrize(
    ("alerting", "kept", "warnings"),
    [
        ("error", False, []),
        (
            "warn",
            True,
            [
                "No loaded module matches ignored loaded module pkg.platforms.xpu # gone: "
                "remove this stale entry."
            ],
        ),
        ("none", True, []),
    ],
)
def test_stale_entries_follow_unmatched_ignore_imports_alerting(
    tree: Project, alerting: str, kept: bool, warnings: list[str]
) -> None:
    configure(
        tree,
        f"unmatched_ignore_imports_alerting = {alerting}\n"
        "ignore_loaded_modules =\n    pkg.platforms.xpu  # gone\n",
    )
    report = tree.contract("runtime")
    assert (report["kept"], report["warnings"]) == (kept, warnings)
    assert report["unmatched_ignores"] == (["pkg.platforms.xpu # gone"] if not kept else [])
    warned = ["pkg.platforms.xpu # gone"] if warnings else []
    assert report["warned_unmatched_ignores"] == warned
    # An error or a warning, the annotation points at the entry's line (and only once).
    where = "file=.importlinter,line=21,title=Optional SDKs stay optional (runtime)"
    annotations = {
        "error": [
            f"::error {where}::pkg.platforms.xpu # gone: no loaded module matches it; "
            "remove this stale entry"
        ],
        "warn": [f"::warning {where}::{warning}" for warning in warnings],
        "none": [],
    }
    assert tree.check("--format", "github").stdout.splitlines() == annotations[alerting]


def test_entries_are_not_called_stale_when_the_probe_did_not_run_cleanly(tree: Project) -> None:
    # Which modules load is not known: the entries may well still be needed.
    tree.write({**NPU_LOADED, "pkg/platforms/interface.py": "import torch_not_installed_here\n"})
    configure(tree, "ignore_loaded_modules =\n    pkg.platforms.npu  # connector debt\n")
    report = tree.contract("runtime")
    assert report["kept"] is False
    assert "probe_failed" in [v["kind"] for v in report["violations"]]
    assert report["unmatched_ignores"] == []
    assert report["warnings"] == [
        "The ignore_loaded_modules entries were not checked for stale ones: the probe did not "
        "run cleanly."
    ]
    annotations = tree.check("--format", "github").stdout
    assert "remove this stale entry" not in annotations


def test_an_entry_for_a_loaded_module_that_breaks_no_rule_is_stale(tree: Project) -> None:
    configure(tree, "ignore_loaded_modules =\n    pkg.platforms.interface  # neutral\n")
    report = tree.contract("runtime")
    assert (report["kept"], report["unmatched_ignores"]) == (
        False,
        ["pkg.platforms.interface # neutral"],
    )
    output = tree.lint_imports().output
    assert (
        "1 ignore_loaded_modules entry matches no loaded module that this contract would report:"
        in " ".join(output.split())  # Rich wraps this line
    )
    assert "-   pkg.platforms.interface # neutral  (remove this stale entry)" in output


def test_require_reasons_names_the_entries_without_one(tree: Project) -> None:
    configure(
        tree,
        "require_reasons = true\nignore_loaded_modules =\n    pkg.platforms.npu\n"
        "    pkg.platforms.npu.ops  # TODO: reason\n",
    )
    result = tree.check()
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract "Optional SDKs stay optional" is not configured '
        "correctly: ignore_loaded_modules: require_reasons is true, but these entries give no "
        "reason: 'pkg.platforms.npu', 'pkg.platforms.npu.ops # TODO: reason'. End each with "
        "'# why it is allowed'.\n",
    )


# The static model against the run.


def test_modules_loaded_beyond_the_static_eager_walk_are_listed_with_their_importer(
    tree: Project,
) -> None:
    tree.write(
        {
            # A call through a registry filled at run time, and a dynamic import of a name
            # computed at run time, which the static reading of calls cannot follow.
            "pkg/connectors/__init__.py": """\
                import importlib
                def register():
                    import pkg.registered
                REGISTRY = {}
                REGISTRY["hook"] = register; REGISTRY["hook"]()
                importlib.import_module("pkg.BY_NAME".lower())
                """,
            "pkg/registered.py": "",
            "pkg/by_name.py": "",
            "pkg/platforms/__init__.py": """\
                def detect():
                    import pkg.detected
                    return "pkg.platforms.cuda.platform.CudaPlatform"
                """,
            "pkg/detected.py": "import pkg.sub.leaf\n",
            "pkg/sub/leaf.py": "",
        }
    )
    unexpected = tree.contract("runtime")["loaded_outside_eager_closure"]
    assert unexpected == [
        {
            "module": "pkg.by_name",
            "importer": "pkg.connectors",
            "function": None,
            "location": {"path": "pkg/connectors/__init__.py", "line": 6},
            "why": "through importlib from module level of pkg.connectors: a name chosen at "
            "run time (a registry, a plugin)",
        },
        {
            "module": "pkg.detected",
            "importer": "pkg.platforms",
            "function": "detect",
            "location": {"path": "pkg/platforms/__init__.py", "line": 2},
            "why": "imported inside pkg.platforms.detect(), during the detector call",
        },
        {
            "module": "pkg.registered",
            "importer": "pkg.connectors",
            "function": "register",
            "location": {"path": "pkg/connectors/__init__.py", "line": 3},
            "why": "imported inside pkg.connectors.register(), a function that ran while the "
            "probes were imported",
        },
        {
            "module": "pkg.sub",
            "importer": "pkg.detected",
            "function": None,
            "location": {"path": "pkg/detected.py", "line": 1},
            "why": "imported at module level by pkg.detected, itself loaded outside the "
            "closure; as the parent package of pkg.sub.leaf",
        },
        {
            "module": "pkg.sub.leaf",
            "importer": "pkg.detected",
            "function": None,
            "location": {"path": "pkg/detected.py", "line": 1},
            "why": "imported at module level by pkg.detected, itself loaded outside the closure",
        },
    ]


def test_a_module_put_into_sys_modules_is_listed_as_not_imported(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": "import sys, types\nsys.modules['pkg.made_up'] = types.ModuleType('pkg.made_up')\n"
        }
    )
    assert tree.contract("runtime")["loaded_outside_eager_closure"] == [
        {
            "module": "pkg.made_up",
            "importer": None,
            "function": None,
            "location": None,
            "why": "the import hook did not see it imported: it was put into sys.modules directly",
        }
    ]


def test_what_the_static_walk_reaches_is_not_listed(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": "try:\n    import pkg.models.big\nexcept ImportError:\n    pass\n"
        }
    )
    report = tree.contract("runtime")
    assert "pkg.models.big" in report["loaded_modules"]
    assert report["loaded_outside_eager_closure"] == []


# The allowlist sync and the GitHub annotations know ignore_loaded_modules.


def test_allowlist_command_adds_loaded_modules_and_removes_stale_entries(tree: Project) -> None:
    tree.write(NPU_LOADED)
    configure(tree, "ignore_loaded_modules =\n    pkg.platforms.xpu  # retired\n")
    before = (tree.root / ".importlinter").read_text()
    shown = CliRunner().invoke(
        main, ["allowlist", "--no-cache", "--add-violations"], catch_exceptions=False
    )
    assert shown.exit_code == 1
    assert [line for line in shown.stdout.splitlines() if line[:1] in "+-"][2:] == [
        "-    pkg.platforms.xpu  # retired",
        "+    pkg.platforms.npu  # TODO: reason",
        "+    pkg.platforms.npu.ops  # TODO: reason",
    ]
    assert (tree.root / ".importlinter").read_text() == before
    written = CliRunner().invoke(main, ["allowlist", "--no-cache", "--add-violations", "--write"])
    assert written.exit_code == 0
    assert (tree.root / ".importlinter").read_text() == before.replace(
        "    pkg.platforms.xpu  # retired\n",
        "    pkg.platforms.npu  # TODO: reason\n    pkg.platforms.npu.ops  # TODO: reason\n",
    )
    assert tree.contract("runtime")["kept"]


def test_allowlist_command_writes_the_option_when_there_is_none(tree: Project) -> None:
    tree.write(NPU_LOADED)
    written = CliRunner().invoke(main, ["allowlist", "--no-cache", "--add-violations", "--write"])
    assert written.exit_code == 0
    assert (
        (tree.root / ".importlinter")
        .read_text()
        .endswith(
            "container = pkg.platforms\nignore_loaded_modules =\n"
            "    pkg.platforms.npu  # TODO: reason\n    pkg.platforms.npu.ops  # TODO: reason\n\n"
        )
    )


def test_github_annotation_points_at_a_stale_loaded_module_entry(tree: Project) -> None:
    configure(tree, "ignore_loaded_modules =\n    pkg.platforms.xpu  # retired\n")
    result = tree.check("--format", "github")
    line = (
        (tree.root / ".importlinter")
        .read_text()
        .splitlines()
        .index("    pkg.platforms.xpu  # retired")
    )
    assert result.stdout.splitlines() == [
        f"::error file=.importlinter,line={line + 1},title=Optional SDKs stay optional (runtime)"
        "::pkg.platforms.xpu # retired: no loaded module matches it; remove this stale entry"
    ]


def test_a_dependency_that_every_probe_misses_is_one_line_that_says_what_to_do(
    tree: Project,
) -> None:
    # As in a checkout without torch: the package's __init__ and another probe import it, so
    # every probe and the detector fail the same way.
    tree.write(
        {
            "pkg/platforms/__init__.py": "import torch_not_installed_here\n\ndef detect():\n    pass\n",
            "pkg/connectors/__init__.py": "import torch_not_installed_here\n",
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    message = (
        "importing pkg.platforms failed: ModuleNotFoundError: No module named "
        "'torch_not_installed_here' (so did 2 other probes and the detector). This contract "
        "imports the code it checks, so it needs that code's dependencies where it runs: "
        "install the one that provides 'torch_not_installed_here', or leave this contract out "
        "(importlinter-contracts check --static)"
    )
    assert {k: v for k, v in violation.items() if k != "stderr_tail"} == {
        "kind": "probe_failed",
        "module": "pkg.platforms",
        "modules": [
            "pkg.platforms",
            "pkg.platforms.interface",
            "pkg.connectors",
            "pkg.platforms:detect",
        ],
        "missing_dependency": "torch_not_installed_here",
        "message": message,
    }
    output = tree.lint_imports().output
    broken = output[output.index("Optional SDKs stay optional\n---") :].splitlines()
    assert [line for line in broken if line.startswith("-   ")] == [f"-   {message}"]


def test_each_missing_dependency_is_one_finding_and_other_failures_stay_apart(
    tree: Project,
) -> None:
    tree.write(
        {
            "pkg/platforms/__init__.py": "def detect():\n    import fakesdk\n",
            "pkg/platforms/interface.py": "import first_not_installed_here\n",
            "pkg/connectors/__init__.py": "import second_not_installed_here\n",
        }
    )
    violations = tree.contract("runtime")["violations"]
    assert [(v["module"], v.get("missing_dependency")) for v in violations] == [
        ("pkg.platforms.interface", "first_not_installed_here"),
        ("pkg.connectors", "second_not_installed_here"),
        ("pkg.platforms:detect", None),  # blocked on purpose, not missing
    ]
    assert [v["message"].partition(". ")[2][:30] for v in violations] == [
        "This contract imports the code",
        "This contract imports the code",
        "",
    ]
    assert not any("(so did" in v["message"] for v in violations)
    assert "modules" not in violations[2]


def test_a_dependency_only_the_detector_misses_is_its_own_finding(tree: Project) -> None:
    tree.write(
        {
            "pkg/platforms/__init__.py": "def detect():\n    import torch_not_installed_here\n",
        }
    )
    (violation,) = tree.contract("runtime")["violations"]
    assert (violation["kind"], violation["module"], violation["modules"]) == (
        "detector_failed",
        "pkg.platforms:detect",
        ["pkg.platforms:detect"],
    )
    assert violation["message"].startswith(
        "the detector pkg.platforms:detect failed: ModuleNotFoundError: No module named "
        "'torch_not_installed_here'. This contract imports the code it checks"
    )


def test_allowlist_command_edits_a_toml_list_of_loaded_modules(tree: Project) -> None:
    tree.write(NPU_LOADED)
    (tree.root / ".importlinter").unlink()
    pyproject = tree.root / "pyproject.toml"
    pyproject.write_text(
        "[tool.importlinter]\n"
        'root_package = "pkg"\n'
        'contract_types = ["runtime_isolation: importlinter_contracts.RuntimeIsolationContract"]\n'
        "\n"
        "[[tool.importlinter.contracts]]\n"
        'id = "runtime"\n'
        'name = "R"\n'
        'type = "runtime_isolation"\n'
        'blocked_modules = ["fakesdk"]\n'
        'probe_modules = ["pkg.platforms", "pkg.connectors"]\n'
        'container = "pkg.platforms"\n'
        "ignore_loaded_modules = [\n"
        '    "pkg.platforms.xpu  # gone",\n'
        "]\n"
    )
    written = CliRunner().invoke(main, ["allowlist", "--no-cache", "--add-violations", "--write"])
    assert written.exit_code == 0, written.output
    assert pyproject.read_text().endswith(
        "ignore_loaded_modules = [\n"
        '    "pkg.platforms.npu  # TODO: reason",\n'
        '    "pkg.platforms.npu.ops  # TODO: reason",\n'
        "]\n"
    )


def test_allowlist_command_refuses_to_edit_after_a_failed_probe(tree: Project) -> None:
    configure(tree, "ignore_loaded_modules =\n    pkg.platforms.npu  # connector\n")
    tree.write({"pkg/connectors/__init__.py": "import torch_not_installed_here\n"})
    before = (tree.root / ".importlinter").read_text()
    result = CliRunner().invoke(main, ["allowlist", "--no-cache", "--write"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "Optional SDKs stay optional": its '
        "ignore_loaded_modules cannot be brought in step, as the probe did not run cleanly "
        "(importing pkg.connectors failed: ModuleNotFoundError: No module named "
        "'torch_not_installed_here'. This contract imports the code it checks, so it needs "
        "that code's dependencies where it runs: install the one that provides "
        "'torch_not_installed_here', or leave this contract out (importlinter-contracts "
        "check --static)). Fix that first, or leave the contract out with --static.\n"
    )
    assert (tree.root / ".importlinter").read_text() == before
    # --static leaves the contract out, and with it every allowlist: nothing is checked.
    static = CliRunner().invoke(main, ["allowlist", "--no-cache", "--static"])
    assert (static.exit_code, static.stdout, static.stderr) == (
        2,
        "",
        "importlinter-contracts: Nothing to check: runtime (runtime_isolation) runs the code it "
        "checks, which --static skips.\n",
    )


def test_two_entries_for_the_same_modules_are_a_configuration_error(tree: Project) -> None:
    configure(
        tree,
        "ignore_loaded_modules =\n    pkg.platforms.npu  # one\n    pkg.platforms.npu  # two\n",
    )
    result = tree.check()
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract "Optional SDKs stay optional" is not configured '
        "correctly: ignore_loaded_modules: These entries allow the same loaded modules: "
        "'pkg.platforms.npu # one', 'pkg.platforms.npu # two'. Keep one of each.\n",
    )


# The layout of tests/test_backend_isolation.py's MODULE_BACKENDS: one module per backend.
MODULE_BACKEND_TREE = {
    "pkg/platforms/__init__.py": """\
        def detect():
            from pkg.platforms import cuda
            return cuda.CudaPlatform
        """,
    "pkg/platforms/interface.py": "",
    "pkg/platforms/cuda.py": "from pkg.platforms import interface\nclass CudaPlatform:\n    pass\n",
    "pkg/platforms/rocm.py": "",
    "pkg/platforms/xpu/__init__.py": "",
    "pkg/platforms/xpu/ops.py": "",
    "pkg/connectors/__init__.py": "",
}

MODULE_BACKEND_CONTRACT = """\
[importlinter:contract:runtime]
name = Optional SDKs stay optional
type = runtime_isolation
blocked_modules = fakesdk
probe_modules = pkg.connectors
detector = pkg.platforms:detect
container = pkg.platforms
{options}
"""


@pytest.fixture
def modules_tree(project: Project) -> Project:
    project.write(MODULE_BACKEND_TREE)
    return project


def configure_module_backends(project: Project, options: str) -> None:
    project.configure(MODULE_BACKEND_CONTRACT.format(options=textwrap.dedent(options)))


@pytest.mark.parametrize(
    "options",
    ["backends =\n    cuda\n    rocm\n    xpu\n", "backends = *\nneutral_children = interface\n"],
    ids=["named", "every-child"],
)
def test_module_backends_are_named_as_backend_isolation_names_them(
    modules_tree: Project, options: str
) -> None:
    configure_module_backends(modules_tree, options)
    report = modules_tree.contract("runtime")
    assert report["kept"], report
    assert report["detected"] == "pkg.platforms.cuda.CudaPlatform"
    assert report["loaded_container_modules"] == [
        "pkg.platforms",
        "pkg.platforms.cuda",
        "pkg.platforms.interface",
    ]
    modules_tree.write({"pkg/connectors/__init__.py": "import pkg.platforms.xpu.ops\n"})
    (violation,) = modules_tree.contract("runtime")["violations"]
    assert violation["kind"] == "backend_loaded"
    assert violation["message"] == (
        "modules of backends other than the detected one "
        "(detected: pkg.platforms.cuda.CudaPlatform) were loaded: "
        "pkg.platforms.xpu, pkg.platforms.xpu.ops"
    )


def test_without_neutral_children_every_child_is_a_backend(modules_tree: Project) -> None:
    # Every child is a backend without neutral_children: the interface, which cuda
    # imports, is then another backend.
    configure_module_backends(modules_tree, "backends = *\n")
    (violation,) = modules_tree.contract("runtime")["violations"]
    assert violation["modules"] == ["pkg.platforms.interface"]


def test_with_named_backends_a_loaded_child_outside_the_graph_is_no_backend(
    modules_tree: Project,
) -> None:
    modules_tree.write(
        {
            "pkg/connectors/__init__.py": "import sys, types\nsys.modules['pkg.platforms.tpu'] = types.ModuleType('t')\n"
        }
    )
    configure_module_backends(modules_tree, "backends =\n    cuda\n    rocm\n")
    assert modules_tree.contract("runtime")["kept"]
    # With `*`, any child but the neutral ones is a backend, those the graph lacks too.
    configure_module_backends(modules_tree, "backends = *\nneutral_children = interface\n")
    (violation,) = modules_tree.contract("runtime")["violations"]
    assert violation["modules"] == ["pkg.platforms.tpu"]


RUNTIME_BACKEND_ERRORS = [
    (
        "backends =\n    *\n    cuda\n",
        "backends: '*' names every child of the container; list no other name beside it (leave children out with neutral_children).",
    ),
    (
        "backends =\n    cuda\n    interface\nneutral_children = interface\n",
        "neutral_children: 'interface' is also listed in backends; a child is either a backend or neutral.",
    ),
    (
        "backends =\n    cuda\n    gpu\n",
        "backends: 'gpu' is not a child of 'pkg.platforms'; its children are: cuda, interface, rocm, xpu.",
    ),
    (
        "backends = *\nneutral_children = interfaze\n",
        "neutral_children: 'interfaze' is not a child of 'pkg.platforms'; its children are: cuda, interface, rocm, xpu.",
    ),
    (
        "backends = *\nneutral_children =\n    cuda\n    interface\n    rocm\n    xpu\n",
        "backends: every child of 'pkg.platforms' is in neutral_children, so '*' names no backend.",
    ),
    ("backends =\n", "backends: This list is empty; give at least one value."),
    (
        "neutral_children = interface\n",
        "backends: no child package of 'pkg.platforms' outside neutral_children has a 'platform' module; set backend_marker, or name the backends with backends = ... (or backends = * for every child).",
    ),
]


@pytest.mark.parametrize(
    ("options", "message"),
    RUNTIME_BACKEND_ERRORS,
    ids=[
        "star-beside-names",
        "named-and-neutral",
        "named-missing",
        "neutral-child-missing",
        "every-child-neutral",
        "backends-empty",
        "none-discovered-outside-neutral",
    ],
)
def test_backend_options_errors_are_those_of_backend_isolation(
    modules_tree: Project, options: str, message: str
) -> None:
    configure_module_backends(modules_tree, options)
    result = modules_tree.check()
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        'importlinter-contracts: Contract "Optional SDKs stay optional" is not configured '
        f"correctly: {message}\n",
    )


@pytest.mark.parametrize("option", ["backends = cuda", "neutral_children = interface"])
def test_backends_without_a_container_is_an_error(modules_tree: Project, option: str) -> None:
    configure_module_backends(modules_tree, option)
    config = modules_tree.root / ".importlinter"
    config.write_text(config.read_text().replace("container = pkg.platforms\n", ""))
    result = modules_tree.check()
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract "Optional SDKs stay optional" is not configured '
        f"correctly: {option.partition(' ')[0]}: names children of the container: set "
        "container too.\n",
    )


@pytest.mark.parametrize(
    ("returned", "detected"),
    [
        ("cuda.CudaPlatform()", "pkg.platforms.cuda.CudaPlatform"),
        ("cuda", "pkg.platforms.cuda"),
        ("'pkg.platforms.cuda'", "pkg.platforms.cuda"),
    ],
    ids=["instance", "module", "name-of-the-module"],
)
def test_detector_may_return_an_instance_or_a_module(
    modules_tree: Project, returned: str, detected: str
) -> None:
    configure_module_backends(modules_tree, "backends = *\nneutral_children = interface\n")
    modules_tree.write(
        {
            "pkg/platforms/__init__.py": f"def detect():\n    from pkg.platforms import cuda\n    return {returned}\n"
        }
    )
    report = modules_tree.contract("runtime")
    assert (report["kept"], report["detected"]) == (True, detected)


@pytest.mark.parametrize(
    ("returned", "shown"),
    [("3", "3"), ("[cuda.CudaPlatform]", "[<class 'pkg.platforms.cuda.CudaPlatform'>]")],
    ids=["number", "list"],
)
def test_detector_returning_an_instance_of_a_built_in_class_breaks_the_contract(
    modules_tree: Project, returned: str, shown: str
) -> None:
    configure_module_backends(modules_tree, "backends = *\nneutral_children = interface\n")
    modules_tree.write(
        {
            "pkg/platforms/__init__.py": f"def detect():\n    from pkg.platforms import cuda\n    return {returned}\n"
        }
    )
    (violation,) = modules_tree.contract("runtime")["violations"]
    assert (violation["kind"], violation["message"]) == (
        "detector_failed",
        f"the detector pkg.platforms:detect returned {shown}, not a class, a qualified name, "
        "a module, or an instance of a class that is not built in",
    )
