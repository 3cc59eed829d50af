"""What importing a module costs, measured (`closure MODULE --measure`).

The module is imported in a fresh interpreter with `-X importtime`, in its own process group,
in the working directory (which `python -c` puts first on sys.path, as a test run from there
finds the package), with a timeout. Each module of the static closure gets its measured self
and cumulative time; each the external packages its import brought in (those imported while
it ran, not through another module of the root packages); the static chains are ranked by
what their last module costs by itself; and the modules of the root packages that the
interpreter loaded but the static closure lacks are named with the module whose import was
running then, and why the static reading missed them where it knows.

This runs the analysed code, which the static contracts never do: `--measure` is the opt-in.
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import MeasureError, UsageError
from .interrupts import processes_ended_on_signals
from .locations import display_path, location
from .modules import within
from .report import ClosureEntry, ExternalImport, LoadedOutside, Measured, RankedChain
from .runtime.process import has_exited, kill_group

# Runs in the child: its own prints go nowhere (stdout is closed off and sys.stderr is sent
# there), so that fd 2 carries `-X importtime`'s records and our own lines, framed by the
# run's random token: where the import starts and stops, then how it failed, or the modules it
# loaded (with those loaded before it) as JSON.
_CHILD = """\
import os, sys
sys.stderr = sys.stdout
_, module, token = sys.argv
before = set(sys.modules)
os.write(2, ("\\n%s start\\n" % token).encode())
try:
    __import__(module)
except BaseException as error:
    os.write(2, ("\\n%s stop\\n" % token).encode())
    import json, traceback
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not f.filename.startswith("<frozen ")]
    missing = getattr(error, "name", None) if isinstance(error, ImportError) else None
    text = traceback.format_exception_only(type(error), error)[-1].strip()
    where = [frames[-1].filename, frames[-1].lineno] if frames else None
    record = json.dumps([text, missing if isinstance(missing, str) else None, where])
    os.write(2, ("\\n%s failed %s\\n" % (token, record)).encode())
    os._exit(3)
loaded = sorted(set(sys.modules) - before)
os.write(2, ("\\n%s stop\\n" % token).encode())
import json
record = json.dumps([loaded, sorted(before)])
os.write(2, ("\\n%s loaded %s\\n" % (token, record)).encode())
os._exit(0)  # a thread the import started does not keep it running
"""

# One record of `-X importtime`: self and cumulative microseconds, then the module, indented
# two spaces per level of nesting. A record may follow text that the analysed code wrote to
# fd 2 without ending its line: the record is matched to the end of the line.
_RECORD = re.compile(r"import time:\s*(\d+) \|\s*(\d+) \|( +)(\S+)$")
_POLL_SECONDS = 0.02


@dataclass
class Timed:
    """A module's import as `-X importtime` times it, with the imports it ran."""

    module: str
    self_us: int
    cumulative_us: int
    children: list[Timed] = field(default_factory=list)


@dataclass(frozen=True)
class MeasureRequest:
    """What `closure --measure` was asked: the interpreter, the number of runs, the timeout."""

    python: str
    repeat: int
    timeout: float


def request_of(
    wanted: bool, python: str | None, repeat: int | None, timeout: float | None, form: str
) -> MeasureRequest | None:
    """Return what the command line asks to measure (None: nothing).

    Raises UsageError for a measuring option without --measure, or --measure with a format
    that cannot show numbers.
    """
    if not wanted:
        options = {"--python": python, "--repeat": repeat, "--timeout": timeout}
        given = [name for name, value in options.items() if value is not None]
        if given:
            verb = "goes" if len(given) == 1 else "go"
            raise UsageError(f"{' and '.join(given)} {verb} with --measure, which is not given.")
        return None
    if form not in ("text", "json"):
        raise UsageError(
            f"--measure shows its numbers as text or json, not {form}: give --format text or json."
        )
    return MeasureRequest(python or sys.executable, repeat or 1, timeout or 300.0)


@dataclass(frozen=True)
class Run:
    """One import of the module: what `-X importtime` timed (outermost first), the modules it
    loaded, and those loaded before it (at start-up)."""

    timed: list[Timed]
    loaded: frozenset[str]
    before: frozenset[str]


def read_run(output: str, token: str, module: str, python: str, status: int | None) -> Run:
    """Return the run that one child's stderr reports (`status`: the child's exit status).

    Raises MeasureError for an import that failed, or a child that did not run it.
    """
    pending: dict[int, list[Timed]] = {}
    timing = started = False
    for line in output.splitlines():
        if line == f"{token} start":
            timing = started = True
        elif line == f"{token} stop":
            timing = False
        elif line.startswith(f"{token} failed "):
            raise MeasureError(_failed(python, module, json.loads(line.split(" ", 2)[2])))
        elif line.startswith(f"{token} loaded "):
            loaded, before = json.loads(line.split(" ", 2)[2])
            if module in before:
                raise MeasureError(
                    f"{module} was loaded before {python} ran the import (by sitecustomize or "
                    "a .pth file): its import cannot be timed."
                )
            return Run(pending.get(0, []), frozenset(loaded), frozenset(before))
        elif timing and (found := _RECORD.search(line)):
            self_us, cumulative_us, indent, name = found.groups()
            depth = (len(indent) - 1) // 2
            # Records come innermost first: those one level deeper are this one's imports.
            timed = Timed(name, int(self_us), int(cumulative_us), pending.pop(depth + 1, []))
            pending.setdefault(depth, []).append(timed)
    if started:  # os._exit, a crash
        raise MeasureError(
            f"importing {module} with {python} ended its process (exit status {status}) before "
            "the import finished."
        )
    raise MeasureError(f"--python {python} did not import {module}: give a Python interpreter.")


def run_once(python: str, module: str, timeout: float) -> Run:
    """Return one import of `module` in a fresh `python -X importtime`.

    Raises MeasureError when the interpreter cannot be started, the import fails or does not
    finish in time.
    """
    token = secrets.token_hex(16)
    command = [python, "-X", "importtime", "-c", _CHILD, module, token]
    # A file, not a pipe: a process the import leaves running cannot hold the run open.
    with tempfile.TemporaryFile() as stderr, processes_ended_on_signals() as watch:
        try:
            with watch.starting():
                child = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=stderr,
                    cwd=os.getcwd(),
                    start_new_session=True,  # its own process group, killed at the end
                )
                watch.kill_with(functools.partial(kill_group, child.pid))
        except OSError as error:
            raise MeasureError(
                f"--python {python} cannot be run: {error.strerror or error}."
            ) from None
        with child:
            try:
                finished = _wait(child, timeout)
            finally:
                # Killed before it is reaped: its process group id cannot have been reused.
                kill_group(child.pid)
                watch.forget()
                child.wait()
        if not finished:
            raise MeasureError(
                f"importing {module} with {python} did not finish within {timeout:g} s "
                "(--timeout): it was killed."
            )
        stderr.seek(0)
        output = stderr.read().decode("utf-8", errors="replace")
    return read_run(output, token, module, python, child.returncode)


def _wait(child: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not has_exited(child):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_SECONDS)
    return True


def _failed(python: str, module: str, failure: list[Any]) -> str:
    """One line for an import that raised: a dependency the interpreter lacks, or an error of
    the analysed code, with where it was raised."""
    text, missing, where = failure
    shown = ""
    if isinstance(where, list):
        path = display_path(Path(str(where[0])))
        # A file of another environment is shown as it is, not by climbing out of this tree.
        shown = f" ({where[0] if path.startswith(os.pardir + os.sep) else path}:{where[1]})"
    if isinstance(missing, str) and not within(missing, [module.partition(".")[0]]):
        return (
            f"{python} has no module {missing}, which importing {module} needs{shown}: install "
            "it there, or give --python the interpreter of the project's environment."
        )
    return f"importing {module} with {python} raised {text}{shown}."


def measure(request: MeasureRequest, module: str) -> list[Run]:
    """Return the imports timed by each of `request.repeat` runs that import `module`."""
    return [run_once(request.python, module, request.timeout) for _ in range(request.repeat)]


@dataclass(frozen=True)
class _RunFigures:
    """One run's numbers, per module: self and cumulative time, the external packages it
    brought in, the module whose import was running when it was imported."""

    times: dict[str, tuple[int, int]]
    external: dict[str, dict[str, tuple[int, int]]]
    importer: dict[str, str | None]


def _figures(roots: list[Timed], internal: Callable[[str], bool]) -> _RunFigures:
    figures = _RunFigures({}, {}, {})

    def visit(timed: Timed, parent: str | None) -> None:
        figures.times.setdefault(timed.module, (timed.self_us, timed.cumulative_us))
        figures.importer.setdefault(timed.module, parent)
        if parent is not None and internal(parent) and not internal(timed.module):
            size = _size(timed)
            figures.external.setdefault(parent, {})[timed.module] = (timed.cumulative_us, size)
        for child in timed.children:
            visit(child, timed.module)

    for root in roots:
        visit(root, None)
    return figures


def _size(timed: Timed) -> int:
    return 1 + sum(_size(child) for child in timed.children)


def _median(values: Iterable[int]) -> int:
    return round(statistics.median(values))


class MeasuredClosure:
    """The static closure of a module with the numbers of its measured imports: the median of
    the runs, per module."""

    def __init__(
        self,
        request: MeasureRequest,
        module: str,
        reached_from: Mapping[str, str | None],
        runs: list[Run],
        root_packages: list[str],
        computed_imports: Mapping[str, list[tuple[int, str]]],
    ) -> None:
        self.request = request
        self.module = module
        self._reached_from = reached_from
        self._internal = functools.partial(within, packages=set(root_packages))
        figures = [_figures(run.timed, self._internal) for run in runs]
        self.loaded = frozenset().union(*(run.loaded for run in runs))
        self.before = frozenset().union(*(run.before for run in runs))
        loaded: dict[str, list[tuple[int, int]]] = {}
        for run in figures:
            for name, times in run.times.items():
                loaded.setdefault(name, []).append(times)
        self.times = {
            name: (_median(t[0] for t in found), _median(t[1] for t in found))
            for name, found in loaded.items()
        }
        self.external: dict[str, list[ExternalImport]] = {}
        for owner in {owner for f in figures for owner in f.external}:
            found_under = [f.external.get(owner, {}) for f in figures]
            names = {name for under in found_under for name in under}
            imports: list[ExternalImport] = [
                {
                    "module": name,
                    "cumulative_us": _median(u[name][0] for u in found_under if name in u),
                    "modules": _median(u[name][1] for u in found_under if name in u),
                }
                for name in names
            ]
            imports.sort(key=lambda found: (-found["cumulative_us"], found["module"]))
            self.external[owner] = imports
        # Who imported a module: as the first run that loaded it saw it.
        self._importer = {name: f.importer[name] for f in reversed(figures) for name in f.importer}
        self._computed_imports = computed_imports

    def cost(self, module: str) -> int:
        """Return what importing `module` costs by itself: its self time and the external
        packages it brought in."""
        return self.times[module][0] + sum(
            found["cumulative_us"] for found in self.external.get(module, [])
        )

    def chain(self, module: str) -> list[str]:
        """Return the static chain from the module asked about to `module`, as module names."""
        chain = [module]
        while (found := self._reached_from[chain[-1]]) is not None:
            chain.append(found)
        return chain[::-1]

    def ranked(self) -> list[RankedChain]:
        """Return the modules of the closure that ran, costliest first, with their chains."""
        found: list[RankedChain] = [
            {"module": name, "cost_us": self.cost(name), "chain": self.chain(name)}
            for name in self._reached_from
            if name in self.times
        ]
        found.sort(key=lambda ranked: (-ranked["cost_us"], ranked["module"]))
        return found

    def loaded_outside(self) -> list[LoadedOutside]:
        """Return the modules of the root packages that the import loaded though the closure
        lacks them."""
        return [
            {
                "module": name,
                "imported_while": self._importer.get(name),
                "why": self._why(name),
                "self_us": self.times.get(name, (None, None))[0],
                "cumulative_us": self.times.get(name, (None, None))[1],
            }
            for name in sorted(self.loaded)
            if self._internal(name) and name not in self._reached_from
        ]

    def _why(self, module: str) -> str:
        if module not in self.times:
            why = (
                "loaded by importlib (import_module, a loader), not by an import statement: "
                "-X importtime does not time it, and its time counts in the module whose "
                "import ran then"
            )
            computed = [
                f"{path}:{line} ({callee})"
                for path, found in sorted(self._computed_imports.items())
                for line, callee in found
            ]
            if computed:
                why += "; the closure's dynamic imports with a name computed at run time: "
                why += ", ".join(computed)
            return why
        importer = self._importer.get(module)
        if importer is None:
            return f"imported outside the import of {self.module} (by a thread, say)"
        running = f"imported during the import of {importer}"
        if not self._internal(importer):
            return (
                f"{running}, an external package whose imports the graph does not hold (a "
                "plugin or an entry point, say)"
            )
        if importer not in self._reached_from:
            return f"{running}, itself loaded outside the static closure"
        where = location(importer, None)
        computed_there = self._computed_imports.get(where["path"], []) if where else []
        if where and computed_there:
            line, callee = computed_there[0]
            return (
                f"{running}, whose {where['path']}:{line} runs {callee} with a module name "
                "computed at run time"
            )
        return f"{running}, by an import the static reading does not see"

    def not_loaded(self) -> list[str]:
        """Return the modules of the closure, of the root packages, that no run loaded (a
        branch not taken, say: the static closure counts every branch)."""
        return sorted(
            name
            for name in self._reached_from
            if self._internal(name) and name not in self.loaded | self.before
        )

    def add_to(self, module: str, entry: ClosureEntry) -> None:
        """Add a module's measured numbers to its entry of `closure`'s JSON."""
        entry["self_us"], entry["cumulative_us"] = self.times.get(module, (None, None))
        entry["external"] = self.external.get(module, [])

    def as_data(self) -> Measured:
        """Return the measurement as `closure --format json` shows it under `measured`."""
        return {
            "python": self.request.python,
            "runs": self.request.repeat,
            "cumulative_us": self.times[self.module][1],
            "ranked": self.ranked(),
            "loaded_outside_closure": self.loaded_outside(),
            "not_loaded": self.not_loaded(),
        }

    def text(self, shown: int = 10) -> str:
        """Return the measurement as `closure --measure` prints it after the static closure."""
        runs = "one run" if self.request.repeat == 1 else f"median of {self.request.repeat} runs"
        lines = [
            f"measured: importing {self.module} took {_ms(self.times[self.module][1])} "
            f"({self.request.python} -X importtime, {runs})",
            "costliest modules (measured: self time and the external packages each imported), "
            "each with its static chain:",
        ]
        ranked = self.ranked()
        for found in ranked[:shown]:
            name = found["module"]
            external = self.external.get(name, [])
            parts = [f"self {_ms(self.times[name][0])}"] + [
                f"{e['module']} {_ms(e['cumulative_us'])} ({_modules(e['modules'])})"
                for e in external[:_EXTERNAL_SHOWN]
            ]
            if len(external) > _EXTERNAL_SHOWN:
                parts.append(f"{len(external) - _EXTERNAL_SHOWN} more external imports")
            lines.append(f"  {_ms(found['cost_us']):>10}  {name}  ({'; '.join(parts)})")
            lines.append(f"              {' -> '.join(found['chain'])}")
        if len(ranked) > shown:
            lines.append(f"  ... and {len(ranked) - shown} more (--format json lists them all)")
        outside = self.loaded_outside()
        if outside:
            lines.append("loaded by the interpreter, not in the static closure:")
            for load in outside:
                took = load["cumulative_us"]
                shown_time = "not timed" if took is None else _ms(took)
                lines.append(f"  {load['module']}  ({shown_time}: {load['why']})")
        missed = self.not_loaded()
        if missed:
            lines.append("in the static closure, not loaded by the interpreter:")
            lines += [f"  {name}" for name in missed]
        return "\n".join(lines)


# In text, the costliest external imports of each module; the JSON has them all.
_EXTERNAL_SHOWN = 3


def _modules(count: int) -> str:
    return "1 module" if count == 1 else f"{count} modules"


def _ms(microseconds: int) -> str:
    return f"{microseconds / 1000:.1f} ms"
