"""Contract type `backend_isolation`: rule R2, each backend is private to itself."""

from __future__ import annotations

import enum
from typing import cast

from grimp import ImportGraph
from importlinter import ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions
from importlinter.domain.imports import Module

from ..allowlist.contract import AllowlistedContract, ignored_import
from ..allowlist.entries import Allowlist
from ..cache import cache_directory, grimp_cache_directory
from ..errors import ContractConfigurationError
from ..locations import link_text, location, locations
from ..options import BooleanField
from ..rendering import describe_import, print_finding, print_import
from ..report import ContractFindings, Finding, Hop, IgnoredImport, ImportFinding
from ..unseen import unseen_folders
from ..working_directory import working_directory_off_sys_path
from .backends import (
    Backend,
    BackendLookupError,
    ReexportImport,
    children_field,
    find_backend_imports,
    find_backends,
    find_reexport_imports,
    marker_field,
    option_conflicts,
)


class CrossBackendImports(enum.Enum):
    ALLOW = "allow"
    FORBID = "forbid"


class BackendIsolationContract(AllowlistedContract):
    """No module outside a backend imports any module of that backend.

    A container package holds backends: its child packages that have a `backend_marker`
    module, or the children named in `backends` (every child for `*`), never a child named
    in `neutral_children`. Every direct import counts, wherever it stands in the file:
    module level, class bodies, function bodies, `lazy import`.
    `TYPE_CHECKING` imports count unless the session sets `exclude_type_checking_imports`.
    The container's own `__init__` and its other children are neutral code. With
    `cross_backend_imports = allow` (the default) a backend may import another backend;
    with `forbid` it may not. With `count_reexports`, `from container import Name` counts as
    an import of the backend module that binds `Name` where the container's `__init__`
    re-exports it (through re-exports of any length, as the eager contract follows them; a
    star import of the container binds names not known statically: a warning says so).

    Options:
        - container: the package that holds the backends.
        - backends: backend names (children of the container, packages or modules), or `*`
          for every child. Default: discovered.
        - backend_marker: the submodule that marks a child package as a backend.
        - neutral_children: children that are never backends (left out of the discovery
          and of `*`).
        - cross_backend_imports: "allow" (default) or "forbid".
        - count_reexports: whether a name imported from the container counts as an import
          of the backend module it re-exports (default false).
        - ignore_imports, require_reasons, unmatched_ignore_imports_alerting,
          broken_contract_guidance: the shared allowlist options.
    """

    type_name = "backend_isolation"

    container: Module = fields.ModuleField()  # type: ignore[assignment]
    backends: list[str] | None = children_field()  # type: ignore[assignment]
    backend_marker: str = marker_field()  # type: ignore[assignment]
    neutral_children: list[str] | None = children_field()  # type: ignore[assignment]
    cross_backend_imports: CrossBackendImports = fields.EnumField(  # type: ignore[assignment]
        CrossBackendImports, default=CrossBackendImports.ALLOW
    )
    count_reexports: bool = BooleanField(required=False, default=False)  # type: ignore[assignment]

    def validate(self) -> None:
        super().validate()
        conflicts = option_conflicts(self.backends, self.neutral_children)
        if conflicts:
            raise InvalidContractOptions(conflicts)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        try:
            backends = find_backends(
                graph,
                self.container.name,
                self.backends,
                self.backend_marker,
                self.neutral_children,
                unseen_folders(self.session_options),
            )
        except BackendLookupError as error:
            raise ContractConfigurationError(self.name, error.option, str(error)) from None
        output.verbose_print(
            verbose, f"Backends of {self.container}: {', '.join(b.name for b in backends)}."
        )
        cross_backend_imports = self.cross_backend_imports is CrossBackendImports.ALLOW
        findings: list[ImportFinding] = []
        for backend_import in find_backend_imports(
            graph, backends, cross_backend_imports=cross_backend_imports
        ):
            lines = list(backend_import.line_numbers)
            findings.append(
                {
                    "backend": backend_import.backend.name,
                    "importer": backend_import.importer,
                    "imported": backend_import.imported,
                    "line_numbers": lines,
                    "locations": locations(backend_import.importer, lines),
                }
            )
        warnings: list[str] = []
        reexported: list[ReexportImport] = []
        if self.count_reexports:
            reexported, warnings = self._reexport_imports(graph, backends, cross_backend_imports)
            findings += map(_reexport_finding, reexported)
        # An entry names a re-exported backend module as it names a direct import of it.
        allowlist = Allowlist(
            graph, self._entries(), also=[(r.importer, r.imported) for r in reexported]
        )
        violations: list[Finding] = []
        ignored: list[IgnoredImport] = []
        findings.sort(key=lambda f: (f["backend"], f["importer"], f["imported"], f["line_numbers"]))
        for finding in findings:
            entry = allowlist.excuse(finding["importer"], finding["imported"])
            if entry is None:
                violations.append(finding)
            else:
                ignored.append(ignored_import(finding, entry))
        return self._contract_check(
            violations,
            ignored,
            allowlist,
            warnings=warnings,
            backends=[backend.name for backend in backends],
        )

    def _reexport_imports(
        self, graph: ImportGraph, backends: list[Backend], cross_backend_imports: bool
    ) -> tuple[list[ReexportImport], list[str]]:
        """The imports of names that the container re-exports from a backend, and the
        warnings of the files whose imports could not be read."""
        # (Imported here: only a contract that counts re-exports reads files. With the working
        # directory off sys.path, which lint-imports puts first while contracts run: nothing
        # there may stand in for a module these import.)
        with working_directory_off_sys_path():
            from ..eager.scope_cache import ScopeIndex
            from ..eager.walk import EagerImports, calls_unread_warnings

        scopes = ScopeIndex(cache_directory(), self.session_options, grimp_cache_directory())
        eager_imports = EagerImports(graph, scopes)
        found, stars = find_reexport_imports(
            graph,
            self.container.name,
            backends,
            eager_imports,
            cross_backend_imports=cross_backend_imports,
        )
        warnings = [scopes.save(), *calls_unread_warnings(eager_imports)]
        for importer, line in stars:
            where = location(importer, line)
            warnings.append(
                f"{link_text(where) if where else importer}: 'from {self.container} import *' "
                "is not counted by count_reexports, as which names it binds is not known "
                "statically: import the names it uses."
            )
        return found, [warning for warning in warnings if warning]

    def render_broken_contract(self, check: ContractCheck) -> None:
        findings = cast(ContractFindings, check.metadata)
        by_backend: dict[str, list[ImportFinding]] = {}
        for violation in cast(list[ImportFinding], findings["violations"]):
            by_backend.setdefault(violation["backend"], []).append(violation)
        for backend, violations in by_backend.items():
            print_finding(
                f"Only {self.container}.{backend} may import {self.container}.{backend}:", bold=True
            )
            output.new_line()
            for violation in violations:
                text = describe_import(
                    violation["importer"], violation["imported"], violation["line_numbers"]
                )
                chain = violation.get("chain", [])
                where = violation["locations"]
                if chain:
                    # `from container import Name`: which name, and where each re-export
                    # of it stands.
                    text += f": {chain[0]['why'][0]}, re-exported by " + ", then ".join(
                        f"{hop['importer']} (l.{hop['line_numbers'][0]})" for hop in chain[1:]
                    )
                    where = [location for hop in chain for location in hop["locations"]]
                print_import(text, where)
            output.new_line()
        self._render_stale_entries_and_guidance(check)


def _reexport_finding(reexport: ReexportImport) -> ImportFinding:
    """The finding of an import of a name the container re-exports from a backend: the
    importer's line, with the chain of the import and each re-export (the lines that bind
    the name)."""
    lines = [reexport.line_number]
    first = reexport.reexports[0]
    chain: list[Hop] = [
        {
            "importer": reexport.importer,
            "imported": first.module,
            "line_numbers": lines,
            "why": [f"imports {first.name} from {first.module}"],
            "locations": locations(reexport.importer, lines),
        }
    ]
    ends = [step.module for step in reexport.reexports[1:]] + [reexport.imported]
    for step, imported in zip(reexport.reexports, ends, strict=True):
        chain.append(
            {
                "importer": step.module,
                "imported": imported,
                "line_numbers": [step.line],
                "why": [f"re-exports {step.name}"],
                "locations": locations(step.module, [step.line]),
            }
        )
    return {
        "backend": reexport.backend.name,
        "importer": reexport.importer,
        "imported": reexport.imported,
        "line_numbers": lines,
        "locations": chain[0]["locations"],
        "chain": chain,
    }
