"""`check --format github`: one workflow command per finding, on the line concerned."""

from __future__ import annotations

import subprocess

import pytest

from helpers import Project

TREE = {
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models.py": "",
    "pkg/a.py": "import os\nfrom pkg.platforms.npu import models\n",
    "pkg/platforms/cuda/platform.py": "try:\n    import pkg.platforms.npu.models\nexcept ImportError:\n    pass\n",
}

CONFIG = """\
[importlinter:contract:r2]
name = R2, with commas: and colons
type = backend_isolation
container = pkg.platforms
ignore_imports =
    pkg.gone -> pkg.platforms.npu  # 100%% retired

[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.*.platform
follow_modules = pkg.platforms
forbidden_modules = pkg.platforms.*.models
"""


def test_each_finding_is_an_error_command_on_its_file_and_line(project: Project) -> None:
    project.write(TREE)
    project.configure(CONFIG)
    result = project.check("--format", "github")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=pkg/a.py,line=2,title=R2%2C with commas%3A and colons (r2)::"
        "pkg.a -> pkg.platforms.npu.models (l.2)",
        "::error file=.importlinter,line=13,title=R2%2C with commas%3A and colons (r2)::"
        "pkg.gone -> pkg.platforms.npu # 100%25 retired: no import matches it; remove this stale entry",
        "::error file=pkg/platforms/cuda/platform.py,line=2,title=R4 (r4)::"
        "pkg.platforms.cuda.platform -> pkg.platforms.npu.models (l.2, module-level try), "
        "runs when importing pkg.platforms.cuda.platform",
    ]


def test_kept_contracts_print_nothing(project: Project) -> None:
    project.write({**TREE, "pkg/a.py": "", "pkg/platforms/cuda/platform.py": ""})
    project.configure(
        CONFIG.replace("ignore_imports =\n    pkg.gone -> pkg.platforms.npu  # 100%% retired\n", "")
    )
    result = project.check("--format", "github")
    assert (result.exit_code, result.stdout) == (0, "")


def test_paths_are_relative_to_the_repository_root(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a subfolder of a git repository (a monorepo's Python project): GitHub reads
    the paths from the repository's root."""
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)
    project.root = project.root / "py"
    project.root.mkdir()
    project.write(TREE)
    project.configure(CONFIG)
    monkeypatch.chdir(project.root)
    monkeypatch.syspath_prepend(str(project.root))
    result = project.check("--format", "github", "--contract", "r2")
    assert result.exit_code == 1
    assert [line.partition(",")[0] for line in result.stdout.splitlines()] == [
        "::error file=py/pkg/a.py",
        "::error file=py/.importlinter",
    ]


def test_a_stale_entry_that_only_warns_points_at_its_line_too(project: Project) -> None:
    project.write(TREE)
    project.configure(
        CONFIG.replace(
            "ignore_imports =", "unmatched_ignore_imports_alerting = warn\nignore_imports ="
        )
    )
    result = project.check("--format", "github", "--contract", "r2")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=pkg/a.py,line=2,title=R2%2C with commas%3A and colons (r2)::"
        "pkg.a -> pkg.platforms.npu.models (l.2)",
        "::warning file=.importlinter,line=14,title=R2%2C with commas%3A and colons (r2)::"
        "No import matches ignored import pkg.gone -> pkg.platforms.npu # 100%25 retired: "
        "remove this stale entry.",
    ]


def test_an_eager_chain_is_annotated_where_it_starts_in_the_source_module(
    project: Project,
) -> None:
    """Not on the last hop's file, which the change may not have touched: `check` does not know
    the change (`review --format github` does), so on the source module's first hop."""
    project.write(
        {
            **TREE,
            "pkg/platforms/cuda/platform.py": "\nimport pkg.platforms.interface\n",
            "pkg/platforms/interface.py": "import pkg.platforms.npu.models\n",
        }
    )
    project.configure(CONFIG)
    result = project.check("--format", "github", "--contract", "r4")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=pkg/platforms/cuda/platform.py,line=2,title=R4 (r4)::"
        "pkg.platforms.interface -> pkg.platforms.npu.models (l.1, module level), runs when "
        "importing pkg.platforms.cuda.platform by way of pkg.platforms.cuda.platform -> "
        "pkg.platforms.interface (l.2, module level)",
    ]
