"""The tests a hop runs under: read from in-memory sources, carried on the hops of `closure`,
`why` and a broken contract's chains, and decided by `assume_false`."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from typing import Any, get_type_hints

import pytest

from helpers import REPO, Project, call_reading, run_cli
from importlinter_contracts import explore
from importlinter_contracts.eager import call_model, call_storage, import_bindings
from importlinter_contracts.eager.conditions import (
    Clause,
    SourceLines,
    clause_conditions,
    shown,
    walk,
)
from importlinter_contracts.eager.outline import never_runs, read_calls_of, read_outline
from importlinter_contracts.eager.resolver import Call
from importlinter_contracts.eager.scopes import (
    ImportScope,
    import_scopes_from_tokens,
    read_source,
)
from importlinter_contracts.eager.target import Target, set_target, target_of
from importlinter_contracts.eager.walk import EagerHop
from importlinter_contracts.errors import ConfigurationError
from importlinter_contracts.rendering import chain_steps, describe_hop, describe_hop_lines, only_if
from importlinter_contracts.report import Condition, Hop

pytestmark = pytest.mark.matrix


# What `detect`, called at import time, runs: each import by line, with the tests of the
# function it runs under.
DETECT = """\
import os


def detect():
    try:
        if hasattr(os, "xpu") and os.xpu():
            import xpu
        elif os.name == "nt":
            import win
        else:
            import other
    except ImportError as error:
        import fallback
    while os.environ.get("WAIT"):
        import waiting
    if not os.environ.get("X"):
        return None
    import late


detect()
"""


BLOCKS = """\
import a
if x:
    import b
elif y:
    import c
else:
    import d
try:
    import e
except ImportError:
    import f
class C:
    import g
    def m(self):
        import h
match v:
    case 1:
        import i
with open(p):
    for q in r:
        import j
"""


def _inside(place: tuple[Clause, ...], clause: Clause) -> tuple[Clause, ...]:
    return (*place, clause)


def test_one_walk_gives_each_statement_with_the_clauses_it_stands_in() -> None:
    module = ast.parse(BLOCKS)
    outermost: tuple[Clause, ...] = ()
    found = [
        (node.lineno, " > ".join(clause.keyword for clause in place))
        for node, place in walk(module.body, outermost, _inside)
        if isinstance(node, ast.Import)
    ]
    assert found == [
        (1, ""),
        (3, "if"),
        (5, "elif"),
        (7, "else"),
        (9, "try"),
        (11, "except"),
        (13, "class"),
        (15, "class > def"),
        (18, "case"),
        (21, "with > for"),
    ]


def test_the_walk_leaves_out_the_clauses_its_reader_declines() -> None:
    module = ast.parse(BLOCKS)

    def outside_functions(place: tuple[Clause, ...], clause: Clause) -> tuple[Clause, ...] | None:
        return None if clause.statement == "def" else (*place, clause)

    outermost: tuple[Clause, ...] = ()
    lines = [node.lineno for node, _ in walk(module.body, outermost, outside_functions)]
    assert 15 not in lines
    assert 14 in lines  # (the def itself stands in the class body)
    assert lines == sorted(lines)


def test_an_elif_and_an_else_run_under_the_earlier_tests_of_their_chain() -> None:
    module = ast.parse(BLOCKS)
    lines = SourceLines(BLOCKS)
    chain = module.body[1]
    found = [
        (clause.keyword, clause_conditions(clause, lines, never_runs))
        for clause in walk_clauses(chain)
    ]
    assert found == [
        ("if", (("if", "x", 2),)),
        ("elif", (("else", "x", 2), ("if", "y", 4))),
        ("else", (("else", "x", 2), ("else", "y", 4))),
    ]


def walk_clauses(node: ast.stmt) -> list[Clause]:
    """The clauses the walk enters of one statement, in order."""
    entered: list[Clause] = []

    def enter(place: tuple[Clause, ...], clause: Clause) -> tuple[Clause, ...] | None:
        if not place:
            entered.append(clause)
        return None

    outermost: tuple[Clause, ...] = ()
    for _ in walk([node], outermost, enter):
        pass
    return entered


def test_the_imports_of_a_function_carry_the_tests_of_the_function_they_run_under() -> None:
    function = call_reading(DETECT).functions["detect"]
    assert dict(function.conditions) == {
        7: (("if", 'hasattr(os, "xpu") and os.xpu()', 6),),
        9: (("else", 'hasattr(os, "xpu") and os.xpu()', 6), ("if", 'os.name == "nt"', 8)),
        11: (
            ("else", 'hasattr(os, "xpu") and os.xpu()', 6),
            ("else", 'os.name == "nt"', 8),
        ),
        13: (("except", "ImportError", 12),),
        15: (("if", 'os.environ.get("WAIT")', 14),),
        18: (("unless", 'not os.environ.get("X")', 16),),
    }


def test_a_call_carries_the_tests_of_the_code_it_runs_in() -> None:
    found = call_reading(
        """\
        import sys
        if sys.platform == "linux":
            setup()
        else:
            other()
        always()
        """
    )
    assert {call.target: call.conditions for call in found.calls} == {
        "setup": (("if", 'sys.platform == "linux"', 2),),
        "other": (("else", 'sys.platform == "linux"', 2),),
        "always": (),
    }


def test_a_call_in_an_operand_carries_the_operands_that_decide_it() -> None:
    found = call_reading(
        """\
        import os
        if os.name:
            enabled() and setup()
        fallback = os.environ.get("X") or default()
        chosen = first() if os.name == "nt" else (
            second()
        )
        """
    )
    assert {call.target: call.conditions for call in found.calls} == {
        "enabled": (("if", "os.name", 2),),
        "setup": (("if", "os.name", 2), ("if", "enabled()", 3)),
        "os.environ.get": (),
        "default": (("else", 'os.environ.get("X")', 4),),
        "first": (("if", 'os.name == "nt"', 5),),
        "second": (("else", 'os.name == "nt"', 5),),
    }


def test_a_callee_that_is_an_alternative_carries_the_test_that_chooses_it() -> None:
    found = call_reading(
        """\
        import os
        (cuda_init if os.name == "nt" else cpu_init)()
        (preferred or fallback).setup()
        """
    )
    assert {call.target: call.conditions for call in found.calls} == {
        "cuda_init": (("if", 'os.name == "nt"', 2),),
        "cpu_init": (("else", 'os.name == "nt"', 2),),
        "preferred.setup": (),
        "fallback.setup": (("else", "preferred", 3),),
    }


def test_a_call_in_a_comprehension_carries_its_if_clauses() -> None:
    found = call_reading(
        """\
        import os
        loaded = [
            load(name)
            for name in listed()
            if enabled(name)
            if ready(name)
            for part in parts(name)
        ]
        table = {key(n): value(n) for n in names() if wanted(n)}
        """
    )
    enabled = ("if", "enabled(name)", 5)
    ready = ("if", "ready(name)", 6)
    assert {call.target: call.conditions for call in found.calls} == {
        "listed": (),
        "enabled": (),
        "ready": (enabled,),
        "parts": (enabled, ready),
        "load": (enabled, ready),
        "names": (),
        "wanted": (),
        "key": (("if", "wanted(n)", 9),),
        "value": (("if", "wanted(n)", 9),),
    }


# Prints the calls of an in-memory source as `read_source` reads them: those at import time,
# then those of `detect`.
_PRINT_CALLS = """\
import sys
from importlinter_contracts.eager.scopes import read_source
found = read_source(sys.stdin.read().encode()).calls
print(repr([[tuple(call) for call in calls] for calls in (found.calls, found.functions["detect"].calls)]))
"""


def test_the_calls_of_a_name_on_one_line_come_in_source_order_whatever_the_hash_seed() -> None:
    source = """\
import os
name = os.environ.get("A") or os.environ.get("B") or os.environ.get("C")

def detect():
    return probe("x") and probe("y") and probe("z")

detect()
"""
    # Each reading in a process of its own: the hash of a string, so the order of a set of
    # calls, differs with the seed.
    readings = [
        ast.literal_eval(
            subprocess.run(
                [sys.executable, "-c", _PRINT_CALLS],
                input=source,
                env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for seed in ("0", "1", "2")
    ]
    a = ("else", 'os.environ.get("A")', 2)
    b = ("else", 'os.environ.get("B")', 2)
    x = ("if", 'probe("x")', 5)
    y = ("if", 'probe("y")', 5)
    expected = [
        [
            (2, "os.environ.get", ()),
            (2, "os.environ.get", (a,)),
            (2, "os.environ.get", (a, b)),
            (7, "detect", ()),
        ],
        [(5, "probe", ()), (5, "probe", (x,)), (5, "probe", (x, y))],
    ]
    assert readings == [expected] * 3


def test_a_function_called_for_each_value_of_a_registry_calls_each_value() -> None:
    found = call_reading(
        """\
        from itertools import chain

        def cuda_plugin(): ...
        def xpu_plugin(): ...
        def npu_plugin(): ...

        PLUGINS = {"cuda": cuda_plugin, "xpu": xpu_plugin}
        HOOKS = (npu_plugin,)

        def detect(found):
            for name, func in chain(PLUGINS.items(), found.items()):
                try:
                    func()
                except Exception:
                    pass
            for detector in PLUGINS.values():
                detector()
            for hook in HOOKS:
                hook()
            for key in PLUGINS:
                key()

        for each in HOOKS:
            each()
        """
    )
    called = [call.target for call in found.functions["detect"].calls]
    assert sorted(target for target in called if target.endswith("_plugin")) == [
        "cuda_plugin",  # (func, of the chained items)
        "cuda_plugin",  # (detector, of the values)
        "npu_plugin",  # (hook, of the tuple)
        "xpu_plugin",
        "xpu_plugin",
    ]
    # A module-level loop's variable is a name of the module bound to each value.
    assert found.aliases["each"] == ("npu_plugin",)


def test_a_detector_a_loop_calls_is_reached_under_its_own_test_alone(project: Project) -> None:
    project.write(
        {
            "pkg/__init__.py": "",
            "pkg/xpu.py": "",
            "pkg/platforms.py": (
                "import os\n"
                "def xpu_plugin():\n"
                "    if os.environ.get('XPU'):\n"
                "        import pkg.xpu\n"
                "def cpu_plugin():\n"
                "    return None\n"
                "PLUGINS = {'xpu': xpu_plugin, 'cpu': cpu_plugin}\n"
                "def detect():\n"
                "    activated = []\n"
                "    for name, func in PLUGINS.items():\n"
                "        if func() is not None:\n"
                "            activated.append(name)\n"
                "    if len(activated) == 1:\n"
                "        return PLUGINS[activated[0]]()\n"
                "detect()\n"
            ),
        }
    )
    project.configure(_r4("pkg.platforms", "pkg.xpu"))
    xpu = closure_of("pkg.platforms")["pkg.xpu"]
    assert xpu.get("conditional") is True
    (tests,) = xpu["hop"]["conditions"]
    assert [(c["kind"], c["test"], c["line"]) for c in tests] == [
        ("if", "os.environ.get('XPU')", 3)
    ]


def test_an_import_that_a_call_under_no_test_runs_too_is_not_conditional(
    project: Project,
) -> None:
    project.write(
        {
            "pkg/__init__.py": "",
            "pkg/setup.py": "def load():\n    import pkg.heavy\n",
            "pkg/heavy.py": "",
            "pkg/main.py": (
                "import os\nfrom pkg.setup import load\nif os.name == 'nt':\n    load()\nload()\n"
            ),
        }
    )
    project.configure(_r4("pkg.main", "pkg.heavy"))
    heavy = closure_of("pkg.main")["pkg.heavy"]
    assert "conditional" not in heavy
    assert "conditions" not in heavy["hop"]
    assert heavy["hop"]["calls"][0][0]["location"] == {"path": "pkg/main.py", "line": 5}


def test_a_hop_behind_an_operand_is_conditional(project: Project) -> None:
    project.write(
        {
            "pkg/__init__.py": "",
            "pkg/setup.py": "def load():\n    import pkg.heavy\n",
            "pkg/heavy.py": "",
            "pkg/main.py": "import os\nfrom pkg.setup import load\nos.name and load()\n",
        }
    )
    project.configure(_r4("pkg.main", "pkg.heavy"))
    heavy = closure_of("pkg.main")["pkg.heavy"]
    assert heavy.get("conditional") is True
    (tests,) = heavy["hop"]["conditions"]
    assert [(c["kind"], c["test"], c["line"]) for c in tests] == [("if", "os.name", 3)]


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    if True:\n        import a\n",
        "def f():\n    if not TYPE_CHECKING:\n        import a\n",
        "def f():\n    for x in y:\n        import a\n",
        "def f():\n    with x:\n        import a\n",
    ],
    ids=["if True", "not TYPE_CHECKING", "for", "with"],
)
def test_a_block_that_always_runs_carries_no_test(source: str) -> None:
    assert call_reading(source).functions["f"].conditions == ()


def test_the_tests_are_kept_in_the_cache_as_read() -> None:
    found = call_reading(DETECT + "if os.name:\n    detect()\n")
    again = call_storage.from_tuples(
        call_storage.to_tuples(found), lambda: DETECT.splitlines(), never_runs
    )
    assert again.functions["detect"].conditions == found.functions["detect"].conditions
    assert again.calls == found.calls
    assert again.calls[-1].conditions == (("if", "os.name", 22),)


@pytest.mark.parametrize(
    ("condition", "text"),
    [
        (("if", "a and b", 1), "a and b"),
        (("else", "a and b", 1), "not (a and b)"),
        (("unless", "not x", 1), "x"),
        (("unless", "not a or b", 1), "not (not a or b)"),
        (("except", "(ImportError, OSError)", 1), "except (ImportError, OSError)"),
        (("except", "", 1), "except"),
    ],
)
def test_a_condition_is_shown_as_the_test_that_holds(
    condition: tuple[str, str, int], text: str
) -> None:
    assert shown(condition) == text


DIFFUSERS_INIT = """\
from typing import TYPE_CHECKING
from .utils import DIFFUSERS_SLOW_IMPORT
if TYPE_CHECKING or DIFFUSERS_SLOW_IMPORT:
    from .models import Model
else:
    from .utils import lazy_module
"""


def test_assume_false_decides_a_test_of_the_names_it_lists() -> None:
    scopes = read_source(DIFFUSERS_INIT.encode()).scopes
    # (TYPE_CHECKING is false: the test the tool cannot decide is the other operand.)
    test = ("if", "DIFFUSERS_SLOW_IMPORT", 3)
    assert scopes[4] == ImportScope(True, "module-level if", (test,))
    assert scopes[6] == ImportScope(True, "module-level else", (("else", *test[1:]),))
    set_target(Target((3, 11), assume_false=("DIFFUSERS_SLOW_IMPORT",)))
    scopes = read_source(DIFFUSERS_INIT.encode()).scopes
    assert scopes[4] == ImportScope(False, "under if TYPE_CHECKING or DIFFUSERS_SLOW_IMPORT")
    assert scopes[6] == ImportScope(True, "module-level else")


# Read at module level and in a function that runs then, with `assume_false =
# DIFFUSERS_SLOW_IMPORT`.
ASSUMED = """\
if DIFFUSERS_SLOW_IMPORT or is_torch_available():
    import a
if is_torch_available() and DIFFUSERS_SLOW_IMPORT:
    import b
else:
    import c
"""


def test_assume_false_leaves_its_names_out_of_a_test_and_decides_an_and() -> None:
    set_target(Target((3, 11), assume_false=("DIFFUSERS_SLOW_IMPORT",)))
    source = ASSUMED.encode()
    scopes = read_source(source).scopes
    assert scopes == {
        2: ImportScope(True, "module-level if", (("if", "is_torch_available()", 1),)),
        4: ImportScope(False, "under if DIFFUSERS_SLOW_IMPORT"),
        6: ImportScope(True, "module-level else"),
    }
    outline = read_outline(source)
    assert outline is not None
    assert outline.scopes == import_scopes_from_tokens(source) == scopes
    function = "def f():\n" + textwrap.indent(ASSUMED, "    ") + "f()\n"
    found = call_reading(function).functions["f"]
    assert found.imports == (3, 7)
    assert dict(found.conditions) == {3: (("if", "is_torch_available()", 2),)}
    outline = read_outline(function.encode())
    assert outline is not None
    outlined = read_calls_of(function.encode(), outline.bodies)
    assert outlined is not None
    assert outlined.functions["f"] == found


def test_a_function_s_tests_leave_out_the_operands_decided_false() -> None:
    source = """\
        import os
        from typing import TYPE_CHECKING


        def detect():
            if TYPE_CHECKING or os.name == "nt":
                import win
            elif False or os.name == "posix":
                import posix
            else:
                import other
            while TYPE_CHECKING or os.environ.get("WAIT"):
                import waiting
            if os.name == "java" and TYPE_CHECKING:
                import never
            if __name__ == "__main__" or not os.environ.get("X"):
                return None
            import late


        detect()
        """
    found = call_reading(source).functions["detect"]
    nt = ("else", 'os.name == "nt"', 6)
    assert found.imports == (7, 9, 11, 13, 18)
    assert dict(found.conditions) == {
        7: (("if", 'os.name == "nt"', 6),),
        9: (nt, ("if", 'os.name == "posix"', 8)),
        11: (nt, ("else", 'os.name == "posix"', 8)),
        13: (("if", 'os.environ.get("WAIT")', 12),),
        18: (("unless", 'not os.environ.get("X")', 16),),
    }
    text = textwrap.dedent(source).encode()
    outline = read_outline(text)
    assert outline is not None
    outlined = read_calls_of(text, outline.bodies)
    assert outlined is not None
    assert outlined.functions["detect"] == found


def test_assume_false_decides_the_functions_tests_too() -> None:
    source = "def f():\n    if FLAG:\n        import a\n    import b\nf()\n"
    assert call_reading(source).functions["f"].imports == (3, 4)
    set_target(Target((3, 11), assume_false=("FLAG",)))
    assert call_reading(source).functions["f"].imports == (4,)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            [],
            "[importlinter] assume_false is empty: name the variables that are false where "
            "the code runs, one per line, or leave the key out.",
        ),
        (["A B"], "[importlinter] assume_false: 'A B' is not a variable name (one name per line)."),
        (["a-b"], "[importlinter] assume_false: 'a-b' is not a variable name."),
        (["A", "A"], "[importlinter] assume_false: A is given twice."),
        (
            3,
            "[importlinter] assume_false = 3: not a list of names; give one name per line (a "
            "list of strings in TOML).",
        ),
    ],
    ids=["empty", "two on a line", "not a name", "twice", "a number"],
)
def test_a_bad_assume_false_is_one_line_saying_what_to_do(given: object, message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        target_of({"assume_false": given})
    assert str(raised.value) == message


def test_assume_false_is_read_one_name_per_line() -> None:
    assert target_of({"assume_false": ["B", "A"]}).assume_false == ("A", "B")
    assert target_of({"assume_false": "A"}).assume_false == ("A",)


# A package whose platform module detects the device at import time.
TREE = {
    "pkg/__init__.py": "from pkg import platforms\n",
    "pkg/platforms/__init__.py": (
        "import os\n"
        "from pkg.platforms import cpu\n"
        "def detect():\n"
        "    if hasattr(os, 'xpu') and os.xpu():\n"
        "        from pkg.platforms import xpu\n"
        "detect()\n"
    ),
    "pkg/platforms/cpu.py": "",
    "pkg/platforms/xpu.py": "import pkg.heavy\n",
    "pkg/heavy.py": "",
}
XPU_TEST = {
    "module": "pkg.platforms",
    "line": 4,
    "kind": "if",
    "test": "hasattr(os, 'xpu') and os.xpu()",
    "shown": "hasattr(os, 'xpu') and os.xpu()",
    "location": {"path": "pkg/platforms/__init__.py", "line": 4},
}


@pytest.fixture
def platforms(project: Project) -> Project:
    project.write(TREE)
    project.configure(_r4("pkg", "pkg.heavy"))
    return project


def _r4(source: str, forbidden: str) -> str:
    """An eager_imports contract that follows `pkg` from `source` to `forbidden`."""
    return (
        "[importlinter:contract:r4]\nname = R4\ntype = eager_imports\n"
        f"source_modules = {source}\nfollow_modules = pkg\nforbidden_modules = {forbidden}\n"
    )


def closure_of(module: str) -> dict[str, Any]:
    result = run_cli("closure", module, "--format", "json")
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.output)["modules"]
    return found


@pytest.mark.usefixtures("platforms")
def test_a_module_that_every_chain_reaches_across_a_test_is_conditional() -> None:
    modules = closure_of("pkg")
    assert {name for name, entry in modules.items() if entry.get("conditional")} == {
        "pkg.heavy",
        "pkg.platforms.xpu",
    }
    assert modules["pkg.platforms.xpu"]["hop"]["conditions"] == [[XPU_TEST]]
    assert "conditions" not in modules["pkg.heavy"]["hop"]
    assert "conditions" not in modules["pkg.platforms.cpu"]["hop"]


@pytest.mark.usefixtures("platforms")
def test_a_closure_shows_a_chain_that_crosses_no_test_where_one_exists(project: Project) -> None:
    project.write({"pkg/platforms/cpu.py": "import pkg.heavy\n"})
    modules = closure_of("pkg")
    assert "conditional" not in modules["pkg.heavy"]
    assert modules["pkg.heavy"]["reached_from"] == "pkg.platforms.cpu"


@pytest.mark.usefixtures("platforms")
def test_why_shows_the_test_under_the_hop() -> None:
    result = run_cli("why", "pkg", "pkg.platforms.xpu")
    assert result.output.splitlines()[-2:] == [
        "  pkg.platforms -> pkg.platforms.xpu: l.5 eager, inside def detect, called at import "
        "time at l.6 (pkg/platforms/__init__.py:5)",
        "    only if hasattr(os, 'xpu') and os.xpu() (pkg/platforms/__init__.py:4)",
    ]
    assert "eager chain, conditional:" in result.output


@pytest.mark.usefixtures("platforms")
def test_closure_shows_the_test_after_a_conditional_hop() -> None:
    lines = run_cli("closure", "pkg").output.splitlines()
    assert (
        "  pkg.platforms.xpu  (pkg/platforms/__init__.py:5, only if hasattr(os, 'xpu') and "
        "os.xpu() (pkg/platforms/__init__.py:4))"
    ) in lines
    # (Its own hop crosses no test: the chain to it does.)
    assert "  pkg.heavy  (pkg/platforms/xpu.py:1, conditional)" in lines


@pytest.mark.usefixtures("platforms")
def test_why_draws_a_conditional_eager_edge_as_eager_and_conditional() -> None:
    # (The shortest chain's hop to xpu is deferred; the eager chain's, the same import that
    # pkg.platforms's call at l.6 runs, is an edge of its own: eager.)
    drawn = run_cli("why", "pkg", "pkg.platforms.xpu", "--format", "dot").output.splitlines()
    assert drawn[-3:] == [
        '  "pkg.platforms" -> "pkg.platforms.xpu" [label="l.5, deferred", style=dashed];',
        '  "pkg.platforms" -> "pkg.platforms.xpu" '
        '[label="l.5, called at l.6, conditional", style=solid];',
        "}",
    ]
    flowchart = run_cli("why", "pkg", "pkg.platforms.xpu", "--format", "mermaid").output
    assert flowchart.splitlines()[-2:] == [
        '  m1 -.->|"l.5, deferred"| m2',
        '  m1 -->|"l.5, called at l.6, conditional"| m2',
    ]


# One import on two lines, each under a test of its own; as reports hold it, with where each
# line and test stands (`if os.name == "nt":` at l.3, `else:` of `if B:` at l.8).
TWO_TESTS = EagerHop(
    "app.a",
    "app.m",
    (4, 9),
    ("module-level if", "module-level else"),
    conditions=((("app.a", "if", 'os.name == "nt"', 3),), (("app.a", "else", "B", 8),)),
)
A_TEST: Condition = {
    "module": "app.a",
    "line": 3,
    "kind": "if",
    "test": 'os.name == "nt"',
    "shown": 'os.name == "nt"',
    "location": {"path": "app/a.py", "line": 3},
}
NOT_B: Condition = {
    "module": "app.a",
    "line": 8,
    "kind": "else",
    "test": "B",
    "shown": "not (B)",
    "location": {"path": "app/a.py", "line": 8},
}
TWO_TESTS_DATA: Hop = {
    "importer": "app.a",
    "imported": "app.m",
    "line_numbers": [4, 9],
    "why": ["module-level if", "module-level else"],
    "locations": [{"path": "app/a.py", "line": 4}, {"path": "app/a.py", "line": 9}],
    "eager": [True, True],
    "conditions": [[A_TEST], [NOT_B]],
}


def test_a_hop_gives_the_tests_of_each_of_its_lines() -> None:
    # No file of `app.a` is found: no locations.
    assert TWO_TESTS.as_data(eager=True) == {
        "importer": "app.a",
        "imported": "app.m",
        "line_numbers": [4, 9],
        "why": ["module-level if", "module-level else"],
        "locations": [],
        "eager": [True, True],
        "conditions": [[{**A_TEST, "location": None}], [{**NOT_B, "location": None}]],
    }
    # A hop with a line that runs under no test runs wherever its importer is imported.
    once = TWO_TESTS._replace(conditions=(TWO_TESTS.conditions[0], ()))
    assert "conditions" not in once.as_data()


def test_a_hop_s_keys_come_in_the_report_s_order() -> None:
    call = Call("app.a", None, 5, "app.b", "load")
    called = TWO_TESTS._replace(calls=((call,), ()))
    assert list(called.as_data(eager=True)) == list(get_type_hints(Hop))


def test_each_output_gives_the_tests_of_each_line_of_a_hop() -> None:
    assert describe_hop(TWO_TESTS_DATA) == (
        "app.a -> app.m (l.4, module-level if; l.9, module-level else) "
        'l.4 only if os.name == "nt" (app/a.py:3); l.9 only if not (B) (app/a.py:8)'
    )
    assert chain_steps(TWO_TESTS_DATA) == [
        (
            "app.a -> app.m (l.4, module-level if; l.9, module-level else)",
            [{"path": "app/a.py", "line": 4}, {"path": "app/a.py", "line": 9}],
        ),
        (
            'l.4 only if os.name == "nt"; l.9 only if not (B)',
            [{"path": "app/a.py", "line": 3}, {"path": "app/a.py", "line": 8}],
        ),
    ]
    assert describe_hop_lines(TWO_TESTS_DATA).splitlines() == [
        "app.a -> app.m: l.4 eager, module-level if (app/a.py:4); l.9 eager, module-level else "
        "(app/a.py:9)",
        '    l.4 only if os.name == "nt" (app/a.py:3); l.9 only if not (B) (app/a.py:8)',
    ]


def test_the_tests_that_every_line_of_a_hop_runs_under_are_shown_once() -> None:
    both: Hop = {**TWO_TESTS_DATA, "conditions": [[A_TEST, NOT_B], [A_TEST, NOT_B]]}
    assert only_if(both) == 'only if os.name == "nt" (app/a.py:3) and not (B) (app/a.py:8)'
    assert chain_steps(both)[-1] == (
        'only if os.name == "nt" and not (B)',
        [{"path": "app/a.py", "line": 3}, {"path": "app/a.py", "line": 8}],
    )


def test_why_closure_and_a_broken_contract_give_each_line_s_tests(project: Project) -> None:
    project.write(
        {
            "pkg/a.py": (
                "import os\n\nif os.name == 'nt':\n    import pkg.m\n\n\n\n"
                "if os.environ.get('B'):\n    import pkg.m\n"
            ),
            "pkg/m.py": "import pkg.heavy\n",
            "pkg/heavy.py": "",
        }
    )
    project.configure(_r4("pkg.a", "pkg.heavy"))
    lines = "l.4 eager, module-level if (pkg/a.py:4); l.9 eager, module-level if (pkg/a.py:9)"
    tests = "l.4 only if os.name == 'nt' (pkg/a.py:3); l.9 only if os.environ.get('B') (pkg/a.py:8)"
    # The graph's import, the shortest chain, is the walk's hop: one chain, with its tests.
    result = run_cli("why", "pkg.a", "pkg.m")
    assert result.output.splitlines() == [
        "eager chain, conditional:",
        f"  pkg.a -> pkg.m: {lines}",
        f"    {tests}",
    ]
    imports = explore.load(cache_dir=None).imports("pkg.a")
    assert repr(imports).splitlines() == [f"pkg.a -> pkg.m: {lines}", f"    {tests}"]
    (first, second) = closure_of("pkg.a")["pkg.m"]["hop"]["conditions"]
    assert [(c["line"], c["shown"]) for c in first + second] == [
        (3, "os.name == 'nt'"),
        (8, "os.environ.get('B')"),
    ]
    assert (
        "-   l.4 only if os.name == 'nt'; l.9 only if os.environ.get('B')\n"
        "    pkg/a.py:3\n    pkg/a.py:8\n"
    ) in project.check().output


def test_the_explorer_marks_conditional_modules(platforms: Project) -> None:
    closure = explore.load(cache_dir=None).eager_closure("pkg")
    assert closure.conditional == {"pkg.heavy", "pkg.platforms.xpu"}
    assert closure["pkg.heavy"].conditional


def test_a_violation_every_chain_to_which_crosses_a_test_is_conditional_and_breaks(
    platforms: Project,
) -> None:
    result = platforms.check()
    assert result.exit_code == 1
    assert (
        "pkg.platforms.xpu -> pkg.heavy runs at import time where a test holds that the tool "
        "cannot decide (conditional), reached from pkg:"
    ) in result.output
    assert "-   only if hasattr(os, 'xpu') and os.xpu()\n    pkg/platforms/__init__.py:4\n" in (
        result.output
    )
    (violation,) = platforms.contract("r4")["violations"]
    assert violation["conditional"] is True
    assert violation["chain"][-2]["conditions"] == [[XPU_TEST]]


def test_a_violation_with_a_chain_that_crosses_no_test_shows_that_chain(
    platforms: Project,
) -> None:
    platforms.write({"pkg/platforms/cpu.py": "import pkg.platforms.xpu\n"})
    (violation,) = platforms.contract("r4")["violations"]
    assert "conditional" not in violation
    assert [hop["importer"] for hop in violation["chain"]] == [
        "pkg",
        "pkg.platforms",
        "pkg.platforms.cpu",
        "pkg.platforms.xpu",
    ]


def test_assume_false_in_the_configuration_leaves_the_block_out(project: Project) -> None:
    project.write(
        {
            "pkg/__init__.py": (
                "from typing import TYPE_CHECKING\nSLOW = False\n"
                "if TYPE_CHECKING or SLOW:\n    import pkg.heavy\n"
            ),
            "pkg/heavy.py": "",
        }
    )
    contract = _r4("pkg", "pkg.heavy")
    project.configure(contract)
    (violation,) = project.contract("r4")["violations"]
    assert violation["conditional"] is True
    project.configure(contract, session="assume_false =\n    SLOW\n")
    assert project.contract("r4")["violations"] == []
    assert "pkg.heavy" not in closure_of("pkg")


# diffusers' and transformers' packages: the imports under the test serve the names that
# the object put in the module's place imports when first asked for them.
LAZY_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/models/__init__.py": (
        "import sys\nfrom typing import TYPE_CHECKING\nfrom pkg.lazy import LazyModule\n"
        "if TYPE_CHECKING or SLOW:\n    from .big import Big\n    from .small import Small\n"
        "else:\n    sys.modules[__name__] = LazyModule(__name__)\n"
    ),
    "pkg/lazy.py": (
        "import importlib\nclass LazyModule:\n    def __init__(self, name):\n"
        "        self.name = name\n    def __getattr__(self, attr):\n"
        "        return importlib.import_module('.' + attr.lower(), self.name)\n"
    ),
    "pkg/models/big.py": "",
    "pkg/models/small.py": "",
    "pkg/user.py": "from pkg.models import Big\n",
}


def test_a_module_that_replaces_itself_serves_the_names_its_untaken_imports_bind() -> None:
    source = LAZY_PACKAGE["pkg/models/__init__.py"]
    served = import_bindings.served_imports(ast.parse(source).body)
    assert served == {"Big": call_model.Served((5,)), "Small": call_model.Served((6,))}
    assert import_bindings.served_imports(ast.parse(source.replace("sys.modules", "x")).body) == {}
    scopes = read_source(source.encode()).scopes
    assert scopes[5].lazy == call_model.SERVED


@pytest.mark.parametrize("assumed", [True, False], ids=["assume_false", "undecided"])
def test_a_name_looked_up_on_such_a_module_loads_its_module_whatever_the_test(
    project: Project, assumed: bool
) -> None:
    project.write(LAZY_PACKAGE)
    project.configure("", session="assume_false =\n    SLOW\n" if assumed else "")
    modules = closure_of("pkg.user")
    assert modules["pkg.models.big"]["hop"]["why"] == ["by the import at l.1 of pkg.user"]
    assert "conditional" not in modules["pkg.models.big"]
    if assumed:
        assert "pkg.models.small" not in modules
    else:
        assert modules["pkg.models.small"]["conditional"] is True


def test_a_served_import_carries_the_tests_inside_its_if() -> None:
    source = (
        "import sys\nif TYPE_CHECKING:\n    try:\n        if not has_scipy():\n"
        "            raise Missing()\n    except Missing:\n        from .dummy import *\n"
        "    else:\n        from .lms import LMS\nelse:\n    sys.modules[__name__] = Lazy()\n"
    )
    served = import_bindings.served_imports(
        ast.parse(source).body, (SourceLines(source), never_runs)
    )
    assert served == {"LMS": call_model.Served((9,), ((9, (("unless", "not has_scipy()", 4),)),))}


def test_a_served_import_s_tests_leave_out_the_operands_decided_false() -> None:
    source = (
        "import sys\nif TYPE_CHECKING:\n    if TYPE_CHECKING or has_scipy():\n"
        "        from .lms import LMS\n    try:\n        if False or not has_torch():\n"
        "            raise Missing()\n    except Missing:\n        pass\n    else:\n"
        "        from .unet import UNet\nelse:\n    sys.modules[__name__] = Lazy()\n"
    )
    served = import_bindings.served_imports(
        ast.parse(source).body, (SourceLines(source), never_runs)
    )
    assert served == {
        "LMS": call_model.Served((4,), ((4, (("if", "has_scipy()", 3),)),)),
        "UNet": call_model.Served((11,), ((11, (("unless", "not has_torch()", 6),)),)),
    }
