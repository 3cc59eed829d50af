"""Static closures against what CPython loads: for each module, the modules of the root package
that importing it loads (a fresh interpreter, the tree first on its path) beside its closure
(`importlinter-contracts closure MODULE --format json`, each configuration given).

    python tools/closure_against_python.py --tree PATH --python PYTHON --config INI
        [--config INI ...] [--unset VARIABLE ...] [--json OUT] MODULE [MODULE ...]

For each configuration and module it prints, as a Markdown table: how many modules of the
root package Python loaded; the closure's size; what Python loaded outside it (*missed*, each
named below the table: a closure must hold all of it); the closure's modules Python did not
load (*extras*), and how many of those are not marked conditional, each named below with the
first hop of its chain to a module Python did not load. Totals end the table. `--unset`
removes an environment variable from the importing interpreter's environment (diffusers:
DIFFUSERS_SLOW_IMPORT). Exit status 0 when nothing is missed and every extra is conditional,
1 otherwise, 2 when a module cannot be imported or a closure cannot be computed.

It shares no code with the package's engine: it runs the command line and reads its JSON,
so that it checks the closures as a user would. Importing runs the analysed code: PYTHON is
an environment made for that, never this repository's. For diffusers 0.42.1, a venv whose
site-packages holds diffusers installed with --no-deps and a .pth naming the site-packages of
one with a CPU torch and transformers, and a configuration with `root_package = diffusers`,
`exclude_type_checking_imports = true` and `assume_false = DIFFUSERS_SLOW_IMPORT`:

    python tools/closure_against_python.py --tree "$(python tools/other_trees.py path diffusers)"
        --python .cache/diffusers-venv/bin/python --config diffusers.ini
        --unset DIFFUSERS_SLOW_IMPORT diffusers diffusers.quantizers.base ...
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vllm_omni_tree import ToolError, use_project_environment

# Run by the importing interpreter: the modules of the root package loaded by importing one.
LOADED = """\
import importlib, json, sys
root, module = sys.argv[1:]
importlib.import_module(module)
print(json.dumps(sorted(
    name for name in sys.modules if name == root or name.startswith(root + ".")
)))
"""


@dataclass(frozen=True)
class Comparison:
    """One module's closure under one configuration, beside what Python loaded."""

    module: str
    loaded: frozenset[str]
    closure: dict[str, Any]  # the JSON report's `modules`

    @property
    def missed(self) -> list[str]:
        return sorted(self.loaded - self.closure.keys())

    @property
    def extras(self) -> list[str]:
        return sorted(self.closure.keys() - self.loaded)

    @property
    def certain_extras(self) -> list[str]:
        """The extras that no test of the code makes conditional."""
        return [name for name in self.extras if not self.closure[name].get("conditional")]

    def first_unloaded_hop(self, name: str) -> dict[str, Any]:
        """The hop of the closure's chain to `name` that first reaches a module Python did
        not load: where the static reading and Python part."""
        chain = []
        while self.closure[name]["reached_from"] is not None:
            chain.append(self.closure[name]["hop"])
            name = self.closure[name]["reached_from"]
        return next(hop for hop in reversed(chain) if hop["imported"] not in self.loaded)


def root_package(config: Path) -> str:
    parser = configparser.ConfigParser()
    parser.read(config)
    try:
        return parser["importlinter"]["root_package"].strip()
    except KeyError:
        raise ToolError(f"{config} has no root_package in [importlinter]") from None


def loaded_by_python(python: str, tree: Path, root: str, module: str, unset: list[str]) -> set[str]:
    """The modules of `root` loaded by importing `module` in a fresh interpreter."""
    env = {name: value for name, value in os.environ.items() if name not in unset}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [python, "-c", LOADED, root, module],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise ToolError(f"{python} cannot import {module}: {last}")
    return set(json.loads(result.stdout))


def closure(scripts: Path, tree: Path, config: Path, module: str, cache: Path) -> dict[str, Any]:
    """The JSON report's `modules` of the static closure of `module`."""
    result = subprocess.run(
        [
            str(scripts / "importlinter-contracts"),
            "closure",
            module,
            str(config),
            "--format",
            "json",
            "--cache-dir",
            str(cache),
        ],
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise ToolError(f"closure {module} with {config}: {result.stderr.strip()}")
    modules: dict[str, Any] = json.loads(result.stdout)["modules"]
    return modules


def report(config: Path, comparisons: list[Comparison]) -> bool:
    """Print the table of one configuration; whether its closures held up."""
    print(f"## {config}\n")
    print("| module | Python loaded | closure | missed | extras | not conditional |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for c in comparisons:
        print(
            f"| `{c.module}` | {len(c.loaded):,} | {len(c.closure):,} | {len(c.missed):,} "
            f"| {len(c.extras):,} | {len(c.certain_extras):,} |"
        )

    def total(count: Any) -> str:
        return f"{sum(len(count(c)) for c in comparisons):,}"

    print(
        f"| all {len(comparisons)} | {total(lambda c: c.loaded)} | {total(lambda c: c.closure)} "
        f"| {total(lambda c: c.missed)} | {total(lambda c: c.extras)} "
        f"| {total(lambda c: c.certain_extras)} |\n"
    )
    for c in comparisons:
        for name in c.missed:
            print(f"- missed by the closure of `{c.module}`: `{name}`")
        for name in c.certain_extras:
            hop = c.first_unloaded_hop(name)
            places = ", ".join(f"{at['path']}:{at['line']}" for at in hop["locations"])
            print(
                f"- not conditional in the closure of `{c.module}`: `{name}`, from "
                f"`{hop['importer']} -> {hop['imported']}` ({places}; {'; '.join(hop['why'])})"
            )
    print()
    return not any(c.missed or c.certain_extras for c in comparisons)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("modules", nargs="+", metavar="MODULE")
    parser.add_argument("--tree", type=Path, required=True, help="the folder of the root package")
    parser.add_argument("--python", required=True, help="the interpreter that imports")
    parser.add_argument("--config", type=Path, action="append", required=True)
    parser.add_argument("--unset", action="append", default=[], metavar="VARIABLE")
    parser.add_argument("--json", type=Path, help="also write every count and name here")
    args = parser.parse_args()
    try:
        scripts = use_project_environment()
        roots = {root_package(config) for config in args.config}
        if len(roots) != 1:
            raise ToolError(f"the configurations name different root packages: {sorted(roots)}")
        root = roots.pop()
        tree = args.tree.resolve()
        loaded = {}
        for module in args.modules:
            loaded[module] = frozenset(
                loaded_by_python(os.path.abspath(args.python), tree, root, module, args.unset)
            )
            print(f"{module}: Python loaded {len(loaded[module]):,}", file=sys.stderr)
        held = True
        written: dict[str, Any] = {}
        for config in args.config:
            with tempfile.TemporaryDirectory() as cache:
                comparisons = [
                    Comparison(
                        module,
                        loaded[module],
                        closure(scripts, tree, config.resolve(), module, Path(cache)),
                    )
                    for module in args.modules
                ]
            held = report(config, comparisons) and held
            written[str(config)] = {
                c.module: {
                    "loaded": sorted(c.loaded),
                    "closure": len(c.closure),
                    "missed": c.missed,
                    "extras": c.extras,
                    "not_conditional": c.certain_extras,
                }
                for c in comparisons
            }
        if args.json is not None:
            # (Imported here: this script runs first in any Python, which may not have the package.)
            from importlinter_contracts.files import write_atomically

            write_atomically(args.json, (json.dumps(written, indent=1) + "\n").encode())
    except ToolError as error:
        print(f"closure_against_python.py: {error}", file=sys.stderr)
        return 2
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
