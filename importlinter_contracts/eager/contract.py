"""Contract type `eager_imports`: rule R4, importing a module loads no forbidden module."""

from __future__ import annotations

from typing import Any, cast

from grimp import ImportGraph
from importlinter import ContractCheck, fields, output
from importlinter.domain.imports import Module, ModuleExpression

from ..allowlist.contract import AllowlistedContract
from ..errors import ContractConfigurationError, guessed
from ..modules import (
    has_module,
    included_external_packages,
    is_external,
    matching_modules,
    nearest_module,
    outside_the_graph,
)
from ..options import BooleanField, ModuleExpressionField, NonEmptyListField
from ..rendering import (
    chain_steps,
    print_finding,
    print_import,
    smallest_cut_heading,
    smallest_cut_steps,
)
from ..report import ContractFindings, Finding, ImportFinding
from ..unseen import unseen_folders
from .check import EagerRule, find_eager_imports


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
    allowed_modules: list[ModuleExpression] | None = NonEmptyListField(  # type: ignore[assignment]
        subfield=ModuleExpressionField(), required=False
    )
    include_ancestors: bool = BooleanField(required=False, default=True)  # type: ignore[assignment]

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
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
        rule = EagerRule(sources, follow, forbidden, allowed, self.include_ancestors)
        found = find_eager_imports(graph, rule, allowlist, self.session_options, contract=self.name)
        output.verbose_print(verbose, _how_found(len(sources), found.kept))
        cut_field: dict[str, Any] = (
            {} if found.smallest_cut is None else {"smallest_cut": found.smallest_cut}
        )
        return self._contract_check(
            list[Finding](found.violations),
            found.ignored,
            allowlist,
            warnings=warnings + found.warnings + allowed_warnings,
            sources=sources,
            **cut_field,
        )

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
            guess[name] = guessed(nearest_module(graph, name))
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


def _how_found(sources: int, kept: int | None) -> str:
    """Return what the verbose output says of how the check found its findings (`kept`:
    `EagerFindings.kept`)."""
    if kept is None:
        return f"Followed eager imports from {sources} source modules."
    return f"Eager imports from {sources} source modules: as the cache keeps them " + (
        "(no file they run has changed since)."
        if not kept
        else "(one file they run has changed since, and answers as before)."
        if kept == 1
        else f"({kept} files they run have changed since, and answer as before)."
    )


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
                f"{guessed(nearest_module(graph, str(expression)))}."
            )
        matched |= found
    return matched, warnings
