"""The console script `importlinter-contracts` (also `python -m importlinter_contracts`).

The signals that end a run are handled before anything else is imported (click, import-linter
and grimp take a quarter of a second): from then on SIGINT, SIGTERM and SIGHUP end the run
with 128 + the signal's number and one line on stderr, never a traceback (`interrupts`).
"""

import contextlib
import sys

from .interrupts import Interrupted, exiting_on_signals, ignoring_signals, raise_waiting


def main() -> None:
    exiting_on_signals()
    try:
        try:
            from .cli import main as command

            try:
                command()
            finally:
                raise_waiting()
        finally:
            # The run has ended: a signal that comes from now on (while Python exits, in an
            # atexit callback) would raise where nothing catches it, and print a traceback.
            ignoring_signals()
    except Interrupted as interrupted:
        ignoring_signals()
        # (stderr may be closed with the terminal that sent SIGHUP.)
        with contextlib.suppress(OSError):
            print(f"importlinter-contracts: {interrupted}.", file=sys.stderr, flush=True)
        sys.exit(interrupted.exit_status)
