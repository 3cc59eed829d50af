"""The package lints its own architecture with `pyproject.toml`'s `[tool.importlinter]`, as
`.ci/run` does: kept on the package as it is; each contract broken by an import it forbids,
added to a copy of the package under another name (only read, never imported, so the contract
types that check it are the real ones); and what the eager-imports contract says registering
the contract types loads, compared with what a fresh interpreter loads."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomlkit

import importlinter_contracts
from helpers import CONTRACT_TYPES, REPO, run

pytestmark = pytest.mark.matrix

CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {contract["id"]: contract for contract in CONFIG["contracts"]}
REGISTERING = "registering-loads-no-commands"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
# The copy's name: a package that no module on sys.path stands in for.
COPY = "copied_contracts"


def lint_imports(folder: Path) -> subprocess.CompletedProcess[str]:
    """Return how `.ci/run`'s `lint-imports` ran in `folder` (with no cache, so that nothing is
    written there), on lines wide enough that no contract's name wraps."""
    return run(
        [str(LINT_IMPORTS), "--config", "pyproject.toml", "--no-logo", "--no-cache"],
        cwd=folder,
        COLUMNS="200",
    )


def verdicts(output: str) -> dict[str, str]:
    """Return each contract's verdict in lint-imports' summary (KEPT or BROKEN), by id."""
    lines = output.splitlines()
    found = {}
    for contract_id, contract in CONTRACTS.items():
        [line] = [line for line in lines if line.startswith(contract["name"] + " ")]
        found[contract_id] = line.removeprefix(contract["name"] + " ").split()[0]
    return found


def test_the_package_keeps_its_own_contracts() -> None:
    linted = lint_imports(REPO)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert verdicts(linted.stdout) == dict.fromkeys(CONTRACTS, "KEPT")
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in linted.stdout


def test_the_eager_contract_starts_from_every_contract_types_module() -> None:
    # What lint-imports imports to register `contract_types` (the package's attributes).
    registered = {
        f"importlinter_contracts.{module}"
        for module in importlinter_contracts._CONTRACT_MODULES.values()
    }
    assert set(CONTRACTS[REGISTERING]["source_modules"]) == registered
    assert set(CONTRACTS[REGISTERING]["follow_modules"]) == {"importlinter_contracts"}


def test_registering_the_contract_types_loads_no_forbidden_module(tmp_path: Path) -> None:
    # The interpreter's answer, in a fresh process, as lint-imports registers them.
    code = (
        "import json, sys\n"
        "import importlinter_contracts as package\n"
        "package.BackendIsolationContract, package.EagerImportContract\n"
        "package.RuntimeIsolationContract\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    ran = run([sys.executable, "-c", code], cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    loaded = json.loads(ran.stdout)
    forbidden = CONTRACTS[REGISTERING]["forbidden_modules"]
    assert [
        module
        for module in loaded
        if any(module == name or module.startswith(name + ".") for name in forbidden)
    ] == []
    # It did register them (so that the check above can fail).
    assert set(CONTRACTS[REGISTERING]["source_modules"]) <= set(loaded)


# A tree whose contracts lint-imports checks with the package's three kinds of check: R2's,
# and R4's walk with an import its allowlist excuses (so that a kept run asks whether a report
# wants the smallest cut).
WARM_TREE = {
    "pkg/platforms/cuda/platform.py": "from pkg.models import base\n",
    "pkg/platforms/npu/platform.py": "import pkg.models.base\n",
    "pkg/models/base.py": "import pkg.heavy\n\ndef helper():\n    import pkg.models.lazy\n",
    "pkg/models/lazy.py": "",
    "pkg/heavy.py": "",
}
# (Every contract type registered, the runtime one too: registering it loads nothing more.)
WARM_CONFIGURATION = (
    "[importlinter]\nroot_package = pkg\n"
    + CONTRACT_TYPES
    + """
[importlinter:contract:r2]
name = Backends are private
type = backend_isolation
container = pkg.platforms

[importlinter:contract:r4]
name = Eager imports
type = eager_imports
source_modules = pkg.platforms.cuda.platform
follow_modules = pkg
forbidden_modules = pkg.heavy
ignore_imports =
    pkg.models.base -> pkg.heavy
"""
)
# lint-imports, in a fresh process that prints the modules it loaded (on its last line).
LINT_AND_LIST_MODULES = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: print(json.dumps(sorted(sys.modules))))\n"
    "from importlinter.cli import lint_imports_command\n"
    "sys.argv = ['lint-imports', '--no-logo', '--verbose', '--cache-dir', 'cache']\n"
    "lint_imports_command()\n"
)


def test_a_run_whose_walks_are_all_kept_loads_no_forbidden_module(tmp_path: Path) -> None:
    """What the registering contract forbids stays unloaded in a whole run whose walks the
    cache keeps (the walk and the readers: nothing is read), as the interpreter says."""
    for relative, source in WARM_TREE.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        for parent in path.relative_to(tmp_path).parents:
            (tmp_path / parent / "__init__.py").touch()
    (tmp_path / ".importlinter").write_text(WARM_CONFIGURATION)
    forbidden = CONTRACTS[REGISTERING]["forbidden_modules"]
    runs = []
    for _ in range(2):
        ran = run([sys.executable, "-c", LINT_AND_LIST_MODULES], tmp_path, COLUMNS="200")
        assert ran.returncode == 0, ran.stdout + ran.stderr
        loaded = json.loads(ran.stdout.splitlines()[-1])
        runs.append(
            (
                ran.stdout,
                [
                    module
                    for module in loaded
                    if any(module == name or module.startswith(name + ".") for name in forbidden)
                ],
            )
        )
    (cold, cold_loaded), (warm, warm_loaded) = runs
    # The first run walks (so that the check below can fail), the second reuses what it found.
    assert "Followed eager imports from 1 source modules." in cold
    assert "importlinter_contracts.eager.walk" in cold_loaded
    assert "as the cache keeps them (no file they run has changed since)." in warm
    assert "Contracts: 2 kept, 0 broken." in warm
    assert warm_loaded == []


def renamed(value: Any) -> Any:
    """Return a configuration value with the package's modules named as in the copy (the
    contract types, `contract_types`, stay the package's)."""
    if isinstance(value, str):
        head, dot, rest = value.partition(".")
        return COPY + dot + rest if head == "importlinter_contracts" else value
    if isinstance(value, list):
        return [renamed(item) for item in value]
    if isinstance(value, dict):
        return {key: renamed(item) for key, item in value.items()}
    return value


def copy_of_the_package(folder: Path) -> Path:
    """Return `folder`, now holding the package as `COPY` and a pyproject.toml with the
    package's `[tool.importlinter]` for it."""
    shutil.copytree(
        REPO / "importlinter_contracts",
        folder / COPY,
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    for path in (folder / COPY).rglob("*.py"):
        path.write_text(path.read_text().replace("importlinter_contracts", COPY))
    (folder / "pyproject.toml").write_text(
        tomlkit.dumps({"tool": {"importlinter": renamed(CONFIG)}})
    )
    return folder


def _eager_layers_case() -> tuple[str, str, str, set[str], str]:
    """The lowest module of eager/'s layers imports the highest: that breaks the layers, and
    since the highest imports the lowest (through the others), the acyclic contract too."""
    layers = CONTRACTS["eager-layers"]["layers"]
    lowest = layers[-1].replace("|", ":").split(":")[0].strip()
    highest = layers[0].replace("|", ":").split(":")[0].strip()
    return (
        "eager-layers",
        f"eager/{lowest}.py",
        f"from . import {highest}\n",
        {"eager-layers", "acyclic"},
        f"{COPY}.eager.{lowest} -> {COPY}.eager.{highest}",
    )


# (what the import shows, the file it is appended to, the import, the contracts it breaks, a
# line of lint-imports' report that names it)
CASES = [
    (
        "layers",
        "allowlist_sync.py",
        "from .outputs import graphs\n",
        {"layers"},
        f"{COPY}.allowlist_sync -> {COPY}.outputs.graphs",
    ),
    _eager_layers_case(),
    (
        "acyclic",
        "errors.py",
        "from . import files\n",
        {"acyclic"},
        f"No cycles are allowed in {COPY}.",
    ),
    (
        "registering-tomlkit",
        "allowlist/entries.py",
        "import tomlkit\n",
        {REGISTERING},
        f"{COPY}.allowlist.entries -> tomlkit (l.",
    ),
    (
        "registering-jsonschema",
        "modules.py",
        "import jsonschema\n",
        {REGISTERING},
        f"{COPY}.modules -> jsonschema (l.",
    ),
    (
        "registering-a-command",
        "runtime/contract.py",
        "from .. import explore\n",
        {"layers", REGISTERING},
        f"{COPY}.runtime.contract -> {COPY}.explore (l.",
    ),
    # Imported only when a function is called: registering does not load it.
    (
        "kept-deferred",
        "allowlist/entries.py",
        "\n\ndef _validate():\n    import jsonschema\n",
        set(),
        "",
    ),
]


@pytest.mark.parametrize(
    ("path", "added", "broken", "shown"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_an_import_that_a_contract_forbids_breaks_it(
    tmp_path: Path, path: str, added: str, broken: set[str], shown: str
) -> None:
    folder = copy_of_the_package(tmp_path)
    with (folder / COPY / path).open("a") as module:
        module.write("\n" + added)
    linted = lint_imports(folder)
    assert linted.returncode == (1 if broken else 0), linted.stdout + linted.stderr
    assert verdicts(linted.stdout) == {
        contract_id: "BROKEN" if contract_id in broken else "KEPT" for contract_id in CONTRACTS
    }
    assert shown in linted.stdout


# The kinds of compound statement whose clauses `eager.conditions.clauses` gives: only that
# module names them, so a new kind is taught in one place (docs/contributing.md).
COMPOUND = {"Try", "TryStar", "With", "AsyncWith", "Match", "match_case"}


def _names_of_ast(path: Path) -> set[str]:
    return {
        node.attr
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ast"
    }


def test_only_the_conditions_module_names_the_kinds_of_compound_statement() -> None:
    package = Path(importlinter_contracts.__file__).parent
    naming = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if COMPOUND & _names_of_ast(path)
    }
    assert naming == {"eager/conditions.py"}
