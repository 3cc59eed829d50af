"""Lint a vllm-omni tree with this repository's .importlinter: yours, or a release downloaded
at run time into the git-ignored cache.

    python tools/vllm_omni_tree.py lint [--tree PATH | --version 0.30.0] [LINT-IMPORTS ARGS...]
        Run lint-imports with this repository's .importlinter on the vllm-omni tree at PATH
        (the folder that holds vllm_omni/), or on a release (default: the newest); exits
        with lint-imports' status. The runtime contract runs too once its environment has
        been prepared (`runtime`); until then only the static contracts run.
    python tools/vllm_omni_tree.py runtime [--tree PATH | --version 0.30.0] [LINT-IMPORTS ARGS...]
        Prepare the runtime environment (cached; a no-op once done) and run the runtime
        contract on the tree in it.
    python tools/vllm_omni_tree.py path [--version 0.30.0]
        Fetch the release and print the folder to put on sys.path.

The first line on stderr names the tree linted and its version. A vllm_omni that PYTHONPATH
or the working directory provides, other than the tree to lint, is refused: pass it with
--tree. Any Python 3.11+ can run this: without import-linter and this package it uses the
repository's .venv, or says how to make one. Releases are published as pure-Python wheels;
nothing of them is ever committed here.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import contextlib
import fcntl
import hashlib
import importlib.machinery
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NEWEST = "0.30.0"
RELEASES = ("0.14.0", "0.16.0", "0.18.0", "0.20.0", "0.22.0", "0.24.0", "0.26.0", "0.28.0", NEWEST)

CONFIG = REPO / ".importlinter"
RUNTIME_REQUIREMENTS = REPO / "tools" / "vllm-omni-runtime.txt"
# torch's CPU build, by its own version label: PyPI offers only the CUDA build of 2.13.0
# (several GB of CUDA libraries), which the runtime environment never takes.
TORCH = "torch==2.13.0+cpu"
NO_CPU_TORCH = (
    f"pip found no {TORCH} (torch's CPU build; PyPI carries only the CUDA build), and the runtime "
    "environment takes no CUDA build: point pip at PyTorch's CPU wheel index "
    "(PIP_EXTRA_INDEX_URL) or at a folder that holds the wheel (PIP_FIND_LINKS), and run again."
)
VLLM = "vllm==0.30.0"
PROJECT_VENV = REPO / ".venv"
SET_UP = "python3 tools/dev.py lint"
# Set when this script runs itself again under the project's .venv, so that it does so once.
_REEXECUTED = "VLLM_OMNI_TREE_REEXECUTED"


class ToolError(Exception):
    """What stops a command, as one line for the user (exit status 2)."""


def say(message: str) -> None:
    """A progress line on stderr (stdout carries only what a command prints as its result)."""
    print(f"{Path(sys.argv[0]).name}: {message}", file=sys.stderr, flush=True)


def cache_root() -> Path:
    return Path(os.environ.get("IMPORTLINTER_CONTRACTS_CACHE", REPO / ".cache"))


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def size_of(path: Path) -> str:
    """The size of a file, or of everything under a folder, for a person to read."""
    if path.is_file():
        return readable_size(path.stat().st_size)
    return readable_size(
        sum(
            (Path(folder) / name).lstat().st_size
            for folder, _, names in os.walk(path)
            for name in names
        )
    )


def readable_size(total: int) -> str:
    """A number of bytes for a person to read."""
    return f"{total / 1e9:.1f} GB" if total >= 1e9 else f"{total / 1e6:.1f} MB"


# The environment that runs lint-imports.


def project_tools() -> Path | None:
    """The folder of this interpreter's console scripts if it has import-linter, grimp and
    this package installed (so that its lint-imports can load our contract types)."""
    try:
        for distribution in ("import-linter", "grimp", "importlinter-contracts"):
            importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    scripts = Path(sysconfig.get_path("scripts"))
    return scripts if (scripts / "lint-imports").exists() else None


def use_project_environment() -> Path:
    """This interpreter's console scripts folder, if it has the project's tools; else this
    script is run again by the repository's .venv, once; else one line says what to run."""
    scripts = project_tools()
    if scripts is not None:
        os.environ.pop(_REEXECUTED, None)
        return scripts
    python = PROJECT_VENV / "bin" / "python"
    if not python.exists():
        raise ToolError(
            f"{sys.executable} has no import-linter and importlinter-contracts, and there is "
            f"no {PROJECT_VENV}: run first, in {REPO}: {SET_UP}"
        )
    if os.environ.get(_REEXECUTED):
        raise ToolError(
            f"{PROJECT_VENV} lacks import-linter or importlinter-contracts: run first, "
            f"in {REPO}: .venv/bin/pip install -e '.[dev]'"
        )
    # The script that is running (this one, or another tool that imports it), run again.
    os.execve(
        python,
        [str(python), str(Path(sys.argv[0]).resolve()), *sys.argv[1:]],
        {**os.environ, _REEXECUTED: "1"},
    )


def run_pip(python: Path | str, *args: str) -> None:
    """Run pip, its own progress on stderr; one line if it fails."""
    command = [str(python), "-m", "pip", *args]
    if subprocess.run(command, stdout=sys.stderr, check=False).returncode != 0:
        raise ToolError(f"`pip {' '.join(args)}` failed: its output above says why.")


# vllm-omni trees.


def pip_download(requirement: str, destination: Path, *options: str) -> None:
    """Download one distribution, without its dependencies, into `destination` (with more
    `pip download` options)."""
    say(f"downloading {requirement} (without dependencies) into {shown(destination)}")
    run_pip(
        sys.executable, "download", "--no-deps", *options, requirement, "--dest", str(destination)
    )


@contextlib.contextmanager
def holding_cache(name: str) -> Iterator[None]:
    """Hold the cache's lock for `name` while a release or an environment is made there: the
    tests run in several processes at once, and each may ask for the same release first."""
    lock = cache_root() / f".{name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def tree(version: str = NEWEST) -> Path:
    """The folder holding `vllm_omni/` of this release (downloaded and unpacked once)."""
    target = cache_root() / "vllm-omni" / version
    if (target / ".complete").exists():
        return target
    with holding_cache(f"vllm-omni-{version}"):
        if not (target / ".complete").exists():
            _unpack_release(version, target)
    return target


def _unpack_release(version: str, target: Path) -> None:
    """Download the wheel of this release where it is not cached, and unpack it into `target`."""
    wheels = cache_root() / "wheels"
    wheel = wheels / f"vllm_omni-{version}-py3-none-any.whl"
    if not wheel.exists():
        pip_download(f"vllm-omni=={version}", wheels)
    say(f"unpacking {wheel.name} ({size_of(wheel)}) into {shown(target)}")
    partial = target.with_name(f"{version}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(partial, [n for n in archive.namelist() if n.startswith("vllm_omni/")])
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    (target / ".complete").touch()


def tree_version(folder: Path) -> str | None:
    """The version a vllm-omni tree states, read (never run) from the `__version__ = '...'`
    of vllm_omni/_version.py (written by setuptools-scm when built or installed) or of
    vllm_omni/version.py; None when neither states one (a plain git clone)."""
    for name in ("_version.py", "version.py"):
        path = folder / "vllm_omni" / name
        if not path.is_file():
            continue
        for statement in ast.parse(path.read_bytes()).body:
            if (
                isinstance(statement, ast.Assign)
                and any(
                    isinstance(target, ast.Name) and target.id == "__version__"
                    for target in statement.targets
                )
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                return statement.value.value
    return None


@dataclass(frozen=True)
class Tree:
    """The vllm-omni tree a command works on: a folder of the user's, or a release."""

    folder: Path  # holds vllm_omni/
    release: str | None  # the release's version, for a release (downloaded when needed)

    def describe(self) -> str:
        if self.release is not None:
            return (
                f"vllm-omni {self.release}, the release cached in {shown(self.folder)} "
                "(--tree PATH lints another tree)"
            )
        version = tree_version(self.folder)
        return f"vllm-omni {version or '(version unknown)'} at {self.folder}"

    def fetch(self) -> Path:
        return self.folder if self.release is None else tree(self.release)


def chosen_tree(tree_option: str | None, version: str | None) -> Tree:
    """The tree that --tree names, else the release that --version names (the newest by
    default); refused when something would import another vllm_omni instead of it."""
    if tree_option is None:
        chosen = Tree(cache_root() / "vllm-omni" / (version or NEWEST), version or NEWEST)
    else:
        folder = Path(tree_option).resolve()
        if not (folder / "vllm_omni").is_dir():
            raise ToolError(
                f"--tree {tree_option}: there is no vllm_omni/ in {folder}; "
                "--tree takes the folder that holds vllm_omni/."
            )
        chosen = Tree(folder, None)
    refuse_another_vllm_omni(chosen.folder)
    return chosen


def refuse_another_vllm_omni(folder: Path) -> None:
    """Refuse when PYTHONPATH or the working directory provides a vllm_omni other than the one
    in `folder`: the user means that one, and lint-imports might read it instead."""
    refuse_another_package("vllm_omni", folder, "`--tree {}`")


def refuse_another_package(package: str, folder: Path, choose_it: str) -> None:
    """Refuse when PYTHONPATH or the working directory provides a `package` other than the
    one in `folder`; `choose_it` says how to lint that one instead ({} is its folder)."""
    places = [("PYTHONPATH", entry) for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    places.append(("the working directory", os.getcwd()))
    for where, entry in places:
        if not entry:
            continue
        # PathFinder looks in that one folder only and runs nothing. A namespace portion (a
        # folder without __init__.py) is not imported when a regular package exists.
        spec = importlib.machinery.PathFinder.find_spec(package, [entry])
        if spec is None or spec.origin is None or spec.loader is None:
            continue
        provided = Path(spec.origin)
        if provided.name == "__init__.py":
            provided = provided.parent
        if provided.resolve() != (folder / package).resolve():
            instead = (
                "remove it from PYTHONPATH" if where == "PYTHONPATH" else "run from another folder"
            )
            raise ToolError(
                f"{where} provides a {package} ({provided}) other than the one to lint "
                f"({folder / package}): {instead}, or lint that one with "
                + choose_it.format(shown(Path(entry).resolve()))
                + "."
            )


# The runtime contract's environment.


def contract_ids(*, runtime: bool) -> list[str]:
    """The ids of the runtime contracts of .importlinter, or of the static ones."""
    config = configparser.ConfigParser()
    config.read(CONFIG)
    return [
        section.split(":")[-1]
        for section in config.sections()
        if section.startswith("importlinter:contract:")
        and (config[section].get("type") == "runtime_isolation") == runtime
    ]


def contract_options(*, runtime: bool) -> list[str]:
    """`--contract ID` for each of those contracts, as lint-imports takes them."""
    return [arg for contract in contract_ids(runtime=runtime) for arg in ("--contract", contract)]


def runtime_environment() -> Path | None:
    """The runtime environment's folder if it has been prepared (and is up to date)."""
    venv = cache_root() / "runtime-venv"
    stamp = venv / ".complete"
    return venv if stamp.exists() and stamp.read_text() == _runtime_stamp() else None


def _runtime_stamp() -> str:
    return hashlib.sha256(
        "\n".join([TORCH, VLLM, RUNTIME_REQUIREMENTS.read_text(), *_linter_requirements()]).encode()
    ).hexdigest()


def _linter_requirements() -> list[str]:
    """This package's own dependencies (import-linter, grimp, ...), pinned to the versions
    installed here, so that the runtime environment runs what the project's tests run."""
    requirements = importlib.metadata.requires("importlinter-contracts") or []
    names = [re.match(r"[A-Za-z0-9._-]+", r)[0] for r in requirements if "extra ==" not in r]
    # Sorted: the order the metadata lists them in is the build backend's, and an install
    # by another one must not make the environment look stale.
    return sorted(f"{name}=={importlib.metadata.version(name)}" for name in names)


def prepare_runtime_environment() -> Path:
    """A virtual environment with a CPU torch, vllm and what vllm-omni needs to import its
    platform detector, plus import-linter and this package (about 2 GB, made once); each step
    says what it does, and pip shows its own progress."""
    venv = runtime_environment()
    if venv is not None:
        return venv
    with holding_cache("runtime-venv"):
        return runtime_environment() or _make_runtime_environment()


def _make_runtime_environment() -> Path:
    """Return the runtime environment, made afresh (the lock held)."""
    venv = cache_root() / "runtime-venv"
    started = time.monotonic()
    pinned = [
        line
        for line in RUNTIME_REQUIREMENTS.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def step(number: int, message: str) -> None:
        if number > 1:
            say(f"  {shown(venv)} now holds {size_of(venv)} ({time.monotonic() - started:.0f} s)")
        say(f"runtime environment, step {number}/5: {message}")

    step(1, f"creating the virtual environment {shown(venv)}")
    base_python = getattr(sys, "_base_executable", sys.executable)
    shutil.rmtree(venv, ignore_errors=True)
    if subprocess.run([base_python, "-m", "venv", str(venv)], check=False).returncode != 0:
        raise ToolError(f"`{base_python} -m venv {venv}` failed: its output above says why.")
    python = venv / "bin" / "python"
    step(2, f"installing {TORCH}, torch's CPU build (the largest part)")
    try:
        run_pip(python, "install", TORCH)
    except ToolError:
        raise ToolError(NO_CPU_TORCH) from None
    cuda = subprocess.run(
        [str(python), "-c", "import torch; print(torch.version.cuda or '')"],
        capture_output=True,
        text=True,
        check=False,
    )
    if cuda.returncode != 0 or cuda.stdout.strip():
        raise ToolError(f"the torch installed is not a CPU build; {NO_CPU_TORCH}")
    step(3, f"installing {VLLM} without its dependencies")
    wheels = cache_root() / "wheels"
    vllm_wheels = sorted(wheels.glob("vllm-0.30.0-*.whl"))
    if not vllm_wheels:
        pip_download(VLLM, wheels)
        vllm_wheels = sorted(wheels.glob("vllm-0.30.0-*.whl"))
    run_pip(python, "install", "--no-deps", str(vllm_wheels[0]))
    step(4, f"installing the {len(pinned)} packages pinned in {shown(RUNTIME_REQUIREMENTS)}")
    run_pip(python, "install", "--no-deps", "-r", str(RUNTIME_REQUIREMENTS))
    step(5, f"installing {', '.join(_linter_requirements())} and this package")
    # With their own dependencies (rich, ...): only these are resolved, never vllm's.
    run_pip(python, "install", *_linter_requirements(), "-e", str(REPO))
    (venv / ".complete").write_text(_runtime_stamp())
    say(f"runtime environment ready: {size_of(venv)} ({time.monotonic() - started:.0f} s)")
    return venv


# Running lint-imports.


def run_lint_imports(scripts: Path, folder: Path, args: list[str], config: Path = CONFIG) -> int:
    """Run the lint-imports of a scripts folder with a configuration (ours by default), with
    `folder` first on PYTHONPATH, in the working directory (so that locations are relative
    to it)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [str(scripts / "lint-imports"), str(config), *args], env=env, check=False
    ).returncode


def lint(scripts: Path, chosen: Tree, lint_imports_args: list[str]) -> int:
    """Run lint-imports on the tree with this repository's configuration."""
    say(f"linting {chosen.describe()}")
    folder = chosen.fetch()
    runtime = runtime_environment()
    if runtime is not None:
        return run_lint_imports(runtime / "bin", folder, lint_imports_args)
    skipped = contract_ids(runtime=True)
    if skipped and "--contract" not in lint_imports_args:
        say(
            f"not running {', '.join(skipped)}: its environment is not prepared "
            "(python tools/vllm_omni_tree.py runtime prepares it)."
        )
        lint_imports_args = [*lint_imports_args, *contract_options(runtime=False)]
    return run_lint_imports(scripts, folder, lint_imports_args)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["lint", "runtime", "path"])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--tree", help="the folder that holds vllm_omni/ to lint (lint, runtime)")
    which.add_argument("--version", help=f"the vllm-omni release (default {NEWEST})")
    args, rest = parser.parse_known_args()
    try:
        if args.command == "path":  # (only downloads: no linter needed)
            if args.tree is not None:
                raise ToolError("path takes --version, not --tree.")
            print(tree(args.version or NEWEST))
            return 0
        scripts = use_project_environment()
        chosen = chosen_tree(args.tree, args.version)
        if args.command == "runtime":
            say(f"running the runtime contract on {chosen.describe()}")
            venv = prepare_runtime_environment()
            runtime_contracts = contract_options(runtime=True)
            return run_lint_imports(venv / "bin", chosen.fetch(), [*runtime_contracts, *rest])
        return lint(scripts, chosen, rest)
    except ToolError as error:
        print(f"vllm_omni_tree.py: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
