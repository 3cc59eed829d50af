"""The shape of a report, defined once: what every contract computes and every output reads.

The contracts of this package store their part (`ContractFindings`) as their
`ContractCheck.metadata`; `running.py` adds the built-in contracts' findings in the same shape
and wraps each contract as a `ContractResult`; the JSON, GitHub and text outputs, the allowlist
sync and `explore` read nothing else. `report.schema.json` beside this file is the same shape
as a JSON Schema, for consumers of `check --format json` (and, under `$defs`, of `closure` and
`why`: `ClosureReport`, `WhyReport`, and of `review`'s `closure_changes`: `ClosureChange`); a
test keeps the two in step.
"""

# No `from __future__ import annotations` here: TypedDict must see `NotRequired` itself (as
# an object, not a string) for `__required_keys__` to be right on Python 3.11.
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, NotRequired, TypedDict, TypeGuard

# Raised whenever a field is renamed or removed or changes meaning (adding one is compatible).
SCHEMA_VERSION = 1
SCHEMA_FILE = Path(__file__).with_name("report.schema.json")


class Location(TypedDict):
    """Where an import (or a module) stands: a path relative to the working directory, as
    editors and CI logs link it (relative to the tree's root, the folder on sys.path that
    holds it, when the working directory is outside that tree), and the line (None for a
    whole module)."""

    path: str
    line: int | None


class CallSite(TypedDict):
    """A call that runs a function at import time (or that such a function makes)."""

    module: str  # the module whose code makes the call
    line: int
    function: str  # the function called, as `module:name`
    location: Location | None  # where the call stands; None when the file is not known


class Condition(TypedDict):
    """An undecided test that a hop runs under, where it stands: `kind` is if (the test holds),
    else (it does not), except (the `try` raised the exception named), unless (an earlier
    `if` of the function, whose body leaves it, did not hold) or returns (a function that may
    return other names returned this one, under no test of its own: `f() == "name"`);
    `shown`, the test as it holds for the hop (`not (A)`, `except ImportError`)."""

    module: str
    line: int
    kind: str
    test: str
    shown: str
    location: Location | None


class Hop(TypedDict):
    """One step of a chain: a direct import with its lines, or (for an eager chain, with no
    lines) a parent package that Python runs before its submodule. The hops of eager_imports
    walks and of the REPL (`eager.walk.EagerHop`) give it by `as_data`, with the keys in this
    order; the built-in contracts' chains by `running`, backend_isolation's re-export chains
    by its contract."""

    importer: str
    imported: str
    line_numbers: list[int]
    # Per line, why it runs at import time or not; empty where not known. (backend_isolation's
    # re-export chains: the name the line imports or re-exports.)
    why: list[str]
    locations: list[Location]
    # Per line, whether it runs at import time (closure, why, explore).
    eager: NotRequired[list[bool]]
    # eager_imports, per line: the calls that run an import inside a function at import
    # time, the call at import time first; empty for a line that runs by itself.
    calls: NotRequired[list[list[CallSite]]]
    # Of a hop that runs only where a test the tool cannot decide holds (every line of it
    # does): per line, the tests it runs under, outermost first. Per line, not per hop: the
    # lines of one import may stand under different tests, and the hop runs where the tests
    # of any one of its lines hold.
    conditions: NotRequired[list[list[Condition]]]


class ImportFinding(TypedDict):
    """An import that breaks a contract: `importer -> imported`, or for a chain of imports the
    chain's first importer and last imported module, with its hops under `chain`."""

    importer: str
    imported: str
    line_numbers: list[int]
    locations: list[Location]
    backend: NotRequired[str]  # backend_isolation: the backend imported
    why: NotRequired[list[str]]  # eager_imports: per line, why it runs at import time
    sources: NotRequired[list[str]]  # eager_imports: the source modules that reach it
    chain: NotRequired[list[Hop]]  # a chain of several imports, first to last
    # eager_imports: true where every chain to it crosses a test the tool cannot decide.
    conditional: NotRequired[bool]
    # Built-in contracts: other imports that stand in for the chain's first or last hop.
    extra_firsts: NotRequired[list[Hop]]
    extra_lasts: NotRequired[list[Hop]]
    import_count: NotRequired[int]  # acyclic_siblings: imports between the two siblings


class IgnoredImport(ImportFinding):
    """A finding that an allowlist entry excuses."""

    entry: str  # the entry as written, reason included, whitespace normalised
    reason: str | None


class ImportTimeUseData(TypedDict):
    """Where a name an import statement binds is used while its module is imported (which
    rules out making the import lazy: the use would load it then anyway)."""

    path: str
    line: int
    name: str
    how: str  # how the code that uses it runs then: "at module level", "in f, called at ..."


class FindingKey(TypedDict):
    """A finding of the same contract, by its key: its importer and imported module."""

    importer: str
    imported: str


class CutCallData(TypedDict):
    """A call at import time of a smallest cut: the function it calls, and where the imports
    inside functions that it runs stand."""

    function: str  # as `module:name`
    imports: list[Location]


class DeferredImportData(TypedDict):
    """A statement of a smallest cut: deferring it cuts the chains of `cuts`. An import
    statement; or, for imports inside a function called at import time, the call (`call`),
    which is what to change."""

    importer: str  # the module whose file holds the statement
    imported: list[str]  # the modules of the eager graph it imports (a call: its imports do)
    line: int
    location: Location | None
    why: str  # why it runs at import time (a call: why the imports it runs do)
    cuts: list[FindingKey]  # the findings (violations or ignored) whose chain it is on
    import_time_use: ImportTimeUseData | None
    not_lazy: str | None  # why it cannot be made lazy (None: it can, or that is not known)
    uses_unread: str | None  # why whether its names are used at import time is not known
    call: CutCallData | None  # None for an import statement


class SmallestCutData(TypedDict):
    """eager_imports: the fewest import statements whose deferral leaves no eager chain from
    a source module to a forbidden one (nor to an import the allowlist excuses)."""

    statements: list[DeferredImportData]
    exact: bool  # no smaller cut exists
    not_exact: str | None  # why that is not known (None when exact)


RuntimeFindingKind = Literal[
    "probe_failed",
    "detector_failed",
    "blocked_module_loaded",
    "backend_loaded",
    "forbidden_loaded",
    "timeout",
    "crashed",
    "result_invalid",
]


class RuntimeFinding(TypedDict):
    """What a runtime_isolation run found wrong."""

    kind: RuntimeFindingKind
    message: str
    module: NotRequired[str]
    # The loaded modules (blocked_module_loaded, backend_loaded, forbidden_loaded); with
    # missing_dependency, the probes, and the detector as module:attribute, that it stopped
    modules: NotRequired[list[str]]
    # probe_failed, detector_failed: a module of the environment (not of the analysed
    # package) that could not be imported, so that the environment lacks a dependency; one
    # finding says so for every probe that missed it
    missing_dependency: NotRequired[str]
    stderr_tail: NotRequired[list[str]]


Finding = ImportFinding | RuntimeFinding


class IgnoredModule(TypedDict):
    """A loaded module that a runtime_isolation allowlist entry excuses."""

    module: str
    entry: str  # the entry as written, reason included, whitespace normalised
    reason: str | None


Ignored = IgnoredImport | IgnoredModule


class UnexpectedLoad(TypedDict):
    """A module of the root package that a runtime_isolation run loaded although the static
    eager walk from the probe modules does not reach it: what the static contracts cannot
    see."""

    module: str
    importer: str | None  # the module whose code imported it, if the import hook saw it
    function: str | None  # the function of the importer that did, None at module level
    location: Location | None  # where the importer did
    why: str  # how it came to be loaded, as far as the run can tell


class ContractFindings(TypedDict):
    """What a contract of this package computes: its `ContractCheck.metadata`."""

    violations: list[Finding]
    ignored: list[Ignored]
    unmatched_ignores: list[str]  # stale allowlist entries that break the contract, as written
    # Stale entries that only warn (unmatched_ignore_imports_alerting = warn), as written; each
    # has its warning in `warnings` too. Built-in contracts do not list theirs.
    warned_unmatched_ignores: NotRequired[list[str]]
    backends: NotRequired[list[str]]  # backend_isolation: the backends checked
    sources: NotRequired[list[str]]  # eager_imports: the source modules walked from
    # eager_imports, broken or with imports its allowlist excuses: what to defer to keep it
    smallest_cut: NotRequired[SmallestCutData]
    # runtime_isolation: what the detector returned, what of the container and of the root
    # package(s) the run loaded, what of that the static eager walk does not reach, and
    # whether the probe's result came from the cache (the probe did not run).
    detected: NotRequired[str | None]
    loaded_container_modules: NotRequired[list[str]]
    loaded_modules: NotRequired[list[str]]
    loaded_outside_eager_closure: NotRequired[list[UnexpectedLoad]]
    cached: NotRequired[bool]


class CheckTiming(TypedDict):
    """How long a contract's check took (with --show-timings), graph copy included."""

    check_ms: NotRequired[int]


class ContractResult(ContractFindings, CheckTiming):
    """One contract's result in a report."""

    id: str | None
    name: str
    type: str
    kept: bool
    warnings: list[str]


class SkippedContract(TypedDict):
    """A contract of the configuration that the run left out, and why (`check --static`
    leaves out the contracts that run the code they check)."""

    id: str | None
    name: str
    type: str
    reason: str  # a phrase that follows "it": "runs the code it checks, which --static skips"


class Report(TypedDict):
    """The whole report: `importlinter-contracts check --format json`."""

    schema_version: int
    kept: bool  # every contract checked is kept; `skipped` lists those not checked
    contracts: list[ContractResult]
    skipped: list[SkippedContract]
    graph_build_ms: NotRequired[int]  # with --show-timings


class ExternalImport(TypedDict):
    """An external package that a module's import brought in: imported while it ran, not
    through another module of the root packages (measured)."""

    module: str
    cumulative_us: int
    modules: int  # how many modules its import loaded, itself included


class RankedChain(TypedDict):
    """A module of the closure, ranked by what it costs by itself (measured: its self time and
    the external packages it brought in), with the static chain that reaches it."""

    module: str
    cost_us: int
    chain: list[str]  # static: the module imported first, this module last


class LoadedOutside(TypedDict):
    """A module of the root packages that the interpreter loaded although the static closure
    lacks it."""

    module: str
    imported_while: str | None  # the module whose import was running then
    why: str
    # None for a module that importlib loaded, which -X importtime does not time
    self_us: int | None
    cumulative_us: int | None


class Measured(TypedDict):
    """`closure --format json --measure`: how the numbers were measured, and what they say."""

    python: str
    runs: int
    cumulative_us: int  # the module's import, all of it
    ranked: list[RankedChain]
    loaded_outside_closure: list[LoadedOutside]
    not_loaded: list[str]  # modules of the closure (root packages) that no run loaded


class ClosureEntry(TypedDict):
    """A module that importing the closure's module runs: the hop that first reaches it, and
    the module whose import runs that hop (its importer, or the module whose import-time
    call runs an import inside a function); None, both, for the module imported itself."""

    reached_from: str | None
    hop: Hop | None
    # True where every chain that reaches it crosses a test the tool cannot decide.
    conditional: NotRequired[bool]
    # With --measure: its import's time by itself and with what it imported (None where no
    # run timed it), and the external packages it brought in.
    self_us: NotRequired[int | None]
    cumulative_us: NotRequired[int | None]
    external: NotRequired[list[ExternalImport]]


class ClosureReport(TypedDict):
    """What importing a module runs: `importlinter-contracts closure MODULE --format json`."""

    module: str
    modules: dict[str, ClosureEntry]
    # What the walk could not read (a file whose calls, a dynamic import whose module name,
    # it cannot follow) or a cache it could not write: the lines stderr shows.
    warnings: list[str]
    # With --measure: the measurement (None where it failed, and then why).
    measured: NotRequired[Measured | None]
    measure_error: NotRequired[str]


class WhyReport(TypedDict):
    """How a module comes to import another: `importlinter-contracts why IMPORTER IMPORTED
    --format json`."""

    importer: str
    imported: str
    shortest: list[Hop] | None  # the shortest chain; None where there is none
    shortest_eager: list[Hop] | None  # the shortest that runs at import time
    warnings: list[str]  # as `ClosureReport`'s


class GainedModule(TypedDict):
    """A module that importing a module runs now and did not at the base revision."""

    module: str
    chain: list[Hop]  # the chain that now reaches it, as `closure` finds it, first hop first
    # Where the change touched the chain: its first line that the change added or altered
    # (None where none is: the chain was there, and the change made it run otherwise).
    changed: Location | None
    # The eager_imports contracts that it breaks, being forbidden: a violation of theirs is
    # the import that runs it (none where it is allowed, or an allowlist entry excuses it).
    breaks: list[str]


class ClosureChange(TypedDict):
    """`review`: what importing a module runs now that it did not at the base revision, and
    what it no longer runs: its import-time closure, as `closure` computes it, on the working
    tree and on the base revision's files, both read with the current configuration."""

    module: str
    # The eager_imports contracts it is a source module of; none for a module that only
    # `review --closure` names.
    contracts: list[str]
    gained: list[GainedModule]
    lost: list[str]


def is_import_finding(finding: Finding) -> TypeGuard[ImportFinding]:
    """Return whether a finding is an import (not a runtime_isolation finding)."""
    return "importer" in finding


def contract_key(contract: Mapping[str, object]) -> str:
    """Return what names a contract where one key must name it (a result, a skipped contract, a
    contract's options): its id, or its name when it has none."""
    return str(contract.get("id") or contract["name"])
