"""Questions about the import graph, for a Python REPL or a notebook.

>>> from importlinter_contracts import explore
>>> x = explore.load()                      # reads .importlinter as lint-imports does
>>> x.eager_closure("vllm_omni.platforms.cuda.platform")   # what that import runs
>>> x.why("vllm_omni.platforms", "vllm_omni.platforms.xpu")  # how, and whether eagerly
>>> x.imports("vllm_omni.platforms"), x.importers("vllm_omni.platforms.xpu")
>>> x.check()                               # the contracts' findings, as the JSON report
>>> explore.load(static=True).check()       # as check --static: no contract runs the code
>>> x.smallest_cut("r4")                    # the fewest imports to defer to keep it
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grimp import ImportGraph

from . import _importlinter
from .cache import DEFAULT_CACHE_DIR, cache_directory, grimp_cache_directory, using_caches
from .eager.scope_cache import ScopeIndex
from .eager.walk import (
    EagerHop,
    EagerImports,
    calls_unread_warnings,
    chain_to,
    dynamic_import_warnings,
    located_per_line,
    unconditionally,
    walk,
)
from .errors import UnknownModuleError, UsageError, warn
from .locations import link_text, location, module_of_path
from .modules import has_module, parents
from .options import not_a_module_name
from .rendering import describe_hop_lines, only_if, smallest_cut_heading, smallest_cut_steps
from .report import Hop, Report, SmallestCutData
from .running import read_configuration, run_contracts, static_only
from .unseen import unseen_folders


class Steps(tuple[EagerHop, ...]):
    """Direct imports of or by a module, each with whether each of its lines runs at import
    time; one per line in a terminal."""

    def __repr__(self) -> str:
        return "\n".join(describe_hop_lines(hop.as_data(eager=True)) for hop in self) or "(none)"


class Chain(tuple[EagerHop, ...]):
    """Hops from one module to another; `eager` when every hop happens at import time."""

    def as_data(self) -> list[Hop]:
        """Return the chain as the report's hops, saying of each line whether it runs at import
        time."""
        return [hop.as_data(eager=True) for hop in self]

    @property
    def eager(self) -> bool:
        return all(hop.eager for hop in self)

    @property
    def conditional(self) -> bool:
        """Whether a hop of the chain happens only where a test holds that the tool cannot
        decide."""
        return any(hop.conditional for hop in self)

    def __repr__(self) -> str:
        heading = "eager chain" if self.eager else "chain (not all at import time)"
        if self.eager and self.conditional:
            heading = "eager chain, conditional"
        return "\n".join(
            [f"{heading}:", *(f"  {describe_hop_lines(hop)}" for hop in self.as_data())]
        )


class Why(tuple[Chain, ...]):
    """The shortest chain of imports, and the shortest that runs at import time if another."""

    def __repr__(self) -> str:
        return "\n".join(map(repr, self)) if self else "no chain of imports"


@dataclass(frozen=True)
class Cut:
    """What to defer for an eager_imports contract to be kept: its smallest cut, as the JSON
    report holds it (None when the contract has no chain to cut), and how many of its
    chains the allowlist excuses."""

    contract: str
    data: SmallestCutData | None
    excused: int

    def __repr__(self) -> str:
        if self.data is None:
            return f"{self.contract}: nothing to defer (no eager chain to a forbidden module)"
        lines = [smallest_cut_heading(self.data, self.excused)]
        for text, where in smallest_cut_steps(self.data):
            lines.append(f"  {text}")
            lines += [f"    {link_text(found)}" for found in where]
        return "\n".join(lines)


class EagerClosure(Mapping[str, Chain]):
    """Every module that runs when a module is imported, each with the chain that loads it.

    Each module is kept with the one hop that first reaches it: a chain is made when asked
    for, so that the closure costs as much as the modules it holds, not the sum of their
    chains' lengths (on a chain of 1,000 modules, half a million hops).
    """

    def __init__(
        self,
        module: str,
        reached: dict[str, EagerHop | None],
        conditional: frozenset[str] = frozenset(),
    ) -> None:
        self.module = module
        self._reached = reached
        # The modules that every chain reaches across a test the tool cannot decide.
        self.conditional = conditional

    def step_to(self, module: str) -> EagerHop | None:
        """Return the hop that reaches `module` (None for the module imported itself)."""
        return self._reached[module]

    def reached_from(self, module: str) -> str | None:
        """Return the module whose import runs the hop to `module`: the hop's importer, or
        the module that calls the function the import is in (None for the module imported
        itself)."""
        hop = self._reached[module]
        return None if hop is None else hop.runs_from

    def __getitem__(self, module: str) -> Chain:
        return Chain(chain_to(self._reached, module))

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._reached))

    def __len__(self) -> int:
        return len(self._reached)

    def __repr__(self) -> str:
        lines = [f"importing {self.module} runs {len(self)} modules:"]
        for module in self:
            hop = self._reached[module]
            if hop is None:
                lines.append(f"  {module}  (itself)")
            elif not hop.is_import:
                lines.append(f"  {module}  (parent package of {hop.importer})")
            else:
                found = location(hop.importer, hop.line_numbers[0])
                where = link_text(found) if found else hop.importer
                if hop.conditional:
                    # (The hop's own tests; a module whose chain crosses a test before it is
                    # only marked.)
                    where += ", " + only_if(hop.as_data())
                elif module in self.conditional:
                    where += ", conditional"
                lines.append(f"  {module}  ({where})")
        if self.conditional:
            lines.append(
                f"{len(self.conditional)} of them only where a test holds that the tool cannot "
                "decide (conditional: `why` shows the tests of the whole chain)"
            )
        return "\n".join(lines)


class Explorer:
    """The graph of a configuration, built once, and questions about it."""

    def __init__(
        self,
        graph: ImportGraph,
        config: str | None,
        cache_dir: Path | None,
        session_options: Mapping[str, Any] | None = None,
        grimp_cache: Path | None = None,
        static: bool = False,
    ) -> None:
        self.graph = graph
        self._config = config
        self._cache_dir = cache_dir
        self._static = static
        self._session_options = session_options or {}
        self._scopes = ScopeIndex(cache_dir, self._session_options, grimp_cache)
        self._eager = EagerImports(graph, self._scopes)
        self._warned: set[str] = set()
        # One object for every walk, which keeps what each hop's target is (`walk`).
        self._enter = self._enter_unless_external
        self._enter_certain = unconditionally(self._enter)

    def _enter_unless_external(self, hop: EagerHop) -> object:
        """An eager closure follows every hop, into every module but external packages."""
        return _EXTERNAL if self.graph.is_module_squashed(hop.imported) else True

    def eager_closure(self, module: str) -> EagerClosure:
        """Return every module of the graph that runs when `module` is imported: the module, its
        parent packages, and what their eager imports (and the functions called at import
        time) run, followed everywhere; each reached by a chain of no conditional hop where
        one exists, and conditional where none does."""
        module = self.module(module)
        reached, stops = walk(module, self._eager, self._enter, include_parents=True)
        for hop, _ in stops:  # an external package runs, but its file is not read
            reached.setdefault(hop.imported, hop)
        certain, stops = walk(module, self._eager, self._enter_certain, include_parents=True)
        for hop, _ in stops:
            certain.setdefault(hop.imported, hop)
        conditional = frozenset(reached.keys() - certain.keys())
        reached.update(certain)
        for warning in calls_unread_warnings(self._eager) + dynamic_import_warnings(self._eager):
            if warning not in self._warned:
                self._warned.add(warning)
                warn(warning)
        self._save_scopes()
        return EagerClosure(module, reached, conditional)

    @property
    def root_packages(self) -> list[str]:
        """The configuration's root packages."""
        return list(self._session_options.get("root_packages", []))

    def computed_imports(self) -> dict[str, list[tuple[int, str]]]:
        """Return, by file, the dynamic imports that the walks so far found run at import time
        with a module name computed at run time: each one's line and callee."""
        return {path: sorted(found) for path, found in self._eager.dynamic_unread.items()}

    def why(self, importer: str, imported: str) -> Why:
        """Return the shortest chain of imports from `importer` to `imported` (through parent
        packages too, which Python runs before their submodules), each hop with its lines
        and whether each runs at import time; and the shortest chain that does run at import
        time, when that is another.

        Raises UsageError when `importer` and `imported` are the same module.
        """
        importer, imported = self.module(importer), self.module(imported)
        if importer == imported:
            raise UsageError(
                f"{importer} is both the importer and the imported: give two different modules."
            )
        chains = []
        shortest = self._shortest_chain(importer, imported)
        if shortest:
            chains.append(Chain(shortest))
        closure = self.eager_closure(importer)
        if imported in closure:
            eager = closure[imported]
            # Each chain once: the shortest may be the eager one, as the graph reads it.
            if not chains or chains[0].as_data() != eager.as_data():
                chains.append(eager)
        return Why(chains)

    def _shortest_chain(self, importer: str, imported: str) -> list[EagerHop]:
        """The hops of the shortest chain from `importer` to `imported`: imports, and parent
        packages, which Python runs before their submodules (grimp's chain of imports where
        none through a parent package is shorter)."""
        imports = self.graph.find_shortest_chain(importer, imported) or ()
        # Breadth first, each module with the one it is reached from and whether as its
        # parent package; no further than grimp's chain, less one step.
        reached: dict[str, tuple[str, bool]] = {}
        level, depth = [importer], 0
        while level and imported not in reached and (not imports or depth + 2 < len(imports)):
            depth += 1
            following = []
            for module in level:
                parent = next((p for p in parents(module) if has_module(self.graph, p)), None)
                targets = [(parent, True)] if parent is not None else []
                found = self.graph.find_modules_directly_imported_by(module)
                targets += [(target, False) for target in sorted(found)]
                for target, is_parent in targets:
                    if target not in reached and target != importer:
                        reached[target] = (module, is_parent)
                        following.append(target)
            level = following
        if imported not in reached:
            return [self._import_hop(a, b) for a, b in itertools.pairwise(imports)]
        hops = []
        module = imported
        while module != importer:
            before, is_parent = reached[module]
            hops.append(EagerHop(before, module) if is_parent else self._import_hop(before, module))
            module = before
        return hops[::-1]

    def imports(self, module: str, as_package: bool = False) -> Steps:
        """Return what `module` (with `as_package`, any module in it) imports directly."""
        module = self.module(module)
        return self._steps(
            (importer, imported)
            for importer in self._members(module, as_package)
            for imported in self.graph.find_modules_directly_imported_by(importer)
        )

    def importers(self, module: str, as_package: bool = False) -> Steps:
        """Return what imports `module` (with `as_package`, any module in it) directly."""
        module = self.module(module)
        return self._steps(
            (importer, imported)
            for imported in self._members(module, as_package)
            for importer in self.graph.find_modules_that_directly_import(imported)
        )

    def check(self, contract_id: str | None = None) -> Report:
        """Return the contracts' findings (of `contract_id` alone, where given), as
        `importlinter-contracts check --format json` gives them (with --static, where the
        explorer was loaded with `static`). Prints nothing: what a contract prints while it
        checks (the runtime contract's summary) is in the findings.

        Raises NothingToCheckError when `static` leaves no contract to check.
        """
        ids = (contract_id,) if contract_id else ()
        select = static_only if self._static else None
        with contextlib.redirect_stdout(io.StringIO()):
            return run_contracts(self._config, ids, self._cache_dir, select=select).as_data()

    def smallest_cut(self, contract_id: str) -> Cut:
        """Return the fewest import statements to defer for the eager_imports contract
        `contract_id` to be kept (every chain, those its allowlist excuses included).

        Raises UsageError for a contract of another type.
        """
        (result,) = self.check(contract_id)["contracts"]
        if result["type"] != "eager_imports":
            raise UsageError(
                f"{contract_id} is a {result['type']} contract: only an eager_imports "
                "contract has a smallest cut."
            )
        return Cut(contract_id, result.get("smallest_cut"), len(result["ignored"]))

    def _members(self, module: str, as_package: bool) -> set[str]:
        return {module, *self.graph.find_descendants(module)} if as_package else {module}

    def _steps(self, pairs: Iterable[tuple[str, str]]) -> Steps:
        hops = [self._import_hop(a, b) for a, b in sorted(set(pairs))]
        self._save_scopes()
        return Steps(hops)

    def _import_hop(self, importer: str, imported: str) -> EagerHop:
        """The import of `imported` by `importer`, as the graph holds it: each line with whether
        it runs at import time and why, and the tests it runs under then, as the line reads."""
        lines = self._eager.lines(importer, imported)
        return EagerHop(
            importer,
            imported,
            tuple(line for line, _ in lines),
            tuple(scope.reason for _, scope in lines),
            conditions=located_per_line(importer, tuple(scope.conditions for _, scope in lines)),
            at_import_time=tuple(scope.eager for _, scope in lines),
        )

    def _save_scopes(self) -> None:
        cache_warning = self._scopes.save()
        if cache_warning is not None:
            warn(cache_warning)

    def module(self, name: str) -> str:
        """Return the module that `name` names: a module of the graph, or a path to the file
        (or package folder) of one.

        Raises UnknownModuleError saying why it is not in the graph where a folder without
        `__init__.py` is the cause, else with the nearest module of the graph's name.
        """
        if has_module(self.graph, name):
            return name
        module, shown = name, name
        roots = self._session_options.get("root_packages", [])
        if name.endswith(".py") or "/" in name or os.sep in name:
            found = module_of_path(name, roots)
            if found is None:
                raise UnknownModuleError(
                    f"{name} is neither a module of the graph nor a path below the root "
                    f"packages' folders ({', '.join(roots)}): give a module's name, or the "
                    "path of its file."
                )
            if has_module(self.graph, found):
                return found
            # A file the graph leaves out, told apart from a path that names nothing.
            kind = (
                "a file"
                if os.path.isfile(name)
                else "a folder"
                if os.path.isdir(name)
                else "no such file"
            )
            module, shown = found, f"{name} ({kind}; module {found})"
        else:
            error = not_a_module_name(name, wildcards=False)
            if error:
                raise UnknownModuleError(error)
        raise UnknownModuleError(
            f"{shown} is not a module of the graph"
            + unseen_folders(self._session_options).why_absent(self.graph, module)
        )

    def __repr__(self) -> str:
        return (
            f"<Explorer: {len(self.graph.modules)} modules, {self.graph.count_imports()} imports>"
        )


# Where an eager closure stops: an external package (squashed in the graph), which runs but
# whose imports the graph does not hold.
_EXTERNAL = object()


def load(
    config: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = DEFAULT_CACHE_DIR,
    static: bool = False,
) -> Explorer:
    """Return an explorer of the configuration (a path, as a string or a Path), read as
    lint-imports reads it (the same file discovery and session options), with its graph built
    once, with the same cache (None: no cache; a graph cache that cannot be used gives a
    CacheWarning, and then none is used). With `static`, its `check` leaves out the contracts
    that run the analysed code, as `check --static` does.

    Raises ConfigurationError when there is no configuration or it cannot be read.
    """
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    config = None if config is None else os.fspath(config)
    # There is one, and it parses: or one line that says why not.
    _, user_options = read_configuration(config)
    folder = None if cache_dir is None else Path(cache_dir)
    with using_caches(folder, user_options.session_options):
        graph = _importlinter.build_graph(user_options)
        # (None where the graph's cache could not be used: `_importlinter.build_graph`.)
        cache_dir, grimp_cache = cache_directory(), grimp_cache_directory()
    return Explorer(
        graph, config, cache_dir, user_options.session_options, grimp_cache, static=static
    )
