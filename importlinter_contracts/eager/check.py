"""What an eager_imports check finds: the walks from each source module, with the caches they
use, as plain data the contract type reports.

`find_eager_imports` reuses what earlier walks found where every file they read is unchanged
or answers the same (`outcomes`); else it walks from each source through the import-scope cache
(`scope_cache`), with a second process reading files ahead (`read_ahead`), stopping where a
`Decider` says; it collects the violations and the imports the allowlist excused, gives a
finding whose chain crosses an undecided test a chain that crosses none where one exists (else
marks it conditional), and finds the smallest cut (`smallest_cut`) where a report needs it.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from grimp import ImportGraph

from ..allowlist.contract import ignored_import
from ..allowlist.entries import Allowlist, AllowlistEntry
from ..cache import cache_directory, digest, graph_digest, grimp_cache_directory, imported_digest
from ..errors import UnreadableSourceError
from ..locations import display_path
from ..modules import has_module, parents, within
from ..report import IgnoredImport, ImportFinding, SmallestCutData
from ..unseen import unseen_folders
from ..working_directory import working_directory_off_sys_path
from .cut_request import is_asked_for
from .outcomes import Answer, Answers, WalkOutcomes, WalksFound
from .target import set_target, target_of, target_python

# The walk and the readers are imported where a check walks (or asks a changed file again):
# a check that reuses what the walks found loads none of them.
if TYPE_CHECKING:
    from .scope_cache import ScopeIndex
    from .walk import EagerHop, EagerImports


class EagerRule(NamedTuple):
    """The rule of an eager_imports contract, its options resolved against the graph:
    importing each of the `sources` runs, through the modules of the `follow` packages, no
    import of a `forbidden` module that is not `allowed` (each a package with its
    descendants), the parent packages of reached modules counting as run with
    `include_ancestors`."""

    sources: list[str]
    follow: set[str]
    forbidden: set[str]
    allowed: set[str]
    include_ancestors: bool


class EagerFindings(NamedTuple):
    """What an eager_imports check found (`find_eager_imports`): the violations, the imports
    the allowlist excused, the warnings (of what the walks could not read, then of the
    caches), the smallest cut (None without findings or where no report asks for it); and
    `kept`: None where the check walked, else how many of the files the walks run have
    changed since what they found was kept (and answer as before)."""

    violations: list[ImportFinding]
    ignored: list[IgnoredImport]
    warnings: list[str]
    smallest_cut: SmallestCutData | None
    kept: int | None


class Forbidden:
    """What a `Decider` says of an import of a forbidden module: the walk stops there, and
    says so."""


FORBIDDEN = Forbidden()


class Decider:
    """Where the walks of a check go at a hop (`walk.Decide`, as `decide`): into its target
    where the target is followed and not forbidden, or stop there and say so, at a forbidden
    module (`FORBIDDEN`) or at an import an allowlist entry excuses (the entry). A module is
    forbidden inside `forbidden` but not inside `allowed`, nor a parent package of an allowed
    module: Python runs those first, so they are allowed too (their own eager imports are
    still followed and checked)."""

    __slots__ = ("_allowed", "_allowed_parents", "_allowlist", "_follow", "_forbidden", "_known")

    def __init__(
        self, forbidden: set[str], allowed: set[str], follow: set[str], allowlist: Allowlist
    ) -> None:
        self._forbidden = forbidden
        self._allowed = allowed
        self._allowed_parents = {parent for module in allowed for parent in parents(module)}
        self._follow = follow
        self._allowlist = allowlist
        # Whether each module asked about is forbidden, and followed: a walk asks for each
        # import of a module it has not entered.
        self._known: dict[str, tuple[bool, bool]] = {}

    def is_forbidden(self, module: str) -> bool:
        """Return whether an import of `module` breaks the rule."""
        return self._of(module)[0]

    def may_enter(self, module: str) -> bool:
        """Return whether a walk may enter `module`: it is followed and not forbidden."""
        forbidden, followed = self._of(module)
        return followed and not forbidden

    def decide(self, hop: EagerHop) -> bool | AllowlistEntry | Forbidden:
        """Return whether to enter a hop's target, or where to stop: at a forbidden module, or
        at an import an allowlist entry excuses (the entry, which `excuse` marks used: the
        walks ask once per hop, when they would first take it)."""
        entry = self._allowlist.excuse(hop.importer, hop.imported) if hop.is_import else None
        if entry is not None:
            return entry
        forbidden, followed = self._of(hop.imported)
        return FORBIDDEN if forbidden else followed

    def _of(self, module: str) -> tuple[bool, bool]:
        known = self._known.get(module)
        if known is None:
            forbidden = (
                within(module, self._forbidden)
                and not within(module, self._allowed)
                and module not in self._allowed_parents
            )
            known = self._known[module] = (forbidden, within(module, self._follow))
        return known


@contextmanager
def without_garbage_collection() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (as it was before, afterwards)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# A whole-package walk makes and keeps millions of small objects and no reference cycles
# worth collecting: with the cyclic garbage collector on, collecting takes 40 % of the check
# (measured on the benchmark's 20,000-module tree). It must make no cycle at all: what one
# holds would outlive the check until the next collection walks it (a test collects after a
# check).
@without_garbage_collection()
def find_eager_imports(
    graph: ImportGraph,
    rule: EagerRule,
    allowlist: Allowlist,
    session_options: dict[str, Any],
    *,
    contract: str,
) -> EagerFindings:
    """Return what the walks from each source of `rule` find (`EagerFindings`), reusing what
    earlier walks found where it holds, with the allowlist's entries that excused imports
    marked used. An unreadable source is an `UnreadableSourceError` naming the `contract`."""
    cache_dir = cache_directory()
    # The Python the readings are for, a setting of the process (as `ScopeIndex` makes it):
    # the key depends on it, and so do the commands that use the check's result (`fix`).
    set_target(target_of(session_options))
    graph_seen = graph_digest(graph, session_options)
    outcomes = WalkOutcomes(cache_dir, graph_seen)
    # What the walks find depends on these, on the graph and on the files they read (and,
    # through the locations it holds, on the working directory).
    key = _outcome_key(rule, allowlist)
    imported = {module: imported_digest(graph, module) for module in outcomes.modules_read(key)}
    kept = outcomes.get(key, imported)
    if kept is not None and kept.found.smallest_cut == _CUT_NOT_ASKED and is_asked_for():
        kept = None  # (the walks found no cut: a report asks for one now)
    cache_warnings: list[str | None] = []
    # The files read that changed after grimp read them (by module, `ScopeIndex.edited`):
    # what the walks found is kept only where there are none.
    edited: dict[str, str] | None = {}
    scopes: ScopeIndex | None = None
    if kept is not None and kept.changed:
        scopes = _scope_index(
            cache_dir, grimp_cache_directory(), graph_seen, imported, session_options
        )
        # The changed files are read afresh (the import-scope cache holds them as they
        # were).
        asked = _scope_index(None, None, graph_seen, imported, session_options)
        if _answer_again(graph, asked, kept.changed):
            read = asked.files_read(graph)
            edited = scopes.edited(read)
            if edited == {}:
                cache_warnings.append(outcomes.keep_again(key, read))
        else:
            kept = None
    if kept is None:
        if scopes is None:
            scopes = _scope_index(
                cache_dir, grimp_cache_directory(), graph_seen, imported, session_options
            )
        found, answers = _walk(graph, scopes, rule, allowlist, contract)
        if cache_dir is not None:
            read = scopes.files_read(graph)
            edited = scopes.edited(read)
            cache_warnings.append(scopes.save())
            if edited == {}:
                cache_warnings.append(outcomes.keep(key, found, read, answers))
        changed = None
    else:
        found = kept.found
        # The entries that excused imports are used, as when the walks asked.
        for excused in found.ignored:
            allowlist.excuse(excused["importer"], excused["imported"])
        changed = len(kept.changed)
    # (A package's __init__.py beside a module file of its name is not the file grimp
    # read, whatever its time: the warning about such files says so.)
    shadowed = unseen_folders(session_options).shadowed
    beside = {str(path.with_suffix("") / "__init__.py") for path in shadowed}
    cache_warnings += [
        f"{display_path(Path(path))} changed while this check ran, after grimp had read it: "
        "the check may have read it as it is and grimp as it was. Run it again."
        for path in sorted((edited or {}).values())
        if path not in beside
    ]
    # (Only with findings: a kept contract without an allowlist has nothing to defer.)
    cut = found.smallest_cut
    return EagerFindings(
        found.violations,
        found.ignored,
        found.warnings + [warning for warning in cache_warnings if warning],
        None if isinstance(cut, str) else cut,
        changed,
    )


def _scope_index(
    cache_dir: Path | None,
    grimp_cache: Path | None,
    graph_seen: bytes,
    imported: dict[str, bytes],
    session_options: dict[str, Any],
) -> ScopeIndex:
    """Return an index of what the graph's modules say about import time, with the
    import-scope cache in `cache_dir` (none: every file is read afresh), knowing the
    digests worked out already (`ScopeIndex.know_digests`)."""
    with working_directory_off_sys_path():
        from .scope_cache import ScopeIndex

    scopes = ScopeIndex(cache_dir, session_options, grimp_cache)
    scopes.know_digests(graph_seen, imported)
    return scopes


def _walk(
    graph: ImportGraph, scopes: ScopeIndex, rule: EagerRule, allowlist: Allowlist, contract: str
) -> tuple[WalksFound, Answers]:
    """Return what the walks from each source find: the violations, the imports the
    allowlist excused (sorted), the warnings of what the walks could not read and the
    smallest cut (None without findings; `_CUT_NOT_ASKED` for a kept contract where no
    report asks for it, `cut_request.asked_for`); and what each file answered."""
    # (With the working directory off sys.path, which lint-imports puts first while
    # contracts run: nothing there may stand in for a module these import.)
    with working_directory_off_sys_path():
        from .smallest_cut import NoCut, SmallestCut, smallest_cut, uncut_finding
        from .walk import (
            EagerImports,
            calls_unread_warnings,
            chain_to,
            dynamic_import_warnings,
            walk,
        )

    eager_imports = EagerImports(graph, scopes, recorded=True)
    decider = Decider(rule.forbidden, rule.allowed, rule.follow, allowlist)
    sources = rule.sources
    findings: dict[tuple[str, str], ImportFinding] = {}
    ignored: dict[tuple[str, str], IgnoredImport] = {}
    may_reach = (
        _may_reach(graph, sources, rule.include_ancestors, decider.may_enter)
        if scopes.may_read_ahead(graph)
        else []
    )
    entered: set[str] = set()
    # The hops where the walks stopped, each a finding's last import.
    ends: list[EagerHop] = []
    with scopes.reading_ahead(may_reach, eager_imports.packages_with_code()):
        for source in sources:
            try:
                reached, stops = walk(
                    source, eager_imports, decider.decide, include_parents=rule.include_ancestors
                )
            except UnreadableSourceError as error:
                raise UnreadableSourceError(f'Contract "{contract}": {error}') from None
            entered.update(reached)
            for hop, stop in stops:
                ends.append(hop)
                chain = [*chain_to(reached, hop.runs_from), hop]
                if isinstance(stop, Forbidden):
                    _add_source(findings, hop, source, chain, lambda finding: finding)
                elif isinstance(stop, AllowlistEntry):
                    entry = stop
                    _add_source(
                        ignored,
                        hop,
                        source,
                        chain,
                        lambda finding: ignored_import(finding, entry),  # noqa: B023
                    )
        if any(_crosses_a_test(finding) for finding in [*findings.values(), *ignored.values()]):
            _mark_conditional(rule, eager_imports, decider.decide, [findings, ignored])
    warnings = calls_unread_warnings(eager_imports) + dynamic_import_warnings(eager_imports)
    cut: SmallestCutData | str | None = None
    if ends:
        found_cut: SmallestCut | NoCut | None
        if findings or is_asked_for():
            hops = _hops(graph, entered, rule.include_ancestors, eager_imports)
            # (Imported here: only a run that finds a cut reads whether its imports can
            # be lazy. Off the working directory, as the walk is.)
            with working_directory_off_sys_path():
                from .deferrable import why_not_lazy

            found_cut = smallest_cut(
                sources,
                hops,
                ends,
                [*findings.values(), *ignored.values()],
                unseen_beyond=[key for key in sorted(ignored) if not decider.is_forbidden(key[1])],
                why_not_lazy=lambda module, lines: why_not_lazy(scopes.path(module), lines),
            )
        else:
            # (Only the hops to parent packages: no deferral cuts a chain of them.)
            found_cut = uncut_finding(sources, _hops(graph, entered, rule.include_ancestors), ends)
            cut = _CUT_NOT_ASKED
        if isinstance(found_cut, NoCut):
            warnings.append(
                f"No deferral of imports keeps this contract: {found_cut.importer} -> "
                f"{found_cut.imported} runs whatever imports are deferred (Python runs a "
                "package before its submodules)."
            )
        elif found_cut is not None:
            cut = found_cut.as_data()
    return WalksFound(_sorted(findings), _sorted(ignored), warnings, cut), eager_imports.answers


def _mark_conditional(
    rule: EagerRule,
    eager_imports: EagerImports,
    decide: Callable[[EagerHop], object],
    found: list[Mapping[tuple[str, str], ImportFinding]],
) -> None:
    """Of each finding whose chain crosses a test the tool cannot decide: give it the
    shortest chain that crosses none where one exists, else mark it conditional (every
    chain to it crosses one). Walks that take no conditional hop tell which."""
    from .walk import chain_to, unconditionally, walk  # (which `_walk`, the caller, imported)

    decide_certain = unconditionally(decide)
    certain: dict[tuple[str, str], list[EagerHop]] = {}
    for source in rule.sources:
        reached, stops = walk(
            source, eager_imports, decide_certain, include_parents=rule.include_ancestors
        )
        for hop, _ in stops:
            chain = [*chain_to(reached, hop.runs_from), hop]
            key = (hop.importer, hop.imported)
            if key not in certain or len(chain) < len(certain[key]):
                certain[key] = chain
    for findings in found:
        for key, finding in findings.items():
            if not _crosses_a_test(finding):
                continue
            if key in certain:
                finding["chain"] = [link.as_data() for link in certain[key]]
            else:
                finding["conditional"] = True


def _hops(
    graph: ImportGraph,
    entered: set[str],
    include_ancestors: bool,
    eager_imports: EagerImports | None = None,
) -> list[EagerHop]:
    """The hops of the eager graph between the modules the walks entered: to each
    module's parent package (with `include_ancestors`, the hops no deferral cuts) and,
    with `eager_imports`, the imports it runs, as the walks took them."""
    from .walk import EagerHop  # (which `_walk`, the caller, imported)

    # `of` may ask a file what no walk asked it (a walk takes a module's imports one by
    # one, and stops where `decide` says): the cut depends on those answers too, so they
    # are recorded with the walks'.
    hops = []
    for module in sorted(entered):
        if include_ancestors:
            parent = next((p for p in parents(module) if has_module(graph, p)), None)
            if parent is not None and parent in entered:
                hops.append(EagerHop(module, parent))
        if eager_imports is not None:
            hops += [hop for hop in eager_imports.of(module) if hop.imported in entered]
    return hops


def _outcome_key(rule: EagerRule, allowlist: Allowlist) -> bytes:
    """The key of what walks with these options find, in `WalkOutcomes`."""
    options = (
        rule.sources,
        sorted(rule.follow),
        sorted(rule.forbidden),
        sorted(rule.allowed),
        rule.include_ancestors,
        [entry.text for entry in allowlist.entries],
        os.getcwd(),
        tuple(target_python()),  # (what runs at import time depends on the target Python)
    )
    return digest(repr(options).encode())


def _answer_again(
    graph: ImportGraph, scopes: ScopeIndex, changed: dict[str, tuple[str, list[Answer]]]
) -> bool:
    """Whether each changed file is where it was, and answers what it answered walks
    before (`changed`: its path then, and its answers)."""
    with working_directory_off_sys_path():
        from .questions import FileAnswers, answers_again

    asked = FileAnswers(graph, scopes)
    try:
        return all(
            str(scopes.path(module)) == path and answers_again(asked, module, answered)
            for module, (path, answered) in changed.items()
        )
    except UnreadableSourceError:
        return False  # the walks say it, naming the file and line


# The smallest cut of a kept contract that no report asked for (`cut_request.asked_for`),
# as the walks' outcome keeps it: a run that asks for it walks again.
_CUT_NOT_ASKED = "not asked for"

_Found = TypeVar("_Found", ImportFinding, IgnoredImport)


def _may_reach(
    graph: ImportGraph, sources: list[str], include_ancestors: bool, enters: Callable[[str], bool]
) -> list[str]:
    """The modules the walks may reach, in about the order they reach them: breadth first
    through every import (and parent package) of the modules the walks may enter."""
    found = list(sources)
    seen = set(sources)
    for module in found:
        nearby = sorted(graph.find_modules_directly_imported_by(module))
        if include_ancestors:
            nearby += [parent for parent in parents(module) if has_module(graph, parent)]
        for imported in nearby:
            if imported not in seen and enters(imported):
                seen.add(imported)
                found.append(imported)
    return found


def _crosses_a_test(finding: ImportFinding) -> bool:
    """Whether a finding's chain has a hop that runs only where an undecided test holds."""
    return any("conditions" in hop for hop in finding.get("chain", ()))


def _add_source(
    found: dict[tuple[str, str], _Found],
    hop: EagerHop,
    source: str,
    chain: list[EagerHop],
    new: Callable[[ImportFinding], _Found],
) -> None:
    """Record that importing `source` runs the import `hop`, by way of `chain`."""
    key = (hop.importer, hop.imported)
    finding = found.get(key)
    if finding is None:
        data = hop.as_data()
        finding = found[key] = new(
            {
                "importer": data["importer"],
                "imported": data["imported"],
                "line_numbers": data["line_numbers"],
                "why": data["why"],
                "locations": data["locations"],
                "sources": [],
                "chain": [],
            }
        )
    # Once: a walk may stop at one import several times (by calls from several modules), and
    # the walks run one source after the other.
    if finding["sources"][-1:] != [source]:
        finding["sources"].append(source)
    # Keep the shortest chain, from the first source in name order among equals.
    if not finding["chain"] or len(chain) < len(finding["chain"]):
        finding["chain"] = [link.as_data() for link in chain]


def _sorted(found: dict[tuple[str, str], _Found]) -> list[_Found]:
    return [found[key] for key in sorted(found)]
