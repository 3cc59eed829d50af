"""The review of a change against a base revision: allowlists, verdicts, what the change of
configuration lets through, and what the change of code adds to import time."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from ..configuration import (
    configuration_text,
    find_configuration,
    read_configuration_text,
    selected_contract_ids,
    universal_newlines,
)
from ..errors import ConfigurationError, RevisionError
from ..report import ClosureChange, SkippedContract, SmallestCutData, contract_key
from ..running import ContractSelection
from . import allowlists, closures, effects, options
from .revisions import commit_of, file_at, repository_root


class ContractCut(TypedDict):
    """What to defer for an eager_imports contract of the current configuration to be kept
    (broken, or with imports its allowlist excuses): its smallest cut."""

    id: str
    name: str
    cut: SmallestCutData
    excused: int  # how many of the chains it cuts the allowlist excuses


class ReviewReport(TypedDict):
    """`importlinter-contracts review --format json`."""

    base: str  # the revision as given
    base_commit: str
    configuration: str
    base_has_configuration: bool  # a configuration was read at the base
    # Why the base's configuration cannot be checked (None when it can): no findings are then
    # compared with it, and when it cannot be read at all, every entry counts as added.
    base_error: str | None
    allowlists: list[allowlists.ContractAllowlists]
    verdicts: dict[str, bool]  # each contract of the current configuration checked: kept?
    skipped: list[SkippedContract]  # the contracts of the current configuration not checked
    grew: bool  # an allowlist has an entry it did not have at the base
    loosened: list[effects.ChangedFinding]
    tightened: list[effects.ChangedFinding]
    # Contracts that check less, whether or not a finding is hidden by it today.
    loosened_options: list[options.LoosenedOption]
    smallest_cuts: list[ContractCut]
    # What importing each eager_imports source module, and each module `--closure` names, runs
    # now and did not at the base, or no longer runs: only the modules whose closure changed.
    closure_changes: list[ClosureChange]
    # Why they cannot be told (None when they can): the base's files cannot be read as a
    # graph, a file of them does not parse say, or git cannot write them.
    closure_error: str | None


class HistoryPoint(TypedDict):
    """The allowlist sizes at one revision."""

    revision: str
    commit: str
    entries: dict[str, int]  # contract id -> entries; absent where the contract is absent


def history(
    config: str | None, revisions: list[str], contract_ids: tuple[str, ...] = ()
) -> list[HistoryPoint]:
    """Return how many allowlist entries each contract (each that `contract_ids` names, when it
    names any: a contract of any of the revisions) had at each revision."""
    path = find_configuration(config)
    root = repository_root(path.resolve().parent)
    found = []
    for revision in revisions:
        commit = commit_of(revision, root)
        found.append((revision, commit, _configuration_at(revision, commit, path, root)[1]))
    selected = selected_contract_ids(
        contract_ids,
        [options for _, _, configuration in found for options in configuration.contracts.values()],
        path,
    )
    return [
        HistoryPoint(
            revision=revision,
            commit=commit,
            entries={
                contract_id: len(allowlists.entries(options))
                for contract_id, options in configuration.contracts.items()
                if not selected or contract_id in selected
            },
        )
        for revision, commit, configuration in found
    ]


def _selected(
    contract_ids: tuple[str, ...], configuration: allowlists.Configuration
) -> tuple[str, ...] | None:
    """The selected contracts that a configuration has: all for no selection, None for none."""
    if not contract_ids:
        return ()
    present = tuple(c for c in contract_ids if c in configuration.contracts)
    return present or None


def review(
    config: str | None,
    base: str,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    select: ContractSelection | None = None,
    closures_of: tuple[str, ...] = (),
) -> ReviewReport:
    """Return the review of the configuration at `base` against the working tree's, both
    checked on the current tree (only the contracts `contract_ids` names, when it names any,
    and `select` keeps); and how the import-time closure of each source module of the
    eager_imports contracts checked, and of each module of `closures_of`, changed between the
    files of `base` and the working tree.

    Raises ConfigurationError when the working tree's configuration cannot be read or
    checked, RevisionError when `base` or the repository cannot be read, UsageError for a
    contract id that neither configuration has, UnknownModuleError for a module of
    `closures_of` that the working tree does not have.
    """
    path = find_configuration(config)
    root = repository_root(path.resolve().parent)
    commit = commit_of(base, root)
    # A change that mends a base configuration that cannot be checked is still reviewed: its
    # allowlists against the base's, when they can be read, its findings against none.
    base_error = None
    try:
        base_text, base_configuration = _configuration_at(base, commit, path, root)
    except ConfigurationError as error:
        base_text, base_configuration = None, allowlists.Configuration.empty()
        base_error = str(error)
    current_text = read_configuration_text(path)
    current_configuration = allowlists.Configuration.from_text(current_text, path.name)
    # A contract that only the base has is reviewed too: the change removed it.
    contract_ids = selected_contract_ids(
        contract_ids,
        [*current_configuration.contracts.values(), *base_configuration.contracts.values()],
        path,
    )
    changes = [
        change
        for change in allowlists.compare(base_configuration, current_configuration)
        if not contract_ids or change["id"] in contract_ids
    ]
    current_report = effects.run_configuration(
        current_text, path.name, _selected(contract_ids, current_configuration), cache_dir, select
    )
    found: effects.Effects = {"loosened": [], "tightened": []}
    base_report = None
    if base_text is not None:
        try:
            base_report = effects.run_configuration(
                base_text, path.name, _selected(contract_ids, base_configuration), cache_dir, select
            )
        except ConfigurationError as error:
            base_error = f"at {base}: {error}"
    if base_report is not None:
        found = effects.compare(
            base_report,
            current_report,
            base_configuration,
            current_configuration,
            [(change["id"], entry) for change in changes for entry in change["added"]],
            [(change["id"], entry) for change in changes for entry in change["removed"]],
        )
    closure_changes: list[ClosureChange] = []
    closure_error = None
    try:
        closure_changes = closures.closure_changes(
            path,
            current_text,
            current_report,
            closures_of,
            base,
            commit,
            root,
            cache_dir,
        )
    except RevisionError as error:
        closure_error = str(error)
    return ReviewReport(
        base=base,
        base_commit=commit,
        configuration=str(path),
        base_has_configuration=base_text is not None,
        base_error=base_error,
        allowlists=changes,
        verdicts={
            contract_key(contract): contract["kept"] for contract in current_report["contracts"]
        },
        skipped=current_report["skipped"],
        grew=any(change["added"] for change in changes),
        loosened=found["loosened"],
        tightened=found["tightened"],
        loosened_options=options.loosened_options(
            base_configuration, current_configuration, contract_ids
        ),
        smallest_cuts=[
            {
                "id": contract_key(contract),
                "name": contract["name"],
                "cut": contract["smallest_cut"],
                "excused": len(contract["ignored"]),
            }
            for contract in current_report["contracts"]
            if "smallest_cut" in contract
        ],
        closure_changes=closure_changes,
        closure_error=closure_error,
    )


def _configuration_at(
    revision: str, commit: str, path: Path, root: Path
) -> tuple[str | None, allowlists.Configuration]:
    """The configuration file's text at `commit` (None where it had none then), and what its
    allowlists were (none then).

    Raises ConfigurationError, saying that it is `revision`'s, when the file cannot be read as
    a configuration.
    """
    content = file_at(commit, path, root)
    if content is None:
        return None, allowlists.Configuration.empty()
    try:
        # Line breaks as newlines, as the base's text always was read.
        text = universal_newlines(configuration_text(content, Path(path.name)))
        return text, allowlists.Configuration.from_text(text, path.name)
    except ConfigurationError as error:
        raise ConfigurationError(f"at {revision}: {error}") from error
