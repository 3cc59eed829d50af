"""The report's one shape: the TypedDicts of report.py and the shipped JSON Schema agree, and
real reports of every contract type, kept and broken, validate against the schema."""

from __future__ import annotations

import json
from typing import Any, get_type_hints

import pytest
from jsonschema import Draft202012Validator
from test_builtin_contracts import BUILT_IN_TYPES, CONTRACTS
from test_builtin_contracts import TREE as BUILT_IN_TREE

from helpers import Project, run_cli
from importlinter_contracts import report as schema_types
from importlinter_contracts.report import SCHEMA_FILE, SCHEMA_VERSION

SCHEMA = json.loads(SCHEMA_FILE.read_text())
VALIDATOR = Draft202012Validator(SCHEMA)

# Each TypedDict and the schema definition that states it.
DEFINITIONS = {
    "Location": "Location",
    "Hop": "Hop",
    "CallSite": "CallSite",
    "ImportFinding": "ImportFindingFields",
    "RuntimeFinding": "RuntimeFinding",
    "IgnoredModule": "IgnoredModule",
    "UnexpectedLoad": "UnexpectedLoad",
    "ContractResult": "ContractResult",
    "SmallestCutData": "SmallestCut",
    "DeferredImportData": "DeferredImport",
    "CutCallData": "CutCall",
    "ImportTimeUseData": "ImportTimeUse",
    "FindingKey": "FindingKey",
    "SkippedContract": "SkippedContract",
    "Report": None,  # the schema's root
    "ClosureEntry": "ClosureEntry",
    "ClosureReport": "Closure",
    "ExternalImport": "ExternalImport",
    "RankedChain": "RankedChain",
    "LoadedOutside": "LoadedOutside",
    "Measured": "Measured",
    "WhyReport": "Why",
    "ClosureChange": "ClosureChange",
    "GainedModule": "GainedModule",
}


def _definition(name: str | None) -> dict[str, Any]:
    return SCHEMA if name is None else SCHEMA["$defs"][name]


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["properties"]["schema_version"] == {"const": SCHEMA_VERSION}


@pytest.mark.parametrize("typed_dict", sorted(DEFINITIONS))
def test_typed_dict_and_schema_name_the_same_fields(typed_dict: str) -> None:
    cls = getattr(schema_types, typed_dict)
    definition = _definition(DEFINITIONS[typed_dict])
    assert set(get_type_hints(cls)) == set(definition["properties"])
    assert cls.__required_keys__ == set(definition["required"])


def test_ignored_import_adds_its_entry_and_reason_to_an_import_finding() -> None:
    fields = set(get_type_hints(schema_types.IgnoredImport)) - set(
        get_type_hints(schema_types.ImportFinding)
    )
    definition = SCHEMA["$defs"]["IgnoredImport"]
    assert fields == set(definition["properties"]) == set(definition["required"])


def test_schema_rejects_what_the_types_do_not_allow() -> None:
    location = {"path": "a.py", "line": 3}
    finding = {"importer": "a", "imported": "b", "line_numbers": [3], "locations": [location]}
    contract = {
        "id": "c",
        "name": "C",
        "type": "t",
        "kept": False,
        "warnings": [],
        "violations": [finding],
        "ignored": [],
        "unmatched_ignores": [],
    }
    valid = {
        "schema_version": SCHEMA_VERSION,
        "kept": False,
        "contracts": [contract],
        "skipped": [],
    }
    assert VALIDATOR.is_valid(valid)
    wrong = [
        {**valid, "schema_version": SCHEMA_VERSION + 1},
        {**valid, "contracts": [{**contract, "surprise": 1}]},
        {**valid, "contracts": [{**contract, "violations": [{**finding, "surprise": 1}]}]},
        {
            **valid,
            "contracts": [{**contract, "violations": [{**finding, "locations": ["a.py:3"]}]}],
        },
        {**valid, "contracts": [{**contract, "ignored": [finding]}]},  # no entry, no reason
        {**valid, "contracts": [{**contract, "violations": [{"kind": "nope", "message": "m"}]}]},
        {key: value for key, value in valid.items() if key != "skipped"},
        {**valid, "skipped": [{"id": "r", "name": "R", "type": "runtime_isolation"}]},
        {**valid, "graph_build_ms": -1},
        {**valid, "contracts": [{**contract, "check_ms": 1.5}]},
    ]
    assert [VALIDATOR.is_valid(document) for document in wrong] == [False] * len(wrong)


OWN_TREE = {
    "fakesdk/__init__.py": "",
    "pkg/platforms/__init__.py": "import importlib\ndef detect():\n    importlib.import_module('pkg.platforms.npu.helper')\n    return 'pkg.platforms.cuda.platform.Cuda'\n",
    "pkg/platforms/npu/helper.py": "",
    "pkg/platforms/cuda/platform.py": "from pkg.platforms.cuda import hooks\n",
    "pkg/platforms/cuda/hooks.py": "try:\n    import pkg.models\nexcept ImportError:\n    pass\n",
    "pkg/platforms/npu/platform.py": "",
    "pkg/models.py": "",
    "pkg/neutral.py": "from pkg.platforms.npu import platform\nimport pkg.platforms.cuda.hooks\n",
}

OWN_CONTRACTS = """\
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms
ignore_imports =
    pkg.neutral -> pkg.platforms.cuda.hooks  # known debt
    pkg.gone -> pkg.platforms.npu  # stale

[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.*.platform
follow_modules = pkg.platforms
forbidden_modules = pkg.models

[importlinter:contract:runtime]
name = Runtime
type = runtime_isolation
blocked_modules = fakesdk
probe_modules = pkg.platforms
detector = pkg.platforms:detect
container = pkg.platforms
ignore_loaded_modules =
    pkg.platforms.npu  # loads with its helper
    pkg.platforms.npu.helper  # the detector's
forbidden_loaded_modules = pkg.platforms
"""

KEPT = {
    "pkg/platforms/cuda/hooks.py": "",
    "pkg/neutral.py": "import pkg.platforms.cuda.hooks\n",
}


def _assert_valid(report: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(report)]
    assert errors == []


def write_own_contracts(project: Project, kept: bool) -> None:
    """A tree and a configuration of our three contract types, all kept or all broken."""
    project.write({**OWN_TREE, **(KEPT if kept else {})})
    options = OWN_CONTRACTS
    if kept:
        options = options.replace("    pkg.gone -> pkg.platforms.npu  # stale\n", "")
        options = options.replace("forbidden_loaded_modules = pkg.platforms\n", "")
    project.configure(options)


@pytest.mark.parametrize("kept", [True, False], ids=["kept", "broken"])
def test_reports_of_our_contract_types_validate(project: Project, kept: bool) -> None:
    write_own_contracts(project, kept)
    report = project.report()
    assert [c["kept"] for c in report["contracts"]] == [kept] * 3
    _assert_valid(report)
    runtime = report["contracts"][2]
    assert [ignored["module"] for ignored in runtime["ignored"]] == [
        "pkg.platforms.npu",
        "pkg.platforms.npu.helper",
    ]
    assert [load["module"] for load in runtime["loaded_outside_eager_closure"]] == [
        "pkg.platforms.npu",
        "pkg.platforms.npu.helper",
    ]
    if not kept:
        assert {c["id"]: bool(c["violations"]) for c in report["contracts"]} == {
            "r2": True,
            "r4": True,
            "runtime": True,
        }
        # The broken eager contract says what to defer (pkg.platforms.cuda.hooks l.2).
        assert [
            (s["importer"], s["line"]) for s in report["contracts"][1]["smallest_cut"]["statements"]
        ] == [("pkg.platforms.cuda.hooks", 2)]
    else:
        assert "smallest_cut" not in report["contracts"][1]


@pytest.mark.parametrize("contract_type", sorted(CONTRACTS))
def test_reports_of_built_in_contract_types_validate(project: Project, contract_type: str) -> None:
    if contract_type not in BUILT_IN_TYPES:
        pytest.skip(f"this import-linter has no {contract_type} contract type")
    project.write(BUILT_IN_TREE)
    project.configure(
        f"[importlinter:contract:b]\nname = B\ntype = {contract_type}\n" + CONTRACTS[contract_type]
    )
    report = project.report()
    assert report["kept"] is False
    _assert_valid(report)


def test_static_run_with_timings_validates(project: Project) -> None:
    project.write(OWN_TREE)
    project.configure(OWN_CONTRACTS)
    report = project.report("--static", "--show-timings")
    _assert_valid(report)
    assert [c["id"] for c in report["contracts"]] == ["r2", "r4"]
    assert report["skipped"] == [
        {
            "id": "runtime",
            "name": "Runtime",
            "type": "runtime_isolation",
            "reason": "runs the code it checks, which --static skips",
        }
    ]
    assert report["graph_build_ms"] >= 0
    assert all(c["check_ms"] >= 0 for c in report["contracts"])


@pytest.mark.parametrize(
    ("command", "definition"),
    [
        (["closure", "pkg.source"], "Closure"),
        (["why", "pkg.source", "pkg.heavy.a"], "Why"),
        # (Its walk, from pkg.heavy.a, reads no dynamic import: no warning.)
        (["why", "pkg.heavy.a", "pkg.source"], "Why"),
    ],
    ids=["closure", "why", "why without a chain"],
)
def test_closure_and_why_json_validate(
    project: Project, command: list[str], definition: str
) -> None:
    project.write(
        {
            "pkg/source.py": (
                "import importlib\nimport pkg.heavy\n"
                "importlib.import_module('pkg.heavy.A'.lower())\n"
                "def load():\n    import pkg.heavy.a\n"
            ),
            "pkg/heavy/a.py": "",
        }
    )
    project.configure("")
    result = run_cli(*command, "--no-cache", "--format", "json")
    data = json.loads(result.stdout)
    assert len(data["warnings"]) == (command[1] == "pkg.source")
    validator = Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{definition}"})
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
    assert errors == []
