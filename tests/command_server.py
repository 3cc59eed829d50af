"""Runs of `importlinter-contracts`, each in a process of its own, forked from a server that
has imported the command, every module of this package and import-linter's contract types,
and run nothing: what starting Python and importing take (0.15 s of CPU of the 0.2 s of a
small check, and more as the check goes) is paid once.

A run is a process of its own: what an earlier run left in memory (a cache, a module of the
analysed code) is never seen by the next. It gets the folder, the environment, the arguments
and the standard streams of whoever asks (`CommandServer.run`, or the console script that
`CommandServer.scripts` holds, for a shell); PYTHONPATH is put on sys.path as the interpreter
would. What the interpreter reads only at its start (the console's width, which click and
import-linter read at import, -X options, the bytecode flag) is the server's: start it with
the environment the runs are to have.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

# The server: accepts a connection a run and forks a process that forks the run's, waits for
# it and answers with its exit status, so that the server takes the next run at once.
SERVER = """
import importlib, json, os, pkgutil, runpy, socket, sys, traceback
sys.path.remove("")
import importlinter.contracts, importlinter_contracts.cli, importlinter_contracts.console
# And what a run imports as it goes (the contract types, the walks, the probe's runner).
for package in (importlinter_contracts, importlinter.contracts):
    for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not found.name.endswith(".__main__"):
            importlib.import_module(found.name)

def command(run, streams):
    os.chdir(run["cwd"])
    os.environ.clear()
    os.environ.update(run["env"])
    for fd, stream in enumerate(streams):
        os.dup2(stream, fd)
        os.close(stream)
    extra = [os.path.abspath(p) for p in run["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.argv = run["argv"]
    try:
        if run["as"] == "module":  # python -m importlinter_contracts
            sys.path[:0] = [os.getcwd(), *extra]
            runpy.run_module("importlinter_contracts", run_name="__main__", alter_sys=True)
        else:  # the console script
            sys.path[:0] = [os.path.dirname(sys.executable), *extra]
            sys.exit(importlinter_contracts.console.main())
    except SystemExit as exit:
        if exit.code is None or isinstance(exit.code, int):
            return exit.code or 0
        print(exit.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    return 1

def run_in_child(run, streams):
    status = 1
    try:
        status = command(run, streams)
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(status)

listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
listener.bind(sys.argv[1])
listener.listen()
print("ready", flush=True)
waiters = set()
while True:
    connection, _ = listener.accept()
    message, streams, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    if message == b"stop":
        break
    waiter = os.fork()
    if waiter == 0:
        listener.close()
        pid = os.fork()
        if pid == 0:
            connection.close()
            run_in_child(json.loads(message), streams)
        for stream in streams:
            os.close(stream)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        connection.send(str(status).encode())
        os._exit(0)
    for stream in streams:
        os.close(stream)
    connection.close()
    # Waited for, so that their CPU time counts as the server's children's, as a run's would.
    waiters.add(waiter)
    waiters -= {pid for pid in list(waiters) if os.waitpid(pid, os.WNOHANG)[0]}
for waiter in waiters:
    os.waitpid(waiter, 0)
"""

# The console script of a shell's runs: sends its arguments, folder, environment and standard
# streams to the server, and exits as the run did.
CLIENT = """#!{python} -IS
import json, os, signal, socket, sys
connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
connection.connect({address!r})
run = {{"as": "script", "argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ)}}
socket.send_fds(connection, [json.dumps(run).encode()], [0, 1, 2])
status = int(connection.recv(64))
if status < 0:
    signal.signal(-status, signal.SIG_DFL)
    os.kill(os.getpid(), -status)
sys.exit(status)
"""


class CommandServer:
    """A process that has imported the command and forks a process for each run of it."""

    def __init__(self, folder: Path, environment: dict[str, str]) -> None:
        self.folder = folder
        self.address = str(folder / "socket")
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER, self.address],
            cwd=folder,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "ready\n", "the command server did not start"
        self.scripts = folder / "bin"
        self.scripts.mkdir()
        script = self.scripts / "importlinter-contracts"
        script.write_text(CLIENT.format(python=sys.executable, address=self.address))
        script.chmod(0o755)
        self.runs = 0

    def run(
        self, cwd: Path, arguments: list[str], environment: dict[str, str]
    ) -> subprocess.CompletedProcess[str]:
        """Return how `python -m importlinter_contracts ARGUMENTS` ended, run in CWD with
        ENVIRONMENT and no input."""
        self.runs += 1
        outputs = [self.folder / f"{self.runs}.{name}" for name in ("out", "err")]
        streams = [os.open(os.devnull, os.O_RDONLY)]
        streams += [os.open(path, os.O_WRONLY | os.O_CREAT, 0o644) for path in outputs]
        run = {
            "as": "module",
            "argv": ["-m", *arguments],  # (runpy puts __main__.py's path first)
            "cwd": str(cwd),
            "env": environment,
        }
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
            connection.connect(self.address)
            socket.send_fds(connection, [json.dumps(run).encode()], streams)
            for stream in streams:
                os.close(stream)
            status = connection.recv(64)
        assert status, "the command server ended"
        stdout, stderr = (path.read_text() for path in outputs)
        return subprocess.CompletedProcess(arguments, int(status), stdout, stderr)

    def close(self) -> None:
        """Stop the server, once the runs under way have ended."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
            connection.connect(self.address)
            connection.send(b"stop")
        assert self.process.wait(timeout=60) == 0
