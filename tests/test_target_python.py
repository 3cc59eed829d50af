"""The target Python (`python_version`, `lazy_imports`): a module that keeps R4 with PEP 810
is kept when analysed for 3.15 and broken when analysed for 3.12, and the options' bad
values are one line each."""

from __future__ import annotations

import sys

import pytest

from helpers import Project, imports_of

pytestmark = pytest.mark.matrix

R4 = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules =
    pkg.platform
follow_modules =
    pkg
forbidden_modules =
    pkg.models
"""

LIBRARY = {"pkg/__init__.py": "", "pkg/models/__init__.py": "", "pkg/models/llama.py": ""}
BROKEN = {("pkg.platform", "pkg.models.llama")}


def analysed(project: Project, source: str, version: str) -> set[tuple[str, str]]:
    project.write({**LIBRARY, "pkg/platform.py": source})
    project.configure(R4, session=f"python_version = {version}\n")
    return imports_of(project.contract("r4")["violations"])


LAZY_MODULES = '__lazy_modules__ = ["pkg.models.llama"]\nimport pkg.models.llama\n'


def test_lazy_modules_keep_r4_for_315_and_not_for_312(project: Project) -> None:
    assert analysed(project, LAZY_MODULES, "3.15") == set()
    assert analysed(project, LAZY_MODULES, "3.12") == BROKEN


def test_a_lazy_module_used_at_import_time_breaks_r4_for_315(project: Project) -> None:
    source = '__lazy_modules__ = ["pkg.models.llama"]\nimport pkg.models.llama\nx = pkg.models\n'
    project.write({**LIBRARY, "pkg/platform.py": source})
    project.configure(R4, session="python_version = 3.15\n")
    (violation,) = project.contract("r4")["violations"]
    assert violation["chain"][0]["why"] == [
        "lazy by __lazy_modules__ (l.1) at l.2, first used at import time at l.3"
    ]


@pytest.mark.skipif(sys.version_info < (3, 15), reason="only Python 3.15 parses `lazy import`")
def test_a_lazy_import_keeps_r4_for_315(project: Project) -> None:
    assert analysed(project, "lazy import pkg.models.llama\n", "3.15") == set()


def one_line_error(project: Project, message: str) -> None:
    result = project.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"importlinter-contracts: {message}\n"


def test_a_lazy_import_analysed_for_312_is_refused_with_file_and_line(project: Project) -> None:
    project.write({**LIBRARY, "pkg/platform.py": "import os\nlazy import pkg.models.llama\n"})
    project.configure(R4, session="python_version = 3.12\n")
    one_line_error(
        project,
        'Contract "R4": pkg/platform.py: cannot classify its imports: line 2: `lazy import` '
        "is a syntax error before Python 3.15, and python_version is 3.12",
    )


@pytest.mark.skipif(sys.version_info >= (3, 15), reason="this Python parses `lazy import`")
def test_a_used_lazy_import_this_python_cannot_parse_is_refused(project: Project) -> None:
    project.write({**LIBRARY, "pkg/platform.py": "lazy import pkg.models.llama\nx = pkg\n"})
    project.configure(R4, session="python_version = 3.15\n")
    shown = f"{sys.version_info[0]}.{sys.version_info[1]}"
    one_line_error(
        project,
        'Contract "R4": pkg/platform.py: cannot classify its imports: line 1: Python '
        f"{shown} cannot parse this `lazy import`, and whether code running at import time "
        "uses pkg decides whether it runs then (python_version 3.15): run the linter on "
        "Python 3.15 or newer",
    )


@pytest.mark.skipif(sys.version_info >= (3, 15), reason="this Python parses `lazy import`")
def test_an_unused_lazy_import_this_python_cannot_parse_is_read(project: Project) -> None:
    assert analysed(project, "lazy import pkg.models.llama\n", "3.15") == set()


@pytest.mark.parametrize(
    ("session", "message"),
    [
        (
            "python_version = 3\n",
            ".importlinter [importlinter]: python_version = '3': not a Python 3 version; write it as mypy "
            'does, as a string such as "3.15".',
        ),
        (
            "lazy_imports = none\n",
            ".importlinter [importlinter]: lazy_imports = 'none': not a mode; use normal or all (CPython "
            "3.15 has no `none` mode: -X lazy_imports takes normal or all).",
        ),
        (
            "python_version = 3.12\nlazy_imports = all\n",
            ".importlinter [importlinter]: lazy_imports = all: lazy imports need Python 3.15, and "
            "python_version is 3.12.",
        ),
    ],
    ids=["version", "none", "all before 3.15"],
)
def test_bad_target_options_are_one_line(project: Project, session: str, message: str) -> None:
    project.write({**LIBRARY, "pkg/platform.py": "import os\n"})
    project.configure(R4, session=session)
    one_line_error(project, message)


RUNTIME = """\
[importlinter:contract:runtime]
name = Models stay unloaded
type = runtime_isolation
blocked_modules =
    fakesdk
probe_modules =
    pkg.platform
forbidden_loaded_modules =
    pkg.models
"""


@pytest.mark.skipif(sys.version_info >= (3, 15), reason="this Python has lazy imports")
def test_the_runtime_contract_says_when_its_child_has_no_lazy_imports(project: Project) -> None:
    project.write({**LIBRARY, "pkg/platform.py": "import pkg.models.llama\n"})
    project.configure(RUNTIME, session="python_version = 3.15\nlazy_imports = all\n")
    one_line_error(
        project,
        'Contract "Models stay unloaded" is not configured correctly: python: '
        f"'{sys.executable}' has no lazy imports (Python 3.15 has them): its child cannot run "
        "with -X lazy_imports=all, as the [importlinter] section's lazy_imports says.",
    )


@pytest.mark.skipif(sys.version_info < (3, 15), reason="needs Python 3.15's lazy imports")
@pytest.mark.parametrize(("mode", "kept"), [("normal", False), ("all", True)])
def test_the_runtime_contract_runs_its_child_in_the_lazy_imports_mode(
    project: Project, mode: str, kept: bool
) -> None:
    project.write({**LIBRARY, "pkg/platform.py": "import pkg.models.llama\n"})
    project.configure(RUNTIME, session=f"lazy_imports = {mode}\n")
    assert project.contract("runtime")["kept"] is kept


def test_what_the_caches_keep_is_kept_per_target(project: Project) -> None:
    project.write({**LIBRARY, "pkg/platform.py": LAZY_MODULES})
    for version, exit_code in [("3.15", 0), ("3.12", 1), ("3.15", 0), ("3.12", 1)]:
        project.configure(R4, session=f"python_version = {version}\n")
        assert project.check_with_cache().exit_code == exit_code, version
