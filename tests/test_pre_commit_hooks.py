"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit (which installs this
repository into a hook environment, as for a user whose configuration names it) on a synthetic
repository: a violation fails one hook, the contracts', with the violation; the allowlist hook
fails on an inexact allowlist, a stale entry or an entry without its reason, and proposes no
entry for a violation."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import REPO, Project, run

pytestmark = pytest.mark.slow

CONTRACTS = "import-linter contracts (static)"
ALLOWLIST = "import-linter allowlists are exact"

TREE = {
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models.py": "",
    "pkg/platforms/cuda/platform.py": "",
    "pkg/a.py": "from pkg.platforms.npu import models\n",
    "pkg/b.py": "",
}

ENTRY = "pkg.a -> pkg.platforms.npu.models"

CONTRACT = f"""\
[importlinter:contract:r2]
name = Only a backend imports its own code
type = backend_isolation
container = pkg.platforms
require_reasons = true
ignore_imports =
    {ENTRY}  # NPU group 1
"""


def hook_results(output: str) -> dict[str, str]:
    """Each hook's name and what pre-commit says of it (Passed, Failed)."""
    return dict(re.findall(r"^(.+?)\.{3,}(Passed|Failed|Skipped)$", output, re.MULTILINE))


def hook_output(output: str, name: str) -> str:
    """What one hook printed, as pre-commit shows it under the hook's line."""
    start = output.index(name)
    following = [output.find(other, start + 1) for other in (CONTRACTS, ALLOWLIST)]
    end = min([index for index in following if index > start], default=len(output))
    return output[start:end]


IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(*args: str, cwd: Path) -> str:
    """Run git in `cwd`; return what it printed."""
    done = run(["git", *args], cwd=cwd, **IDENTITY)
    assert done.returncode == 0, done.stderr
    return done.stdout


def hooks_repository(folder: Path) -> tuple[str, str]:
    """Return a repository and a commit holding this one as it is: HEAD with the uncommitted
    changes to tracked files (what `pre-commit try-repo` installs), committed in a clone."""
    clone = folder / "hooks-repository"
    git("clone", "--quiet", "--shared", str(REPO), str(clone), cwd=folder)
    git("checkout", "--quiet", "--detach", git("rev-parse", "HEAD", cwd=REPO).strip(), cwd=clone)
    changed = git("diff", "HEAD", "--name-only", "--no-renames", "-z", cwd=REPO)
    for name in changed.split("\0")[:-1]:
        if (REPO / name).exists():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, clone / name)
        else:
            (clone / name).unlink()
    git("add", "--all", cwd=clone)
    git("commit", "--quiet", "--allow-empty", "-m", "the working tree", cwd=clone)
    return str(clone), git("rev-parse", "HEAD", cwd=clone).strip()


@pytest.fixture
def run_hooks(
    project: Project, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[], subprocess.CompletedProcess[str]]:
    if not (REPO / ".git").exists():
        pytest.skip("the hooks' repository is this one as a git repository (a clone)")
    project.write(TREE)
    project.configure(CONTRACT)
    git("init", "--quiet", cwd=project.root)
    git("add", "-A", cwd=project.root)
    git("commit", "-qm", "v", cwd=project.root)
    # `pre-commit try-repo` would install this repository anew at each run, into a store in a
    # temporary folder of its own. A configuration naming it at a commit installs it once into
    # PRE_COMMIT_HOME, where the runs that follow find it, as a user's runs do.
    folder = tmp_path_factory.mktemp("pre-commit")
    repository, commit = hooks_repository(folder)
    hooks = [{"id": "importlinter-contracts"}, {"id": "importlinter-contracts-allowlist"}]
    config = folder / "pre-commit-config.yaml"
    # JSON, which YAML reads.
    config.write_text(json.dumps({"repos": [{"repo": repository, "rev": commit, "hooks": hooks}]}))
    command = [sys.executable, "-m", "pre_commit", "run", "--config", str(config), "--all-files"]
    home = {"PRE_COMMIT_HOME": str(folder / "home")}

    def one_run() -> subprocess.CompletedProcess[str]:
        return run(command, cwd=project.root, **home)

    return one_run


def test_hooks_on_a_clean_tree_a_violation_a_stale_entry_and_a_missing_reason(
    project: Project, run_hooks: Callable[[], subprocess.CompletedProcess[str]]
) -> None:
    config = project.root / ".importlinter"
    shipped = config.read_text()

    clean = run_hooks()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert hook_results(clean.stdout) == {CONTRACTS: "Passed", ALLOWLIST: "Passed"}

    # One violation: one hook fails, and shows it; no allowlist entry is proposed for it.
    project.write({"pkg/b.py": "import pkg.platforms.cuda.platform\n"})
    violation = run_hooks()
    assert violation.returncode == 1
    assert hook_results(violation.stdout) == {CONTRACTS: "Failed", ALLOWLIST: "Passed"}
    assert "pkg.b -> pkg.platforms.cuda.platform (l.1)" in hook_output(violation.stdout, CONTRACTS)
    assert "TODO" not in violation.stdout
    project.write({"pkg/b.py": ""})

    # A stale entry: the allowlist hook shows the diff that removes it, the last one with its
    # option. (The contracts' hook fails too: a stale entry breaks its contract, so that the
    # list only shrinks.)
    project.write({"pkg/a.py": ""})
    stale = run_hooks()
    assert hook_results(stale.stdout) == {CONTRACTS: "Failed", ALLOWLIST: "Failed"}
    assert (
        "--- a/.importlinter\n+++ b/.importlinter\n"
        "@@ -10,5 +10,3 @@\n"
        " type = backend_isolation\n"
        " container = pkg.platforms\n"
        " require_reasons = true\n"
        "-ignore_imports =\n"
        f"-    {ENTRY}  # NPU group 1\n"
    ) in hook_output(stale.stdout, ALLOWLIST)
    project.write(TREE)

    # An entry without its reason: the allowlist hook names it, at its line.
    config.write_text(shipped.replace("  # NPU group 1", ""))
    unreasoned = run_hooks()
    # (The contracts' hook fails too: require_reasons makes the contract not configured
    # correctly.)
    assert hook_results(unreasoned.stdout) == {CONTRACTS: "Failed", ALLOWLIST: "Failed"}
    assert "require_reasons is true, but these entries give no reason" in hook_output(
        unreasoned.stdout, CONTRACTS
    )
    assert (
        f".importlinter:14: {ENTRY}: no reason given, which require_reasons asks for: end the "
        "entry with '# why it is allowed'."
    ) in hook_output(unreasoned.stdout, ALLOWLIST)
