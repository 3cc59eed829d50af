"""The edit that makes an import lazy (`deferral/edit.py`): the exact text of each form, every
import it refuses (with the exact reason), and CPython 3.15 running the edited modules: what
was deferred is not loaded, and the module's own import-time code still runs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest
from test_deferral_functions import python
from test_deferral_uses import HEAVY, project_in_repository
from test_eager_real_interpreters import interpreter

from helpers import Project
from importlinter_contracts.deferral import edit as edit_module
from importlinter_contracts.deferral.edit import (
    KEYWORD,
    LAZY_MODULES,
    FileEdit,
    Refusal,
    check_edited,
    lazy_edits,
)
from importlinter_contracts.eager.target import Target, set_target

pytestmark = pytest.mark.matrix

RUNNING_315 = sys.version_info >= (3, 15)


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    yield from project_in_repository(monkeypatch)


SOURCE = '''\
"""A module."""
from __future__ import annotations
import os
import pkg.heavy
from pkg.light import Light
print("marker", os.sep)
def f():
    return pkg.heavy.H, Light
'''


def edit(files: dict[str, str], project: Project, lines: list[int], form: str) -> str:
    project.write(files)
    found = lazy_edits([("pkg/user.py", line) for line in lines], form)
    assert found.refused == []
    (done,) = found.edits
    return done.edited


def test_lazy_modules_is_created_after_the_docstring_and_future_imports(
    project: Project,
) -> None:
    edited = edit({"pkg/user.py": SOURCE}, project, [4, 5], LAZY_MODULES)
    assert edited == SOURCE.replace(
        "from __future__ import annotations\n",
        'from __future__ import annotations\n__lazy_modules__ = ["pkg.heavy", "pkg.light"]\n',
    )


@pytest.mark.parametrize(
    ("declared", "extended"),
    [
        ('["a"]', '["a", "pkg.heavy"]'),
        ('("a",)', '("a", "pkg.heavy")'),
        ('{"a"}', '{"a", "pkg.heavy"}'),
        ("[]", '["pkg.heavy"]'),
        ("()", '("pkg.heavy",)'),
        ('[\n    "a",\n]', '[\n    "a",\n    "pkg.heavy",\n]'),
    ],
    ids=["a list", "a tuple", "a set", "an empty list", "an empty tuple", "over lines"],
)
def test_an_existing_lazy_modules_is_extended(
    project: Project, declared: str, extended: str
) -> None:
    source = f"__lazy_modules__ = {declared}\nimport pkg.heavy\nx = lambda: pkg.heavy\n"
    lines = [2 + declared.count("\n")]
    edited = edit({"pkg/user.py": source}, project, lines, LAZY_MODULES)
    assert edited == f"__lazy_modules__ = {extended}\nimport pkg.heavy\nx = lambda: pkg.heavy\n"


def test_the_keyword_goes_before_each_import(project: Project) -> None:
    source = SOURCE.replace("import os\n", "import os\nif os.sep:\n    import pkg.x as x\n")
    source += "def g():\n    return x\n"
    edited = edit({"pkg/user.py": source}, project, [5, 6, 7], KEYWORD)
    assert edited == source.replace("import pkg.heavy", "lazy import pkg.heavy").replace(
        "from pkg.light", "lazy from pkg.light"
    ).replace("    import pkg.x", "    lazy import pkg.x")


def test_line_ends_are_kept(project: Project) -> None:
    source = "import os\r\nimport pkg.heavy\r\nf = lambda: pkg.heavy\r\n"
    path = project.root / "pkg/user.py"
    path.parent.mkdir(parents=True)
    path.write_bytes(source.encode())
    (done,) = lazy_edits([("pkg/user.py", 2)], LAZY_MODULES).edits
    assert done.edited == '__lazy_modules__ = ["pkg.heavy"]\r\n' + source


# Each import refused, and the exact reason.
REFUSED = {
    "a star import": (
        "from pkg.heavy import *\n",
        1,
        "a star import (`from ... import *`) cannot be lazy",
    ),
    "in a try": (
        "try:\n    import pkg.heavy\nexcept ImportError:\n    pass\nf = lambda: pkg.heavy\n",
        2,
        "it is inside a `try` statement, where an import cannot be lazy (an ImportError it "
        "catches would be raised at the first use instead)",
    ),
    "in a function": (
        "def f():\n    import pkg.heavy\n    return pkg.heavy\n",
        2,
        "it is inside `def f`, which runs it only when called: the call that runs it at "
        "import time is what to defer (fix does not edit calls)",
    ),
    "in a class body": (
        "class C:\n    import pkg.heavy\n",
        2,
        "it is in the body of class C, where an import cannot be lazy",
    ),
    "on a line with another statement": (
        "import pkg.heavy; x = 1\nf = lambda: pkg.heavy\n",
        1,
        "it shares its line with another statement, which the edit would change too",
    ),
    "on the line of its if": (
        "if True: import pkg.heavy\nf = lambda: pkg.heavy\n",
        1,
        "it shares its line with another statement, which the edit would change too",
    ),
    "under TYPE_CHECKING": (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.heavy\n"
        "f = lambda: pkg.heavy\n",
        3,
        "it does not run at import time already (under if TYPE_CHECKING)",
    ),
    "used at import time": (
        "from pkg.heavy import H\nclass C(H):\n    pass\n",
        1,
        "`H` is used at import time at pkg/user.py:2 (in a base of class C): deferred, it "
        "would load there anyway",
    ),
    "used by a function called at import time": (
        "from pkg.heavy import H\ndef f():\n    return H\nf()\n",
        1,
        "`H` is used at import time at pkg/user.py:3 (in f, called at import time at l.4): "
        "deferred, it would load there anyway",
    ),
    "imported for what importing does": (
        "import pkg.heavy\n",
        1,
        "no name it binds is used in the file or listed in its __all__: an import made for "
        "what importing the module does, which deferred would never run",
    ),
    "a submodule imported for what importing does": (
        "import pkg.heavy\nimport pkg.light\nf = lambda: pkg.light\n",
        1,
        "no name it binds is used in the file or listed in its __all__: an import made for "
        "what importing the module does, which deferred would never run",
    ),
    "a from import for what importing does": (
        "from pkg import heavy as _heavy  # noqa: F401 (registers)\n",
        1,
        "no name it binds is used in the file or listed in its __all__: an import made for "
        "what importing the module does, which deferred would never run",
    ),
    "a from import for what importing does, __all__ listing another": (
        '__all__ = ["Light"]\nfrom pkg.heavy import H\nfrom pkg.light import Light\n',
        2,
        "no name it binds is used in the file or listed in its __all__: an import made for "
        "what importing the module does, which deferred would never run",
    ),
    "a __future__ import": (
        "from __future__ import annotations\n",
        1,
        "a `__future__` import cannot be lazy",
    ),
    "no import on the line": ("x = 1\n", 1, "no import statement starts on this line"),
    "a file that names the filter": (
        "import sys\nimport pkg.heavy\nf = lambda: pkg.heavy\nsys.set_lazy_imports_filter(None)\n",
        2,
        "the file names set_lazy_imports_filter, which may refuse any lazy import",
    ),
}

REFUSED_AS_LAZY_MODULES = {
    "a relative import": (
        "from .heavy import H\nf = lambda: H\n",
        1,
        "a relative import, which the linter does not look up in __lazy_modules__: write it "
        "absolute, or use --form lazy",
    ),
    "__lazy_modules__ assigned after": (
        "import pkg.heavy\n__lazy_modules__ = []\nf = lambda: pkg.heavy\n",
        1,
        "__lazy_modules__ is assigned after it (l.2), and Python reads it at each import",
    ),
    "__lazy_modules__ not a literal": (
        "__lazy_modules__ = make()\nimport pkg.heavy\nf = lambda: pkg.heavy\n",
        2,
        "the file assigns __lazy_modules__ other than once at module level to a literal "
        "list, tuple or set of strings (l.1), which the edit cannot extend",
    ),
    "__lazy_modules__ extended": (
        '__lazy_modules__ = ["a"]\n__lazy_modules__ += ["b"]\nimport pkg.heavy\n'
        "f = lambda: pkg.heavy\n",
        3,
        "the file assigns __lazy_modules__ other than once at module level to a literal "
        "list, tuple or set of strings (l.1), which the edit cannot extend",
    ),
    "another import of the module": (
        "from pkg import heavy\nfrom pkg import light\nx = light\nf = lambda: heavy\n",
        1,
        '__lazy_modules__ names modules, not statements: "pkg" would also make the import '
        "at l.2 lazy, which is not to be deferred; use --form lazy",
    ),
    "lazy already": (
        '__lazy_modules__ = ["pkg.heavy"]\nimport pkg.heavy\nf = lambda: pkg.heavy\n',
        2,
        # (Python 3.15, the target where it runs, reads it lazy itself.)
        "it is lazy already (lazy by __lazy_modules__ (l.1), not used at import time)"
        if RUNNING_315
        else "it is lazy already (__lazy_modules__ at l.1 lists it)",
    ),
}


@pytest.mark.parametrize("form", [KEYWORD, LAZY_MODULES])
@pytest.mark.parametrize("case", REFUSED.values(), ids=REFUSED.keys())
def test_an_import_that_cannot_be_proven_safe_is_refused(
    project: Project, case: tuple[str, int, str], form: str
) -> None:
    source, line, reason = case
    project.write({**HEAVY, "pkg/light.py": "", "pkg/user.py": source})
    found = lazy_edits([("pkg/user.py", line)], form)
    assert found.edits == []
    assert found.refused == [Refusal("pkg/user.py", line, reason)]
    assert str(found.refused[0]) == f"pkg/user.py:{line}: not made lazy: {reason}."


@pytest.mark.parametrize(
    "case", REFUSED_AS_LAZY_MODULES.values(), ids=REFUSED_AS_LAZY_MODULES.keys()
)
def test_an_import_that_lazy_modules_cannot_defer_is_refused(
    project: Project, case: tuple[str, int, str]
) -> None:
    source, line, reason = case
    project.write({**HEAVY, "pkg/user.py": source})
    found = lazy_edits([("pkg/user.py", line)], LAZY_MODULES)
    assert (found.edits, found.refused) == ([], [Refusal("pkg/user.py", line, reason)])


def test_a_file_this_python_cannot_parse_is_refused(project: Project) -> None:
    project.write({"pkg/user.py": "import pkg.heavy\nx = (\n"})
    found = lazy_edits([("pkg/user.py", 1)], LAZY_MODULES)
    (refusal,) = found.refused
    shown = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert refusal.reason.startswith(f"Python {shown}, running here, cannot parse the file (")


def test_an_edit_that_does_not_read_back_is_said() -> None:
    original = "import a\nf = lambda: a\n"
    wrong = FileEdit("m.py", original, "import b\nf = lambda: a\n", (1,))
    assert check_edited(wrong, KEYWORD) in (
        "it is not the original with `lazy ` before each import made lazy",
        "it would change more than its imports",
    )
    moved = wrong._replace(edited='__lazy_modules__ = ["b"]\n' + original)
    assert check_edited(moved, LAZY_MODULES) == "l.2, an edited import, does not read as lazy"
    assert check_edited(wrong._replace(edited="import a\nf = (\n"), LAZY_MODULES) == (
        "it would not parse (line 2: '(' was never closed)"
    )
    future = "from __future__ import annotations\nimport a\nf = lambda: a\n"
    misplaced = FileEdit("m.py", future, '__lazy_modules__ = ["a"]\n' + future, (2,))
    assert check_edited(misplaced, LAZY_MODULES) == (
        "it would not compile (from __future__ imports must occur at the beginning of the file)"
    )
    documented = '"""Doc."""; import os\nimport a\nf = lambda: a, os\n'
    undocumented = FileEdit("m.py", documented, '__lazy_modules__ = ["a"]\n' + documented, (2,))
    assert check_edited(undocumented, LAZY_MODULES) == "the module's docstring would change"


LIBRARY = {
    **HEAVY,
    "pkg/light.py": "class Light:\n    pass\n",
    "pkg/other.py": "print('other ran')\n",
}

# What each edited module runs at import time (its marker) while the deferred imports wait.
USER = '''\
"""A module."""
from __future__ import annotations
import sys
import pkg.heavy
from pkg.light import Light
from pkg import other
if sys.version_info >= (3, 0):
    from pkg.heavy import H
print("marker")
def later():
    return pkg.heavy.H, Light, other, H
'''


@pytest.mark.parametrize("form", [KEYWORD, LAZY_MODULES])
def test_python_3_15_runs_the_edited_module_without_what_was_deferred(
    project: Project, form: str
) -> None:
    if form == KEYWORD and not RUNNING_315:
        pytest.skip("only Python 3.15 parses `lazy import`, which the engine reads back")
    project.write({**LIBRARY, "pkg/user.py": USER})
    found = lazy_edits([("pkg/user.py", line) for line in (4, 5, 6, 8)], form)
    assert found.refused == []
    (done,) = found.edits
    (project.root / "pkg/user.py").write_text(done.edited)
    code = textwrap.dedent(
        f"""\
        import importlib, json, sys
        sys.path.insert(0, {str(project.root)!r})
        importlib.import_module("pkg.user")
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("pkg."))))
        importlib.import_module("pkg.user").later()
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("pkg."))))
        """
    )
    completed = subprocess.run(
        [*interpreter((3, 15)), "-c", code], cwd=project.root, capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr
    printed = completed.stdout.splitlines()
    assert printed[0] == "marker"
    assert json.loads(printed[1]) == ["pkg.user"]
    # (Used later, each loads: the program still works.)
    assert printed[2] == "other ran"
    assert json.loads(printed[3]) == ["pkg.heavy", "pkg.light", "pkg.other", "pkg.user"]


def test_a_name_re_exported_by_all_is_made_lazy(project: Project) -> None:
    source = '__all__ = ["H"]\nfrom pkg.heavy import H\n'
    edited = edit({**HEAVY, "pkg/user.py": source}, project, [2], KEYWORD)
    assert edited == '__all__ = ["H"]\nlazy from pkg.heavy import H\n'


@pytest.mark.skipif(not RUNNING_315, reason="only Python 3.15 parses `lazy import`")
def test_a_file_the_engine_cannot_read_for_the_target_is_refused(project: Project) -> None:
    project.write({"pkg/user.py": "lazy import os\nimport pkg.heavy\nf = lambda: pkg.heavy\n"})
    set_target(Target((3, 12)))
    found = lazy_edits([("pkg/user.py", 2)], LAZY_MODULES)
    assert found.refused == [
        Refusal(
            "pkg/user.py",
            2,
            "its imports cannot be read (line 1: `lazy import` is a syntax error before Python "
            "3.15, and python_version is 3.12)",
        )
    ]


# Damaged files: the edit goes after what Python reads first (a byte-order mark, a coding
# cookie, the docstring and the `__future__` imports on one line) and keeps every byte of it.
BOM = b"\xef\xbb\xbf"
USES_HEAVY = b"import pkg.heavy\nf = lambda: pkg.heavy\n"


def edited_bytes(project: Project, source: bytes, line: int, form: str) -> bytes:
    path = project.root / "pkg/user.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(source)
    found = lazy_edits([("pkg/user.py", line)], form)
    assert found.refused == []
    (done,) = found.edits
    return done.edited.encode(done.encoding)


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        (KEYWORD, BOM + b"lazy " + USES_HEAVY),
        (LAZY_MODULES, BOM + b'__lazy_modules__ = ["pkg.heavy"]\n' + USES_HEAVY),
    ],
)
def test_a_byte_order_mark_stays_first(project: Project, form: str, expected: bytes) -> None:
    assert edited_bytes(project, BOM + USES_HEAVY, 1, form) == expected


LATIN_1 = '# -*- coding: latin-1 -*-\nimport pkg.heavy\nS = "café"\nf = lambda: pkg.heavy\n'


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        (KEYWORD, LATIN_1.replace("import pkg", "lazy import pkg")),
        (
            LAZY_MODULES,
            LATIN_1.replace("import pkg", '__lazy_modules__ = ["pkg.heavy"]\nimport pkg'),
        ),
    ],
)
def test_a_file_in_the_encoding_its_cookie_declares_is_edited_in_it(
    project: Project, form: str, expected: str
) -> None:
    edited = edited_bytes(project, LATIN_1.encode("latin-1"), 2, form)
    assert edited == expected.encode("latin-1")


def test_a_file_its_encoding_cannot_give_back_byte_for_byte_is_refused(
    project: Project,
) -> None:
    # (ISO-2022-JP's switch to ASCII where ASCII is in force decodes to nothing.)
    source = b'# coding: iso2022_jp\nimport pkg.heavy\nS = "\x1b(B"\nf = lambda: pkg.heavy\n'
    project.write({"pkg/__init__.py": ""})
    (project.root / "pkg/user.py").write_bytes(source)
    found = lazy_edits([("pkg/user.py", 2)], LAZY_MODULES)
    assert found.edits == []
    assert found.refused == [
        Refusal(
            "pkg/user.py",
            2,
            "the file cannot be edited byte for byte: decoded as its coding cookie says "
            "(iso2022_jp), it does not encode back to the same bytes",
        )
    ]


@pytest.mark.parametrize(
    "first",
    ["from __future__ import annotations; import os", '"""Doc."""; import os'],
    ids=["a __future__ import", "a docstring"],
)
def test_lazy_modules_goes_below_a_first_line_that_holds_more(project: Project, first: str) -> None:
    source = f"{first}\nimport pkg.heavy\nf = lambda: (pkg.heavy, os)\n"
    edited = edit({**HEAVY, "pkg/user.py": source}, project, [2], LAZY_MODULES)
    assert edited == source.replace(
        "\nimport pkg.heavy", '\n__lazy_modules__ = ["pkg.heavy"]\nimport pkg.heavy'
    )


@pytest.mark.parametrize(
    ("declared", "extended"),
    [
        (
            '[\n    "a",  # the first\n    # more to come\n]',
            '[\n    "a",  # the first\n    # more to come\n    "pkg.heavy",\n]',
        ),
        (
            '[\n    "a"  # the first, alone\n]',
            '[\n    "a",  # the first, alone\n    "pkg.heavy",\n]',
        ),
        ('(  # why\n    "a",\n)', '(  # why\n    "a",\n    "pkg.heavy",\n)'),
    ],
    ids=["a trailing comma", "no trailing comma", "a tuple"],
)
def test_a_lazy_modules_over_lines_keeps_its_lines_and_comments(
    project: Project, declared: str, extended: str
) -> None:
    source = f"__lazy_modules__ = {declared}\nimport pkg.heavy\nx = lambda: pkg.heavy\n"
    line = 2 + declared.count("\n")
    edited = edit({"pkg/user.py": source}, project, [line], LAZY_MODULES)
    assert edited == source.replace(declared, extended)


def test_a_file_whose_edit_does_not_read_back_is_refused_and_the_others_edited(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write({"pkg/a.py": USES_HEAVY.decode(), "pkg/b.py": USES_HEAVY.decode()})
    real = edit_module.check_edited

    def wrong_for_b(done: FileEdit, form: str) -> str | None:
        return "a reason" if done.path == "pkg/b.py" else real(done, form)

    monkeypatch.setattr(edit_module, "check_edited", wrong_for_b)
    found = lazy_edits([("pkg/a.py", 1), ("pkg/b.py", 1)], LAZY_MODULES)
    assert [done.path for done in found.edits] == ["pkg/a.py"]
    assert found.refused == [
        Refusal(
            "pkg/b.py", 1, "the edited file does not read back as it must (a reason): left as it is"
        )
    ]


# Each damaged-file case, edited with `__lazy_modules__`, imported by each Python the edit
# must run on: the module still imports, with its docstring, and runs as before.
DAMAGED = {
    "a byte-order mark": BOM + USES_HEAVY,
    "a __future__ line": (
        b"from __future__ import annotations; import os\nimport pkg.heavy\n"
        b"f = lambda: (pkg.heavy, os)\n"
    ),
    "a docstring line": b'"""Doc."""; import os\nimport pkg.heavy\nf = lambda: (pkg.heavy, os)\n',
    "a coding cookie": LATIN_1.encode("latin-1"),
}

IMPORTED = """\
import json, sys
sys.path.insert(0, {root!r})
import pkg.user as user
print(json.dumps([user.__doc__, getattr(user, "S", None), user.f() is not None]))
"""


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
@pytest.mark.parametrize("source", DAMAGED.values(), ids=DAMAGED.keys())
def test_every_python_imports_the_edited_file_as_before(
    project: Project, source: bytes, version: str
) -> None:
    project.write(HEAVY)
    path = project.root / "pkg/user.py"
    path.write_bytes(source)
    command = [python(version), "-I", "-c", IMPORTED.format(root=str(project.root))]

    def imported() -> str:
        done = subprocess.run(command, cwd=project.root, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    before = imported()
    line = next(n for n, text in enumerate(source.splitlines(), 1) if b"import pkg" in text)
    (done,) = lazy_edits([("pkg/user.py", line)], LAZY_MODULES).edits
    path.write_bytes(done.edited.encode(done.encoding))
    assert imported() == before
