"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit (`try-repo`, which installs
this repository as pre-commit would) on a synthetic repository: a violation fails one hook,
the contracts', with the violation; the allowlist hook fails on an inexact allowlist, a stale
entry or an entry without its reason, and proposes no entry for a violation."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable

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


@pytest.fixture
def try_repo(
    project: Project, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[], subprocess.CompletedProcess[str]]:
    if not (REPO / ".git").exists():
        pytest.skip("try-repo needs this repository as a git repository (a clone)")
    project.write(TREE)
    project.configure(CONTRACT)
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
        assert run(command, cwd=project.root, **identity).returncode == 0
    # try-repo installs this repository (HEAD, plus uncommitted changes to tracked files) into
    # an environment of its own, kept in PRE_COMMIT_HOME for the runs that follow.
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "--all-files"]
    home = {"PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home"))}

    def run_hooks() -> subprocess.CompletedProcess[str]:
        return run(command, cwd=project.root, **home)

    return run_hooks


def test_hooks_on_a_clean_tree_a_violation_a_stale_entry_and_a_missing_reason(
    project: Project, try_repo: Callable[[], subprocess.CompletedProcess[str]]
) -> None:
    config = project.root / ".importlinter"
    shipped = config.read_text()

    clean = try_repo()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert hook_results(clean.stdout) == {CONTRACTS: "Passed", ALLOWLIST: "Passed"}

    # One violation: one hook fails, and shows it; no allowlist entry is proposed for it.
    project.write({"pkg/b.py": "import pkg.platforms.cuda.platform\n"})
    violation = try_repo()
    assert violation.returncode == 1
    assert hook_results(violation.stdout) == {CONTRACTS: "Failed", ALLOWLIST: "Passed"}
    assert "pkg.b -> pkg.platforms.cuda.platform (l.1)" in hook_output(violation.stdout, CONTRACTS)
    assert "TODO" not in violation.stdout
    project.write({"pkg/b.py": ""})

    # A stale entry: the allowlist hook shows the diff that removes it. (The contracts' hook
    # fails too: a stale entry breaks its contract, so that the list only shrinks.)
    project.write({"pkg/a.py": ""})
    stale = try_repo()
    assert hook_results(stale.stdout) == {CONTRACTS: "Failed", ALLOWLIST: "Failed"}
    assert (
        "--- a/.importlinter\n+++ b/.importlinter\n"
        "@@ -11,4 +11,3 @@\n"
        " container = pkg.platforms\n"
        " require_reasons = true\n"
        " ignore_imports =\n"
        f"-    {ENTRY}  # NPU group 1\n"
    ) in hook_output(stale.stdout, ALLOWLIST)
    project.write(TREE)

    # An entry without its reason: the allowlist hook names it, at its line.
    config.write_text(shipped.replace("  # NPU group 1", ""))
    unreasoned = try_repo()
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
