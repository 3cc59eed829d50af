"""Synthetic trees at any size, for the benchmark: with vllm-omni's shape (`write_tree`), and
one where importing a platform module runs every module (`write_reach_tree`).

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
    return _static("synth", entries, follow="synth.platforms")


def _static(root: str, debt: str, *, follow: str, excused: str = "") -> str:
    """R2 over `root.platforms` with the `debt` allowlisted, and R4 from each platform module
    through `follow`, with the eager imports `excused`."""
    r4_entries = f"require_reasons = true\nignore_imports =\n{excused}" if excused else ""
    return f"""\
[importlinter]
root_package = {root}
exclude_type_checking_imports = true
contract_types =
    backend_isolation: importlinter_contracts.BackendIsolationContract
    eager_imports: importlinter_contracts.EagerImportContract

[importlinter:contract:r2]
name = R2
type = backend_isolation
container = {root}.platforms
require_reasons = true
ignore_imports =
{debt}
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules =
    {root}.platforms.*.platform
follow_modules =
    {follow}
forbidden_modules =
    {root}.platforms.*.models
{r4_entries}"""


# A tree where importing a platform module runs every module: the eager-import contract's
# worst case, where it follows (and reads) the whole package, as the shipped R4 follows all
# of vllm_omni.

REACH_FOLLOWED = 3  # eager imports of random modules, besides the chain, per module

# Each way a module's import can run at import time; the chain through a subsystem uses them
# in turn, so that every file needs its block structure read. `{target}` is a module name.
EAGER_KINDS = (
    "import {target}\n",
    "class Holder:\n    import {target}\n",
    "try:\n    import {target}\nexcept ImportError:\n    pass\n",
    "if os.name:\n    import {target}\nelse:\n    pass\n",
    "with contextlib.suppress(ImportError):\n    import {target}\n",
)
# An import in a function that the module calls at import time.
CALLED = "def _load():\n    import {target}\n\n\n_load()\n"
# One module in CALLING makes each kind of call at import time: of its own function (in the
# chain), and of another module's (as registration code does); vllm-omni 0.30.0 has calls
# at import time that reach a function of its own in 4 % of its modules.
CALLING = 20
# Imports that do not run at import time: the contract must tell them apart.
DEFERRED_KINDS = (
    "def later():\n    import {target}\n",
    "if TYPE_CHECKING:\n    import {target}\n",
)


def _reach_modules(modules: int) -> tuple[list[str], list[str]]:
    """The fixed modules (root, platforms) and the neutral ones, about `modules` in all."""
    fixed = ["reach", "reach.registry", "reach.platforms", "reach.platforms.interface"]
    for backend in BACKENDS:
        base = f"reach.platforms.{backend}"
        fixed += [base, f"{base}.platform", f"{base}.hooks", f"{base}.models"]
        fixed += [f"{base}.models.m{number}" for number in range(MODELS_PER_BACKEND)]
    neutral = []
    subsystem = 0
    while len(fixed) + len(neutral) < modules:
        neutral.append(f"reach.s{subsystem}")
        neutral += [f"reach.s{subsystem}.m{n}" for n in range(MODULES_PER_SUBSYSTEM - 1)]
        subsystem += 1
    return fixed, neutral


def write_reach_tree(root: Path, modules: int, seed: int = 0) -> int:
    """Write about `modules` modules of `reach` under `root`, where importing any platform
    module runs every module: the root package imports the first subsystem, each subsystem
    package its first module and the next subsystem, each module the next one (in a class
    body, a try, an if, a with, at module level or inside a function it calls at import time)
    and a few random others, and calls a function of an earlier module at import time. Each
    module also has imports that do not run (inside a function nobody calls, under
    TYPE_CHECKING). Return how many modules were written (lint-imports counts the imports)."""
    rng = random.Random(seed)
    fixed, neutral = _reach_modules(modules)
    package = root / "reach"

    def write(module: str, text: str, is_package: bool = False) -> None:
        relative = Path(*module.split(".")[1:])
        path = (
            (package / relative / "__init__.py")
            if is_package
            else (package / relative).with_suffix(".py")
        )
        header = "import contextlib\nimport os\nfrom typing import TYPE_CHECKING\n\n"
        body = header + text + FILLER.format(n=rng.randrange(1000))
        _write(path, body)

    first = neutral[0] if neutral else "reach.registry"
    write("reach", f"import {first}\n", is_package=True)
    write("reach.registry", "")
    write("reach.platforms", "from reach.platforms import interface\n", is_package=True)
    write("reach.platforms.interface", "import enum\n")
    for backend in BACKENDS:
        base = f"reach.platforms.{backend}"
        write(base, f"from {base}.platform import Platform\n", is_package=True)
        write(
            f"{base}.platform",
            "from reach import registry\n"
            "from reach.platforms.interface import *\n"
            f"from {base} import hooks\n"
            "\n\nclass Platform:\n"
            "    def load_models(self):\n"
            f"        from {base}.models import m0\n"
            "        return m0\n",
        )
        write(f"{base}.hooks", f"def apply():\n    from {base}.models import m1\n")
        write(f"{base}.models", "", is_package=True)
        for number in range(MODELS_PER_BACKEND):
            write(f"{base}.models.m{number}", "")

    for index, module in enumerate(neutral):
        is_package = module.count(".") == 1
        following = neutral[index + 1] if index + 1 < len(neutral) else None
        parts = []
        if is_package:
            if following is not None:
                parts.append(f"import {following}\n")  # the subsystem's first module
            later = next((m for m in neutral[index + 1 :] if m.count(".") == 1), None)
            if later is not None:
                parts.append(EAGER_KINDS[2].format(target=later))
        elif following is not None and following.count(".") == 2:
            # The chain runs through a function called at import time in one module of
            # CALLING, and through the other kinds in turn elsewhere.
            kind = CALLED if index % CALLING == 0 else EAGER_KINDS[index % len(EAGER_KINDS)]
            parts.append(kind.format(target=following))
        for target in rng.sample(neutral, min(REACH_FOLLOWED, len(neutral))):
            if target != module:
                parts.append(rng.choice(EAGER_KINDS).format(target=target))
        # A function of this module that an import-time call elsewhere may run.
        parts.append(f"def configure():\n    import {rng.choice(neutral)}\n")
        if index > 1 and not is_package and index % CALLING == CALLING // 2:
            earlier = neutral[rng.randrange(index)]
            if earlier.count(".") == 2:
                parts.append(f"from {earlier} import configure as configure_earlier\n")
                parts.append("configure_earlier()\n")
        parts.append(rng.choice(DEFERRED_KINDS).format(target=rng.choice(neutral)))
        write(module, "\n".join(parts), is_package=is_package)

    # One eager import into forbidden code, excused by R4's and R2's allowlists, and some R2
    # debt inside functions that nobody calls.
    debt = neutral[1:2]
    for importer in debt:
        path = package / Path(*importer.split(".")[1:]).with_suffix(".py")
        with path.open("a") as handle:
            handle.write(
                "\n\ntry:\n    from reach.platforms.npu.models import m2\n"
                "except ImportError:\n    pass\n"
            )
    return len(fixed) + len(neutral)


def reach_configuration() -> str:
    """R2 and a whole-package R4 for the reach tree, as the shipped `.importlinter` has them
    for vllm-omni."""
    debt = "    reach.s0.m0 -> reach.platforms.npu.models.m2  # debt\n"
    return _static("reach", debt, follow="reach", excused=debt.replace("debt", "excused"))
