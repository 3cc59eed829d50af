"""`importlinter-contracts review`: what a change of code adds to import time, the modules that
importing each eager_imports source module (and each `--closure MODULE`) runs now and did not
at the base, with the chain that reaches each, or no longer runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from helpers import Project, run_cli
from importlinter_contracts.report import SCHEMA_FILE
from importlinter_contracts.review import revisions

TREE = {
    "pkg/platforms/cuda/platform.py": "import pkg.platforms.interface\n",
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/interface.py": "import os\nimport pkg.old\n",
    "pkg/old.py": "",
    "pkg/models.py": "",
    "pkg/tool.py": "",
}

CONFIG = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.*.platform
follow_modules = pkg
forbidden_modules = pkg.models
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def committed(project: Project, files: dict[str, str] | None = None) -> Project:
    """The tree (with `files` changed) and its configuration, committed in a new repository."""
    project.write({**TREE, **(files or {})})
    project.configure(CONFIG)
    git(project.root, "init", "-q", "-b", "main")
    git(project.root, "add", ".")
    git(project.root, "commit", "-q", "-m", "base")
    return project


def review(*args: str) -> tuple[int, str]:
    result = run_cli("review", "--no-cache", "--base", "HEAD", *args)
    return result.exit_code, result.stdout


def changes(*args: str) -> list[dict[str, Any]]:
    code, out = review("--format", "json", *args)
    assert code == 0, out
    found: list[dict[str, Any]] = json.loads(out)["closure_changes"]
    return found


def hop(importer: str, imported: str, line: int, path: str) -> dict[str, Any]:
    return {
        "importer": importer,
        "imported": imported,
        "line_numbers": [line],
        "why": ["module level"],
        "locations": [{"path": path, "line": line}],
        "eager": [True],
    }


TO_INTERFACE = hop(
    "pkg.platforms.cuda.platform", "pkg.platforms.interface", 1, "pkg/platforms/cuda/platform.py"
)
TO_HEAVY = hop("pkg.platforms.interface", "pkg.heavy", 2, "pkg/platforms/interface.py")
ADDED_LINE = {"path": "pkg/platforms/interface.py", "line": 2}


def heavy_import(project: Project) -> None:
    """The change: the module every platform imports now imports a heavy module (which imports
    another) in place of an old one."""
    project.write(
        {
            "pkg/platforms/interface.py": "import os\nimport pkg.heavy\n",
            "pkg/heavy.py": "import pkg.more\n",
            "pkg/more.py": "",
        }
    )


def test_an_added_import_names_each_module_gained_with_its_chain_and_the_added_line(
    project: Project,
) -> None:
    committed(project)
    heavy_import(project)
    assert changes() == [
        {
            "module": "pkg.platforms.cuda.platform",
            "contracts": ["r4"],
            "gained": [
                {
                    "module": "pkg.heavy",
                    "chain": [TO_INTERFACE, TO_HEAVY],
                    "changed": ADDED_LINE,
                    "breaks": [],
                },
                {
                    "module": "pkg.more",
                    "chain": [
                        TO_INTERFACE,
                        TO_HEAVY,
                        hop("pkg.heavy", "pkg.more", 1, "pkg/heavy.py"),
                    ],
                    "changed": ADDED_LINE,
                    "breaks": [],
                },
            ],
            "lost": ["pkg.old"],
        }
    ]


def test_the_closure_changes_validate_against_the_schema(project: Project) -> None:
    committed(project)
    heavy_import(project)
    schema = json.loads(SCHEMA_FILE.read_text())
    validator = Draft202012Validator(
        {"$defs": schema["$defs"], "type": "array", "items": {"$ref": "#/$defs/ClosureChange"}}
    )
    validator.validate(changes())


def test_the_markdown_has_a_section_with_each_gained_module_and_what_is_lost(
    project: Project,
) -> None:
    committed(project)
    heavy_import(project)
    code, markdown = review()
    assert code == 0  # information: no contract is broken, no allowlist grew
    lines = markdown.splitlines()
    assert lines[2] == (
        "The allowlists did not grow: 0 added, 0 removed. Importing 1 module runs other "
        "modules than at `HEAD` (import time, below)."
    )
    start = lines.index("#### Import time: what importing a module runs now, and no longer runs")
    to_interface = "`pkg.platforms.cuda.platform -> pkg.platforms.interface (l.1, module level)`"
    to_heavy = "`pkg.platforms.interface -> pkg.heavy (l.2, module level)`"
    assert lines[start:] == [
        "#### Import time: what importing a module runs now, and no longer runs",
        "",
        "Importing `pkg.platforms.cuda.platform` (a source module of `r4`) now runs 2 more "
        "modules and no longer runs 1 module.",
        "",
        "| now runs | by way of | the change's line |",
        "| --- | --- | --- |",
        f"| `pkg.heavy` | {to_interface} then {to_heavy} | `pkg/platforms/interface.py:2` |",
        f"| `pkg.more` | {to_interface} then {to_heavy} then "
        "`pkg.heavy -> pkg.more (l.1, module level)` | `pkg/platforms/interface.py:2` |",
        "",
        "No longer runs: `pkg.old`.",
    ]


def test_a_closure_that_only_lost_modules_lists_them_and_annotates_nothing(
    project: Project,
) -> None:
    committed(project)
    project.write({"pkg/platforms/interface.py": "import os\n"})
    assert changes() == [
        {
            "module": "pkg.platforms.cuda.platform",
            "contracts": ["r4"],
            "gained": [],
            "lost": ["pkg.old"],
        }
    ]
    code, markdown = review()
    assert code == 0
    start = markdown.index("#### Import time")
    assert markdown[start:] == (
        "#### Import time: what importing a module runs now, and no longer runs\n\n"
        "Importing `pkg.platforms.cuda.platform` (a source module of `r4`) no longer runs 1 "
        "module.\n\n"
        "No longer runs: `pkg.old`.\n"
    )
    assert review("--format", "github") == (0, "")


def test_the_github_annotations_stand_on_the_added_line(project: Project) -> None:
    committed(project)
    heavy_import(project)
    code, out = review("--format", "github")
    assert code == 0
    chain = (
        "pkg.platforms.cuda.platform -> pkg.platforms.interface (l.1, module level) then "
        "pkg.platforms.interface -> pkg.heavy (l.2, module level)"
    )
    assert out.splitlines() == [
        "::notice file=pkg/platforms/interface.py,line=2,title=Import time%3A "
        "pkg.platforms.cuda.platform::importing pkg.platforms.cuda.platform now runs "
        f"pkg.heavy, by way of {chain}",
        "::notice file=pkg/platforms/interface.py,line=2,title=Import time%3A "
        "pkg.platforms.cuda.platform::importing pkg.platforms.cuda.platform now runs "
        f"pkg.more, by way of {chain} then pkg.heavy -> pkg.more (l.1, module level)",
    ]


def test_a_forbidden_module_gained_breaks_its_contract_and_review_exits_1(
    project: Project,
) -> None:
    committed(project)
    project.write({"pkg/platforms/interface.py": "import os\nimport pkg.models\n"})
    code, out = review("--format", "json")
    assert code == 1
    (change,) = json.loads(out)["closure_changes"]
    assert [(g["module"], g["breaks"]) for g in change["gained"]] == [("pkg.models", ["r4"])]
    code, markdown = review()
    assert code == 1
    assert markdown.splitlines()[2].endswith("**A module that an import now runs breaks `r4`.**")
    assert (
        "| `pkg.models` (**breaks** `r4`) | `pkg.platforms.cuda.platform -> "
        "pkg.platforms.interface (l.1, module level)` then `pkg.platforms.interface -> "
        "pkg.models (l.2, module level)` | `pkg/platforms/interface.py:2` |"
    ) in markdown.splitlines()
    assert review("--format", "github") == (
        1,
        "::error file=pkg/platforms/interface.py,line=2,title=Import time%3A "
        "pkg.platforms.cuda.platform::importing pkg.platforms.cuda.platform now runs "
        "pkg.models, which breaks r4, by way of pkg.platforms.cuda.platform -> "
        "pkg.platforms.interface (l.1, module level) then pkg.platforms.interface -> "
        "pkg.models (l.2, module level)\n",
    )


def test_a_forbidden_module_gained_that_the_allowlist_excuses_breaks_nothing(
    project: Project,
) -> None:
    committed(project)
    project.write({"pkg/platforms/interface.py": "import os\nimport pkg.models\n"})
    config = project.root / ".importlinter"
    config.write_text(
        config.read_text()
        + "ignore_imports =\n    pkg.platforms.interface -> pkg.models  # moves in step 2\n"
    )
    code, out = review("--format", "json")
    (change,) = json.loads(out)["closure_changes"]
    assert [(g["module"], g["breaks"]) for g in change["gained"]] == [("pkg.models", [])]
    assert code == 1  # the allowlist grew
    assert "breaks" not in review()[1]


def test_a_chain_the_change_did_not_touch_is_annotated_where_it_starts(
    project: Project,
) -> None:
    """The import was there, guarded; the change adds the module it names: no line of the
    chain is new, so the annotation stands on the source module's first hop."""
    guarded = "try:\n    import pkg.heavy\nexcept ImportError:\n    pass\n"
    committed(project, files={"pkg/platforms/interface.py": guarded})
    project.write({"pkg/heavy.py": ""})
    (change,) = changes()
    assert [(g["module"], g["changed"]) for g in change["gained"]] == [("pkg.heavy", None)]
    assert review("--format", "github") == (
        0,
        "::notice file=pkg/platforms/cuda/platform.py,line=1,title=Import time%3A "
        "pkg.platforms.cuda.platform::importing pkg.platforms.cuda.platform now runs pkg.heavy, "
        "by way of pkg.platforms.cuda.platform -> pkg.platforms.interface (l.1, module level) "
        "then pkg.platforms.interface -> pkg.heavy (l.2, module-level try)\n",
    )


def test_a_review_run_outside_the_repository_finds_the_added_line(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its locations are shown relative to the folder on sys.path that holds the package, not
    to the working directory."""
    outside = project.root
    project.root = outside / "repository"
    project.root.mkdir()
    monkeypatch.chdir(project.root)
    monkeypatch.syspath_prepend(str(project.root))
    committed(project)
    heavy_import(project)
    (outside / "elsewhere").mkdir()
    monkeypatch.chdir(outside / "elsewhere")
    config = str(project.root / ".importlinter")
    result = run_cli("review", "--no-cache", "--base", "HEAD", "--format", "json", config)
    assert result.exit_code == 0, result.output
    (change,) = json.loads(result.stdout)["closure_changes"]
    assert [g["changed"] for g in change["gained"]] == [ADDED_LINE, ADDED_LINE]


def test_a_committed_change_is_compared_with_the_revision_named(project: Project) -> None:
    committed(project)
    heavy_import(project)
    git(project.root, "add", ".")
    git(project.root, "commit", "-q", "-m", "heavy")
    result = run_cli("review", "--no-cache", "--base", "HEAD~1", "--format", "json")
    (change,) = json.loads(result.stdout)["closure_changes"]
    assert [g["module"] for g in change["gained"]] == ["pkg.heavy", "pkg.more"]
    assert (
        subprocess.run(
            ["git", "status", "--porcelain"], cwd=project.root, capture_output=True, text=True
        ).stdout
        == ""
    )  # the review changed nothing in the repository


def test_nothing_is_said_when_no_closure_changed(project: Project) -> None:
    committed(project)
    project.write({"pkg/tool.py": "import pkg.models\n", "pkg/platforms/npu/platform.py": "\n"})
    assert changes() == []
    code, markdown = review()
    assert code == 0
    assert "Import time" not in markdown
    assert "runs other modules" not in markdown
    assert review("--format", "github") == (0, "")


def test_closure_names_another_module_to_compare(project: Project) -> None:
    committed(project)
    project.write({"pkg/tool.py": "import pkg.models\n"})
    assert changes() == []
    assert changes("--closure", "pkg.tool", "--closure", "pkg/platforms/cuda/platform.py") == [
        {
            "module": "pkg.tool",
            "contracts": [],
            "gained": [
                {
                    "module": "pkg.models",
                    "chain": [hop("pkg.tool", "pkg.models", 1, "pkg/tool.py")],
                    "changed": {"path": "pkg/tool.py", "line": 1},
                    "breaks": [],
                }
            ],
            "lost": [],
        }
    ]


def test_a_module_new_since_the_base_gains_its_whole_closure(project: Project) -> None:
    committed(project)
    project.write({"pkg/fresh.py": "import pkg.models\n"})
    (change,) = changes("--closure", "pkg.fresh")
    assert [(g["module"], g["changed"]) for g in change["gained"]] == [
        ("pkg", None),  # its parent package: no line, so no line of the change
        ("pkg.fresh", None),
        ("pkg.models", {"path": "pkg/fresh.py", "line": 1}),
    ]


def test_a_base_without_the_root_package_is_one_where_nothing_ran(project: Project) -> None:
    project.configure(CONFIG)
    git(project.root, "init", "-q", "-b", "main")
    git(project.root, "add", ".")
    git(project.root, "commit", "-q", "-m", "configuration first")
    project.write(TREE)
    found = changes()
    assert [(c["module"], [g["module"] for g in c["gained"]], c["lost"]) for c in found] == [
        (
            "pkg.platforms.cuda.platform",
            [
                "pkg",
                "pkg.old",
                "pkg.platforms",
                "pkg.platforms.cuda",
                "pkg.platforms.cuda.platform",
                "pkg.platforms.interface",
            ],
            [],
        ),
        (
            "pkg.platforms.npu.platform",
            ["pkg", "pkg.platforms", "pkg.platforms.npu", "pkg.platforms.npu.platform"],
            [],
        ),
    ]


def test_a_base_whose_files_cannot_be_read_says_so_and_compares_no_closure(
    project: Project,
) -> None:
    committed(project, files={"pkg/old.py": "def (:\n"})
    project.write({"pkg/old.py": ""})
    result = run_cli("review", "--no-cache", "--base", "HEAD", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    error = "at HEAD: Syntax error in pkg/old.py, line 1: def (:"
    assert (data["closure_changes"], data["closure_error"]) == ([], error)
    assert result.stderr == (
        f"importlinter-contracts: warning: what the change adds to import time cannot be told: "
        f"{error}\n"
    )
    markdown = review()[1]
    assert markdown.splitlines()[2] == (
        "The allowlists did not grow: 0 added, 0 removed. **What the change adds to import time "
        f"cannot be told**: {error}"
    )


def test_what_the_base_cannot_read_is_said_once_and_as_the_base_s(project: Project) -> None:
    dynamic = "import importlib\nimport os\nimportlib.import_module(os.environ['X'])\n"
    committed(
        project,
        files={"pkg/platforms/interface.py": dynamic + "import pkg.old\n", "pkg/old.py": dynamic},
    )
    project.write({"pkg/platforms/interface.py": dynamic})
    result = run_cli("review", "--no-cache", "--base", "HEAD", "--format", "json")
    assert result.exit_code == 0
    unseen = (
        ":3: importlib.import_module runs at import time with a module name computed at run "
        "time: the modules it imports are not seen."
    )
    assert result.stderr.splitlines() == [
        f"importlinter-contracts: warning: pkg/platforms/interface.py{unseen}",
        f"importlinter-contracts: warning: at HEAD: pkg/old.py{unseen}",
    ]


def test_an_unknown_closure_module_is_one_line_and_exit_2(project: Project) -> None:
    committed(project)
    result = run_cli("review", "--no-cache", "--base", "HEAD", "--closure", "pkg.nothing")
    assert result.exit_code == 2
    assert result.stderr == (
        "importlinter-contracts: --closure pkg.nothing: pkg.nothing is not a module of the graph.\n"
    )


def test_closure_goes_with_base_not_history(project: Project) -> None:
    committed(project)
    for option in (("--closure", "pkg.tool"), ("--format", "github")):
        result = run_cli("review", "--history", "HEAD", *option)
        assert result.exit_code == 2
        assert result.stderr == (
            "importlinter-contracts: --history gives allowlist sizes as markdown or json: "
            "--closure and --format github go with --base REF.\n"
        )


def test_the_base_is_read_from_its_files_with_what_git_does_not_hold_left_in_place(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within `standing_in`, a folder of sys.path that the base revision has is its copy; one
    git does not hold (a virtual environment in the work tree) stays, so that what the review
    imports from it still imports; after it, all is as it was."""
    committed(project)
    (project.root / "venv").mkdir()
    monkeypatch.syspath_prepend(str(project.root / "venv"))
    monkeypatch.chdir(project.root / "pkg")
    before = sys.path[:]
    with revisions.tree_at("HEAD", project.root) as tree:
        with revisions.standing_in(tree, project.root):
            assert Path.cwd() == tree / "pkg"
            assert sys.path[:2] == [str(project.root / "venv"), str(tree)]
            assert (tree / "pkg/platforms/interface.py").read_text() == TREE[
                "pkg/platforms/interface.py"
            ]
        assert (Path.cwd(), sys.path) == (project.root / "pkg", before)
