"""The real vllm-omni source, downloaded at run time into the git-ignored cache.

    python tools/vllm_omni_tree.py lint [--version 0.30.0] [LINT-IMPORTS ARGS...]
        Fetch the release and run lint-imports with this repository's .importlinter on it;
        exits with lint-imports' status.
    python tools/vllm_omni_tree.py path [--version 0.30.0]
        Fetch the release and print the folder to put on sys.path.

Releases are published as pure-Python wheels; nothing of them is ever committed here.
"""

from __future__ import annotations

import argparse
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


def tree(version: str = NEWEST) -> Path:
    """The folder holding `vllm_omni/` of this release (downloaded and unpacked once)."""
    target = cache_root() / "vllm-omni" / version
    if (target / ".complete").exists():
        return target
    wheels = cache_root() / "wheels"
    wheel = wheels / f"vllm_omni-{version}-py3-none-any.whl"
    if not wheel.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                f"vllm-omni=={version}",
                "--dest",
                str(wheels),
            ],
            check=True,
        )
    partial = target.with_name(f"{version}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(partial, [n for n in archive.namelist() if n.startswith("vllm_omni/")])
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    (target / ".complete").touch()
    return target


def lint(version: str, lint_imports_args: list[str]) -> int:
    """Run lint-imports on the release with this repository's configuration."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tree(version)), os.environ.get("PYTHONPATH", "")]),
    }
    lint_imports = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(lint_imports), str(REPO / ".importlinter"), *lint_imports_args],
        cwd=REPO,
        env=env,
        check=False,
    ).returncode


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["lint", "path"])
    parser.add_argument(
        "--version", default=NEWEST, help=f"the vllm-omni release (default {NEWEST})"
    )
    args, rest = parser.parse_known_args()
    if args.command == "path":
        print(tree(args.version))
        return 0
    return lint(args.version, rest)


if __name__ == "__main__":
    sys.exit(main())
