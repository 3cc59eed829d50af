"""The smallest cut: the fewest import statements whose deferral leaves no eager chain from
an `eager_imports` contract's source modules to a forbidden module (or to an import its
allowlist excuses)."""

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import UnreadableSourceError
from ..locations import location
from ..report import DeferredImportData, Hop, ImportFinding, Location, SmallestCutData

TYPE_CHECKING = False  # (not typing's: the contract types are imported on every run)
if TYPE_CHECKING:
    from .deferrable import NotLazy
    from .import_time_uses import ImportTimeUse
    from .resolver import Call
    from .walk import EagerHop


class Statement(NamedTuple):
    """A statement to defer: an import statement, by its module (the file it stands in) and
    line; or a call made at import time, by the module and line of the call and the
    function it calls (`call`, `module:name`), which runs imports inside functions."""

    module: str
    line: int
    call: str = ""


# Why a call at import time cannot be made lazy (`fix` edits imports alone).
CALL_NOT_LAZY = (
    "it is a call, which fix does not edit: the imports it runs stand in a function, which "
    "runs them only when called; make the call where its result is first needed"
)


@dataclass(frozen=True)
class DeferredImport:
    """A statement of a cut, an import or a call at import time that runs imports inside
    functions (`call`): deferring it (not running it while `importer` is imported) cuts the
    chain of each finding of `cuts`."""

    importer: str  # the module whose file holds the statement
    line: int
    location: Location | None  # where it stands, as reports show it
    imported: tuple[str, ...]  # the modules of the eager graph it imports, sorted
    why: str  # why it runs at import time (as the chains say)
    cuts: tuple[tuple[str, str], ...]  # the findings (importer, imported) whose chain it is on
    import_time_use: "ImportTimeUse | None"  # where a name it binds is used at import time
    # Why it cannot be made lazy (`eager.deferrable`; None where it can, or is not known).
    not_lazy: str | None = None
    # Why whether its names are used at import time is not known (None when it is).
    uses_unread: str | None = None
    # Of a call at import time: the function it calls (`module:name`; None for an import
    # statement), and where the imports it runs stand.
    call: str | None = None
    runs: tuple[Location, ...] = ()

    def as_data(self) -> DeferredImportData:
        """Return the statement as the report holds it."""
        use = self.import_time_use
        return {
            "importer": self.importer,
            "imported": list(self.imported),
            "line": self.line,
            "location": self.location,
            "why": self.why,
            "cuts": [{"importer": a, "imported": b} for a, b in self.cuts],
            "import_time_use": None
            if use is None
            else {"path": use.path, "line": use.line, "name": use.name, "how": use.how},
            "not_lazy": self.not_lazy,
            "uses_unread": self.uses_unread,
            "call": None
            if self.call is None
            else {"function": self.call, "imports": list(self.runs)},
        }


@dataclass(frozen=True)
class SmallestCut:
    """The fewest import statements whose deferral leaves no eager chain to an end; among
    those, the fewest that cannot be made lazy (or whose uses cannot be read); among
    those, the nearest the ends (what runs before them runs as before). `exact` says
    whether no smaller cut exists; `not_exact` says why that is not known (None when
    exact)."""

    statements: tuple[DeferredImport, ...]
    exact: bool
    not_exact: str | None

    def as_data(self) -> SmallestCutData:
        """Return the cut as the report holds it."""
        return {
            "statements": [statement.as_data() for statement in self.statements],
            "exact": self.exact,
            "not_exact": self.not_exact,
        }


class NoCut(NamedTuple):
    """No deferral cuts the chains to a finding: Python runs each of its steps whatever
    imports are deferred (a parent package before its submodule)."""

    importer: str
    imported: str


def smallest_cut(
    sources: Sequence[str],
    hops: Iterable["EagerHop"],
    ends: Sequence["EagerHop"],
    findings: Sequence[ImportFinding],
    *,
    unseen_beyond: Sequence[tuple[str, str]] = (),
    why_not_lazy: "Callable[[str, list[int]], Mapping[int, NotLazy | None]]",
) -> SmallestCut | NoCut:
    """Return the smallest cut between `sources` and `ends` in the eager graph of `hops`
    (or a finding no cut reaches): `ends` are the hops where chains end, each a finding's last
    import (its key in the report: `importer -> imported`).

    A minimum cut: each statement a node of capacity one (its hops pass through it),
    every other edge unbounded, so the maximum flow finds the fewest statements exactly. To
    prefer statements that can be made lazy, each one that cannot adds less than one
    statement's capacity, in a second flow; only the statements of some smallest cut are
    asked. `findings`: the violations and
    ignored imports whose chains the report shows (which say the chains a statement cuts).
    `unseen_beyond`: the findings whose last import the walks did not follow (an allowlist
    entry excused it, and what it imports is not forbidden), so a cut beyond them is not
    seen and the cut is not known to be the smallest. `why_not_lazy` says, for a module's
    statements by line (each file asked once), why each cannot be made lazy (None where it
    can; UnreadableSourceError where it cannot tell: the statements then say why,
    `uses_unread`).
    """
    chains = _Chains(sources, hops, ends)
    if chains.uncut is not None:
        return chains.uncut
    why, imported, network_of = chains.why, chains.imported, chains.network_of
    network = network_of(dict.fromkeys(why, 1))
    # The statements of some smallest cut: those the maximum flow fills whose in-node
    # cannot reach their out-node in the residual network. Only they are asked for their
    # whether they can be made lazy (reading a file's uses costs more than the flow).
    network.maximum_flow(_ROOT, _SINK)
    refused: dict[Statement, NotLazy | None] = dict.fromkeys(why)
    unread: dict[Statement, str] = {}
    asked: dict[str, list[int]] = {}
    for statement in why:
        # (A call is not an import: it cannot be made lazy, and is not asked.)
        if not statement.call and network.filled(("in", statement), ("out", statement)):
            asked.setdefault(statement.module, []).append(statement.line)
    for module, lines in asked.items():
        try:
            found = why_not_lazy(module, lines)
        except UnreadableSourceError as error:
            # (The verdict stands: the cut only cannot tell whether these imports can be
            # lazy, and prefers others, as it does an import that cannot be.)
            unread.update(dict.fromkeys((Statement(module, line) for line in lines), str(error)))
        else:
            refused.update((Statement(module, line), found[line]) for line in lines)
    # One statement weighs more than all uses at import time together: the fewest
    # statements, then the fewest of them that cannot be made lazy (or not known).
    weight = len(why) + 1
    network = network_of(
        {
            statement: weight
            + (refused[statement] is not None or statement in unread or bool(statement.call))
            for statement in why
        }
    )
    network.maximum_flow(_ROOT, _SINK)
    # The cut nearest the ends: the statements whose out-node reaches the sink in the
    # residual network and whose in-node does not.
    near = network.reaching(_SINK)
    cut = sorted(s for s in why if ("out", s) in near and ("in", s) not in near)
    on_chains: dict[Statement, list[tuple[str, str]]] = {}
    for finding in findings:
        key = (finding["importer"], finding["imported"])
        for hop in finding.get("chain", []):
            for statement in chains.deferred_in(hop):
                on_chains.setdefault(statement, []).append(key)
    statements = tuple(
        DeferredImport(
            importer=statement.module,
            line=statement.line,
            location=location(statement.module, statement.line),
            imported=tuple(sorted(imported[statement])),
            why=why[statement],
            cuts=tuple(dict.fromkeys(on_chains.get(statement, []))),
            import_time_use=_use(refused[statement]),
            not_lazy=CALL_NOT_LAZY if statement.call else _reason(refused[statement]),
            uses_unread=unread.get(statement),
            call=statement.call or None,
            runs=tuple(
                where
                for ran in sorted(chains.runs.get(statement, ()))
                if (where := location(ran.module, ran.line)) is not None
            ),
        )
        for statement in cut
    )
    if not unseen_beyond:
        return SmallestCut(statements, exact=True, not_exact=None)
    first = unseen_beyond[0]
    others = len(unseen_beyond) - 1
    return SmallestCut(
        statements,
        exact=False,
        not_exact=(
            f"the walks stop at {first[0]} -> {first[1]}"
            + (f" and {others} other import{'s' if others > 1 else ''}" if others else "")
            + ", which the allowlist excuses and which import"
            + ("s" if not others else "")
            + " no forbidden module: a smaller cut may stand beyond"
            + (" it" if not others else " them")
        ),
    )


def uncut_finding(
    sources: Sequence[str], hops: Iterable["EagerHop"], ends: Sequence["EagerHop"]
) -> NoCut | None:
    """Return a finding whose chains no deferral cuts (as `smallest_cut` would), or None:
    without finding the cut, which reads the files of its statements. (Such a chain runs
    from a source through parent packages alone: no flow network is needed to find it.)"""
    parents: dict[str, list[str]] = {}
    for hop in hops:
        if not hop.is_import:
            parents.setdefault(hop.runs_from, []).append(hop.imported)
    free = set(sources)
    queue = list(free)
    for module in queue:
        for parent in parents.get(module, ()):
            if parent not in free:
                free.add(parent)
                queue.append(parent)
    return next(
        (
            NoCut(end.importer, end.imported)
            for end in ends
            if not end.is_import and end.runs_from in free
        ),
        None,
    )


class _Chains:
    """The eager graph of the chains to the ends, as a flow network: a module by its name,
    the ends as one sink, a statement as its two ends (the capacity between them is the
    statement's). `why`: the statements on a chain, with why each runs; `imported`: the
    modules each imports; `runs`: the imports inside functions that each call runs;
    `uncut`: a finding no statement is on the chains to (or None)."""

    def __init__(
        self, sources: Sequence[str], hops: Iterable["EagerHop"], ends: Sequence["EagerHop"]
    ) -> None:
        hops = list(hops)
        self.uncut = uncut_finding(sources, hops, ends)
        edges: list[tuple[EagerHop, object]] = [(hop, ("module", hop.imported)) for hop in hops]
        edges += [(end, _SINK) for end in ends]
        unbounded: list[tuple[object, object]] = [(_ROOT, ("module", source)) for source in sources]
        self.why: dict[Statement, str] = {}
        self.imported: dict[Statement, set[str]] = {}
        self.runs: dict[Statement, dict[Statement, None]] = {}
        # The statement to defer of each import, by what runs it at import time (the
        # module and line of that call; None for the import itself).
        self._deferred: dict[tuple[Statement, tuple[str, int] | None], Statement] = {}
        for hop, target in _leading_to_sink(edges, _SINK):
            start = ("module", hop.runs_from)
            if not hop.is_import:
                unbounded.append((start, target))
            # (A hop whose lines run by themselves may hold no calls at all.)
            calls = hop.calls or ((),) * len(hop.line_numbers)
            for line, reason, called in zip(hop.line_numbers, hop.why, calls, strict=True):
                ran = Statement(hop.importer, line)
                statement = _to_defer(ran, called)
                self.why.setdefault(statement, reason)
                self.imported.setdefault(statement, set()).add(hop.imported)
                if statement.call:
                    self.runs.setdefault(statement, {})[ran] = None
                by = None if statement == ran else (statement.module, statement.line)
                self._deferred[ran, by] = statement
                unbounded += [(start, ("in", statement)), (("out", statement), target)]
        self._unbounded = unbounded

    def deferred_in(self, hop: Hop) -> list[Statement]:
        """Return the statements to defer of a hop of a chain the report shows: each line's
        import, or, for an import inside a function, what runs it at import time."""
        calls = hop.get("calls") or [[]] * len(hop["line_numbers"])
        found = []
        for line, called in zip(hop["line_numbers"], calls, strict=True):
            ran = Statement(hop["importer"], line)
            by = (called[0]["module"], called[0]["line"]) if called else None
            found.append(self._deferred.get((ran, by), ran))
        return found

    def network_of(self, capacity: dict[Statement, int]) -> "_Network":
        network = _Network()
        for start, end in self._unbounded:
            network.add(start, end, _UNBOUNDED)
        for statement in self.why:
            network.add(("in", statement), ("out", statement), capacity[statement])
        return network


_ROOT = ("sources",)
_SINK = ("sink",)


def _to_defer(ran: Statement, calls: "tuple[Call, ...]") -> Statement:
    """The statement to defer to cut an import (`ran`) that `calls` run at import time: the
    import itself where it runs by itself; else what runs it at import time: the call, or a
    `from` import (which calls a module `__getattr__`), an import statement."""
    if not calls:
        return ran
    first = calls[0]
    return Statement(first.caller, first.line, "" if first.by_import else first.called)


def _use(refused: "NotLazy | None") -> "ImportTimeUse | None":
    return None if refused is None else refused.use


def _reason(refused: "NotLazy | None") -> str | None:
    return None if refused is None else refused.reason


def _leading_to_sink(
    edges: "list[tuple[EagerHop, object]]", sink: object
) -> "Iterator[tuple[EagerHop, object]]":
    """The edges from which the sink can be reached (the others cut no chain)."""
    into: dict[object, list[tuple[EagerHop, object]]] = {}
    for hop, target in edges:
        into.setdefault(target, []).append((hop, target))
    found = {sink}
    queue = [sink]
    for node in queue:
        for hop, target in into.get(node, ()):
            yield hop, target
            start = ("module", hop.runs_from)
            if start not in found:
                found.add(start)
                queue.append(start)


_UNBOUNDED = 1 << 62


class _Network:
    """A flow network: positive capacities on directed edges, the residual capacity of each."""

    def __init__(self) -> None:
        self._residual: dict[object, dict[object, int]] = {}
        # Of the residual network, once a maximum flow is pushed (`filled`).
        self._components: dict[object, int] | None = None

    def add(self, start: object, end: object, capacity: int) -> None:
        ahead = self._residual.setdefault(start, {})
        ahead[end] = min(ahead.get(end, 0) + capacity, _UNBOUNDED)
        self._residual.setdefault(end, {}).setdefault(start, 0)

    def maximum_flow(self, source: object, sink: object) -> None:
        """Push the maximum flow from `source` to `sink`, which a finite cut bounds, leaving
        the residual capacities (Edmonds-Karp: each augmenting path a shortest one)."""
        self._components = None
        while True:
            came_from: dict[object, object] = {source: source}
            queue = deque([source])
            while queue and sink not in came_from:
                node = queue.popleft()
                for ahead, capacity in self._residual[node].items():
                    if capacity > 0 and ahead not in came_from:
                        came_from[ahead] = node
                        queue.append(ahead)
            if sink not in came_from:
                return
            path = []
            node = sink
            while node != source:
                path.append((came_from[node], node))
                node = came_from[node]
            pushed = min(self._residual[a][b] for a, b in path)
            for a, b in path:
                self._residual[a][b] -= pushed
                self._residual[b][a] += pushed

    def filled(self, start: object, end: object) -> bool:
        """Return whether a maximum flow fills the edge `start -> end` and, in the residual
        network, `start` cannot reach `end`: whether the edge is in some minimum cut."""
        if self._residual[start][end] > 0:
            return False
        # A filled edge carries flow (every capacity is positive), which lets `end` reach
        # `start`: `start` reaches `end` exactly where both are in one strongly connected
        # component of the residual network (found once for every edge asked, not by a
        # search from each).
        if self._components is None:
            self._components = self._strongly_connected()
        return self._components[start] != self._components[end]

    def _strongly_connected(self) -> dict[object, int]:
        """The strongly connected component of each node of the residual network, by number
        (Tarjan's algorithm, without recursion: the network can be deeper than the stack)."""
        residual = self._residual
        order: dict[object, int] = {}
        low: dict[object, int] = {}
        component: dict[object, int] = {}
        stack: list[object] = []
        for root in residual:
            if root in order:
                continue
            order[root] = low[root] = len(order)
            stack.append(root)
            work = [(root, iter(residual[root].items()))]
            while work:
                node, edges = work[-1]
                for ahead, capacity in edges:
                    if capacity <= 0:
                        continue
                    if ahead not in order:
                        order[ahead] = low[ahead] = len(order)
                        stack.append(ahead)
                        work.append((ahead, iter(residual[ahead].items())))
                        break
                    if ahead not in component:
                        low[node] = min(low[node], order[ahead])
                else:
                    work.pop()
                    if work:
                        parent = work[-1][0]
                        low[parent] = min(low[parent], low[node])
                    if low[node] == order[node]:
                        number = len(order) + len(component)
                        while True:
                            member = stack.pop()
                            component[member] = number
                            if member == node:
                                break
        return component

    def reaching(self, sink: object) -> set[object]:
        """Return the nodes from which the sink can be reached in the residual network."""
        into: dict[object, list[object]] = {}
        for start, ahead in self._residual.items():
            for end, capacity in ahead.items():
                if capacity > 0:
                    into.setdefault(end, []).append(start)
        found = {sink}
        queue = [sink]
        for node in queue:
            for start in into.get(node, ()):
                if start not in found:
                    found.add(start)
                    queue.append(start)
        return found
