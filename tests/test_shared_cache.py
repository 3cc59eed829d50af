"""Two trees that share one cache folder never get each other's verdicts: not from this
package's caches, nor from grimp's, which this package's commands keep per tree; and a
damaged grimp cache is built again without it.

The trees are as two unpacked copies of one archive (or two reproducible builds) are: the
same module names and the same file times, at different paths; one breaks the contracts,
the other keeps them. A graph cache folder that cannot be created is said to be so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import CONTRACT_TYPES, Project
from importlinter_contracts import explore
from importlinter_contracts.cache import DEFAULT_CACHE_DIR, grimp_cache_folder
from importlinter_contracts.cli import main
from importlinter_contracts.errors import CacheWarning

pytestmark = pytest.mark.matrix

BIN = Path(sys.executable).parent
CONFIGURATION = (
    "[importlinter]\nroot_package = pkg\n"
    + CONTRACT_TYPES
    + """
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms
backends = cuda

[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.cuda.platform
follow_modules = pkg
forbidden_modules = pkg.models
"""
)
# The same sizes in both trees: only the paths and the contents differ.
BROKEN = {
    "pkg/user.py": "import pkg.platforms.cuda\n",
    "pkg/platforms/cuda/platform.py": "import pkg.models\n",
}
KEPT = {
    "pkg/user.py": "import pkg.models  # ....\n",
    "pkg/platforms/cuda/platform.py": "import pkg.modelz\n",
}
TIME = 1_600_000_000


def unpacked(root: Path, files: dict[str, str]) -> Path:
    every = {
        "pkg/__init__.py": "",
        "pkg/models.py": "",
        "pkg/platforms/__init__.py": "",
        "pkg/platforms/cuda/__init__.py": "",
        **files,
    }
    for relative, text in every.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / ".importlinter").write_text(CONFIGURATION)
    for path in root.rglob("*"):
        os.utime(path, (TIME, TIME))
    return root


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    return unpacked(tmp_path / "one" / "tree", BROKEN), unpacked(tmp_path / "two" / "tree", KEPT)


def run(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=tree, capture_output=True, text=True, check=False)


def verdicts(tree: Path, *cache: str) -> dict[str, bool]:
    found = run(tree, str(BIN / "importlinter-contracts"), "check", "--format", "json", *cache)
    assert found.returncode in (0, 1), found.stderr
    return {c["id"]: c["kept"] for c in json.loads(found.stdout)["contracts"]}


def test_each_verdict_is_the_uncached_one(trees: tuple[Path, Path], tmp_path: Path) -> None:
    shared = str(tmp_path / "shared-cache")
    uncached = {tree: verdicts(tree, "--no-cache") for tree in trees}
    assert list(uncached.values()) == [{"r2": False, "r4": False}, {"r2": True, "r4": True}]
    for tree in [*trees, *trees, *reversed(trees)]:
        assert verdicts(tree, "--cache-dir", shared) == uncached[tree]
    # One grimp cache per tree, beside this package's own.
    assert sorted(p.name for p in Path(shared).iterdir()) == ["grimp", "importlinter_contracts"]
    assert len(list((Path(shared) / "grimp").iterdir())) == 2


def test_why_answers_each_tree(trees: tuple[Path, Path], tmp_path: Path) -> None:
    shared = str(tmp_path / "shared-cache")
    why = [str(BIN / "importlinter-contracts"), "why", "pkg.user", "pkg.platforms.cuda"]
    for tree, status in [(trees[0], 0), (trees[1], 1)] * 2:
        assert run(tree, *why, "--cache-dir", shared).returncode == status


def test_lint_imports_shares_grimps_cache_between_trees(
    trees: tuple[Path, Path], tmp_path: Path
) -> None:
    """What the documentation says of lint-imports' own --cache-dir, which this package does
    not choose: grimp keys its cache by module and file time, so the second tree gets the
    first tree's imports. (When grimp keys by path, this fails: say so in the docs.)"""
    shared = str(tmp_path / "lint-imports-cache")
    lint = [str(BIN / "lint-imports"), "--no-logo", "--cache-dir", shared]
    first, second = trees
    assert run(first, *lint).returncode == 1
    assert run(second, *lint, "--no-cache").returncode == 0
    assert run(second, *lint).returncode == 1


# A damaged or unusable grimp cache costs only time: the graph is built without it, with one
# warning naming the folder, and the verdict is that of --no-cache.


def _damage(folder: Path, damage: str) -> None:
    if damage == "meta-null":
        (folder / "pkg.meta.json").write_text("null")
    elif damage == "meta-number":
        (folder / "pkg.meta.json").write_text("1")
    elif damage == "gitignore-folder":
        (folder / ".gitignore").unlink()
        (folder / ".gitignore").mkdir()
    else:  # a file where the folder should be: nothing can be written there
        shutil.rmtree(folder)
        folder.write_text("")


DAMAGES = {
    "meta-null": "'NoneType' object is not iterable",
    "meta-number": "'int' object is not iterable",
    "gitignore-folder": "Is a directory (os error 21)",
    "folder-is-a-file": "File exists (os error 17)",
}


@pytest.mark.parametrize(("damage", "reason"), DAMAGES.items(), ids=DAMAGES.keys())
def test_an_unusable_graph_cache_is_rebuilt_with_one_warning(
    project: Project, damage: str, reason: str
) -> None:
    project.write(BROKEN)
    project.write({"pkg/models.py": ""})
    (project.root / ".importlinter").write_text(CONFIGURATION)
    uncached = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json"])
    CliRunner().invoke(main, ["check"])  # writes grimp's cache
    folder = grimp_cache_folder(DEFAULT_CACHE_DIR, {"root_packages": ["pkg"]})
    _damage(folder, damage)
    warning = (
        f"importlinter-contracts: warning: The graph cache {folder} cannot be used ({reason}): "
        "this run uses no cache, as with --no-cache; delete the folder to start it afresh.\n"
    )
    cached = CliRunner().invoke(main, ["check", "--format", "json"])
    assert (cached.exit_code, cached.stdout, cached.stderr) == (1, uncached.stdout, warning)
    closure = CliRunner().invoke(main, ["closure", "pkg.user"])
    assert (closure.exit_code, closure.stderr) == (0, warning)


def test_a_graph_cache_folder_that_cannot_be_created_is_named_absolute_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Project(tmp_path / "tree")
    project.write(BROKEN)
    project.write({"pkg/models.py": ""})
    (project.root / ".importlinter").write_text(CONFIGURATION)
    monkeypatch.chdir(project.root)
    monkeypatch.syspath_prepend(str(project.root))
    uncached = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json"])
    (tmp_path / "file").write_text("")
    cache_dir = tmp_path / "file" / "cache"  # under a file: no folder can be made there
    folder = grimp_cache_folder(cache_dir, {"root_packages": ["pkg"]})
    cached = CliRunner().invoke(main, ["check", "--format", "json", "--cache-dir", str(cache_dir)])
    assert (cached.exit_code, cached.stdout, cached.stderr) == (
        1,
        uncached.stdout,
        f"importlinter-contracts: warning: The graph cache {folder} cannot be used (Not a "
        "directory (os error 20)): this run uses no cache, as with --no-cache; the folder "
        "cannot be created: give --cache-dir a writable folder, or --no-cache for none.\n",
    )


# Every command that builds the graph (the console script's, and explore.load) goes through
# one builder: with a graph cache that cannot be used, each gives the output of --no-cache,
# one warning, and writes no cache.
COMMANDS = {
    "check": ["check", "--format", "json"],
    "allowlist": ["allowlist"],
    "fix": ["fix"],
    "review": ["review", "--base", "HEAD", "--format", "json"],
    "closure": ["closure", "pkg.user"],
    "why": ["why", "pkg.user", "pkg.models"],
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_every_command_goes_on_without_an_unusable_graph_cache(
    project: Project, command: list[str]
) -> None:
    project.write(BROKEN)
    project.write({"pkg/models.py": "VALUE = 1\n"})
    (project.root / ".importlinter").write_text(CONFIGURATION)
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "base"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=project.root,
            check=True,
            capture_output=True,
        )
    uncached = CliRunner().invoke(main, [*command, "--no-cache"])
    assert uncached.exit_code in (0, 1), uncached.output
    # Damaged before any run: nothing of this package's caches is there to hide it.
    folder = grimp_cache_folder(DEFAULT_CACHE_DIR, {"root_packages": ["pkg"]})
    folder.parent.mkdir(parents=True)
    folder.write_text("")
    cached = CliRunner().invoke(main, command)
    warning = (
        f"importlinter-contracts: warning: The graph cache {folder} cannot be used (File "
        "exists (os error 17)): this run uses no cache, as with --no-cache; delete the folder "
        "to start it afresh.\n"
    )
    assert (cached.exit_code, cached.stdout, cached.stderr) == (
        uncached.exit_code,
        uncached.stdout,
        warning + uncached.stderr,
    )
    assert sorted(DEFAULT_CACHE_DIR.rglob("*")) == [folder.parent, folder]


def test_explore_warns_of_an_unusable_graph_cache_at_the_callers_line(project: Project) -> None:
    project.write(BROKEN)
    project.write({"pkg/models.py": ""})
    (project.root / ".importlinter").write_text(CONFIGURATION)
    folder = grimp_cache_folder(DEFAULT_CACHE_DIR, {"root_packages": ["pkg"]})
    folder.parent.mkdir(parents=True)
    folder.write_text("")
    with pytest.warns(CacheWarning) as warned:
        explorer = explore.load()
        assert explorer.check()["kept"] is False
    assert [(str(w.message), w.filename) for w in warned] == [
        (
            f"The graph cache {folder} cannot be used (File exists (os error 17)): this run uses "
            "no cache, as with --no-cache; delete the folder to start it afresh.",
            __file__,
        )
    ]
    assert sorted(DEFAULT_CACHE_DIR.rglob("*")) == [folder.parent, folder]


# `forbidden` from the platform to the models, which the platform imports only for type
# checking, under `exclude_type_checking_imports` or not.
TYPE_CHECKED = """\
[importlinter]
root_package = pkg
{option}
[importlinter:contract:f]
name = F
type = forbidden
source_modules = pkg.platform
forbidden_modules = pkg.models
"""


def test_a_graph_option_switched_back_after_an_edit_is_read_afresh(project: Project) -> None:
    """grimp keeps one file of its modules' times, whatever exclude_type_checking_imports
    says, and a file of imports per setting: a run with the other setting between an edit
    and this one recorded the new time, and grimp would take the imports this setting found
    before the edit as fresh."""
    project.write(
        {
            "pkg/platform.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    import pkg.models\n",
            "pkg/models.py": "",
            "pkg/core.py": "",
        }
    )
    config = project.root / ".importlinter"
    included, excluded = (
        TYPE_CHECKED.format(option=option)
        for option in ("", "exclude_type_checking_imports = true\n")
    )

    def check(configuration: str) -> tuple[int, list[tuple[str, bool]]]:
        config.write_text(configuration)
        result = CliRunner().invoke(main, ["check", "--format", "json"])
        report = json.loads(result.stdout)
        return result.exit_code, [(c["id"], c["kept"]) for c in report["contracts"]]

    assert check(included) == (1, [("f", False)])
    assert check(excluded) == (0, [("f", True)])
    platform = project.root / "pkg" / "platform.py"
    platform.write_text("import pkg.core\n")
    later = platform.stat().st_mtime + 10
    os.utime(platform, (later, later))
    assert check(excluded) == (0, [("f", True)])
    # No import of the models is left, type checking or not.
    assert check(included) == (0, [("f", True)])
