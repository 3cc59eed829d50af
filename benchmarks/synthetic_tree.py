"""Synthetic trees with vllm-omni's shape, at any size, for the scaling benchmark.

A root package `synth` holds a `platforms` container with five backends (a platform module
with module-level imports of thin hooks and a registry, and function-level imports of its
model bodies) and neutral subsystems of 100 modules each, whose modules import a few earlier
ones at module level and one inside a function. A handful of neutral modules import a
backend inside a function: the R2 debt that the configuration allowlists. However large the
tree, importing a platform module eagerly reaches the same few modules, so the eager-import
contract's work should not grow with it.
"""

from __future__ import annotations

import random
from pathlib import Path

BACKENDS = ("cuda", "rocm", "npu", "xpu", "musa")
MODELS_PER_BACKEND = 10
MODULES_PER_SUBSYSTEM = 100
ALLOWLISTED = 5

# A realistic module has a body, not just its imports: grimp reads all of it.
FILLER = '''

class Component{n}:
    """A component with some behaviour."""

    def __init__(self, size: int = {n}) -> None:
        self.size = size
        self.items: list[int] = [i * i for i in range(size % 7)]

    def total(self) -> int:
        return sum(self.items) + len(str(self.size))

    def describe(self) -> str:
        parts = [f"{{item:>4}}" for item in self.items]
        return ", ".join(parts) or "empty"


def helper_{n}(values: dict[str, int]) -> int:
    result = 0
    for key, value in sorted(values.items()):
        if key.startswith("x"):
            result += value
        else:
            result -= value
    return result
'''


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_tree(root: Path, modules: int, seed: int = 0) -> int:
    """Write about `modules` modules of `synth` under `root`; return how many were written."""
    rng = random.Random(seed)
    package = root / "synth"
    written = 0

    def module(relative: str, text: str) -> None:
        nonlocal written
        _write(package / relative, text + FILLER.format(n=written))
        written += 1

    module("__init__.py", "")
    module("registry.py", "")
    module("platforms/__init__.py", "from synth.platforms import interface\n")
    module("platforms/interface.py", "import enum\n")
    for backend in BACKENDS:
        module(
            f"platforms/{backend}/__init__.py",
            f"from synth.platforms.{backend}.platform import Platform\n",
        )
        module(
            f"platforms/{backend}/platform.py",
            "from synth import registry\n"
            "from synth.platforms.interface import *\n"
            f"from synth.platforms.{backend} import hooks\n"
            "\n\nclass Platform:\n"
            "    def load_models(self):\n"
            f"        from synth.platforms.{backend}.models import m0\n"
            "        return m0\n",
        )
        module(
            f"platforms/{backend}/hooks.py",
            f"def apply():\n    from synth.platforms.{backend}.models import m1\n",
        )
        module(f"platforms/{backend}/models/__init__.py", "")
        for number in range(MODELS_PER_BACKEND):
            module(f"platforms/{backend}/models/m{number}.py", "import os\n")

    neutral: list[str] = []
    subsystem = 0
    while written < modules:
        module(f"s{subsystem}/__init__.py", "")
        for number in range(MODULES_PER_SUBSYSTEM):
            name = f"synth.s{subsystem}.m{number}"
            eager = rng.sample(neutral, min(3, len(neutral)))
            lazy = rng.choice(neutral) if neutral else "os"
            body = "".join(f"import {target}\n" for target in eager)
            body += f"\n\ndef deferred():\n    import {lazy}\n"
            module(f"s{subsystem}/m{number}.py", body)
            neutral.append(name)
        subsystem += 1

    # The R2 debt: a few neutral modules reach into a backend inside a function.
    for importer in neutral[:ALLOWLISTED]:
        path = package / Path(*importer.split(".")[1:]).with_suffix(".py")
        with path.open("a") as handle:
            handle.write("\n\ndef use_npu():\n    from synth.platforms.npu.models import m2\n")
    return written


def configuration() -> str:
    """The static contracts for a synthetic tree, as vllm-omni's `.importlinter` has them."""
    entries = "".join(
        f"    synth.s0.m{n} -> synth.platforms.npu.models.m2  # debt {n}\n"
        for n in range(ALLOWLISTED)
    )
    return f"""\
[importlinter]
root_package = synth
exclude_type_checking_imports = true
contract_types =
    backend_isolation: importlinter_contracts.BackendIsolationContract
    eager_imports: importlinter_contracts.EagerImportContract

[importlinter:contract:r2]
name = R2
type = backend_isolation
container = synth.platforms
require_reasons = true
ignore_imports =
{entries}
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules =
    synth.platforms.*.platform
follow_modules =
    synth.platforms
forbidden_modules =
    synth.platforms.*.models
"""
