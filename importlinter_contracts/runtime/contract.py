"""Contract type `runtime_isolation`: import with optional hardware SDKs blocked, nothing leaks."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, cast

import click
from grimp import ImportGraph
from importlinter import ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions
from importlinter.domain.imports import ModuleExpression

from ..allowlist.contract import ContractWithAllowlist
from ..allowlist.entries import (
    LOADED_MODULE_ENTRIES,
    AllowlistEntry,
    AllowlistField,
    LoadedModuleAllowlist,
)
from ..backend_isolation.backends import (
    EVERY_CHILD,
    BackendLookupError,
    children_field,
    find_backends,
    marker_field,
    option_conflicts,
)
from ..cache import cache_directory, grimp_cache_directory
from ..eager.target import target_of
from ..errors import ConfigurationError, ContractConfigurationError, UnreadableSourceError
from ..locations import link_text
from ..modules import has_module, is_within, names_matching, within
from ..options import ModuleExpressionField, ModuleNameField, NonEmptyListField
from ..rendering import print_finding, print_note
from ..report import (
    ContractFindings,
    Finding,
    IgnoredModule,
    RuntimeFinding,
    UnexpectedLoad,
)
from ..unseen import unseen_folders
from ..working_directory import working_directory_off_sys_path

if TYPE_CHECKING:
    from .process import ProbeRun

MISSING_DEPENDENCY_ADVICE = (
    "This contract imports the code it checks, so it needs that code's dependencies where "
    "it runs: install the one that provides '{}', or leave this contract out "
    "(importlinter-contracts check --static)"
)


# What keeps the run from telling which modules load, or which backend is the detected one.
_RUN_FAILURES = ("probe_failed", "detector_failed", "timeout", "crashed", "result_invalid")


class SecondsField(fields.Field):  # type: ignore[type-arg]
    """A positive number of seconds, fractions included (TOML gives a float as it is)."""

    def parse(self, raw_data: str | list[str]) -> float:
        if isinstance(raw_data, list):
            raise fields.ValidationError("Expected a single value, got multiple values.")
        try:
            seconds = float(raw_data)
        except (TypeError, ValueError):
            raise fields.ValidationError(f"'{raw_data}' is not a number of seconds.") from None
        if isinstance(raw_data, bool) or not math.isfinite(seconds) or seconds <= 0:
            raise fields.ValidationError(f"'{raw_data}' is not a positive number of seconds.")
        return seconds


class RuntimeIsolationContract(ContractWithAllowlist):
    """Importing the probe modules, with the optional SDKs blocked, leaks nothing.

    A fresh interpreter sets `sys.modules[name] = None` for every blocked module (so that
    importing one raises ImportError), imports the probe modules in order, then calls the
    detector. The contract is broken when a probe fails to import, the detector fails or
    returns nothing, a blocked module ends up loaded, a module of a backend other than the
    detected one is loaded, a forbidden module is loaded, or the run times out; a loaded
    module that an `ignore_loaded_modules` entry names is excused. Unlike the static
    contracts, this one runs the code it checks. Its result is cached under a key of
    everything that can change it (see probe_cache).

    Options:
        - blocked_modules: top-level names to block, e.g. torch_npu.
        - probe_modules: modules to import, in order (at least one).
        - detector: optional `module:attribute`, a callable returning a qualified name, a
          class, a module, or an instance (of a class that is not built in: its class counts).
        - container: optional; no module of a backend may be loaded except the detected
          backend's (the backend that holds what the detector returned).
        - backends, backend_marker, neutral_children: which children of the container are
          backends, as `backend_isolation` finds them (packages or modules; a backend's
          modules are the child itself and, for a package, its submodules).
        - forbidden_loaded_modules: module expressions (packages, with descendants) that
          must not be loaded at the end.
        - python: the interpreter to run (default: the one running lint-imports).
        - timeout: seconds before the run is killed (default 300; fractions allowed).
        - ignore_loaded_modules, require_reasons, unmatched_ignore_imports_alerting,
          broken_contract_guidance: the allowlist options; entries are module expressions.
    """

    type_name = "runtime_isolation"
    entry_kind = LOADED_MODULE_ENTRIES
    executes_analysed_code: ClassVar[bool] = True  # `check --static` skips it

    blocked_modules: list[str] = NonEmptyListField(subfield=ModuleNameField())  # type: ignore[assignment]
    probe_modules: list[str] = NonEmptyListField(subfield=ModuleNameField())  # type: ignore[assignment]
    detector: str | None = fields.StringField(required=False)  # type: ignore[assignment]
    container: str | None = fields.StringField(required=False)  # type: ignore[assignment]
    backends: list[str] | None = children_field()  # type: ignore[assignment]
    backend_marker: str = marker_field()  # type: ignore[assignment]
    neutral_children: list[str] | None = children_field()  # type: ignore[assignment]
    forbidden_loaded_modules: list[ModuleExpression] | None = NonEmptyListField(  # type: ignore[assignment]
        subfield=ModuleExpressionField(), required=False
    )
    python: str | None = fields.StringField(required=False)  # type: ignore[assignment]
    timeout: float = SecondsField(default=300.0)  # type: ignore[assignment]
    ignore_loaded_modules: list[AllowlistEntry] | None = AllowlistField(LOADED_MODULE_ENTRIES)  # type: ignore[assignment]

    def validate(self) -> None:
        super().validate()
        if self.detector is not None:
            module, colon, attribute = self.detector.partition(":")
            if not (module and colon and attribute):
                raise InvalidContractOptions(
                    {"detector": f"'{self.detector}' is not of the form module:attribute."}
                )
        conflicts = option_conflicts(self.backends, self.neutral_children)
        if not self.container:
            for option in ("backends", "neutral_children"):
                if getattr(self, option) is not None:
                    conflicts.setdefault(
                        option, "names children of the container: set container too."
                    )
        if conflicts:
            raise InvalidContractOptions(conflicts)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        backends = self._backends(graph)
        packages = self._root_packages(graph)
        python = self.python or sys.executable
        mode = target_of(self.session_options).lazy_imports
        request = {
            "sys_path": search_path(python),
            "blocked_modules": self.blocked_modules,
            "probe_modules": self.probe_modules,
            "detector": self.detector,
            "record_packages": packages,
            "lazy_imports": mode,
        }
        run, cached, warnings = self._probe(python, request, verbose)
        if mode != "normal" and run.result is not None and run.result.get("lazy_imports") != mode:
            raise ContractConfigurationError(
                self.name,
                "python",
                f"'{python}' has no lazy imports (Python 3.15 has them): its child cannot run "
                f"with -X lazy_imports={mode}, as the [importlinter] section's lazy_imports says.",
            )
        loaded = LoadedModules((run.result or {}).get("modules", []))
        allowlist = LoadedModuleAllowlist(loaded.names, self._entries())
        violations, ignored = self._findings(run, loaded, packages, backends, allowlist)
        specific: dict[str, Any] = {
            "detected": (run.result or {}).get("detected"),
            "loaded_container_modules": loaded.within([self.container] if self.container else []),
            "loaded_modules": loaded.within(packages),
            "cached": cached,
        }
        if _comparison_shown(verbose):
            unexpected, closure_warnings = self._unexpected_loads(graph, run, loaded, packages)
            specific["loaded_outside_eager_closure"] = unexpected
            warnings += closure_warnings
        # When the probe did not run cleanly, which modules load is not known, nor which
        # entries are stale.
        failed = _run_failure(violations) is not None
        check = self._contract_check(
            list[Finding](violations),
            ignored,
            allowlist,
            warnings=warnings,
            stale_unknown="the probe did not run cleanly" if failed else None,
            **specific,
        )
        self._print_summary(cast(ContractFindings, check.metadata), run, verbose)
        return check

    def _probe(
        self, python: str, request: dict[str, Any], verbose: bool
    ) -> tuple[ProbeRun, bool, list[str]]:
        """The probe's run, from the cache when nothing it depends on has changed; whether it
        came from there; warnings."""
        # Imported here: lint-imports imports every registered contract type, even for a run
        # that checks only the static contracts.
        # A module of the working directory must not stand in for one they import.
        with working_directory_off_sys_path():
            from .probe_cache import ProbeCache
            from .process import ProbeStartError, run_probe

        directory = cache_directory()
        cache = ProbeCache(directory, python, request) if directory is not None else None
        if cache is not None:
            run, why = cache.load()
            if run is not None:
                output.verbose_print(verbose, f"Probe result from the cache: {why}.")
                return run, True, []
            output.verbose_print(verbose, f"Running the probe: {why}.")
        output.verbose_print(
            verbose, f"Importing {len(self.probe_modules)} probes with {python}..."
        )
        try:
            run = run_probe(python, request, self.timeout)
        except ProbeStartError as error:
            raise ContractConfigurationError(
                self.name, "python", f"'{python}' cannot be run: {error}."
            ) from None
        if cache is None or run.result is None:
            return run, False, []
        not_kept, warning = cache.store(run)
        if not_kept is not None:
            output.verbose_print(verbose, f"The probe's result is not cached: {not_kept}.")
        return run, False, [warning] if warning else []

    def _backends(self, graph: ImportGraph) -> list[str]:
        if not self.container:
            return []
        try:
            return [
                b.module
                for b in find_backends(
                    graph,
                    self.container,
                    self.backends,
                    self.backend_marker,
                    self.neutral_children,
                    unseen_folders(self.session_options),
                )
            ]
        except BackendLookupError as error:
            raise ContractConfigurationError(self.name, error.option, str(error)) from None

    def _root_packages(self, graph: ImportGraph) -> list[str]:
        """The analysed packages the probes belong to: the top-level packages of the probe
        modules, the detector and the container that are in the graph."""
        names = [*self.probe_modules, (self.detector or "").partition(":")[0], self.container]
        tops = {name.partition(".")[0] for name in names if name}
        return sorted(
            top for top in tops if has_module(graph, top) and not graph.is_module_squashed(top)
        )

    def _detected_backend(self, detected: str | None, backends: list[str]) -> str | None:
        """The backend that holds what the detector returned (a class, or the backend's
        module itself), if any."""
        return next((b for b in backends if detected and is_within(detected, b)), None)

    def _backend_modules(self, loaded: LoadedModules, backends: list[str]) -> set[str]:
        """Every backend: those of the graph, and a child of the container that is not in
        the graph but was loaded (a module can register itself under any name) where the
        backends are found as in the graph: by their marker module (found loaded), or every
        child for `*` (but those of neutral_children). Named backends are only those."""
        found = set(backends)
        if self.backends is not None and self.backends != [EVERY_CHILD]:
            return found
        prefix = f"{self.container}."
        neutral = set(self.neutral_children or [])
        for module in loaded.within([self.container] if self.container else []):
            parts = module[len(prefix) :].split(".") if module.startswith(prefix) else []
            if not parts or parts[0] in neutral:
                continue
            if self.backends is not None or (len(parts) == 2 and parts[1] == self.backend_marker):
                found.add(prefix + parts[0])
        return found

    def _other_backends_loaded(
        self, loaded: LoadedModules, detected: str | None, backends: list[str]
    ) -> list[str]:
        if not self.container:
            return []
        packages = self._backend_modules(loaded, backends)
        allowed = self._detected_backend(detected, sorted(packages))
        return loaded.within(packages - {allowed} if allowed else packages)

    def _findings(
        self,
        run: ProbeRun,
        loaded: LoadedModules,
        packages: list[str],
        backends: list[str],
        allowlist: LoadedModuleAllowlist,
    ) -> tuple[list[RuntimeFinding], list[IgnoredModule]]:
        if run.timed_out:
            return [
                {
                    "kind": "timeout",
                    "message": f"the probe process was killed after the {self.timeout:g} s timeout",
                    "stderr_tail": run.stderr_tail,
                }
            ], []
        if run.channel_error is not None:
            return [
                {
                    "kind": "result_invalid",
                    "message": f"the probe's result cannot be used: {run.channel_error}",
                    "stderr_tail": run.stderr_tail,
                }
            ], []
        if run.result is None:
            return [
                {
                    "kind": "crashed",
                    "message": f"the probe process exited with status {run.returncode} "
                    "before reporting",
                    "stderr_tail": run.stderr_tail,
                }
            ], []
        result = run.result
        failures = [
            (
                "probe_failed",
                p["module"],
                f"importing {p['module']} failed: {p['error']}",
                p["missing"],
            )
            for p in result["probes"]
            if p["error"] is not None
        ]
        detector_failed = bool(self.detector) and result["detector_error"] is not None
        if detector_failed:
            failures.append(
                (
                    "detector_failed",
                    self.detector,
                    f"the detector {self.detector} {result['detector_error']}",
                    result["detector_missing"],
                )
            )
        findings = self._failures(failures, packages, run)
        for blocked in self.blocked_modules:
            leaked = loaded.within([blocked])
            if leaked:
                findings.append(
                    {
                        "kind": "blocked_module_loaded",
                        "module": blocked,
                        "modules": leaked,
                        "message": f"the blocked module {blocked} was loaded: {', '.join(leaked)}",
                    }
                )
        ignored: dict[str, IgnoredModule] = {}

        def unexcused(modules: list[str]) -> list[str]:
            left = []
            for module in modules:
                entry = allowlist.excuse(module)
                if entry is None:
                    left.append(module)
                else:
                    ignored[module] = {
                        "module": module,
                        "entry": entry.text,
                        "reason": entry.reason,
                    }
            return left

        # A detector that failed detected nothing, so which backend may load is not known: the
        # failure breaks the contract, and the next run with a working detector tells.
        other_backends = (
            []
            if detector_failed
            else unexcused(self._other_backends_loaded(loaded, result["detected"], backends))
        )
        if other_backends:
            findings.append(
                {
                    "kind": "backend_loaded",
                    "modules": other_backends,
                    "message": "modules of backends other than the detected one "
                    f"(detected: {result['detected'] or 'nothing'}) were loaded: "
                    + ", ".join(other_backends),
                }
            )
        forbidden = unexcused(_loaded_matching(loaded, self.forbidden_loaded_modules or []))
        if forbidden:
            findings.append(
                {
                    "kind": "forbidden_loaded",
                    "modules": forbidden,
                    "message": f"forbidden modules were loaded: {', '.join(forbidden)}",
                }
            )
        return findings, [ignored[m] for m in sorted(ignored)]

    def _failures(
        self,
        failures: list[tuple[str, str, str, str | None]],
        packages: list[str],
        run: ProbeRun,
    ) -> list[RuntimeFinding]:
        """The probes and the detector that failed (kind, module, message, the module it
        found missing). Those that miss the same module of the environment, neither blocked
        nor of the analysed packages (a dependency not installed here), make one finding that
        says what to do: one cause, however many probes need it."""
        findings = []
        by_dependency: dict[str, RuntimeFinding] = {}
        for kind, module, message, missing in failures:
            dependency = (
                missing
                if missing and not within(missing, [*self.blocked_modules, *packages])
                else None
            )
            if dependency in by_dependency:
                by_dependency[dependency]["modules"].append(module)
                continue
            finding = cast(RuntimeFinding, {"kind": kind, "module": module, "message": message})
            if dependency is not None:
                finding["modules"] = [module]
                finding["missing_dependency"] = dependency
                by_dependency[dependency] = finding
            finding["stderr_tail"] = run.stderr_tail
            findings.append(finding)
        for dependency, finding in by_dependency.items():
            finding["message"] += _others_failed(finding["modules"][1:], self.detector) + (
                ". " + MISSING_DEPENDENCY_ADVICE.format(dependency)
            )
        return findings

    def _unexpected_loads(
        self, graph: ImportGraph, run: ProbeRun, loaded: LoadedModules, packages: list[str]
    ) -> tuple[list[UnexpectedLoad], list[str]]:
        """The loaded modules of the analysed packages that the static eager walk from the
        probe modules (and the detector's module) does not reach."""
        with working_directory_off_sys_path():
            from ..eager.scope_cache import ScopeIndex
            from .unexpected import eager_closure, unexpected_loads

        if run.result is None:
            return [], []
        sources = [*self.probe_modules, (self.detector or "").partition(":")[0]]
        scopes = ScopeIndex(cache_directory(), self.session_options, grimp_cache_directory())
        try:
            closure = eager_closure(graph, [s for s in sources if s], packages, scopes)
        except UnreadableSourceError as error:
            return [], [f"Not compared with the static eager walk: {error}"]
        scopes.save()
        return unexpected_loads(loaded.within(packages), closure, run.result["importers"]), []

    def _print_summary(self, findings: ContractFindings, run: ProbeRun, verbose: bool) -> None:
        """What the run saw, always: the detected platform and the container's loaded
        modules (allowlisted ones with their reason); with --verbose, every loaded module
        of the analysed packages and those the static walk does not reach."""
        if run.result is None:
            print_note(f"{self.name}: the probe did not report (see below).")
            return
        source = " (the probe's result from the cache: nothing it depends on has changed)"
        print_note(
            f"{self.name}: detected {findings.get('detected') or 'nothing'}"
            + (source if findings.get("cached") else "")
        )
        reasons = {
            item["module"]: item["reason"] or "no reason given"
            for item in cast(list[IgnoredModule], findings["ignored"])
        }
        if self.container:
            container_modules = findings.get("loaded_container_modules", [])
            print_note(f"loaded of {self.container} ({len(container_modules)}):", indent=1)
            for module in container_modules:
                note = f"  (allowlisted: {reasons[module]})" if module in reasons else ""
                print_note(module + note, indent=2)
        if not verbose:
            return
        loaded = findings.get("loaded_modules", [])
        print_note(f"loaded of the analysed packages ({len(loaded)}):", indent=1)
        for module in loaded:
            print_note(module, indent=2)
        unexpected = findings.get("loaded_outside_eager_closure", [])
        print_note(
            "loaded although the static eager walk from the probes does not reach them "
            f"({len(unexpected)}):",
            indent=1,
        )
        for item in unexpected:
            where = f" ({link_text(item['location'])})" if item["location"] else ""
            print_note(f"{item['module']}: {item['why']}{where}", indent=2)

    def missing_entries(self, findings: ContractFindings) -> list[str]:
        """Return the entries that would excuse every violation, as for the other contracts.

        Raises ConfigurationError when the probe did not run cleanly: which modules load, and
        so which entries are stale, is then unknown.
        """
        violations = cast(list[RuntimeFinding], findings["violations"])
        failed = _run_failure(violations)
        if failed is not None:
            raise ConfigurationError(
                f'Contract "{self.name}": its ignore_loaded_modules cannot be brought in step, '
                f"as the probe did not run cleanly ({failed['message']}). Fix that first, or "
                "leave the contract out with --static."
            )
        return sorted(
            {
                module
                for finding in cast(list[RuntimeFinding], findings["violations"])
                if finding["kind"] in ("backend_loaded", "forbidden_loaded")
                for module in finding["modules"]
            }
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        findings = cast(ContractFindings, check.metadata)
        violations = cast(list[RuntimeFinding], findings["violations"])
        for violation in violations:
            print_finding(f"-   {violation['message']}")
        # One run, one stderr: shown once, though each finding it explains carries it.
        tail = next((v["stderr_tail"] for v in violations if v.get("stderr_tail")), [])
        if tail:
            output.new_line()
            print_finding("stderr of the probe (last lines):")
            for line in tail:
                print_finding(line, indent=1)
        output.new_line()
        self._render_stale_entries_and_guidance(check)


def _others_failed(others: list[str], detector: str | None) -> str:
    """What a missing dependency's finding adds to its first failure: how many other probes,
    and whether the detector, failed the same way."""
    probes = len([other for other in others if other != detector])
    also = [f"{probes} other probe{'s' if probes > 1 else ''}"] if probes else []
    also += ["the detector"] if detector in others else []
    return f" (so did {' and '.join(also)})" if also else ""


def _comparison_shown(verbose: bool) -> bool:
    """Whether this run's output shows what the static eager walk does not reach: the JSON
    report does, and the text with --verbose, and so does a call from Python (explore); plain
    lint-imports text does not, and the walk would add to every lint."""
    context = click.get_current_context(silent=True)
    return verbose or context is None or context.params.get("output_format") == "json"


class LoadedModules:
    """The names of the modules a run loaded, sorted, looked up by package without a scan
    of them all (there are thousands)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self._by_top_level: dict[str, list[str]] = {}
        for name in names:
            self._by_top_level.setdefault(name.partition(".")[0], []).append(name)

    def within(self, packages: Iterable[str]) -> list[str]:
        """Return the loaded modules that are one of the packages or inside one of them."""
        return sorted(
            {
                module
                for package in packages
                for module in self._by_top_level.get(package.partition(".")[0], [])
                if is_within(module, package)
            }
        )


def _run_failure(violations: list[RuntimeFinding]) -> RuntimeFinding | None:
    """The finding that says the probe did not run cleanly, if one does."""
    return next((v for v in violations if v["kind"] in _RUN_FAILURES), None)


def _loaded_matching(loaded: LoadedModules, expressions: list[ModuleExpression]) -> list[str]:
    """The loaded modules that the expressions match, each taken as a package."""
    matched = names_matching((e.expression for e in expressions), loaded.names)
    return loaded.within(set().union(*matched.values()))


def search_path(python: str) -> list[str]:
    """Return the sys.path entries the child puts first: all of ours for our own interpreter, else
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
