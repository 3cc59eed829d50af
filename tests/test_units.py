"""Direct tests of the small shared pieces: the allowlist matcher, the cache directory a run
uses, and module lookups."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path

import click
import pytest
from grimp import ImportGraph
from importlinter.domain.imports import ModuleExpression

from importlinter_contracts.allowlist.entries import Allowlist, parse_entry
from importlinter_contracts.cache import DEFAULT_CACHE_DIR, cache_directory, using_cache_directory
from importlinter_contracts.errors import FileWriteError
from importlinter_contracts.files import write_atomically
from importlinter_contracts.locations import display_path
from importlinter_contracts.modules import (
    has_module,
    is_within,
    matching_modules,
    parents,
    within,
)

pytestmark = pytest.mark.matrix


@pytest.fixture
def graph() -> ImportGraph:
    graph = ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.a.x", "pkg.ab", "pkg.b", "pkg.b.y"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a.x", imported="pkg.b.y", line_number=3, line_contents="")
    graph.add_import(importer="pkg.ab", imported="pkg.b", line_number=1, line_contents="")
    graph.add_import(importer="pkg.b.y", imported="pkg.a", line_number=2, line_contents="")
    return graph


# The allowlist matcher


def test_an_entry_excuses_the_imports_its_expression_matches(graph: ImportGraph) -> None:
    entry = parse_entry("pkg.a.* -> pkg.b.**  # debt")
    allowlist = Allowlist(graph, [entry])
    assert allowlist.excuse("pkg.a.x", "pkg.b.y") is entry
    assert allowlist.excuse("pkg.ab", "pkg.b") is None
    assert allowlist.excuse("pkg.b.y", "pkg.a") is None
    assert allowlist.stale() == []


def test_an_entry_that_excuses_nothing_asked_is_stale(graph: ImportGraph) -> None:
    used, unused, absent = (
        parse_entry("pkg.ab -> pkg.b"),
        parse_entry("pkg.b.y -> pkg.a  # exists, but nobody asks"),
        parse_entry("pkg.gone -> pkg.b"),
    )
    allowlist = Allowlist(graph, [used, unused, absent])
    assert allowlist.excuse("pkg.ab", "pkg.b") is used
    assert allowlist.stale() == [unused, absent]


def test_every_entry_that_matches_an_excused_import_counts_as_used(graph: ImportGraph) -> None:
    first, second = parse_entry("pkg.a.x -> pkg.b.y  # one"), parse_entry("pkg.a.* -> pkg.b.y")
    allowlist = Allowlist(graph, [first, second])
    assert allowlist.excuse("pkg.a.x", "pkg.b.y") is first
    assert allowlist.stale() == []


def test_an_entry_keeps_its_reason_and_normalised_text() -> None:
    entry = parse_entry("  pkg.a   ->  pkg.b   #  NPU   group 1 ")
    assert (entry.text, entry.reason, str(entry.expression)) == (
        "pkg.a -> pkg.b # NPU group 1",
        "NPU group 1",
        "pkg.a -> pkg.b",
    )
    assert parse_entry("pkg.a -> pkg.b").reason is None
    assert not parse_entry("pkg.a -> pkg.b  # TODO: reason").has_reason


# The cache directory a run uses


def _inside_command(params: dict[str, object]) -> Path | None:
    command = click.Command("lint-imports", callback=cache_directory)
    with click.Context(command) as context:
        context.params.update(params)
        return cache_directory()


def test_cache_directory_outside_any_command_is_the_default() -> None:
    assert cache_directory() == DEFAULT_CACHE_DIR


def test_cache_directory_follows_the_running_commands_options() -> None:
    assert _inside_command({}) == DEFAULT_CACHE_DIR
    assert _inside_command({"cache_dir": "elsewhere"}) == Path("elsewhere")
    assert _inside_command({"no_cache": True, "cache_dir": "elsewhere"}) is None


def test_a_chosen_cache_directory_wins_over_the_command_and_is_restored() -> None:
    with using_cache_directory(Path("chosen")):
        assert _inside_command({"cache_dir": "elsewhere"}) == Path("chosen")
        with using_cache_directory(None):
            assert cache_directory() is None
        assert cache_directory() == Path("chosen")
    assert cache_directory() == DEFAULT_CACHE_DIR


# Module lookups


def test_is_within_means_the_package_or_a_descendant() -> None:
    assert is_within("pkg.a", "pkg.a") and is_within("pkg.a.x", "pkg.a")
    assert not is_within("pkg.ab", "pkg.a") and not is_within("pkg", "pkg.a")
    assert within("pkg.b.y", {"pkg.a", "pkg.b"}) and not within("pkg.ab", {"pkg.a"})


@pytest.mark.parametrize("packages", [["pkg.a", "x"], {"pkg.a", "x"}, frozenset({"pkg.a", "x"})])
def test_within_answers_alike_for_any_collection_of_packages(packages: set[str]) -> None:
    # A set is answered by looking the module and its parents up.
    assert [within(m, packages) for m in ("pkg.a", "pkg.a.x.y", "pkg.ab", "pkg", "x.y", "y")] == [
        True,
        True,
        False,
        False,
        True,
        False,
    ]


def test_an_atomic_write_makes_a_new_file_with_the_mode_a_new_file_gets(tmp_path: Path) -> None:
    made = tmp_path / "made"
    with made.open("w"):
        pass
    written = tmp_path / "written"
    write_atomically(written, b"data", durable=False)
    assert written.read_bytes() == b"data"
    assert stat.S_IMODE(written.stat().st_mode) == stat.S_IMODE(made.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["made", "written"]
    # And replaces it, keeping its mode.
    written.chmod(0o640)
    write_atomically(written, b"new")
    assert (written.read_bytes(), stat.S_IMODE(written.stat().st_mode)) == (b"new", 0o640)


def test_an_atomic_write_into_a_missing_folder_says_why(tmp_path: Path) -> None:
    with pytest.raises(FileWriteError) as caught:
        write_atomically(tmp_path / "missing" / "file", b"data")
    assert caught.value.reason == "No such file or directory"
    assert str(caught.value) == (
        f"cannot write {tmp_path / 'missing' / 'file'}: no file can be made in "
        f"{tmp_path / 'missing'} (No such file or directory); nothing was written."
    )


class _Signalled(BaseException):
    pass


def _raise_signalled(signal_number: int, frame: object) -> None:
    raise _Signalled(signal_number)


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="no signals to a thread (Windows)")
def test_a_signal_as_the_temporary_file_is_made_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signal comes the moment the temporary file has been made, before the write knows
    its descriptor, and is taken by another thread, as a signal sent to the process can be
    (grimp's threads, started before the write): its handler runs in this thread, and the
    file is gone."""
    import threading

    made_one = threading.Event()

    def take_the_signal() -> None:
        if made_one.wait(timeout=30):  # (a write that never made it fails the test below)
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

    taker = threading.Thread(target=take_the_signal)
    taker.start()
    real_open = os.open

    def made_then_signalled(file: str, flags: int, mode: int = 0o777) -> int:
        made = real_open(file, flags, mode)
        if file.endswith(".tmp"):
            made_one.set()
            taker.join()
            time.sleep(0)  # the handler runs here, if not already in `join`
        return made

    monkeypatch.setattr(os, "open", made_then_signalled)
    previous = signal.signal(signal.SIGTERM, _raise_signalled)
    try:
        with pytest.raises(_Signalled):
            write_atomically(tmp_path / "written", b"data", durable=False)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert list(tmp_path.iterdir()) == []


def test_parents_are_listed_innermost_first() -> None:
    assert list(parents("pkg.a.x")) == ["pkg.a", "pkg"]
    assert list(parents("pkg")) == []


def test_has_module_looks_one_module_up(graph: ImportGraph) -> None:
    assert has_module(graph, "pkg.a.x")
    assert not has_module(graph, "pkg.c")


def test_matching_modules_reads_plain_names_and_wildcards(graph: ImportGraph) -> None:
    assert matching_modules(graph, ModuleExpression("pkg.a")) == {"pkg.a"}
    assert matching_modules(graph, ModuleExpression("pkg.c")) == set()
    assert matching_modules(graph, ModuleExpression("pkg.*")) == {"pkg.a", "pkg.ab", "pkg.b"}
    assert matching_modules(graph, ModuleExpression("pkg.**")) == {
        "pkg.a",
        "pkg.a.x",
        "pkg.ab",
        "pkg.b",
        "pkg.b.y",
    }


@pytest.mark.parametrize(
    ("working_directory", "shown"),
    [
        ("config", "pkg/mod.py"),  # outside the tree: from the tree's root
        ("tree", "pkg/mod.py"),
        ("tree/pkg/sub", "../mod.py"),  # inside the tree: from the working directory
        ("tree/pkg", "mod.py"),
    ],
)
def test_a_path_is_shown_from_the_working_directory_or_the_trees_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, working_directory: str, shown: str
) -> None:
    source = tmp_path / "tree" / "pkg" / "mod.py"
    (tmp_path / "tree" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "config").mkdir()
    source.write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "tree"))
    monkeypatch.chdir(tmp_path / working_directory)
    assert display_path(source) == shown
    # A file in no folder of sys.path is shown from the working directory where it is inside
    # it, else absolute (not climbing out with `../../..`).
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    other = tmp_path / "other.py"
    inside = tmp_path / working_directory / "other.py"
    assert (display_path(other), display_path(inside)) == (str(other), "other.py")
