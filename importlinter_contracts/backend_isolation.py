"""Contract type `backend_isolation`: rule R2, each backend is private to itself."""

from __future__ import annotations

import enum
from typing import Any

from grimp import ImportGraph
from importlinter.application import output
from importlinter.contracts._common import format_line_numbers
from importlinter.domain import fields
from importlinter.domain.contract import ContractCheck
from importlinter.domain.imports import Module

from .allowlisted import AllowlistedContract, ignored_import
from .backends import BackendLookupError, find_backend_imports, find_backends
from .errors import ContractConfigurationError
from .locations import location
from .rendering import print_finding, print_import


class CrossBackendImports(enum.Enum):
    ALLOW = "allow"
    FORBID = "forbid"


class BackendIsolationContract(AllowlistedContract):
    """No module outside a backend imports any module of that backend.

    A container package holds backends (its child packages that have a `backend_marker`
    module, or the children named in `backends`). Every direct import counts, wherever it
    stands in the file: module level, class bodies, function bodies, `lazy import`.
    `TYPE_CHECKING` imports count unless the session sets `exclude_type_checking_imports`.
    The container's own `__init__` and its other children are neutral code. With
    `cross_backend_imports = allow` (the default) a backend may import another backend;
    with `forbid` it may not.

    Options:
        - container: the package that holds the backends.
        - backends: backend names (children of the container). Default: discovered.
        - backend_marker: the submodule that marks a child package as a backend.
        - cross_backend_imports: "allow" (default) or "forbid".
        - ignore_imports, require_reasons, unmatched_ignore_imports_alerting,
          broken_contract_guidance: the shared allowlist options.
    """

    type_name = "backend_isolation"

    container: Module = fields.ModuleField()  # type: ignore[assignment]
    backends: list[str] | None = fields.ListField(  # type: ignore[assignment]
        subfield=fields.StringField(), required=False
    )
    backend_marker: str = fields.StringField(default="platform")  # type: ignore[assignment]
    cross_backend_imports: CrossBackendImports = fields.EnumField(  # type: ignore[assignment]
        CrossBackendImports, default=CrossBackendImports.ALLOW
    )

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        try:
            backends = find_backends(
                graph,
                self.container.name,
                self.backends,
                self.backend_marker,
            )
        except BackendLookupError as error:
            raise ContractConfigurationError(self.name, error.option, str(error)) from None
        output.verbose_print(
            verbose, f"Backends of {self.container}: {', '.join(b.name for b in backends)}."
        )
        allowlist = self._allowlist(graph)
        violations: list[dict[str, Any]] = []
        ignored: list[dict[str, Any]] = []
        for backend_import in find_backend_imports(
            graph,
            backends,
            cross_backend_imports=self.cross_backend_imports is CrossBackendImports.ALLOW,
        ):
            finding = {
                "backend": backend_import.backend.name,
                "importer": backend_import.importer,
                "imported": backend_import.imported,
                "line_numbers": list(backend_import.line_numbers),
                "locations": [
                    location(backend_import.importer, line) for line in backend_import.line_numbers
                ],
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
        by_backend: dict[str, list[dict[str, Any]]] = {}
        for violation in check.metadata["violations"]:
            by_backend.setdefault(violation["backend"], []).append(violation)
        for backend, violations in by_backend.items():
            print_finding(
                f"Only {self.container}.{backend} may import {self.container}.{backend}:", bold=True
            )
            output.new_line()
            for violation in violations:
                lines = format_line_numbers(tuple(violation["line_numbers"]))
                print_import(
                    f"{violation['importer']} -> {violation['imported']} ({lines})",
                    violation["locations"],
                )
            output.new_line()
        self._render_stale_entries_and_guidance(check)
