"""Bad inputs and faults of the eager-import contract: each ends in the correct verdict or in
one line that names the file and line, never in a traceback or a wrong verdict."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import grimp
import pytest

from helpers import Project, files_read, forget_walk_outcomes, imports_of
from importlinter_contracts import cache
from importlinter_contracts.eager import scope_cache
from importlinter_contracts.eager.target import target_of
from importlinter_contracts.errors import ConfigurationError

pytestmark = pytest.mark.matrix

FILES = {
    "pkg/platforms/__init__.py": "",
    "pkg/platforms/cuda/__init__.py": "",
    "pkg/platforms/cuda/platform.py": "",
    "pkg/models/__init__.py": "",
    "pkg/models/llama.py": "",
}

R4 = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules =
    pkg.platforms.cuda.platform
follow_modules =
    pkg.platforms
forbidden_modules =
    pkg.models
"""

PLATFORM = "pkg/platforms/cuda/platform.py"
VIOLATION = {("pkg.platforms.cuda.platform", "pkg.models.llama")}


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(FILES)
    project.configure(R4)
    return project


def write_platform(tree: Project, source: str) -> None:
    (tree.root / PLATFORM).write_text(source)


def one_line_error(tree: Project, message: str) -> None:
    """`check` refuses with exit 2 and exactly this line, lint-imports without a traceback."""
    result = tree.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f'importlinter-contracts: Contract "R4": {message}\n'
    assert "Traceback" not in tree.lint_imports().output


# PEP 701 (Python 3.12) lets an f-string reuse its own quote inside a replacement field.
# Python 3.11's tokenizer ends the string at that quote and reads the rest as code.
REUSED_QUOTE_HIDES_AN_EAGER_IMPORT = (
    'd = {":def h():#": 1}\nif f"{d[":def h():#"]}":\n    import pkg.models.llama\n'
)
REUSED_QUOTE_HIDES_A_FUNCTION = (
    'x = f"{\'"""\' + \'"""\'}"\ndef f():\n    # """\n    import pkg.models.llama\n'
)
ON_311 = pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12+ reads PEP 701")
ON_312_AND_NEWER = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="Python 3.11 refuses PEP 701 strings"
)


@ON_311
def test_an_f_string_reusing_its_quote_before_an_eager_import_is_refused_on_311(
    tree: Project,
) -> None:
    write_platform(tree, REUSED_QUOTE_HIDES_AN_EAGER_IMPORT)
    one_line_error(
        tree,
        f"{PLATFORM}: cannot classify its imports: line 2: this Python's tokenizer cannot "
        'read the f-string f"{d[" (its quotes need Python 3.12 or newer)',
    )


@ON_311
def test_an_f_string_reusing_its_quote_before_a_function_is_refused_on_311(
    tree: Project,
) -> None:
    write_platform(tree, REUSED_QUOTE_HIDES_A_FUNCTION)
    one_line_error(
        tree,
        f"{PLATFORM}: cannot classify its imports: line 1: this Python's tokenizer cannot "
        'read the f-string f"{\'" (its quotes need Python 3.12 or newer)',
    )


@ON_312_AND_NEWER
def test_an_f_string_reusing_its_quote_before_an_eager_import_is_read_on_312(
    tree: Project,
) -> None:
    write_platform(tree, REUSED_QUOTE_HIDES_AN_EAGER_IMPORT)
    report = tree.contract("r4")
    assert imports_of(report["violations"]) == VIOLATION
    assert report["violations"][0]["why"] == ["module-level if"]


@ON_312_AND_NEWER
def test_an_f_string_reusing_its_quote_before_a_function_is_read_on_312(tree: Project) -> None:
    write_platform(tree, REUSED_QUOTE_HIDES_A_FUNCTION)
    assert tree.contract("r4")["kept"]


def test_an_expression_too_deep_for_ast_is_read_with_the_tokenizer(tree: Project) -> None:
    # CPython compiles this; `ast` (called below pytest's and click's frames) may give up.
    write_platform(tree, "x = a" + ".b" * 2950 + "\nif x:\n    import pkg.models.llama\n")
    report = tree.contract("r4")
    assert imports_of(report["violations"]) == VIOLATION
    assert report["violations"][0]["why"] == ["module-level if"]


@ON_311
def test_a_called_function_whose_body_needs_a_newer_python_is_refused_on_311(
    tree: Project,
) -> None:
    # grimp reads the file; Python 3.11's ast cannot read `type X = int` (PEP 695).
    tree.write(
        {"pkg/platforms/cuda/hooks.py": "def f():\n    type X = int\n    import pkg.models.llama\n"}
    )
    write_platform(tree, "from pkg.platforms.cuda.hooks import f\nf()\n")
    one_line_error(
        tree,
        "pkg/platforms/cuda/hooks.py: cannot read def f, which import-time code calls: "
        "line 2: invalid syntax",
    )


# The cache: whatever it holds, the verdict is the one read from the files.

EAGER_IN_TRY = "try:\n    import pkg.models.llama\nexcept ImportError:\n    pass\n"


def cache_file(root: Path) -> Path:
    return root / ".import_linter_cache" / scope_cache.CACHE_FILE


def cached_run(tree: Project) -> dict[str, object]:
    result = tree.check_with_cache("--format", "json")
    assert result.exit_code == 1, result.output
    (contract,) = json.loads(result.stdout)["contracts"]
    assert imports_of(contract["violations"]) == VIOLATION
    assert contract["violations"][0]["why"] == ["module-level try"]
    return dict(contract)


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*.tmp"))


def sealed(data: object) -> bytes:
    """A cache file as this version seals it, holding `data`."""
    return cache.sealed(scope_cache._MAGIC, marshal.dumps(data))


def stored(root: Path) -> dict[str, object]:
    data = marshal.loads(cache.unsealed(scope_cache._MAGIC, cache_file(root).read_bytes()))
    assert data["format"] == scope_cache.cache_format()
    modules: dict[str, object] = data["modules"]
    return modules


BAD_CACHES = {
    "not a cache": b"\xff\x00{",
    "empty": b"",
    "a list": marshal.dumps([1, 2]),
    # Unsealed, these bytes would have marshal allocate without end.
    "nested too deep": b"[" * 100_000,
    "a damaged seal": sealed({"format": scope_cache.cache_format()})[:-1] + b"\x00",
    "old format": sealed({"format": (5,), "scopes": (), "modules": {}}),
    "modules not a mapping": sealed(
        {"format": scope_cache.cache_format(), "scopes": (), "modules": [1]}
    ),
    "scopes of the wrong shape": sealed(
        {"format": scope_cache.cache_format(), "scopes": ((1, 2),), "modules": {}}
    ),
}


@pytest.mark.parametrize("content", BAD_CACHES.values(), ids=BAD_CACHES.keys())
def test_a_cache_with_foreign_content_is_ignored_and_rebuilt(tree: Project, content: bytes) -> None:
    write_platform(tree, EAGER_IN_TRY)
    cache_file(tree.root).parent.mkdir(parents=True)
    cache_file(tree.root).write_bytes(content)
    assert cached_run(tree)["warnings"] == []
    assert "pkg.platforms.cuda.platform" in stored(tree.root)


WRONG_ENTRIES = {
    "entry not a tuple": "x",
    "entry too short": ("path",),
    "scopes of the wrong type": lambda entry: (*entry[:2], (2, 0), *entry[3:]),
    "scopes cut short": lambda entry: (*entry[:2], entry[2][:-1], *entry[3:]),
    "another modification time": lambda entry: (entry[0], entry[1] + 1, *entry[2:]),
}


@pytest.mark.parametrize("change", WRONG_ENTRIES.values(), ids=WRONG_ENTRIES.keys())
def test_a_cache_entry_that_does_not_fit_the_file_is_read_again(
    tree: Project, change: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_platform(tree, EAGER_IN_TRY)
    cached_run(tree)
    data = marshal.loads(cache.unsealed(scope_cache._MAGIC, cache_file(tree.root).read_bytes()))
    entry = data["modules"]["pkg.platforms.cuda.platform"]
    data["modules"]["pkg.platforms.cuda.platform"] = change(entry) if callable(change) else change
    cache_file(tree.root).write_bytes(sealed(data))
    forget_walk_outcomes(tree.root)  # (which would spare the walk, and so any reading)
    read = files_read(monkeypatch)
    cached_run(tree)
    assert read == [(tree.root / PLATFORM).read_bytes()]
    assert stored(tree.root)["pkg.platforms.cuda.platform"] == entry


def test_a_cache_that_other_code_wrote_is_not_used(
    tree: Project, monkeypatch: pytest.MonkeyPatch, other_code: Path
) -> None:
    # Another version of this package may keep entries of the same shape that mean something
    # else: a cache it wrote is not read, whatever format number it has. (Here, this package
    # with one of its files modified; and another grimp.)
    write_platform(tree, EAGER_IN_TRY)
    changes: list[Callable[[], None]] = [
        lambda: os.utime(other_code / "eager" / "walk.py", (1, 1)),
        lambda: monkeypatch.setattr(grimp, "__version__", "0.0"),
    ]
    for change in changes:
        cached_run(tree)  # (the cache as the code writes it now)
        forget_walk_outcomes(tree.root)  # (which would spare the walk, and so any reading)
        read = files_read(monkeypatch)
        cached_run(tree)
        assert read == []
        change()
        cache.code_identity.cache_clear()
        forget_walk_outcomes(tree.root)
        cached_run(tree)
        assert (tree.root / PLATFORM).read_bytes() in read


def test_scopes_that_refer_to_no_kept_scope_are_read_again_when_asked_for(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run that needs only the imports kept with the entry does not read its scopes.
    write_platform(tree, EAGER_IN_TRY)
    cached_run(tree)
    data = marshal.loads(cache.unsealed(scope_cache._MAGIC, cache_file(tree.root).read_bytes()))
    entry = data["modules"]["pkg.platforms.cuda.platform"]
    out_of_range = entry[2][:4] + (999).to_bytes(4, sys.byteorder)
    data["modules"]["pkg.platforms.cuda.platform"] = (*entry[:2], out_of_range, *entry[3:])
    cache_file(tree.root).write_bytes(sealed(data))
    read = files_read(monkeypatch)
    index = scope_cache.ScopeIndex(tree.root / ".import_linter_cache", {"root_packages": ["pkg"]})
    assert index.scope("pkg.platforms.cuda.platform", 2).reason == "module-level try"
    assert read == [(tree.root / PLATFORM).read_bytes()]


def test_an_edited_file_is_read_again_whatever_grimp_recorded_of_it(tree: Project) -> None:
    # grimp's own cache records the file as it was; a graph built without that cache (from
    # the Python API, say) does not bring it up to date. The file itself says it changed.
    write_platform(tree, EAGER_IN_TRY)
    cached_run(tree)
    write_platform(tree, "def load():\n    import pkg.models.llama\n")
    os.utime(tree.root / PLATFORM, (1, 1))
    index = scope_cache.ScopeIndex(tree.root / ".import_linter_cache", {"root_packages": ["pkg"]})
    assert index.scope("pkg.platforms.cuda.platform", 2).reason == "inside def load"


def test_entries_are_pruned_when_their_file_is_gone(tree: Project) -> None:
    tree.write({"pkg/platforms/cuda/hooks.py": EAGER_IN_TRY})
    write_platform(tree, "try:\n    from pkg.platforms.cuda import hooks\nexcept E:\n    pass\n")
    tree.check_with_cache()
    parents = ["pkg.platforms", "pkg.platforms.cuda"]
    assert sorted(stored(tree.root)) == sorted(
        [*parents, "pkg.platforms.cuda.hooks", "pkg.platforms.cuda.platform"]
    )
    (tree.root / "pkg/platforms/cuda/hooks.py").unlink()
    write_platform(tree, EAGER_IN_TRY)
    cached_run(tree)
    assert sorted(stored(tree.root)) == sorted([*parents, "pkg.platforms.cuda.platform"])


def cannot_write_warning(reason: str) -> str:
    return (
        "The import-scope cache .import_linter_cache/importlinter_contracts/import-scopes.cache "
        f"cannot be written ({reason}): files are read again on the next run."
    )


def outcomes_cannot_write_warning(reason: str) -> str:
    return (
        "The walk-outcome cache .import_linter_cache/importlinter_contracts/walk-outcomes.cache "
        f"cannot be written ({reason}): the walks run again on the next run."
    )


def test_a_cache_file_that_is_a_folder_gives_a_warning_and_the_run_goes_on(
    tree: Project,
) -> None:
    write_platform(tree, EAGER_IN_TRY)
    cache_file(tree.root).mkdir(parents=True)
    output = tree.check_with_cache().output
    assert "R4 BROKEN (1 warning)" in output
    # import-linter prints warnings itself, wrapped to the terminal's width.
    assert f"- {cannot_write_warning('Is a directory')}" in " ".join(output.split())
    assert leftovers(tree.root) == []
    # (A run that reports what the walks found writes no import scopes.)
    forget_walk_outcomes(tree.root)
    assert cached_run(tree)["warnings"] == [cannot_write_warning("Is a directory")]


@pytest.fixture
def read_only_cache_folder(tree: Project) -> Iterator[Path]:
    folder = cache_file(tree.root).parent
    folder.mkdir(parents=True)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    # root writes into a read-only folder; an immutable one stops it too, where chattr works.
    chattr = shutil.which("chattr")
    immutable = (
        os.geteuid() == 0
        and chattr is not None
        and subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode == 0
    )
    try:
        probe = folder / "probe"
        try:
            probe.touch()
        except OSError:
            yield folder
        else:
            probe.unlink()
            pytest.skip(
                "this user can write into a read-only folder here"
                + ("" if chattr else ", and chattr (e2fsprogs), to make it immutable, is missing")
            )
    finally:
        if immutable:
            subprocess.run([chattr, "-i", str(folder)], check=True)
        folder.chmod(stat.S_IRWXU)


def test_a_read_only_cache_folder_gives_a_warning_and_the_run_goes_on(
    tree: Project, read_only_cache_folder: Path
) -> None:
    write_platform(tree, EAGER_IN_TRY)
    assert cached_run(tree)["warnings"] in (
        [cannot_write_warning(reason), outcomes_cannot_write_warning(reason)]
        for reason in ("Permission denied", "Operation not permitted")
    )
    assert list(read_only_cache_folder.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root needs chattr to make a folder unwritable")
def test_without_chattr_root_skips_the_read_only_folder_test_saying_why(tmp_path: Path) -> None:
    """Where e2fsprogs is missing, as in slim containers: a skip with its reason, not an error."""
    test = f"{__file__}::test_a_read_only_cache_folder_gives_a_warning_and_the_run_goes_on"
    inner = str(tmp_path / "inner")
    pytest_options = ["-q", "-n0", "-rs", "-p", "no:cacheprovider", "--basetemp", inner]
    without_chattr = tmp_path / "bin"
    without_chattr.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_options, test],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
        env={**os.environ, "PATH": str(without_chattr)},
    )
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert (result.returncode, [line.partition(": ")[2] for line in skipped]) == (
        0,
        [
            "this user can write into a read-only folder here, and chattr (e2fsprogs), to make "
            "it immutable, is missing"
        ],
    )


def eager_lines_cached_and_fresh(
    cache: Path, modules: list[str]
) -> tuple[dict[str, object], dict[str, object]]:
    """What a run with the cache says each module imports at import time (the cache then
    saved), and what a run without any cache says."""
    options = {"root_packages": ["pkg"]}
    graph = grimp.build_graph("pkg", cache_dir=None)
    index = scope_cache.ScopeIndex(cache, options)
    cached = {module: index.eager_lines(module, graph) for module in modules}
    index.save()
    fresh = scope_cache.ScopeIndex(None, options)
    return cached, {module: fresh.eager_lines(module, graph) for module in modules}


def test_an_entry_kept_from_before_the_graph_changed_is_checked_against_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/__init__.py").write_text("x = 1\n")
    (root / "pkg/a.py").write_text("import pkg.b\n")
    (root / "pkg/b.py").write_text("from pkg import x\n")
    monkeypatch.syspath_prepend(str(root))
    eager_lines_cached_and_fresh(tmp_path / "cache", ["pkg.a", "pkg.b"])
    (root / "pkg/x.py").write_text("")  # `from pkg import x` now imports a module
    eager_lines_cached_and_fresh(tmp_path / "cache", ["pkg.a"])  # pkg.b's entry not used
    cached, fresh = eager_lines_cached_and_fresh(tmp_path / "cache", ["pkg.a", "pkg.b"])
    assert cached == fresh
    assert cached["pkg.b"] == (("pkg.x", (1,), ("module level",), ((),)),)


def test_a_cache_shared_by_two_checkouts_keeps_neither_ones_files_for_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for checkout, source in [("one", "import pkg.c\n"), ("two", "def f():\n    import pkg.c\n")]:
        (tmp_path / checkout / "pkg").mkdir(parents=True)
        for name, text in [("__init__", ""), ("c", ""), ("a", source)]:
            (tmp_path / checkout / "pkg" / f"{name}.py").write_text(text)
        os.utime(tmp_path / checkout / "pkg/a.py", (1, 1))  # the same time in both
    path = list(sys.path)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "one"), *path])
    cached, _ = eager_lines_cached_and_fresh(tmp_path / "cache", ["pkg.a"])
    assert cached["pkg.a"] == (("pkg.c", (1,), ("module level",), ((),)),)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "two"), *path])
    cached, fresh = eager_lines_cached_and_fresh(tmp_path / "cache", ["pkg.a"])
    assert cached == fresh == {"pkg.a": ()}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            "source_modules = pkg.a\nfollow_modules = pkg\nforbidden_modules = pkg.a\n",
            "source_modules: 'pkg.a' is forbidden too (forbidden_modules): importing it would "
            "break the contract whatever it imports; remove it from one of the two",
        ),
        (
            "source_modules = pkg.a\nfollow_modules = pkg.*\nforbidden_modules = pkg.b\n",
            "follow_modules: 'pkg.*' is a wildcard, and follow_modules takes module names: a "
            "module is followed with everything in it (give pkg)",
        ),
    ],
    ids=["source also forbidden", "wildcard to follow"],
)
def test_a_contract_that_could_only_mislead_is_refused(
    project: Project, options: str, message: str
) -> None:
    project.write({"pkg/a.py": "import pkg.b\n", "pkg/b.py": ""})
    project.configure(f"[importlinter:contract:r4]\nname = R4\ntype = eager_imports\n{options}")
    result = project.check()
    assert result.exit_code == 2
    assert result.output == (
        f'importlinter-contracts: Contract "R4" is not configured correctly: {message}\n'
    )


def test_a_python_newer_than_the_readers_know_is_refused() -> None:
    with pytest.raises(ConfigurationError) as raised:
        target_of({"python_version": "3.99"})
    assert str(raised.value) == (
        "[importlinter] python_version = '3.99': newer than any Python this version of "
        "importlinter-contracts reads code for (3.15 at the newest); give the version the code "
        "runs on, or upgrade importlinter-contracts."
    )
