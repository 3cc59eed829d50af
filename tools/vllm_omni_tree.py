"""The real vllm-omni source, downloaded at run time into the git-ignored cache.

    python tools/vllm_omni_tree.py lint [--version 0.30.0] [LINT-IMPORTS ARGS...]
        Fetch the release and run lint-imports with this repository's .importlinter on it;
        exits with lint-imports' status. The runtime contract runs too once its environment
        has been prepared (`runtime`); until then only the static contracts run.
    python tools/vllm_omni_tree.py runtime [LINT-IMPORTS ARGS...]
        Prepare the runtime environment (cached; a no-op once done) and run the runtime
        contract on the newest release in it.
    python tools/vllm_omni_tree.py path [--version 0.30.0]
        Fetch the release and print the folder to put on sys.path.

Releases are published as pure-Python wheels; nothing of them is ever committed here.
"""

from __future__ import annotations

import argparse
import configparser
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NEWEST = "0.30.0"
RELEASES = ("0.14.0", "0.16.0", "0.18.0", "0.20.0", "0.22.0", "0.24.0", "0.26.0", "0.28.0", NEWEST)


def cache_root() -> Path:
    return Path(os.environ.get("IMPORTLINTER_CONTRACTS_CACHE", REPO / ".cache"))


def pip_download(requirement: str, destination: Path, *options: str) -> None:
    """Download one distribution, without its dependencies, into `destination` (with more
    `pip download` options)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            *options,
            requirement,
            "--dest",
            str(destination),
        ],
        check=True,
    )


def tree(version: str = NEWEST) -> Path:
    """The folder holding `vllm_omni/` of this release (downloaded and unpacked once)."""
    target = cache_root() / "vllm-omni" / version
    if (target / ".complete").exists():
        return target
    wheels = cache_root() / "wheels"
    wheel = wheels / f"vllm_omni-{version}-py3-none-any.whl"
    if not wheel.exists():
        pip_download(f"vllm-omni=={version}", wheels)
    partial = target.with_name(f"{version}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(partial, [n for n in archive.namelist() if n.startswith("vllm_omni/")])
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    (target / ".complete").touch()
    return target


CONFIG = REPO / ".importlinter"
RUNTIME_REQUIREMENTS = REPO / "tools" / "vllm-omni-runtime.txt"
TORCH = "torch==2.13.0"  # the CPU build: a newer torch would pull a CUDA build of several GB
VLLM = "vllm==0.30.0"


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
    return [f"{name}=={importlib.metadata.version(name)}" for name in ("import-linter", "grimp")]


def prepare_runtime_environment() -> Path:
    """A virtual environment with a CPU torch, vllm and what vllm-omni needs to import its
    platform detector, plus import-linter and this package (about 2 GB, made once)."""
    venv = runtime_environment()
    if venv is not None:
        return venv
    venv = cache_root() / "runtime-venv"
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, TORCH], check=True)
    wheels = cache_root() / "wheels"
    vllm_wheels = sorted(wheels.glob("vllm-0.30.0-*.whl"))
    if not vllm_wheels:
        pip_download(VLLM, wheels)
        vllm_wheels = sorted(wheels.glob("vllm-0.30.0-*.whl"))
    subprocess.run([*pip, "--no-deps", str(vllm_wheels[0])], check=True)
    subprocess.run([*pip, "--no-deps", "-r", str(RUNTIME_REQUIREMENTS)], check=True)
    subprocess.run([*pip, "--no-deps", *_linter_requirements(), "-e", str(REPO)], check=True)
    (venv / ".complete").write_text(_runtime_stamp())
    return venv


def run_lint_imports(venv: Path, version: str, args: list[str]) -> int:
    """Run a virtual environment's lint-imports on the release with our configuration."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tree(version)), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [str(venv / "bin" / "lint-imports"), str(CONFIG), *args], cwd=REPO, env=env, check=False
    ).returncode


def lint(version: str, lint_imports_args: list[str]) -> int:
    """Run lint-imports on the release with this repository's configuration."""
    runtime = runtime_environment()
    if runtime is not None:
        return run_lint_imports(runtime, version, lint_imports_args)
    skipped = contract_ids(runtime=True)
    if skipped and "--contract" not in lint_imports_args:
        print(
            f"Not running {', '.join(skipped)}: its environment is not prepared "
            "(python tools/vllm_omni_tree.py runtime prepares it).",
            file=sys.stderr,
        )
        for contract in contract_ids(runtime=False):
            lint_imports_args = [*lint_imports_args, "--contract", contract]
    return run_lint_imports(Path(sys.prefix), version, lint_imports_args)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["lint", "runtime", "path"])
    parser.add_argument(
        "--version", default=NEWEST, help=f"the vllm-omni release (default {NEWEST})"
    )
    args, rest = parser.parse_known_args()
    if args.command == "path":
        print(tree(args.version))
        return 0
    if args.command == "runtime":
        venv = prepare_runtime_environment()
        runtime_contracts = [arg for c in contract_ids(runtime=True) for arg in ("--contract", c)]
        return run_lint_imports(venv, NEWEST, [*runtime_contracts, *rest])
    return lint(args.version, rest)


if __name__ == "__main__":
    sys.exit(main())
