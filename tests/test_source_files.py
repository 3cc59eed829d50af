"""Where a module's file is found: a package's `__init__.py` before a module file of the same
name, as Python finds them; with the folders listed once for a run, only files that exist are
stat-ed, and what is found is the same. (The disk is the point here.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from importlinter_contracts import locations
from importlinter_contracts.locations import Listings, source_file_status_in

FILES = [
    "pkg/__init__.py",
    "pkg/plain.py",
    "pkg/both/__init__.py",
    "pkg/both.py",
    "pkg/namespace/inner.py",
    "pkg/namespace.py",
    "pkg/folder_only/data.txt",
]


@pytest.fixture
def tree(tmp_path: Path) -> str:
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "pkg" / "dir.py").mkdir()  # a folder named like a module file
    return str(tmp_path / "pkg")


@pytest.mark.parametrize(
    ("module", "expected"),
    [
        ("pkg", "pkg/__init__.py"),
        ("pkg.plain", "pkg/plain.py"),
        ("pkg.both", "pkg/both/__init__.py"),
        ("pkg.namespace", "pkg/namespace.py"),
        ("pkg.namespace.inner", "pkg/namespace/inner.py"),
        ("pkg.folder_only", None),
        ("pkg.dir", None),
        ("pkg.missing", None),
        ("pkg.missing.deeper", None),
    ],
)
def test_a_module_is_found_as_python_finds_it_with_or_without_listings(
    tree: str, module: str, expected: str | None
) -> None:
    root = os.path.dirname(tree)
    for listings in (None, Listings()):
        found = source_file_status_in((tree,), module, listings)
        assert (None if found is None else os.path.relpath(found[0], root)) == expected


def test_with_listings_only_files_that_exist_are_stat_ed(
    tree: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    stat = os.stat

    def counted(path: str) -> os.stat_result:
        asked.append(os.path.relpath(path, os.path.dirname(tree)))
        return stat(path)

    monkeypatch.setattr(locations.os, "stat", counted)
    listings = Listings()
    for module in ("pkg.plain", "pkg.missing", "pkg.namespace"):
        source_file_status_in((tree,), module, listings)
    assert asked == ["pkg/plain.py", "pkg/namespace.py"]


def test_a_folder_its_own_folder_does_not_list_is_not_listed(
    tree: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed: list[str] = []
    listdir = os.listdir

    def counted(path: str) -> list[str]:
        listed.append(os.path.relpath(path, os.path.dirname(tree)))
        return listdir(path)

    monkeypatch.setattr(locations.os, "listdir", counted)
    listings = Listings()
    for module in ("pkg.plain", "pkg.missing", "pkg.both", "pkg.namespace.inner"):
        source_file_status_in((tree,), module, listings)
    assert listed == ["pkg", "pkg/both", "pkg/namespace"]
