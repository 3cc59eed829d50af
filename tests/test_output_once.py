"""Output once and right: a warning about the whole run once in every format, an eager
finding's sources once each, `closure` and `why` with external packages, SARIF URIs
percent-encoded, DOT labels in UTF-8 (rendered with Graphviz's `dot`), and `closure` and
`why` whose output grows with the size of the answer."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest
from test_graph_commands import chain_in, chains_of
from test_unseen import NO_INIT, R4, TREE, WARNING, remove_inits

from helpers import Project, configure_r2, run_cli
from importlinter_contracts import explore

pytestmark = pytest.mark.matrix

DOT = shutil.which("dot")


@pytest.fixture
def unseen(project: Project) -> Project:
    """Three folders without __init__.py (as test_unseen's WARNING names them), checked by two
    static contracts."""
    project.write(TREE)
    remove_inits(project, NO_INIT)
    configure_r2(project)
    config = project.root / ".importlinter"
    config.write_text(
        config.read_text()
        + "\n"
        + R4.format(source="pkg.platforms.*.platform", follow="pkg.platforms")
    )
    return project


def test_a_run_warns_once_in_text(unseen: Project) -> None:
    result = unseen.check()
    assert result.exit_code == 0, result.output
    assert " ".join(result.stdout.split()).count(WARNING) == 1
    lines = result.stdout.splitlines()
    assert "Backends are private KEPT (1 warning)" in lines
    assert "Platforms load no models KEPT" in lines


def test_a_run_warns_once_in_github_annotations(unseen: Project) -> None:
    result = unseen.check("--format", "github")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == f"::warning title=Backends are private (r2)::{WARNING}\n"


def test_a_run_warns_once_in_sarif(unseen: Project) -> None:
    result = unseen.check("--format", "sarif")
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.stdout)["runs"]
    assert [(r["ruleId"], r["level"], r["message"]["text"]) for r in run["results"]] == [
        ("r2", "warning", WARNING)
    ]


def test_a_run_warns_once_under_lint_imports(unseen: Project) -> None:
    result = unseen.lint_imports()
    assert " ".join(result.output.split()).count(WARNING) == 1


CALLED_TWICE = {
    "pkg/models/big.py": "",
    "pkg/util.py": "def load():\n    import pkg.models.big\n",
    "pkg/b.py": "from pkg import util\nutil.load()\n",
    "pkg/c.py": "from pkg import util\nutil.load()\n",
    "pkg/platforms/cuda/platform.py": "import pkg.b\nimport pkg.c\n",
    "pkg/platforms/npu/platform.py": "import pkg.b\n",
}
R4_CALLED_TWICE = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.*.platform
follow_modules = pkg
forbidden_modules = pkg.models
"""


def test_an_eager_finding_lists_each_source_once(project: Project) -> None:
    # The walk from the cuda platform stops at pkg.util -> pkg.models.big twice: by the call
    # in pkg.b and by the one in pkg.c.
    project.write(CALLED_TWICE)
    project.configure(R4_CALLED_TWICE)
    (finding,) = project.contract("r4")["violations"]
    assert finding["sources"] == ["pkg.platforms.cuda.platform", "pkg.platforms.npu.platform"]
    result = project.check()
    assert result.exit_code == 1
    assert (
        "pkg.util -> pkg.models.big runs at import time, reached from "
        "pkg.platforms.cuda.platform, pkg.platforms.npu.platform:"
    ) in result.stdout.splitlines()
    github = project.check("--format", "github").stdout
    assert "runs when importing pkg.platforms.cuda.platform, pkg.platforms.npu.platform by" in (
        github
    )


def test_closure_json_gives_the_module_that_runs_a_called_import(project: Project) -> None:
    # The import is pkg.util's, and pkg.b's import runs it (by calling util.load).
    project.write(CALLED_TWICE)
    project.configure(R4_CALLED_TWICE)
    result = run_cli("closure", "--no-cache", "pkg.platforms.npu.platform", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    entry = data["modules"]["pkg.models.big"]
    assert (entry["reached_from"], entry["hop"]["importer"]) == ("pkg.b", "pkg.util")
    expected = explore.load(cache_dir=None).eager_closure("pkg.platforms.npu.platform")
    assert chains_of(data) == {module: expected[module].as_data() for module in expected}


EXTERNAL = {
    "pkg/platforms/cuda/platform.py": "from pkg.platforms.cuda import hooks\n",
    "pkg/platforms/cuda/hooks.py": "import abc\nimport json\n\ndef later():\n    import csv\n",
    "pkg/platforms/npu/platform.py": "",
}


@pytest.fixture
def external(project: Project) -> Project:
    project.write(EXTERNAL)
    configure_r2(project, session="include_external_packages = true\n")
    return project


def test_closure_with_external_packages_lists_them_without_reading_them(
    external: Project,
) -> None:
    result = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform", "--format", "json")
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    data = json.loads(result.stdout)
    assert sorted(data["modules"]) == [
        "abc",
        "json",
        "pkg",
        "pkg.platforms",
        "pkg.platforms.cuda",
        "pkg.platforms.cuda.hooks",
        "pkg.platforms.cuda.platform",
    ]
    assert data["modules"]["json"] == {
        "reached_from": "pkg.platforms.cuda.hooks",
        "hop": {
            "importer": "pkg.platforms.cuda.hooks",
            "imported": "json",
            "line_numbers": [2],
            "why": ["module level"],
            "locations": [{"path": "pkg/platforms/cuda/hooks.py", "line": 2}],
            "eager": [True],
        },
    }
    text = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform")
    assert "  abc  (pkg/platforms/cuda/hooks.py:1)" in text.stdout.splitlines()
    assert "  json  (pkg/platforms/cuda/hooks.py:2)" in text.stdout.splitlines()


def test_why_with_external_packages(external: Project) -> None:
    eager = run_cli("why", "--no-cache", "pkg.platforms.cuda.platform", "json", "--format", "json")
    assert (eager.exit_code, eager.stderr) == (0, ""), eager.output
    data = json.loads(eager.stdout)
    assert [(h["importer"], h["imported"], h["eager"]) for h in data["shortest"]] == [
        ("pkg.platforms.cuda.platform", "pkg.platforms.cuda.hooks", [True]),
        ("pkg.platforms.cuda.hooks", "json", [True]),
    ]
    assert data["shortest_eager"] == data["shortest"]
    deferred = run_cli("why", "--no-cache", "pkg.platforms.cuda.hooks", "csv", "--format", "json")
    assert (deferred.exit_code, deferred.stderr) == (0, ""), deferred.output
    data = json.loads(deferred.stdout)
    assert [(h["imported"], h["eager"], h["why"]) for h in data["shortest"]] == [
        ("csv", [False], ["inside def later"])
    ]
    assert data["shortest_eager"] is None


def test_sarif_uris_are_percent_encoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The repository's root holds the project in a folder whose name has a space, '%' and
    # '#': the report's paths are relative to that root.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    folder = tmp_path / "my project %25 #1"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    project = Project(folder)
    project.write(
        {
            "pkg/platforms/cuda/platform.py": "",
            "pkg/platforms/npu/platform.py": "",
            "pkg/a.py": "import pkg.platforms.npu.platform\n",
        }
    )
    configure_r2(project, "ignore_imports = pkg.gone -> pkg.platforms.npu.platform  # why\n")
    result = project.check("--format", "sarif")
    assert result.exit_code == 1, result.output
    (run,) = json.loads(result.stdout)["runs"]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    ]
    assert uris == [
        "my%20project%20%2525%20%231/pkg/a.py",
        "my%20project%20%2525%20%231/.importlinter",
    ]
    for uri in uris:  # each, resolved against the base, is the file
        assert Path(unquote(urlparse(urljoin(base, uri)).path)).is_file()


def test_dot_labels_are_utf_8(project: Project) -> None:
    project.write(
        {
            "pkg/platforms/cuda/platform.py": "from pkg import grüße\n",
            "pkg/grüße.py": "",
            "pkg/platforms/npu/platform.py": "",
        }
    )
    configure_r2(project)
    result = run_cli("why", "--no-cache", "pkg.platforms.cuda.platform", "pkg.grüße")
    assert result.exit_code == 0, result.output
    dot = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform", "--format", "dot")
    assert dot.exit_code == 0, dot.output
    assert '  "pkg.platforms.cuda.platform" -> "pkg.grüße" [label="l.1", style=solid];' in (
        dot.stdout.splitlines()
    )
    assert "\\u" not in dot.stdout
    if DOT is None:
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)")
    rendered = subprocess.run(
        [DOT, "-Tsvg"], input=dot.stdout.encode(), capture_output=True, check=False
    )
    assert (rendered.returncode, rendered.stderr) == (0, b"")
    svg = rendered.stdout.decode("utf-8")
    assert ">pkg.grüße</text>" in svg


def chain_of_modules(root: Path, length: int) -> None:
    """pkg.m0 imports pkg.m1, which imports pkg.m2, ... to pkg.m{length - 1}."""
    package = root / "pkg"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir()
    (package / "__init__.py").touch()
    for number in range(length):
        following = f"import pkg.m{number + 1}\n" if number < length - 1 else ""
        (package / f"m{number}.py").write_text(following)


def test_closure_and_why_grow_with_the_answer_on_a_chain_of_modules(project: Project) -> None:
    (project.root / ".importlinter").write_text("[importlinter]\nroot_package = pkg\n")
    sizes = {}
    for length in (500, 1000):
        chain_of_modules(project.root, length)
        result = run_cli("closure", "--no-cache", "pkg.m0", "--format", "json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert len(data["modules"]) == length + 1  # and pkg
        assert len(chain_in(data, f"pkg.m{length - 1}")) == length - 1
        sizes[length] = len(result.stdout)
        why = run_cli("why", "--no-cache", "pkg.m0", f"pkg.m{length - 1}", "--format", "json")
        assert why.exit_code == 0, why.output
        assert len(json.loads(why.stdout)["shortest"]) == length - 1
        sizes[("why", length)] = len(why.stdout)
    # Twice the modules, twice the output (and a little more: longer names). A chain of hops
    # per module, as before, was four times: 42 MB, then 169 MB.
    assert 2 <= sizes[1000] / sizes[500] < 2.2
    assert 2 <= sizes[("why", 1000)] / sizes[("why", 500)] < 2.2
    assert sizes[1000] < 500_000
