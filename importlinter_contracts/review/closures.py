"""What a change adds to import time: for each module watched (each eager_imports contract's
source modules, and those `review --closure` names), the modules its import-time closure gained
and lost between the base revision and the working tree.

Each closure is the one `closure` computes (`Explorer.eager_closure`), of the working tree and
of the base revision's files as git holds them, both read with the current configuration: what
differs is what the change of code did. Each gained module comes with the chain that now reaches
it and the first line of that chain that the change added or altered.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from .. import explore
from ..errors import CacheWarning, ImportlinterContractsError, RevisionError, UnknownModuleError
from ..locations import display_path, package_directories, source_file
from ..modules import has_module
from ..rendering import chain_locations
from ..report import ClosureChange, Hop, Location, Report, contract_key, is_import_finding
from .revisions import added_lines, standing_in, tree_at


def watched_modules(report: Report, named: tuple[str, ...]) -> dict[str, list[str]]:
    """Return the modules whose closures a review compares, each with the eager_imports
    contracts of `report` it is a source module of: those contracts' source modules, and the
    modules `named` (by `review --closure`)."""
    found: dict[str, list[str]] = {name: [] for name in named}
    for contract in report["contracts"]:
        for source in contract.get("sources", []):  # only eager_imports has sources
            found.setdefault(source, []).append(contract_key(contract))
    return found


def forbidden_reached(report: Report) -> dict[tuple[str, str], list[str]]:
    """Return, by source module and module, the eager_imports contracts of `report` that
    importing the source module breaks by running the module: their violations, not what
    their allowlists excuse."""
    found: dict[tuple[str, str], list[str]] = {}
    for contract in report["contracts"]:
        for finding in contract["violations"]:
            if is_import_finding(finding):
                for source in finding.get("sources", []):
                    key = (source, finding["imported"])
                    found.setdefault(key, []).append(contract_key(contract))
    return found


def contracts_broken(changes: list[ClosureChange]) -> list[str]:
    """Return the contracts that a module gained in `changes` breaks."""
    gained = [found for change in changes for found in change["gained"]]
    return sorted({contract for found in gained for contract in found["breaks"]})


class _ChangedLines:
    """Which lines of the working tree's files the change from a commit added or altered,
    asked of git once per file."""

    def __init__(self, commit: str, root: Path) -> None:
        self._commit = commit
        self._root = root.resolve()
        self._lines: dict[Path, set[int] | None] = {}

    def first_on(self, chain: list[Hop]) -> Location | None:
        """Return the first line of `chain` that the change added or altered, None for none."""
        # Each location's file, found again: its path is shown relative to the working
        # directory, or to the folder on sys.path that holds it, which may be another.
        modules = [hop["importer"] for hop in chain]
        modules += [
            call["module"] for hop in chain for calls in hop.get("calls", []) for call in calls
        ]
        files = {display_path(file): file for file in map(source_file, modules) if file}
        for where in chain_locations(chain):
            file = files.get(where["path"])
            if where["line"] is None or file is None:
                continue
            file = file.resolve()
            if not file.is_relative_to(self._root):
                continue  # not the repository's: the change did not touch it
            if file not in self._lines:
                self._lines[file] = added_lines(self._commit, file, self._root)
            lines = self._lines[file]
            if lines is None or where["line"] in lines:
                return where
        return None


def closure_changes(
    config: Path,
    config_text: str,
    report: Report,
    closures_of: tuple[str, ...],
    base: str,
    commit: str,
    root: Path,
    cache_dir: Path | None,
) -> list[ClosureChange]:
    """Return, for each source module of the eager_imports contracts of `report` and each module
    of `closures_of` whose closure changed, what it gained (each with its chain, and the
    contracts it breaks) and lost between `commit` (the revision `base` names) and the working
    tree, both read with the configuration `config_text` (the working tree's file `config`,
    which `report` checked).

    Raises UnknownModuleError for a watched module that the working tree does not have,
    RevisionError when the base revision's files cannot be written or read.
    """
    watched = watched_modules(report, closures_of)
    if not watched:
        return []
    breaks = forbidden_reached(report)
    with _warnings_said() as said:
        head = explore.load(str(config), cache_dir)
        modules: dict[str, list[str]] = {}
        for name, contracts in watched.items():
            try:
                module = head.module(name)
            except UnknownModuleError as error:  # only --closure names one that may not be
                raise UnknownModuleError(f"--closure {name}: {error}") from None
            modules.setdefault(module, []).extend(contracts)
        now = {module: head.eager_closure(module) for module in modules}
    with _warnings_said(f"at {base}: ", but=said):
        before = _closures_at(base, commit, root, config, config_text, modules, head.root_packages)
    changed = _ChangedLines(commit, root)
    found: list[ClosureChange] = []
    for module, contracts in sorted(modules.items()):
        closure = now[module]
        gained = sorted(closure.keys() - before[module])
        lost = sorted(before[module] - closure.keys())
        if not gained and not lost:
            continue
        found.append(
            {
                "module": module,
                "contracts": sorted(set(contracts)),
                "gained": [
                    {
                        "module": name,
                        "chain": (chain := closure[name].as_data()),
                        "changed": changed.first_on(chain),
                        "breaks": sorted(set(breaks.get((module, name), []))),
                    }
                    for name in gained
                ],
                "lost": lost,
            }
        )
    return found


def _closures_at(
    base: str,
    commit: str,
    root: Path,
    config: Path,
    config_text: str,
    modules: Mapping[str, object],
    root_packages: list[str],
) -> dict[str, set[str]]:
    """The closure of each module in the files of `commit`, read with the configuration
    `config_text`: empty for a module that the base does not have, every one where it has
    none of the `root_packages`."""
    relative = config.resolve().relative_to(root.resolve())
    with tree_at(commit, root) as tree, standing_in(tree, root):
        copy = tree / relative
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(config_text, encoding="utf-8")
        try:
            # No cache: the base's files are written anew for each review.
            explorer = explore.load(str(copy), None)
            return {
                module: set(explorer.eager_closure(module))
                if has_module(explorer.graph, module)
                else set()
                for module in modules
            }
        except ImportlinterContractsError as error:
            # Looked for where `load` looked: it put the working directory on sys.path.
            if not any(package_directories(package) for package in root_packages):
                return {module: set() for module in modules}  # a change that adds them
            raise RevisionError(f"at {base}: {error}") from error


@contextmanager
def _warnings_said(prefix: str = "", but: Iterable[str] = ()) -> Iterator[list[str]]:
    """Collect the warnings of the block, and warn of each after it, after `prefix`, but of
    those in `but`: the base's walks warn, said to be the base's, only of what the working
    tree's did not, so that a file unread on both sides is said once."""
    said: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield said
    said += [str(warning.message) for warning in caught]
    for warning in caught:
        message = str(warning.message)
        if issubclass(warning.category, CacheWarning):
            # (A cache is the run's, not the base's: said once, as the command says it.)
            warnings.warn(message, CacheWarning, stacklevel=3)
        elif message not in but:
            warnings.warn(prefix + message, stacklevel=3)
