"""Random edit sequences on a synthetic package: after every step, the runtime contract's verdict
read through the cache equals the verdict of a run with `--no-cache`.

The steps edit modules in place (to code that imports a backend, raises, imports another
module, reads an environment variable by name, through os.environ or the `posix` module, or
iterates over all of them, reads a data file, checks a path with os.access, resolves a
symbolic link, lists a folder, runs a file by its path, deletes a module from sys.modules),
create and delete modules and files, change environment variables, point the link elsewhere,
and restore earlier contents; half of the files written get an old modification time
(unique, as a file untouched for long would have), so that both the cache's trusted-time
path and its re-reading path are exercised.

IMPORTLINTER_CONTRACTS_PROPERTY_STEPS sets the number of steps (default 200), and
IMPORTLINTER_CONTRACTS_PROPERTY_SEED the seed (default: a new one, printed on failure).
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_runtime_isolation import TREE, configure

from helpers import Project
from importlinter_contracts.cli import main

pytestmark = pytest.mark.slow

STEPS = int(os.environ.get("IMPORTLINTER_CONTRACTS_PROPERTY_STEPS", "200"))
MODULES = [f"pkg/extra/m{i}.py" for i in range(4)]
DATA = "pkg/extra/data.txt"
FLAG = "pkg/extra/flag"
PLUGIN = "pkg/extra/plugin.txt"  # executed by its path: no import finds it
LINK = "pkg/extra/accelerator"  # a symbolic link to targets/cuda or targets/npu
# PYTHONOPTIMIZE is read by the interpreter only (it drops asserts).
VARIABLES = ["RP_A", "RP_B", "RP_UNREAD", "PYTHONOPTIMIZE"]
BACKEND = "import pkg.platforms.npu.ops\n"


def bodies(index: int) -> list[str]:
    """What module `index` may hold; it may import only modules after it (no cycles)."""
    later = [f"pkg.extra.m{j}" for j in range(index + 1, len(MODULES))]
    found = [
        "",
        "X = 1\n",
        BACKEND,
        "raise ImportError('not on this machine')\n",
        "assert False, 'no device'\n",
        "try:\n    assert False\nexcept AssertionError:\n    pass\nelse:\n" + "    " + BACKEND,
        "import os\nif os.environ.get('RP_A') == '1':\n    import pkg.platforms.npu.ops\n",
        "import os\nif 'RP_B' in list(os.environ):\n    import pkg.platforms.npu.ops\n",
        "import os\nif dict(os.environ).get('RP_B') == '1':\n    import pkg.platforms.npu.ops\n",
        "import os\nif os.path.exists(os.path.join(os.path.dirname(__file__), 'flag')):\n"
        "    import pkg.platforms.npu.ops\n",
        "import os\nif os.access(os.path.join(os.path.dirname(__file__), 'flag'), os.F_OK):\n"
        "    import pkg.platforms.npu.ops\n",
        "import posix\nif posix.environ.get(b'RP_A') == b'1':\n    import pkg.platforms.npu.ops\n",
        "import os\np = os.path.join(os.path.dirname(__file__), 'accelerator')\n"
        "if os.path.basename(os.path.realpath(p)) == 'npu':\n    import pkg.platforms.npu.ops\n",
        "import os\nif 'flag' in os.listdir(os.path.dirname(__file__)):\n"
        "    import pkg.platforms.npu.ops\n",
        "import os\np = os.path.join(os.path.dirname(__file__), 'data.txt')\n"
        "if os.path.isfile(p) and open(p).read().startswith('npu'):\n"
        "    import pkg.platforms.npu.ops\n",
        "import importlib.util, os\np = os.path.join(os.path.dirname(__file__), 'plugin.txt')\n"
        "spec = importlib.util.spec_from_loader('plugin', loader=None)\n"
        "if os.path.exists(p):\n"
        "    exec(compile(open(p).read(), p, 'exec'), {})\n",
        "import importlib.util, os\n"
        "p = os.path.join(os.path.dirname(__file__), 'm3.py')\n"
        "spec = importlib.util.spec_from_file_location('by_path', p)\n"
        "if spec is not None and os.path.exists(p):\n"
        "    try:\n        spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "    except Exception:\n        pass\n",
    ]
    for name in later:
        found += [
            f"import {name}\n",
            f"try:\n    import {name}\nexcept ImportError:\n    pass\n",
            f"import importlib\ntry:\n    importlib.import_module('{name}')\n"
            "except Exception:\n    pass\n",
            f"import sys\ntry:\n    import {name}\nexcept Exception:\n    pass\n"
            f"sys.modules.pop('{name}', None)\n",
        ]
    return found


CONNECTORS = [
    # Each module is tried; one that raises leaves the probe clean.
    "".join(
        f"try:\n    import pkg.extra.m{i}\nexcept Exception:\n    pass\n"
        for i in range(len(MODULES))
    ),
    # The first module's failure is the probe's.
    "import pkg.extra.m0\n",
]


class Package:
    """The synthetic package, edited by a seeded random sequence."""

    def __init__(self, project: Project, rng: random.Random) -> None:
        self.project = project
        self.rng = rng
        self.history: dict[str, list[str]] = {}
        self.old_time = time.time() - 10**6  # unique old times counted up from here
        project.write({**TREE, "pkg/connectors/__init__.py": CONNECTORS[0]})
        for path in [*MODULES, DATA]:
            self.write(path, "")
        for target in ("cuda", "npu"):
            (project.root / "targets" / target).mkdir(parents=True)
        self.link = project.root / LINK
        self.link.symlink_to(project.root / "targets" / "cuda")

    def write(self, relative: str, text: str) -> None:
        path = self.project.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
        self.history.setdefault(relative, []).append(text)
        if self.rng.random() < 0.5:
            self.backdate(path)

    def backdate(self, path: Path) -> None:
        self.old_time += 1.0
        os.utime(path, (self.old_time, self.old_time))

    def delete(self, relative: str) -> None:
        (self.project.root / relative).unlink(missing_ok=True)

    def step(self, monkeypatch: pytest.MonkeyPatch) -> str:
        """Make one random edit; return what it was."""
        rng = self.rng
        choice = rng.randrange(11)
        if choice <= 2:
            index = rng.randrange(len(MODULES))
            body = rng.choice(bodies(index))
            self.write(MODULES[index], body)
            return f"write {MODULES[index]}: {body!r}"
        if choice == 3:
            relative = rng.choice(MODULES)
            self.delete(relative)
            return f"delete {relative}"
        if choice == 4:
            relative = rng.choice(sorted(self.history))
            text = rng.choice(self.history[relative])
            self.write(relative, text)
            return f"restore {relative}: {text!r}"
        if choice == 5:
            relative = rng.choice([DATA, FLAG, PLUGIN])
            if rng.random() < 0.3:
                self.delete(relative)
                return f"delete {relative}"
            text = rng.choice(["cuda", "npux", BACKEND, "", "raise ImportError\n"])
            self.write(relative, text)
            return f"write {relative}: {text!r}"
        if choice == 6:
            name = rng.choice(VARIABLES)
            value = rng.choice([None, "0", "1"])
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
            return f"environment {name}={value}"
        if choice == 7:
            text = rng.choice(CONNECTORS)
            self.write("pkg/connectors/__init__.py", text)
            return f"write pkg/connectors/__init__.py: {text!r}"
        if choice == 8:
            folder = self.project.root / "pkg/extra"
            self.backdate(folder)
            return "backdate pkg/extra"
        if choice == 9:
            # As /usr/local/cuda is pointed at another version: the link keeps its kind.
            target = rng.choice(["cuda", "npu"])
            self.link.unlink(missing_ok=True)
            self.link.symlink_to(self.project.root / "targets" / target)
            return f"point {LINK} at {target}"
        return "nothing"


def verdict(*args: str) -> tuple[Any, ...]:
    result = CliRunner().invoke(main, ["check", "--format", "json", "--contract", "runtime", *args])
    assert result.exit_code in (0, 1), result.output
    (contract,) = json.loads(result.stdout)["contracts"]
    violations = sorted((v["kind"], v["message"]) for v in contract["violations"])
    found = (contract["kept"], violations, contract["detected"], contract["loaded_modules"])
    return found, contract["cached"]


def test_every_cached_verdict_is_the_verdict_of_a_fresh_run(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = int(os.environ.get("IMPORTLINTER_CONTRACTS_PROPERTY_SEED", random.randrange(2**32)))
    rng = random.Random(seed)
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    package = Package(project, rng)
    configure(project)
    edits: list[str] = []
    hits = 0
    started = time.monotonic()
    for step in range(STEPS):
        edits.append(package.step(monkeypatch))
        cached, was_cached = verdict()
        fresh, _ = verdict("--no-cache")
        hits += was_cached
        assert cached == fresh, (
            f"seed {seed}, step {step}: the cached verdict {cached} is not the fresh one "
            f"{fresh}; the edits:\n" + "\n".join(edits[-20:])
        )
    print(
        f"seed {seed}: {STEPS} steps, {hits} read from the cache, no disagreement, "
        f"{time.monotonic() - started:.1f} s"
    )
    # Not a vacuous test: many steps change nothing the probe depended on.
    assert hits >= STEPS // 10
