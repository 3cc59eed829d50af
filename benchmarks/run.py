"""What the contracts cost, measured side by side in one run, as ratios.

    python benchmarks/run.py [--rounds 15] [--sizes 1000,10000,50000] [--scaling-rounds 3]
                             [--reach-sizes 1000,10000,20000,50000] [--reach-rounds 3]
                             [--runtime-rounds 15] [--only real|scaling|reach|runtime]

Every variant is a whole command run as a fresh process (interpreter start-up included), in
paired, interleaved rounds: each round runs every variant once, in turn (every other round in
reverse order), so that the machine's drift hits them alike; ratios are the medians of the
per-round ratios. Bytecode caches are on, as on a user's machine, even when
PYTHONDONTWRITEBYTECODE is set (it would add the compilation of every imported module to every
run), and one unmeasured run of each variant comes first.

Real tree (vllm-omni 0.30.0, fetched into the cache):
  floor          lint-imports with one built-in `forbidden` contract that costs nothing: the
                 graph build itself
  static         lint-imports with the shipped static contracts (R2 and R4)
  ast walk       tools/ast_walk.py: a whole-tree `ast` walk answering R2 and R4, as a
                 hand-written test does
each cold (--no-cache) and, for lint-imports, warm (cache filled by a run before).

Runtime environment (only once `python tools/vllm_omni_tree.py runtime` has prepared it): its
lint-imports on vllm-omni 0.30.0, warm, nothing changed since the run before:
  static only    the shipped static contracts (R2 and R4)
  all three      the shipped configuration, the runtime contract included, whose probe's
                 result the cache holds: the price of having the runtime contract in `lint`

Scaling: synthetic trees of vllm-omni's shape (benchmarks/synthetic_tree.py), floor against
static, cold; with each contract's check() time from --show-timings. import-linter's timing of
a contract includes the copy of the graph it makes for it: the floor contract's time is that
copy, which every contract pays and which grows with the tree.

Whole-package reach: synthetic trees where importing a platform module runs every module
(`synthetic_tree.write_reach_tree`), with R2 and an R4 that follows the whole package, as
the shipped configuration does for vllm-omni: floor against static, each cold (--no-cache)
and cached (cache filled by a run before), with the ratios of wall time, CPU time and peak
memory, and the eager contract's own check() time against the imports it reaches; and cached
with one reached module's file touched before each run (its modification time moved on, and
given back after it), as after an edit: grimp parses that file again, and the eager contract
reads it again and asks it what its walks asked it (an edit that changed an answer would make
it walk again). A second table says what bounds a cold run: every file read once in one
process, with the eager contract's first reading of a file and with `ast.parse`; and R4's
check() when it walks again with every file's reading in its cache (its walk outcomes removed
before each run), which is what it does besides reading.
"""

from __future__ import annotations

import argparse
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "benchmarks"))

import synthetic_tree  # noqa: E402

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

# Reads every module file under a folder once, in one process: with the cheapest reading the
# eager contract makes of a file (`outline`: what it reads of each reached file first), or
# with CPython's own parser (`ast`). What a cold run cannot do with less, on one core.
READ_EVERY_FILE = """\
import ast, os, sys
from importlinter_contracts.eager.module_files import read_module_file
root, reader = sys.argv[1:]
for folder, _, names in os.walk(root):
    for name in names:
        if name.endswith(".py"):
            path = os.path.join(folder, name)
            if reader == "ast":
                with open(path, "rb") as file:
                    ast.parse(file.read(), path)
            else:
                read_module_file(path, os.stat(path).st_mtime)
"""


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

    @property
    def median(self) -> float:
        return statistics.median(run.seconds for run in self.runs)

    @property
    def peak_mb(self) -> float:
        return max(run.peak_mb for run in self.runs)


def measure(command: list[str], cwd: Path, env: dict[str, str]) -> Run:
    """Run a command; its wall time, its peak resident memory, and what it printed."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode(errors="replace")
    if child.returncode not in (0,):
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}:\n{output}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output)


def interleave(variants: list[Variant], rounds: int, cwd: Path, env: dict[str, str]) -> None:
    """Each round runs every variant once; every other round in reverse order, so that no
    variant always runs first or after the same neighbour."""
    for number in range(rounds):
        for variant in variants if number % 2 == 0 else variants[::-1]:
            if variant.before is not None:
                variant.before()
            variant.runs.append(measure(variant.command, cwd, env))
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


def real_tree(rounds: int, scripts: Path) -> None:
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
    variants = [
        Variant("floor, cold", [*lint, "floor.ini", "--no-cache"]),
        Variant("static, cold", [*lint, str(REPO / ".importlinter"), *static, "--no-cache"]),
        Variant("floor, warm", [*lint, "floor.ini", *warm_cache]),
        Variant("static, warm", [*lint, str(REPO / ".importlinter"), *static, *warm_cache]),
        Variant("ast walk", [sys.executable, str(REPO / "tools" / "ast_walk.py"), str(release)]),
    ]
    for variant in variants:  # fill the caches, grimp's and Python's bytecode
        measure(variant.command, work, env)
    interleave(variants, rounds, work, env)
    shutil.rmtree(work)

    floor_cold, static_cold, floor_warm, static_warm, walk = variants
    print(f"## vllm-omni {NEWEST} ({rounds} paired rounds)\n")
    print("| variant | median | CPU | peak memory | graph build | contracts' check() |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for variant in variants:
        if variant is walk:
            build, checks = "", ""
        else:
            build = f"{median_of(variant, lambda r: graph_build_seconds(r.output)):.3f} s"
            checks = check_times(variant)
        cpu = median_of(variant, lambda r: r.cpu_seconds)
        print(
            f"| {variant.name} | {variant.median:.3f} s | {cpu:.3f} s | {variant.peak_mb:.0f} MB "
            f"| {build} | {checks} |"
        )
    print()
    print("| ratio (median of paired rounds) | wall | CPU |")
    print("| --- | ---: | ---: |")
    for label, a, b, digits in (
        ("static / floor, cold", static_cold, floor_cold, 3),
        ("static / floor, warm", static_warm, floor_warm, 3),
        ("ast walk / static, cold", walk, static_cold, 1),
    ):
        wall, cpu = paired_ratio(a, b), paired_ratio(a, b, CPU)
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
    print("| variant | median | CPU | peak memory | runtime contract's check() |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for variant in variants:
        cpu = median_of(variant, lambda r: r.cpu_seconds)
        check = f"{check_ms:.0f} ms" if variant is all_three else ""
        print(
            f"| {variant.name} | {variant.median:.3f} s | {cpu:.3f} s "
            f"| {variant.peak_mb:.0f} MB | {check} |"
        )
    print()
    print("| ratio (median of paired rounds) | wall | CPU |")
    print("| --- | ---: | ---: |")
    wall, cpu = paired_ratio(all_three, static_only), paired_ratio(all_three, static_only, CPU)
    print(f"| all three / static only | {wall:.3f} | {cpu:.3f} |")
    print()


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


def reach(sizes: list[int], rounds: int, scripts: Path) -> None:
    # (Imported here: this script runs first in any Python, which may not have the package.)
    from importlinter_contracts.eager.outcomes import OUTCOMES_FILE

    print(f"## Whole-package reach ({rounds} paired rounds)\n")
    print(
        "| modules | imports | floor cold | static cold | ratio | (CPU) | peak memory "
        "| R4 check() | floor cached | static cached | ratio | (CPU) | peak memory "
        "| R4 check() | per 1,000 imports | floor, one file touched "
        "| static, one file touched | ratio | (CPU) | peak memory | R4 check() |"
    )
    print("| ---: " * 21 + "|")
    bounds: list[str] = []  # the rows of the second table
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

        def forget_outcomes(outcomes: Path = work / "static-cache-walk" / OUTCOMES_FILE) -> None:
            outcomes.unlink(missing_ok=True)

        read = [sys.executable, "-c", READ_EVERY_FILE, "reach"]
        (work / "static.ini").write_text(synthetic_tree.reach_configuration())
        (work / "floor.ini").write_text(
            FLOOR.format(
                root="reach",
                source="reach.platforms.cuda.platform",
                forbidden="reach.platforms.npu.platform",
            )
        )
        lint = [str(scripts / "lint-imports"), "--no-logo", "--show-timings"]
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
            Variant("read every file", [*read, "outline"]),
            Variant("ast.parse every file", [*read, "ast"]),
            Variant(
                "static, walking again",
                [*lint, "static.ini", "--cache-dir", "static-cache-walk"],
                before=forget_outcomes,
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
        print("| " + " | ".join(cells) + " |")
        floor, read_outline, read_ast, walking = variants[0], *variants[6:]
        walk = median_of(walking, lambda r: contract_timings(r.output)["R4"])
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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
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
        "--runtime-rounds", type=int, default=15, help="paired rounds in the runtime environment"
    )
    parser.add_argument(
        "--only", choices=["real", "scaling", "reach", "runtime"], help="run only this part"
    )
    args = parser.parse_args()
    try:
        # Any Python runs the benchmark: run again by the repository's .venv if need be.
        scripts = use_project_environment()
    except ToolError as error:
        print(f"benchmarks/run.py: {error}", file=sys.stderr)
        sys.exit(2)
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; {time.strftime('%Y-%m-%d')}\n"
    )
    if args.only in (None, "real"):
        real_tree(args.rounds, scripts)
    sizes = [int(size) for size in args.sizes.split(",") if size]
    if sizes and args.only in (None, "scaling"):
        scaling(sizes, args.scaling_rounds, scripts)
    reach_sizes = [int(size) for size in args.reach_sizes.split(",") if size]
    if reach_sizes and args.only in (None, "reach"):
        reach(reach_sizes, args.reach_rounds, scripts)
    if args.only in (None, "runtime"):
        runtime(args.runtime_rounds)


if __name__ == "__main__":
    main()
