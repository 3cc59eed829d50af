"""A file as it stood at a git revision, read with git itself, and put where readers of
files can read it."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import RevisionError


def _git(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
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
