"""The getting-started page's "On vllm-omni", done as it says: the wheel in a clean virtual
environment, `.importlinter` copied into a vllm-omni tree, `lint-imports` and `check --static`
run there; and the pre-commit hooks, run by the real pre-commit with `try-repo`."""

from __future__ import annotations

import json
import re
import shutil
import sys
import tomllib
import venv
from pathlib import Path

import pytest

import importlinter_contracts
from helpers import REPO, run
from vllm_omni_tree import NEWEST, tree

pytestmark = pytest.mark.real_tree

NEUTRAL = "vllm_omni/distributed/omni_connectors/utils/config.py"
VIOLATION = "\n\ndef _probe():\n    from vllm_omni.platforms.npu import platform\n"


def vllm_omni_checkout(folder: Path) -> Path:
    """A vllm-omni tree, as a user's checkout holds it: the release's vllm_omni/ with this
    repository's .importlinter copied into its root."""
    shutil.copytree(tree(NEWEST) / "vllm_omni", folder / "vllm_omni")
    shutil.copy(REPO / ".importlinter", folder / ".importlinter")
    return folder


def add_violation(checkout: Path) -> str:
    """A neutral module importing a backend; its path:line."""
    neutral = checkout / NEUTRAL
    line = neutral.read_text().count("\n") + 4
    with neutral.open("a") as handle:
        handle.write(VIOLATION)
    return f"{NEUTRAL}:{line}"


def test_the_wheel_in_a_clean_environment_lints_a_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    # Built from a copy: the build writes its metadata beside the sources it builds.
    source = tmp_path / "source"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", ".cache", ".import_linter_cache", "*.egg-info", "__pycache__"
        ),
    )
    built = run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)], cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("importlinter_contracts-*-py3-none-any.whl")
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    bin_folder = environment / "bin"
    installed = run([str(bin_folder / "pip"), "install", "--quiet", str(wheel)], cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr

    checkout = vllm_omni_checkout(tmp_path / "vllm-omni")
    clean = run([str(bin_folder / "importlinter-contracts"), "check", "--static"], cwd=checkout)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    where = add_violation(checkout)
    linted = run([str(bin_folder / "lint-imports")], cwd=checkout)
    assert linted.returncode == 1
    assert where in linted.stdout
    static = run([str(bin_folder / "importlinter-contracts"), "check", "--static"], cwd=checkout)
    assert static.returncode == 1
    assert where in static.stdout
    assert static.stderr == (
        "importlinter-contracts: skipped optional-sdks-stay-optional (runtime_isolation): "
        "it runs the code it checks, which --static skips.\n"
    )


def test_the_shipped_configuration_names_only_files_of_a_vllm_omni_checkout() -> None:
    # Its comments and its guidance (printed when a contract breaks) are read in vllm-omni's
    # repository: a file they name must be there, not in this one.
    text = (REPO / ".importlinter").read_text()
    named = re.findall(r"[\w.-]+(?:/[\w.-]+)*\.py\b", text)
    assert "vllm_omni/__init__.py" in named
    root = tree(NEWEST)
    assert [
        name
        for name in named
        if not (root / name).is_file() and not (root / "vllm_omni" / name).is_file()
    ] == []


def test_static_json_check_of_the_release_passes_in_the_set_up_environment(
    tmp_path: Path,
) -> None:
    checkout = vllm_omni_checkout(tmp_path / "vllm-omni")
    command = Path(sys.executable).parent / "importlinter-contracts"
    result = run([str(command), "check", "--static", "--format", "json"], cwd=checkout)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["kept"] is True
    assert [c["id"] for c in report["contracts"]] == [
        "platform-backends-private",
        "platform-classes-load-no-bodies",
    ]
    assert [c["id"] for c in report["skipped"]] == ["optional-sdks-stay-optional"]


def test_pre_commit_hooks_pass_a_clean_checkout_and_fail_a_violation(tmp_path: Path) -> None:
    if not (REPO / ".git").exists():
        pytest.skip("try-repo needs this repository as a git repository (a clone)")
    checkout = vllm_omni_checkout(tmp_path / "vllm-omni")
    identity = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    for command in (
        ["git", "init", "--quiet"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "v"],
    ):
        assert run(command, cwd=checkout, **identity).returncode == 0
    # try-repo installs this repository (HEAD, plus uncommitted changes to tracked files)
    # into a fresh environment and runs every hook of .pre-commit-hooks.yaml.
    try_repo = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "--all-files"]
    home = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    passed = run(try_repo, cwd=checkout, **home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "import-linter contracts (static)" in passed.stdout
    assert "import-linter allowlists are exact" in passed.stdout

    where = add_violation(checkout)
    failed = run(try_repo, cwd=checkout, **home)
    assert failed.returncode == 1
    assert where in failed.stdout
    # One violation fails one hook, the one that shows it; none proposes to allowlist it.
    assert re.search(r"^import-linter contracts \(static\)\.+Failed$", failed.stdout, re.M)
    assert re.search(r"^import-linter allowlists are exact\.+Passed$", failed.stdout, re.M)
    assert "TODO" not in failed.stdout


def getting_started_block(after: str, language: str) -> str:
    """The first ```language block of the getting-started page after the text `after`."""
    page = (REPO / "docs" / "getting-started.md").read_text()
    start = page.index(f"```{language}\n", page.index(after)) + len(language) + 4
    return page[start : page.index("```", start)]


SRC_LAYOUT = {
    "src/acme/__init__.py": "",
    "src/acme/core.py": "",
    "src/acme/models/__init__.py": "",
    "src/acme/platforms/__init__.py": "",
    "src/acme/platforms/cuda/__init__.py": "",
    "src/acme/platforms/cuda/platform.py": "",
    "src/acme/platforms/npu/__init__.py": "",
    "src/acme/platforms/npu/platform.py": "",
}


def test_a_src_layout_project_configured_in_pyproject_runs_a_local_pre_commit_hook(
    tmp_path: Path,
) -> None:
    project = tmp_path / "acme"
    for name, text in SRC_LAYOUT.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    (project / "pyproject.toml").write_text(
        getting_started_block("This is import-linter's TOML form", "toml")
    )
    hooks = getting_started_block("A hook of your own", "yaml")
    # The canonical requirement: the repository of pyproject.toml's URLs, at the release tag.
    urls = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]
    dependency = (
        f"importlinter-contracts @ git+{urls['Repository']}@v{importlinter_contracts.__version__}"
    )
    assert dependency in hooks
    (project / ".pre-commit-config.yaml").write_text(hooks.replace(dependency, str(REPO)))
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    for command in (["git", "init", "--quiet"], ["git", "add", "-A"]):
        assert run(command, cwd=project, **identity).returncode == 0
    pre_commit = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    home = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    passed = run(pre_commit, cwd=project, **home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "import boundaries (static)" in passed.stdout

    (project / "src/acme/core.py").write_text("from acme.platforms.npu import platform\n")
    (project / "src/acme/platforms/cuda/platform.py").write_text("import acme.models\n")
    failed = run(pre_commit, cwd=project, **home)
    assert failed.returncode == 1
    assert "Only a backend imports its own code BROKEN" in failed.stdout
    assert "Importing a platform loads no model code BROKEN" in failed.stdout
    assert "src/acme/core.py:1" in failed.stdout
