"""Built-in contracts in our outputs: for each built-in type that the installed import-linter
has, broken on a synthetic package, the JSON report and the GitHub annotations carry every
importer, imported and line number that lint-imports itself prints."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from importlinter import output
from importlinter.application.rendering import render_report
from importlinter.application.use_cases import _get_built_in_contract_types

from helpers import Project
from importlinter_contracts.outputs.github import github_annotations
from importlinter_contracts.running import run_contracts

pytestmark = pytest.mark.matrix

BUILT_IN_TYPES = {name for name, _ in _get_built_in_contract_types()}

# high.blue imports low.green directly and by way of utils.red; high.yellow reaches utils.red
# too (an extra first), and utils.red also imports low.other (an extra last).
TREE = {
    "pkg/high/blue.py": "import os\nimport pkg.low.green\nfrom pkg.utils import red\n",
    "pkg/high/yellow.py": "\n\nfrom pkg.utils import red\n",
    "pkg/utils/red.py": "import pkg.low.green\nimport pkg.low.other\nimport pkg.low._secret\n",
    "pkg/low/green.py": "",
    "pkg/low/other.py": "",
    "pkg/low/_secret.py": "",
    "pkg/cycle/a.py": "from pkg.cycle import b\n",
    "pkg/cycle/b.py": "\nfrom pkg.cycle import a\n",
}

CONTRACTS = {
    "forbidden": "source_modules = pkg.high\nforbidden_modules = pkg.low\n",
    # Listed from the top: pkg.high is the lower layer, and may not import pkg.low.
    "layers": "layers =\n    pkg.low\n    pkg.high\n",
    "independence": "modules =\n    pkg.high\n    pkg.low\n",
    "protected": "protected_modules = pkg.low\nallowed_importers = pkg.cycle\n",
    "acyclic_siblings": "ancestors = pkg.cycle\n",
    "private_modules": "",
}


def _configure(project: Project, contract_type: str) -> None:
    project.configure(
        f"[importlinter:contract:builtin]\nname = Built-in\ntype = {contract_type}\n"
        + CONTRACTS[contract_type]
    )


def _printed_imports(output: str) -> set[tuple[str, int]]:
    """Each (module, line) that lint-imports prints on one import line."""
    pairs = set()
    for text in output.splitlines():
        lines = [int(n) for n in re.findall(r"l\.(\d+)", text)]
        modules = re.findall(r"\bpkg(?:\.\w+)+", text)
        pairs |= {(module, line) for module in modules for line in lines}
    return pairs


def _reported_imports(violations: list[dict[str, Any]]) -> set[tuple[str, int]]:
    pairs = set()
    for violation in violations:
        hops = [
            *(violation.get("chain") or [violation]),
            *violation.get("extra_firsts", []),
            *violation.get("extra_lasts", []),
        ]
        for hop in hops:
            pairs |= {
                (module, line)
                for module in (hop["importer"], hop["imported"])
                for line in hop["line_numbers"]
            }
    return pairs


@pytest.mark.parametrize("contract_type", sorted(CONTRACTS))
def test_broken_built_in_contract_reports_every_import_lint_imports_prints(
    project: Project, contract_type: str
) -> None:
    if contract_type not in BUILT_IN_TYPES:
        pytest.skip(f"this import-linter has no {contract_type} contract type")
    project.write(TREE)
    _configure(project, contract_type)
    # One run, printed as lint-imports prints it and reported: import-linter chooses among
    # equally short chains differently from one run to the next.
    result = run_contracts(cache_dir=None)
    with output.console.capture() as captured:
        render_report(result.report)
    printed = captured.get()
    assert "Contracts: 0 kept, 1 broken." in printed, printed
    report = result.as_data()
    (contract,) = report["contracts"]
    assert contract["kept"] is False
    violations = contract["violations"]
    assert violations, contract

    if contract_type == "acyclic_siblings":
        # lint-imports prints `.a -> .b (1 import)` per pair of siblings, and no lines.
        assert re.findall(r"- \.(\w+) -> \.(\w+) \((\d+) imports?\)", printed) == [
            (
                v["importer"].rpartition(".")[2],
                v["imported"].rpartition(".")[2],
                str(v["import_count"]),
            )
            for v in violations
        ]
        assert all(v["locations"][0]["path"].startswith("pkg/cycle/") for v in violations)
        return

    printed_pairs = _printed_imports(printed)
    assert printed_pairs, printed
    assert printed_pairs <= _reported_imports(violations)
    # Every import that lint-imports prints has its location, and its line in the report.
    for violation in violations:
        for hop in violation.get("chain") or [violation]:
            assert [where["line"] for where in hop["locations"]] == hop["line_numbers"]

    annotations = github_annotations(report, Path(".importlinter"), Path.cwd())
    assert len(annotations) == len(violations)
    for module, line in printed_pairs:
        assert any(module in a and f"l.{line}" in a for a in annotations), (module, line)
    assert all(
        re.match(r"::error file=pkg/[\w/]+\.py,line=\d+,title=Built-in \(builtin\)::", a)
        for a in annotations
    ), annotations


def test_layers_violations_keep_their_line_numbers(project: Project) -> None:
    """The bug that started this: a layers contract's routes lost their lines."""
    project.write(TREE)
    _configure(project, "layers")
    (contract,) = project.report()["contracts"]
    direct = [v for v in contract["violations"] if "chain" not in v]
    assert {(v["importer"], v["imported"], tuple(v["line_numbers"])) for v in direct} >= {
        ("pkg.high.blue", "pkg.low.green", (2,))
    }
    chained = [v for v in contract["violations"] if "chain" in v]
    assert [
        [(hop["importer"], hop["imported"], hop["line_numbers"]) for hop in v["chain"]]
        for v in chained
    ] == [
        [("pkg.high.blue", "pkg.utils.red", [3]), ("pkg.utils.red", "pkg.low._secret", [3])],
    ]
    (chain,) = chained
    assert [(h["importer"], h["line_numbers"]) for h in chain["extra_firsts"]] == [
        ("pkg.high.yellow", [3])
    ]
    assert [(h["imported"], h["line_numbers"]) for h in chain["extra_lasts"]] == [
        ("pkg.low.green", [1]),
        ("pkg.low.other", [2]),
    ]
