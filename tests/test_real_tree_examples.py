"""The configurations in examples/ on the releases they are written for (vllm 0.33.0, lmdeploy
0.18.0, downloaded into the cache once): kept, and every finding the same as the independent
walk's."""

from __future__ import annotations

import configparser
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ast_walk as oracle
from helpers import REPO, Project, run_cli, shipped_entries
from other_trees import tree

pytestmark = pytest.mark.real_tree

VLLM = REPO / "examples" / "vllm.importlinter"
LMDEPLOY = REPO / "examples" / "lmdeploy.importlinter"
VLLM_UNSEEN = (
    "13 folders below the root packages hold .py files but no __init__.py, so the import graph "
    "leaves out the 77 modules in them: no import into, out of or within them is checked."
)


def check(project: Project, config: Path, *args: str) -> dict[str, dict[str, Any]]:
    """Each contract's part of the JSON report for `config`, by id."""
    report = project.report("--config", str(config), *args)
    return {contract["id"]: contract for contract in report["contracts"]}


@pytest.fixture(scope="module")
def vllm_tree() -> Path:
    return tree("vllm")


@pytest.fixture(scope="module")
def lmdeploy_tree() -> Path:
    return tree("lmdeploy")


def _on(release: Path, tmp_path: Path) -> Iterator[Project]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        patch.syspath_prepend(str(release))
        yield Project(tmp_path)


@pytest.fixture
def on_vllm(vllm_tree: Path, tmp_path: Path) -> Iterator[Project]:
    yield from _on(vllm_tree, tmp_path)


@pytest.fixture
def on_lmdeploy(lmdeploy_tree: Path, tmp_path: Path) -> Iterator[Project]:
    yield from _on(lmdeploy_tree, tmp_path)


def findings(contract: dict[str, Any]) -> set[tuple[str, str, int]]:
    """(importer, imported, line) of everything a contract found, allowlisted or not."""
    return {
        (finding["importer"], finding["imported"], line)
        for finding in contract["violations"] + contract["ignored"]
        for line in finding["line_numbers"]
    }


def pairs(found: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(finding["importer"], finding["imported"]) for finding in found}


def without_allowlist(config: Path, contract_id: str, folder: Path) -> Path:
    """A copy of `config` whose contract `contract_id` has no allowlist."""
    parser = configparser.ConfigParser()
    parser.read(config)
    del parser[f"importlinter:contract:{contract_id}"]["ignore_imports"]
    copy = folder / config.name
    with copy.open("w") as handle:
        parser.write(handle)
    return copy


def modules_matching(release: Path, top: str, pattern: str) -> list[str]:
    return sorted(m for m in oracle.modules_of(release, top) if re.fullmatch(pattern, m))


def test_vllm_example_is_kept_with_every_entry_used(on_vllm: Project) -> None:
    contracts = check(on_vllm, VLLM)
    assert {id_: (c["kept"], c["unmatched_ignores"]) for id_, c in contracts.items()} == {
        "platforms-private": (True, []),
        "platforms-load-no-bodies": (True, []),
    }
    r2, r4 = contracts["platforms-private"], contracts["platforms-load-no-bodies"]
    assert r2["backends"] == ["cpu", "cuda", "rocm", "tpu", "xpu", "zen_cpu"]
    assert (len(r2["ignored"]), len(findings(r2)), len(r4["ignored"])) == (76, 121, 2)
    # The run's first static contract warns about what the graph leaves out, once.
    (warning,) = r2["warnings"]
    assert warning.startswith(VLLM_UNSEEN)
    assert r4["warnings"] == []
    assert on_vllm.lint_imports("--config", str(VLLM)).exit_code == 0


def test_vllm_platform_imports_equal_the_ast_walk(on_vllm: Project, vllm_tree: Path) -> None:
    r2 = check(on_vllm, VLLM, "--contract", "platforms-private")["platforms-private"]
    expected = oracle.backend_imports(
        vllm_tree, "vllm.platforms", backends="*", neutral=frozenset({"interface"})
    )
    assert findings(r2) == expected
    assert pairs(r2["ignored"]) == shipped_entries("platforms-private", VLLM)


def test_vllm_eager_findings_equal_the_ast_walk(
    on_vllm: Project, vllm_tree: Path, tmp_path: Path
) -> None:
    sources = modules_matching(vllm_tree, "vllm", r"vllm\.platforms\.[^.]+")
    entries = frozenset(shipped_entries("platforms-load-no-bodies", VLLM))
    walk = {
        "sources": set(sources),
        "follow": "vllm",
        "forbidden": {
            "vllm.v1.attention.backends",
            "vllm.model_executor.models",
            "vllm.model_executor.layers",
            "vllm.models",
        },
        "allowed": {
            "vllm.v1.attention.backends.registry",
            "vllm.v1.attention.backends.mla.prefill.registry",
        },
    }
    r4 = check(on_vllm, VLLM, "--contract", "platforms-load-no-bodies")["platforms-load-no-bodies"]
    assert r4["sources"] == sources
    assert oracle.eager_violations(vllm_tree, **walk, excused=entries) == (set(), entries)
    assert pairs(r4["ignored"]) == entries and r4["violations"] == []
    # Without its allowlist: the imports the entries excuse, reached through the allowed prefill
    # registry's parent package, which is not itself reported.
    bare = without_allowlist(VLLM, "platforms-load-no-bodies", tmp_path)
    r4 = check(on_vllm, bare, "--contract", "platforms-load-no-bodies")["platforms-load-no-bodies"]
    violations, _ = oracle.eager_violations(vllm_tree, **walk)
    assert pairs(r4["violations"]) == violations == entries
    for violation in r4["violations"]:
        assert [hop["why"] for hop in violation["chain"]] == [
            ["module level"],
            ["its parent package runs first"],
            ["module level"],
        ]
        assert violation["sources"] == ["vllm.platforms.cpu", "vllm.platforms.zen_cpu"]


def test_vllm_detected_platform_is_a_conditional_hop_of_a_module_reading_current_platform(
    on_vllm: Project,
) -> None:
    # Importing vllm.platforms resolves nothing (`current_platform` is its module
    # `__getattr__`'s); a module that does `from vllm.platforms import current_platform` at
    # import time runs it: the detectors' qualified names, through resolve_obj_by_qualname.
    def closure(module: str) -> dict[str, Any]:
        result = run_cli("closure", module, str(VLLM), "--format", "json", "--no-cache")
        assert result.exit_code == 0, result.output
        found: dict[str, Any] = json.loads(result.stdout)
        return found

    assert "vllm.platforms.cpu" not in closure("vllm.platforms")["modules"]
    found = closure("vllm.v1.attention.ops.flashmla")
    modules = found["modules"]
    platforms = {"cpu", "cuda", "rocm", "tpu", "xpu", "zen_cpu"}
    assert all(modules[f"vllm.platforms.{name}"]["conditional"] for name in platforms)
    hop = modules["vllm.platforms.cpu"]["hop"]
    assert (hop["importer"], hop["line_numbers"], hop["why"]) == (
        "vllm.utils.import_utils",
        [122],
        [
            "importlib.import_module at l.122, inside def resolve_obj_by_qualname, called by def "
            "__getattr__('current_platform') at l.318 of vllm.platforms, called at import time "
            "at l.8 of vllm.v1.attention.ops.flashmla"
        ],
    )
    (tests,) = hop["conditions"]
    assert [(c["line"], c["shown"]) for c in tests] == [
        (316, "_current_platform is None"),
        (244, 'envs.VLLM_TARGET_DEVICE == "cpu"'),
        (202, "is_cpu"),
    ]
    # Out-of-tree platform plugins are names no text spells out: still a warning.
    assert found["warnings"] == [
        "vllm/utils/import_utils.py:122: importlib.import_module runs at import time with a "
        "module name computed at run time: the modules it imports are not seen."
    ]


def test_lmdeploy_example_is_kept_with_every_entry_used(on_lmdeploy: Project) -> None:
    contracts = check(on_lmdeploy, LMDEPLOY)
    assert {
        id_: (c["kept"], c["unmatched_ignores"], c["warnings"], len(c["ignored"]))
        for id_, c in contracts.items()
    } == {
        "op-backends-private": (True, [], [], 9),
        "dlinfer-vendors-private": (True, [], [], 3),
        "device-kernels-private": (True, [], [], 77),
        "op-backends-load-no-bodies": (True, [], [], 3),
    }
    assert contracts["op-backends-private"]["backends"] == ["cuda", "dlinfer"]
    assert contracts["dlinfer-vendors-private"]["backends"] == ["ascend", "camb", "maca"]
    assert contracts["device-kernels-private"]["backends"] == ["cuda", "dlinfer"]
    assert on_lmdeploy.lint_imports("--config", str(LMDEPLOY)).exit_code == 0


@pytest.mark.parametrize(
    ("contract_id", "container", "options"),
    [
        (
            "op-backends-private",
            "lmdeploy.pytorch.backends",
            {"marker": "op_backend", "neutral": frozenset({"default"})},
        ),
        ("dlinfer-vendors-private", "lmdeploy.pytorch.backends.dlinfer", {"marker": "op_backend"}),
        ("device-kernels-private", "lmdeploy.pytorch.kernels", {"backends": {"cuda", "dlinfer"}}),
    ],
)
def test_lmdeploy_backend_imports_equal_the_ast_walk(
    on_lmdeploy: Project,
    lmdeploy_tree: Path,
    contract_id: str,
    container: str,
    options: dict[str, Any],
) -> None:
    contract = check(on_lmdeploy, LMDEPLOY, "--contract", contract_id)[contract_id]
    expected = oracle.backend_imports(lmdeploy_tree, container, **options)
    assert expected, "the oracle found nothing: the comparison would prove nothing"
    assert findings(contract) == expected


def test_lmdeploy_eager_findings_equal_the_ast_walk(
    on_lmdeploy: Project, lmdeploy_tree: Path, tmp_path: Path
) -> None:
    contract_id = "op-backends-load-no-bodies"
    sources = modules_matching(
        lmdeploy_tree,
        "lmdeploy",
        r"lmdeploy\.pytorch\.backends\.([^.]+|dlinfer\.[^.]+)\.op_backend",
    )
    entries = frozenset(shipped_entries(contract_id, LMDEPLOY))
    walk = {
        "sources": set(sources),
        "follow": "lmdeploy",
        "forbidden": {
            "lmdeploy.pytorch.kernels",
            "lmdeploy.pytorch.models",
            "lmdeploy.pytorch.nn",
            "lmdeploy.pytorch.engine",
            "lmdeploy.turbomind",
        },
        "allowed": set(),
    }
    contract = check(on_lmdeploy, LMDEPLOY, "--contract", contract_id)[contract_id]
    assert contract["sources"] == sources and len(sources) == 6
    assert oracle.eager_violations(lmdeploy_tree, **walk, excused=entries) == (set(), entries)
    assert pairs(contract["ignored"]) == entries
    bare = without_allowlist(LMDEPLOY, contract_id, tmp_path)
    contract = check(on_lmdeploy, bare, "--contract", contract_id)[contract_id]
    violations, _ = oracle.eager_violations(lmdeploy_tree, **walk)
    assert pairs(contract["violations"]) == violations == entries
    assert {tuple(v["sources"]) for v in contract["violations"]} == {
        ("lmdeploy.pytorch.backends.dlinfer.ascend.op_backend",)
    }


def _other_trees(*args: str, cwd: Path, pythonpath: str = "") -> subprocess.CompletedProcess[str]:
    """`python tools/other_trees.py ARGS`, run as a user would."""
    return subprocess.run(
        [sys.executable, str(REPO / "tools" / "other_trees.py"), *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": pythonpath},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("name", ["vllm", "lmdeploy"])
def test_one_command_lints_each_example_on_its_release(name: str, tmp_path: Path) -> None:
    result = _other_trees("lint", name, "--no-logo", "--no-cache", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken." in result.stdout
    release = f"{name} {'0.33.0' if name == 'vllm' else '0.18.0'}"
    assert f"other_trees.py: linting {release} in " in result.stderr


def test_a_release_without_an_example_is_not_linted(tmp_path: Path) -> None:
    result = _other_trees("lint", "diffusers", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "other_trees.py: diffusers has no configuration in examples/: `path diffusers` prints "
        "its folder, to lint it with a configuration of yours.\n"
    )


def test_another_lmdeploy_on_pythonpath_is_refused(tmp_path: Path) -> None:
    (tmp_path / "lmdeploy").mkdir()
    (tmp_path / "lmdeploy" / "__init__.py").write_text("")
    result = _other_trees("lint", "lmdeploy", cwd=tmp_path, pythonpath=str(tmp_path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.endswith(
        f"other_trees.py: PYTHONPATH provides a lmdeploy ({tmp_path}/lmdeploy) other than the "
        f"one to lint ({tree('lmdeploy')}/lmdeploy): remove it from PYTHONPATH, or lint that "
        "one with its own configuration.\n"
    )
