"""The command line, shaped like lint-imports': the configuration file as an argument,
--version, --show-timings, --verbose, and --static for runs that never execute the code."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import textwrap

import pytest
from click.testing import CliRunner, Result

from helpers import Project
from importlinter_contracts.cli import main

# The runtime probe writes a marker file when it is imported: it shows whether a run executed
# the analysed code.
TREE = {
    "pkg/platforms/__init__.py": "",
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/cuda/platform.py": "",
    "pkg/neutral.py": "from pkg.platforms.npu import platform\n",
    "pkg/probe.py": "import pathlib\npathlib.Path('probe-ran').touch()\n",
    "fakesdk/__init__.py": "",
}

CONTRACTS = """\
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms

[importlinter:contract:runtime]
name = Runtime
type = runtime_isolation
blocked_modules = fakesdk
probe_modules = pkg.probe

[importlinter:contract:layers]
name = Layers
type = layers
layers =
    pkg.neutral
    pkg.platforms
"""

SKIPPED_RUNTIME = (
    "importlinter-contracts: skipped runtime (runtime_isolation): "
    "it runs the code it checks, which --static skips.\n"
)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    project.configure(CONTRACTS)
    return project


def _ids(result: Result) -> list[str]:
    return [contract["id"] for contract in json.loads(result.stdout)["contracts"]]


def test_version_names_this_package_import_linter_grimp_and_the_build() -> None:
    result = run("--version")
    version = importlib.metadata.version
    # The build tested: pure Python, but for CI's run on the compiled wheel.
    build = os.environ.get("IMPORTLINTER_CONTRACTS_TESTED_BUILD", "pure Python")
    assert (result.exit_code, result.stdout) == (
        0,
        f"importlinter-contracts {version('importlinter-contracts')} "
        f"(import-linter {version('import-linter')}, grimp {version('grimp')}; {build})\n",
    )


@pytest.mark.parametrize("command", ["check", "allowlist"])
def test_the_configuration_file_is_an_argument_or_config(tree: Project, command: str) -> None:
    (tree.root / ".importlinter").rename(tree.root / "boundaries.ini")
    assert run(command, "--no-cache").exit_code == 2  # no file where lint-imports looks
    # check: r2 is broken; allowlist, adding violations: r2's allowlist needs the import.
    adding = ["--add-violations"] if command == "allowlist" else []
    as_argument = run(command, "--no-cache", *adding, "boundaries.ini", "--contract", "r2")
    as_option = run(
        command, "--no-cache", *adding, "--config", "boundaries.ini", "--contract", "r2"
    )
    assert as_argument.exit_code == as_option.exit_code == 1
    assert as_argument.stdout == as_option.stdout != ""


def test_two_different_configuration_files_are_a_usage_error(tree: Project) -> None:
    result = run("check", "a.ini", "--config", "b.ini")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "importlinter-contracts: Two configuration files given, a.ini and --config b.ini: "
        "give one.\n"
    )


def test_static_skips_the_contract_that_runs_the_code_and_says_so(tree: Project) -> None:
    result = run("check", "--no-cache", "--static", "--format", "json")
    assert result.exit_code == 1  # r2 and layers are broken by pkg.neutral
    assert result.stderr == SKIPPED_RUNTIME
    assert _ids(result) == ["r2", "layers"]
    assert not (tree.root / "probe-ran").exists()
    # Without --static, the same configuration runs the probe.
    result = run("check", "--no-cache", "--format", "json")
    assert (_ids(result), result.stderr) == (["r2", "runtime", "layers"], "")
    assert (tree.root / "probe-ran").exists()


def test_static_text_report_says_what_it_skipped(tree: Project) -> None:
    result = run("check", "--no-cache", "--static", "--contract", "r2", "--contract", "runtime")
    assert result.stderr == SKIPPED_RUNTIME
    assert "R2 BROKEN" in result.stdout and "Runtime" not in result.stdout
    assert not (tree.root / "probe-ran").exists()


def test_static_with_nothing_left_to_check_is_an_error(tree: Project) -> None:
    result = run("check", "--no-cache", "--static", "--contract", "runtime")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "importlinter-contracts: Nothing to check: runtime (runtime_isolation) runs the code "
        "it checks, which --static skips.\n"
    )
    assert not (tree.root / "probe-ran").exists()


PLUGINS = """\
from importlinter import Contract, ContractCheck


class Undeclared(Contract):
    def check(self, graph, verbose):
        return ContractCheck(kept=True)

    def render_broken_contract(self, check):
        pass


class DeclaredStatic(Undeclared):
    executes_analysed_code = False
"""


def test_a_plugin_type_runs_under_static_only_if_it_declares_it_runs_no_code(
    project: Project,
) -> None:
    project.write({"pkg/a.py": "", "plugins.py": PLUGINS})
    (project.root / ".importlinter").write_text(
        textwrap.dedent(
            """\
            [importlinter]
            root_package = pkg
            contract_types =
                undeclared: plugins.Undeclared
                declared: plugins.DeclaredStatic

            [importlinter:contract:u]
            name = U
            type = undeclared

            [importlinter:contract:d]
            name = D
            type = declared
            """
        )
    )
    result = run("check", "--no-cache", "--static", "--format", "json")
    assert (result.exit_code, _ids(result)) == (0, ["d"])
    assert result.stderr == (
        "importlinter-contracts: skipped u (undeclared): "
        "it runs the code it checks, which --static skips.\n"
    )


def test_show_timings_in_text_and_json(tree: Project) -> None:
    text = run("check", "--no-cache", "--static", "--show-timings", "--contract", "r2")
    assert re.search(r"R2 BROKEN \[[\d.]+s\]", text.stdout), text.stdout
    data = json.loads(
        run("check", "--no-cache", "--static", "--show-timings", "--format", "json").stdout
    )
    assert isinstance(data["graph_build_ms"], int)
    assert [isinstance(c["check_ms"], int) for c in data["contracts"]] == [True, True]
    plain = json.loads(run("check", "--no-cache", "--static", "--format", "json").stdout)
    assert "graph_build_ms" not in plain and "check_ms" not in plain["contracts"][0]


def test_verbose_lines_go_to_stderr_and_stdout_keeps_only_the_report(tree: Project) -> None:
    result = run("check", "--no-cache", "--static", "--verbose", "--format", "json")
    assert "Checking R2..." in result.stderr
    assert _ids(result) == ["r2", "layers"]
    assert "Checking R2..." not in run("check", "--no-cache", "--static").stderr


def test_allowlist_takes_verbose_too(tree: Project) -> None:
    result = run("allowlist", "--no-cache", "--add-violations", "--verbose")
    assert "Checking R2..." in result.stderr
    assert result.stdout.startswith("--- a/.importlinter\n")
    assert "Checking R2..." not in run("allowlist", "--no-cache", "--add-violations").stderr


def test_allowlist_checks_only_the_contracts_that_have_an_allowlist(tree: Project) -> None:
    # The layers contract has none: it is not checked.
    result = run("allowlist", "--no-cache", "--add-violations", "--static", "--verbose")
    assert "Checking R2..." in result.stderr
    assert "Checking Layers..." not in result.stderr
    # The runtime contract has one (ignore_loaded_modules): its probe runs, unless --static.
    result = run("allowlist", "--no-cache", "--add-violations", "--static")
    assert (
        result.exit_code == 1 and "+    pkg.neutral -> pkg.platforms.npu.platform" in result.stdout
    )
    assert result.stderr.startswith(SKIPPED_RUNTIME)
    assert not (tree.root / "probe-ran").exists()
    assert run("allowlist", "--no-cache", "--add-violations").exit_code == 1
    assert (tree.root / "probe-ran").exists()


SIGNALS_STATUS = (
    "A run that SIGINT (Ctrl-C), SIGTERM or SIGHUP ends exits with 128 + the signal's number: "
    "130, 143 or 129."
)


def _last_paragraph(help_text: str) -> str:
    return " ".join(help_text.rstrip("\n").split("\n\n")[-1].split())


@pytest.mark.parametrize("command", sorted(main.commands))
def test_every_commands_help_ends_with_its_exit_statuses_and_h_is_help(command: str) -> None:
    """Walks the group, so that a new command without its exit statuses fails here."""
    result = run(command, "-h")
    assert (result.exit_code, result.stdout) == (0, run(command, "--help").stdout)
    last = _last_paragraph(result.stdout)
    assert last.startswith("Exit status: ")
    assert last.endswith(SIGNALS_STATUS)


@pytest.mark.parametrize(
    ("command", "statuses"),
    [
        (
            "closure",
            "0 when the closure is shown (and, with --measure, measured), 2 on an error or "
            "when the import cannot be measured.",
        ),
        ("why", "0 when a chain exists, 1 when none does, 2 on an error."),
    ],
)
def test_closure_and_why_help_end_with_their_exit_statuses(command: str, statuses: str) -> None:
    assert _last_paragraph(run(command, "--help").stdout) == (
        f"Exit status: {statuses} {SIGNALS_STATUS}"
    )


def test_h_is_help_for_the_group() -> None:
    result = run("-h")
    assert (result.exit_code, result.stdout) == (0, run("--help").stdout)
    assert result.stdout.startswith("Usage: main [OPTIONS] COMMAND [ARGS]...\n")
