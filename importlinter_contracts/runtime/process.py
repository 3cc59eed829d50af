"""Running the probe of a `runtime_isolation` contract in a fresh interpreter, and reading
what it reports."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROBE = Path(__file__).with_name("probe.py")
STDERR_TAIL_LINES = 20


@dataclass(frozen=True)
class ProbeRun:
    """The outcome of one probe process: its report (None if it wrote none) and stderr's end."""

    result: dict[str, Any] | None
    returncode: int | None
    timed_out: bool
    stderr_tail: list[str]


def run_probe(python: str, request: dict[str, Any], timeout: int) -> ProbeRun:
    """Run the probe in a fresh interpreter, in the working directory, and read its result.

    The child's output goes to files, so that a flood of it neither blocks the child nor
    fills memory; its result comes back in a file of its own.
    """
    with tempfile.TemporaryDirectory(prefix="runtime-isolation-") as folder:
        request_file = Path(folder, "request.json")
        result_file = Path(folder, "result.json")
        request_file.write_text(json.dumps(request), encoding="utf-8")
        probe_source = PROBE.read_text(encoding="utf-8")
        with (
            open(Path(folder, "stdout"), "wb") as stdout,
            open(Path(folder, "stderr"), "wb") as stderr,
        ):
            child = subprocess.Popen(
                [python, "-c", probe_source, str(request_file), str(result_file)],
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                cwd=os.getcwd(),
                start_new_session=True,  # so that a timeout kills its children too
            )
            try:
                child.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                timed_out = True
        result = None
        if not timed_out and result_file.exists():
            result = json.loads(result_file.read_text(encoding="utf-8"))
        return ProbeRun(result, child.returncode, timed_out, _tail(Path(folder, "stderr")))


def _tail(path: Path) -> list[str]:
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - 8192))
        text = handle.read().decode("utf-8", errors="replace")
    return text.splitlines()[-STDERR_TAIL_LINES:]
