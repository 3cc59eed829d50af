"""The REPL explorer on a synthetic package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import Project, calls_unread_warning, run_cli
from importlinter_contracts import explore
from importlinter_contracts.eager.walk import EagerHop

pytestmark = pytest.mark.matrix

TREE = {
    "pkg/__init__.py": "from pkg import config\n",
    "pkg/config.py": "",
    "pkg/platforms/__init__.py": "",
    "pkg/platforms/cuda/__init__.py": "",
    "pkg/platforms/cuda/platform.py": (
        "from pkg.platforms.cuda import hooks\n"
        "class Platform:\n"
        "    def load(self):\n"
        "        import pkg.models.big\n"
    ),
    "pkg/platforms/cuda/hooks.py": "try:\n    import pkg.util\nexcept ImportError:\n    pass\n",
    "pkg/util.py": "lazy import pkg.models.big\ndef load():\n    import os\nload()\n",
    "pkg/models/big.py": "",
}


# pkg/util.py has a `lazy import`, which `ast` cannot parse before Python 3.15, and a call at
# import time that could run an import.
UTIL_CALLS_UNREAD = "^pkg/util.py: calls at import time are not followed in this file"


# pkg/util.py has a `lazy import`: analysed for Python 3.15, whose syntax it is.
LAZY_TARGET = "python_version = 3.15\n"


@pytest.fixture
def explorer(project: Project) -> explore.Explorer:
    project.write(TREE)
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n",
        session=LAZY_TARGET,
    )
    return explore.load(cache_dir=None)


def test_eager_closure_lists_what_python_runs_with_the_chain_to_each(
    explorer: explore.Explorer,
) -> None:
    with calls_unread_warning(UTIL_CALLS_UNREAD):
        closure = explorer.eager_closure("pkg.platforms.cuda.platform")
    assert list(closure) == [
        "pkg",
        "pkg.config",
        "pkg.platforms",
        "pkg.platforms.cuda",
        "pkg.platforms.cuda.hooks",
        "pkg.platforms.cuda.platform",
        "pkg.util",
    ]
    assert closure["pkg.platforms.cuda.platform"] == ()
    chain = closure["pkg.util"]
    assert chain.eager
    assert [(s.importer, s.imported) for s in chain] == [
        ("pkg.platforms.cuda.platform", "pkg.platforms.cuda.hooks"),
        ("pkg.platforms.cuda.hooks", "pkg.util"),
    ]
    assert chain.as_data()[1] == {
        "importer": "pkg.platforms.cuda.hooks",
        "imported": "pkg.util",
        "line_numbers": [2],
        "why": ["module-level try"],
        "locations": [{"path": "pkg/platforms/cuda/hooks.py", "line": 2}],
        "eager": [True],
    }
    assert repr(closure).splitlines() == [
        "importing pkg.platforms.cuda.platform runs 7 modules:",
        "  pkg  (parent package of pkg.platforms)",
        "  pkg.config  (pkg/__init__.py:1)",
        "  pkg.platforms  (parent package of pkg.platforms.cuda)",
        "  pkg.platforms.cuda  (parent package of pkg.platforms.cuda.platform)",
        "  pkg.platforms.cuda.hooks  (pkg/platforms/cuda/platform.py:1)",
        "  pkg.platforms.cuda.platform  (itself)",
        "  pkg.util  (pkg/platforms/cuda/hooks.py:2)",
    ]


def test_why_gives_the_shortest_chain_with_eager_and_deferred_lines(
    explorer: explore.Explorer,
) -> None:
    with calls_unread_warning(UTIL_CALLS_UNREAD):
        why = explorer.why("pkg.platforms.cuda.platform", "pkg.models.big")
    (chain,) = why
    assert not chain.eager
    assert repr(why).splitlines() == [
        "chain (not all at import time):",
        "  pkg.platforms.cuda.platform -> pkg.models.big: l.4 deferred, inside def load "
        "(pkg/platforms/cuda/platform.py:4)",
    ]


def test_why_adds_the_eager_chain_when_the_shortest_is_not_eager(project: Project) -> None:
    project.write({**TREE, "pkg/platforms/cuda/hooks.py": "import pkg.models.big\n"})
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n",
        session=LAZY_TARGET,
    )
    shortest, eager = explore.load(cache_dir=None).why(
        "pkg.platforms.cuda.platform", "pkg.models.big"
    )
    assert len(shortest) == 1 and not shortest.eager
    assert eager.eager and [s.imported for s in eager] == [
        "pkg.platforms.cuda.hooks",
        "pkg.models.big",
    ]


def test_why_follows_parent_packages_in_a_deferred_chain(project: Project) -> None:
    # Importing the platform module runs its package's `__init__` first.
    project.write(
        {
            "mypkg/core/engine.py": "def start():\n    import mypkg.platforms.cuda.platform\n",
            "mypkg/platforms/cuda/platform.py": "",
        }
    )
    project.configure("", root_package="mypkg")
    result = run_cli("why", "--no-cache", "mypkg.core.engine", "mypkg.platforms.cuda")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "chain (not all at import time):",
        "  mypkg.core.engine -> mypkg.platforms.cuda.platform: l.2 deferred, inside def start "
        "(mypkg/core/engine.py:2)",
        "  mypkg.platforms.cuda.platform -> mypkg.platforms.cuda (its parent package runs first)",
    ]
    # Shorter than the chain of imports alone, which the eager chain is.
    project.write(
        {
            "mypkg/core/engine.py": (
                "import mypkg.core.a\ndef start():\n    import mypkg.platforms.cuda.platform\n"
            ),
            "mypkg/core/a.py": "import mypkg.core.b\n",
            "mypkg/core/b.py": "import mypkg.platforms.cuda\n",
        }
    )
    shortest, eager = explore.load(cache_dir=None).why("mypkg.core.engine", "mypkg.platforms.cuda")
    assert [(hop.importer, hop.imported, hop.is_import) for hop in shortest] == [
        ("mypkg.core.engine", "mypkg.platforms.cuda.platform", True),
        ("mypkg.platforms.cuda.platform", "mypkg.platforms.cuda", False),
    ]
    assert not shortest.eager
    assert eager.eager and [hop.imported for hop in eager] == [
        "mypkg.core.a",
        "mypkg.core.b",
        "mypkg.platforms.cuda",
    ]


def test_imports_and_importers_with_per_line_detail(explorer: explore.Explorer) -> None:
    assert repr(explorer.imports("pkg.util")) == (
        "pkg.util -> pkg.models.big: l.1 deferred, lazy import, not used at import time "
        "(pkg/util.py:1)"
    )
    importers = explorer.importers("pkg.models", as_package=True)
    assert [(s.importer, s.imported, s.eager) for s in importers] == [
        ("pkg.platforms.cuda.platform", "pkg.models.big", False),
        ("pkg.util", "pkg.models.big", False),
    ]
    assert repr(explorer.importers("pkg.config")) == (
        "pkg -> pkg.config: l.1 eager, module level (pkg/__init__.py:1)"
    )
    assert repr(explorer.importers("pkg.platforms.cuda")) == "(none)"


def test_the_repl_holds_the_walk_s_hops_and_the_graph_s_alike() -> None:
    # A graph's import with a deferred line and an eager one, a parent package, and a walk's
    # hop whose lines run under different tests (no file of `app` is found).
    graph = EagerHop(
        "app.a", "app.b", (2, 7), ("inside def f", "module level"), at_import_time=(False, True)
    )
    deferred = EagerHop("app.a", "app.c", (3,), ("inside def g",), at_import_time=(False,))
    tested = EagerHop(
        "app.b",
        "app.m",
        (4, 9),
        ("module-level if", "module-level if"),
        conditions=((("app.b", "if", "A", 3),), (("app.b", "if", "B", 8),)),
    )
    assert [hop.eager for hop in (graph, deferred, EagerHop("app.b", "app"), tested)] == [
        True,
        False,
        True,
        True,
    ]
    chain = explore.Chain([graph, EagerHop("app.b", "app"), tested])
    assert chain.eager and chain.conditional
    assert [hop.get("eager") for hop in chain.as_data()] == [[False, True], None, [True, True]]
    assert repr(chain).splitlines() == [
        "eager chain, conditional:",
        "  app.a -> app.b: l.2 deferred, inside def f (no file); l.7 eager, module level (no file)",
        "  app.b -> app (its parent package runs first)",
        "  app.b -> app.m: l.4 eager, module-level if (no file); l.9 eager, module-level if "
        "(no file)",
        "    l.4 only if A (app.b, l.3); l.9 only if B (app.b, l.8)",
    ]
    assert not explore.Chain([graph, deferred]).eager
    assert repr(explore.Steps([deferred, graph])).splitlines() == [
        "app.a -> app.c: l.3 deferred, inside def g (no file)",
        "app.a -> app.b: l.2 deferred, inside def f (no file); l.7 eager, module level (no file)",
    ]
    closure = explore.EagerClosure(
        "app.b", {"app.b": None, "app": EagerHop("app.b", "app"), "app.m": tested}, frozenset()
    )
    assert closure["app.m"] == (tested,)
    assert closure.step_to("app") == EagerHop("app.b", "app")


def test_check_gives_the_json_report_data(project: Project) -> None:
    project.write(TREE)
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n"
        "\n[importlinter:contract:other]\nname = Other\ntype = backend_isolation\n"
        "container = pkg.platforms\n",
        session=LAZY_TARGET,
    )
    explorer = explore.load(cache_dir=None)
    assert [c["id"] for c in explorer.check("r2")["contracts"]] == ["r2"]
    assert explorer.check() == json.loads(run_cli("check", "--no-cache", "--format", "json").stdout)


def test_graph_is_there_for_anything_else(explorer: explore.Explorer) -> None:
    assert "pkg.util" in explorer.graph.modules
    assert repr(explorer) == "<Explorer: 9 modules, 5 imports>"


def test_unknown_module_is_a_clear_error(explorer: explore.Explorer) -> None:
    with pytest.raises(KeyError, match=r"pkg\.nope is not a module of the graph"):
        explorer.eager_closure("pkg.nope")


def test_load_takes_a_config_file_elsewhere(project: Project, tmp_path: Path) -> None:
    project.write(TREE)
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n",
        session=LAZY_TARGET,
    )
    (project.root / ".importlinter").rename(project.root / "rules.ini")
    assert explore.load("rules.ini", cache_dir=None).check()["kept"] is True


def test_load_takes_paths_as_strings_or_path_objects(project: Project, tmp_path: Path) -> None:
    project.write(TREE)
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n",
        session=LAZY_TARGET,
    )
    (project.root / ".importlinter").rename(project.root / "rules.ini")
    cache = tmp_path / "my cache"
    explorer = explore.load(Path("rules.ini"), cache_dir=str(cache))
    assert explorer.check()["kept"] is True
    assert (cache / "grimp").is_dir()


R2_AND_RUNTIME = """\
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms

[importlinter:contract:runtime]
name = Runtime
type = runtime_isolation
blocked_modules = fakesdk
probe_modules = pkg.probe
"""
# The probe's module leaves a file behind: it shows whether the analysed code ran.
PROBED = {
    **TREE,
    "pkg/probe.py": "import pathlib\npathlib.Path('probe-ran').touch()\n",
    "fakesdk/__init__.py": "",
}


def test_check_returns_the_report_and_prints_nothing(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(PROBED)
    project.configure(R2_AND_RUNTIME, session=LAZY_TARGET)
    report = explore.load(cache_dir=None).check()
    assert [(c["id"], c["kept"]) for c in report["contracts"]] == [
        ("r2", True),
        ("runtime", True),
    ]
    assert (project.root / "probe-ran").exists()
    assert capsys.readouterr().out == ""


def test_static_leaves_out_the_contracts_that_run_the_code_as_check_static_does(
    project: Project,
) -> None:
    project.write(PROBED)
    project.configure(R2_AND_RUNTIME, session=LAZY_TARGET)
    report = explore.load(cache_dir=None, static=True).check()
    assert [c["id"] for c in report["contracts"]] == ["r2"]
    assert report["skipped"] == [
        {
            "id": "runtime",
            "name": "Runtime",
            "type": "runtime_isolation",
            "reason": "runs the code it checks, which --static skips",
        }
    ]
    assert not (project.root / "probe-ran").exists()
    cli = run_cli("check", "--no-cache", "--static", "--format", "json")
    assert report == json.loads(cli.stdout)
