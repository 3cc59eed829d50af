"""The two commands of a clone: each sets up the repository's .venv when it needs it, then
runs in it. Any Python 3.11+ runs this, with no virtual environment activated.

    python3 tools/dev.py lint [ARGS...]
        Lint vllm-omni 0.30.0 (downloaded once into the git-ignored .cache/) with this
        repository's .importlinter: `tools/vllm_omni_tree.py lint ARGS...` (--tree PATH,
        --version V and lint-imports' own options go there).
    python3 tools/dev.py test [PYTEST ARGS...]
        The whole test suite (`pytest ARGS...`), real-tree tests included.

The .venv is made with the Python that runs this, and `pip install -e '.[dev]'` runs in it
when it is new or pyproject.toml has changed since it last ran (a digest of pyproject.toml in
.venv/.dev-installed says which); otherwise nothing is installed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
STAMP = VENV / ".dev-installed"
COMMANDS = {
    "lint": [str(REPO / "tools" / "vllm_omni_tree.py"), "lint"],
    "test": ["-m", "pytest"],
}


def say(message: str) -> None:
    print(f"dev.py: {message}", file=sys.stderr, flush=True)


def installed_for() -> str:
    """Return the digest of pyproject.toml, which the .venv's installation must match."""
    return hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()


def set_up() -> Path:
    """Return the .venv's Python, after making the .venv and installing the project into it
    where either is missing or out of date."""
    python = VENV / "bin" / "python"
    if not python.exists():
        say(f"creating {VENV} with {sys.executable}")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    wanted = installed_for()
    if not STAMP.exists() or STAMP.read_text() != wanted:
        say("installing this package and its development tools into .venv: pip install -e '.[dev]'")
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "-e", ".[dev]"], cwd=REPO, check=True
        )
        STAMP.write_text(wanted)
    return python


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.version_info < (3, 11):  # noqa: UP036 (any python3 may run this)
        say(f"{sys.executable} is Python {sys.version.split()[0]}: run this with Python 3.11+.")
        return 2
    try:
        python = set_up()
    except subprocess.CalledProcessError as error:
        say(f"`{' '.join(map(str, error.cmd))}` failed: its output above says why.")
        return 2
    command = [str(python), *COMMANDS[sys.argv[1]], *sys.argv[2:]]
    if sys.argv[1] == "test":
        # In the repository's root, where pytest finds its configuration and the tests. (lint
        # runs where it is asked to: the paths it prints, and --tree's, are relative to it.)
        os.chdir(REPO)
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main())
