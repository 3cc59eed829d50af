"""Printing findings in lint-imports' style, with locations that stay on one line: what the
contract types print, and the one-line descriptions the report formats (`outputs`) reuse."""

from __future__ import annotations

import re

from . import _importlinter
from .locations import link_text
from .report import Condition, Hop, Location, SmallestCutData


def print_finding(text: str, *, indent: int = 0, bold: bool = False) -> None:
    """Print one line of a broken contract's details.

    Rich would wrap a long `path:line` over two lines, which editors and CI logs then fail
    to link, so these lines are never wrapped; `text` is printed as is, not as Rich markup.
    """
    _importlinter.console_line(text, indent=indent, bold=bold)


def print_note(text: str, *, indent: int = 0) -> None:
    """Print one line of what a contract saw, in the default colour, never wrapped."""
    _importlinter.console_line(text, indent=indent, bold=False, error=False)


def print_import(text: str, locations: list[Location]) -> None:
    """A finding's line, `-   importer -> imported (...)`, with its `path:line` under it."""
    print_finding(f"-   {text}")
    for where in locations:
        print_finding(link_text(where), indent=1)


def describe_import(importer: str, imported: str, line_numbers: list[int]) -> str:
    """Return `importer -> imported (l.3, l.5)`, as lint-imports writes an import."""
    return f"{importer} -> {imported} ({_importlinter.format_line_numbers(line_numbers)})"


def chain_steps(hop: Hop) -> list[tuple[str, list[Location]]]:
    """Return a hop of a chain as the lines that show it, each with where it stands: first each
    call that runs its import lines, in the calling module at the call's line (`pkg.a
    calls pkg.b:f (l.3, at import time)`, then `pkg.b:f calls pkg.c:g (l.9)`), each once;
    then the hop itself with its import lines (in the function); then a conditional hop's
    tests (`only_if`). So the chain reads on from the module that makes the call to the
    module whose function imports."""
    steps: list[tuple[str, list[Location]]] = []
    shown: set[tuple[str, int, str]] = set()
    for calls in hop.get("calls", []):
        caller = None
        for call in calls:
            key = (call["module"], call["line"], call["function"])
            if key not in shown:
                shown.add(key)
                when = ", at import time" if caller is None else ""
                steps.append(
                    (
                        f"{caller or call['module']} calls {call['function']} "
                        f"(l.{call['line']}{when})",
                        [call["location"]] if call["location"] is not None else [],
                    )
                )
            caller = call["function"]
    steps.append((describe_hop(hop, tested=False), list(hop["locations"])))
    if "conditions" in hop:
        # (The tests on a line of their own, with where each stands.)
        where = [
            found
            for _, tests in _tests_by_line(hop)
            for condition in tests
            if (found := condition["location"]) is not None
        ]
        steps.append((only_if(hop, places=False), where))
    return steps


def chain_locations(chain: list[Hop]) -> list[Location]:
    """Return where each line of a chain stands, first to last, as `chain_steps` shows them: per
    hop, the calls that run its import lines, then the import lines."""
    return [where for hop in chain for _, found in chain_steps(hop) for where in found]


def describe_hop(hop: Hop, *, tested: bool = True) -> str:
    """Return a hop as one line: `a -> b (l.3, module level)`, or `a.b -> a (why)` for a parent;
    a conditional hop with its tests after it (`only_if`) where `tested`."""
    if not hop["line_numbers"]:
        return f"{hop['importer']} -> {hop['imported']} ({hop['why'][0]})"
    lines = "; ".join(
        f"l.{line}, {why}" for line, why in zip(hop["line_numbers"], hop["why"], strict=True)
    )
    tests = f" {only_if(hop)}" if "conditions" in hop and tested else ""
    return f"{hop['importer']} -> {hop['imported']} ({lines}){tests}"


def describe_hop_lines(hop: Hop) -> str:
    """Return a hop as the REPL shows it: `a -> b: l.3 eager, module level (path:3)`, each line
    with whether it runs at import time, why and where; a parent as `describe_hop` gives it;
    a conditional hop's tests (`only_if`) on a line of their own under it."""
    if not hop["line_numbers"]:
        return describe_hop(hop)
    where = {found["line"]: link_text(found) for found in hop["locations"]}
    eager = hop.get("eager", [True] * len(hop["line_numbers"]))
    lines = "; ".join(
        f"l.{line} {'eager' if runs else 'deferred'}, {why} ({where.get(line, 'no file')})"
        for line, runs, why in zip(hop["line_numbers"], eager, hop["why"], strict=True)
    )
    shown = f"{hop['importer']} -> {hop['imported']}: {lines}"
    return f"{shown}\n    {only_if(hop)}" if "conditions" in hop else shown


def only_if(hop: Hop, *, places: bool = True) -> str:
    """Return the tests a conditional hop runs under: `only if A and not (B)`; with `places`,
    each with where it stands (`only if A (path:6) and not (B) (path:9)`). Where its lines
    run under different tests, each line's after its number: `l.4 only if A; l.9 only if B`."""
    return "; ".join(
        ("" if line is None else f"l.{line} ") + _only_if(tests, places)
        for line, tests in _tests_by_line(hop)
    )


def _tests_by_line(hop: Hop) -> list[tuple[int | None, list[Condition]]]:
    """The tests of a conditional hop: once, with no line, where every line runs under the same;
    else each line's, with its number."""
    conditions = hop.get("conditions", [])
    if all(tests == conditions[0] for tests in conditions):
        return [(None, tests) for tests in conditions[:1]]
    return list(zip(hop["line_numbers"], conditions, strict=True))


def _only_if(conditions: list[Condition], places: bool) -> str:
    shown = [condition["shown"] for condition in conditions]
    if len(shown) > 1:
        # (Joined by `and`, a test with its own `or` or `and` keeps its brackets.)
        shown = [f"({test})" if _BOOLEAN.search(test) else test for test in shown]
    if places:
        shown = [f"{test} ({_place(c)})" for test, c in zip(shown, conditions, strict=True)]
    return "only if " + " and ".join(shown)


_BOOLEAN = re.compile(r" (?:and|or|if) ")


def _place(condition: Condition) -> str:
    where = condition["location"]
    return (
        link_text(where) if where is not None else f"{condition['module']}, l.{condition['line']}"
    )


def smallest_cut_heading(cut: SmallestCutData, excused: int) -> str:
    """The line that introduces a smallest cut: how many imports, and of which chains."""
    count = len(cut["statements"])
    chains = (
        "every chain"
        if not excused
        else f"every chain, the {excused} the allowlist excuses included"
        if excused > 1
        else "every chain, the one the allowlist excuses included"
    )
    fewest = (
        "the fewest that cut"
        if cut["exact"]
        else f"not known to be the fewest ({cut['not_exact']}), that cut"
    )
    return (
        f"To keep this contract, defer {'this import' if count == 1 else f'these {count} imports'}"
        f" ({fewest} {chains}):"
    )


def smallest_cut_steps(cut: SmallestCutData) -> list[tuple[str, list[Location]]]:
    """Return each statement of a smallest cut as a line with where it stands (`pkg.a ->
    pkg.b (l.3, module level), on 2 chains`, of those the report shows; a call, `pkg.a calls
    pkg.c:f (l.5, at import time), which imports pkg.b, ...`, then where the imports it runs
    stand), and why it cannot be made lazy: where a name it binds is used at import time
    (`...; not lazily: f is used at import time (at module level)`, at the use's line), or the
    reason `fix` would refuse it (`...; not lazily: it is inside a `try` statement, ...`)."""
    steps: list[tuple[str, list[Location]]] = []
    for statement in cut["statements"]:
        chains = len(statement["cuts"])
        imported = ", ".join(statement["imported"])
        call = statement["call"]
        if call is None:
            text = (
                f"{statement['importer']} -> {imported} (l.{statement['line']}, {statement['why']})"
            )
        else:
            text = (
                f"{statement['importer']} calls {call['function']} (l.{statement['line']}, at "
                f"import time), which imports {imported}"
            )
        # A statement of a smallest cut is on some chain to an end: where none of those shown
        # (one per finding), on another.
        text += (
            f", on {chains} chain{'s' if chains != 1 else ''}"
            if chains
            else ", on none of the chains shown (it cuts others)"
        )
        where = [statement["location"]] if statement["location"] is not None else []
        where += call["imports"] if call is not None else []
        use = statement["import_time_use"]
        if use is not None:
            text += f"; not lazily: {use['name']} is used at import time ({use['how']})"
            where.append({"path": use["path"], "line": use["line"]})
        elif statement["not_lazy"] is not None:
            text += f"; not lazily: {statement['not_lazy']}"
        elif statement["uses_unread"] is not None:
            text += f"; whether lazily is not known: {statement['uses_unread']}"
        steps.append((text, where))
    return steps
