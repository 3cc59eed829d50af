"""The smallest cut of an eager_imports contract: the fewest import statements to defer so that
no eager chain runs from a source module to a forbidden one, in every output; minimal against
a brute force written here, on generated graphs and on generated packages."""

from __future__ import annotations

import ast
import itertools
import json
import random
from collections.abc import Callable, Collection
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_review import committed, review

from helpers import Project
from importlinter_contracts import explore
from importlinter_contracts.cli import main
from importlinter_contracts.eager import deferrable as deferrable_module
from importlinter_contracts.eager.deferrable import NotLazy
from importlinter_contracts.eager.import_time_uses import ImportTimeUse
from importlinter_contracts.eager.resolver import Call
from importlinter_contracts.eager.smallest_cut import NoCut, SmallestCut, Statement, smallest_cut
from importlinter_contracts.eager.walk import EagerHop
from importlinter_contracts.errors import UnreadableSourceError
from importlinter_contracts.rendering import smallest_cut_steps

pytestmark = pytest.mark.matrix

# Three chains into pkg.models share hops: the platform imports the config and the helpers,
# both import the registry, which imports two models (on two lines) and the helpers import a
# third model. Deferring the registry's two imports and the helpers' model import cuts them
# all (3), as does deferring the platform's two imports (2): the fewest. Each file uses its
# names in a function (not at import time), so that each import can be made lazy.
SHARED = {
    "pkg/platforms/cuda/platform.py": (
        "from pkg.platforms import config\nimport pkg.platforms.helpers\n"
        "def use():\n    return config, pkg.platforms.helpers\n"
    ),
    "pkg/platforms/config.py": "from pkg.platforms import registry\ndef use():\n    return registry\n",
    "pkg/platforms/helpers.py": (
        "from pkg.platforms import registry\nimport pkg.models.a\n"
        "def use():\n    return registry, pkg.models.a\n"
    ),
    "pkg/platforms/registry.py": (
        "import pkg.models.llama\nfrom pkg.models import b, c\n"
        "def use():\n    return pkg.models.llama, b, c\n"
    ),
    "pkg/models/llama.py": "",
    "pkg/models/a.py": "",
    "pkg/models/b.py": "",
    "pkg/models/c.py": "",
}

R4 = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.*.platform
follow_modules = pkg.platforms
forbidden_modules = pkg.models
{options}
"""


def shared(project: Project, options: str = "") -> Project:
    project.write(SHARED)
    project.configure(R4.format(options=options))
    return project


def statements_of(cut: dict[str, object]) -> list[tuple[str, int]]:
    return [(s["importer"], s["line"]) for s in cut["statements"]]  # type: ignore[attr-defined]


def test_the_cut_of_chains_sharing_hops_is_in_the_json_report(project: Project) -> None:
    report = shared(project).contract("r4")
    assert not report["kept"]
    assert report["smallest_cut"] == {
        "statements": [
            {
                "importer": "pkg.platforms.config",
                "imported": ["pkg.platforms.registry"],
                "line": 1,
                "location": {"path": "pkg/platforms/config.py", "line": 1},
                "why": "module level",
                "cuts": [
                    {"importer": "pkg.platforms.registry", "imported": "pkg.models.b"},
                    {"importer": "pkg.platforms.registry", "imported": "pkg.models.c"},
                    {"importer": "pkg.platforms.registry", "imported": "pkg.models.llama"},
                ],
                "import_time_use": None,
                "not_lazy": None,
                "uses_unread": None,
                "call": None,
            },
            {
                "importer": "pkg.platforms.cuda.platform",
                "imported": ["pkg.platforms.helpers"],
                "line": 2,
                "location": {"path": "pkg/platforms/cuda/platform.py", "line": 2},
                "why": "module level",
                "cuts": [{"importer": "pkg.platforms.helpers", "imported": "pkg.models.a"}],
                "import_time_use": None,
                "not_lazy": None,
                "uses_unread": None,
                "call": None,
            },
        ],
        "exact": True,
        "not_exact": None,
    }


def test_the_text_report_ends_with_what_to_defer(project: Project) -> None:
    result = shared(project).check()
    assert result.exit_code == 1
    output = result.output
    block = output[output.index("To keep this contract") :].rstrip("\n").splitlines()
    assert block == [
        "To keep this contract, defer these 2 imports (the fewest that cut every chain):",
        "",
        "-   pkg.platforms.config -> pkg.platforms.registry (l.1, module level), on 3 chains",
        "    pkg/platforms/config.py:1",
        "-   pkg.platforms.cuda.platform -> pkg.platforms.helpers (l.2, module level), on 1 chain",
        "    pkg/platforms/cuda/platform.py:2",
    ]


def test_a_kept_contract_has_no_cut(project: Project) -> None:
    project.write({**SHARED, "pkg/platforms/registry.py": "", "pkg/platforms/helpers.py": ""})
    project.configure(R4.format(options=""))
    report = project.contract("r4")
    assert report["kept"]
    assert "smallest_cut" not in report


def test_an_allowlisted_contract_has_the_cut_of_its_excused_chains_too(project: Project) -> None:
    entries = (
        "ignore_imports =\n"
        "    pkg.platforms.registry -> pkg.models.llama  # debt\n"
        "    pkg.platforms.registry -> pkg.models.b  # debt\n"
        "    pkg.platforms.registry -> pkg.models.c  # debt\n"
    )
    report = shared(project, entries).contract("r4")
    assert not report["kept"]  # (pkg.models.a is not excused)
    assert statements_of(report["smallest_cut"]) == [
        ("pkg.platforms.config", 1),
        ("pkg.platforms.cuda.platform", 2),
    ]
    assert report["smallest_cut"]["exact"] is True
    output = project.check().output
    assert (
        "To keep this contract, defer these 2 imports (the fewest that cut every chain, the 3 "
        "the allowlist excuses included):\n" in output
    )
    # Kept with every chain excused: the JSON still says what to defer to drop the entries.
    entries += "    pkg.platforms.helpers -> pkg.models.a  # debt\n"
    project.configure(R4.format(options=entries))
    report = project.contract("r4")
    assert report["kept"]
    assert statements_of(report["smallest_cut"]) == [
        ("pkg.platforms.config", 1),
        ("pkg.platforms.cuda.platform", 2),
    ]


EVERY_CHAIN_EXCUSED = (
    "ignore_imports =\n"
    "    pkg.platforms.registry -> pkg.models.llama  # debt\n"
    "    pkg.platforms.registry -> pkg.models.b  # debt\n"
    "    pkg.platforms.registry -> pkg.models.c  # debt\n"
    "    pkg.platforms.helpers -> pkg.models.a  # debt\n"
)


def test_a_kept_contract_s_cut_is_found_only_for_a_report_that_shows_it(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared(project, EVERY_CHAIN_EXCUSED)
    asked: list[str] = []
    real = deferrable_module.why_not_lazy

    def why_not_lazy(path: Path, lines: Collection[int]) -> dict[int, NotLazy | None]:
        asked.append(path.name)
        return real(path, lines)

    monkeypatch.setattr(deferrable_module, "why_not_lazy", why_not_lazy)
    expected = project.contract("r4")["smallest_cut"]
    assert statements_of(expected) == [
        ("pkg.platforms.config", 1),
        ("pkg.platforms.cuda.platform", 2),
    ]
    # Each file of the cut read once.
    assert sorted(asked) == ["config.py", "platform.py"]
    for text in (project.check(), project.lint_imports()):
        asked.clear()
        assert text.exit_code == 0, text.output
        assert asked == []
    # With the cache: a text run keeps no cut, and a json run after it finds the one a run
    # without the cache finds (and keeps it, for the runs after).
    assert project.check_with_cache().exit_code == 0
    for _ in range(2):
        result = project.check_with_cache("--format", "json")
        (found,) = json.loads(result.stdout)["contracts"]
        assert found["kept"] and found["smallest_cut"] == expected
    assert sorted(asked) == ["config.py", "platform.py"]
    asked.clear()
    assert project.check_with_cache().exit_code == 0
    (found,) = json.loads(project.check_with_cache("--format", "json").stdout)["contracts"]
    assert found["smallest_cut"] == expected and asked == []


def test_an_entry_that_stops_the_walks_before_forbidden_code_makes_the_cut_not_exact(
    project: Project,
) -> None:
    # The walks stop at the excused import of the registry, which is not forbidden: a cut
    # beyond it (the registry's imports) is not seen.
    entries = "ignore_imports =\n    pkg.platforms.config -> pkg.platforms.registry  # debt\n"
    report = shared(project, entries).contract("r4")
    cut = report["smallest_cut"]
    assert cut["exact"] is False
    assert cut["not_exact"] == (
        "the walks stop at pkg.platforms.config -> pkg.platforms.registry, which the "
        "allowlist excuses and which imports no forbidden module: a smaller cut may stand "
        "beyond it"
    )
    assert (
        "To keep this contract, defer these 2 imports (not known to be the fewest (the walks "
        "stop at pkg.platforms.config -> pkg.platforms.registry, which the allowlist excuses "
        "and which imports no forbidden module: a smaller cut may stand beyond it), that cut "
        "every chain, the one the allowlist excuses included):\n"
    ) in project.check().output


def test_a_chain_through_parent_packages_alone_has_no_cut_and_says_so(project: Project) -> None:
    # The source's own parent package is forbidden: Python runs it first, whatever is
    # deferred.
    project.write({"pkg/models/cuda/platform.py": "", "pkg/platforms/x.py": ""})
    project.configure(
        "[importlinter:contract:r4]\nname = R4\ntype = eager_imports\n"
        "source_modules = pkg.models.cuda.platform\nfollow_modules = pkg\n"
        "forbidden_modules = pkg.models.cuda\n"
    )
    report = project.contract("r4")
    assert not report["kept"]
    assert "smallest_cut" not in report
    assert (
        "No deferral of imports keeps this contract: pkg.models.cuda.platform -> "
        "pkg.models.cuda runs whatever imports are deferred (Python runs a package before its "
        "submodules)."
    ) in report["warnings"]


CALLED = "inside def run, called at import time at l.2 of pkg.platforms.cuda.platform"
CALL_NOT_LAZY = (
    "it is a call, which fix does not edit: the imports it runs stand in a function, which "
    "runs them only when called; make the call where its result is first needed"
)


def test_the_cut_of_imports_called_at_import_time_names_the_call(project: Project) -> None:
    project.write(
        {
            "pkg/platforms/cuda/platform.py": "from pkg.platforms.setup import run\nrun()\n",
            "pkg/platforms/setup.py": "def run():\n    import pkg.models.a\n    import pkg.models.b\n",
            "pkg/models/a.py": "",
            "pkg/models/b.py": "",
        }
    )
    project.configure(R4.format(options=""))
    cut = project.contract("r4")["smallest_cut"]
    # The call is the statement to change (one, for both imports it runs); deferring the
    # import of `run` would not do, and the imports in `run` run only when it is called.
    assert cut["statements"] == [
        {
            "importer": "pkg.platforms.cuda.platform",
            "imported": ["pkg.models.a", "pkg.models.b"],
            "line": 2,
            "location": {"path": "pkg/platforms/cuda/platform.py", "line": 2},
            "why": CALLED,
            "call": {
                "function": "pkg.platforms.setup:run",
                "imports": [
                    {"path": "pkg/platforms/setup.py", "line": 2},
                    {"path": "pkg/platforms/setup.py", "line": 3},
                ],
            },
            "cuts": [
                {"importer": "pkg.platforms.setup", "imported": "pkg.models.a"},
                {"importer": "pkg.platforms.setup", "imported": "pkg.models.b"},
            ],
            "import_time_use": None,
            "not_lazy": CALL_NOT_LAZY,
            "uses_unread": None,
        }
    ]
    output = project.check().output
    assert output[output.index("To keep this contract") :].rstrip("\n").splitlines() == [
        "To keep this contract, defer this import (the fewest that cut every chain):",
        "",
        "-   pkg.platforms.cuda.platform calls pkg.platforms.setup:run (l.2, at import time), "
        f"which imports pkg.models.a, pkg.models.b, on 2 chains; not lazily: {CALL_NOT_LAZY}",
        "    pkg/platforms/cuda/platform.py:2",
        "    pkg/platforms/setup.py:2",
        "    pkg/platforms/setup.py:3",
    ]
    # fix refuses the call with the same reason, and edits nothing.
    result = CliRunner().invoke(main, ["fix", "--no-cache"], catch_exceptions=False)
    assert f"pkg/platforms/cuda/platform.py:2: not made lazy: {CALL_NOT_LAZY}." in result.output


def test_the_cut_of_an_import_a_module_getattr_runs_names_the_from_import(
    project: Project,
) -> None:
    project.write(
        {
            "pkg/platforms/cuda/platform.py": (
                "from pkg.platforms.registry import MODELS\nMODELS.get('x')\n"
            ),
            "pkg/platforms/registry/__init__.py": (
                "def __getattr__(name):\n    import pkg.models.a\n    return {}\n"
            ),
            "pkg/models/a.py": "",
        }
    )
    project.configure(R4.format(options=""))
    # The `from` import calls the `__getattr__`: it is the statement to defer, an import,
    # whose name is used at import time.
    output = project.check().output
    assert output[output.index("To keep this contract") :].rstrip("\n").splitlines() == [
        "To keep this contract, defer this import (the fewest that cut every chain):",
        "",
        "-   pkg.platforms.cuda.platform -> pkg.models.a (l.1, inside def __getattr__('MODELS'), "
        "called at import time at l.1 of pkg.platforms.cuda.platform), on 1 chain; not "
        "lazily: MODELS is used at import time (at module level)",
        "    pkg/platforms/cuda/platform.py:1",
        "    pkg/platforms/cuda/platform.py:2",
    ]


def test_a_call_at_import_time_is_one_statement_of_the_cut_for_every_import_it_runs() -> None:
    # m0 calls m1's `run` at l.5, which imports sink modules a (l.2) and b (l.3); m0 also
    # imports m2 (l.1), which imports a (l.1).
    call = Call("m0", None, 5, "m1", "run")
    ends = [
        EagerHop("m1", "a", (2,), ("inside def run",), ((call,),), "m0"),
        EagerHop("m1", "b", (3,), ("inside def run",), ((call,),), "m0"),
        EagerHop("m2", "a", (1,), ("module level",)),
    ]
    found = smallest_cut(
        ["m0"],
        [EagerHop("m0", "m2", (1,), ("module level",))],
        ends,
        [],
        why_not_lazy=per_file(lambda statement: None),
    )
    assert isinstance(found, SmallestCut)
    # Two statements: the call, and an import (the nearest the ends, m2's); the call is
    # never asked whether it can be made lazy: it cannot.
    assert [(s.importer, s.line, s.call, s.not_lazy) for s in found.statements] == [
        ("m0", 5, "m1:run", CALL_NOT_LAZY),
        ("m2", 1, None, None),
    ]
    assert smallest_cut_steps(found.as_data())[0] == (
        f"m0 calls m1:run (l.5, at import time), which imports a, b, on none of the chains shown (it cuts others); not lazily: "
        f"{CALL_NOT_LAZY}",
        [],
    )


def test_an_import_whose_names_are_used_at_import_time_is_cut_only_where_it_must_be(
    project: Project,
) -> None:
    # The registry registers the model it imports: deferring that import would load it at
    # the registration anyway. The platform's import of the registry is cut instead, though
    # farther from the model.
    project.write(
        {
            "pkg/platforms/cuda/platform.py": (
                "from pkg.platforms import registry\ndef models():\n    return registry.KNOWN\n"
            ),
            "pkg/platforms/registry.py": "from pkg.models.a import A\nKNOWN = [A]\n",
            "pkg/models/a.py": "class A: ...\n",
        }
    )
    project.configure(R4.format(options=""))
    cut = project.contract("r4")["smallest_cut"]
    assert [(s["importer"], s["line"], s["import_time_use"]) for s in cut["statements"]] == [
        ("pkg.platforms.cuda.platform", 1, None)
    ]
    # Where the only cut is such an import, it is the cut, and the report says where the use
    # is.
    project.write({"pkg/platforms/cuda/platform.py": "from pkg.models.a import A\nKNOWN = [A]\n"})
    cut = project.contract("r4")["smallest_cut"]
    assert [(s["importer"], s["line"], s["import_time_use"]) for s in cut["statements"]] == [
        (
            "pkg.platforms.cuda.platform",
            1,
            {
                "path": "pkg/platforms/cuda/platform.py",
                "line": 2,
                "name": "A",
                "how": "at module level",
            },
        )
    ]
    output = project.check().output
    assert output[output.index("To keep this contract") :].rstrip("\n").splitlines() == [
        "To keep this contract, defer this import (the fewest that cut every chain):",
        "",
        "-   pkg.platforms.cuda.platform -> pkg.models.a (l.1, module level), on 1 chain; not "
        "lazily: A is used at import time (at module level)",
        "    pkg/platforms/cuda/platform.py:1",
        "    pkg/platforms/cuda/platform.py:2",
    ]


SIDE_EFFECT = (
    "no name it binds is used in the file or listed in its __all__: an import made for what "
    "importing the module does, which deferred would never run"
)
IN_TRY = (
    "it is inside a `try` statement, where an import cannot be lazy (an ImportError it "
    "catches would be raised at the first use instead)"
)


@pytest.mark.parametrize(
    ("platform", "line", "why", "reason"),
    [
        (
            "try:\n    import pkg.models.a\nexcept ImportError:\n    pass\n"
            "def f():\n    return pkg.models.a\n",
            2,
            "module-level try",
            IN_TRY,
        ),
        ("import pkg.models.a\n", 1, "module level", SIDE_EFFECT),
        (
            "class C:\n    import pkg.models.a as a\n",
            2,
            "class body of C",
            "it is in the body of class C, where an import cannot be lazy",
        ),
        (
            "from pkg.models.a import *\n",
            1,
            "module level",
            "a star import (`from ... import *`) cannot be lazy",
        ),
        (
            "import pkg.models.a; x = 1\ndef f():\n    return pkg.models.a\n",
            1,
            "module level",
            "it shares its line with another statement, which the edit would change too",
        ),
        (
            "import sys\nimport pkg.models.a\ndef f():\n    return pkg.models.a\n"
            "sys.set_lazy_imports_filter\n",
            2,
            "module level",
            "the file names set_lazy_imports_filter, which may refuse any lazy import",
        ),
    ],
)
def test_the_cut_says_why_an_import_cannot_be_made_lazy_as_fix_refuses_it(
    project: Project, platform: str, line: int, why: str, reason: str
) -> None:
    project.write({"pkg/platforms/cuda/platform.py": platform, "pkg/models/a.py": ""})
    project.configure(R4.format(options=""))
    (statement,) = project.contract("r4")["smallest_cut"]["statements"]
    assert (statement["line"], statement["not_lazy"], statement["import_time_use"]) == (
        line,
        reason,
        None,
    )
    output = project.check().output
    assert output[output.index("To keep this contract") :].splitlines()[2] == (
        f"-   pkg.platforms.cuda.platform -> pkg.models.a (l.{line}, {why}), on 1 chain; not "
        f"lazily: {reason}"
    )
    shown = repr(explore.load(cache_dir=None).smallest_cut("r4")).splitlines()
    assert shown[1] == (
        f"  pkg.platforms.cuda.platform -> pkg.models.a (l.{line}, {why}), on 1 chain; not "
        f"lazily: {reason}"
    )
    # The fix command refuses it with the same reason.
    result = CliRunner().invoke(main, ["fix", "--no-cache"], catch_exceptions=False)
    assert f"pkg/platforms/cuda/platform.py:{line}: not made lazy: {reason}." in result.output


@pytest.mark.parametrize(
    "registry",
    [
        "try:\n    import pkg.models.a\nexcept ImportError:\n    pass\n"
        "def f():\n    return pkg.models.a\n",
        "import pkg.models.a\n",
    ],
    ids=["try", "side-effect"],
)
def test_among_cuts_of_the_same_size_one_that_can_be_lazy_is_chosen(
    project: Project, registry: str
) -> None:
    # Two cuts of one import: the registry's, nearest the model, cannot be made lazy (in a
    # `try`, or made for what importing does); the platform's can, and is the cut.
    project.write(
        {
            "pkg/platforms/cuda/platform.py": (
                "from pkg.platforms import registry\ndef use():\n    return registry\n"
            ),
            "pkg/platforms/registry.py": registry,
            "pkg/models/a.py": "",
        }
    )
    project.configure(R4.format(options=""))
    cut = project.contract("r4")["smallest_cut"]
    assert [(s["importer"], s["line"], s["not_lazy"]) for s in cut["statements"]] == [
        ("pkg.platforms.cuda.platform", 1, None)
    ]
    # With the platform's import made for its side effects too, both are alike: the one
    # nearest the model.
    project.write({"pkg/platforms/cuda/platform.py": "from pkg.platforms import registry\n"})
    cut = project.contract("r4")["smallest_cut"]
    assert [s["importer"] for s in cut["statements"]] == ["pkg.platforms.registry"]


def test_the_review_markdown_says_what_to_defer(project: Project) -> None:
    # (The platform uses what it imports in a function: the import can be made lazy.)
    used = "import pkg.models\ndef use():\n    return pkg.models\n"
    committed(project, files={"pkg/platforms/cuda/platform.py": used})
    result = review("--format", "markdown")
    lines = result.stdout.splitlines()
    start = lines.index("#### What to defer: R4 (`r4`)")
    assert lines[start:] == [
        "#### What to defer: R4 (`r4`)",
        "",
        "To keep this contract, defer this import (the fewest that cut every chain):",
        "",
        "| import | where | runs | chains | can be lazy |",
        "| --- | --- | --- | ---: | --- |",
        "| `pkg.platforms.cuda.platform -> pkg.models` | `pkg/platforms/cuda/platform.py:1` "
        "| module level | 1 | yes |",
    ]
    data = json.loads(review("--format", "json").stdout)
    assert [(c["id"], c["excused"]) for c in data["smallest_cuts"]] == [("r4", 0)]
    # An import made for what importing the module does: why not, in the column.
    project.write({"pkg/platforms/cuda/platform.py": "import pkg.models\n"})
    lines = review("--format", "markdown").stdout.splitlines()
    assert lines[-1] == (
        "| `pkg.platforms.cuda.platform -> pkg.models` | `pkg/platforms/cuda/platform.py:1` "
        "| module level | 1 | no: no name it binds is used in the file or listed in its "
        "__all__: an import made for what importing the module does, which deferred would "
        "never run |"
    )
    # A call at import time that runs an import inside a function: the call.
    project.write(
        {"pkg/platforms/cuda/platform.py": "def load():\n    import pkg.models\nload()\n"}
    )
    lines = review("--format", "markdown").stdout.splitlines()
    assert lines[-1] == (
        "| `pkg.platforms.cuda.platform calls pkg.platforms.cuda.platform:load -> pkg.models` "
        "| `pkg/platforms/cuda/platform.py:3` | inside def load, called at import time at l.3 "
        f"| 1 | no: {CALL_NOT_LAZY} |"
    )


def test_explore_shows_the_cut(project: Project) -> None:
    shared(project)
    shown = repr(explore.load(cache_dir=None).smallest_cut("r4"))
    assert shown.splitlines() == [
        "To keep this contract, defer these 2 imports (the fewest that cut every chain):",
        "  pkg.platforms.config -> pkg.platforms.registry (l.1, module level), on 3 chains",
        "    pkg/platforms/config.py:1",
        "  pkg.platforms.cuda.platform -> pkg.platforms.helpers (l.2, module level), on 1 chain",
        "    pkg/platforms/cuda/platform.py:2",
    ]


# The cut against a brute force, on generated graphs.


def brute_force(
    steps: list[tuple[str, str, tuple[int, ...]]],
    statements: list[int],
    used: set[int],
) -> tuple[int, int] | None:
    """The fewest statements, then the fewest of them `used`, whose removal leaves `sink`
    unreachable from `root` (None when no removal does); a step runs while any of its
    statements is left (a step without statements always runs)."""
    best = None
    for size in range(len(statements) + 1):
        for deferred in itertools.combinations(statements, size):
            if not _reaches(steps, set(deferred)):
                uses = len(used & set(deferred))
                if best is None or uses < best[1]:
                    best = (size, uses)
        if best is not None:
            return best
    return None


def _reaches(steps: list[tuple[str, str, tuple[int, ...]]], deferred: set[int]) -> bool:
    seen = {"root"}
    changed = True
    while changed:
        changed = False
        for start, end, lines in steps:
            runs = not lines or any(line not in deferred for line in lines)
            if start in seen and end not in seen and runs:
                seen.add(end)
                changed = True
    return "sink" in seen


def generated_graph(seed: int) -> tuple[list[tuple[str, str, tuple[int, ...]]], set[int]]:
    """Modules m0 (the source) to m5, statements that each import one to three of them or
    the sink, a few parent-package steps, and the statements whose names are used at import
    time."""
    rng = random.Random(seed)
    modules = [f"m{n}" for n in range(6)]
    steps = [("root", "m0", ())]
    statement = 0
    for module in modules:
        for _ in range(rng.randint(0, 3)):
            statement += 1
            for target in rng.sample([*modules, "sink", "sink"], rng.randint(1, 3)):
                if target != module:
                    steps.append((module, target, (statement,)))
        if rng.random() < 0.15:
            steps.append((module, rng.choice([*modules, "sink"]), ()))
    used = {n for n in range(1, statement + 1) if rng.random() < 0.3}
    return steps, used


def cut_of(steps: list[tuple[str, str, tuple[int, ...]]], used: set[int]) -> SmallestCut | NoCut:
    def as_hop(start: str, end: str, lines: tuple[int, ...]) -> EagerHop:
        return EagerHop(start, end, lines, ("module level",) * len(lines))

    def use(statement: Statement) -> NotLazy | None:
        found = ImportTimeUse("m.py", 9, "f", "at module level")
        return NotLazy(str(found), found) if statement.line in used else None

    return smallest_cut(
        ["m0"],
        [as_hop(*step) for step in steps if step[0] != "root" and step[1] != "sink"],
        [as_hop(start, "forbidden", lines) for start, end, lines in steps if end == "sink"],
        [],
        why_not_lazy=per_file(use),
    )


@pytest.mark.parametrize("seed", range(300))
def test_the_cut_is_the_smallest_that_a_brute_force_finds(seed: int) -> None:
    steps, used = generated_graph(seed)
    statements = sorted({line for _, _, lines in steps for line in lines})
    best = brute_force(steps, statements, used)
    found = cut_of(steps, used)
    if best is None:
        assert isinstance(found, NoCut)
        return
    assert isinstance(found, SmallestCut)
    deferred = {s.line for s in found.statements}
    assert not _reaches(steps, deferred)  # a cut
    assert (len(deferred), len(deferred & used)) == best  # the smallest, then the fewest used
    assert [s.import_time_use is not None for s in found.statements] == [
        s.line in used for s in found.statements
    ]


def test_the_generated_graphs_hold_every_case() -> None:
    sizes = []
    for seed in range(300):
        steps, used = generated_graph(seed)
        statements = sorted({line for _, _, lines in steps for line in lines})
        best = brute_force(steps, statements, used)
        sizes.append(None if best is None else best)
    assert None in sizes  # no cut
    assert (0, 0) in sizes  # nothing reaches the sink
    assert any(best and best[0] >= 3 for best in sizes)
    assert any(best and best[1] >= 1 for best in sizes)  # a use cannot be avoided


def test_a_use_at_import_time_is_avoided_among_cuts_of_the_same_size() -> None:
    # Two ways to cut m0 -> m1 -> sink: m0's statement 1 or m1's statement 2; 2 is nearer the
    # sink, but its name is used at import time.
    steps = [("root", "m0", ()), ("m0", "m1", (1,)), ("m1", "sink", (2,))]
    found = cut_of(steps, used={2})
    assert isinstance(found, SmallestCut)
    assert [(s.importer, s.line) for s in found.statements] == [("m0", 1)]
    found = cut_of(steps, used=set())
    assert isinstance(found, SmallestCut)
    assert [(s.importer, s.line) for s in found.statements] == [("m1", 2)]
    # Used, and the only cut: listed, with where the use is.
    found = cut_of([("root", "m0", ()), ("m0", "sink", (1,))], used={1})
    assert isinstance(found, SmallestCut)
    assert smallest_cut_steps(found.as_data()) == [
        (
            "m0 -> forbidden (l.1, module level), on none of the chains shown (it cuts others); not lazily: f is used at "
            "import time (at module level)",
            [{"path": "m.py", "line": 9}],
        )
    ]


def per_file(
    use: Callable[[Statement], NotLazy | None],
) -> Callable[[str, list[int]], dict[int, NotLazy | None]]:
    """`smallest_cut`'s question of a module's statements, answered one by one by `use`."""
    return lambda module, lines: {line: use(Statement(module, line)) for line in lines}


def test_a_file_is_asked_once_for_all_its_statements_of_the_cut() -> None:
    # m0 -> m1 by statements 1 and 2 of m0 (each its own step), and m1 -> the sink by
    # statements 3 and 4 of m1 together: the cut is m0's two statements, asked at once.
    asked = []

    def use(module: str, lines: list[int]) -> dict[int, NotLazy | None]:
        asked.append((module, lines))
        return dict.fromkeys(lines)

    found = smallest_cut(
        ["m0"],
        [
            EagerHop("m0", "m1", (1,), ("module level",)),
            EagerHop("m0", "m2", (2,), ("module level",)),
        ],
        [
            EagerHop("m1", "forbidden"),
            EagerHop("m2", "forbidden"),
        ],
        [],
        why_not_lazy=use,
    )
    assert isinstance(found, SmallestCut)
    assert [(s.importer, s.line) for s in found.statements] == [("m0", 1), ("m0", 2)]
    assert asked == [("m0", [1, 2])]


def test_only_the_statements_of_some_smallest_cut_are_asked_for_their_uses() -> None:
    # m0 -> m1 by statement 1; m1 -> the sink by statements 2 and 3, which only together
    # cut it: no smallest cut holds them.
    asked = []

    def use(statement: Statement) -> NotLazy | None:
        asked.append(statement.line)
        return None

    found = smallest_cut(
        ["m0"],
        [EagerHop("m0", "m1", (1,), ("module level",))],
        [EagerHop("m1", "forbidden", (2, 3), ("a", "b"))],
        [],
        why_not_lazy=per_file(use),
    )
    assert isinstance(found, SmallestCut)
    assert [(s.importer, s.line) for s in found.statements] == [("m0", 1)]
    assert asked == [1]


def test_an_import_whose_uses_cannot_be_read_is_avoided_and_said_so() -> None:
    # m0 -> m1 (statement 1) -> forbidden (statement 2).
    def unreadable(statement: Statement) -> NotLazy | None:
        if statement.line == 2:
            raise UnreadableSourceError("m1.py: cannot be parsed by this Python (too deep)")
        return None

    def cut(use: Callable[[Statement], NotLazy | None]) -> SmallestCut:
        found = smallest_cut(
            ["m0"],
            [EagerHop("m0", "m1", (1,), ("module level",))],
            [EagerHop("m1", "forbidden", (2,), ("module level",))],
            [],
            why_not_lazy=per_file(use),
        )
        assert isinstance(found, SmallestCut)
        return found

    # Nearer the forbidden module, but whether it can be lazy is not known: the other one.
    assert [(s.importer, s.uses_unread) for s in cut(unreadable).statements] == [("m0", None)]

    def only_unreadable(statement: Statement) -> NotLazy | None:
        raise UnreadableSourceError("m.py: cannot be parsed by this Python (too deep)")

    found = cut(only_unreadable)
    assert [(s.importer, s.uses_unread) for s in found.statements] == [
        ("m1", "m.py: cannot be parsed by this Python (too deep)")
    ]
    assert smallest_cut_steps(found.as_data())[0][0] == (
        "m1 -> forbidden (l.2, module level), on none of the chains shown (it cuts others); whether lazily is not known: m.py: "
        "cannot be parsed by this Python (too deep)"
    )


# The cut against a brute force, on generated packages: deferring its imports keeps the
# contract.


def generated_package(seed: int) -> tuple[dict[str, str], list[tuple[str, str, tuple[int, ...]]]]:
    """pkg.platforms.p0 (the source) to p4, each with a few module-level import statements
    of other modules and of pkg.models.*; and the graph those statements make (each
    statement numbered by module and line)."""
    rng = random.Random(seed)
    modules = [f"p{n}" for n in range(5)]
    files = {f"pkg/models/f{n}.py": "" for n in range(3)}
    steps: list[tuple[str, str, tuple[int, ...]]] = [("root", "p0", ())]
    for number, module in enumerate(modules):
        lines = []
        for line in range(1, rng.randint(1, 4) + 1):
            targets = rng.sample([*modules, "f0", "f1", "f2"], rng.randint(1, 2))
            targets = [t for t in targets if t != module] or ["f0"]
            names = [f"pkg.{'models' if t.startswith('f') else 'platforms'}.{t}" for t in targets]
            lines.append(f"import {', '.join(names)}\n")
            for target in targets:
                end = "sink" if target.startswith("f") else target
                steps.append((module, end, (number * 10 + line,)))
        files[f"pkg/platforms/{module}.py"] = "".join(lines)
    return files, steps


def defer(path: Path, line: int) -> None:
    """Put the import statement on `line` into a function that nothing calls."""
    text = path.read_text()
    (node,) = [
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.Import | ast.ImportFrom) and n.lineno == line
    ]
    lines = text.splitlines(keepends=True)
    indent = " " * node.col_offset
    body = [f"    {text}" for text in lines[node.lineno - 1 : node.end_lineno]]
    lines[node.lineno - 1 : node.end_lineno] = [f"{indent}def _deferred():\n", *body]
    path.write_text("".join(lines))


@pytest.mark.parametrize("seed", range(8))
def test_deferring_the_cut_of_a_generated_package_keeps_its_contract(
    project: Project, seed: int
) -> None:
    files, steps = generated_package(seed)
    project.write(files)
    project.configure(
        "[importlinter:contract:r4]\nname = R4\ntype = eager_imports\n"
        "source_modules = pkg.platforms.p0\nfollow_modules = pkg.platforms\n"
        "forbidden_modules = pkg.models\n"
    )
    statements = sorted({line for _, _, lines in steps for line in lines})
    best = brute_force(steps, statements, set())
    assert best is not None
    report = project.contract("r4")
    if best[0] == 0:
        assert report["kept"] and "smallest_cut" not in report
        return
    cut = report["smallest_cut"]
    assert cut["exact"] and len(cut["statements"]) == best[0]
    # Later lines first, so that each edit leaves the lines before it where they are.
    for statement in sorted(cut["statements"], key=lambda s: -s["line"]):
        defer(project.root / statement["location"]["path"], statement["line"])
    assert project.contract("r4")["kept"]
