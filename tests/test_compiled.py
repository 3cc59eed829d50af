"""The compiled build and its pure-Python fallback: the wheel's compiled modules load together
or not at all, and a run gives the same report either way."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

import importlinter_contracts
from helpers import REPO, run
from importlinter_contracts import compiled

pytestmark = pytest.mark.matrix

PACKAGE = Path(importlinter_contracts.__file__).parent
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
RUNNING = compiled.build()
needs_compiled = pytest.mark.skipif(
    RUNNING != "compiled",
    reason="the pure-Python package runs: there is no compiled module",
)

# Pure and compiled, broken or not: the same findings.
TREE = {
    "pkg/platforms/cuda/platform.py": "from pkg.models import base\n",
    "pkg/models/base.py": "def helper():\n    from pkg.platforms.npu import platform\n\nhelper()\n",
    "pkg/platforms/npu/platform.py": "import pkg.models.base\nimport pkg.platforms.cuda.platform\n",
}
CONFIGURATION = """\
[importlinter]
root_package = pkg
contract_types =
    backend_isolation: importlinter_contracts.BackendIsolationContract
    eager_imports: importlinter_contracts.EagerImportContract

[importlinter:contract:r2]
name = Backends are private
type = backend_isolation
container = pkg.platforms

[importlinter:contract:r4]
name = Eager imports
type = eager_imports
source_modules = pkg.platforms.cuda.platform
follow_modules = pkg
forbidden_modules = pkg.platforms.npu
"""
BUILD = (
    "from importlinter_contracts import compiled; print(compiled.build())\n"
    "import importlinter_contracts.eager.walk as walk; print(walk.__file__.rpartition('.')[2])\n"
)


def installed_copy(tmp_path: Path) -> Path:
    """Return a folder holding a copy of the package as it runs here (with the shared
    library of its compiled modules, where it has one), for a fresh process's PYTHONPATH."""
    copy = tmp_path / "site"
    shutil.copytree(PACKAGE, copy / PACKAGE.name, ignore=shutil.ignore_patterns("__pycache__"))
    for shared in PACKAGE.parent.glob(f"*__mypyc{SUFFIX}"):
        shutil.copy(shared, copy)
    return copy


def check(site: Path, tmp_path: Path) -> tuple[str, str]:
    """Return what the build in `site` says it is, and its report on TREE."""
    project = tmp_path / "project"
    if not project.exists():
        for relative, source in TREE.items():
            path = project / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source)
            for parent in path.relative_to(project).parents:
                (project / parent / "__init__.py").touch()
        (project / ".importlinter").write_text(CONFIGURATION)
    python = [sys.executable, "-c"]
    build = run([*python, BUILD], project, PYTHONPATH=str(site))
    assert build.returncode == 0, build.stderr
    report = run(
        [sys.executable, "-m", "importlinter_contracts", "check", "--no-cache"],
        project,
        PYTHONPATH=f"{site}{os.pathsep}{project}",
    )
    assert report.returncode == 1, report.stderr  # r2 and r4 are broken
    return build.stdout, report.stdout


def test_the_build_under_test_is_the_one_asked_for() -> None:
    """CI's run on the compiled wheel says so (IMPORTLINTER_CONTRACTS_TESTED_BUILD), so that
    a run that imported the tree's pure-Python package instead fails."""
    asked = os.environ.get("IMPORTLINTER_CONTRACTS_TESTED_BUILD", "pure Python")
    assert asked == RUNNING


@needs_compiled
@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(f"importlinter_contracts/eager/walk{SUFFIX}", id="a module"),
        pytest.param(f"importlinter_contracts/eager/parsing{SUFFIX}", id="the first one loaded"),
        pytest.param(f"*__mypyc{SUFFIX}", id="their shared library"),
    ],
)
def test_a_compiled_module_that_fails_to_load_falls_back_to_pure_python(
    tmp_path: Path, broken: str
) -> None:
    site = installed_copy(tmp_path)
    as_compiled = check(site, tmp_path)
    assert as_compiled[0] == "compiled\nso\n"
    for path in site.glob(broken):
        path.write_bytes(b"not a shared library")
    build, report = check(site, tmp_path)
    first, loaded = build.splitlines()
    assert first.startswith("pure Python: the compiled modules did not load (")
    assert loaded == "py"
    assert report == as_compiled[1]


def test_an_extension_module_that_fails_to_load_in_the_pure_package_is_not_taken(
    tmp_path: Path,
) -> None:
    """The finder's choice without a compiler: a file with an extension module's name that
    does not load stands beside the first compiled module imported (the others are pure)."""
    site = installed_copy(tmp_path)
    for stale in site.rglob(f"*{SUFFIX}"):
        stale.unlink()
    as_pure = check(site, tmp_path)
    assert as_pure[0] == "pure Python\npy\n"
    (site / f"importlinter_contracts/eager/parsing{SUFFIX}").write_bytes(b"not a shared library")
    build, report = check(site, tmp_path)
    assert build.splitlines()[0].startswith("pure Python: the compiled modules did not load (")
    assert build.splitlines()[1] == "py"
    assert report == as_pure[1]


def test_the_hook_compiles_the_modules_that_the_finder_loads_together() -> None:
    hook = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    mypyc = hook["targets"]["wheel"]["hooks"]["mypyc"]
    assert mypyc["include"] == [
        "/" + module.replace(".", "/") + ".py" for module in compiled.COMPILED_MODULES
    ]
    # Each one's pure-Python file, the fallback.
    assert all((REPO / path.lstrip("/")).is_file() for path in mypyc["include"])


def test_the_compiled_build_is_opt_in() -> None:
    """A plain build (`pip install .`, `pip install -e .`, an sdist's install) needs hatchling
    alone: no C compiler, no mypy (the hook's own dependencies come only when it runs)."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert pyproject["build-system"]["requires"] == ["hatchling>=1.27"]
    mypyc = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["mypyc"]
    assert mypyc["enable-by-default"] is False
    assert mypyc["dependencies"] == ["hatch-mypyc==0.16.0", "mypy==2.4.1"]


@needs_compiled
def test_every_module_the_wheel_compiles_runs_compiled() -> None:
    assert {
        module: (sys.modules[module].__file__ or "").endswith(SUFFIX)
        for module in compiled.COMPILED_MODULES
    } == dict.fromkeys(compiled.COMPILED_MODULES, True)
