"""The one helper that writes synthetic packages and runs the contracts on them."""

from __future__ import annotations

import configparser
import functools
import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from importlinter.cli import lint_imports_command

from importlinter_contracts.allowlist.entries import parse_entry
from importlinter_contracts.cache import DEFAULT_CACHE_DIR
from importlinter_contracts.cli import main
from importlinter_contracts.compiled import build
from importlinter_contracts.eager import call_model, module_files, outcomes, scope_cache
from importlinter_contracts.eager.scopes import read_source
from vllm_omni_tree import contract_options, tree

REPO = Path(__file__).resolve().parent.parent

# A test that replaces a function of a compiled module (the compiled wheel's) or a method of a
# class of one sees no call of it from compiled code, which calls it directly: it runs on pure
# Python only.
ON_PURE_PYTHON = "replaces a function that compiled code calls directly"
patches_compiled = pytest.mark.skipif(build() == "compiled", reason=ON_PURE_PYTHON)

# The runtime contract runs vllm-omni itself: only tests/test_real_tree_runtime.py runs it.
STATIC_CONTRACTS = contract_options(runtime=False)

CONTRACT_TYPES = """\
contract_types =
    backend_isolation: importlinter_contracts.BackendIsolationContract
    eager_imports: importlinter_contracts.EagerImportContract
    runtime_isolation: importlinter_contracts.RuntimeIsolationContract
"""


@dataclass
class Project:
    """A folder with packages we write, and a `.importlinter` to check them with."""

    root: Path

    def write(self, files: dict[str, str]) -> None:
        """Write `{"pkg/mod.py": source}`; every folder on the way becomes a package."""
        for relative, source in files.items():
            path = self.root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(source))
            parent = path.parent
            while parent != self.root:
                (parent / "__init__.py").touch()
                parent = parent.parent

    def configure(self, contracts: str, *, root_package: str = "pkg", session: str = "") -> None:
        """Write `.importlinter` with our contract types and the given contract sections."""
        (self.root / ".importlinter").write_text(
            f"[importlinter]\nroot_package = {root_package}\n{session}"
            + CONTRACT_TYPES
            + "\n"
            + textwrap.dedent(contracts)
        )

    def check(self, *args: str) -> Result:
        """Run `importlinter-contracts check ARGS` in this folder."""
        return CliRunner().invoke(main, ["check", "--no-cache", *args], catch_exceptions=False)

    def check_with_cache(self, *args: str) -> Result:
        """Run `importlinter-contracts check ARGS` with the default cache directory."""
        return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)

    def report(self, *args: str) -> dict[str, Any]:
        """The JSON report of `check`, as data."""
        result = self.check("--format", "json", *args)
        assert result.exit_code in (0, 1), result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data

    def contract(self, contract_id: str, *args: str) -> dict[str, Any]:
        """One contract's part of the JSON report (only that contract is checked)."""
        (found,) = self.report("--contract", contract_id, *args)["contracts"]
        assert found["id"] == contract_id
        return found

    def lint_imports(self, *args: str) -> Result:
        """Run import-linter's own `lint-imports` in this folder."""
        return CliRunner().invoke(lint_imports_command, ["--no-logo", "--no-cache", *args])


R2 = """\
[importlinter:contract:r2]
name = Backends are private
type = backend_isolation
container = pkg.platforms
{options}
"""


@functools.cache
def installed_python(version: str) -> str | None:
    """Return the interpreter of CPython `version` (`3.12`): this one, one on PATH that runs,
    or the newest that pyenv has installed; None where there is none. Looked up once per
    process: pyenv's answer takes two of its shell scripts, a fifth of a second."""
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        return sys.executable
    found = shutil.which(f"python{version}")
    # A pyenv shim of a version that is not set runs nothing.
    if found and subprocess.run([found, "-c", ""], capture_output=True).returncode == 0:
        return found
    if not shutil.which("pyenv"):
        return None
    listed = subprocess.run(
        ["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False
    ).stdout.split()
    installed = [each for each in listed if each.startswith(f"{version}.")]
    if not installed:
        return None
    where = subprocess.run(
        ["pyenv", "which", f"python{version}"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYENV_VERSION": installed[-1]},
    )
    return where.stdout.strip() if where.returncode == 0 else None


def run_cli(*args: str) -> Result:
    """Run `importlinter-contracts ARGS` in the working directory."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def configure_r2(project: Project, options: str = "", session: str = "") -> None:
    """Configure the backend-isolation contract `r2` over `pkg.platforms`, with more options."""
    project.configure(R2.format(options=textwrap.dedent(options)), session=session)


def imports_of(violations: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(v["importer"], v["imported"]) for v in violations}


def copy_release(project: Project, version: str) -> Project:
    """A release's `vllm_omni/` and the shipped `.importlinter`, copied into the project."""
    shutil.copytree(tree(version) / "vllm_omni", project.root / "vllm_omni")
    shutil.copy(REPO / ".importlinter", project.root / ".importlinter")
    return project


def shipped_entries(contract_id: str, path: Path = REPO / ".importlinter") -> set[tuple[str, str]]:
    """The (importer, imported) expressions of a contract's allowlist in a shipped
    configuration (by default `.importlinter`)."""
    config = configparser.ConfigParser()
    config.read(path)
    raw = config[f"importlinter:contract:{contract_id}"].get("ignore_imports", "")
    entries = [parse_entry(line) for line in raw.splitlines() if line.strip()]
    return {(e.expression.importer.expression, e.expression.imported.expression) for e in entries}


def forget_walk_outcomes(root: Path) -> None:
    """Remove what the eager_imports walks found from the cache in `root`, so that the next
    run walks again (through the import-scope cache)."""
    (root / DEFAULT_CACHE_DIR / outcomes.OUTCOMES_FILE).unlink()


def files_read(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The source of every file the eager-import analysis reads from now on, as read (the
    test is skipped on the compiled build)."""
    if build() == "compiled":
        pytest.skip(ON_PURE_PYTHON)
    read: list[bytes] = []
    real = module_files.file_source

    def recording(path: str) -> bytes:
        source = real(path)
        read.append(source)
        return source

    for reader in (module_files, scope_cache):
        monkeypatch.setattr(reader, "file_source", recording)
    return read


@contextmanager
def calls_unread_warning(match: str | None = None) -> Iterator[None]:
    """The warning that a file with a `lazy import` gives where `ast` cannot parse it (its
    calls are not followed): before Python 3.15; from 3.15 it parses, and there is none."""
    if sys.version_info < (3, 15):
        with pytest.warns(UserWarning, match=match):
            yield
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert [str(w.message) for w in caught] == []


def run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Return how `command` ran in `cwd`, as from a shell with no virtual environment active
    and no PYTHONPATH (`env` added)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return subprocess.run(
        command,
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def pytest_lines(*arguments: str) -> list[str]:
    """Return the lines that `pytest -q ARGUMENTS`, run on this repository in a process of its
    own, prints; it must pass."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout.splitlines()


def call_reading(source: str) -> call_model.CallReading:
    """The call reading of an in-memory source (dedented), read with `ast`."""
    found = read_source(textwrap.dedent(source).encode()).calls
    assert found is not None
    return found
