"""`importlinter-contracts review`: what a configuration change does to the allowlists, and
which findings it stops (or starts) reporting, against a git revision."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from helpers import Project, run_cli

TREE = {
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models.py": "",
    "pkg/platforms/cuda/platform.py": "import pkg.models\n",
    "pkg/models.py": "",
    "pkg/a.py": "from pkg.platforms.npu import models\n",
    "pkg/b.py": "import pkg.platforms.npu.platform\n",
}

INI = """\
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms
ignore_imports =
    pkg.a -> pkg.platforms.npu.models  # NPU group 1
    pkg.b -> pkg.platforms.npu.platform  # NPU group 2

[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.*.platform
follow_modules = pkg.platforms
forbidden_modules =
    pkg.models
    pkg.platforms.npu.models

[importlinter:contract:layers]
name = Built-in
type = forbidden
source_modules = pkg.platforms
forbidden_modules = pkg.models
"""

TOML = """\
[tool.importlinter]
root_package = "pkg"
contract_types = ["backend_isolation: importlinter_contracts.BackendIsolationContract"]

[[tool.importlinter.contracts]]
id = "r2"
name = "R2"
type = "backend_isolation"
container = "pkg.platforms"
ignore_imports = [
    "pkg.a -> pkg.platforms.npu.models  # NPU group 1",
    "pkg.b -> pkg.platforms.npu.platform  # NPU group 2",
]
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def committed(project: Project, toml: bool = False, files: dict[str, str] | None = None) -> Project:
    """The tree (with `files` changed) and its configuration, committed in a new git
    repository."""
    project.write({**TREE, **(files or {})})
    if toml:
        (project.root / "pyproject.toml").write_text(TOML)
    else:
        project.configure(INI)
    git(project.root, "init", "-q", "-b", "main")
    git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    return project


def edit(project: Project, old: str, new: str, name: str = ".importlinter") -> None:
    path = project.root / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def review(*args: str) -> Result:
    return run_cli("review", "--no-cache", "--base", "HEAD", *args)


def review_data(*args: str) -> tuple[int, dict[str, Any]]:
    result = review("--format", "json", *args)
    return result.exit_code, json.loads(result.stdout)


ADD_AND_REMOVE = (
    "    pkg.b -> pkg.platforms.npu.platform  # NPU group 2\n",
    "    pkg.platforms -> pkg.platforms.cuda  # housekeeping | detector\n",
)


def test_adding_one_entry_and_removing_another_shows_both_and_exits_1(project: Project) -> None:
    committed(project)
    edit(project, *ADD_AND_REMOVE)
    result = review("--format", "markdown")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("### Import contracts: review against `HEAD` (")
    assert lines[2] == "**The allowlists grew**: 1 added, 1 removed."
    assert "| R2 (`r2`) | **broken** | 2 | 2 | 0 |" in lines
    rows = lines[lines.index("#### R2 (`r2`)") + 4 :]
    assert rows[:2] == [
        "| added | `pkg.platforms -> pkg.platforms.cuda` | housekeeping \\| detector |",
        "| removed | `pkg.b -> pkg.platforms.npu.platform` | NPU group 2 |",
    ]


def test_removing_only_exits_0(project: Project) -> None:
    committed(project)
    edit(project, ADD_AND_REMOVE[0], "")
    code, data = review_data()
    assert code == 0
    assert data["grew"] is False
    (r2,) = data["allowlists"]
    assert (r2["before"], r2["after"], r2["added"]) == (2, 1, [])
    assert r2["removed"] == [
        {
            "option": "ignore_imports",
            "expression": "pkg.b -> pkg.platforms.npu.platform",
            "reason": "NPU group 2",
        }
    ]


def test_toml_configuration_is_reviewed_alike(project: Project) -> None:
    committed(project, toml=True)
    edit(
        project,
        '    "pkg.b -> pkg.platforms.npu.platform  # NPU group 2",\n',
        '    "pkg.platforms -> pkg.platforms.cuda  # housekeeping",\n',
        "pyproject.toml",
    )
    code, data = review_data()
    assert code == 1
    (r2,) = data["allowlists"]
    assert [e["expression"] for e in r2["added"]] == ["pkg.platforms -> pkg.platforms.cuda"]
    assert [e["expression"] for e in r2["removed"]] == ["pkg.b -> pkg.platforms.npu.platform"]
    edit(
        project,
        '    "pkg.platforms -> pkg.platforms.cuda  # housekeeping",\n',
        "",
        "pyproject.toml",
    )
    assert review_data()[0] == 0


def test_moved_respaced_and_re_reasoned_entries_are_the_same_entries(project: Project) -> None:
    committed(project)
    edit(
        project,
        "    pkg.a -> pkg.platforms.npu.models  # NPU group 1\n"
        "    pkg.b -> pkg.platforms.npu.platform  # NPU group 2\n",
        "    pkg.b   ->   pkg.platforms.npu.platform  # NPU group 2\n"
        "    pkg.a -> pkg.platforms.npu.models  # NPU group 1, step 9\n",
    )
    code, data = review_data()
    assert code == 0
    (r2,) = data["allowlists"]
    assert (r2["added"], r2["removed"]) == ([], [])
    assert r2["reason_changed"] == [
        {
            "option": "ignore_imports",
            "expression": "pkg.a -> pkg.platforms.npu.models",
            "before": "NPU group 1",
            "after": "NPU group 1, step 9",
        }
    ]
    assert (
        "| reason changed | `pkg.a -> pkg.platforms.npu.models` | NPU group 1 → NPU group 1, step 9 |"
        in review().stdout
    )


def test_a_base_without_the_configuration_counts_every_entry_as_added(project: Project) -> None:
    committed(project)
    git(project.root, "rm", "-q", "--cached", ".importlinter")
    git(
        project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "no config"
    )
    code, data = review_data()
    assert code == 1
    assert data["base_has_configuration"] is False
    assert data["loosened"] == data["tightened"] == []
    (r2,) = data["allowlists"]
    assert (r2["before"], r2["after"], len(r2["added"])) == (0, 2, 2)
    assert "has no .importlinter: every entry counts as added" in review().stdout


def _commit_broken_base(project: Project, old: str, new: str) -> None:
    """A base revision whose configuration has `old` replaced by `new`, and the working
    tree's configuration as it was."""
    edit(project, old, new)
    git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "broken")
    edit(project, new, old)


def test_a_base_configuration_that_cannot_be_checked_is_compared_by_its_allowlists_only(
    project: Project,
) -> None:
    # A change that mends the base's configuration is still reviewed.
    committed(project)
    _commit_broken_base(project, "type = backend_isolation\n", "type = backend_isolaton\n")
    edit(project, *ADD_AND_REMOVE)
    error = (
        "at HEAD: Contract \"R2\" has type 'backend_isolaton', which is neither built in nor "
        "registered under contract_types (did you mean 'backend_isolation'?); the types: "
        "acyclic_siblings, backend_isolation, eager_imports, forbidden, independence, layers, "
        "private_modules, protected, runtime_isolation."
    )
    warning = (
        "importlinter-contracts: warning: no findings are compared with the base's "
        f"configuration, which cannot be checked: {error}\n"
    )
    result = review("--format", "json")
    assert (result.exit_code, result.stderr) == (1, warning)  # 1: an entry was added
    data = json.loads(result.stdout)
    assert (data["base_has_configuration"], data["base_error"]) == (True, error)
    assert (data["loosened"], data["tightened"]) == ([], [])
    (r2,) = data["allowlists"]
    assert (r2["before"], r2["after"], len(r2["added"]), len(r2["removed"])) == (2, 2, 1, 1)
    markdown = review()
    assert markdown.stdout.splitlines()[2] == (
        "**The allowlists grew**: 1 added, 1 removed. **The configuration at `HEAD` cannot be "
        f"checked** and there are no findings of it to compare with: {error}"
    )
    assert markdown.stderr == warning


def test_a_base_configuration_that_cannot_be_read_counts_every_entry_as_added(
    project: Project,
) -> None:
    committed(project)
    layers = "[importlinter:contract:layers]\n"
    _commit_broken_base(project, layers, layers + layers)
    error = (
        "at HEAD: .importlinter: cannot be read as a configuration: While reading from "
        "'<string>' [line 26]: section 'importlinter:contract:layers' already exists"
    )
    code, data = review_data()
    assert code == 1
    assert (data["base_has_configuration"], data["base_error"]) == (False, error)
    (r2,) = data["allowlists"]
    assert (r2["before"], r2["after"], len(r2["added"])) == (0, 2, 2)
    assert review().stdout.splitlines()[2] == (
        "**The allowlists grew**: 2 added, 0 removed. **The configuration at `HEAD` cannot be "
        "checked**, every entry counts as added, and there are no findings of it to compare "
        f"with: {error}"
    )
    history = run_cli("review", "--history", "HEAD")
    assert (history.exit_code, history.stdout) == (2, "")
    assert history.stderr == f"importlinter-contracts: {error}\n"


def test_not_a_git_repository_is_an_error(project: Project) -> None:
    project.write(TREE)
    project.configure(INI)
    result = review()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"importlinter-contracts: {project.root.resolve()} is not inside a git repository.\n"
    )


def test_unknown_revision_is_an_error(project: Project) -> None:
    committed(project)
    result = run_cli("review", "--no-cache", "--base", "nope")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"importlinter-contracts: 'nope' is not a revision of the repository at "
        f"{project.root.resolve()}.\n"
    )


def test_base_and_history_are_exclusive(project: Project) -> None:
    committed(project)
    result = run_cli("review", "--base", "HEAD", "--history", "HEAD")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "importlinter-contracts: give either --base REF or --history REF (repeatable).\n",
    )
    assert run_cli("review").stderr == result.stderr


def test_history_counts_the_entries_at_each_revision(project: Project) -> None:
    committed(project)
    git(project.root, "tag", "first")
    edit(project, *ADD_AND_REMOVE)
    edit(project, "    pkg.a -> pkg.platforms.npu.models  # NPU group 1\n", "")
    git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "second")
    result = run_cli("review", "--history", "first", "--history", "HEAD", "--format", "json")
    assert result.exit_code == 0
    assert [(p["revision"], p["entries"]) for p in json.loads(result.stdout)] == [
        ("first", {"layers": 0, "r2": 2, "r4": 0}),
        ("HEAD", {"layers": 0, "r2": 1, "r4": 0}),
    ]
    table = run_cli("review", "--history", "first", "--history", "HEAD").stdout
    assert table.splitlines() == [
        "| revision | `layers` | `r2` | `r4` |",
        "| --- | ---: | ---: | ---: |",
        "| `first` | 0 | 2 | 0 |",
        "| `HEAD` | 0 | 1 | 0 |",
    ]


# What a configuration edit lets through (loosened) or newly reports (tightened).


def test_removing_a_forbidden_module_is_listed_as_loosened_naming_the_option(
    project: Project,
) -> None:
    committed(project)
    edit(
        project, "    pkg.models\n    pkg.platforms.npu.models\n", "    pkg.platforms.npu.models\n"
    )
    code, data = review_data()
    assert code == 1
    assert data["grew"] is False
    assert [
        (f["contract"], f["finding"]["importer"], f["finding"]["imported"], f["because"])
        for f in data["loosened"]
    ] == [("r4", "pkg.platforms.cuda.platform", "pkg.models", ["forbidden_modules"])]
    assert data["tightened"] == []
    markdown = review().stdout
    assert "**The configuration change stops reporting 1 finding.**" in markdown
    assert (
        "| R4 (`r4`) | `pkg.platforms.cuda.platform -> pkg.models (l.1)` | forbidden_modules |"
        in markdown
    )


def test_narrowing_the_follow_scope_is_loosened(project: Project) -> None:
    committed(
        project,
        files={
            "pkg/platforms/cuda/platform.py": "import pkg.platforms.cuda.hooks\n",
            "pkg/platforms/cuda/hooks.py": "import pkg.models\n",
        },
    )
    edit(project, "follow_modules = pkg.platforms\n", "follow_modules = pkg.platforms.npu\n")
    code, data = review_data()
    assert code == 1
    assert [(f["finding"]["imported"], f["because"]) for f in data["loosened"]] == [
        ("pkg.models", ["follow_modules"])
    ]


def test_removing_a_contract_loosens_every_finding_it_had(project: Project) -> None:
    committed(project)
    start = INI.index("[importlinter:contract:layers]")
    edit(project, INI[start:], "")
    code, data = review_data()
    assert code == 1
    assert [(f["contract"], f["because"]) for f in data["loosened"]] == [
        ("layers", ["contract removed"])
    ]


def test_changing_a_built_in_contract_is_compared_too(project: Project) -> None:
    committed(project)
    edit(project, "source_modules = pkg.platforms\n", "source_modules = pkg.a\n")
    code, data = review_data()
    assert code == 1
    assert [(f["contract"], f["because"]) for f in data["loosened"]] == [
        ("layers", ["source_modules"])
    ]


def test_a_contract_that_checks_less_is_named_though_it_hides_no_finding(
    project: Project,
) -> None:
    committed(project)
    # pkg.platforms.npu.models is forbidden and no platform imports it: nothing is hidden.
    edit(project, "    pkg.models\n    pkg.platforms.npu.models\n", "    pkg.models\n")
    code, data = review_data()
    assert code == 1
    assert (data["grew"], data["loosened"], data["tightened"]) == (False, [], [])
    assert data["loosened_options"] == [
        {
            "contract": "r4",
            "name": "R4",
            "option": "forbidden_modules",
            "removed": ["pkg.platforms.npu.models"],
        }
    ]
    markdown = review().stdout
    assert "**The configuration change makes 1 contract check less.**" in markdown
    assert (
        "#### Checks less: what the configuration change no longer checks\n\n"
        "| contract | option | no longer checked |\n"
        "| --- | --- | --- |\n"
        "| R4 (`r4`) | forbidden_modules | `pkg.platforms.npu.models` |\n"
    ) in markdown


@pytest.mark.parametrize(
    ("old", "new", "loosened"),
    [
        (
            "follow_modules = pkg.platforms\n",
            "follow_modules = pkg.platforms.npu\n",
            [("r4", "follow_modules", ["pkg.platforms"])],
        ),
        ("follow_modules = pkg.platforms\n", "follow_modules = pkg\n", []),
        ("[importlinter:contract:layers]", "[importlinter:contract:other]", [("layers", None, [])]),
        (
            "source_modules = pkg.platforms.*.platform\n",
            "source_modules = pkg.platforms.cuda.platform\n",
            [("r4", "source_modules", ["pkg.platforms.*.platform"])],
        ),
        ("name = R4\n", "name = R4, renamed\n", []),
    ],
    ids=["follow narrowed", "follow widened", "contract removed", "source narrowed", "renamed"],
)
def test_options_that_check_less_and_those_that_do_not(
    project: Project, old: str, new: str, loosened: list[tuple[str, str | None, list[str]]]
) -> None:
    committed(project)
    edit(project, old, new)
    _, data = review_data()
    assert [(f["contract"], f["option"], f["removed"]) for f in data["loosened_options"]] == (
        loosened
    )
    if loosened and loosened[0][1] is None:
        assert "| Built-in (`layers`) | contract removed | (all of it) |" in review().stdout


def test_adding_a_forbidden_module_exits_0_and_lists_what_it_newly_reports(
    project: Project,
) -> None:
    committed(project)
    project.write({"pkg/platforms/cuda/platform.py": "import pkg.models\nimport pkg.a\n"})
    git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "tree")
    edit(project, "    pkg.platforms.npu.models\n", "    pkg.platforms.npu.models\n    pkg.a\n")
    code, data = review_data()
    assert code == 0
    assert data["loosened"] == []
    assert [
        (f["finding"]["importer"], f["finding"]["imported"], f["because"])
        for f in data["tightened"]
    ] == [("pkg.platforms.cuda.platform", "pkg.a", ["forbidden_modules"])]
    assert "#### Newly reported: the configuration change tightened" in review().stdout


@pytest.mark.parametrize(
    "entry", ["pkg.c -> pkg.platforms.npu.models", "pkg.c->pkg.platforms.npu.models"]
)
def test_a_finding_excused_by_a_new_entry_is_an_allowlist_addition_not_loosened(
    project: Project, entry: str
) -> None:
    committed(project, files={"pkg/c.py": "import pkg.platforms.npu.models\n"})
    edit(project, *ADD_AND_REMOVE[:1], ADD_AND_REMOVE[0] + f"    {entry}  # new debt\n")
    code, data = review_data()
    assert code == 1
    assert data["grew"] is True
    assert data["loosened"] == []
    (r2,) = data["allowlists"]
    assert [e["expression"] for e in r2["added"]] == ["pkg.c -> pkg.platforms.npu.models"]


def test_only_the_selected_contracts_are_reviewed(project: Project) -> None:
    committed(project)
    edit(project, *ADD_AND_REMOVE)
    edit(
        project, "    pkg.models\n    pkg.platforms.npu.models\n", "    pkg.platforms.npu.models\n"
    )
    code, data = review_data("--contract", "r4")
    assert code == 1
    assert data["allowlists"] == []
    assert list(data["verdicts"]) == ["r4"]
    assert [f["contract"] for f in data["loosened"]] == ["r4"]


RUNTIME = """
[importlinter:contract:runtime]
name = Runtime
type = runtime_isolation
blocked_modules = nothing_blocked
probe_modules = pkg.models
ignore_loaded_modules =
    pkg.platforms.npu  # debt
"""


def test_static_review_says_which_contracts_it_did_not_check(project: Project) -> None:
    committed(project)
    edit(project, "[importlinter:contract:layers]", RUNTIME + "\n[importlinter:contract:layers]")
    git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "runtime")
    edit(project, "    pkg.platforms.npu  # debt\n", "    pkg.platforms.npu  # debt, step 9\n")
    result = review("--static", "--format", "json")
    data = json.loads(result.stdout)
    assert [(s["id"], s["type"]) for s in data["skipped"]] == [("runtime", "runtime_isolation")]
    assert "runtime" not in data["verdicts"]
    markdown = review("--static").stdout
    assert "| Runtime (`runtime`) | not checked (--static) | 1 | 1 | 0 |" in markdown
