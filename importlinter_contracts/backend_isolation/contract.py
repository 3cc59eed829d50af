"""Contract type `backend_isolation`: rule R2, each backend is private to itself."""

from __future__ import annotations

import enum
from typing import cast

from grimp import ImportGraph
from importlinter import ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions
from importlinter.domain.imports import Module

from ..allowlist.contract import AllowlistedContract, ignored_import
from ..errors import ContractConfigurationError
from ..locations import locations
from ..options import NonEmptyListField
from ..outputs.text import describe_import, print_finding, print_import
from ..report import ContractFindings, Finding, IgnoredImport, ImportFinding
from ..unseen import unseen_folders
from .backends import BackendLookupError, find_backend_imports, find_backends, option_conflicts


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
    with `forbid` it may not.

    Options:
        - container: the package that holds the backends.
        - backends: backend names (children of the container, packages or modules), or `*`
          for every child. Default: discovered.
        - backend_marker: the submodule that marks a child package as a backend.
        - neutral_children: children that are never backends (left out of the discovery
          and of `*`).
        - cross_backend_imports: "allow" (default) or "forbid".
        - ignore_imports, require_reasons, unmatched_ignore_imports_alerting,
          broken_contract_guidance: the shared allowlist options.
    """

    type_name = "backend_isolation"

    container: Module = fields.ModuleField()  # type: ignore[assignment]
    backends: list[str] | None = NonEmptyListField(  # type: ignore[assignment]
        subfield=fields.StringField(), required=False
    )
    backend_marker: str = fields.StringField(default="platform")  # type: ignore[assignment]
    neutral_children: list[str] | None = NonEmptyListField(  # type: ignore[assignment]
        subfield=fields.StringField(), required=False
    )
    cross_backend_imports: CrossBackendImports = fields.EnumField(  # type: ignore[assignment]
        CrossBackendImports, default=CrossBackendImports.ALLOW
    )

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
        allowlist = self._allowlist(graph)
        violations: list[Finding] = []
        ignored: list[IgnoredImport] = []
        for backend_import in find_backend_imports(
            graph,
            backends,
            cross_backend_imports=self.cross_backend_imports is CrossBackendImports.ALLOW,
        ):
            lines = list(backend_import.line_numbers)
            finding: ImportFinding = {
                "backend": backend_import.backend.name,
                "importer": backend_import.importer,
                "imported": backend_import.imported,
                "line_numbers": lines,
                "locations": locations(backend_import.importer, lines),
            }
            entry = allowlist.excuse(backend_import.importer, backend_import.imported)
            if entry is None:
                violations.append(finding)
            else:
                ignored.append(ignored_import(finding, entry))
        return self._contract_check(
            violations, ignored, allowlist, backends=[backend.name for backend in backends]
        )

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
                print_import(
                    describe_import(
                        violation["importer"], violation["imported"], violation["line_numbers"]
                    ),
                    violation["locations"],
                )
            output.new_line()
        self._render_stale_entries_and_guidance(check)
