"""`importlinter-contracts fix`: the diff that makes the smallest cut's imports lazy, asserted
exactly; `--write`, after which the contract is KEPT; the imports it refuses; and CPython
3.15, importing each source module in a fresh process after `fix --write`, loading no
forbidden module while the package still imports and runs its import-time code."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_deferral_uses import project_in_repository
from test_eager_real_interpreters import interpreter

import ast_walk as oracle
from helpers import Project
from importlinter_contracts.cli import main
from importlinter_contracts.deferral import fix as fix_module
from importlinter_contracts.deferral.edit import FileEdit
from importlinter_contracts.deferral.fix import write
from importlinter_contracts.errors import FileWriteError

pytestmark = pytest.mark.matrix

RUNNING_315 = sys.version_info >= (3, 15)

# Two platforms, four chains: both reach the models hub through the configuration (one
# statement, config.py:2, cuts the chains to heavy.a and heavy.b from both), and the
# registry's import of the model module (registry.py:1) cuts the last.
PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/heavy/__init__.py": "",
    "pkg/heavy/a.py": "A = 1\n",
    "pkg/heavy/b.py": "B = 2\n",
    "pkg/heavy/models.py": "class Model:\n    pass\n",
    "pkg/platform_a.py": (
        'from pkg import config\nfrom pkg.registry import register\nregister("a")\n'
    ),
    "pkg/platform_b.py": 'from pkg import config\nprint("platform_b ran", config.MARK)\n',
    "pkg/config.py": (
        '"""The configuration."""\n'
        "import pkg.hub\n"
        'MARK = "config ran"\n'
        "def models():\n"
        "    return pkg.hub.MODELS\n"
    ),
    "pkg/hub.py": "from pkg.heavy import a, b\nMODELS = [a, b]\n",
    "pkg/registry.py": (
        "from pkg.heavy.models import Model\n"
        "NAMES = []\n"
        "def register(name):\n"
        "    NAMES.append(name)\n"
        "def build():\n"
        "    return Model()\n"
    ),
}

R4 = """\
[importlinter:contract:r4]
name = Platforms load no model
type = eager_imports
source_modules =
    pkg.platform_a
    pkg.platform_b
follow_modules =
    pkg
forbidden_modules =
    pkg.heavy
"""

KEYWORD_DIFF = """\
--- a/pkg/config.py
+++ b/pkg/config.py
@@ -1,5 +1,5 @@
 \"\"\"The configuration.\"\"\"
-import pkg.hub
+lazy import pkg.hub
 MARK = "config ran"
 def models():
     return pkg.hub.MODELS
--- a/pkg/registry.py
+++ b/pkg/registry.py
@@ -1,4 +1,4 @@
-from pkg.heavy.models import Model
+lazy from pkg.heavy.models import Model
 NAMES = []
 def register(name):
     NAMES.append(name)
"""

LAZY_MODULES_DIFF = """\
--- a/pkg/config.py
+++ b/pkg/config.py
@@ -1,4 +1,5 @@
 \"\"\"The configuration.\"\"\"
+__lazy_modules__ = ["pkg.hub"]
 import pkg.hub
 MARK = "config ran"
 def models():
--- a/pkg/registry.py
+++ b/pkg/registry.py
@@ -1,3 +1,4 @@
+__lazy_modules__ = ["pkg.heavy.models"]
 from pkg.heavy.models import Model
 NAMES = []
 def register(name):
"""


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    yield from project_in_repository(monkeypatch)


def fix(*args: str) -> Result:
    return CliRunner().invoke(main, ["fix", "--no-cache", *args], catch_exceptions=False)


def package(project: Project, version: str = "3.15", **changed: str) -> None:
    files = {**PACKAGE, **{f"pkg/{name}.py": text for name, text in changed.items()}}
    project.write(files)
    project.configure(R4, session=f"python_version = {version}\n")


def sources(project: Project) -> dict[str, str]:
    return {name: (project.root / name).read_text() for name in PACKAGE}


@pytest.mark.parametrize(
    ("form", "diff"), [("lazy", KEYWORD_DIFF), ("lazy-modules", LAZY_MODULES_DIFF)]
)
def test_the_diff_makes_the_smallest_cut_lazy_and_changes_nothing(
    project: Project, form: str, diff: str
) -> None:
    package(project)
    before = sources(project)
    result = fix("--form", form)
    assert (result.exit_code, result.stdout, result.stderr) == (1, diff, "")
    assert sources(project) == before


IN_FUNCTIONS_DIFF = """\
--- a/pkg/config.py
+++ b/pkg/config.py
@@ -1,5 +1,5 @@
 \"\"\"The configuration.\"\"\"
-import pkg.hub
 MARK = "config ran"
 def models():
+    import pkg.hub
     return pkg.hub.MODELS
--- a/pkg/registry.py
+++ b/pkg/registry.py
@@ -1,6 +1,6 @@
-from pkg.heavy.models import Model
 NAMES = []
 def register(name):
     NAMES.append(name)
 def build():
+    from pkg.heavy.models import Model
     return Model()
"""


def test_the_form_defaults_to_what_python_version_and_this_python_have(
    project: Project,
) -> None:
    package(project)
    # (The soft keyword only where the running Python can read it back, and lint after.)
    assert fix().stdout == (KEYWORD_DIFF if RUNNING_315 else LAZY_MODULES_DIFF)
    # Before 3.15, each import moves into the functions that use it.
    package(project, "3.12")
    result = fix("--write")
    assert (result.exit_code, result.stdout) == (0, IN_FUNCTIONS_DIFF)
    assert result.stderr == (
        "pkg/config.py: written.\n"
        "pkg/registry.py: written.\n"
        "importlinter-contracts: after the edit, contract r4 is KEPT.\n"
    )


def test_write_then_the_contract_is_kept(project: Project) -> None:
    package(project)
    result = fix("--form", "lazy-modules", "--write")
    assert (result.exit_code, result.stdout) == (0, LAZY_MODULES_DIFF)
    assert result.stderr == (
        "pkg/config.py: written.\n"
        "pkg/registry.py: written.\n"
        "importlinter-contracts: after the edit, contract r4 is KEPT.\n"
    )
    assert project.check().exit_code == 0
    again = fix("--form", "lazy-modules")
    assert (again.exit_code, again.stdout) == (0, "")
    assert again.stderr == "importlinter-contracts: nothing to defer.\n"


def test_lazy_modules_on_a_target_older_than_lazy_imports_says_it_changes_nothing(
    project: Project,
) -> None:
    package(project, "3.12")
    result = fix("--form", "lazy-modules", "--write")
    assert (result.exit_code, result.stdout) == (1, LAZY_MODULES_DIFF)
    assert result.stderr == (
        "importlinter-contracts: python_version is 3.12: __lazy_modules__ changes nothing "
        "before Python 3.15: these imports stay eager there, and the contracts, checked for "
        "3.12, stay broken.\n"
        "pkg/config.py: written.\n"
        "pkg/registry.py: written.\n"
        "importlinter-contracts: after the edit, contract r4 is BROKEN.\n"
    )


@pytest.mark.skipif(RUNNING_315, reason="Python 3.15 parses `lazy import` to check it")
def test_the_keyword_is_not_written_where_this_python_cannot_parse_it(
    project: Project,
) -> None:
    package(project)
    before = sources(project)
    result = fix("--form", "lazy", "--write")
    assert (result.exit_code, result.stdout) == (2, "")
    shown = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert result.stderr == (
        f"importlinter-contracts: --form lazy --write: Python {shown}, running here, cannot "
        "parse `lazy import`, so it could neither check the edited files nor lint them after; "
        "run it on Python 3.15 or later, or use --form lazy-modules.\n"
    )
    assert sources(project) == before


@pytest.mark.skipif(not RUNNING_315, reason="only Python 3.15 parses `lazy import` to check it")
def test_write_of_the_keyword_then_the_contract_is_kept(project: Project) -> None:
    package(project)
    result = fix("--write")
    assert (result.exit_code, result.stdout) == (0, KEYWORD_DIFF)
    assert result.stderr.endswith("importlinter-contracts: after the edit, contract r4 is KEPT.\n")


# The registry uses its model at import time: its import stays, and the cut has no other
# import of the same size to take instead that could be lazy.
USED = {
    "registry": (
        "from pkg.heavy.models import Model\n"
        "NAMES = []\n"
        "def register(name):\n"
        "    NAMES.append(name)\n"
        "DEFAULT = Model()\n"
    ),
    "platform_a": 'from pkg import config\nimport pkg.registry\npkg.registry.register("a")\n',
}


def test_an_import_used_at_import_time_is_never_made_lazy(project: Project) -> None:
    package(project, **USED)
    report = json.loads(project.check("--format", "json").stdout)
    (cut,) = [contract["smallest_cut"] for contract in report["contracts"]]
    refused = [s for s in cut["statements"] if s["import_time_use"] is not None]
    assert [(s["importer"], s["line"]) for s in refused] == [("pkg.registry", 1)]
    result = fix("--form", "lazy-modules", "--write")
    assert result.exit_code == 1
    assert "pkg/registry.py" not in result.stdout
    assert (project.root / "pkg/registry.py").read_text() == USED["registry"]
    assert result.stderr.splitlines()[0] == (
        "importlinter-contracts: pkg/registry.py:1: not made lazy: `Model` is used at import "
        "time at pkg/registry.py:5 (at module level): deferred, it would load there anyway."
    )
    assert result.stderr.splitlines()[-1] == (
        "importlinter-contracts: after the edit, contract r4 is BROKEN."
    )


def test_the_soft_keyword_before_3_15_is_refused_in_one_line(project: Project) -> None:
    package(project, "3.12")
    result = fix("--form", "lazy")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "importlinter-contracts: --form lazy: `lazy import` is a syntax error before Python "
        "3.15, and python_version is 3.12; use --form in-functions (the default there), or "
        "set python_version.\n"
    )


def test_a_file_changed_since_it_was_read_is_not_written(project: Project) -> None:
    path = project.root / "m.py"
    path.write_text("import a\n")
    with pytest.raises(FileWriteError) as raised:
        write([FileEdit("m.py", "import b\n", "lazy import b\n", (1,))])
    assert (
        str(raised.value) == "m.py changed since fix read it; nothing was written (run fix again)."
    )
    assert path.read_text() == "import a\n"


def run_on_315(project: Project, module: str) -> tuple[list[str], list[str]]:
    """What a fresh CPython 3.15 prints importing `module`, and the modules of `pkg.heavy`
    it has loaded then."""
    code = textwrap.dedent(
        f"""\
        import importlib, json, sys
        sys.path.insert(0, {str(project.root)!r})
        importlib.import_module({module!r})
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("pkg.heavy"))))
        """
    )
    completed = subprocess.run(
        [*interpreter((3, 15)), "-c", code], cwd=project.root, capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr
    *printed, loaded = completed.stdout.splitlines()
    return printed, json.loads(loaded)


SOURCES = ("pkg.platform_a", "pkg.platform_b")


@pytest.mark.parametrize("form", ["lazy", "lazy-modules"])
def test_after_fix_write_python_3_15_loads_no_forbidden_module(project: Project, form: str) -> None:
    if form == "lazy" and not RUNNING_315:
        pytest.skip("only Python 3.15 parses `lazy import`, to check the contract again")
    package(project)
    oracle.analyse_for((3, 15))
    try:
        before = {source: run_on_315(project, source) for source in SOURCES}
        assert before["pkg.platform_a"][1] == [
            "pkg.heavy",
            "pkg.heavy.a",
            "pkg.heavy.b",
            "pkg.heavy.models",
        ]
        for source in SOURCES:
            closure = oracle.eager_closure(project.root, source)
            assert sorted(m for m in closure if m.startswith("pkg.heavy")) == before[source][1]
        assert fix("--form", form, "--write").exit_code == 0
        for source in SOURCES:
            printed, loaded = run_on_315(project, source)
            assert loaded == []
            assert printed == before[source][0]  # (its import-time code ran as before)
            # The independent walk, for Python 3.15, agrees.
            closure = oracle.eager_closure(project.root, source)
            assert sorted(m for m in closure if m.startswith("pkg.heavy")) == loaded
    finally:
        oracle.analyse_for((sys.version_info[0], sys.version_info[1]))
    assert run_on_315(project, "pkg.platform_b")[0] == ["platform_b ran config ran"]


def test_a_broken_contract_with_nothing_to_defer_is_said(project: Project) -> None:
    package(project)
    project.configure(
        R4.replace("    pkg.heavy\n", "    pkg.heavy\nignore_imports =\n    pkg.a -> pkg.b\n"),
        session="python_version = 3.15\n",
    )
    fix("--form", "lazy-modules", "--write")
    result = fix()
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "importlinter-contracts: contract r4 is broken, and fix has nothing to defer for it: "
        "importlinter-contracts check says why.\n"
    )


def test_a_contract_of_another_type_is_refused_in_one_line(project: Project) -> None:
    package(project)
    forbidden = (
        "\n[importlinter:contract:f]\nname = F\ntype = forbidden\nsource_modules =\n"
        "    pkg.platform_a\nforbidden_modules =\n    pkg.hub\n"
    )
    project.configure(R4 + forbidden, session="python_version = 3.15\n")
    result = fix("--contract", "f")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "importlinter-contracts: Nothing to check: f (forbidden) is not an eager_imports "
        "contract, which fix reads the cut of.\n"
    )
    # (With every contract: the other is left out, not named.)
    assert fix().stderr == ""


def test_a_file_with_a_byte_order_mark_is_written_with_it_first(project: Project) -> None:
    package(project)
    path = project.root / "pkg/registry.py"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    result = fix("--form", "lazy-modules", "--write")
    assert result.exit_code == 0, result.stderr
    assert path.read_bytes() == (
        b'\xef\xbb\xbf__lazy_modules__ = ["pkg.heavy.models"]\n'
        + PACKAGE["pkg/registry.py"].encode()
    )


def test_a_file_changed_since_the_check_is_refused_in_one_line(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    package(project, config=PACKAGE["pkg/config.py"] + "def dump():\n    return json.dumps(1)\n")
    checked = fix_module.check_eager

    def then_a_line_added(*args: object) -> object:
        result = checked(*args)  # type: ignore[arg-type]
        path = project.root / "pkg/config.py"
        path.write_text(path.read_text().replace('"""\n', '"""\nimport json\n', 1))
        return result

    monkeypatch.setattr(fix_module, "check_eager", then_a_line_added)
    result = fix("--form", "lazy-modules", "--write")
    assert result.exit_code == 1
    assert "pkg/config.py" not in result.stdout
    assert "import json" in (project.root / "pkg/config.py").read_text().splitlines()[1]
    assert result.stderr.splitlines()[0] == (
        "importlinter-contracts: pkg/config.py:2: not made lazy: the file changed since the "
        "check: this line imports json, not pkg.hub (run fix again)."
    )


def test_every_file_is_found_writable_before_the_first_is_written(project: Project) -> None:
    package(project)
    before = sources(project)
    (project.root / "pkg/registry.py").chmod(0o444)
    result = fix("--form", "lazy-modules", "--write")
    assert (result.exit_code, result.stdout) == (2, LAZY_MODULES_DIFF)
    assert result.stderr == (
        "importlinter-contracts: pkg/registry.py is read-only; nothing was written.\n"
    )
    assert sources(project) == before


def test_a_write_that_fails_says_what_was_written_and_what_not(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    package(project)
    real = fix_module.write_atomically

    def full_disk_for_registry(path: Path, data: bytes) -> None:
        if path.name == "registry.py":
            raise FileWriteError(
                f"cannot write {path} (No space left on device); nothing was written.",
                "No space left on device",
            )
        real(path, data)

    monkeypatch.setattr(fix_module, "write_atomically", full_disk_for_registry)
    result = fix("--form", "lazy-modules", "--write")
    assert result.exit_code == 2
    assert result.stderr == (
        "importlinter-contracts: cannot write pkg/registry.py (No space left on device); "
        "nothing was written.\n"
        "importlinter-contracts: written: pkg/config.py; not written: pkg/registry.py.\n"
    )
    assert (
        (project.root / "pkg/config.py").read_text().startswith('"""The configuration."""\n__lazy')
    )
    assert (project.root / "pkg/registry.py").read_text() == PACKAGE["pkg/registry.py"]


def test_an_allowlist_entry_the_edit_leaves_stale_is_named(project: Project) -> None:
    package(project)
    project.configure(
        R4 + "ignore_imports =\n    pkg.config -> pkg.hub\n    pkg.registry -> pkg.heavy.models\n",
        session="python_version = 3.15\n",
    )
    assert project.check().exit_code == 0
    result = fix("--form", "lazy-modules", "--write")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "importlinter-contracts: after the edit, contract r4 is BROKEN: its allowlist entries "
        "pkg.config -> pkg.hub and pkg.registry -> pkg.heavy.models excuse no import now: "
        "importlinter-contracts allowlist --write removes them."
    )


# Two sources, two smallest cuts of two statements: {hub.py:1, used.py:1} and {hub.py:1,
# mid2.py:2}. used.py uses pkg.bad3 at import time, so only the second can be deferred.
TWO_SOURCES = {
    "pkg/__init__.py": "",
    "pkg/bad1.py": "ONE = 1\n",
    "pkg/bad2.py": "TWO = 2\n",
    "pkg/bad3.py": "THREE = 3\n",
    "pkg/core.py": "import pkg.bad1\nimport pkg.bad2\nTOTAL = pkg.bad1.ONE + pkg.bad2.TWO\n",
    "pkg/hub.py": "import pkg.core\ndef total():\n    return pkg.core.TOTAL\n",
    "pkg/used.py": "import pkg.bad3\nTHREE = pkg.bad3.THREE\n",
    "pkg/mid2.py": (
        '"""The middle."""\nimport pkg.used\ndef three():\n    return pkg.used.THREE\n'
    ),
    "pkg/src_a.py": "import pkg.hub\n",
    "pkg/src_b.py": "import pkg.hub\nimport pkg.mid2\n",
}

TWO_SOURCES_R4 = """\
[importlinter:contract:r4]
name = Sources load nothing bad
type = eager_imports
source_modules =
    pkg.src_a
    pkg.src_b
follow_modules =
    pkg
forbidden_modules =
    pkg.bad1
    pkg.bad2
    pkg.bad3
"""

TWO_SOURCES_DIFF = """\
--- a/pkg/hub.py
+++ b/pkg/hub.py
@@ -1,3 +1,4 @@
+__lazy_modules__ = ["pkg.core"]
 import pkg.core
 def total():
     return pkg.core.TOTAL
--- a/pkg/mid2.py
+++ b/pkg/mid2.py
@@ -1,4 +1,5 @@
 \"\"\"The middle.\"\"\"
+__lazy_modules__ = ["pkg.used"]
 import pkg.used
 def three():
     return pkg.used.THREE
"""


def test_the_cut_prefers_the_statements_the_form_can_defer(project: Project) -> None:
    project.write(TWO_SOURCES)
    project.configure(TWO_SOURCES_R4, session="python_version = 3.15\n")
    cut = project.report()["contracts"][0]["smallest_cut"]
    assert [(s["importer"], s["line"], s["not_lazy"]) for s in cut["statements"]] == [
        ("pkg.hub", 1, None),
        ("pkg.mid2", 2, None),
    ]
    result = fix("--form", "lazy-modules", "--write")
    assert (result.exit_code, result.stdout) == (0, TWO_SOURCES_DIFF)
    assert result.stderr == (
        "pkg/hub.py: written.\n"
        "pkg/mid2.py: written.\n"
        "importlinter-contracts: after the edit, contract r4 is KEPT.\n"
    )
    assert project.check().exit_code == 0
    code = textwrap.dedent(
        f"""\
        import importlib, json, sys
        sys.path.insert(0, {str(project.root)!r})
        for source in ("pkg.src_a", "pkg.src_b"):
            importlib.import_module(source)
        import pkg.hub, pkg.mid2
        loaded = sorted(m for m in sys.modules if m.startswith("pkg.bad"))
        print(json.dumps([sys.version_info[:2], loaded, pkg.hub.total(), pkg.mid2.three()]))
        """
    )
    completed = subprocess.run(
        [*interpreter((3, 15)), "-c", code], cwd=project.root, capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr
    # Nothing forbidden at import; each function still reaches its module when called.
    assert completed.stdout.splitlines()[-1] == json.dumps([[3, 15], [], 3, 3])
