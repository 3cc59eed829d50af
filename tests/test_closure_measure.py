"""`closure MODULE --measure`: the module imported in a fresh interpreter with -X importtime,
each module of the static closure given its measured time; and every way the measuring can
fail, each with its one line after the static closure."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from helpers import Project, run_cli
from importlinter_contracts.errors import MeasureError
from importlinter_contracts.measure import MeasuredClosure, MeasureRequest, Run, Timed, read_run
from importlinter_contracts.report import SCHEMA_FILE, ClosureEntry

# The tests that measure: a fresh interpreter each, and a module that sleeps at import.
measures = pytest.mark.slow

# pkg.a -> pkg.mid -> pkg.slow, which sleeps 0.2 s and imports decimal. pkg.mid writes to
# stdout, to sys.stderr and to fd 2, none of it ending its line: none of it is taken for, or
# hides, a record of -X importtime.
TREE = {
    "pkg/a.py": "import pkg.mid\n",
    "pkg/mid.py": (
        "import os, sys\n"
        "print('to stdout')\n"
        "sys.stderr.write('to sys.stderr, no newline')\n"
        "os.write(2, b'to fd 2, no newline')\n"
        "from pkg import slow\n"
    ),
    "pkg/slow.py": "import decimal\nimport time\ntime.sleep(0.2)\n",
}


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    project.configure("")
    return project


def valid_closure(data: dict[str, Any]) -> list[str]:
    """Return where the closure's JSON breaks the shipped schema (nothing, when it holds)."""
    schema = json.loads(SCHEMA_FILE.read_text())
    validator = Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/Closure"})
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]


def static_json(module: str = "pkg.a") -> dict[str, object]:
    result = run_cli("closure", "--no-cache", module, "--format", "json")
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


@measures
def test_measure_gives_each_module_its_time_and_the_externals_its_hop_brought_in(
    tree: Project,
) -> None:
    static = static_json()
    result = run_cli("closure", "--no-cache", "pkg.a", "--measure", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # the JSON alone on stdout
    assert valid_closure(data) == []
    modules = data["modules"]
    assert set(modules) == {"pkg", "pkg.a", "pkg.mid", "pkg.slow"}
    # The static part is the closure's, each entry with its measured numbers added.
    for name, entry in modules.items():
        assert {key: entry[key] for key in ("reached_from", "hop")} == static["modules"][name]  # type: ignore[index]
        assert set(entry) == {"reached_from", "hop", "self_us", "cumulative_us", "external"}
        assert 0 < entry["self_us"] <= entry["cumulative_us"]
    slow, a = modules["pkg.slow"], modules["pkg.a"]
    assert slow["cumulative_us"] >= 150_000
    assert slow["self_us"] >= 150_000
    assert a["cumulative_us"] >= slow["cumulative_us"]
    assert data["measured"]["cumulative_us"] == a["cumulative_us"]
    (decimal,) = [found for found in slow["external"] if found["module"] == "decimal"]
    assert 0 < decimal["cumulative_us"] < slow["cumulative_us"]
    assert decimal["modules"] >= 1
    # decimal is listed under the hop that imported it, and nowhere else.
    assert [
        found["module"]
        for name, entry in modules.items()
        if name != "pkg.slow"
        for found in entry["external"]
    ] == []
    measured = data["measured"]
    assert (measured["python"], measured["runs"]) == (sys.executable, 1)
    assert measured["ranked"][0] == {
        "module": "pkg.slow",
        "cost_us": slow["self_us"] + sum(e["cumulative_us"] for e in slow["external"]),
        "chain": ["pkg.a", "pkg.mid", "pkg.slow"],
    }
    assert sorted(found["module"] for found in measured["ranked"]) == sorted(modules)
    assert (measured["loaded_outside_closure"], measured["not_loaded"]) == ([], [])
    assert result.stderr == ""


@measures
def test_text_labels_the_numbers_as_measured_and_the_chains_as_static(tree: Project) -> None:
    static = run_cli("closure", "--no-cache", "pkg.a")
    result = run_cli("closure", "--no-cache", "pkg.a", "--measure", "--repeat", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(static.stdout)
    measured = result.stdout[len(static.stdout) :].splitlines()
    assert re.fullmatch(
        rf"measured: importing pkg\.a took \d+\.\d ms \({re.escape(sys.executable)} "
        r"-X importtime, median of 3 runs\)",
        measured[0],
    )
    assert measured[1] == (
        "costliest modules (measured: self time and the external packages each imported), "
        "each with its static chain:"
    )
    assert re.fullmatch(
        r" +\d+\.\d ms  pkg\.slow  \(self \d+\.\d ms; decimal \d+\.\d ms \(\d+ modules\)"
        r"(; time \d+\.\d ms \(1 module\))?\)",
        measured[2],
    )
    assert measured[3] == "              pkg.a -> pkg.mid -> pkg.slow"
    assert len(measured) == 2 + 2 * 4


@measures
def test_what_the_interpreter_loads_outside_the_closure_is_named_with_why(
    project: Project,
) -> None:
    project.write(
        {
            "pkg/a.py": "import pkg.registry\nimport pkg.hidden_by_exec\nimport pkg.b\n",
            # A name computed at run time: the static closure cannot see the plugin.
            "pkg/registry.py": "import importlib, os\nimportlib.import_module(os.environ.get('PLUGIN', 'pkg.plugin'))\n",
            "pkg/plugin.py": "import pkg.from_plugin\n",
            "pkg/from_plugin.py": "",
            "pkg/hidden_by_exec.py": "exec('import pkg.from_exec')\n",
            "pkg/from_exec.py": "",
            "pkg/never.py": "",
            "pkg/branch.py": "import os\nif os.environ.get('NEVER'):\n    import pkg.never\n",
            "pkg/b.py": "import pkg.branch\n",
        }
    )
    project.configure("")
    result = run_cli("closure", "--no-cache", "pkg.a", "--measure", "--format", "json")
    assert result.exit_code == 0, result.output
    measured = json.loads(result.stdout)["measured"]
    outside = {found["module"]: found for found in measured["loaded_outside_closure"]}
    assert sorted(outside) == ["pkg.from_exec", "pkg.from_plugin", "pkg.plugin"]
    assert outside["pkg.plugin"]["why"] == (
        "loaded by importlib (import_module, a loader), not by an import statement: -X "
        "importtime does not time it, and its time counts in the module whose import ran "
        "then; the closure's dynamic imports with a name computed at run time: "
        "pkg/registry.py:2 (importlib.import_module)"
    )
    assert (outside["pkg.plugin"]["self_us"], outside["pkg.plugin"]["imported_while"]) == (
        None,
        None,
    )
    # What the plugin imports is timed, within the import that ran it.
    assert outside["pkg.from_plugin"]["imported_while"] == "pkg.registry"
    assert outside["pkg.from_plugin"]["why"] == (
        "imported during the import of pkg.registry, whose pkg/registry.py:2 runs "
        "importlib.import_module with a module name computed at run time"
    )
    assert outside["pkg.from_exec"]["why"] == (
        "imported during the import of pkg.hidden_by_exec, by an import the static reading "
        "does not see"
    )
    assert outside["pkg.from_exec"]["cumulative_us"] > 0
    assert measured["not_loaded"] == ["pkg.never"]
    assert result.stderr == (
        "importlinter-contracts: warning: pkg/registry.py:2: importlib.import_module runs at "
        "import time with a module name computed at run time: the modules it imports are not "
        "seen.\n"
    )


def test_read_run_takes_only_the_records_between_the_runs_lines() -> None:
    output = "\n".join(
        [
            "import time: self [us] | cumulative | imported package",
            "import time:       100 |        100 | site",
            "TOKEN start",
            "import time:         7 |          7 |     decimal",
            "stray output, no newlineimport time:         5 |         12 |   pkg.slow",
            "import time: 99 | 99 | written by the module, not a record",
            "import time:         3 |          3 |   pkg",
            "import time:         2 |         17 | pkg.a",
            "TOKEN stop",
            "import time:        50 |         50 | json",
            'TOKEN loaded [["pkg", "pkg.a", "pkg.slow", "decimal"], ["sys"]]',
        ]
    )
    run = read_run(output, "TOKEN", "pkg.a", "python", 0)
    (root,) = run.timed
    assert (root.module, root.self_us, root.cumulative_us) == ("pkg.a", 2, 17)
    assert [(c.module, [g.module for g in c.children]) for c in root.children] == [
        ("pkg.slow", ["decimal"]),
        ("pkg", []),
    ]
    assert run.loaded == {"pkg", "pkg.a", "pkg.slow", "decimal"}
    assert run.before == {"sys"}


def timed(module: str, self_us: int, *children: Timed) -> Timed:
    return Timed(module, self_us, self_us + sum(c.cumulative_us for c in children), list(children))


def test_the_median_of_the_runs_and_the_costliest_external_imports_first() -> None:
    def run(slow_us: int) -> Run:
        externals = [timed(f"ext{i}", i * 1000, timed(f"ext{i}._inner", 500)) for i in (1, 2, 3, 4)]
        root = timed("pkg.a", 100, timed("pkg", 100), timed("pkg.slow", slow_us, *externals))
        return Run([root], frozenset({"pkg", "pkg.a", "pkg.slow"}), frozenset({"sys"}))

    request = MeasureRequest("python", 3, 300)
    reached_from = {"pkg.a": None, "pkg": "pkg.a", "pkg.slow": "pkg.a"}
    runs = [run(9_000), run(1_000), run(5_000)]
    measured = MeasuredClosure(request, "pkg.a", reached_from, runs, ["pkg"], {})
    entry: ClosureEntry = {"reached_from": "pkg.a", "hop": None}
    measured.add_to("pkg.slow", entry)
    assert entry == {
        "reached_from": "pkg.a",
        "hop": None,
        "self_us": 5_000,
        "cumulative_us": 5_000 + 10_000 + 2_000,
        "external": [
            {"module": f"ext{i}", "cumulative_us": i * 1000 + 500, "modules": 2}
            for i in (4, 3, 2, 1)
        ],
    }
    assert measured.text().splitlines() == [
        "measured: importing pkg.a took 17.2 ms (python -X importtime, median of 3 runs)",
        "costliest modules (measured: self time and the external packages each imported), "
        "each with its static chain:",
        "     17.0 ms  pkg.slow  (self 5.0 ms; ext4 4.5 ms (2 modules); ext3 3.5 ms (2 "
        "modules); ext2 2.5 ms (2 modules); 1 more external imports)",
        "              pkg.a -> pkg.slow",
        "      0.1 ms  pkg  (self 0.1 ms)",
        "              pkg.a -> pkg",
        "      0.1 ms  pkg.a  (self 0.1 ms)",
        "              pkg.a",
    ]


# Bad input: one line each on stderr, exit status 2, after the static closure on stdout.


def measured_failure(*args: str, module: str = "pkg.a") -> tuple[str, str]:
    """The closure with --measure that fails: its stderr, after checking that the static
    closure is on stdout as without --measure and that the JSON says why it has no numbers."""
    static = run_cli("closure", "--no-cache", module)
    result = run_cli("closure", "--no-cache", module, "--measure", *args)
    assert (result.exit_code, result.stdout) == (2, static.stdout), result.output
    as_json = run_cli("closure", "--no-cache", module, "--measure", "--format", "json", *args)
    assert as_json.exit_code == 2
    data = json.loads(as_json.stdout)
    assert valid_closure(data) == []
    assert (data["module"], data["measured"]) == (module, None)
    assert as_json.stderr == f"importlinter-contracts: {data['measure_error']}\n"
    assert result.stderr == as_json.stderr
    return result.stderr


@measures
def test_a_module_that_raises_on_import(project: Project) -> None:
    project.write({"pkg/a.py": "import pkg.b\n", "pkg/b.py": "x = 1\nraise ValueError('boom')\n"})
    project.configure("")
    assert measured_failure() == (
        f"importlinter-contracts: importing pkg.a with {sys.executable} raised ValueError: "
        "boom (pkg/b.py:2).\n"
    )


@measures
def test_a_file_outside_the_working_directory_is_shown_whole(
    project: Project, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    deps = tmp_path_factory.mktemp("deps")
    (deps / "brokendep.py").write_text("raise RuntimeError('no GPU')\n")
    monkeypatch.setenv("PYTHONPATH", str(deps))
    project.write({"pkg/a.py": "import brokendep\n"})
    project.configure("")
    assert measured_failure() == (
        f"importlinter-contracts: importing pkg.a with {sys.executable} raised RuntimeError: "
        f"no GPU ({deps / 'brokendep.py'}:1).\n"
    )


@measures
def test_a_module_that_ends_the_process_on_import(project: Project) -> None:
    project.write({"pkg/a.py": "import os\nos._exit(5)\n"})
    project.configure("")
    assert measured_failure() == (
        f"importlinter-contracts: importing pkg.a with {sys.executable} ended its process (exit "
        "status 5) before the import finished.\n"
    )


@measures
def test_a_python_that_does_not_exist(tree: Project) -> None:
    assert measured_failure("--python", "no/such/python") == (
        "importlinter-contracts: --python no/such/python cannot be run: No such file or "
        "directory.\n"
    )


@measures
def test_a_python_without_the_dependencies(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The dependency is on this interpreter's PYTHONPATH, which the other one drops.
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps" / "onlyhere.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "deps"))
    project.write({"pkg/a.py": "import onlyhere\n"})
    project.configure("")
    assert run_cli("closure", "--no-cache", "pkg.a", "--measure").exit_code == 0
    other = tmp_path / "other-python"
    other.write_text(f'#!/bin/sh\nunset PYTHONPATH\nexec {sys.executable} "$@"\n')
    other.chmod(0o755)
    assert measured_failure("--python", str(other)) == (
        f"importlinter-contracts: {other} has no module onlyhere, which importing pkg.a needs "
        "(pkg/a.py:1): install it there, or give --python the interpreter of the project's "
        "environment.\n"
    )


@measures
def test_a_program_that_is_not_python(tree: Project) -> None:
    assert measured_failure("--python", "/bin/true") == (
        "importlinter-contracts: --python /bin/true did not import pkg.a: give a Python "
        "interpreter.\n"
    )


@measures
def test_an_import_that_takes_longer_than_the_timeout(project: Project) -> None:
    project.write({"pkg/a.py": "import time\ntime.sleep(30)\n"})
    project.configure("")
    assert measured_failure("--timeout", "0.5") == (
        f"importlinter-contracts: importing pkg.a with {sys.executable} did not finish within "
        "0.5 s (--timeout): it was killed.\n"
    )


@measures
def test_a_module_loaded_before_the_import(
    tree: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text("import pkg.a\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{tmp_path / 'site'}")
    assert measured_failure() == (
        f"importlinter-contracts: pkg.a was loaded before {sys.executable} ran the import (by "
        "sitecustomize or a .pth file): its import cannot be timed.\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repeat", "3"], "--repeat goes with --measure, which is not given."),
        (
            ["--python", "python3", "--timeout", "5"],
            "--python and --timeout go with --measure, which is not given.",
        ),
        (
            ["--measure", "--format", "dot"],
            "--measure shows its numbers as text or json, not dot: give --format text or json.",
        ),
    ],
)
def test_measuring_options_that_do_not_go_together(
    tree: Project, args: list[str], message: str
) -> None:
    result = run_cli("closure", "--no-cache", "pkg.a", *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"importlinter-contracts: {message}\n"


def test_the_child_failure_line_is_not_taken_from_the_module_s_output() -> None:
    output = 'TOKEN start\nOTHER failed ["x", null, null]\n'
    with pytest.raises(MeasureError) as raised:
        read_run(output, "TOKEN", "pkg.a", "python", 3)
    assert str(raised.value) == (
        "importing pkg.a with python ended its process (exit status 3) before the import finished."
    )
