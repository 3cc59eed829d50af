"""The edit for every Python (`deferral/functions.py`): an import used only inside functions
moves into each of them, its aliases kept; the exact text, every import it leaves (with the
exact reason), and CPython 3.10 to 3.13 importing the edited package: the moved import's
module is not loaded, and the functions return what they returned."""

from __future__ import annotations

import io
import json
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_deferral_uses import project_in_repository

from helpers import Project, installed_python
from importlinter_contracts.cli import main
from importlinter_contracts.deferral.edit import IN_FUNCTIONS, Refusal, lazy_edits
from importlinter_contracts.deferral.functions import with_blank_lines_left

pytestmark = pytest.mark.matrix

HEAVY = {"pkg/__init__.py": "", "pkg/heavy.py": "def twice(x):\n    return 2 * x\n"}


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    yield from project_in_repository(monkeypatch)


def moved(project: Project, source: str, lines: list[int]) -> str:
    project.write({**HEAVY, "pkg/user.py": ""})
    # As written: `project.write` dedents, which from Python 3.14 on turns a line of `\r\n`
    # alone (whitespace only) into `\n`.
    (project.root / "pkg" / "user.py").write_bytes(source.encode())
    found = lazy_edits([("pkg/user.py", line) for line in lines], IN_FUNCTIONS)
    assert found.refused == []
    (done,) = found.edits
    assert done.lines == tuple(lines)
    return done.edited


def test_the_import_moves_into_each_function_after_its_docstring(project: Project) -> None:
    source = textwrap.dedent(
        '''\
        """A module."""
        import os
        from pkg.heavy import twice as double, twice  # both
        class C:
            """A class."""
            def m(self, x):
                """A method."""
                return double(x)
        def f(x):
            return twice(x), double(x), os.sep
        def g():
            """Only a docstring."""
        '''
    )
    assert moved(project, source, [3]) == textwrap.dedent(
        '''\
        """A module."""
        import os
        class C:
            """A class."""
            def m(self, x):
                """A method."""
                from pkg.heavy import twice as double  # both
                return double(x)
        def f(x):
            from pkg.heavy import twice as double, twice  # both
            return twice(x), double(x), os.sep
        def g():
            """Only a docstring."""
        '''
    )


def test_a_dotted_import_and_line_ends_are_kept(project: Project) -> None:
    source = "import pkg.heavy\r\n\r\ndef f(x):\r\n\treturn pkg.heavy.twice(x)\r\n"
    assert (
        moved(project, source, [1])
        == "def f(x):\r\n\timport pkg.heavy\r\n\treturn pkg.heavy.twice(x)\r\n"
    )


@pytest.mark.parametrize(
    ("source", "removed", "left"),
    [
        # Between runs of one and two blank lines: two, as stood before the def.
        ("pass\n\nimport a\n\n\ndef f():\n", {2}, "pass\n\n\ndef f():\n"),
        ("x = (\n)\n\nimport a\n\nlog = 1\n", {3}, "x = (\n)\n\nlog = 1\n"),
        # Several imports among blank lines: the longest run of them.
        ("x\n\nimport a\n\nimport b\n\n\ndef f(): pass\n", {2, 4}, "x\n\n\ndef f(): pass\n"),
        # A multi-line import, with no blank line on one side: none is removed.
        ("x\nfrom a import (\n    b,\n)\n\ny\n", {1, 2, 3}, "x\n\ny\n"),
        # A comment above the import stays, as do the blank lines below it.
        ("# c\nimport a\n\nx = 1\n", {1}, "# c\n\nx = 1\n"),
        # At the start or the end of the file: none, whitespace-only lines included.
        ("import a\n\n\nx = 1\n", {0}, "x = 1\n"),
        ("x = 1\n \t\n\nimport a\n\n", {3}, "x = 1\n"),
        # Blank lines away from the import are no business of the edit.
        ("x\n\n\n\ny\nimport a\nz\n", {5}, "x\n\n\n\ny\nz\n"),
    ],
)
def test_removing_an_import_leaves_no_more_blank_lines_than_stood_together(
    source: str, removed: set[int], left: str
) -> None:
    lines = io.StringIO(source, newline="").readlines()
    kept = with_blank_lines_left(lines, removed)
    assert "".join(line for index, line in enumerate(lines) if index not in kept) == left


def test_the_comment_that_ends_a_multi_line_import_goes_with_it(project: Project) -> None:
    source = "from pkg.heavy import (\r\n    twice,\r\n)\t#  é, kept\r\ndef f(x):\r\n    return twice(x)\r\n"
    assert moved(project, source, [1]) == (
        "def f(x):\r\n    from pkg.heavy import twice\t#  é, kept\r\n    return twice(x)\r\n"
    )


def test_two_imports_into_one_function_keep_their_order(project: Project) -> None:
    source = "import pkg.heavy\nimport json\ndef f(x):\n    return json.dumps(pkg.heavy.twice(x))\n"
    assert moved(project, source, [1, 2]) == (
        "def f(x):\n    import pkg.heavy\n    import json\n"
        "    return json.dumps(pkg.heavy.twice(x))\n"
    )


USED = "def f(x):\n    return twice(x)\n"

# Each import left, and the exact reason.
REFUSED = {
    "in a block": (
        f"import sys\nif sys:\n    from pkg.heavy import twice\n{USED}",
        3,
        "it is inside a block (`if`, `with`, ...): only a statement of the module body is "
        "moved into functions",
    ),
    "bound again": (
        f"from pkg.heavy import twice\n{USED}def g(twice):\n    return twice\n",
        1,
        "`twice` is bound again at l.4",
    ),
    "declared global": (
        f"from pkg.heavy import twice\n{USED}def g():\n    global twice\n",
        1,
        "`twice` is bound again at l.5",
    ),
    "declared global with another": (
        f"from pkg.heavy import twice\n{USED}def g():\n    global x, twice\n",
        1,
        "`twice` is bound again at l.5",
    ),
    "a star import": (
        f"from pkg.heavy import twice\nfrom os.path import *\n{USED}",
        1,
        "a star import at l.2 may bind its names too",
    ),
    "named in a string annotation": (
        f'from pkg.heavy import twice\n{USED}def g(x: "list[twice]"):\n    pass\n',
        1,
        "`twice` is named in an annotation at l.4, which typing.get_type_hints reads from "
        "the module",
    ),
    "listed in __all__": (
        f'__all__ = ["twice"]\nfrom pkg.heavy import twice\n{USED}',
        2,
        "`twice` is listed in __all__, for importers to take",
    ),
    "named in an annotation": (
        f"from pkg.heavy import twice\n{USED}def g(x: twice):\n    pass\n",
        1,
        "`twice` is named in an annotation at l.4, which Pythons before 3.14 evaluate where "
        "it stands",
    ),
    "used in a lambda": (
        "from pkg.heavy import twice\nf = lambda x: twice(x)\n",
        1,
        "`twice` is used outside a function at l.2",
    ),
    "a body on the line of its def": (
        "from pkg.heavy import twice\ndef f(x): return twice(x)\n",
        1,
        "the body of `def f` starts on the line of its `def` or docstring, where the import "
        "cannot go on a line of its own",
    ),
}


@pytest.mark.parametrize("case", REFUSED.values(), ids=REFUSED.keys())
def test_an_import_that_cannot_move_safely_is_left(
    project: Project, case: tuple[str, int, str]
) -> None:
    source, line, reason = case
    project.write({**HEAVY, "pkg/user.py": source})
    found = lazy_edits([("pkg/user.py", line)], IN_FUNCTIONS)
    assert (found.edits, found.refused) == ([], [Refusal("pkg/user.py", line, reason)])


def test_a_name_another_module_may_take_is_left(project: Project) -> None:
    project.write(
        {
            **HEAVY,
            "pkg/user.py": f"from pkg.heavy import twice\n{USED}",
            "pkg/other.py": "from pkg.user import twice\n",
        }
    )
    found = lazy_edits([("pkg/user.py", 1)], IN_FUNCTIONS)
    assert found.refused == [
        Refusal(
            "pkg/user.py",
            1,
            "`twice` may be taken from this module by pkg/other.py (its importers would no "
            "longer find it)",
        )
    ]


INIT = '''\
"""The package."""
__all__ = ["Model", "VERSION"]
from .heavy.models import Model
VERSION = 1
'''

SERVED = '''\
"""The package."""
__all__ = ["Model", "VERSION"]
VERSION = 1


def __getattr__(name):
    """Import, at its first use, a name whose import fix deferred (PEP 562)."""
    if name == "Model":
        from .heavy.models import Model

        globals()["Model"] = Model
        return Model
    if name == "heavy":
        from . import heavy

        return heavy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), "Model", "heavy"})
'''


def test_a_package_re_export_is_served_by_a_module_getattr(project: Project) -> None:
    project.write({"pkg/__init__.py": INIT, "pkg/heavy/models.py": "class Model:\n    pass\n"})
    (done,) = lazy_edits([("pkg/__init__.py", 3)], IN_FUNCTIONS).edits
    assert done.edited == SERVED


def test_the_names_go_into_the_file_s_own_getattr(project: Project) -> None:
    own = (
        "def __getattr__(attribute: str):\n"
        '    """Its own."""\n'
        "    # Lazy: the entry points.\n"
        '    if attribute == "Omni":\n'
        "        from .omni import Omni\n"
        "        return Omni\n"
        '    raise AttributeError(f"no {attribute}")\n'
    )
    project.write(
        {"pkg/__init__.py": INIT + own, "pkg/heavy/models.py": "", "pkg/omni.py": "Omni = 1\n"}
    )
    (done,) = lazy_edits([("pkg/__init__.py", 3)], IN_FUNCTIONS).edits
    assert (
        done.edited
        == INIT.replace("from .heavy.models import Model\n", "")
        + own.replace(
            "    # Lazy",
            '    if attribute == "Model":\n'
            "        from .heavy.models import Model\n\n"
            '        globals()["Model"] = Model\n'
            "        return Model\n"
            '    if attribute == "heavy":\n'
            "        from . import heavy\n\n"
            "        return heavy\n"
            "    # Lazy",
        )
        + '\n\ndef __dir__():\n    return sorted({*globals(), "Model", "heavy"})\n'
    )


# A package's own __dir__, its return spanning lines with a comment and a non-ASCII string.
OWN_DIR = (
    "def __dir__():\n"
    '    """Its own."""\n'
    "    return [*globals(),  # the module's names\n"
    '            "é"]\n'
)


def test_the_names_join_what_the_file_s_own_dir_returns(project: Project) -> None:
    project.write(
        {"pkg/__init__.py": INIT + OWN_DIR, "pkg/heavy/models.py": "class Model:\n    pass\n"}
    )
    (done,) = lazy_edits([("pkg/__init__.py", 3)], IN_FUNCTIONS).edits
    getattr_only = SERVED.removesuffix(
        '\n\ndef __dir__():\n    return sorted({*globals(), "Model", "heavy"})\n'
    )
    assert done.edited == (
        INIT.replace("from .heavy.models import Model\n", "")
        + OWN_DIR.replace("return [", "return sorted({*([").replace(
            '"é"]\n', '"é"]), "Model", "heavy"})\n'
        )
        + getattr_only.removeprefix(INIT.replace("from .heavy.models import Model\n", ""))
    )


def test_a_file_s_own_getattr_and_dir_both_take_the_names(project: Project) -> None:
    own = "def __getattr__(name):\n    raise AttributeError(name)\n"
    project.write(
        {"pkg/__init__.py": INIT + OWN_DIR + own, "pkg/heavy/models.py": "class Model: ...\n"}
    )
    (done,) = lazy_edits([("pkg/__init__.py", 3)], IN_FUNCTIONS).edits
    assert done.edited.endswith(
        '"é"]), "Model", "heavy"})\n'
        "def __getattr__(name):\n"
        '    if name == "Model":\n'
        "        from .heavy.models import Model\n\n"
        '        globals()["Model"] = Model\n'
        "        return Model\n"
        '    if name == "heavy":\n'
        "        from . import heavy\n\n"
        "        return heavy\n"
        "    raise AttributeError(name)\n"
    )


# Each re-export left, and the exact reason.
NOT_SERVED = {
    "an import statement": (
        INIT.replace("from .heavy.models import Model", "import pkg.heavy.models as Model"),
        "an `import` statement in a package's __init__ binds a module, not a name a module "
        "__getattr__ would serve",
    ),
    "used in the file": (
        INIT + "def make():\n    return Model()\n",
        "`Model` is used in the file at l.6, and a module's own code does not go through its "
        "__getattr__",
    ),
    "not in a literal __all__": (
        INIT.replace('"VERSION"]', '"VERSION"] + []'),
        "`Model` is not in the file's __all__, so `from package import *` would no longer bind it",
    ),
    "a __dir__ of two returns": (
        INIT + "def __dir__():\n    if VERSION:\n        return []\n    return [1]\n",
        "the file's __dir__ (l.5) is not one plain def of no parameter ending in its only "
        "return, which fix would add to",
    ),
    "a __dir__ of a parameter": (
        INIT + "def __dir__(extra=()):\n    return [*extra]\n",
        "the file's __dir__ (l.5) is not one plain def of no parameter ending in its only "
        "return, which fix would add to",
    ),
    "a __dir__ assigned": (
        INIT + "__dir__ = list\n",
        "the file binds __dir__ already (l.5)",
    ),
    "a __getattr__ of two parameters": (
        INIT + "def __getattr__(name, default=None):\n    return default\n",
        "the file's __getattr__ (l.5) is not one plain def of one parameter, which fix would "
        "add to",
    ),
}


@pytest.mark.parametrize("case", NOT_SERVED.values(), ids=NOT_SERVED.keys())
def test_a_re_export_that_cannot_be_served_safely_is_left(
    project: Project, case: tuple[str, str]
) -> None:
    source, reason = case
    project.write({"pkg/__init__.py": source, "pkg/heavy/models.py": "class Model:\n    pass\n"})
    found = lazy_edits([("pkg/__init__.py", 3)], IN_FUNCTIONS)
    assert (found.edits, found.refused) == ([], [Refusal("pkg/__init__.py", 3, reason)])


# A platform whose module imports a kernel at module level, used only in a method and a
# function: the contract forbids the kernels.
PLATFORM = {
    "pkg/__init__.py": INIT,
    "pkg/heavy/__init__.py": "",
    "pkg/heavy/models.py": "class Model:\n    pass\n",
    "pkg/kernels/__init__.py": "",
    "pkg/kernels/attention.py": "def apply(x):\n    return x * 2\n",
    "pkg/platforms/__init__.py": "",
    "pkg/platforms/cuda.py": textwrap.dedent(
        '''\
        """The CUDA platform."""
        from __future__ import annotations

        import os
        from pkg.kernels import attention as attn

        NAME = "cuda"


        class Platform:
            """A platform."""

            def run(self, x):
                """Run."""
                return attn.apply(x) + len(os.sep)


        def helper(x):
            return attn.apply(x)
        '''
    ),
}

R4 = """\
[importlinter:contract:r4]
name = Platforms load no kernel
type = eager_imports
source_modules =
    pkg.platforms.cuda
follow_modules =
    pkg
forbidden_modules =
    pkg.kernels
    pkg.heavy
"""

PROGRAM = """\
import json, sys
sys.path.insert(0, {root!r})
import pkg.platforms.cuda as cuda
loaded = sorted(m for m in sys.modules if m.startswith(("pkg.kernels", "pkg.heavy")))
import pkg
from pkg import Model
star = {{}}
exec("from pkg import *", star)
print(json.dumps([
    loaded,
    cuda.Platform().run(3),
    cuda.helper(4),
    [pkg.Model.__name__, Model is pkg.Model, star["Model"] is Model, star["VERSION"]],
    sorted(name for name in star if not name.startswith("__")),
    [name for name in dir(pkg) if not name.startswith("__")],
]))
"""


def python(version: str) -> str:
    """The command of CPython `version`, or the test skips saying it is not to be had."""
    found = installed_python(version)
    if found is None:
        pytest.skip(f"CPython {version} is not to be had here (pyenv has none)")
    return found


def run_on(version: str, root: Path) -> list[object]:
    """What a fresh CPython `version` prints running PROGRAM on the package at `root`."""
    command = [python(version)]
    completed = subprocess.run(
        [*command, "-I", "-c", PROGRAM.format(root=str(root))],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    result: list[object] = json.loads(completed.stdout)
    return result


@pytest.mark.parametrize("own_dir", [False, True], ids=["a new __dir__", "its own __dir__"])
@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
def test_after_fix_write_every_python_loads_no_kernel_and_runs_as_before(
    project: Project, version: str, own_dir: bool
) -> None:
    project.write({**PLATFORM, "pkg/__init__.py": INIT + OWN_DIR if own_dir else INIT})
    project.configure(R4, session="python_version = 3.11\n")
    before = run_on(version, project.root)
    listed = ["Model", "VERSION", "heavy", "kernels", "platforms"]
    served = [["Model", True, True, 1], ["Model", "VERSION"], listed + ["é"] * own_dir]
    loaded = ["pkg.heavy", "pkg.heavy.models", "pkg.kernels", "pkg.kernels.attention"]
    assert before == [loaded, 7, 8, *served]
    result = CliRunner().invoke(main, ["fix", "--no-cache", "--write"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "pkg/__init__.py: written.\n"
        "pkg/platforms/cuda.py: written.\n"
        "importlinter-contracts: after the edit, contract r4 is KEPT.\n"
    )
    if not own_dir:
        assert (project.root / "pkg/__init__.py").read_text() == SERVED
    assert run_on(version, project.root) == [[], 7, 8, *served]


def test_a_module_of_the_same_name_elsewhere_takes_nothing(project: Project) -> None:
    # (vllm-omni: configs/voxtral_tts.py defines the class that parsers/voxtral_tts.py
    # imports, and configs/__init__.py re-exports it from there.)
    project.write(
        {
            **HEAVY,
            "pkg/parsers/user.py": f"from pkg.configs.user import twice\n{USED}",
            "pkg/configs/user.py": "def twice(x):\n    return 2 * x\n",
            "pkg/configs/__init__.py": "from pkg.configs.user import twice\n",
            "pkg/other.py": "import pkg.parsers.user as u\ny = u.twice\n",
        }
    )
    found = lazy_edits([("pkg/parsers/user.py", 1)], IN_FUNCTIONS)
    assert found.refused == [
        Refusal(
            "pkg/parsers/user.py",
            1,
            "`twice` may be taken from this module by pkg/other.py (its importers would no "
            "longer find it)",
        )
    ]
    (project.root / "pkg/other.py").unlink()
    found = lazy_edits([("pkg/parsers/user.py", 1)], IN_FUNCTIONS)
    assert (found.refused, [done.path for done in found.edits]) == ([], ["pkg/parsers/user.py"])


def test_a_byte_order_mark_stays_first_when_the_first_line_moves(project: Project) -> None:
    project.write({**HEAVY})
    path = project.root / "pkg/user.py"
    path.write_bytes(b"\xef\xbb\xbffrom pkg.heavy import twice\n" + USED.encode())
    (done,) = lazy_edits([("pkg/user.py", 1)], IN_FUNCTIONS).edits
    assert done.edited.encode(done.encoding) == (
        b"\xef\xbb\xbfdef f(x):\n    from pkg.heavy import twice\n    return twice(x)\n"
    )


def test_an_edit_that_would_bring_a_coding_cookie_into_force_is_refused(
    project: Project,
) -> None:
    # (A cookie counts on the first two lines only: removing the first brings it in.)
    source = f'from pkg.heavy import twice\n\n# -*- coding: latin-1 -*-\nS = "café"\n{USED}'
    project.write({**HEAVY, "pkg/user.py": source.replace("\n\n", "\n", 1)})
    found = lazy_edits([("pkg/user.py", 1)], IN_FUNCTIONS)
    assert found.refused == [
        Refusal(
            "pkg/user.py",
            1,
            "the edited file does not read back as it must (Python would decode it otherwise "
            "than the original): left as it is",
        )
    ]
