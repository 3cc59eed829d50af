"""The console script `importlinter-contracts` (also `python -m importlinter_contracts`).

The signals that end a run are handled before anything else is imported (click, import-linter
and grimp take a quarter of a second): from then on SIGINT, SIGTERM and SIGHUP end the run
with 128 + the signal's number and one line on stderr, never a traceback (`interrupts`).
"""

from .working_directory import working_directory_off_sys_path

# The working directory may be on sys.path (`PYTHONPATH=.`): nothing there may stand in for a
# module that ours, click's or the standard library's code imports. The commands put it back
# where they need it, while the contracts run.
with working_directory_off_sys_path():
    import contextlib
    import sys

    from .interrupts import Interrupted, exiting_on_signals, ignoring_signals, raise_waiting


def main() -> None:
    exiting_on_signals()
    try:
        try:
            with working_directory_off_sys_path():
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
