"""Rule R4 on synthetic packages: what importing a source module loads at import time."""

from __future__ import annotations

import json
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from importlinter.cli import lint_imports_command

from helpers import Project, files_read, forget_walk_outcomes, imports_of, patches_compiled
from importlinter_contracts.eager import module_files, outcomes, scope_cache
from importlinter_contracts.eager.call_model import Body, CallReading
from importlinter_contracts.eager.outline import Outline
from importlinter_contracts.eager.scopes import SourceReading

pytestmark = pytest.mark.matrix

BASE = {
    "pkg/platforms/__init__.py": "",
    "pkg/platforms/interface.py": "",
    "pkg/platforms/cuda/__init__.py": "",
    "pkg/platforms/cuda/platform.py": "from pkg.platforms import interface\n",
    "pkg/platforms/cuda/hooks.py": "",
    "pkg/platforms/cuda/models/__init__.py": "",
    "pkg/platforms/cuda/models/big.py": "",
    "pkg/models/__init__.py": "",
    "pkg/models/llama.py": "",
    "pkg/attention/__init__.py": "",
    "pkg/attention/registry.py": "",
    "pkg/attention/flash.py": "",
    "pkg/utils.py": "",
}

R4 = """\
[importlinter:contract:r4]
name = Platform classes load no implementation
type = eager_imports
source_modules =
    pkg.platforms.*.platform
follow_modules =
    pkg.platforms
forbidden_modules =
    pkg.platforms.*.models
    pkg.models
    pkg.attention
allowed_modules =
    pkg.attention.registry
{options}
"""


def configure(project: Project, options: str = "", session: str = "") -> None:
    project.configure(R4.format(options=textwrap.dedent(options)), session=session)


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(BASE)
    configure(project)
    return project


def violations(project: Project) -> set[tuple[str, str]]:
    return imports_of(project.contract("r4")["violations"])


def test_clean_tree_is_kept(tree: Project) -> None:
    tree.write(
        {"pkg/platforms/cuda/platform.py": "from pkg.attention import registry\nimport pkg.utils\n"}
    )
    report = tree.contract("r4")
    assert report["kept"], report
    assert report["sources"] == ["pkg.platforms.cuda.platform"]


EAGER_FORMS = {
    "module level": "import pkg.models.llama\n",
    "module-level try": "try:\n    import pkg.models.llama\nexcept ImportError:\n    pass\n",
    "module-level if": "import os\nif os.environ.get('X'):\n    from pkg.models import llama\n",
    "with": "import contextlib\nwith contextlib.suppress(ImportError):\n    import pkg.models.llama\n",
    "class body": "class Platform:\n    from pkg.models import llama\n",
    "else of TYPE_CHECKING": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    pass\nelse:\n    import pkg.models.llama\n",
    "TYPE_CHECKING or another test": "from typing import TYPE_CHECKING\nif TYPE_CHECKING or X:\n    import pkg.models.llama\n",
}

DEFERRED_FORMS = {
    "function": "def load():\n    import pkg.models.llama\n",
    "method": "class Platform:\n    def load(self):\n        from pkg.models import llama\n",
    "TYPE_CHECKING": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.models.llama\n",
    "lazy import": "lazy import pkg.models.llama\n",
    "main guard": 'if __name__ == "__main__":\n    import pkg.models.llama\n',
    "TYPE_CHECKING alias": "from typing import TYPE_CHECKING as TC\nif TC:\n    import pkg.models.llama\n",
    "typing alias": "import typing as t\nif t.TYPE_CHECKING:\n    import pkg.models.llama\n",
    "if False": "if False:\n    import pkg.models.llama\n",
    "if 0": "if 0:\n    import pkg.models.llama\n",
}


@pytest.mark.parametrize("source", EAGER_FORMS.values(), ids=EAGER_FORMS.keys())
def test_each_eager_form_breaks_the_contract(project: Project, source: str) -> None:
    project.write({**BASE, "pkg/platforms/cuda/platform.py": source})
    # TYPE_CHECKING imports stay in the graph, so that only the contract's own reading decides.
    configure(project, session="exclude_type_checking_imports = false\n")
    assert violations(project) == {("pkg.platforms.cuda.platform", "pkg.models.llama")}


@pytest.mark.parametrize("source", DEFERRED_FORMS.values(), ids=DEFERRED_FORMS.keys())
def test_each_deferred_form_keeps_the_contract(project: Project, source: str) -> None:
    project.write({**BASE, "pkg/platforms/cuda/platform.py": source})
    # (`lazy import` is Python 3.15's syntax: analysed for 3.15.)
    configure(project, session="exclude_type_checking_imports = false\npython_version = 3.15\n")
    assert project.contract("r4")["kept"]


def test_chain_through_the_follow_scope_is_reported_hop_by_hop(tree: Project) -> None:
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": "import os\nfrom pkg.platforms.cuda import hooks\n",
            "pkg/platforms/cuda/hooks.py": "\n\nclass Hooks:\n    from pkg.platforms.cuda.models import big\n",
        }
    )
    (violation,) = tree.contract("r4")["violations"]
    assert violation == {
        "importer": "pkg.platforms.cuda.hooks",
        "imported": "pkg.platforms.cuda.models.big",
        "line_numbers": [4],
        "why": ["class body of Hooks"],
        "locations": [{"path": "pkg/platforms/cuda/hooks.py", "line": 4}],
        "sources": ["pkg.platforms.cuda.platform"],
        "chain": [
            {
                "importer": "pkg.platforms.cuda.platform",
                "imported": "pkg.platforms.cuda.hooks",
                "line_numbers": [2],
                "why": ["module level"],
                "locations": [{"path": "pkg/platforms/cuda/platform.py", "line": 2}],
            },
            {
                "importer": "pkg.platforms.cuda.hooks",
                "imported": "pkg.platforms.cuda.models.big",
                "line_numbers": [4],
                "why": ["class body of Hooks"],
                "locations": [{"path": "pkg/platforms/cuda/hooks.py", "line": 4}],
            },
        ],
    }
    output = tree.lint_imports().output
    assert (
        "pkg.platforms.cuda.hooks -> pkg.platforms.cuda.models.big runs at import time, "
        "reached from pkg.platforms.cuda.platform:\n" in output
    )
    assert (
        "-   pkg.platforms.cuda.platform -> pkg.platforms.cuda.hooks (l.2, module level)\n    pkg/platforms/cuda/platform.py:2\n"
        in output
    )
    assert (
        "-   pkg.platforms.cuda.hooks -> pkg.platforms.cuda.models.big (l.4, class body of Hooks)\n    pkg/platforms/cuda/hooks.py:4\n"
        in output
    )


def test_thin_hook_that_imports_bodies_inside_a_function_keeps_the_contract(tree: Project) -> None:
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": "from pkg.platforms.cuda.hooks import apply\n",
            "pkg/platforms/cuda/hooks.py": "def apply():\n    from pkg.platforms.cuda.models import big\n",
        }
    )
    assert tree.contract("r4")["kept"]


def test_an_import_of_one_module_on_many_lines_is_one_hop_with_every_line(tree: Project) -> None:
    lines = "".join(f"if a{n}:\n    import pkg.models.llama\n" for n in range(70))
    tree.write({"pkg/platforms/cuda/platform.py": "import os\n" + lines})
    (violation,) = tree.contract("r4")["violations"]
    assert violation["line_numbers"] == list(range(3, 143, 2))
    assert violation["why"] == ["module-level if"] * 70


def test_imports_are_not_followed_out_of_the_follow_scope(tree: Project) -> None:
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": "import pkg.utils\nfrom pkg.platforms.cuda import models\n",
            "pkg/utils.py": "import pkg.models.llama\n",
        }
    )
    # pkg.utils is outside the follow scope: reached and checked, but not followed.
    assert violations(tree) == {("pkg.platforms.cuda.platform", "pkg.platforms.cuda.models")}


def test_ancestors_of_reached_modules_count_unless_turned_off(project: Project) -> None:
    project.write({**BASE, "pkg/platforms/cuda/__init__.py": "from pkg.models import llama\n"})
    configure(project)
    report = project.contract("r4")
    (violation,) = report["violations"]
    assert (violation["importer"], violation["imported"]) == (
        "pkg.platforms.cuda",
        "pkg.models.llama",
    )
    assert violation["chain"][0] == {
        "importer": "pkg.platforms.cuda.platform",
        "imported": "pkg.platforms.cuda",
        "line_numbers": [],
        "why": ["its parent package runs first"],
        "locations": [],
    }
    configure(project, "include_ancestors = false")
    assert project.contract("r4")["kept"]


def test_allowed_modules_are_exceptions_inside_the_forbidden_set(tree: Project) -> None:
    tree.write({"pkg/platforms/cuda/platform.py": "from pkg.attention import registry, flash\n"})
    assert violations(tree) == {("pkg.platforms.cuda.platform", "pkg.attention.flash")}


def follow_everything(project: Project) -> None:
    config = project.root / ".importlinter"
    config.write_text(
        config.read_text().replace("    pkg.platforms\nforbidden", "    pkg\nforbidden")
    )


def test_an_allowed_module_brings_its_parent_packages(tree: Project) -> None:
    follow_everything(tree)
    tree.write({"pkg/platforms/cuda/platform.py": "from pkg.attention import registry\n"})
    # Python runs pkg.attention (forbidden) before pkg.attention.registry (allowed).
    report = tree.contract("r4")
    assert report["kept"], report
    assert report["violations"] == []


def test_the_parent_of_an_allowed_module_is_still_followed(tree: Project) -> None:
    follow_everything(tree)
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": "from pkg.attention import registry\n",
            "pkg/attention/__init__.py": "\nfrom pkg.attention import flash\n",
        }
    )
    (violation,) = tree.contract("r4")["violations"]
    assert (violation["importer"], violation["imported"], violation["line_numbers"]) == (
        "pkg.attention",
        "pkg.attention.flash",
        [2],
    )
    assert [(hop["importer"], hop["imported"], hop["why"]) for hop in violation["chain"]] == [
        ("pkg.platforms.cuda.platform", "pkg.attention.registry", ["module level"]),
        ("pkg.attention.registry", "pkg.attention", ["its parent package runs first"]),
        ("pkg.attention", "pkg.attention.flash", ["module level"]),
    ]


def test_wildcards_in_sources_and_forbidden_modules(tree: Project) -> None:
    tree.write(
        {
            "pkg/platforms/npu/__init__.py": "",
            "pkg/platforms/npu/platform.py": "from pkg.platforms.npu.models import fused\n",
            "pkg/platforms/npu/models/fused.py": "",
            "pkg/platforms/cuda/platform.py": "from pkg.platforms.npu.models import fused\n",
        }
    )
    report = tree.contract("r4")
    assert report["sources"] == ["pkg.platforms.cuda.platform", "pkg.platforms.npu.platform"]
    assert imports_of(report["violations"]) == {
        ("pkg.platforms.cuda.platform", "pkg.platforms.npu.models.fused"),
        ("pkg.platforms.npu.platform", "pkg.platforms.npu.models.fused"),
    }


def test_a_violation_reached_from_several_sources_lists_them_all(tree: Project) -> None:
    tree.write(
        {
            "pkg/platforms/npu/__init__.py": "",
            "pkg/platforms/npu/platform.py": "from pkg.platforms import interface\n",
            "pkg/platforms/interface.py": "import pkg.models.llama\n",
        }
    )
    (violation,) = tree.contract("r4")["violations"]
    assert violation["sources"] == ["pkg.platforms.cuda.platform", "pkg.platforms.npu.platform"]
    assert [hop["importer"] for hop in violation["chain"]] == [
        "pkg.platforms.cuda.platform",
        "pkg.platforms.interface",
    ]


def test_allowlist_excuses_an_eager_import_and_goes_stale_once_it_is_deferred(
    project: Project,
) -> None:
    project.write({**BASE, "pkg/platforms/cuda/platform.py": "import pkg.models.llama\n"})
    configure(
        project,
        """\
        ignore_imports =
            pkg.platforms.cuda.platform -> pkg.models.llama  # moves out in step 4
        require_reasons = true
        """,
    )
    report = project.contract("r4")
    assert report["kept"]
    (ignored,) = report["ignored"]
    assert ignored["reason"] == "moves out in step 4"
    assert ignored["sources"] == ["pkg.platforms.cuda.platform"]
    project.write({"pkg/platforms/cuda/platform.py": "def load():\n    import pkg.models.llama\n"})
    report = project.contract("r4")
    assert not report["kept"] and report["violations"] == []
    assert report["unmatched_ignores"] == [
        "pkg.platforms.cuda.platform -> pkg.models.llama # moves out in step 4"
    ]


def test_allowlist_excuses_a_dynamic_import_run_at_import_time(project: Project) -> None:
    project.write(
        {
            **BASE,
            "pkg/platforms/cuda/platform.py": """\
                import importlib


                def load_all():
                    importlib.import_module("pkg.models.llama")


                load_all()
                """,
        }
    )
    for entry in ("pkg.models.llama", "pkg.models.*"):
        configure(
            project,
            f"""\
            ignore_imports =
                pkg.platforms.cuda.platform -> {entry}  # registered in step 4
            """,
        )
        report = project.contract("r4")
        assert (report["kept"], report["violations"], report["unmatched_ignores"]) == (
            True,
            [],
            [],
        )
        (ignored,) = report["ignored"]
        assert (ignored["importer"], ignored["imported"], ignored["entry"]) == (
            "pkg.platforms.cuda.platform",
            "pkg.models.llama",
            f"pkg.platforms.cuda.platform -> {entry} # registered in step 4",
        )
        assert project.check("--no-cache").stdout.splitlines()[-3:] == [
            "Platform classes load no implementation KEPT (1 ignored import)",
            "",
            "Contracts: 1 kept, 0 broken.",
        ]


def test_forbidden_expression_matching_nothing_is_a_warning(tree: Project) -> None:
    configure(tree)
    (tree.root / ".importlinter").write_text(
        (tree.root / ".importlinter").read_text().replace("    pkg.models\n", "    pkg.modles\n")
    )
    report = tree.contract("r4")
    assert report["kept"]
    assert report["warnings"] == [
        "forbidden_modules: 'pkg.modles' matches no module of the graph (did you mean "
        "'pkg.models'?)."
    ]


@pytest.mark.parametrize(
    ("forbidden", "message"),
    [
        (
            "    pkg.modles\n",
            "'pkg.modles' matches no module of the graph (did you mean 'pkg.models'?)",
        ),
        (
            "    pkg.modles\n    pkg.platforms.*.modls\n",
            "none of 'pkg.modles', 'pkg.platforms.*.modls' matches a module of the graph",
        ),
    ],
    ids=["one", "several"],
)
def test_forbidden_modules_matching_nothing_at_all_is_an_error(
    tree: Project, forbidden: str, message: str
) -> None:
    """Not a KEPT with warnings: the contract would check nothing."""
    text = (tree.root / ".importlinter").read_text()
    start = text.index("forbidden_modules =\n") + len("forbidden_modules =\n")
    end = text.index("allowed_modules")
    (tree.root / ".importlinter").write_text(text[:start] + forbidden + text[end:])
    result = tree.check("--contract", "r4")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "Platform classes load no implementation" is not '
        f"configured correctly: forbidden_modules: {message}, so the contract would check "
        "nothing.\n"
    )


def test_allowed_expression_matching_nothing_is_a_warning(tree: Project) -> None:
    """An exception that excepts nothing leaves every forbidden module checked."""
    configure(tree)
    (tree.root / ".importlinter").write_text(
        (tree.root / ".importlinter")
        .read_text()
        .replace("    pkg.attention.registry\n", "    pkg.attention.registyr\n")
    )
    report = tree.contract("r4")
    assert report["kept"]
    assert report["warnings"] == [
        "allowed_modules: 'pkg.attention.registyr' matches no module of the graph (did you "
        "mean 'pkg.attention.registry'?)."
    ]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "    pkg.platforms.*.platform\n",
            "    pkg.platforms.*.platfrom\n",
            "source_modules: 'pkg.platforms.*.platfrom' matches no module of the graph: did you "
            "mean 'pkg.platforms.*.platform'?",
        ),
        (
            "    pkg.platforms\nforbidden",
            "    pkg.platformz\nforbidden",
            "follow_modules: 'pkg.platformz' is not a module of the graph: did you mean "
            "'pkg.platforms'?",
        ),
        (
            "include_ancestors",
            "include_ancestor",
            "include_ancestor: Unrecognized option. Did you mean 'include_ancestors'?",
        ),
        (
            "    pkg.attention.registry\n",
            "    pkg.attention.**.**\n",
            "allowed_modules: A recursive wildcard cannot be followed by a wildcard.",
        ),
    ],
    ids=["source-matches-nothing", "follow-missing", "misspelt-option", "bad-expression"],
)
def test_configuration_errors_are_one_line(tree: Project, old: str, new: str, message: str) -> None:
    configure(tree, "include_ancestors = true")
    config = tree.root / ".importlinter"
    config.write_text(config.read_text().replace(old, new))
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "Platform classes load no implementation" is not configured correctly: {message}\n'
    )


def test_missing_required_options_are_each_named(tree: Project) -> None:
    tree.configure("[importlinter:contract:r4]\nname = R4\ntype = eager_imports\n")
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        f'importlinter-contracts: Contract "R4" is not configured correctly: {field}: This is a required field.'
        for field in ("source_modules", "follow_modules", "forbidden_modules")
    ]


# PEP 701 lets a replacement field of an f-string span lines; grimp reads that on any Python.
# A PEP 701 f-string (Python 3.12) between an import and its block's header: where the
# import stands cannot be read without it.
NEWER_SYNTAX = 'def f():\n    x = f"{\n    1\n}"\n    import pkg.models.llama\n'


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12's tokenizer reads PEP 701")
def test_syntax_this_python_cannot_read_in_a_reached_file_is_a_one_line_error(
    tree: Project,
) -> None:
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": "import os\nif os.name:\n    from pkg.platforms.cuda import hooks\n"
        }
    )
    (tree.root / "pkg/platforms/cuda/hooks.py").write_text(NEWER_SYNTAX)
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "Platform classes load no implementation": '
        "pkg/platforms/cuda/hooks.py: cannot classify its imports: line 2: this Python's "
        "tokenizer cannot read '\"' here\n"
    )
    assert "Traceback" not in tree.lint_imports().output


def test_syntax_this_python_cannot_read_away_from_the_imports_is_not_read(tree: Project) -> None:
    # Each import is read from the lines between it and its block's header: syntax newer
    # than this Python elsewhere in the file does not change where the import stands.
    tree.write({"pkg/platforms/cuda/platform.py": "from pkg.platforms.cuda import hooks\n"})
    (tree.root / "pkg/platforms/cuda/hooks.py").write_text(
        'x = f"{\n    1\n}"\ndef f():\n    import pkg.models.llama\n'
    )
    assert tree.contract("r4")["kept"]


@pytest.mark.skipif(
    sys.version_info < (3, 12), reason="Python 3.11's tokenizer cannot read PEP 701"
)
def test_syntax_of_newer_pythons_is_classified(tree: Project) -> None:
    tree.write({"pkg/platforms/cuda/platform.py": "from pkg.platforms.cuda import hooks\n"})
    (tree.root / "pkg/platforms/cuda/hooks.py").write_text(NEWER_SYNTAX)
    assert tree.contract("r4")["kept"]


def test_only_the_files_of_reached_modules_are_read(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": "import os\nif os.name:\n    from pkg.platforms import interface\n",
            "pkg/platforms/interface.py": "import os\nif os.name:\n    import pkg.utils\n",
            "pkg/utils.py": "import os\nif os.name:\n    import pkg.models.llama\n",
            "pkg/platforms/cuda/hooks.py": "import os\nif os.name:\n    import pkg.models.llama\n",
        }
    )
    read = files_read(monkeypatch)
    assert tree.contract("r4")["kept"]
    # The modules entered: the source, its parent packages and the interface; pkg.utils is
    # reached but outside the follow scope, so it is not entered.
    entered = [
        "platforms/cuda/platform.py",
        "platforms/cuda/__init__.py",
        "platforms/__init__.py",
        "platforms/interface.py",
    ]
    assert sorted(read) == sorted((tree.root / "pkg" / path).read_bytes() for path in entered)


def cache_file(root: Path) -> Path:
    return root / ".import_linter_cache" / scope_cache.CACHE_FILE


def test_what_is_read_is_cached_per_file_and_no_cache_is_honoured(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    platform = "pkg/platforms/cuda/platform.py"
    tree.write({platform: "try:\n    import pkg.models.llama\nexcept E:\n    pass\n"})
    tree.check()  # the helper passes --no-cache
    assert not cache_file(tree.root).exists()

    def run() -> dict[str, object]:
        result = tree.check_with_cache("--format", "json")
        (contract,) = json.loads(result.stdout)["contracts"]
        return dict(contract)

    violation = {("pkg.platforms.cuda.platform", "pkg.models.llama")}
    read = files_read(monkeypatch)
    assert imports_of(run()["violations"]) == violation
    assert len(read) == 3  # the platform module and its two parent packages
    assert cache_file(tree.root).is_file()
    # A second run reads no file, and finds the same, with the same reasons: from what the
    # walk found, and, without that, from what was read of each file.
    for forget in (False, True):
        if forget:
            forget_walk_outcomes(tree.root)
        read.clear()
        report = run()
        assert read == []
        assert imports_of(report["violations"]) == violation
        assert report["violations"][0]["why"] == ["module-level try"]
    # A changed file is read again, and only it (twice: asked whether it answers the walks as
    # before, and, as it does not, by the walks).
    (tree.root / platform).write_text("def f():\n    import pkg.models.llama\n")
    assert run()["violations"] == []
    assert read == [(tree.root / platform).read_bytes()] * 2


@patches_compiled
def test_calls_read_with_ast_are_cached_with_the_file(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": (
                "def load():\n    import pkg.models.llama\n\n\nload()\n"
            )
        }
    )
    parsed: list[bytes] = []
    real = module_files.read_calls_of

    def recording(source: bytes, bodies: tuple[Body, ...]) -> CallReading | None:
        parsed.append(source)
        return real(source, bodies)

    monkeypatch.setattr(module_files, "read_calls_of", recording)
    for run in range(2):
        if run:
            forget_walk_outcomes(tree.root)  # the second run walks again
        result = tree.check_with_cache("--format", "json")
        (contract,) = json.loads(result.stdout)["contracts"]
        assert contract["violations"][0]["why"] == ["inside def load, called at import time at l.5"]
    # Only the file whose calls matter is parsed, and only once.
    assert parsed == [(tree.root / "pkg/platforms/cuda/platform.py").read_bytes()]


def test_a_cached_reading_gives_the_same_verdict_without_reading_the_file_again(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.write(
        {
            "pkg/platforms/cuda/platform.py": (
                "def load():\n"
                "    import pkg.models.llama\n"
                "load()\n"
                "try:\n"
                "    import pkg.platforms.cuda.models.big\n"
                "except E:\n"
                "    pass\n"
            )
        }
    )
    first = tree.check_with_cache("--format", "json")
    forget_walk_outcomes(tree.root)  # the second run walks again
    read = files_read(monkeypatch)
    second = tree.check_with_cache("--format", "json")
    assert read == []  # every reading came from the cache
    assert json.loads(second.stdout) == json.loads(first.stdout)
    found = {
        (v["imported"], tuple(v["why"]))
        for v in json.loads(second.stdout)["contracts"][0]["violations"]
    }
    assert found == {
        (
            "pkg.models.llama",
            ("inside def load, called at import time at l.3",),
        ),
        ("pkg.platforms.cuda.models.big", ("module-level try",)),
    }


@pytest.mark.parametrize(
    "text",
    [
        # Read with `ast` (the `;`), in which Python warns of the escape sequence (3.12+
        # prints a SyntaxWarning, 3.11 a hidden DeprecationWarning) ...
        'a = 1; b = "\\d"\nimport pkg.utils\n',
        # ... and in a function called at import time, whose body is parsed on its own.
        'def f():\n    import pkg.utils\n    return "\\d"\n\n\nf()\n',
    ],
    ids=["a file read with ast", "a function called at import time"],
)
def test_python_s_warnings_about_the_code_read_are_not_given(tree: Project, text: str) -> None:
    tree.write({"pkg/platforms/cuda/platform.py": text})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tree.check()
    assert (result.exit_code, result.stderr) == (0, "")
    assert [str(warning.message) for warning in caught] == []


@patches_compiled
def test_an_import_grimp_sees_where_the_classifier_sees_none_is_an_error(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.write({"pkg/platforms/cuda/platform.py": "import os\nif os.name:\n    import pkg.utils\n"})
    monkeypatch.setattr(module_files, "text_calls", lambda source: None)
    monkeypatch.setattr(module_files, "read_outline", lambda source: Outline({}, ()))
    monkeypatch.setattr(module_files, "read_source", lambda source: SourceReading({}, None, "x"))
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "Platform classes load no implementation": '
        "pkg/platforms/cuda/platform.py:3: grimp reports an import here, but no import "
        "statement starts on this line.\n"
    )


@pytest.mark.parametrize(
    ("args", "cache_folder"),
    [
        ([], ".import_linter_cache"),
        (["--cache-dir", "elsewhere"], "elsewhere"),
        (["--no-cache"], None),
    ],
    ids=["default", "cache-dir", "no-cache"],
)
def test_lint_imports_cache_options_are_honoured(
    tree: Project, args: list[str], cache_folder: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.write(
        {"pkg/platforms/cuda/platform.py": "try:\n    import pkg.utils\nexcept E:\n    pass\n"}
    )
    result = CliRunner().invoke(lint_imports_command, ["--no-logo", *args])
    assert result.exit_code == 0, result.output
    for kept in (scope_cache.CACHE_FILE, outcomes.OUTCOMES_FILE):
        written = sorted(tree.root.glob(f"*/{kept}"))
        assert written == ([] if cache_folder is None else [tree.root / cache_folder / kept])
    # A second run reads that cache (nothing is read again), or, without one, reads again.
    read = files_read(monkeypatch)
    again = CliRunner().invoke(lint_imports_command, ["--no-logo", *args])
    assert again.exit_code == 0, again.output
    assert bool(read) == (cache_folder is None)
