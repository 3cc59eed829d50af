"""Whether an import's names are used at import time (`eager/import_time_uses.py`), against CPython
3.15: each form of use stands in a module whose import `__lazy_modules__` makes lazy, and a
fresh 3.15 process importing the module says whether the import loaded (a use at import time
loads it then). The expectations come from the interpreter; where CPython is not to be had,
the comparison skips and the reading's own answer is still asserted."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_eager_real_interpreters import interpreter

from helpers import REPO, Project
from importlinter_contracts.eager.deferrable import NotLazy, why_not_lazy
from importlinter_contracts.eager.import_time_uses import ImportTimeUse, import_time_uses
from importlinter_contracts.errors import UnreadableSourceError

pytestmark = pytest.mark.matrix

HEAVY = {
    "pkg/__init__.py": "",
    "pkg/heavy.py": (
        "class H:\n    X = 1\n    @staticmethod\n    def deco(f):\n        return f\n"
    ),
}

# Each form of use of `H` (bound on line 2 by `from pkg.heavy import H`, which line 1 makes
# lazy) and the line of the use at import time (None: no use then).
FORMS: dict[str, tuple[str, int | None, str]] = {
    "module level": ("X = H.X\n", 3, "at module level"),
    "an if test": ("if H:\n    pass\n", 3, "at module level"),
    "a comprehension": ("L = [H for _ in range(1)]\n", 3, "at module level"),
    "an f-string": ('S = f"{H}"\n', 3, "at module level"),
    "a try body": ("try:\n    H\nexcept Exception:\n    pass\n", 4, "at module level"),
    "a class body": ("class C:\n    y = H\n", 4, "in the body of class C"),
    "a class base": ("class C(H):\n    pass\n", 3, "in a base of class C"),
    "a decorator": ("@H.deco\ndef f():\n    pass\n", 3, "in a decorator of f"),
    "a default value": ("def f(x=H):\n    pass\n", 3, "in a default value of f"),
    "a function called at import time": (
        "def f():\n    return H\nf()\n",
        4,
        "in f, called at import time at l.5",
    ),
    "a function called through another": (
        "def f():\n    return g()\ndef g():\n    return H\nf()\n",
        6,
        "in g, called at import time at l.7",
    ),
    "a static method called at import time": (
        "class C:\n    @staticmethod\n    def m():\n        return H\nC.m()\n",
        6,
        "in C.m, called at import time at l.7",
    ),
    "a lambda called at import time": (
        "v = lambda: H\nW = v()\n",
        3,
        "in v, which code run at import time names at l.4",
    ),
    "a lambda called where it stands": ("W = (lambda: H)()\n", 3, "in a lambda at l.3"),
    "a lambda passed to a call": ("L = list(map(lambda _: H, [1]))\n", 3, "in a lambda at l.3"),
    "a function passed to a call": (
        "def f(_):\n    return H\nL = list(map(f, [1]))\n",
        4,
        "in f, which code run at import time names at l.5",
    ),
    "a lambda as a decorator": (
        "deco = lambda f: (H, f)[1]\n@deco\ndef k():\n    pass\n",
        3,
        "in deco, which code run at import time names at l.4",
    ),
    "a class instantiated at import time": (
        "class C:\n    def __init__(self):\n        self.h = H\nC()\n",
        5,
        "in C.__init__, whose class code run at import time names at l.6",
    ),
    "a method called on an instance": (
        "class C:\n    def m(self):\n        return H\nC().m()\n",
        5,
        "in C.m, whose name code run at import time reads at l.6",
    ),
    "a function not called": ("def f():\n    return H\n", None, ""),
    "a lambda not called": ("g = lambda: H\n", None, ""),
    # Python 3.15 evaluates annotations only when asked for (PEP 649).
    "an annotation of a def": ("def f(x: H) -> H:\n    pass\n", None, ""),
    "a variable's annotation": ("v: H = 1\n", None, ""),
    "a class body's annotation": ("class C:\n    v: H\n", None, ""),
    "a use in a function's default, not called": (
        "def f():\n    def g(x=H):\n        pass\n",
        None,
        "",
    ),
}

HEADER = '__lazy_modules__ = ["pkg.heavy"]\nfrom pkg.heavy import H\n'


def project_in_repository(monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    """A synthetic package inside the repository, which the chroot mounts, as the working
    directory."""
    parent = REPO / ".cache" / "real-interpreters"
    parent.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(dir=parent))
    monkeypatch.chdir(root)
    yield Project(root)
    shutil.rmtree(root, ignore_errors=True)


project = pytest.fixture(project_in_repository, name="project")


def loads_heavy_on_315(project: Project, module: str) -> bool:
    """Whether CPython 3.15, importing `module` in a fresh process, loads `pkg.heavy`."""
    code = textwrap.dedent(
        f"""\
        import importlib, json, sys
        sys.path.insert(0, {str(project.root)!r})
        importlib.import_module({module!r})
        print(json.dumps("pkg.heavy" in sys.modules))
        """
    )
    completed = subprocess.run(
        [*interpreter((3, 15)), "-c", code],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
    )
    return bool(json.loads(completed.stdout.splitlines()[-1]))


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_a_use_at_import_time_is_found_where_python_loads_the_import(
    project: Project, form: tuple[str, int | None, str]
) -> None:
    code, line, how = form
    source = HEADER + code
    project.write({**HEAVY, "pkg/user.py": source})
    found = import_time_uses("pkg/user.py", source.encode(), {2})
    expected = () if line is None else (ImportTimeUse("pkg/user.py", line, "H", how),)
    assert found == {2: expected}
    assert loads_heavy_on_315(project, "pkg.user") == (line is not None)


def test_a_decorated_def_s_annotation_is_taken_as_evaluated() -> None:
    """Conservative: a decorator may ask for the annotations (`functools.singledispatch`),
    so the reading takes them as evaluated, as the engine does."""
    source = HEADER + "def deco(f):\n    return f\n@deco\ndef f(x: H):\n    pass\n"
    found = import_time_uses("m.py", source.encode(), {2})
    assert found == {2: (ImportTimeUse("m.py", 6, "H", "in an annotation of f"),)}


def test_every_name_an_import_binds_is_read() -> None:
    source = "import a.b\nimport c as d\nfrom e import f, g\nx = a.b\ny = d\nz = g\n"
    found = import_time_uses("m.py", source.encode(), {1, 2, 3})
    assert found == {
        1: (ImportTimeUse("m.py", 4, "a", "at module level"),),
        2: (ImportTimeUse("m.py", 5, "d", "at module level"),),
        3: (ImportTimeUse("m.py", 6, "g", "at module level"),),
    }


def test_only_module_level_imports_are_answered() -> None:
    source = "def f():\n    import a\n    return a\nclass C:\n    import b\n"
    assert import_time_uses("m.py", source.encode(), {2, 5}) == {}


def test_a_file_this_python_cannot_parse_is_refused() -> None:
    with pytest.raises(UnreadableSourceError) as raised:
        import_time_uses("m.py", b"import a\nx = (\n", {1})
    assert str(raised.value).startswith("m.py: cannot be parsed by this Python (") and str(
        raised.value
    ).endswith("), so the uses of its imports cannot be read")


def test_the_cut_s_question_is_answered_for_one_statement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("import a\nx = a\n")
    use = ImportTimeUse("m.py", 2, "a", "at module level")
    assert why_not_lazy(tmp_path / "m.py", [1]) == {
        1: NotLazy(f"{use}: deferred, it would load there anyway", use)
    }
    (tmp_path / "m.py").write_text("import a\nf = lambda: a\n")
    assert why_not_lazy(tmp_path / "m.py", [1]) == {1: None}
    (tmp_path / "m.py").write_text("import a\nx = (\n")
    with pytest.raises(UnreadableSourceError) as raised:
        why_not_lazy(tmp_path / "m.py", [1])
    assert str(raised.value).startswith("m.py: Python 3.")
    assert ", running here, cannot parse the file (" in str(raised.value)
