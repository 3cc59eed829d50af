"""Build the compiled wheel of this tree and install it into a virtual environment of its own,
for the tests and the benchmarks to run on the compiled build.

    python tools/compiled_build.py [VENV]
        Build the sdist and, from it, the compiled wheel (`HATCH_BUILD_HOOKS_ENABLE=1 python -m
        build`: mypyc compiles the modules that pyproject.toml's mypyc hook names) into
        .cache/dist-compiled, and install the wheel, with the `dev` extra, into VENV (default
        .cache/venv-compiled), made afresh; then print the build that VENV's Python runs
        ("compiled"). Where VENV already holds the wheel of this tree's sources as they are
        (a digest of them in VENV/.compiled-from says), nothing is built: run it as often as
        you like.

Run it with the Python to build for (the wheel is for that Python only), one that has
`build` (the repository's .venv does).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DIST = REPO / ".cache" / "dist-compiled"
DEFAULT_VENV = REPO / ".cache" / "venv-compiled"


def sources_digest() -> str:
    """Return the digest of what the wheel is built from: the package's files and
    pyproject.toml."""
    digest = hashlib.sha256()
    files = [REPO / "pyproject.toml"]
    files += sorted((REPO / "importlinter_contracts").rglob("*.py"))
    for path in files:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def compiled_environment(venv: Path = DEFAULT_VENV) -> Path:
    """Return VENV's Python, with the compiled wheel of the tree as it is installed in it
    (built and installed where it was not yet). Raises subprocess.CalledProcessError where a
    step fails (its output says why)."""
    python = venv / "bin" / "python"
    stamp = venv / ".compiled-from"
    wanted = sources_digest()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    shutil.rmtree(DIST, ignore_errors=True)
    # From the sdist, unpacked elsewhere: hatch-mypyc writes its extension modules beside the
    # sources it compiles (in this tree, the editable install would import them), and moves
    # pyproject.toml aside while it does.
    run = [sys.executable, "-m", "build", "--outdir", str(DIST)]
    enabled = {**os.environ, "HATCH_BUILD_HOOKS_ENABLE": "1"}
    subprocess.run(run, cwd=REPO, env=enabled, check=True, stdout=sys.stderr)
    (wheel,) = DIST.glob("*.whl")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = [str(python), "-m", "pip", "install", "--quiet", f"{wheel}[dev]"]
    subprocess.run(install, check=True, stdout=sys.stderr)
    stamp.write_text(wanted)
    return python


def main() -> int:
    venv = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else DEFAULT_VENV
    try:
        python = compiled_environment(venv)
    except subprocess.CalledProcessError as error:
        print(
            f"compiled_build.py: `{' '.join(map(str, error.cmd))}` failed.",
            file=sys.stderr,
        )
        return 2
    # From outside the tree, so that its own (pure-Python) package cannot be the one imported.
    report = "from importlinter_contracts import compiled; print(compiled.build())"
    build = subprocess.run(
        [str(python), "-c", report], cwd="/", check=True, capture_output=True, text=True
    )
    print(build.stdout.strip())
    return 0 if build.stdout.strip() == "compiled" else 1


if __name__ == "__main__":
    sys.exit(main())
