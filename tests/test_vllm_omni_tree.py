"""tools/vllm_omni_tree.py: it lints the tree the user means and names it, refuses when another
vllm_omni would be read, and runs from any Python 3.11+ without an activated venv."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO
from vllm_omni_tree import NEWEST, tree, tree_version

TOOL = REPO / "tools" / "vllm_omni_tree.py"
R2_ID = "platform-backends-private"
# A Python with nothing installed: the interpreter this venv was made from, without its
# site-packages (-S), so that whatever that installation holds cannot mask a missing tool.
BARE_PYTHON = [getattr(sys, "_base_executable", sys.executable), "-S"]
# The project's .venv, which the tool takes for a bare Python, is another machine's inside
# the Debian testing chroot (`tools/debian_testing.sh`): its interpreter is not there.
PROJECT_VENV_RUNS = pytest.mark.skipif(
    not (REPO / ".venv/bin/python").resolve().exists(),
    reason="the project's .venv has no interpreter here (made outside this chroot?)",
)


def _environment(**extra: str) -> dict[str, str]:
    """This environment as a shell without an activated venv has it."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if not p.startswith(str(REPO / ".venv"))
    )
    return {**env, **extra}


def run_tool(
    *args: str, cwd: Path, python: list[str] | None = None, tool: Path = TOOL, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*(python or [sys.executable]), str(tool), *args],
        cwd=cwd,
        env=_environment(**env),
        capture_output=True,
        text=True,
        check=False,
    )


def _package(folder: Path, version_source: str | None = None) -> Path:
    (folder / "vllm_omni").mkdir(parents=True)
    (folder / "vllm_omni" / "__init__.py").write_text("raise SystemExit('never run')\n")
    if version_source is not None:
        (folder / "vllm_omni" / "_version.py").write_text(version_source)
    return folder


def test_the_version_is_read_from_the_tree_without_running_it(tmp_path: Path) -> None:
    built = _package(tmp_path / "built", "__version__ = version = '0.31.0rc1'\n")
    assert tree_version(built) == "0.31.0rc1"
    clone = _package(tmp_path / "clone")
    (clone / "vllm_omni" / "version.py").write_text(
        "try:\n    from ._version import __version__\nexcept ImportError:\n"
        "    __version__ = 'dev'\n"
    )
    assert tree_version(clone) is None


def test_another_vllm_omni_on_pythonpath_is_refused(tmp_path: Path) -> None:
    target, other = _package(tmp_path / "target"), _package(tmp_path / "other")
    result = run_tool("lint", "--tree", "target", cwd=tmp_path, PYTHONPATH=str(other))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"vllm_omni_tree.py: PYTHONPATH provides a vllm_omni ({other}/vllm_omni) other than "
        f"the one to lint ({target}/vllm_omni): remove it from PYTHONPATH, or lint that one "
        "with `--tree other`.\n"
    )


def test_a_vllm_omni_in_the_working_directory_is_refused_without_tree(tmp_path: Path) -> None:
    mine = _package(tmp_path / "mine")
    cache = tmp_path / "cache"
    result = run_tool("runtime", cwd=mine, IMPORTLINTER_CONTRACTS_CACHE=str(cache))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"vllm_omni_tree.py: the working directory provides a vllm_omni ({mine}/vllm_omni) "
        f"other than the one to lint ({cache}/vllm-omni/{NEWEST}/vllm_omni): run from another "
        "folder, or lint that one with `--tree .`.\n"
    )
    assert not cache.exists()  # refused before downloading or preparing anything


def test_tree_must_hold_vllm_omni(tmp_path: Path) -> None:
    result = run_tool("lint", "--tree", "nowhere", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        f"vllm_omni_tree.py: --tree nowhere: there is no vllm_omni/ in {tmp_path}/nowhere; "
        "--tree takes the folder that holds vllm_omni/.\n",
    )


def test_a_bare_python_without_the_project_venv_says_what_to_run_first(tmp_path: Path) -> None:
    # A clone where nothing was set up yet: the tool and nothing else.
    (tmp_path / "tools").mkdir()
    tool = Path(shutil.copy(TOOL, tmp_path / "tools"))
    result = run_tool("lint", cwd=tmp_path, python=BARE_PYTHON, tool=tool)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"vllm_omni_tree.py: {BARE_PYTHON[0]} has no import-linter and importlinter-contracts, "
        f"and there is no {tmp_path}/.venv: run first, in {tmp_path}: "
        "python3 tools/dev.py lint\n"
    )


@PROJECT_VENV_RUNS
def test_path_needs_no_linter(tmp_path: Path) -> None:
    # A copy of the tools with no .venv beside them, sharing the downloads.
    (tmp_path / "tools").mkdir()
    tool = Path(shutil.copy(TOOL, tmp_path / "tools"))
    tree(NEWEST)  # (downloaded once, here)
    (tmp_path / ".cache").symlink_to(REPO / ".cache")
    result = run_tool("path", cwd=tmp_path, python=BARE_PYTHON, tool=tool)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"{tmp_path}/.cache/vllm-omni/{NEWEST}\n"


def test_a_bare_python_uses_the_project_venv(tmp_path: Path) -> None:
    # Only lint-imports with our contract types, which the bare Python lacks and the project's
    # .venv has, can print this contract's verdict.
    target = _package(tmp_path / "target")
    for backend in ("cuda", "npu"):
        (target / "vllm_omni/platforms" / backend).mkdir(parents=True)
        for name in ("__init__.py", "platform.py"):
            (target / "vllm_omni/platforms" / backend / name).write_text("")
    (target / "vllm_omni/platforms/__init__.py").write_text("")
    (target / "vllm_omni/neutral.py").write_text("import vllm_omni.platforms.npu.platform\n")
    result = run_tool(
        "lint",
        "--tree",
        "target",
        "--contract",
        "platform-backends-private",
        "--no-logo",
        "--no-cache",
        cwd=tmp_path,
        python=BARE_PYTHON,
    )
    assert result.returncode == 1, result.stderr
    assert "Neutral code never imports a platform backend (R2) BROKEN" in result.stdout
    assert "target/vllm_omni/neutral.py:1" in result.stdout


# The real release, with a violation added.


@pytest.fixture
def broken_copy(tmp_path: Path) -> tuple[Path, str]:
    """A copy of the newest release with a neutral module importing a backend; the
    violation's path:line relative to tmp_path."""
    copy = tmp_path / "my-vllm-omni"
    shutil.copytree(tree(NEWEST) / "vllm_omni", copy / "vllm_omni")
    neutral = copy / "vllm_omni/distributed/omni_connectors/utils/config.py"
    line = neutral.read_text().count("\n") + 4
    with neutral.open("a") as handle:
        handle.write("\n\ndef _probe():\n    from vllm_omni.platforms.npu import platform\n")
    return copy, f"{neutral.relative_to(tmp_path)}:{line}"


@pytest.mark.real_tree
def test_lint_tree_reports_the_violation_and_names_the_tree(
    tmp_path: Path, broken_copy: tuple[Path, str]
) -> None:
    copy, where = broken_copy
    result = run_tool("lint", "--tree", copy.name, "--contract", R2_ID, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"vllm_omni_tree.py: linting vllm-omni {NEWEST} at {copy}"
    )
    assert where in result.stdout
    # On PYTHONPATH as well as --tree, it is the same tree: no refusal.
    again = run_tool(
        "lint", "--tree", copy.name, "--contract", R2_ID, cwd=tmp_path, PYTHONPATH=str(copy)
    )
    assert again.returncode == 1 and where in again.stdout


@pytest.mark.real_tree
@pytest.mark.parametrize("command", ["lint", "runtime"])
def test_the_tree_on_pythonpath_without_tree_is_never_linted_as_kept(
    tmp_path: Path, broken_copy: tuple[Path, str], command: str
) -> None:
    copy, _ = broken_copy
    result = run_tool(command, cwd=tmp_path, PYTHONPATH=str(copy))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        f"vllm_omni_tree.py: PYTHONPATH provides a vllm_omni ({copy}/vllm_omni) other than "
        f"the one to lint ({tree(NEWEST)}/vllm_omni): remove it from PYTHONPATH, or lint that "
        f"one with `--tree {copy.relative_to(tmp_path)}`."
    )
    from_inside = run_tool(command, cwd=copy)
    assert (from_inside.returncode, from_inside.stdout) == (2, "")
    assert from_inside.stderr.splitlines()[-1] == (
        f"vllm_omni_tree.py: the working directory provides a vllm_omni ({copy}/vllm_omni) "
        f"other than the one to lint ({tree(NEWEST)}/vllm_omni): run from another folder, or "
        "lint that one with `--tree .`."
    )


@pytest.mark.real_tree
@PROJECT_VENV_RUNS
def test_a_bare_python_lints_the_cached_release(tmp_path: Path) -> None:
    result = run_tool("lint", "--contract", R2_ID, cwd=tmp_path, python=BARE_PYTHON)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"vllm_omni_tree.py: linting vllm-omni {NEWEST}, the release cached in "
        f"{tree(NEWEST)} (--tree PATH lints another tree)"
    )
    assert "Contracts: 1 kept, 0 broken." in result.stdout


# It makes the runtime's virtual environment, pip and all, before pip finds no torch: seconds.
@pytest.mark.slow
def test_runtime_takes_no_cuda_torch_when_no_cpu_build_is_offered(tmp_path: Path) -> None:
    # No index and an empty wheel folder: pip finds no torch 2.13.0+cpu (as on PyPI, which
    # carries only the CUDA build), and the tool stops instead of taking another build.
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    result = run_tool(
        "runtime",
        cwd=tmp_path,
        IMPORTLINTER_CONTRACTS_CACHE=str(tmp_path / "cache"),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(empty),
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        "vllm_omni_tree.py: pip found no torch==2.13.0+cpu (torch's CPU build; PyPI carries "
        "only the CUDA build), and the runtime environment takes no CUDA build: point pip at "
        "PyTorch's CPU wheel index (PIP_EXTRA_INDEX_URL) or at a folder that holds the wheel "
        "(PIP_FIND_LINKS), and run again."
    )
    assert not (tmp_path / "cache" / "runtime-venv" / ".complete").exists()
