"""What the eager_imports walks found, kept between runs (`eager/outcomes.py`): a run where
nothing the walks depend on changed reports what they found, without walking; any change
they depend on makes them walk again, and the report is the one a run without a cache makes."""

from __future__ import annotations

import json
import marshal
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grimp
import pytest

from helpers import Project, files_read
from importlinter_contracts import cache
from importlinter_contracts.eager import check as eager_check
from importlinter_contracts.eager import outcomes, questions, scope_cache
from importlinter_contracts.eager import walk as eager_walk
from importlinter_contracts.eager.outcomes import OUTCOMES_FILE, WalkOutcomes, WalksFound
from importlinter_contracts.errors import UnreadableSourceError

pytestmark = pytest.mark.matrix

FILES = {
    "pkg/platforms/interface.py": "",
    "pkg/platforms/cuda/platform.py": (
        "from pkg.platforms import interface\n"
        "from pkg.platforms.cuda import hooks\n"
        "try:\n    import pkg.models.llama\nexcept ImportError:\n    pass\n"
        "hooks.install()\n"
    ),
    "pkg/platforms/cuda/hooks.py": "def install():\n    import pkg.models.mistral\n",
    "pkg/platforms/rocm/platform.py": "from pkg.platforms import interface\nimport pkg.models.qwen\n",
    "pkg/platforms/rocm/__init__.py": "import pkg.models.mistral\n",
    "pkg/models/llama.py": "",
    "pkg/models/mistral.py": "",
    "pkg/models/qwen.py": "",
    # Reached by no walk.
    "pkg/utils.py": "def f():\n    import pkg.models.llama\n",
}

R4 = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules =
    pkg.platforms.*.platform
follow_modules =
    pkg.platforms
forbidden_modules =
    pkg.models
ignore_imports =
    pkg.platforms.rocm.platform -> pkg.models.qwen  # excused
    pkg.utils -> pkg.models.llama  # stale
"""

CUDA = "pkg/platforms/cuda/platform.py"


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(FILES)
    project.configure(R4)
    return project


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources walked from, from now on."""
    walked: list[str] = []
    real = eager_walk.walk

    def recording(source: str, *args: Any, **kwargs: Any) -> Any:
        walked.append(source)
        return real(source, *args, **kwargs)

    # (The check, `eager.check`, imports it from its module where it walks.)
    monkeypatch.setattr(eager_walk, "walk", recording)
    return walked


def report(tree: Project, *, cache: bool = True) -> dict[str, Any]:
    result = (tree.check_with_cache if cache else tree.check)("--format", "json")
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def outcomes_file(root: Path) -> Path:
    return root / cache.DEFAULT_CACHE_DIR / OUTCOMES_FILE


def test_a_run_where_nothing_changed_reports_what_the_walks_found_without_walking(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = report(tree)
    assert walks == ["pkg.platforms.cuda.platform", "pkg.platforms.rocm.platform"]
    (contract,) = first["contracts"]
    assert {(v["importer"], v["imported"]) for v in contract["violations"]} == {
        ("pkg.platforms.cuda.platform", "pkg.models.llama"),
        ("pkg.platforms.cuda.hooks", "pkg.models.mistral"),
        ("pkg.platforms.rocm", "pkg.models.mistral"),
    }
    assert [i["entry"] for i in contract["ignored"]] == [
        "pkg.platforms.rocm.platform -> pkg.models.qwen # excused"
    ]
    # The entry that excused an import is used; the other one is stale, as before.
    assert contract["unmatched_ignores"] == ["pkg.utils -> pkg.models.llama # stale"]
    walks.clear()
    read = files_read(monkeypatch)
    assert report(tree) == first
    assert (walks, read) == ([], [])
    assert report(tree, cache=False) == first


def test_text_output_is_the_same_from_what_the_walks_found(tree: Project) -> None:
    first = tree.check_with_cache()
    second = tree.check_with_cache()
    assert (second.exit_code, second.output) == (first.exit_code, first.output)
    assert "R4 BROKEN" in second.output


EDITS: dict[str, Callable[[Project], None]] = {
    # A file a walk read.
    "an eager import made lazy": lambda tree: tree.write(
        {
            CUDA: FILES[CUDA].replace(
                "try:\n    import pkg.models.llama\nexcept ImportError:\n    pass\n",
                "def later():\n    import pkg.models.llama\n",
            )
        }
    ),
    "a function called at import time no longer imports": lambda tree: tree.write(
        {"pkg/platforms/cuda/hooks.py": "def install():\n    pass\n"}
    ),
    "lines moved down": lambda tree: tree.write({CUDA: "\n" + FILES[CUDA]}),
    "a parent package imports a model": lambda tree: tree.write(
        {"pkg/platforms/__init__.py": "import pkg.models.qwen\n"}
    ),
    # A new module that an unchanged file's import now names: grimp finds other modules.
    "a new module where an attribute was imported": lambda tree: tree.write(
        {
            "pkg/platforms/cuda/__init__.py": "extra = None\n",
            CUDA: "from pkg.platforms.cuda import extra\n",
            "pkg/platforms/cuda/extra.py": "import pkg.models.qwen\n",
        }
    ),
    # The contract's options.
    "an entry added": lambda tree: tree.configure(
        R4 + "    pkg.platforms.cuda.platform -> pkg.models.llama  # now excused\n"
    ),
    "an entry's reason changed": lambda tree: tree.configure(R4.replace("# excused", "# why")),
    "forbidden modules changed": lambda tree: tree.configure(
        R4.replace("    pkg.models\n", "    pkg.models.llama\n")
    ),
    "allowed modules added": lambda tree: tree.configure(
        R4 + "allowed_modules =\n    pkg.models.mistral\n"
    ),
    "parent packages not included": lambda tree: tree.configure(R4 + "include_ancestors = false\n"),
    "sources changed": lambda tree: tree.configure(
        R4.replace("pkg.platforms.*.platform", "pkg.platforms.rocm.platform")
    ),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_a_change_the_walks_depend_on_makes_them_walk_again(
    tree: Project, walks: list[str], edit: Callable[[Project], None]
) -> None:
    before = report(tree)
    edit(tree)
    walks.clear()
    after = report(tree)
    assert walks != []
    assert after == report(tree, cache=False)
    assert after != before


# Edits after which every changed file answers the walks' questions as before.
SAME_ANSWERS: dict[str, dict[str, str]] = {
    "a function nobody calls imports a model": {
        CUDA: FILES[CUDA] + "\n\ndef unused():\n    import pkg.models.qwen\n"
    },
    "a comment and a constant added": {
        CUDA: FILES[CUDA] + "# tuned\nLIMIT = 3\n",
        "pkg/platforms/cuda/hooks.py": FILES["pkg/platforms/cuda/hooks.py"] + "X = 1\n",
    },
    "rewritten as it was": {CUDA: FILES[CUDA]},
}


@pytest.mark.parametrize("edit", SAME_ANSWERS.values(), ids=SAME_ANSWERS.keys())
def test_an_edit_after_which_each_changed_file_answers_the_same_needs_no_walk(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch, edit: dict[str, str]
) -> None:
    first = report(tree)
    for path, source in edit.items():
        (tree.root / path).write_text(source)
    walks.clear()
    read = files_read(monkeypatch)
    assert report(tree) == first
    assert walks == []
    # Only the changed files are read (one may be read twice, as in a walk: in part, then
    # its calls).
    assert set(read) == {source.encode() for source in edit.values()}
    # Kept again with the files' new times: the next run reads nothing.
    read.clear()
    assert report(tree) == first
    assert (walks, read) == ([], [])
    assert report(tree, cache=False) == first


# Trees, each with an edit that changes one answer of one file to the walks' questions, and
# nothing else they ask.
ONE_ANSWER_CHANGED = {
    "what an import in a called function imports": (
        {
            CUDA: "from pkg.platforms.cuda import hooks\nhooks.install()\n",
            "pkg/platforms/cuda/hooks.py": "def install():\n    import pkg.models.mistral\n",
        },
        {"pkg/platforms/cuda/hooks.py": "def install():\n    import pkg.models.qwen\n"},
    ),
    "whether a called name is a function": (
        {
            CUDA: "from pkg.platforms.cuda import hooks\nhooks.install()\n",
            "pkg/platforms/cuda/hooks.py": "install = print\n",
        },
        {"pkg/platforms/cuda/hooks.py": "def install():\n    import pkg.models.mistral\n"},
    ),
    "what a called function's body imports": (
        {
            CUDA: "from pkg.platforms.cuda import hooks\nhooks.install()\n",
            "pkg/platforms/cuda/hooks.py": "def install():\n    pass\n",
        },
        {"pkg/platforms/cuda/hooks.py": "def install():\n    import pkg.models.mistral\n"},
    ),
    "which functions a file calls at import time": (
        {
            CUDA: "from pkg.platforms.cuda import hooks\nhooks.install()\n",
            "pkg/platforms/cuda/hooks.py": (
                "def install():\n    pass\n\n\ndef setup():\n    import pkg.models.qwen\n"
            ),
        },
        {CUDA: "from pkg.platforms.cuda import hooks\nhooks.install()\nhooks.setup()\n"},
    ),
    "whether a file may call a function at import time": (
        {
            CUDA: "from pkg.platforms import interface\n",
            "pkg/platforms/interface.py": "from pkg.platforms.cuda import hooks\n",
            "pkg/platforms/cuda/hooks.py": "def install():\n    import pkg.models.mistral\n",
        },
        {"pkg/platforms/interface.py": "from pkg.platforms.cuda import hooks\nhooks.install()\n"},
    ),
}


@pytest.mark.parametrize(
    ("files", "edit"), ONE_ANSWER_CHANGED.values(), ids=ONE_ANSWER_CHANGED.keys()
)
def test_a_file_that_answers_one_question_otherwise_makes_the_walks_walk_again(
    tree: Project, walks: list[str], files: dict[str, str], edit: dict[str, str]
) -> None:
    tree.write(files)
    before = report(tree)
    for path, source in edit.items():
        (tree.root / path).write_text(source)
    walks.clear()
    after = report(tree)
    assert walks != []
    assert after == report(tree, cache=False)
    assert after != before


def test_a_changed_module_now_read_from_another_file_makes_the_walks_walk_again(
    tree: Project, walks: list[str]
) -> None:
    # A package folder beside the module file: Python (and this package) read its
    # `__init__.py`, and the report names it.
    first = report(tree)
    hooks = FILES["pkg/platforms/cuda/hooks.py"]
    (tree.root / "pkg/platforms/cuda/hooks.py").write_text(hooks + "# edited\n")
    (tree.root / "pkg/platforms/cuda/hooks").mkdir()
    package = tree.root / "pkg/platforms/cuda/hooks/__init__.py"
    package.write_text(hooks)
    # (Its time is not that of the file grimp reads for the module: no warning says that it
    # changed during the run, as the warning about the module file beside it says why.)
    os.utime(package, (package.stat().st_mtime + 5,) * 2)
    walks.clear()
    after = report(tree)
    assert walks != []
    assert after == report(tree, cache=False) != first


def test_a_changed_file_that_cannot_be_asked_again_makes_the_walks_walk_again(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = report(tree)
    tree.write({CUDA: FILES[CUDA] + "X = 1\n"})

    def unreadable(*args: object) -> bool:
        raise UnreadableSourceError("pkg/platforms/cuda/platform.py:1: unreadable")

    monkeypatch.setattr(questions, "answers_again", unreadable)
    walks.clear()
    assert report(tree) == first
    assert walks != []


def test_a_new_module_makes_the_walks_walk_again(tree: Project, walks: list[str]) -> None:
    # Which modules there are changes what the walks find (a parent package, what a call
    # resolves to): any other set of modules is walked again (here, to the same findings).
    first = report(tree)
    tree.write({"pkg/new.py": ""})
    walks.clear()
    assert report(tree) == first
    assert walks != []


def test_an_edit_to_a_file_no_walk_read_changes_nothing(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = report(tree)
    tree.write({"pkg/utils.py": "import pkg.models.llama\n", "pkg/models/llama.py": "x = 1\n"})
    walks.clear()
    read = files_read(monkeypatch)
    assert report(tree) == first
    assert (walks, read) == ([], [])
    assert report(tree, cache=False) == first


def test_the_working_directory_is_part_of_what_the_walks_found(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The locations a report holds are relative to the working directory.
    first = report(tree)
    elsewhere = tree.root / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    walks.clear()
    result = tree.check_with_cache(
        "--config",
        str(tree.root / ".importlinter"),
        "--cache-dir",
        str(tree.root / ".import_linter_cache"),
        "--format",
        "json",
    )
    assert walks != []
    (contract,) = json.loads(result.stdout)["contracts"]
    paths = {location["path"] for v in contract["violations"] for location in v["locations"]}
    assert paths == {
        f"../{CUDA}",
        "../pkg/platforms/cuda/hooks.py",
        "../pkg/platforms/rocm/__init__.py",
    }
    assert contract != first["contracts"][0]


BAD_FILES = {
    "not a cache": b"\xff\x00{",
    "empty": b"",
    "a damaged seal": cache.sealed(outcomes._MAGIC, marshal.dumps({}))[:-1] + b"\x00",
    "the scope cache's seal": cache.sealed(b"importlinter-contracts import scopes\n", b"x"),
}


@pytest.mark.parametrize("content", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_file_with_foreign_content_is_ignored_and_written_again(
    tree: Project, walks: list[str], content: bytes
) -> None:
    first = report(tree)
    outcomes_file(tree.root).write_bytes(content)
    walks.clear()
    assert report(tree) == first
    assert walks != []
    walks.clear()
    assert report(tree) == first
    assert walks == []


def stored(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = marshal.loads(
        cache.unsealed(outcomes._MAGIC, outcomes_file(root).read_bytes())
    )
    return data


def reseal(root: Path, data: dict[str, Any]) -> None:
    outcomes_file(root).write_bytes(cache.sealed(outcomes._MAGIC, marshal.dumps(data)))


WRONG_OUTCOMES: dict[str, Callable[[tuple[Any, ...]], object]] = {
    "not a tuple": lambda kept: list(kept),
    "too short": lambda kept: kept[:3],
    "times cut short": lambda kept: (kept[0], kept[1], kept[2][:-1], *kept[3:]),
    "answers not marshalled": lambda kept: (*kept[:5], {}),
    "findings of another shape": lambda kept: (*kept[:4], [], kept[5]),
    "a module that is not a name": lambda kept: ((1, *kept[0][1:]), *kept[1:]),
}


@pytest.mark.parametrize("change", WRONG_OUTCOMES.values(), ids=WRONG_OUTCOMES.keys())
def test_an_outcome_of_another_shape_is_ignored(
    tree: Project, walks: list[str], change: Callable[[tuple[Any, ...]], object]
) -> None:
    first = report(tree)
    data = stored(tree.root)
    (key,) = data["outcomes"]
    data["outcomes"][key] = change(data["outcomes"][key])
    reseal(tree.root, data)
    walks.clear()
    assert report(tree) == first
    assert walks != []


def test_outcomes_of_other_code_are_ignored(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch, other_code: Path
) -> None:
    # Another version of this package (or the same, edited), another Python, another grimp.
    changes: list[Callable[[], None]] = [
        lambda: os.utime(other_code / "eager" / "walk.py", (1, 1)),
        lambda: (other_code / "report.py").write_text("# edited\n"),
        lambda: monkeypatch.setattr(grimp, "__version__", "0.0"),
    ]
    first = report(tree)
    for change in changes:
        change()
        cache.code_identity.cache_clear()
        walks.clear()
        assert report(tree) == first
        assert walks != []


def test_an_outcome_is_not_used_where_a_file_it_read_is_elsewhere_or_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    module = root / "pkg" / "a.py"
    module.write_text("")
    monkeypatch.syspath_prepend(str(root))
    found = ([], [], ["a warning"], None)  # (no smallest cut: nothing found)
    time = module.stat().st_mtime
    key = b"k" * 16
    answers = {"pkg.a": [("may_call", (), False)]}
    imports = b"i" * cache.DIGEST_SIZE

    def kept(
        read: dict[str, tuple[str, float]], graph: bytes = b"graph", now: bytes = imports
    ) -> object:
        directory = tmp_path / "cache"
        files = {module: (path, time, imports) for module, (path, time) in read.items()}
        WalkOutcomes(directory, b"graph").keep(key, found, files, answers)
        return WalkOutcomes(directory, graph).get(key, dict.fromkeys(read, now))

    assert kept({"pkg.a": (str(module), time)}) == (found, {})
    # Changed since, or reported to import other modules: where it was, and what it
    # answered, to ask it again.
    changed = {"pkg.a": (str(module), answers["pkg.a"])}
    assert kept({"pkg.a": (str(module), time + 1)}) == (found, changed)
    assert kept({"pkg.a": (str(module), time)}, now=b"o" * cache.DIGEST_SIZE) == (found, changed)
    other = tmp_path / "other" / "pkg" / "a.py"
    other.parent.mkdir(parents=True)
    other.write_text("")
    os.utime(other, (time, time))
    assert kept({"pkg.a": (str(other), time)}) is None  # another checkout's
    assert kept({"pkg.a": (str(root / "pkg" / "b.py"), time)}) is None  # gone
    assert kept({"pkg.a": (str(module), time)}, graph=b"other graph") is None


def test_the_newest_sixteen_outcomes_are_kept(tmp_path: Path) -> None:
    for number in range(20):
        found = ([], [], [str(number)], None)
        WalkOutcomes(tmp_path, b"graph").keep(bytes([number]) * 16, found, {}, {})
    outcomes_kept = WalkOutcomes(tmp_path, b"graph")
    assert [outcomes_kept.get(bytes([number]) * 16, {}) for number in range(20)] == [None] * 4 + [
        (([], [], [str(number)], None), {}) for number in range(4, 20)
    ]


# A graph built from a stale cache of grimp's: `from pkg import x` in an unchanged file
# resolves to the new module pkg.x only once grimp's own cache is gone.
STALE_GRIMP_CACHE = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules =
    pkg.a
follow_modules =
    pkg
forbidden_modules =
    pkg.bad
"""


@pytest.mark.parametrize(
    "kept", [(OUTCOMES_FILE, scope_cache.CACHE_FILE), (scope_cache.CACHE_FILE,), (OUTCOMES_FILE,)]
)
def test_our_caches_follow_the_graph_when_grimp_reports_other_imports_for_an_unchanged_file(
    project: Project, kept: tuple[Path, ...]
) -> None:
    project.write(
        {"pkg/__init__.py": "x = 1\n", "pkg/a.py": "from pkg import x\n", "pkg/bad.py": ""}
    )
    project.configure(STALE_GRIMP_CACHE)
    assert report(project)["kept"]
    (project.root / "pkg/x.py").write_text("import pkg.bad\n")
    report(project)  # (grimp's cache still has pkg.a import pkg)
    folder = project.root / cache.DEFAULT_CACHE_DIR
    grimps_folder = cache.grimp_cache_folder(folder, {"root_packages": ["pkg"]})
    assert list(grimps_folder.glob("*.json"))
    for grimps in grimps_folder.glob("*.json"):
        grimps.unlink()
    for ours in {OUTCOMES_FILE, scope_cache.CACHE_FILE} - set(kept):
        (folder / ours).unlink()
    fresh = report(project, cache=False)
    assert not fresh["kept"]
    assert report(project) == fresh


@contextmanager
def after_the_build(action: Callable[[], object]) -> Iterator[None]:
    """Run `action` after each graph grimp builds while the block runs."""
    build = grimp.build_graph

    def building(*args: Any, **kwargs: Any) -> Any:
        graph = build(*args, **kwargs)
        action()
        return graph

    grimp.build_graph = building
    try:
        yield
    finally:
        grimp.build_graph = build


@pytest.mark.parametrize("cached", [True, False])
def test_a_file_edited_after_grimp_read_it_is_named_and_no_cache_keeps_what_was_read_of_it(
    project: Project, cached: bool
) -> None:
    project.write(
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import pkg.b\n",
            "pkg/b.py": "import os\ndef h():\n    import pkg.bad\n",
            "pkg/bad.py": "",
        }
    )
    project.configure(STALE_GRIMP_CACHE)
    if cached:
        report(project)  # (what was read of pkg/b.py before the edit, kept)
    # The edit lands after grimp read the file: the lines grimp reports are those of the file
    # before it, the contract reads the file after it.
    edit = project.root / "pkg/b.py"
    with after_the_build(lambda: edit.write_text("import pkg.bad\ndef h():\n    import os\n")):
        (contract,) = report(project)["contracts"]
    assert contract["warnings"] == [
        "pkg/b.py changed while this check ran, after grimp had read it: the check may have "
        "read it as it is and grimp as it was. Run it again."
    ]
    fresh = report(project, cache=False)
    assert not fresh["kept"]
    assert report(project) == fresh


def test_without_grimps_record_of_the_files_it_read_nothing_is_kept_and_a_warning_says_so(
    tree: Project,
) -> None:
    grimps_folder = cache.grimp_cache_folder(
        tree.root / cache.DEFAULT_CACHE_DIR, {"root_packages": ["pkg"]}
    )
    with after_the_build((grimps_folder / "pkg.meta.json").unlink):
        (contract,) = report(tree)["contracts"]
    assert contract["warnings"] == [
        "The import-scope cache .import_linter_cache/importlinter_contracts/import-scopes.cache "
        "is not written: grimp's cache beside it does not say when the files it read were "
        "modified (no pkg.meta.json to read)."
    ]
    folder = tree.root / cache.DEFAULT_CACHE_DIR
    assert not (folder / scope_cache.CACHE_FILE).exists()
    assert not (folder / OUTCOMES_FILE).exists()


def test_an_outcome_file_that_cannot_be_written_gives_a_warning_and_the_run_goes_on(
    tree: Project,
) -> None:
    outcomes_file(tree.root).mkdir(parents=True)
    (contract,) = report(tree)["contracts"]
    assert contract["warnings"] == [
        "The walk-outcome cache .import_linter_cache/importlinter_contracts/walk-outcomes.cache "
        "cannot be written (Is a directory): the walks run again on the next run."
    ]


def test_verbose_output_says_whether_the_walks_ran(tree: Project) -> None:
    def verbose() -> str:
        # (import-linter wraps what it prints to the terminal's width.)
        return " ".join(tree.check_with_cache("--verbose").output.split())

    assert "Followed eager imports from 2 source modules." in verbose()
    assert (
        "Eager imports from 2 source modules: as the cache keeps them (no file they run has "
        "changed since)." in verbose()
    )
    (tree.root / CUDA).write_text(FILES[CUDA] + "X = 1\n")
    assert (
        "Eager imports from 2 source modules: as the cache keeps them (one file they run has "
        "changed since, and answers as before)." in verbose()
    )
    (tree.root / CUDA).write_text(FILES[CUDA] + "X = 2\n")
    (tree.root / "pkg/platforms/interface.py").write_text("Y = 1\n")
    assert (
        "Eager imports from 2 source modules: as the cache keeps them (2 files they run have "
        "changed since, and answer as before)." in verbose()
    )
    (tree.root / CUDA).write_text("\n" + FILES[CUDA])
    assert "Followed eager imports from 2 source modules." in verbose()


def test_an_outcome_keeps_its_smallest_cut_and_one_of_another_shape_is_not_used(
    tmp_path: Path,
) -> None:
    cut = {"statements": [], "exact": True, "not_exact": None}
    shapes = {
        b"a" * 16: ([], [], [], cut),
        b"b" * 16: ([], [], []),  # as an earlier version kept it, without the cut
        b"c" * 16: ([], [], [], ["not a cut"]),
    }
    for key, found in shapes.items():
        WalkOutcomes(tmp_path, b"graph").keep(key, found, {}, {})
    outcomes_kept = WalkOutcomes(tmp_path, b"graph")
    assert [outcomes_kept.get(key, {}) for key in shapes] == [
        (([], [], [], cut), {}),
        None,
        None,
    ]


def test_an_outcome_is_read_back_by_its_fields_names_with_a_cut_not_asked_for(
    tmp_path: Path,
) -> None:
    violation: dict[str, Any] = {"importer": "pkg.a", "imported": "pkg.bad"}
    found = WalksFound([violation], [], ["a warning"], eager_check._CUT_NOT_ASKED)
    WalkOutcomes(tmp_path, b"graph").keep(b"k" * 16, found, {}, {})
    kept = WalkOutcomes(tmp_path, b"graph").get(b"k" * 16, {})
    assert kept is not None
    assert type(kept.found) is WalksFound
    assert kept.found.violations == [violation]
    assert kept.found.ignored == []
    assert kept.found.warnings == ["a warning"]
    assert kept.found.smallest_cut == "not asked for"
