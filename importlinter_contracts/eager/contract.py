"""Contract type `eager_imports`: rule R4, importing a module loads no forbidden module."""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from grimp import ImportGraph
from importlinter import ContractCheck, fields, output
from importlinter.domain.imports import Module, ModuleExpression

from ..allowlist.contract import AllowlistedContract, ignored_import
from ..allowlist.entries import Allowlist, AllowlistEntry
from ..cache import cache_directory, digest, graph_digest, grimp_cache_directory, imported_digest
from ..errors import ContractConfigurationError, UnreadableSourceError
from ..locations import display_path
from ..modules import (
    has_module,
    included_external_packages,
    is_external,
    matching_modules,
    nearest_module,
    outside_the_graph,
    parents,
    within,
)
from ..options import ModuleExpressionField, NonEmptyListField
from ..rendering import (
    chain_steps,
    print_finding,
    print_import,
    smallest_cut_heading,
    smallest_cut_steps,
)
from ..report import ContractFindings, Finding, IgnoredImport, ImportFinding, SmallestCutData
from ..unseen import unseen_folders
from ..working_directory import working_directory_off_sys_path
from .cut_request import is_asked_for
from .outcomes import Answer, Answers, WalkOutcomes, WalksFound
from .target import set_target, target_of, target_python

# The walk and the readers are imported where a check walks (or asks a changed file again):
# registering the contract type, or a check that reuses what the walks found, loads none of
# them.
if TYPE_CHECKING:
    from .scope_cache import ScopeIndex
    from .smallest_cut import EagerStep
    from .walk import EagerHop, EagerImports


class EagerImportContract(AllowlistedContract):
    """Importing a source module does not, at import time, load a forbidden module.

    From each source module, the imports that run at import time (module level, including
    if/try/with/for/while/match blocks and class bodies, and the bodies of the functions
    called at import time; not other function bodies, `if TYPE_CHECKING:` blocks or `lazy
    import`) are followed transitively through the `follow_modules` packages. Each such
    import whose target is forbidden, and not allowed, is a violation. With
    `include_ancestors`, a reached module's parent packages (inside the follow scope) count as
    loaded too, as Python runs them first; so an allowed module's parent packages are allowed
    (their own eager imports are still checked).

    Options:
        - source_modules: module expressions (wildcards allowed); each must match a module.
        - follow_modules: packages, with their descendants, through which imports are followed.
        - forbidden_modules: module expressions, each taken as a package with its descendants.
        - allowed_modules: exceptions inside the forbidden set (also packages).
        - include_ancestors: whether parent packages of reached modules count (default true).
        - ignore_imports, require_reasons, unmatched_ignore_imports_alerting,
          broken_contract_guidance: the shared allowlist options.
    """

    type_name = "eager_imports"

    source_modules: list[ModuleExpression] = NonEmptyListField(  # type: ignore[assignment]
        subfield=ModuleExpressionField()
    )
    follow_modules: list[Module] = NonEmptyListField(subfield=fields.ModuleField())  # type: ignore[assignment]
    forbidden_modules: list[ModuleExpression] = NonEmptyListField(  # type: ignore[assignment]
        subfield=ModuleExpressionField()
    )
    allowed_modules: list[ModuleExpression] | None = fields.ListField(  # type: ignore[assignment]
        subfield=ModuleExpressionField(), required=False
    )
    include_ancestors: bool = fields.BooleanField(required=False, default=True)  # type: ignore[assignment]

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        # A whole-package walk makes and keeps millions of small objects and no reference
        # cycles worth collecting: with the cyclic garbage collector on, collecting takes
        # 40 % of the check (measured on the benchmark's 20,000-module tree). It must make
        # no cycle at all: what one holds would outlive the check until the next collection
        # walks it (a test collects after a check).
        with without_garbage_collection():
            return self._check(graph, verbose)

    def _check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        sources = self._sources(graph)
        follow = self._follow_packages(graph)
        forbidden, warnings = self._forbidden(graph)
        for source in sources:
            if source in forbidden:
                raise ContractConfigurationError(
                    self.name,
                    "source_modules",
                    f"'{source}' is forbidden too (forbidden_modules): importing it would "
                    "break the contract whatever it imports; remove it from one of the two",
                )
        allowed, allowed_warnings = _packages(graph, self.allowed_modules or [], "allowed_modules")
        allowlist = self._allowlist(graph)
        cache_dir = cache_directory()
        # The Python the readings are for, a setting of the process (as `ScopeIndex` makes it):
        # the key depends on it, and so do the commands that use the check's result (`fix`).
        set_target(target_of(self.session_options))
        graph_seen = graph_digest(graph, self.session_options)
        outcomes = WalkOutcomes(cache_dir, graph_seen)
        # What the walks find depends on these, on the graph and on the files they read (and,
        # through the locations it holds, on the working directory).
        key = _outcome_key(sources, follow, forbidden, allowed, self.include_ancestors, allowlist)
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
            scopes = self._scope_index(cache_dir, grimp_cache_directory(), graph_seen, imported)
            # The changed files are read afresh (the import-scope cache holds them as they
            # were).
            asked = self._scope_index(None, None, graph_seen, imported)
            if _answer_again(graph, asked, kept.changed):
                read = asked.files_read(graph)
                edited = scopes.edited(read)
                if edited == {}:
                    cache_warnings.append(outcomes.keep_again(key, read))
            else:
                kept = None
        if kept is None:
            if scopes is None:
                scopes = self._scope_index(cache_dir, grimp_cache_directory(), graph_seen, imported)
            found, answers = self._walk(
                graph, scopes, sources, follow, forbidden, allowed, allowlist
            )
            if cache_dir is not None:
                read = scopes.files_read(graph)
                edited = scopes.edited(read)
                cache_warnings.append(scopes.save())
                if edited == {}:
                    cache_warnings.append(outcomes.keep(key, found, read, answers))
            output.verbose_print(
                verbose, f"Followed eager imports from {len(sources)} source modules."
            )
        else:
            found = kept.found
            # The entries that excused imports are used, as when the walks asked.
            for excused in found.ignored:
                allowlist.excuse(excused["importer"], excused["imported"])
            changed = len(kept.changed)
            output.verbose_print(
                verbose,
                f"Eager imports from {len(sources)} source modules: as the cache keeps them "
                + (
                    "(no file they run has changed since)."
                    if not changed
                    else "(one file they run has changed since, and answers as before)."
                    if changed == 1
                    else f"({changed} files they run have changed since, and answer as before)."
                ),
            )
        # (A package's __init__.py beside a module file of its name is not the file grimp
        # read, whatever its time: the warning about such files says so.)
        shadowed = unseen_folders(self.session_options).shadowed
        beside = {str(path.with_suffix("") / "__init__.py") for path in shadowed}
        cache_warnings += [
            f"{display_path(Path(path))} changed while this check ran, after grimp had read it: "
            "the check may have read it as it is and grimp as it was. Run it again."
            for path in sorted((edited or {}).values())
            if path not in beside
        ]
        # (Only with findings: a kept contract without an allowlist has nothing to defer.)
        cut = found.smallest_cut
        cut_field: dict[str, Any] = (
            {} if cut is None or cut == _CUT_NOT_ASKED else {"smallest_cut": cut}
        )
        return self._contract_check(
            list[Finding](found.violations),
            found.ignored,
            allowlist,
            warnings=warnings
            + found.warnings
            + [warning for warning in cache_warnings if warning]
            + allowed_warnings,
            sources=sources,
            **cut_field,
        )

    def _scope_index(
        self,
        cache_dir: Path | None,
        grimp_cache: Path | None,
        graph_seen: bytes,
        imported: dict[str, bytes],
    ) -> ScopeIndex:
        """Return an index of what the graph's modules say about import time, with the
        import-scope cache in `cache_dir` (none: every file is read afresh), knowing the
        digests worked out already (`ScopeIndex.know_digests`)."""
        with working_directory_off_sys_path():
            from .scope_cache import ScopeIndex

        scopes = ScopeIndex(cache_dir, self.session_options, grimp_cache)
        scopes.know_digests(graph_seen, imported)
        return scopes

    def _walk(
        self,
        graph: ImportGraph,
        scopes: ScopeIndex,
        sources: list[str],
        follow: set[str],
        forbidden: set[str],
        allowed: set[str],
        allowlist: Allowlist,
    ) -> tuple[WalksFound, Answers]:
        """Return what the walks from each source find: the violations, the imports the
        allowlist excused (sorted), the warnings of what the walks could not read and the
        smallest cut (None without findings; `_CUT_NOT_ASKED` for a kept contract where no
        report asks for it, `cut_request.asked_for`); and what each file answered."""
        # (With the working directory off sys.path, which lint-imports puts first while
        # contracts run: nothing there may stand in for a module these import.)
        with working_directory_off_sys_path():
            from .smallest_cut import ChainEnd, NoCut, SmallestCut, smallest_cut, uncut_finding
            from .walk import (
                EagerImports,
                calls_unread_warnings,
                chain_to,
                dynamic_import_warnings,
                walk,
            )

        eager_imports = EagerImports(graph, scopes, recorded=True)

        # Python runs an allowed module's parent packages first: they are allowed too (their
        # own eager imports are still followed and checked).
        allowed_parents = {parent for module in allowed for parent in parents(module)}

        # Asked once per module: a walk asks for each import of a module it has not entered.
        @functools.cache
        def is_forbidden(module: str) -> bool:
            return (
                within(module, forbidden)
                and not within(module, allowed)
                and module not in allowed_parents
            )

        @functools.cache
        def is_followed(module: str) -> bool:
            return within(module, follow)

        def decide(hop: EagerHop) -> bool | AllowlistEntry | _Forbidden:
            """Enter a hop's target, or stop there: at a forbidden module, or at an import
            an allowlist entry excuses (the entry, which `excuse` marks used: the walks ask
            once per hop, when they would first take it)."""
            entry = allowlist.excuse(hop.importer, hop.imported) if hop.is_import else None
            if entry is not None:
                return entry
            if is_forbidden(hop.imported):
                return _FORBIDDEN
            return is_followed(hop.imported)

        findings: dict[tuple[str, str], ImportFinding] = {}
        ignored: dict[tuple[str, str], IgnoredImport] = {}
        may_reach = (
            _may_reach(
                graph,
                sources,
                self.include_ancestors,
                lambda module: is_followed(module) and not is_forbidden(module),
            )
            if scopes.may_read_ahead(graph)
            else []
        )
        entered: set[str] = set()
        ends: list[ChainEnd] = []
        with scopes.reading_ahead(may_reach, eager_imports.packages_with_code()):
            for source in sources:
                try:
                    reached, stops = walk(
                        source, eager_imports, decide, include_parents=self.include_ancestors
                    )
                except UnreadableSourceError as error:
                    raise UnreadableSourceError(f'Contract "{self.name}": {error}') from None
                entered.update(reached)
                for hop, stop in stops:
                    ends.append(ChainEnd(hop.importer, hop.imported, _step(hop)))
                    chain = [*chain_to(reached, hop.runs_from), hop]
                    if isinstance(stop, _Forbidden):
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
                self._mark_conditional(sources, eager_imports, decide, [findings, ignored])
        warnings = calls_unread_warnings(eager_imports) + dynamic_import_warnings(eager_imports)
        cut: SmallestCutData | str | None = None
        if ends:
            found_cut: SmallestCut | NoCut | None
            if findings or is_asked_for():
                steps = self._steps(graph, entered, eager_imports)
                # (Imported here: only a run that finds a cut reads whether its imports can
                # be lazy. Off the working directory, as the walk is.)
                with working_directory_off_sys_path():
                    from .deferrable import why_not_lazy

                found_cut = smallest_cut(
                    sources,
                    steps,
                    ends,
                    [*findings.values(), *ignored.values()],
                    unseen_beyond=[key for key in sorted(ignored) if not is_forbidden(key[1])],
                    why_not_lazy=lambda module, lines: why_not_lazy(scopes.path(module), lines),
                )
            else:
                # (Only the steps to parent packages: no deferral cuts a chain of them.)
                found_cut = uncut_finding(sources, self._steps(graph, entered), ends)
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
        self,
        sources: list[str],
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
        for source in sources:
            reached, stops = walk(
                source, eager_imports, decide_certain, include_parents=self.include_ancestors
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

    def _steps(
        self, graph: ImportGraph, entered: set[str], eager_imports: EagerImports | None = None
    ) -> list[EagerStep]:
        """The steps of the eager graph between the modules the walks entered: each
        module's parent package (with `include_ancestors`, the steps no deferral cuts) and,
        with `eager_imports`, the imports it runs, as the walks took them."""
        from .smallest_cut import EagerStep  # (which `_walk`, the caller, imported)

        # `of` may ask a file what no walk asked it (a walk takes a module's imports one by
        # one, and stops where `decide` says): the cut depends on those answers too, so they
        # are recorded with the walks'.
        steps = []
        for module in sorted(entered):
            if self.include_ancestors:
                parent = next((p for p in parents(module) if has_module(graph, p)), None)
                if parent in entered:
                    steps.append(EagerStep(module, parent, (), ()))
            if eager_imports is not None:
                steps += [_step(hop) for hop in eager_imports.of(module) if hop.imported in entered]
        return steps

    def _sources(self, graph: ImportGraph) -> list[str]:
        sources: set[str] = set()
        for expression in self.source_modules:
            matched = matching_modules(graph, expression)
            if not matched:
                unseen = unseen_folders(self.session_options)
                name = str(expression)
                raise ContractConfigurationError(
                    self.name,
                    "source_modules",
                    f"'{name}' matches no module of the graph"
                    + unseen.why_absent(graph, name, quote="'"),
                )
            sources |= matched
        return sorted(sources)

    def _forbidden(self, graph: ImportGraph) -> tuple[set[str], list[str]]:
        """The forbidden modules, and a warning for each expression of the root packages
        that matches none (a guard for a module to come, or a typo). A name outside the root
        packages that the graph cannot hold is an error, and so is an option that matches
        nothing at all: the contract would check nothing. With `include_external_packages`,
        an external package that nothing imports is not in the graph, and is checked all
        the same (nothing imports it)."""
        forbidden: set[str] = set()
        warnings = []
        unmatched = []
        guess: dict[str, str] = {}  # the nearest of each, as a parenthesis
        external = included_external_packages(self.session_options)
        checked_outside = False
        for expression in self.forbidden_modules:
            name = str(expression)
            matched = matching_modules(graph, expression)
            forbidden |= matched
            if matched:
                continue
            if external and is_external(graph, name) and "." not in name:
                checked_outside = True
                continue
            outside = outside_the_graph(
                graph, name, external, self.session_options["root_packages"]
            )
            if outside:
                raise ContractConfigurationError(self.name, "forbidden_modules", outside)
            unmatched.append(name)
            guess[name] = _did_you_mean(graph, name)
            warnings.append(
                f"forbidden_modules: '{name}' matches no module of the graph{guess[name]}."
            )
        if not forbidden and not checked_outside:
            unseen = unseen_folders(self.session_options).explain(*unmatched)
            listed = (
                f"'{unmatched[0]}' matches no module"
                if len(unmatched) == 1
                else f"none of {', '.join(repr(name) for name in unmatched)} matches a module"
            )
            near = guess[unmatched[0]] if len(unmatched) == 1 else ""
            raise ContractConfigurationError(
                self.name,
                "forbidden_modules",
                f"{listed} of the graph{unseen}{near}, so the contract would check nothing.",
            )
        return forbidden, warnings

    def _follow_packages(self, graph: ImportGraph) -> set[str]:
        missing = [
            module.name for module in self.follow_modules if not has_module(graph, module.name)
        ]
        if missing and "*" in missing[0]:
            whole = missing[0].partition("*")[0].rstrip(".") or "the package"
            raise ContractConfigurationError(
                self.name,
                "follow_modules",
                f"'{missing[0]}' is a wildcard, and follow_modules takes module names: a module "
                f"is followed with everything in it (give {whole})",
            )
        if missing:
            raise ContractConfigurationError(
                self.name,
                "follow_modules",
                f"'{missing[0]}' is not a module of the graph"
                + unseen_folders(self.session_options).why_absent(graph, missing[0], quote="'"),
            )
        return {module.name for module in self.follow_modules}

    def render_broken_contract(self, check: ContractCheck) -> None:
        findings = cast(ContractFindings, check.metadata)
        for violation in cast(list[ImportFinding], findings["violations"]):
            when = (
                "runs at import time where a test holds that the tool cannot decide (conditional)"
                if violation.get("conditional")
                else "runs at import time"
            )
            print_finding(
                f"{violation['importer']} -> {violation['imported']} {when}, "
                f"reached from {', '.join(violation['sources'])}:",
                bold=True,
            )
            output.new_line()
            for hop in violation["chain"]:
                for text, where in chain_steps(hop):
                    print_import(text, where)
            output.new_line()
        cut = findings.get("smallest_cut")
        if cut is not None:
            print_finding(smallest_cut_heading(cut, len(findings["ignored"])), bold=True)
            output.new_line()
            for text, where in smallest_cut_steps(cut):
                print_import(text, where)
            output.new_line()
        self._render_stale_entries_and_guidance(check)


def _outcome_key(
    sources: list[str],
    follow: set[str],
    forbidden: set[str],
    allowed: set[str],
    include_ancestors: bool,
    allowlist: Allowlist,
) -> bytes:
    """The key of what walks with these options find, in `WalkOutcomes`."""
    options = (
        sources,
        sorted(follow),
        sorted(forbidden),
        sorted(allowed),
        include_ancestors,
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


def _packages(
    graph: ImportGraph, expressions: list[ModuleExpression], option: str
) -> tuple[set[str], list[str]]:
    """The modules the expressions match, and a warning for each that matches nothing."""
    matched: set[str] = set()
    warnings = []
    for expression in expressions:
        found = matching_modules(graph, expression)
        if not found:
            warnings.append(
                f"{option}: '{expression}' matches no module of the graph"
                f"{_did_you_mean(graph, str(expression))}."
            )
        matched |= found
    return matched, warnings


def _did_you_mean(graph: ImportGraph, expression: str) -> str:
    """The module (or expression) of the graph nearest to one that matches nothing, as a
    parenthesis to follow it; '' where none is near."""
    near = nearest_module(graph, expression)
    return f" (did you mean '{near}'?)" if near else ""


# The smallest cut of a kept contract that no report asked for (`cut_request.asked_for`),
# as the walks' outcome keeps it: a run that asks for it walks again.
_CUT_NOT_ASKED = "not asked for"


class _Forbidden:
    """What `decide` returns for an import of a forbidden module: the walk stops there, and
    says so."""


_FORBIDDEN = _Forbidden()

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


def _step(hop: EagerHop) -> EagerStep:
    """A hop, as a step of the eager graph the smallest cut is found in."""
    from .smallest_cut import EagerStep, Statement  # (which `_walk`, the caller, imported)

    imports = tuple(Statement(hop.importer, line) for line in hop.line_numbers)
    # An import inside a function is deferred by changing what runs it at import time: a
    # call, or a `from` import (that calls a module `__getattr__`), an import statement.
    statements = tuple(
        statement
        if not calls
        else Statement(calls[0].caller, calls[0].line)
        if calls[0].by_import
        else Statement(calls[0].caller, calls[0].line, calls[0].called)
        for statement, calls in zip(imports, hop.calls, strict=True)
    )
    return EagerStep(
        hop.runs_from, hop.imported, statements, hop.why if statements else (), imports
    )


def _sorted(found: dict[tuple[str, str], _Found]) -> list[_Found]:
    return [found[key] for key in sorted(found)]
