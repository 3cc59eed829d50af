"""The package as it is published: one version, its links, its classifiers, and the snippets
that name where to get it."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import importlinter_contracts
from helpers import REPO

REPOSITORY = "https://github.com/vllm-project/importlinter-contracts"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def test_the_version_is_written_once_and_read_from_there() -> None:
    assert "version" not in PROJECT
    assert PROJECT["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"] == {"path": "importlinter_contracts/__init__.py"}
    version = importlinter_contracts.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    # The installed metadata says the same (hatchling read it there).
    assert importlib.metadata.version("importlinter-contracts") == version
    # No second literal of it, in the package or in pyproject.toml.
    written = {
        str(path.relative_to(REPO)): path.read_text().count(f'"{version}"')
        for path in [REPO / "pyproject.toml", *(REPO / "importlinter_contracts").rglob("*.py")]
    }
    assert {path: count for path, count in written.items() if count} == {
        "importlinter_contracts/__init__.py": 1
    }


def test_the_links_name_the_repository_and_the_documentation() -> None:
    assert PROJECT["urls"] == {
        "Homepage": REPOSITORY,
        "Documentation": "https://vllm-project.github.io/importlinter-contracts/",
        "Repository": REPOSITORY,
        "Changelog": f"{REPOSITORY}/blob/main/CHANGELOG.md",
        "Issues": f"{REPOSITORY}/issues",
    }


def test_the_python_classifiers_are_the_pythons_ci_tests() -> None:
    classified = [
        c.rpartition(" :: ")[2]
        for c in PROJECT["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    ci = (REPO / ".ci" / "run").read_text()
    others = re.search(r"^for version in ([\d. ]+); do$", ci, re.MULTILINE)
    assert others is not None
    floor = PROJECT["requires-python"].removeprefix(">=")
    assert classified == [floor, *others[1].split()]
    # PEP 639: the license expression, and no license classifier beside it.
    assert PROJECT["license"] == "Apache-2.0"
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]


def documents() -> list[Path]:
    """The Markdown files whose snippets are checked: the README and the site's pages."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_snippets_name_the_repository_and_the_release_tag() -> None:
    tag = f"v{importlinter_contracts.__version__}"
    named = 0
    for path in documents():
        text = path.read_text()
        where = path.relative_to(REPO)
        for placeholder in ("<this repository's URL>", "<tag or commit>"):
            assert placeholder not in text, where
        for url, ref in re.findall(r"git\+(\S+?)@([^\s\"'`]+)", text):
            assert (url, ref) == (REPOSITORY, tag), where
            named += 1
        for repo, rev in re.findall(r"- repo: (\S+)\n\s+rev: (\S+)", text):
            if "importlinter-contracts" in repo:
                assert (repo, rev) == (REPOSITORY, tag), where
                named += 1
        for link in re.findall(r"https?://[^\s)\"'`<>]*importlinter-contracts[^\s)\"'`<>]*", text):
            assert link.startswith((REPOSITORY, PROJECT["urls"]["Documentation"])), (where, link)
    assert named >= 2  # the README's install command and pre-commit configuration
