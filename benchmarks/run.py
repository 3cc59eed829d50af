"""What the contracts cost, measured side by side in one run, as ratios.

    python benchmarks/run.py [--rounds 15] [--sizes 1000,10000,50000] [--scaling-rounds 3]
                             [--reach-sizes 1000,10000,20000,50000] [--reach-rounds 3]
                             [--diffusers-rounds 15] [--runtime-rounds 15] [--reader-size 10000]
                             [--only real|scaling|reach|diffusers|reader|runtime] [--write-docs]

The compiled build it measures beside the pure one is built first where it is stale
(`tools/compiled_build.py`, into the git-ignored .cache/venv-compiled).

It prints its tables as Markdown; --write-docs also writes them, after the method (below),
into docs/benchmarks.md, the documentation site's page.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import io
import operator
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "benchmarks"))

import synthetic_tree  # noqa: E402
from compiled_build import compiled_environment  # noqa: E402

from other_trees import RELEASES  # noqa: E402
from other_trees import tree as other_tree  # noqa: E402
from vllm_omni_tree import (  # noqa: E402
    NEWEST,
    ToolError,
    contract_options,
    runtime_environment,
    tree,
    use_project_environment,
)

FLOOR = """\
[importlinter]
root_package = {root}
exclude_type_checking_imports = true

[importlinter:contract:floor]
name = Floor
type = forbidden
source_modules = {source}
forbidden_modules = {forbidden}
"""

# The static contracts measured on diffusers 0.42.1: R2 twice (the quantization backends,
# the second forbidding one backend to import another) and R4 from the quantizer base classes,
# following the whole package.
DIFFUSERS = """\
[importlinter]
root_package = diffusers
exclude_type_checking_imports = true
contract_types =
    backend_isolation: importlinter_contracts.BackendIsolationContract
    eager_imports: importlinter_contracts.EagerImportContract

[importlinter:contract:quantizers-private]
name = Only a quantization backend imports itself
type = backend_isolation
container = diffusers.quantizers
backends = *
neutral_children =
    auto
    base
    pipe_quant_config
    quantization_config

[importlinter:contract:quantizers-private-no-cross]
name = Only a quantization backend imports itself, not even another backend
type = backend_isolation
container = diffusers.quantizers
backends = *
neutral_children =
    auto
    base
    pipe_quant_config
    quantization_config
cross_backend_imports = forbid

[importlinter:contract:quantizer-interface-loads-no-backend]
name = Importing the quantizer base classes loads no quantization backend
type = eager_imports
source_modules =
    diffusers.quantizers.base
    diffusers.quantizers.quantization_config
follow_modules =
    diffusers
forbidden_modules =
    diffusers.quantizers.autoround
    diffusers.quantizers.bfl
    diffusers.quantizers.bitsandbytes
    diffusers.quantizers.gguf
    diffusers.quantizers.modelopt
    diffusers.quantizers.nunchaku
    diffusers.quantizers.quanto
    diffusers.quantizers.sdnq
    diffusers.quantizers.torchao
"""
# The name of the configuration's R4, as lint-imports --show-timings prints it.
DIFFUSERS_R4 = "Importing the quantizer base classes loads no quantization backend"
DIFFUSERS_TRIVIAL = {
    "root": "diffusers",
    "source": "diffusers.utils.constants",
    "forbidden": "diffusers.pipelines",
}

# Reads every module file under a folder once, in one process: as a walk reads a file it
# reaches (`calls`: its first reading, then what its code calls at import time where it may
# call a function of the package), or with CPython's own parser (`ast`). What a cold run
# cannot do with less, on one core.
READ_EVERY_FILE = """\
import ast, os, sys
from importlinter_contracts.errors import UnreadableSourceError
from importlinter_contracts.eager.module_files import ReadingLevel, may_call, read_module_file
root, reader = sys.argv[1:]
package = os.path.basename(root)
for folder, _, names in os.walk(root):
    for name in names:
        if name.endswith(".py"):
            path = os.path.join(folder, name)
            if reader == "ast":
                with open(path, "rb") as file:
                    ast.parse(file.read(), path)
                continue
            record = read_module_file(path, os.stat(path).st_mtime)
            if record.level is not ReadingLevel.CALLS and may_call(
                record.callable_names, package.__eq__
            ):
                try:
                    record.read_calls()
                except UnreadableSourceError:
                    pass
"""

# The reader's time per file (`read_module_file`, what a walk does first with each file it
# reaches), in one process: every file's text read first, then read by the reader, best of 5,
# in CPU time (the machine's other processes count less).
READER_SPEED = """\
import os, sys, time
from importlinter_contracts.eager.module_files import read_module_file
root = sys.argv[1]
sources = []
for folder, _, names in os.walk(root):
    for name in names:
        if name.endswith(".py"):
            path = os.path.join(folder, name)
            with open(path, "rb") as file:
                sources.append((path, file.read()))
best = float("inf")
for _ in range(5):
    start = time.process_time()
    for path, source in sources:
        read_module_file(path, 0.0, source)
    best = min(best, time.process_time() - start)
print(len(sources), best / len(sources) * 1e6)
"""

# Generated by `python benchmarks/run.py --write-docs`: the page docs/benchmarks.md, what it
# measures first, then the tables of the run.
METHOD = f"""\
Every variant is a whole command run as a fresh process (interpreter start-up included), in
paired, interleaved rounds: each round runs every variant once, in turn (every other round in
reverse order), so that the machine's drift hits them alike; ratios are the medians of the
per-round ratios, and they are what to read: a machine's timings drift by about 10 % from one
run to the next. Bytecode caches are on, as on a user's machine, even when
`PYTHONDONTWRITEBYTECODE` is set (it would add the compilation of every imported module to
every run), and one unmeasured run of each variant comes first. "Cold" runs have no cache
(`--no-cache`); "warm" or "cached" ones have grimp's cache and this package's filled by a run
before, with nothing changed since.

**Real tree** (vllm-omni 0.30.0, fetched into the cache):

- *floor*: lint-imports with one built-in `forbidden` contract that costs nothing: the graph
  build itself;
- *static*: lint-imports with the shipped static contracts (R2, and R4 following all of
  `vllm_omni` and the calls made at import time);
- *ast walk*: `tools/ast_walk.py`, a whole-tree `ast` walk answering R2 and R4, as a
  hand-written test does (the tests' independent oracle too);

each cold and, for lint-imports, warm.

**Synthetic trees** of vllm-omni's shape (`benchmarks/synthetic_tree.py`: five backends,
neutral subsystems of 100 modules, module-level and function-level imports; R4 follows the
platforms): floor against static, cold, with each contract's check() time from
`--show-timings`. import-linter's timing of a contract includes the copy of the graph it makes
for it: the floor contract's time is that copy, which every contract pays and which grows
with the tree.

**Whole-package reach**: synthetic trees where importing any of five platform modules runs
every module (`synthetic_tree.write_reach_tree`: each module imports the next in a class body,
a `try`, an `if`, a `with`, at module level or inside a function it calls at import time, calls
a function of an earlier module at import time, and has imports that do not run), with R2 and
an R4 that follows the whole package, as the shipped configuration does for vllm-omni: floor
against static, cold and cached, with the ratios of wall time, CPU time and peak memory, and
R4's own check() time per 1,000 imports it reaches; and cached with one reached module's file
touched before each run (its modification time moved on, and given back after it), as after
an edit: grimp parses that file again, and R4 reads it again and asks it what its walks asked
it. A second table says what bounds a cold run: every module file read once in one process,
with the eager contract's reading of a file (*read every file*: its first reading, then what
its code calls at import time where it may call a function of the package, as a walk reads
it) and with CPython's own parser (*ast.parse every file*); R4's check() when it walks again
with every file's reading in its cache (its walk outcomes removed before each run), which is
what it does besides reading; *reading on two cores, and the walk*, half the first plus the
third, what a cold run would take were the reading split evenly between its two processes;
and *what 1.5x leaves*, half the floor's time, all the static contracts may add for a ratio of
1.5.

**Compiled and pure builds.** The *static* variants run the pure-Python package (the
repository's editable install); the *static compiled* ones run the compiled wheel of the same
tree (`tools/compiled_build.py` builds it into `.cache/venv-compiled`, where it is stale),
with the same import-linter and grimp, in the same paired rounds, each against the same
floor: on vllm-omni cold and warm, and on the whole-package-reach trees cold and cached (a
third table). *The reader, per file*: `read_module_file`, what a walk does first with each
file it reaches, over every file of a 10,000-module reach tree in one process, its text read
before, best of 5, each build's.

**diffusers 0.42.1** (`python3 tools/other_trees.py path diffusers` fetches its pure-Python
wheel once into the cache and keeps its `.py` files; the tree is on `PYTHONPATH`): lint-imports
with three static contracts, cold (`--no-cache`), against the trivial built-in contract
(*floor*: `forbidden`, `diffusers.utils.constants` against `diffusers.pipelines`), with each
contract's check() time; and what bounds a cold run there, as for the reach trees (*what 2.5x
leaves*: one and a half times the floor's time). The configuration, whose R4 follows the
whole package from the quantizer base classes (diffusers breaks all three contracts;
lint-imports exits with 1):

<!-- untested: the configuration benchmarks/run.py measures, written from the same text -->
```ini
{DIFFUSERS}```

**Runtime environment** (only once `python3 tools/vllm_omni_tree.py runtime` has prepared
it): its lint-imports on vllm-omni 0.30.0, warm, with nothing changed since the run before:
the shipped static contracts alone against the whole shipped configuration, whose runtime
contract reuses its probe's cached result: the price of having the runtime contract in `lint`.

**Reading the tables.** Warm, the eager contract reads no file: it reports what its walks found
in the run before, after a `stat` of each file they read. Cold, it reads in Python each file
that the walks reach, while grimp parses every file in Rust on both cores; from 500 modules to
read, a second process reads files ahead of the walks, those they say they will reach first. A
cold run of this design reads every reached file at least once and walks every reached import:
the bound table shows what that costs against the floor. Reading with CPython's own parser
would not lower it (`ast.parse` builds a whole tree of Python objects, where the reading builds
only what it is asked); what would is grimp's own parse reporting the scope of each import and
the calls made at import time.

**What bounds the cold run on diffusers.** R4 follows the whole package from two modules and
reaches 1,061 of them, almost every one making calls at import time: each file is read once, by
one of the two processes (its outline, then its code at import time with `ast`, each function's
body only when a call runs it; the 147 `__init__.py` that put a `_LazyModule` in their place in
`sys.modules` with `ast` whole). Its bound table says where that leaves a cold run: reading
every file as a walk does takes about as long on one core as R4's whole cold check, so about
half of it on two; the walk with every reading cached (following each module's calls once, the
modules grimp reports each reached module imports, and the smallest cut of the broken contract
over the walks' 10,726 hops: two maximum flows, and whether the two files it asks about can
defer their imports) takes about half of it again. Their sum is about R4's cold check: the two
processes are busy for all of it. (The walk again takes from the cache which of each module's
imports run at import time, which a cold run works out in its first process from grimp's line
of each import: the bound is, if anything, higher.) A ratio of 2.5 would leave the static
contracts less time than either half takes alone: this design, which reads each reached file in
Python, cannot reach it there; what could is grimp's own parse reporting the scope of each
import and the calls made at import time, or a reader in compiled code.
"""

DOCS_PAGE = REPO / "docs" / "benchmarks.md"


@dataclass
class Run:
    seconds: float
    cpu_seconds: float
    peak_mb: float
    output: str


# What a ratio compares.
WALL, CPU, PEAK = (operator.attrgetter(a) for a in ("seconds", "cpu_seconds", "peak_mb"))


@dataclass
class Variant:
    name: str
    command: list[str]
    runs: list[Run] = field(default_factory=list)
    # Done around each run, unmeasured.
    before: Callable[[], None] | None = None
    after: Callable[[], None] | None = None
    # Its exit status: 1 where its contracts are broken.
    status: int = 0

    @property
    def median(self) -> float:
        return statistics.median(run.seconds for run in self.runs)

    @property
    def peak_mb(self) -> float:
        return max(run.peak_mb for run in self.runs)


def measure(command: list[str], cwd: Path, env: dict[str, str], expected: int = 0) -> Run:
    """Run a command, which must exit with `expected`; its wall time, its peak resident
    memory, and what it printed."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode(errors="replace")
    if child.returncode != expected:
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}:\n{output}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output)


def interleave(variants: list[Variant], rounds: int, cwd: Path, env: dict[str, str]) -> None:
    """Each round runs every variant once; every other round in reverse order, so that no
    variant always runs first or after the same neighbour."""
    for number in range(rounds):
        for variant in variants if number % 2 == 0 else variants[::-1]:
            if variant.before is not None:
                variant.before()
            variant.runs.append(measure(variant.command, cwd, env, variant.status))
            if variant.after is not None:
                variant.after()


def paired_ratio(
    numerator: Variant, denominator: Variant, pick: Callable[[Run], float] = WALL
) -> float:
    """The median of the per-round ratios of what `pick` takes from a run (wall time)."""
    return statistics.median(
        pick(a) / pick(b) for a, b in zip(numerator.runs, denominator.runs, strict=True)
    )


def contract_timings(output: str) -> dict[str, float]:
    """Each contract's check() time, from lint-imports --show-timings."""
    return {
        name: float(seconds)
        for name, seconds in re.findall(
            r"^(.+?) (?:KEPT|BROKEN).*\[(\d+(?:\.\d+)?)s\]$", output, re.M
        )
    }


def check_times(variant: Variant) -> str:
    """Each contract's median check() time."""
    medians = {
        name: 1000 * statistics.median(contract_timings(run.output)[name] for run in variant.runs)
        for name in contract_timings(variant.runs[0].output)
    }
    return ", ".join(f"{name}: {ms:.0f} ms" for name, ms in medians.items())


def graph_build_seconds(output: str) -> float:
    match = re.search(r"│\s+(\d+\.\d+)s\s+│", output)
    return float(match.group(1)) if match else float("nan")


def median_of(variant: Variant, pick: Callable[[Run], float]) -> float:
    return statistics.median(pick(run) for run in variant.runs)


def environment(pythonpath: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(pythonpath)}


def real_tree(rounds: int, scripts: Path, compiled: Path) -> None:
    release = tree(NEWEST)
    env = environment(release)
    work = Path(tempfile.mkdtemp(prefix="benchmark-"))
    (work / "floor.ini").write_text(
        FLOOR.format(
            root="vllm_omni",
            source="vllm_omni.platforms.cuda.platform",
            forbidden="vllm_omni.platforms.npu.platform",
        )
    )
    static = contract_options(runtime=False)
    lint = [str(scripts / "lint-imports"), "--no-logo", "--show-timings"]
    warm_cache = ["--cache-dir", str(work / "cache")]
    compiled_lint = [str(compiled / "lint-imports"), *lint[1:]]
    config = str(REPO / ".importlinter")
    compiled_cache = ["--cache-dir", str(work / "compiled-cache")]
    variants = [
        Variant("floor, cold", [*lint, "floor.ini", "--no-cache"]),
        Variant("static, cold", [*lint, config, *static, "--no-cache"]),
        Variant("floor, warm", [*lint, "floor.ini", *warm_cache]),
        Variant("static, warm", [*lint, config, *static, *warm_cache]),
        Variant("ast walk", [sys.executable, str(REPO / "tools" / "ast_walk.py"), str(release)]),
        Variant("static compiled, cold", [*compiled_lint, config, *static, "--no-cache"]),
        # Its own cache: the pure and the compiled builds' code identities are the same.
        Variant("static compiled, warm", [*compiled_lint, config, *static, *compiled_cache]),
    ]
    for variant in variants:  # fill the caches, grimp's and Python's bytecode
        measure(variant.command, work, env)
    interleave(variants, rounds, work, env)
    shutil.rmtree(work)

    floor_cold, static_cold, floor_warm, static_warm, walk, compiled_cold, compiled_warm = variants
    print(f"## vllm-omni {NEWEST} ({rounds} paired rounds)\n")

    def graph_build(variant: Variant) -> str:
        if variant is walk:
            return ""
        return f"{median_of(variant, lambda r: graph_build_seconds(r.output)):.3f} s"

    print_variants(
        variants,
        [
            ("graph build", "---:", graph_build),
            ("contracts' check()", "---", lambda v: "" if v is walk else check_times(v)),
        ],
    )
    print_ratios(
        [
            ("static / floor, cold", static_cold, floor_cold, 3),
            ("static / floor, warm", static_warm, floor_warm, 3),
            ("static compiled / floor, cold", compiled_cold, floor_cold, 3),
            ("static compiled / floor, warm", compiled_warm, floor_warm, 3),
            ("ast walk / static, cold", walk, static_cold, 1),
        ]
    )


# A column of `print_variants`: its heading, its alignment ("---", "---:" for numbers) and
# its cell in a variant's row.
Column = tuple[str, str, Callable[[Variant], str]]


def print_variants(variants: list[Variant], columns: list[Column]) -> None:
    """Print a table of each variant's median wall time, CPU time and peak memory, then
    its cells of `columns`."""
    headings = [heading for heading, _, _ in columns]
    print(table_row(["variant", "median", "CPU", "peak memory", *headings]))
    print(table_row(["---", "---:", "---:", "---:", *(align for _, align, _ in columns)]))
    for variant in variants:
        cpu = median_of(variant, lambda r: r.cpu_seconds)
        cells = [
            variant.name,
            f"{variant.median:.3f} s",
            f"{cpu:.3f} s",
            f"{variant.peak_mb:.0f} MB",
            *(cell(variant) for _, _, cell in columns),
        ]
        print(table_row(cells))
    print()


def table_row(cells: list[str]) -> str:
    """A row of a Markdown table."""
    return "| " + " | ".join(cells) + " |"


def print_ratios(rows: list[tuple[str, Variant, Variant, int]]) -> None:
    """Print a table of the paired ratios, wall and CPU, of each row's two variants (its
    label, the numerator, the denominator, and how many digits)."""
    print("| ratio (median of paired rounds) | wall | CPU |")
    print("| --- | ---: | ---: |")
    for label, numerator, denominator, digits in rows:
        wall = paired_ratio(numerator, denominator)
        cpu = paired_ratio(numerator, denominator, CPU)
        print(f"| {label} | {wall:.{digits}f} | {cpu:.{digits}f} |")
    print()


def runtime(rounds: int) -> None:
    venv = runtime_environment()
    if venv is None:
        print("## Runtime environment: not prepared (python tools/vllm_omni_tree.py runtime)\n")
        return
    env = environment(tree(NEWEST))
    work = Path(tempfile.mkdtemp(prefix="benchmark-runtime-"))
    static = contract_options(runtime=False)
    lint = [str(venv / "bin" / "lint-imports"), str(REPO / ".importlinter"), "--no-logo"]
    cache = ["--show-timings", "--cache-dir", str(work / "cache")]
    variants = [
        Variant("static only", [*lint, *static, *cache]),
        Variant("all three, nothing changed", [*lint, *cache]),
    ]
    for variant in variants:  # fill the caches: grimp's, the probe's result, bytecode
        measure(variant.command, work, env)
    interleave(variants, rounds, work, env)
    shutil.rmtree(work)

    static_only, all_three = variants
    runtime_name = next(
        name for name in contract_timings(all_three.runs[0].output) if "run time" in name
    )
    print(f"## Runtime environment, vllm-omni {NEWEST}, warm ({rounds} paired rounds)\n")
    reran = sum("from the cache" not in run.output for run in all_three.runs)
    print(f"The probe ran again in {reran} of the {rounds} runs of all three.\n")
    check_ms = 1000 * median_of(all_three, lambda r: contract_timings(r.output)[runtime_name])
    print_variants(
        variants,
        [
            (
                "runtime contract's check()",
                "---:",
                lambda v: f"{check_ms:.0f} ms" if v is all_three else "",
            )
        ],
    )
    print_ratios([("all three / static only", all_three, static_only, 3)])


def scaling(sizes: list[int], rounds: int, scripts: Path) -> None:
    print(f"## Synthetic trees ({rounds} paired rounds, cold)\n")
    print(
        "| modules | floor | static | static / floor (wall) | (CPU) | floor's check() "
        "| R2 check() | R4 check() | contracts' share |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in sizes:
        work = Path(tempfile.mkdtemp(prefix=f"benchmark-{size}-"))
        written = synthetic_tree.write_tree(work, size)
        (work / "static.ini").write_text(synthetic_tree.configuration())
        (work / "floor.ini").write_text(
            FLOOR.format(
                root="synth",
                source="synth.platforms.cuda.platform",
                forbidden="synth.platforms.npu.platform",
            )
        )
        lint = [str(scripts / "lint-imports"), "--no-logo", "--show-timings", "--no-cache"]
        floor = Variant("floor", [*lint, "floor.ini"])
        static = Variant("static", [*lint, "static.ini"])
        env = environment(work)
        for variant in (floor, static):  # Python's bytecode caches
            measure(variant.command, work, env)
        interleave([floor, static], rounds, work, env)
        shutil.rmtree(work)
        copy = median_of(floor, lambda r: contract_timings(r.output)["Floor"])
        r2 = median_of(static, lambda r: contract_timings(r.output)["R2"])
        r4 = median_of(static, lambda r: contract_timings(r.output)["R4"])
        print(
            f"| {written:,} | {floor.median:.2f} s | {static.median:.2f} s "
            f"| {paired_ratio(static, floor):.3f} | {paired_ratio(static, floor, CPU):.3f} "
            f"| {copy * 1000:.0f} ms | {r2 * 1000:.0f} ms | {r4 * 1000:.0f} ms "
            f"| {(r2 + r4) / static.median:.1%} |"
        )
    print()


def reach(sizes: list[int], rounds: int, scripts: Path, compiled: Path) -> None:
    print(f"## Whole-package reach ({rounds} paired rounds)\n")
    print(
        "| modules | imports | floor cold | static cold | ratio | (CPU) | peak memory "
        "| R4 check() | floor cached | static cached | ratio | (CPU) | peak memory "
        "| R4 check() | per 1,000 imports | floor, one file touched "
        "| static, one file touched | ratio | (CPU) | peak memory | R4 check() |"
    )
    print("| ---: " * 21 + "|")
    bounds: list[str] = []  # the rows of the second table
    builds: list[str] = []  # and of the third
    for size in sizes:
        work = Path(tempfile.mkdtemp(prefix=f"benchmark-reach-{size}-"))
        written = synthetic_tree.write_reach_tree(work, size)
        # Imported by every platform module. Touched before each run of the variants that
        # measure an edit, and given its time back after it, for the others.
        touched = work / "reach" / "registry.py"
        untouched = touched.stat().st_mtime_ns

        def touch(touched: Path = touched) -> None:
            now = time.time_ns()
            os.utime(touched, ns=(now, now))

        def untouch(touched: Path = touched, untouched: int = untouched) -> None:
            os.utime(touched, ns=(untouched, untouched))

        (work / "static.ini").write_text(synthetic_tree.reach_configuration())
        (work / "floor.ini").write_text(
            FLOOR.format(
                root="reach",
                source="reach.platforms.cuda.platform",
                forbidden="reach.platforms.npu.platform",
            )
        )
        lint = [str(scripts / "lint-imports"), "--no-logo", "--show-timings"]
        compiled_lint = [str(compiled / "lint-imports"), *lint[1:]]
        variants = [
            Variant("floor, cold", [*lint, "floor.ini", "--no-cache"]),
            Variant("static, cold", [*lint, "static.ini", "--no-cache"]),
            # Each its own cache, filled by the unmeasured run below.
            Variant("floor, cached", [*lint, "floor.ini", "--cache-dir", "floor-cache"]),
            Variant("static, cached", [*lint, "static.ini", "--cache-dir", "static-cache"]),
            Variant(
                "floor, one file touched",
                [*lint, "floor.ini", "--cache-dir", "floor-cache-touched"],
                before=touch,
                after=untouch,
            ),
            Variant(
                "static, one file touched",
                [*lint, "static.ini", "--cache-dir", "static-cache-touched"],
                before=touch,
                after=untouch,
            ),
            *bound_variants(work / "reach", [*lint, "static.ini"], work / "static-cache-walk"),
            Variant("static compiled, cold", [*compiled_lint, "static.ini", "--no-cache"]),
            Variant(
                "static compiled, cached",
                [*compiled_lint, "static.ini", "--cache-dir", "static-cache-compiled"],
            ),
        ]
        env = environment(work)
        for variant in variants:  # Python's bytecode caches, and the cached variants' caches
            measure(variant.command, work, env)
        interleave(variants, rounds, work, env)
        shutil.rmtree(work)
        imports = int(
            re.findall(r"Analyzed \d+ files, (\d+) dependencies", variants[0].runs[0].output)[0]
        )
        cells = [f"{written:,}", f"{imports:,}"]
        for floor, static in (variants[:2], variants[2:4], variants[4:6]):
            r4 = median_of(static, lambda r: contract_timings(r.output)["R4"])
            cells += [
                f"{floor.median:.2f} s",
                f"{static.median:.2f} s",
                f"{paired_ratio(static, floor):.2f}",
                f"{paired_ratio(static, floor, CPU):.2f}",
                f"{paired_ratio(static, floor, PEAK):.2f}",
                f"{r4 * 1000:.0f} ms",
            ]
            if static is variants[3]:
                cells.append(f"{r4 * 1000 / imports * 1000:.1f} ms")
        print(table_row(cells))
        floor, read_outline, read_ast, walking = variants[0], *variants[6:9]
        walk = median_of(walking, lambda r: contract_timings(r.output)["R4"])
        pure_cold, pure_cached = variants[1], variants[3]
        compiled_cold, compiled_cached = variants[9:]
        compiled_r4 = median_of(compiled_cold, lambda r: contract_timings(r.output)["R4"])
        builds.append(
            f"| {written:,} | {paired_ratio(pure_cold, floor):.2f} "
            f"| {paired_ratio(compiled_cold, floor):.2f} | {compiled_r4 * 1000:.0f} ms "
            f"| {paired_ratio(pure_cached, variants[2]):.3f} "
            f"| {paired_ratio(compiled_cached, variants[2]):.3f} |"
        )
        bounds.append(
            f"| {written:,} | {floor.median:.2f} s | {floor.median / 2:.2f} s "
            f"| {read_outline.median:.2f} s | {read_ast.median:.2f} s "
            f"| {paired_ratio(read_ast, read_outline):.2f} | {walk:.2f} s "
            f"| {read_outline.median / 2 + walk:.2f} s |"
        )
    print()
    print(
        "| modules | floor, cold | what 1.5x leaves | read every file | ast.parse every file "
        "| ratio | R4 check(), walking again | reading on two cores, and the walk |"
    )
    print("| ---: " * 8 + "|")
    print("\n".join(bounds))
    print()
    print(
        "| modules | pure / floor, cold | compiled / floor, cold | compiled R4 check(), cold "
        "| pure / floor, cached | compiled / floor, cached |"
    )
    print("| ---: " * 6 + "|")
    print("\n".join(builds))
    print()


def bound_variants(package: Path, static: list[str], cache: Path, status: int = 0) -> list[Variant]:
    """What bounds a cold run of the `static` lint-imports command on `package`'s folder: every
    file read as a walk reads it, then with `ast.parse`, in one process; and the command
    walking again with every reading in the `cache` folder (its walk outcomes removed before
    each run), whose exit status is `status`."""
    # (Imported here: this script runs first in any Python, which may not have the package.)
    from importlinter_contracts.eager.outcomes import OUTCOMES_FILE

    def forget_outcomes(outcomes: Path = cache / OUTCOMES_FILE) -> None:
        outcomes.unlink(missing_ok=True)

    read = [sys.executable, "-c", READ_EVERY_FILE, str(package)]
    return [
        Variant("read every file", [*read, "calls"]),
        Variant("ast.parse every file", [*read, "ast"]),
        Variant(
            "static, walking again",
            [*static, "--cache-dir", str(cache)],
            before=forget_outcomes,
            status=status,
        ),
    ]


def diffusers(rounds: int, scripts: Path) -> None:
    """The static contracts of `DIFFUSERS` against the trivial one, cold, on diffusers."""
    release = other_tree("diffusers")
    env = environment(release)
    work = Path(tempfile.mkdtemp(prefix="benchmark-diffusers-"))
    (work / "floor.ini").write_text(FLOOR.format(**DIFFUSERS_TRIVIAL))
    (work / "static.ini").write_text(DIFFUSERS)
    lint = [str(scripts / "lint-imports"), "--no-logo", "--show-timings"]
    variants = [
        Variant("floor, cold", [*lint, "--no-cache", "floor.ini"]),
        # diffusers 0.42.1 breaks all three contracts.
        Variant("static, cold", [*lint, "--no-cache", "static.ini"], status=1),
        *bound_variants(
            release / "diffusers", [*lint, "static.ini"], work / "walk-cache", status=1
        ),
    ]
    for variant in variants:  # Python's bytecode caches, and the walk's cache of readings
        measure(variant.command, work, env, variant.status)
    interleave(variants, rounds, work, env)
    shutil.rmtree(work)

    floor, static, read_every, read_ast, walking = variants
    print(f"## diffusers {RELEASES['diffusers'].version} ({rounds} paired rounds, cold)\n")
    print_variants(
        variants,
        [
            (
                "graph build",
                "---:",
                lambda v: f"{median_of(v, lambda r: graph_build_seconds(r.output)):.3f} s",
            ),
            ("contracts' check()", "---", check_times),
        ],
    )
    print_ratios([("static / floor, cold", static, floor, 2)])
    walk = median_of(walking, lambda r: contract_timings(r.output)[DIFFUSERS_R4])
    print("| floor, cold | what 2.5x leaves | read every file | ast.parse every file ", end="")
    print("| R4 check(), walking again | reading on two cores, and the walk |")
    print("| ---: " * 6 + "|")
    print(
        f"| {floor.median:.2f} s | {floor.median * 1.5:.2f} s | {read_every.median:.2f} s "
        f"| {read_ast.median:.2f} s | {walk:.2f} s | {read_every.median / 2 + walk:.2f} s |\n"
    )


def reader_speed(size: int, builds: dict[str, Path]) -> None:
    """The reader's µs per file, each build's, on a whole-package-reach tree."""
    work = Path(tempfile.mkdtemp(prefix=f"benchmark-reader-{size}-"))
    synthetic_tree.write_reach_tree(work, size)
    print("## The reader, per file (best of 5, in one process)\n")
    print("| build | files | read_module_file |")
    print("| --- | ---: | ---: |")
    for name, python in builds.items():
        out = subprocess.run(
            [str(python), "-c", READER_SPEED, "reach"],
            cwd=work,
            env=environment(work),
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        print(f"| {name} | {int(out[0]):,} | {float(out[1]):.1f} µs |")
    print()
    shutil.rmtree(work)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=f"{__doc__}\n{METHOD}", formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15, help="paired rounds on the real tree")
    parser.add_argument(
        "--sizes",
        default="1000,10000,50000",
        help="synthetic tree sizes, in modules (empty: no scaling runs)",
    )
    parser.add_argument(
        "--scaling-rounds", type=int, default=3, help="paired rounds per synthetic tree"
    )
    parser.add_argument(
        "--reach-sizes",
        default="1000,10000,20000,50000",
        help="whole-package-reach tree sizes, in modules (empty: no such runs)",
    )
    parser.add_argument(
        "--reach-rounds", type=int, default=3, help="paired rounds per whole-package-reach tree"
    )
    parser.add_argument(
        "--diffusers-rounds", type=int, default=15, help="paired rounds on diffusers"
    )
    parser.add_argument(
        "--runtime-rounds", type=int, default=15, help="paired rounds in the runtime environment"
    )
    parser.add_argument(
        "--reader-size", type=int, default=10000, help="reach tree size for the reader's speed"
    )
    parser.add_argument(
        "--only",
        choices=["real", "scaling", "reach", "diffusers", "reader", "runtime"],
        help="run only this part",
    )
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help=f"also write the method and the tables into {DOCS_PAGE.relative_to(REPO)}",
    )
    args = parser.parse_args()
    try:
        # Any Python runs the benchmark: run again by the repository's .venv if need be.
        scripts = use_project_environment()
        # The compiled build of the same tree, built and installed first where it is stale;
        # only for the parts that measure it, since a build takes minutes.
        measures_compiled = args.only in (None, "real", "reach", "reader")
        compiled = compiled_environment().parent if measures_compiled else None
    except ToolError as error:
        print(f"benchmarks/run.py: {error}", file=sys.stderr)
        sys.exit(2)
    except subprocess.CalledProcessError as error:
        print(f"benchmarks/run.py: `{' '.join(map(str, error.cmd))}` failed.", file=sys.stderr)
        sys.exit(2)
    tables = io.StringIO()
    with contextlib.redirect_stdout(Tee(sys.stdout, tables)):
        print(f"{machine()}\n\nRun as `python benchmarks/run.py {' '.join(sys.argv[1:])}`.\n")
        print(load("at the start"))
        if compiled is not None and args.only in (None, "real"):
            real_tree(args.rounds, scripts, compiled)
        sizes = [int(size) for size in args.sizes.split(",") if size]
        if sizes and args.only in (None, "scaling"):
            scaling(sizes, args.scaling_rounds, scripts)
        reach_sizes = [int(size) for size in args.reach_sizes.split(",") if size]
        if compiled is not None and reach_sizes and args.only in (None, "reach"):
            reach(reach_sizes, args.reach_rounds, scripts, compiled)
        if args.only in (None, "diffusers"):
            diffusers(args.diffusers_rounds, scripts)
        if compiled is not None and args.only in (None, "reader"):
            reader_speed(
                args.reader_size, {"pure": scripts / "python", "compiled": compiled / "python"}
            )
        if args.only in (None, "runtime"):
            runtime(args.runtime_rounds)
        print(load("at the end"))
    if args.write_docs:
        # Imported here: this script runs first in any Python, which may not have the package.
        from importlinter_contracts.files import write_atomically

        write_atomically(DOCS_PAGE, docs_page(tables.getvalue()).encode())
        print(f"wrote {DOCS_PAGE.relative_to(REPO)}", file=sys.stderr)


def machine() -> str:
    """The machine and the versions measured, in one line."""
    versions = ", ".join(
        f"{name} {importlib.metadata.version(name)}" for name in ("import-linter", "grimp")
    )
    return (
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {versions}."
    )


def load(when: str) -> str:
    """The machine's load average (other processes share its cores: the ratios, paired,
    hold better than the times), as a line of the page."""
    one, five, _ = os.getloadavg()
    return f"Load average {when}: {one:.1f} (1 minute), {five:.1f} (5 minutes).\n"


def docs_page(tables: str) -> str:
    """The documentation site's benchmark page: the method, then a run's tables."""
    # The tables' headings are a level below the page's.
    tables = re.sub(r"^## ", "### ", tables, flags=re.M)
    return (
        "<!-- Generated by `python benchmarks/run.py --write-docs`: edit the script, not this"
        " page. -->\n\n# What it costs\n\n## Method\n\n"
        f"{METHOD}\n## Latest tables\n\n{tables.rstrip()}\n"
    )


class Tee(io.TextIOBase):
    """Writes to several text streams at once."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)


if __name__ == "__main__":
    main()
