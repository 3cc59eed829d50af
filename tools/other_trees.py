"""Other multi-backend codebases, downloaded at run time into the git-ignored cache: the trees
that the configurations in examples/ are written for, and diffusers, which the benchmark and
tools/closure_against_python.py measure.

    python tools/other_trees.py lint vllm|lmdeploy [LINT-IMPORTS ARGS...]
        Fetch the release (once) and run lint-imports with its configuration in examples/
        on it; exits with lint-imports' status.
    python tools/other_trees.py path vllm|lmdeploy|diffusers
        Fetch the release (once) and print the folder to put on sys.path.

vllm 0.33.0 and lmdeploy 0.18.0 are on the index only as platform wheels (336 MB and 107 MB,
mostly compiled extensions), and vllm's sdist cannot be fetched without building torch.
The contracts only read `.py` files, never import them, so the x86_64 Linux wheel is
downloaded (the same one on every machine); diffusers 0.42.1 is a pure-Python wheel (6.4 MB).
Of each wheel only the `.py` files are kept, and the wheel is deleted. Nothing of it is ever
committed here.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from vllm_omni_tree import (
    REPO,
    ToolError,
    cache_root,
    holding_cache,
    pip_download,
    readable_size,
    refuse_another_package,
    run_lint_imports,
    say,
    size_of,
    use_project_environment,
)


@dataclass(frozen=True)
class Release:
    """A published release whose `.py` files make up the tree."""

    distribution: str
    version: str
    package: str  # the top-level package the wheel installs
    wheel: str  # its file name: the same wheel, whichever machine fetches it

    @property
    def platform(self) -> str:
        return self.wheel.removesuffix(".whl").rpartition("-")[2]

    @property
    def example(self) -> Path:
        """Its configuration in examples/ (diffusers has none)."""
        return REPO / "examples" / f"{self.distribution}.importlinter"


RELEASES = {
    "vllm": Release("vllm", "0.33.0", "vllm", "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl"),
    "lmdeploy": Release(
        "lmdeploy",
        "0.18.0",
        "lmdeploy",
        "lmdeploy-0.18.0-cp311-cp311-manylinux_2_28_x86_64.whl",
    ),
    "diffusers": Release("diffusers", "0.42.1", "diffusers", "diffusers-0.42.1-py3-none-any.whl"),
}


def tree(name: str) -> Path:
    """The folder holding the release's top-level package, with its `.py` files only
    (downloaded and extracted once)."""
    release = RELEASES[name]
    target = cache_root() / release.distribution / release.version
    if (target / ".complete").exists():
        return target
    with holding_cache(f"{release.distribution}-{release.version}"):
        if not (target / ".complete").exists():
            _extract_release(name, release, target)
    return target


def _extract_release(name: str, release: Release, target: Path) -> None:
    """Download the release's wheel and keep its `.py` files in `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as download:
        started = time.monotonic()
        # A platform wheel is fetched for x86_64 Linux, whatever the machine.
        platform = () if release.platform == "any" else ("--platform", release.platform)
        pip_download(
            f"{release.distribution}=={release.version}",
            Path(download),
            "--only-binary=:all:",
            *platform,
            "--python-version",
            "3.11",
        )
        wheel = Path(download) / release.wheel
        say(
            f"{name} {release.version}: downloaded {size_of(wheel)} "
            f"in {time.monotonic() - started:.1f} s; extracting the .py files ..."
        )
        partial = target.with_name(f"{release.version}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            members = [
                info
                for info in archive.infolist()
                if info.filename.startswith(f"{release.package}/") and info.filename.endswith(".py")
            ]
            archive.extractall(partial, [info.filename for info in members])
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    (target / ".complete").touch()
    say(
        f"{name} {release.version}: kept {len(members):,} .py files "
        f"({readable_size(sum(info.file_size for info in members))}) in {target}; "
        "the wheel is deleted"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["lint", "path"])
    parser.add_argument("name", choices=sorted(RELEASES))
    args, rest = parser.parse_known_args()
    try:
        if args.command == "path":  # (only downloads: no linter needed)
            print(tree(args.name))
            return 0
        scripts = use_project_environment()
        release = RELEASES[args.name]
        config = release.example
        if not config.exists():
            raise ToolError(
                f"{args.name} has no configuration in examples/: `path {args.name}` prints "
                "its folder, to lint it with a configuration of yours."
            )
        folder = tree(args.name)
        refuse_another_package(release.package, folder, "its own configuration")
        say(f"linting {release.distribution} {release.version} in {folder} with {config.name}")
        return run_lint_imports(scripts, folder, rest, config)
    except ToolError as error:
        print(f"other_trees.py: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
