"""`closure MODULE` and `why IMPORTER IMPORTED` on the command line, as text, JSON, DOT (rendered
with Graphviz's real `dot` where it is installed) and Mermaid; and the two pictures of
in-memory hops."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest
from test_explore import TREE

from helpers import Project, calls_unread_warning, run_cli
from importlinter_contracts import explore
from importlinter_contracts.outputs import graphs
from importlinter_contracts.report import CallSite, Hop

pytestmark = pytest.mark.matrix

DOT = shutil.which("dot")


# pkg/util.py has a `lazy import`: analysed for Python 3.15, whose syntax it is.
LAZY_TARGET = "python_version = 3.15\n"


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n",
        session=LAZY_TARGET,
    )
    return project


def chain_in(data: dict[str, Any], module: str) -> list[dict[str, Any]]:
    """A module's chain of hops, from `closure --format json`: its hop, after the chain of the
    module it is reached from, back to the module imported."""
    hops = []
    entry = data["modules"][module]
    while entry["hop"] is not None:
        hops.append(entry["hop"])
        entry = data["modules"][entry["reached_from"]]
    assert entry["reached_from"] is None
    return hops[::-1]


def chains_of(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each module's chain of hops (`chain_in`)."""
    assert data["modules"][data["module"]] == {"reached_from": None, "hop": None}
    return {module: chain_in(data, module) for module in data["modules"]}


def test_closure_json_maps_each_module_to_the_hop_that_reaches_it(tree: Project) -> None:
    result = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    with calls_unread_warning():
        expected = explore.load(cache_dir=None).eager_closure("pkg.platforms.cuda.platform")
    assert data["module"] == "pkg.platforms.cuda.platform"
    assert chains_of(data) == {module: expected[module].as_data() for module in expected}
    assert data["modules"]["pkg.util"] == {
        "reached_from": "pkg.platforms.cuda.hooks",
        "hop": {
            "importer": "pkg.platforms.cuda.hooks",
            "imported": "pkg.util",
            "line_numbers": [2],
            "why": ["module-level try"],
            "locations": [{"path": "pkg/platforms/cuda/hooks.py", "line": 2}],
            "eager": [True],
        },
    }
    assert chains_of(data)["pkg.util"] == [
        {
            "importer": "pkg.platforms.cuda.platform",
            "imported": "pkg.platforms.cuda.hooks",
            "line_numbers": [1],
            "why": ["module level"],
            "locations": [{"path": "pkg/platforms/cuda/platform.py", "line": 1}],
            "eager": [True],
        },
        data["modules"]["pkg.util"]["hop"],
    ]


def test_closure_text_is_what_the_repl_shows(tree: Project) -> None:
    result = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform")
    with calls_unread_warning():
        expected = explore.load(cache_dir=None).eager_closure("pkg.platforms.cuda.platform")
    assert result.stdout == repr(expected) + "\n"
    # pkg/util.py holds a `lazy import`, which this Python's ast cannot read.
    if sys.version_info < (3, 15):
        assert result.stderr == (
            "importlinter-contracts: warning: pkg/util.py: calls at import time are not "
            "followed in this file, which ast cannot read here (line 1: invalid syntax): "
            "imports that such calls would run are not seen.\n"
        )


def test_a_configuration_file_may_follow_the_module(tree: Project) -> None:
    (tree.root / ".importlinter").rename(tree.root / "other.ini")
    result = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform", "other.ini")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("importing pkg.platforms.cuda.platform runs 7 modules:")


def test_why_json_gives_the_shortest_chain_and_the_shortest_eager_one(tree: Project) -> None:
    result = run_cli(
        "why", "--no-cache", "pkg.platforms.cuda.platform", "pkg.models.big", "--format", "json"
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    (hop,) = data["shortest"]
    assert (hop["line_numbers"], hop["eager"], hop["why"]) == (
        [4],
        [False],
        ["inside def load"],
    )
    assert data["shortest_eager"] is None  # lazy import and a function: nothing eager


def test_why_json_gives_the_shortest_eager_chain_when_it_is_another(project: Project) -> None:
    project.write({**TREE, "pkg/platforms/cuda/hooks.py": "import pkg.models.big\n"})
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n",
        session=LAZY_TARGET,
    )
    result = run_cli(
        "why", "--no-cache", "pkg.platforms.cuda.platform", "pkg.models.big", "--format", "json"
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [(h["imported"], h["eager"]) for h in data["shortest"]] == [("pkg.models.big", [False])]
    assert [
        (h["importer"], h["imported"], h["line_numbers"], h["eager"])
        for h in data["shortest_eager"]
    ] == [
        ("pkg.platforms.cuda.platform", "pkg.platforms.cuda.hooks", [1], [True]),
        ("pkg.platforms.cuda.hooks", "pkg.models.big", [1], [True]),
    ]
    # The graph's hops and the walk's give their keys in one order, the report's.
    assert {tuple(hop) for hop in data["shortest"] + data["shortest_eager"]} == {
        ("importer", "imported", "line_numbers", "why", "locations", "eager")
    }


def test_why_without_a_chain_exits_1(tree: Project) -> None:
    result = run_cli("why", "--no-cache", "pkg.config", "pkg.util", "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "importer": "pkg.config",
        "imported": "pkg.util",
        "shortest": None,
        "shortest_eager": None,
        "warnings": [],
    }


def test_unknown_module_is_a_one_line_error(tree: Project) -> None:
    result = run_cli("closure", "--no-cache", "pkg.nope")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "importlinter-contracts: pkg.nope is not a module of the graph.\n"


def test_mermaid_is_a_flowchart_with_one_node_per_module(tree: Project) -> None:
    result = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform", "--format", "mermaid")
    lines = result.stdout.splitlines()
    assert lines[:4] == ["---", "title: importing pkg.platforms.cuda.platform", "---", "graph LR"]
    nodes = dict(re.findall(r'^  (m\d+)\["([\w.]+)"\]$', result.stdout, re.M))
    edges = re.findall(r'^  (m\d+) (-->|-\.->)\|"([^"]+)"\| (m\d+)$', result.stdout, re.M)
    with calls_unread_warning():
        expected = explore.load(cache_dir=None).eager_closure("pkg.platforms.cuda.platform")
    assert sorted(nodes.values()) == list(expected)
    named = {(nodes[a], arrow, label, nodes[b]) for a, arrow, label, b in edges}
    assert ("pkg.platforms.cuda.hooks", "-->", "l.2", "pkg.util") in named
    assert ("pkg.platforms.cuda", "-.->", "parent runs first", "pkg.platforms") in named
    assert len(lines) == 4 + len(nodes) + len(edges)


def test_a_deferred_hop_is_labelled_so_in_both_formats(tree: Project) -> None:
    # (Mermaid has no dashed edge: a deferred hop is dotted there, as a parent package is,
    # and only its label tells the two apart.)
    args = ("why", "--no-cache", "pkg.platforms.cuda.platform", "pkg.models.big", "--format")
    drawn = run_cli(*args, "dot").stdout.splitlines()
    assert (
        '  "pkg.platforms.cuda.platform" -> "pkg.models.big" [label="l.4, deferred", style=dashed];'
    ) in drawn
    flowchart = run_cli(*args, "mermaid").stdout
    assert re.search(r'^  m0 -\.->\|"l\.4, deferred"\| m1$', flowchart, re.M), flowchart


def hop(importer: str, imported: str, *lines: tuple[int, bool, str | None, int]) -> Hop:
    """A hop of `why` or `closure` (`EagerHop.as_data(eager=True)`): each line with whether it
    runs at import time, and the module and line of the call at import time that runs it
    (None, 0 for a line that runs by itself)."""
    found: Hop = {
        "importer": importer,
        "imported": imported,
        "line_numbers": [line for line, _, _, _ in lines],
        "why": [
            "module level" if runs and caller is None else "inside def f"
            for _, runs, caller, _ in lines
        ],
        "locations": [{"path": f"{importer}.py", "line": line} for line, _, _, _ in lines],
        "eager": [runs for _, runs, _, _ in lines],
    }
    calls: list[list[CallSite]] = [
        []
        if caller is None
        else [{"module": caller, "line": at, "function": f"{importer}:f", "location": None}]
        for _, _, caller, at in lines
    ]
    if any(calls):
        found["calls"] = calls
    return found


def edges(hops: list[Hop]) -> tuple[list[str], list[str]]:
    """The edge lines of the hops' DOT graph and Mermaid flowchart."""
    drawn = graphs.dot("t", hops).splitlines()
    flowchart = graphs.mermaid("t", hops).splitlines()
    return drawn[4:-1], [line for line in flowchart if "|" in line]


def test_an_import_that_a_call_runs_is_drawn_from_the_module_that_makes_the_call() -> None:
    # importing pkg.m runs pkg.b, then calls pkg.b:f at l.3, whose l.2 imports pkg.c.
    closure = [
        hop("pkg.m", "pkg.b", (1, True, None, 0)),
        hop("pkg.b", "pkg.c", (2, True, "pkg.m", 3)),
    ]
    assert edges(closure) == (
        [
            '  "pkg.m" -> "pkg.b" [label="l.1", style=solid];',
            '  "pkg.m" -> "pkg.c" [label="l.2 of pkg.b, called at l.3", style=solid];',
        ],
        ['  m0 -->|"l.1"| m1', '  m0 -->|"l.2 of pkg.b, called at l.3"| m2'],
    )


@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        (
            "pkg.m",
            (
                [
                    '  "pkg.m" -> "pkg.b" [label="l.1", style=solid];',
                    '  "pkg.b" -> "pkg.c" [label="l.2, deferred", style=dashed];',
                    '  "pkg.m" -> "pkg.c" [label="l.2 of pkg.b, called at l.3", style=solid];',
                ],
                [
                    '  m0 -->|"l.1"| m1',
                    '  m1 -.->|"l.2, deferred"| m2',
                    '  m0 -->|"l.2 of pkg.b, called at l.3"| m2',
                ],
            ),
        ),
        (
            "pkg.b",
            (
                [
                    '  "pkg.m" -> "pkg.b" [label="l.1", style=solid];',
                    '  "pkg.b" -> "pkg.c" [label="l.2, deferred", style=dashed];',
                    '  "pkg.b" -> "pkg.c" [label="l.2, called at l.3", style=solid];',
                ],
                [
                    '  m0 -->|"l.1"| m1',
                    '  m1 -.->|"l.2, deferred"| m2',
                    '  m1 -->|"l.2, called at l.3"| m2',
                ],
            ),
        ),
    ],
    ids=["another-module-calls", "the-importer-calls"],
)
def test_why_draws_an_import_deferred_and_run_by_a_call_as_two_edges(
    caller: str, expected: tuple[list[str], list[str]]
) -> None:
    # The shortest chain reads pkg.b's l.2 as deferred; the eager chain has a call at l.3 run it.
    shortest = [
        hop("pkg.m", "pkg.b", (1, True, None, 0)),
        hop("pkg.b", "pkg.c", (2, False, None, 0)),
    ]
    eager = [hop("pkg.m", "pkg.b", (1, True, None, 0)), hop("pkg.b", "pkg.c", (2, True, caller, 3))]
    assert edges(shortest + eager) == expected


def test_the_lines_of_one_import_that_run_and_that_are_deferred_are_two_edges() -> None:
    both = [hop("pkg.a", "pkg.b", (3, True, None, 0), (9, False, None, 0))]
    assert edges(both) == (
        [
            '  "pkg.a" -> "pkg.b" [label="l.3", style=solid];',
            '  "pkg.a" -> "pkg.b" [label="l.9, deferred", style=dashed];',
        ],
        ['  m0 -->|"l.3"| m1', '  m0 -.->|"l.9, deferred"| m1'],
    )


@pytest.mark.skipif(
    DOT is None, reason="Graphviz's dot is not installed (apt-get install graphviz)"
)
@pytest.mark.parametrize(
    "args",
    [
        ["closure", "pkg.platforms.cuda.platform"],
        ["why", "pkg.platforms.cuda.platform", "pkg.models.big"],
    ],
    ids=["closure", "why"],
)
def test_dot_renders_with_graphviz(tree: Project, args: list[str]) -> None:
    result = run_cli(args[0], "--no-cache", *args[1:], "--format", "dot")
    assert result.exit_code == 0
    assert DOT is not None
    rendered = subprocess.run(
        [DOT, "-Tsvg"], input=result.stdout, capture_output=True, text=True, check=False
    )
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stderr == ""
    assert "<svg" in rendered.stdout and "pkg.platforms.cuda.platform" in rendered.stdout


def test_closure_and_why_json_hold_the_warnings_stderr_shows(project: Project) -> None:
    project.write(
        {
            "pkg/source.py": (
                "import importlib\nimport pkg.heavy\n"
                "importlib.import_module('pkg.heavy.A'.lower())\n"
            ),
            "pkg/heavy/a.py": "",
        }
    )
    project.configure("")
    warning = (
        "pkg/source.py:3: importlib.import_module runs at import time with a module name "
        "computed at run time: the modules it imports are not seen."
    )
    for command in (["closure", "pkg.source"], ["why", "pkg.source", "pkg.heavy"]):
        result = run_cli(*command, "--no-cache", "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["warnings"] == [warning]
        assert result.stderr == f"importlinter-contracts: warning: {warning}\n"
