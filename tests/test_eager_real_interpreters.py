"""Python 3.14 and 3.15 as the real interpreters run them: PEP 810 lazy imports, PEP 649/749
deferred annotations, PEP 758's `except A, B:` and t-strings. Each form is a synthetic
package imported by CPython 3.14 or 3.15 in a fresh process, and its `sys.modules` is
compared with the static closure analysed for that Python (`python_version`), and with the
independent walk in `tools/`. The interpreter is the one running the tests
(`tools/debian_testing.sh pytest 3.15`, which `.ci/run` runs), or else Debian testing's, in
the chroot `tools/debian_testing.sh` prepares; where neither can be had, or where this
Python cannot parse the form to analyse it, the test skips and says why."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import ast_walk as oracle
from helpers import REPO, Project
from importlinter_contracts import explore

pytestmark = pytest.mark.matrix

RUNNING = (sys.version_info[0], sys.version_info[1])
SCRIPT = REPO / "tools/debian_testing.sh"
CHROOT = Path(
    os.environ.get("IMPORTLINTER_CONTRACTS_DEBIAN")
    or Path.home() / ".cache/importlinter-contracts/debian-testing"
)


def interpreter(version: tuple[int, int]) -> list[str]:
    """The command that runs CPython `version`: this one, one on PATH, or the chroot's."""
    if version == RUNNING:
        return [sys.executable]
    shown = f"{version[0]}.{version[1]}"
    on_path = shutil.which(f"python{shown}")
    if on_path:
        return [on_path, "-I"]
    if not (os.geteuid() == 0 and (CHROOT / ".ready").exists() and shutil.which("unshare")):
        pytest.skip(
            f"CPython {shown} cannot be had here: the tests run on {RUNNING[0]}.{RUNNING[1]}, "
            "and the Debian testing chroot is not prepared (as root: tools/debian_testing.sh "
            "prepare)"
        )
    return [str(SCRIPT), "run", f"python{shown}"]


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    """A synthetic package inside the repository, which the chroot mounts."""
    parent = REPO / ".cache" / "real-interpreters"
    parent.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=parent))
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    yield Project(root)
    shutil.rmtree(root, ignore_errors=True)


LIBRARY = {
    "pkg/__init__.py": "",
    "pkg/heavy/__init__.py": "",
    "pkg/heavy/a.py": "X = 1\nclass Y:\n    pass\ndef deco(f):\n    return f\n",
    "pkg/heavy/b.py": "X = 2\n",
    "pkg/loader.py": "def g():\n    import pkg.heavy.a\n    return int\n",
}

# A module that binds `a` lazily and uses it nowhere (for Python 3.15).
LAZY_MODULE = {"pkg/lazymod.py": "lazy from pkg.heavy import a\nother = 1\n"}

R4 = """\
[importlinter:contract:r4]
name = Loads nothing heavy
type = eager_imports
source_modules =
    pkg.source
follow_modules =
    pkg
forbidden_modules =
    pkg.heavy
"""

ON_314_AND_315 = pytest.mark.parametrize("version", [(3, 14), (3, 15)], ids=["3.14", "3.15"])
ON_315 = pytest.mark.parametrize("version", [(3, 15)], ids=["3.15"])


def loaded_by_python(
    project: Project, module: str, version: tuple[int, int], *options: str
) -> set[str]:
    """The modules of `pkg` that importing `module` loads, in a fresh CPython `version`
    (with the interpreter's `options`: `-X lazy_imports=all`). (`importlib`, as a plain
    `import` is itself lazy under `-X lazy_imports=all`; the folder is put on sys.path by
    hand, as `-I` leaves it out.)"""
    code = textwrap.dedent(
        f"""\
        import importlib, json, os, sys
        os.chdir({str(project.root)!r})
        sys.path.insert(0, {str(project.root)!r})
        importlib.import_module({module!r})
        print(json.dumps(sorted(m for m in sys.modules if m == "pkg" or m.startswith("pkg."))))
        """
    )
    completed = subprocess.run(
        [*interpreter(version), *options, "-c", code],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(completed.stdout.splitlines()[-1]))


@pytest.fixture(autouse=True)
def _oracle_for_the_running_python() -> Iterator[None]:
    yield
    oracle.analyse_for(RUNNING)


def closure(
    project: Project, source: str, version: tuple[int, int], mode: str = "normal"
) -> tuple[set[str], set[str]]:
    """What the analysis for Python `version` says importing `pkg.source` loads (and the
    independent `ast` walk in `tools/` says the same), and what that Python loads."""
    files = {**LIBRARY, **(LAZY_MODULE if "lazymod" in source else {}), "pkg/source.py": source}
    for text in files.values():
        try:
            ast.parse(text)
        except SyntaxError:
            pytest.skip(f"this Python ({RUNNING[0]}.{RUNNING[1]}) cannot parse the form")
    project.write(files)
    shown = f"{version[0]}.{version[1]}"
    project.configure(R4, session=f"python_version = {shown}\nlazy_imports = {mode}\n")
    options = ["-X", "lazy_imports=all"] if mode == "all" else []
    loaded = loaded_by_python(project, "pkg.source", version, *options)
    static = set(explore.load(cache_dir=None).eager_closure("pkg.source"))
    oracle.analyse_for(version, mode)
    assert oracle.eager_closure(project.root, "pkg.source") == static
    return static, loaded


LAZY = {
    "an unused lazy import": "lazy import pkg.heavy.a\n",
    "an unused lazy from": "lazy from pkg.heavy.a import X\n",
    "a lazy import in an if": "if True:\n    lazy import pkg.heavy.a\n",
    "a lazy import in a with": (
        "import contextlib\nwith contextlib.nullcontext():\n    lazy import pkg.heavy.a\n"
    ),
    "used by an attribute read": "lazy import pkg.heavy.a\nv = pkg.heavy.a.Y\n",
    "used as a base class": "lazy from pkg.heavy.a import Y\nclass C(Y):\n    pass\n",
    "used as a decorator": "lazy from pkg.heavy.a import deco\n@deco\ndef f():\n    pass\n",
    "used as a default": "lazy from pkg.heavy import a\ndef f(x=a):\n    pass\n",
    "used by a function called": "lazy from pkg.heavy import a\ndef f():\n    return a.X\nf()\n",
    "used by a function not called": "lazy from pkg.heavy import a\ndef f():\n    return a.X\n",
    "used in a class body": "lazy from pkg.heavy import a\nclass C:\n    x = a.X\n",
    "used only in a lambda": "lazy from pkg.heavy import a\nf = lambda: a.X\n",
    "used only in an annotation": "lazy from pkg.heavy.a import Y\ndef f(x: Y) -> Y:\n    pass\n",
    "__lazy_modules__": '__lazy_modules__ = ["pkg.heavy.a"]\nimport pkg.heavy.a\n',
    "__lazy_modules__ in an if": 'if True:\n    __lazy_modules__ = ("pkg.heavy.a",)\nimport pkg.heavy.a\n',
    "__lazy_modules__ of a from import": '__lazy_modules__ = ["pkg.heavy"]\nfrom pkg.heavy import a\n',
    "__lazy_modules__ not of the submodule": '__lazy_modules__ = ["pkg"]\nimport pkg.heavy.a\n',
    "__lazy_modules__, in a try": (
        '__lazy_modules__ = ["pkg.heavy.a"]\ntry:\n    import pkg.heavy.a\nexcept ImportError:\n'
        "    pass\n"
    ),
    "__lazy_modules__, in a with": (
        '__lazy_modules__ = ["pkg.heavy.a"]\nimport contextlib\n'
        "with contextlib.nullcontext():\n    import pkg.heavy.a\n"
    ),
    "__lazy_modules__, a star import": '__lazy_modules__ = ["pkg.heavy.a"]\nfrom pkg.heavy.a import *\n',
    "__lazy_modules__, used": '__lazy_modules__ = ["pkg.heavy.a"]\nimport pkg.heavy.a\nx = pkg.heavy.a.X\n',
    "__lazy_modules__ set after": 'import pkg.heavy.a\n__lazy_modules__ = ["pkg.heavy.a"]\n',
    "a from import of a name another module binds lazily": "from pkg.lazymod import a\n",
    "a star import of a module that binds a name lazily": "from pkg.lazymod import *\n",
    "a from import of another name": "from pkg.lazymod import other\n",
    "a from import of a lazily bound name, in a function called": (
        "def f():\n    from pkg.lazymod import a\nf()\n"
    ),
}


# Not followed (documented): a lazily bound name of another module looked up as an
# attribute loads it in Python; the analysis does not see it.
LAZY_NOT_FOLLOWED = {
    "an attribute read of a name another module binds lazily": (
        "import pkg.lazymod\nx = pkg.lazymod.a\n"
    ),
}


@ON_315
@pytest.mark.parametrize("source", LAZY_NOT_FOLLOWED.values(), ids=LAZY_NOT_FOLLOWED.keys())
def test_lazy_forms_not_followed_load_more_in_python(
    project: Project, source: str, version: tuple[int, int]
) -> None:
    static, loaded = closure(project, source, version)
    assert static < loaded


@ON_315
@pytest.mark.parametrize("source", LAZY.values(), ids=LAZY.keys())
def test_lazy_imports_load_what_python_loads(
    project: Project, source: str, version: tuple[int, int]
) -> None:
    static, loaded = closure(project, source, version)
    assert static == loaded


@pytest.mark.skipif(RUNNING < (3, 15), reason="only Python 3.15 parses `lazy import`")
def test_the_chain_says_where_a_lazy_import_is_first_used(project: Project) -> None:
    source = "lazy from pkg.heavy import a\ndef f():\n    return a.X\nv = 1\nf()\n"
    project.write(
        {**LIBRARY, "pkg/source.py": source, "pkg/user.py": "from pkg.lazymod import a\n"}
    )
    project.write(LAZY_MODULE)
    project.configure(R4.replace("pkg.source\n", "pkg.source\n    pkg.user\n"))
    hops = [
        (hop["importer"], hop["why"])
        for violation in project.contract("r4")["violations"]
        for hop in violation["chain"][-1:]
    ]
    assert sorted(hops) == [
        ("pkg.lazymod", ["lazy import at l.1, first used by the import at l.1 of pkg.user"]),
        (
            "pkg.source",
            ["lazy import at l.1, first used inside def f, called at import time at l.5"],
        ),
    ]


ALL = {
    "module level": "import pkg.heavy.a\n",
    "in a try": "try:\n    import pkg.heavy.a\nexcept ImportError:\n    pass\n",
    "a star import": "from pkg.heavy.a import *\n",
    "in a class body": "class C:\n    import pkg.heavy.a\n",
    "in a function called": "def f():\n    import pkg.heavy.a\nf()\n",
    "used": "import pkg.heavy.a\nx = pkg.heavy.a.X\n",
}


@ON_315
@pytest.mark.parametrize("source", ALL.values(), ids=ALL.keys())
def test_lazy_imports_all_loads_what_python_loads_with_it(
    project: Project, source: str, version: tuple[int, int]
) -> None:
    static, loaded = closure(project, source, version, "all")
    assert static == loaded


# Taken loosely (more loaded than Python, never less): a filter that may refuse any lazy
# import makes every import after it eager.
LAZY_LOOSELY = {
    "after set_lazy_imports_filter": (
        "import sys\nsys.set_lazy_imports_filter(lambda *names: True)\nlazy import pkg.heavy.a\n"
    ),
}


@ON_315
@pytest.mark.parametrize("source", LAZY_LOOSELY.values(), ids=LAZY_LOOSELY.keys())
def test_lazy_forms_taken_loosely_load_more_never_less(
    project: Project, source: str, version: tuple[int, int]
) -> None:
    static, loaded = closure(project, source, version)
    assert static > loaded


ANNOTATIONS = {
    "of a def": "from pkg.loader import g\ndef f(x: g()) -> g():\n    pass\n",
    "of a class body": "from pkg.loader import g\nclass C:\n    y: g()\n",
    "of the module": "from pkg.loader import g\nz: g()\n",
    "of a dataclass": (
        "import dataclasses\nfrom pkg.loader import g\n@dataclasses.dataclass\nclass C:\n"
        "    y: g()\n"
    ),
    "asked for by inspect": (
        "import inspect\nfrom pkg.loader import g\ndef f(x: g()):\n    pass\n"
        "inspect.get_annotations(f)\n"
    ),
    "as strings": (
        "from __future__ import annotations\nimport dataclasses\nfrom pkg.loader import g\n"
        "@dataclasses.dataclass\nclass C:\n    y: g()\n"
    ),
    "PEP 758 except": "try:\n    import pkg.heavy.a\nexcept ValueError, TypeError:\n    pass\n",
    "a t-string": 'from pkg.loader import g\nx = t"{g()}"\n',
}


@ON_314_AND_315
@pytest.mark.parametrize("source", ANNOTATIONS.values(), ids=ANNOTATIONS.keys())
def test_annotations_and_new_syntax_load_what_python_loads(
    project: Project, source: str, version: tuple[int, int]
) -> None:
    static, loaded = closure(project, source, version)
    assert static == loaded


# Taken loosely: a decorated def, a class with a decorator or a base, may ask for its
# annotations (a base's `__init_subclass__`, a metaclass, `singledispatch.register`).
ANNOTATIONS_LOOSELY = {
    "of a decorated def": (
        "import functools\nfrom pkg.loader import g\n@functools.cache\ndef f(x: g()):\n    pass\n"
    ),
    "of a class with a base": "from pkg.loader import g\nclass C(object):\n    y: g()\n",
}


@ON_314_AND_315
@pytest.mark.parametrize("source", ANNOTATIONS_LOOSELY.values(), ids=ANNOTATIONS_LOOSELY.keys())
def test_annotations_taken_loosely_load_more_never_less(
    project: Project, source: str, version: tuple[int, int]
) -> None:
    static, loaded = closure(project, source, version)
    assert static > loaded
