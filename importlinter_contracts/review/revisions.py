"""A file or a tree as it stood at a git revision, read with git itself, and put where readers
of files can read it; and the lines a change added to a file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import RevisionError


def _git(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
            env=env,
        )
    except FileNotFoundError:
        raise RevisionError("git is not installed: the review reads revisions with git.") from None


def repository_root(start: Path) -> Path:
    """Return the root of the git work tree that holds `start`.

    Raises RevisionError when there is none, or git is not installed.
    """
    found = _git("rev-parse", "--show-toplevel", cwd=start)
    if found.returncode != 0:
        raise RevisionError(f"{start.resolve()} is not inside a git repository.")
    return Path(found.stdout.strip())


def commit_of(revision: str, root: Path) -> str:
    """Return the commit a revision names.

    Raises RevisionError for an unknown revision.
    """
    found = _git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", cwd=root)
    if found.returncode != 0:
        raise RevisionError(f"'{revision}' is not a revision of the repository at {root}.")
    return found.stdout.strip()


def file_at(commit: str, path: Path, root: Path) -> bytes | None:
    """Return the content of `path` at `commit` of the repository at `root`, or None when the
    file did not exist there.

    Raises RevisionError when git cannot show it.
    """
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    found = _git("cat-file", "-e", f"{commit}:{relative}", cwd=root)
    if found.returncode != 0:
        return None
    # As bytes: the file may not be UTF-8 text, which its reader says.
    shown = subprocess.run(
        ["git", "show", f"{commit}:{relative}"], cwd=root, capture_output=True, check=False
    )
    if shown.returncode != 0:
        reason = shown.stderr.decode("utf-8", "replace").strip()
        raise RevisionError(f"git cannot show {relative} at {commit}: {reason}")
    return shown.stdout


def source_root() -> Path:
    """Return the root that reports name paths from: the git work tree that holds the working
    directory, or the working directory outside git."""
    found = _git("rev-parse", "--show-toplevel", cwd=Path.cwd())
    return Path(found.stdout.strip()) if found.returncode == 0 else Path.cwd()


@contextmanager
def as_file(text: str, filename: str) -> Iterator[Path]:
    """Yield `text` (a configuration at some revision) in a temporary file named as `filename`
    is, which is how import-linter's readers tell INI from TOML."""
    with tempfile.TemporaryDirectory(prefix="importlinter-contracts-review-") as folder:
        path = Path(folder, Path(filename).name)
        path.write_text(text, encoding="utf-8")
        yield path


# A hunk's header in `git diff -U0`: where its lines stand in the new file, and how many.
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def added_lines(commit: str, path: Path, root: Path) -> set[int] | None:
    """Return the lines of `path` in the working tree that the change from `commit` added or
    altered; None where every line is new (the file did not exist at `commit`).

    Raises RevisionError when git cannot compare them.
    """
    if file_at(commit, path, root) is None:
        return None
    found = _git(
        "diff",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        commit,
        "--",
        str(path.resolve()),
        cwd=root,
    )
    if found.returncode != 0:
        raise RevisionError(f"git cannot compare {path} with {commit}: {found.stderr.strip()}")
    # With no context lines, only a hunk's header starts with "@@": its lines start with
    # "+", "-" or "\\".
    return {
        line
        for start, count in _HUNK.findall(found.stdout)
        for line in range(int(start), int(start) + int(count or 1))
    }


@contextmanager
def tree_at(commit: str, root: Path) -> Iterator[Path]:
    """Yield a temporary folder that holds the files of `commit` of the repository at `root`, as
    its work tree would (written from a temporary index, so that the repository's own index and
    work tree stay as they are).

    Raises RevisionError when git cannot write them.
    """
    with tempfile.TemporaryDirectory(prefix="importlinter-contracts-base-") as folder:
        tree = Path(folder, "tree")
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(folder, "index"))}
        for args in (("read-tree", commit), ("checkout-index", "--all", f"--prefix={tree}/")):
            done = _git(*args, cwd=root, env=env)
            if done.returncode != 0:
                raise RevisionError(
                    f"git cannot write the files of {commit}: {done.stderr.strip()}"
                )
        tree.mkdir(exist_ok=True)  # (a commit with no file)
        yield tree


@contextmanager
def standing_in(tree: Path, root: Path) -> Iterator[None]:
    """Within it, the working directory and each folder of sys.path inside `root` (the
    repository's work tree) that `tree` (another revision's files, from `tree_at`) has too are
    their counterparts there: what finds the analysed packages from there finds that
    revision's. A folder that git does not hold (a virtual environment in the work tree, say)
    stays, so that what is imported from it still is."""
    here = Path.cwd()
    saved = sys.path[:]
    real_root = root.resolve()

    def counterpart(folder: Path) -> Path | None:
        try:
            return tree / folder.resolve().relative_to(real_root)
        except ValueError:
            return None

    def moved_entry(entry: str) -> str:
        found = counterpart(Path(entry or os.curdir))
        return str(found) if found is not None and found.is_dir() else entry

    sys.path[:] = [moved_entry(entry) if isinstance(entry, str) else entry for entry in sys.path]
    moved = counterpart(here)
    try:
        if moved is not None:
            moved.mkdir(parents=True, exist_ok=True)
            os.chdir(moved)
        yield
    finally:
        os.chdir(here)
        sys.path[:] = saved
