"""Contract type `runtime_isolation`: import with optional hardware SDKs blocked, nothing leaks."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, ClassVar, cast

import grimp
from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions
from importlinter.domain.imports import ModuleExpression

from ..errors import ContractConfigurationError
from ..modules import is_within, matching_modules, within
from ..options import NonEmptyListField
from ..outputs.text import print_finding
from ..report import ContractFindings, RuntimeFinding
from ..working_directory import working_directory_off_sys_path

if TYPE_CHECKING:
    from .process import ProbeRun


class RuntimeIsolationContract(Contract):
    """Importing the probe modules, with the optional SDKs blocked, leaks nothing.

    A fresh interpreter sets `sys.modules[name] = None` for every blocked module (so that
    importing one raises ImportError), imports the probe modules in order, then calls the
    detector. The contract is broken when a probe fails to import, the detector fails or
    returns nothing, a blocked module ends up loaded, a backend's marker module other than
    the detected backend's is loaded, a forbidden module is loaded, or the run times out.
    Unlike the static contracts, this one runs the code it checks.

    Options:
        - blocked_modules: top-level names to block, e.g. torch_npu.
        - probe_modules: modules to import, in order.
        - detector: optional `module:attribute`, a callable returning a qualified name or a
          class.
        - container, backend_marker: optional; no backend's marker module may be loaded
          except the detected backend's.
        - forbidden_loaded_modules: module expressions (packages, with descendants) that
          must not be loaded at the end.
        - python: the interpreter to run (default: the one running lint-imports).
        - timeout: seconds before the run is killed (default 300).
    """

    type_name = "runtime_isolation"
    executes_analysed_code: ClassVar[bool] = True  # `check --static` skips it

    blocked_modules: list[str] = NonEmptyListField(subfield=fields.StringField())  # type: ignore[assignment]
    probe_modules: list[str] = NonEmptyListField(subfield=fields.StringField())  # type: ignore[assignment]
    detector: str | None = fields.StringField(required=False)  # type: ignore[assignment]
    container: str | None = fields.StringField(required=False)  # type: ignore[assignment]
    backend_marker: str = fields.StringField(default="platform")  # type: ignore[assignment]
    forbidden_loaded_modules: list[ModuleExpression] | None = fields.ListField(  # type: ignore[assignment]
        subfield=fields.ModuleExpressionField(), required=False
    )
    python: str | None = fields.StringField(required=False)  # type: ignore[assignment]
    timeout: int = fields.IntegerField(default=300, minimum=1)  # type: ignore[assignment]

    def validate(self) -> None:
        if self.detector is not None:
            module, colon, attribute = self.detector.partition(":")
            if not (module and colon and attribute):
                raise InvalidContractOptions(
                    {"detector": f"'{self.detector}' is not of the form module:attribute."}
                )

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        python = self.python or sys.executable
        output.verbose_print(
            verbose, f"Importing {len(self.probe_modules)} probes with {python}..."
        )
        request = {
            "sys_path": search_path(python),
            "blocked_modules": self.blocked_modules,
            "probe_modules": self.probe_modules,
            "detector": self.detector,
        }
        # Imported here: lint-imports imports every registered contract type, even for a run
        # that checks only the static contracts.
        with working_directory_off_sys_path():
            from .process import run_probe

        try:
            run = run_probe(python, request, self.timeout)
        except OSError as error:
            raise ContractConfigurationError(
                self.name, "python", f"'{python}' cannot be run: {error.strerror}."
            ) from None
        violations = self._findings(run)
        findings: ContractFindings = {
            "violations": list(violations),
            "ignored": [],
            "unmatched_ignores": [],
            "detected": (run.result or {}).get("detected"),
            "loaded_container_modules": self._loaded_container_modules(run),
        }
        return ContractCheck(kept=not violations, metadata=dict(findings))

    def _findings(self, run: ProbeRun) -> list[RuntimeFinding]:
        if run.timed_out:
            return [
                {
                    "kind": "timeout",
                    "message": f"the probe process was killed after the {self.timeout} s timeout",
                    "stderr_tail": run.stderr_tail,
                }
            ]
        if run.result is None:
            return [
                {
                    "kind": "crashed",
                    "message": f"the probe process exited with status {run.returncode} "
                    "before reporting",
                    "stderr_tail": run.stderr_tail,
                }
            ]
        result = run.result
        findings: list[RuntimeFinding] = [
            {
                "kind": "probe_failed",
                "module": probe["module"],
                "message": f"importing {probe['module']} failed: {probe['error']}",
                "stderr_tail": run.stderr_tail,
            }
            for probe in result["probes"]
            if probe["error"] is not None
        ]
        if self.detector and result["detector_error"] is not None:
            findings.append(
                {
                    "kind": "detector_failed",
                    "module": self.detector,
                    "message": f"the detector {self.detector} {result['detector_error']}",
                    "stderr_tail": run.stderr_tail,
                }
            )
        loaded = set(result["modules"])
        for blocked in self.blocked_modules:
            leaked = sorted(m for m in loaded if is_within(m, blocked))
            if leaked:
                findings.append(
                    {
                        "kind": "blocked_module_loaded",
                        "module": blocked,
                        "modules": leaked,
                        "message": f"the blocked module {blocked} was loaded: {', '.join(leaked)}",
                    }
                )
        other_backends = self._other_backend_markers(loaded, result["detected"])
        if other_backends:
            findings.append(
                {
                    "kind": "backend_loaded",
                    "modules": other_backends,
                    "message": "the platform modules of backends other than the detected one "
                    f"(detected: {result['detected'] or 'nothing'}) were loaded: "
                    + ", ".join(other_backends),
                }
            )
        forbidden = _loaded_matching(loaded, self.forbidden_loaded_modules or [])
        if forbidden:
            findings.append(
                {
                    "kind": "forbidden_loaded",
                    "modules": forbidden,
                    "message": f"forbidden modules were loaded: {', '.join(forbidden)}",
                }
            )
        return findings

    def _detected_backend(self, detected: str | None) -> str | None:
        """The child of the container that holds the detected class, if any."""
        prefix = f"{self.container}."
        if not self.container or not detected or not detected.startswith(prefix):
            return None
        return detected[len(prefix) :].partition(".")[0]

    def _other_backend_markers(self, loaded: set[str], detected: str | None) -> list[str]:
        if not self.container:
            return []
        allowed = self._detected_backend(detected)
        markers = []
        for module in loaded:
            parts = module[len(self.container) + 1 :].split(".")
            if (
                module.startswith(f"{self.container}.")
                and len(parts) == 2
                and parts[1] == self.backend_marker
                and parts[0] != allowed
            ):
                markers.append(module)
        return sorted(markers)

    def _loaded_container_modules(self, run: ProbeRun) -> list[str]:
        if not self.container or run.result is None:
            return []
        container = self.container
        return [m for m in run.result["modules"] if is_within(m, container)]

    def render_broken_contract(self, check: ContractCheck) -> None:
        findings = cast(ContractFindings, check.metadata)
        for violation in cast(list[RuntimeFinding], findings["violations"]):
            print_finding(f"-   {violation['message']}")
            tail = violation.get("stderr_tail")
            if tail:
                print_finding("stderr (last lines):", indent=1)
                for line in tail:
                    print_finding(line, indent=2)
        output.new_line()


def _loaded_matching(loaded: set[str], expressions: list[ModuleExpression]) -> list[str]:
    """The loaded modules that the expressions match, each taken as a package."""
    if not expressions:
        return []
    # grimp matches module expressions; a graph of just the loaded names lets it do so here.
    graph = grimp.ImportGraph()
    for module in loaded:
        graph.add_module(module)
    packages = {m for expression in expressions for m in matching_modules(graph, expression)}
    return sorted(m for m in loaded if within(m, packages))


def search_path(python: str) -> list[str]:
    """The sys.path entries the child puts first: all of ours for our own interpreter, else
    those that are not part of this installation (the working directory, PYTHONPATH)."""
    if python == sys.executable:
        return list(sys.path)
    installation = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return [
        entry
        for entry in sys.path
        if not any(
            os.path.abspath(entry or ".").startswith(prefix + os.sep) for prefix in installation
        )
    ]
