"""The shrink-only allowlist with reasons, and every configuration error, through both CLIs."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from helpers import R2, Project, configure_r2, imports_of

TREE = {
    "pkg/platforms/__init__.py": "from pkg.platforms import xpu\n",
    "pkg/platforms/xpu/platform.py": "",
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models/fish.py": "",
    "pkg/platforms/npu/models/step.py": "",
    "pkg/consumers/a.py": "from pkg.platforms.npu.models import fish\n",
    "pkg/consumers/b.py": "def f():\n    from pkg.platforms.npu.models import step\n",
}


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    return project


def test_entries_with_reasons_excuse_their_imports(tree: Project) -> None:
    configure_r2(
        tree,
        """\
        ignore_imports =
            pkg.consumers.a -> pkg.platforms.npu.models.fish  # NPU group 1
            pkg.consumers.b -> pkg.platforms.npu.models.step  # NPU group 1 [new]
            pkg.platforms -> pkg.platforms.xpu  # XPU housekeeping
        require_reasons = true
        """,
    )
    report = tree.contract("r2")
    assert report["kept"] and report["violations"] == []
    assert [(i["importer"], i["reason"], i["entry"]) for i in report["ignored"]] == [
        (
            "pkg.consumers.a",
            "NPU group 1",
            "pkg.consumers.a -> pkg.platforms.npu.models.fish # NPU group 1",
        ),
        (
            "pkg.consumers.b",
            "NPU group 1 [new]",
            "pkg.consumers.b -> pkg.platforms.npu.models.step # NPU group 1 [new]",
        ),
        (
            "pkg.platforms",
            "XPU housekeeping",
            "pkg.platforms -> pkg.platforms.xpu # XPU housekeeping",
        ),
    ]
    assert "Backends are private KEPT (3 ignored imports)" in tree.lint_imports().output


def test_wildcard_entries_match_many_imports(tree: Project) -> None:
    configure_r2(
        tree,
        """\
        ignore_imports =
            pkg.consumers.* -> pkg.platforms.npu.models.*  # NPU group 1
        """,
    )
    report = tree.contract("r2")
    assert imports_of(report["violations"]) == {("pkg.platforms", "pkg.platforms.xpu")}
    assert len(report["ignored"]) == 2


def test_stale_entry_breaks_only_its_contract_and_others_are_still_reported(tree: Project) -> None:
    tree.configure(
        R2.format(
            options="""\
ignore_imports =
    pkg.consumers.a -> pkg.platforms.npu.models.fish  # NPU group 1
    pkg.consumers.b -> pkg.platforms.npu.models.step  # NPU group 1
    pkg.consumers.gone -> pkg.platforms.npu.models.fish  # NPU group 3 / step 9
    pkg.platforms -> pkg.platforms.xpu  # XPU housekeeping
"""
        )
        + """
[importlinter:contract:second]
name = Second contract
type = backend_isolation
container = pkg.platforms

[importlinter:contract:third]
name = Built-in contract
type = forbidden
source_modules = pkg.consumers
forbidden_modules = pkg.platforms.xpu
"""
    )
    result = tree.lint_imports()
    assert result.exit_code == 1
    out = result.output
    assert "Backends are private BROKEN (3 ignored imports)" in out
    assert "Second contract BROKEN" in out
    assert "Built-in contract KEPT" in out
    assert "1 ignore_imports entry matches no import that this contract would report:" in out
    assert (
        "-   pkg.consumers.gone -> pkg.platforms.npu.models.fish # NPU group 3 / step 9  "
        "(remove this stale entry)" in out
    )
    report = tree.report()
    first = report["contracts"][0]
    assert first["kept"] is False and first["violations"] == []
    assert first["unmatched_ignores"] == [
        "pkg.consumers.gone -> pkg.platforms.npu.models.fish # NPU group 3 / step 9"
    ]
    assert [c["kept"] for c in report["contracts"]] == [False, False, True]


def test_entry_for_an_import_that_breaks_no_rule_is_stale(tree: Project) -> None:
    tree.write({"pkg/consumers/c.py": "import pkg.consumers.a\n"})
    configure_r2(
        tree, "ignore_imports =\n    pkg.consumers.c -> pkg.consumers.a  # not a backend import"
    )
    assert tree.contract("r2")["unmatched_ignores"] == [
        "pkg.consumers.c -> pkg.consumers.a # not a backend import"
    ]


def test_stale_entry_only_warns_with_warn(tree: Project) -> None:
    configure_r2(
        tree,
        """\
        ignore_imports =
            pkg.consumers.* -> pkg.platforms.npu.**  # NPU group 1
            pkg.platforms -> pkg.platforms.xpu  # XPU housekeeping
            pkg.consumers.gone -> pkg.platforms.npu  # gone
        unmatched_ignore_imports_alerting = warn
        """,
    )
    report = tree.contract("r2")
    assert report["kept"] and report["unmatched_ignores"] == []
    assert report["warned_unmatched_ignores"] == ["pkg.consumers.gone -> pkg.platforms.npu # gone"]
    assert report["warnings"] == [
        "No import matches ignored import pkg.consumers.gone -> pkg.platforms.npu # gone: "
        "remove this stale entry."
    ]


def test_stale_entry_is_silent_with_none(tree: Project) -> None:
    configure_r2(
        tree,
        """\
        ignore_imports =
            pkg.consumers.* -> pkg.platforms.npu.**
            pkg.platforms -> pkg.platforms.xpu
            pkg.consumers.gone -> pkg.platforms.npu
        unmatched_ignore_imports_alerting = none
        """,
    )
    report = tree.contract("r2")
    assert report["kept"] and report["warnings"] == [] and report["unmatched_ignores"] == []


def test_entries_without_reasons_are_fine_unless_reasons_are_required(tree: Project) -> None:
    configure_r2(tree, "ignore_imports =\n    pkg.platforms -> pkg.platforms.xpu\n")
    report = tree.contract("r2")
    assert [(i["importer"], i["imported"], i["entry"], i["reason"]) for i in report["ignored"]] == [
        ("pkg.platforms", "pkg.platforms.xpu", "pkg.platforms -> pkg.platforms.xpu", None)
    ]
    configure_r2(
        tree, "ignore_imports =\n    pkg.platforms -> pkg.platforms.xpu\nrequire_reasons = true\n"
    )
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "Backends are private" is not configured correctly: '
        "ignore_imports: require_reasons is true, but these entries give no reason: "
        "'pkg.platforms -> pkg.platforms.xpu'. End each with '# why it is allowed'.\n"
    )


def _entry_line(tree: Project, message: str) -> str:
    """Where the entry that an error names is, as our commands say it (`FILE:LINE: `)."""
    entry = re.search(r"Entry '([^']*)'", message)
    if entry is None:
        return ""
    lines = (tree.root / ".importlinter").read_text().splitlines()
    found = [n for n, line in enumerate(lines, 1) if " ".join(line.split()).endswith(entry[1])]
    return f".importlinter:{found[0]}: "


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            "ignore_imports =\n    pkg.platforms -> pkg.platforms.xpu\n    pkg.consumers.a -> pkg.platforms.npu.models.fish  # ok\nrequire_reasons = true",
            "ignore_imports: require_reasons is true, but these entries give no reason: "
            "'pkg.platforms -> pkg.platforms.xpu'. End each with '# why it is allowed'.",
        ),
        (
            "ignore_imports =\n    pkg.platforms -> pkg.platforms.xpu  # TODO: reason\nrequire_reasons = true",
            "ignore_imports: require_reasons is true, but these entries give no reason: "
            "'pkg.platforms -> pkg.platforms.xpu # TODO: reason'. End each with '# why it is allowed'.",
        ),
        (
            "ignore_imports =\n    pkg.platforms pkg.platforms.xpu  # reason",
            "ignore_imports: Entry 'pkg.platforms pkg.platforms.xpu # reason' is not an import "
            'expression (Must be in the form "package.importer -> package.imported"): '
            'write it as "package.importer -> package.imported  # reason".',
        ),
        (
            "require_reasons = perhaps",
            "require_reasons: 'perhaps' is not a boolean: give true or false.",
        ),
        (
            "cross_backend_imports = sometimes",
            "cross_backend_imports: Invalid value 'sometimes': expected 'allow' or 'forbid'.",
        ),
        (
            "unmatched_ignore_imports_alerting = loud",
            "unmatched_ignore_imports_alerting: Invalid value 'loud': expected 'none', 'warn' or 'error'.",
        ),
        (
            "backend_markers = platform",
            "backend_markers: Unrecognized option. Did you mean 'backend_marker'?",
        ),
    ],
    ids=[
        "missing-reason",
        "placeholder-reason",
        "malformed-entry",
        "bad-boolean",
        "bad-cross",
        "bad-alerting",
        "unknown-option",
    ],
)
def test_invalid_options_are_one_line_errors(tree: Project, options: str, message: str) -> None:
    configure_r2(tree, options)
    expected = f'Contract "Backends are private" is not configured correctly: {message}'
    result = tree.check()
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"importlinter-contracts: {_entry_line(tree, message)}{expected}\n"
    lint = tree.lint_imports()
    assert lint.exit_code == 1
    assert " ".join(message.split()) in " ".join(lint.output.split())


def test_missing_container_option(tree: Project) -> None:
    tree.configure(
        "[importlinter:contract:r2]\nname = Backends are private\ntype = backend_isolation\n"
    )
    result = tree.check()
    assert result.exit_code == 2
    assert result.stderr == (
        'importlinter-contracts: Contract "Backends are private" is not configured correctly: '
        "container: This is a required field.\n"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            "container = pkg.platformz",
            "container: 'pkg.platformz' is not a module of the graph: did you mean "
            "'pkg.platforms'?",
        ),
        (
            "container = pkg.consumers",
            "backends: no child package of 'pkg.consumers' has a 'platform' module; "
            "set backend_marker, or name the backends with backends = ... (or backends = * for every child).",
        ),
        (
            "container = pkg.platforms\nbackends =\n    npu\n    cuda",
            "backends: 'cuda' is not a child of 'pkg.platforms'; its children are: npu, xpu.",
        ),
    ],
    ids=["container-not-in-graph", "no-backend-found", "named-backend-missing"],
)
def test_tree_mismatches_are_one_line_errors(tree: Project, options: str, message: str) -> None:
    tree.configure(
        f"[importlinter:contract:r2]\nname = Backends are private\ntype = backend_isolation\n{options}\n"
    )
    expected = f'Contract "Backends are private" is not configured correctly: {message}'
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"importlinter-contracts: {expected}\n"
    lint = tree.lint_imports()
    assert lint.exit_code == 1
    assert " ".join(expected.split()) in " ".join(lint.output.split())
    assert "Traceback" not in lint.output


def test_missing_root_package_is_a_one_line_error(project: Project) -> None:
    project.configure(R2.format(options=""), root_package="nowhere")
    result = project.check()
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "importlinter-contracts: Could not find package 'nowhere' in your Python path: run in "
        "the folder that holds it, set PYTHONPATH to that folder, or install the package.\n",
    )


def test_file_that_does_not_parse_is_a_one_line_error(tree: Project) -> None:
    tree.write({"pkg/consumers/broken.py": "def f(:\n"})
    configure_r2(tree)
    result = tree.check()
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "importlinter-contracts: Syntax error in pkg/consumers/broken.py, line 1: def f(:\n",
    )


BOOM = """\
from importlinter import Contract


class Boom(Contract):
    def check(self, graph, verbose):
        raise RuntimeError("boom")

    def render_broken_contract(self, check):
        pass
"""


@pytest.fixture
def boom(tree: Project) -> Project:
    """A configuration whose contract type fails with an error of its own."""
    (tree.root / "boom.py").write_text(BOOM)
    (tree.root / ".importlinter").write_text(
        "[importlinter]\nroot_package = pkg\ncontract_types =\n    boom: boom.Boom\n\n"
        "[importlinter:contract:boom]\nname = Boom\ntype = boom\n"
    )
    return tree


UNKNOWN_TYPE = (
    "Contract \"Backends are private\" has type 'backend_isolaton', which is neither built in "
    "nor registered under contract_types (did you mean 'backend_isolation'?); the types: "
    "acyclic_siblings, backend_isolation, eager_imports, forbidden, independence, layers, "
    "private_modules, protected, runtime_isolation."
)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "importlinter_contracts", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_error_is_one_line_without_debug(boom: Project) -> None:
    result = _cli("check", "--no-cache")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "importlinter-contracts: boom\n"


def test_debug_shows_the_whole_traceback(boom: Project) -> None:
    result = _cli("check", "--no-cache", "--debug")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("Traceback (most recent call last)")
    assert 'raise RuntimeError("boom")' in result.stderr
    assert result.stderr.endswith("importlinter_contracts.errors.ConfigurationError: boom\n")


@pytest.mark.parametrize(
    ("args", "last_line"),
    [
        (["check"], "ConfigurationError: " + UNKNOWN_TYPE),
        (["allowlist"], "ConfigurationError: " + UNKNOWN_TYPE),
        (["review", "--base", "HEAD"], "RevisionError: {root} is not inside a git repository."),
        (
            ["closure", "pkg.nowhere"],
            "UnknownModuleError: pkg.nowhere is not a module of the graph.",
        ),
    ],
    ids=["check", "allowlist", "review", "closure"],
)
def test_debug_keeps_the_exit_status_of_an_error(
    tree: Project, args: list[str], last_line: str
) -> None:
    # 1 would say that a contract is broken.
    configure_r2(tree, "backends = npu")
    config = tree.root / ".importlinter"
    config.write_text(config.read_text().replace("backend_isolation\n", "backend_isolaton\n"))
    for debug in ([], ["--debug"]):
        result = _cli(*args, "--no-cache", *debug)
        assert (result.returncode, result.stdout) == (2, ""), debug
    assert result.stderr.startswith("Traceback (most recent call last)")
    expected = "importlinter_contracts.errors." + last_line.format(root=tree.root)
    assert result.stderr.endswith(expected + "\n")


@pytest.mark.parametrize("output_format", ["text", "json", "github", "sarif"])
def test_every_output_format_reports_errors_the_same_way(tree: Project, output_format: str) -> None:
    # An error found while the contracts run: no partial document on stdout, one line on stderr.
    configure_r2(tree)
    config = tree.root / ".importlinter"
    config.write_text(
        config.read_text().replace("container = pkg.platforms", "container = pkg.nowhere")
    )
    result = tree.check("--format", output_format)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "Backends are private" is not configured correctly: '
        "container: 'pkg.nowhere' is not a module of the graph.\n"
    )
