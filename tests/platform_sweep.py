"""A randomized sweep of realistic multi-backend platform packages against CPython.

Each generated package has a platform base class whose classmethods call each other through
`cls`, backends that override them and call the base's with `super()`, a registry filled by
decorators, detectors with optional-dependency guards, a class chosen by a conditional
expression, a lazy module `__getattr__`, and importlib registries; its entry modules use
them at import time. Each entry module is imported by Python in a fresh interpreter, and
what it loads is compared with the eager closure the contracts work out:

    python tests/platform_sweep.py --packages 500 --seed 0

Each entry is classified (and the independent walk of `tools/ast_walk.py` must predict the
same closure): `agree`, `more` (the closure holds more than Python loaded: a form
taken loosely, every alternative followed), or `less` (a miss). A miss is `documented`
where the entry uses a form the documentation lists as not followed (`NOT_FOLLOWED`), else
`undocumented`, which the test of this sweep refuses.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import textwrap
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# Forms the documentation lists as not followed, which the generator uses: a registry that
# decorators fill at run time (`REGISTRY["x"]`), a method of an object (`platform.f()`), what
# a module `__getattr__` returns (`from pkg.platforms import Lazy; Lazy.f()`), a dynamic
# import whose name comes from a parameter.
NOT_FOLLOWED = {
    "registry filled at run time": "a subscript of a dict filled at run time",
    "method of an object": "methods of objects",
    "what __getattr__ returns": "what a module __getattr__ returns is not known",
    "dynamic import of a parameter": "a dynamic import whose name is computed otherwise",
}
# Forms taken loosely (more loaded, never less): every alternative is followed.
LOOSE = {"alternatives", "detector", "rebound"}

CONDITIONS = [
    ('sys.platform == "never"', False),
    ('sys.platform != "never"', True),
    ('os.environ.get("PLATFORM_SWEEP_UNSET") is not None', False),
]


@dataclass
class Package:
    top: str
    files: dict[str, str] = field(default_factory=dict)
    # Each entry module, with the forms it uses.
    entries: dict[str, set[str]] = field(default_factory=dict)


def generate(rng: random.Random, top: str) -> Package:
    """A package named `top`."""
    package = Package(top)
    files = package.files
    heavy = [f"{top}.heavy.m{i}" for i in range(rng.randint(4, 8))]
    files[f"{top}/__init__.py"] = ""
    files[f"{top}/heavy/__init__.py"] = ""
    for name in heavy:
        files[name.replace(".", "/") + ".py"] = ""
    methods = [f"m{i}" for i in range(rng.randint(3, 6))]

    def body(index: int, *, override: bool) -> list[str]:
        """A classmethod's body: imports, calls through `cls` of later methods (so that no
        call runs for ever), `super()` in an override, a dynamic import."""
        lines = []
        for _ in range(rng.randint(0, 3)):
            kind = rng.random()
            if kind < 0.3:
                lines.append(f"import {rng.choice(heavy)}")
            elif kind < 0.55 and index + 1 < len(methods):
                lines.append(f"cls.{rng.choice(methods[index + 1 :])}()")
            elif kind < 0.7 and override:
                lines.append(f"super().{methods[index]}()")
            elif kind < 0.8:
                lines.append(f"importlib.import_module({rng.choice(heavy)!r})")
            elif kind < 0.85:
                prefix, _, last = rng.choice(heavy).rpartition(".")
                lines.append(f"for name in ({last!r},):")
                lines.append(f"    importlib.import_module(f'{prefix}.{{name}}')")
        return lines or ["pass"]

    base = ["import importlib", "", "", "class Platform:"]
    for index, method in enumerate(methods):
        base += ["    @classmethod", f"    def {method}(cls):"]
        base += [f"        {line}" for line in body(index, override=False)]
    base += ["    @staticmethod", "    def load(name):", "        importlib.import_module(name)"]
    files[f"{top}/platforms/base.py"] = "\n".join(base) + "\n"

    backends = [f"b{i}" for i in range(rng.randint(2, 4))]
    registered = rng.random() < 0.6
    for backend in backends:
        lines = ["import importlib", f"from {top}.platforms.base import Platform"]
        if registered:
            lines.append(f"from {top}.platforms.registry import register")
        lines += ["", ""]
        if registered:
            lines.append(f"@register({backend!r})")
        lines.append(f"class {backend.upper()}Platform(Platform):")
        overridden = [i for i in range(len(methods)) if rng.random() < 0.5]
        for index in overridden:
            lines += ["    @classmethod", f"    def {methods[index]}(cls):"]
            lines += [f"        {line}" for line in body(index, override=True)]
        if not overridden:
            lines.append("    pass")
        if rng.random() < 0.3:
            lines += ["", "", f"import {rng.choice(heavy)}"]
        files[f"{top}/platforms/{backend}.py"] = "\n".join(lines) + "\n"
    files[f"{top}/platforms/registry.py"] = textwrap.dedent(
        """\
        REGISTRY = {}


        def register(name):
            def deco(cls):
                REGISTRY[name] = cls
                return cls
            return deco
        """
    )

    # The platforms package: a detector with an optional-dependency guard, a class chosen
    # by it, an importlib registry, a lazy `__getattr__`.
    first, second = rng.sample(backends, 2)
    lazy = rng.choice(backends)
    init = [
        "import importlib",
        "import os",
        "import sys",
        "",
        f"from {top}.platforms.{first} import {first.upper()}Platform",
        f"from {top}.platforms.{second} import {second.upper()}Platform",
        "",
        "",
        "def _has_sdk():",
        "    try:",
        "        import sweep_sdk_that_is_not_installed  # noqa: F401",
        "    except ImportError:",
        "        return False",
        "    return True",
        "",
        "",
        f"Current = {first.upper()}Platform if _has_sdk() else {second.upper()}Platform",
        "",
        "_BACKENDS = {" + ", ".join(f"{b!r}: '{top}.platforms.{b}'" for b in backends) + "}",
        "",
        "",
        "def load_backends():",
        "    for module in _BACKENDS.values():",
        "        importlib.import_module(module)",
        "",
        "",
        "def load_backend(name):",
        "    return importlib.import_module(_BACKENDS[name])",
        "",
        "",
        "def __getattr__(name):",
        '    if name == "Lazy":',
        f"        from {top}.platforms.{lazy} import {lazy.upper()}Platform as Lazy",
        "        return Lazy",
        "    raise AttributeError(name)",
    ]
    if rng.random() < 0.4:
        init += ["", "", "load_backends()"]
    if rng.random() < 0.5:
        init += ["", "", "current_platform = Current()"]
    else:
        init += ["", "", "current_platform = None"]
    files[f"{top}/platforms/__init__.py"] = "\n".join(init) + "\n"
    files[f"{top}/helpers.py"] = "\n".join(
        [
            *(
                f"def {name}():\n    import {rng.choice(heavy)}\n"
                for name in ("fast_path", "slow_path")
            ),
        ]
    )

    for number in range(rng.randint(2, 4)):
        lines = ["import importlib", "import os", "import sys", ""]
        explicit = list(lines)
        forms: set[str] = set()
        for _ in range(rng.randint(1, 3)):
            written, equivalent = entry_statement(
                rng, top, backends, methods, heavy, forms, registered, lazy
            )
            lines += written
            explicit += equivalent
        for name in ("P", "REG"):
            if sum(line.startswith(f"{name} = ") for line in lines) > 1:
                # (A name bound more than once counts as each of its bindings.)
                forms.add("rebound")
        module = f"{top}.entry{number}"
        files[module.replace(".", "/") + ".py"] = "\n".join(lines) + "\n"
        files[module.replace(".", "/") + "_explicit.py"] = "\n".join(explicit) + "\n"
        package.entries[module] = forms
    return package


def entry_statement(
    rng: random.Random,
    top: str,
    backends: list[str],
    methods: list[str],
    heavy: list[str],
    forms: set[str],
    registered: bool,
    lazy: str,
) -> tuple[list[str], list[str]]:
    """A statement an entry module runs at import time (adding the forms it uses to
    `forms`); and, for a form not followed, the statement written in forms that are (what
    Python then runs: `REGISTRY["b0"].f()` as `B0Platform.f()`), to tell a documented miss."""
    lines = _statement(rng, top, backends, methods, heavy, forms, registered, lazy)
    return lines if isinstance(lines, tuple) else (lines, lines)


def _statement(
    rng: random.Random,
    top: str,
    backends: list[str],
    methods: list[str],
    heavy: list[str],
    forms: set[str],
    registered: bool,
    lazy: str,
) -> list[str] | tuple[list[str], list[str]]:
    backend = rng.choice(backends)
    cls = f"{backend.upper()}Platform"
    method = rng.choice(methods)
    condition, _ = rng.choice(CONDITIONS)
    kind = rng.randrange(12)
    if kind == 0 or (kind == 4 and not registered):
        return [f"from {top}.platforms.{backend} import {cls}", f"{cls}.{method}()"]
    if kind == 1:
        other = rng.choice(backends)
        forms.add("alternatives")
        return [
            f"from {top}.platforms.{backend} import {cls}",
            f"from {top}.platforms.{other} import {other.upper()}Platform",
            f"P = {cls} if {condition} else {other.upper()}Platform",
            f"P.{method}()",
        ]
    if kind == 2:
        return [
            f"from {top}.platforms.{backend} import {cls}",
            f"P = None or {cls}",
            f"P.{method}()",
        ]
    if kind == 3:
        other = rng.choice(backends)
        forms.add("alternatives")
        return [
            f"from {top}.platforms.{backend} import {cls}",
            f"from {top}.platforms.{other} import {other.upper()}Platform",
            f"REG = {{'a': {cls}, 'b': {other.upper()}Platform}}",
            f"REG[{rng.choice('ab')!r}].{method}()",
        ]
    if kind == 4:
        forms.add("registry filled at run time")
        return [
            f"import {top}.platforms.{backend}",
            f"from {top}.platforms.registry import REGISTRY",
            f"REGISTRY[{backend!r}].{method}()",
        ], [
            f"import {top}.platforms.{backend}",
            f"from {top}.platforms.registry import REGISTRY",
            f"{top}.platforms.{backend}.{cls}.{method}()",
        ]
    if kind == 5:
        forms.add("alternatives")
        return [
            f"from {top}.helpers import fast_path, slow_path",
            f"(fast_path if {condition} else slow_path)()",
        ]
    if kind == 6:
        return [f"importlib.import_module({rng.choice(heavy)!r})"]
    if kind == 7:
        names = rng.sample([h.rpartition(".")[2] for h in heavy], 2)
        joined = rng.choice(
            [
                f"f'{top}.heavy.{{name}}'",
                f"'{top}.heavy.' + name",
                f"'{top}.heavy.%s' % name",
                f"'{top}.heavy.{{}}'.format(name)",
            ]
        )
        return [f"for name in {tuple(names)!r}:", f"    importlib.import_module({joined})"]
    if kind == 8:
        return [f"from {top}.platforms import load_backends", "load_backends()"]
    if kind == 9:
        forms.add("what __getattr__ returns")
        return [f"from {top}.platforms import Lazy", f"Lazy.{method}()"], [
            f"from {top}.platforms import Lazy",
            f"from {top}.platforms.{lazy} import {lazy.upper()}Platform",
            f"{lazy.upper()}Platform.{method}()",
        ]
    if kind == 10:
        forms.add("detector")
        return [f"from {top}.platforms import Current", f"Current.{method}()"]
    forms.add("dynamic import of a parameter")
    forms.add("method of an object")
    return [
        f"from {top}.platforms import load_backend, current_platform",
        f"load_backend({backend!r})",
        f"if current_platform is not None:\n    current_platform.{method}()",
    ], [
        f"from {top}.platforms import load_backend, current_platform, Current",
        f"importlib.import_module('{top}.platforms.{backend}')",
        f"if current_platform is not None:\n    Current.{method}()",
    ]


def loaded_by_python(root: Path, module: str, top: str) -> set[str]:
    code = (
        f"import json, sys\nimport {module}\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m == {top!r} "
        f"or m.startswith({top + '.'!r}))))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    return set(json.loads(completed.stdout.splitlines()[-1]))


def classify(loaded: set[str], closure: set[str], explicit: set[str], forms: set[str]) -> str:
    """An entry's class: `explicit` is the closure of the entry written without the forms
    not followed, which must hold what Python loaded for a miss to be documented."""
    if loaded == closure:
        return "agree"
    if loaded <= closure:
        return "more (documented)" if forms & LOOSE else "more (undocumented)"
    documented = forms & NOT_FOLLOWED.keys() and loaded <= explicit
    return "less (documented)" if documented else "less (undocumented)"


def sweep(count: int, seed: int, *, verbose: bool = False) -> tuple[Counter[str], list[str]]:
    """Generate `count` packages from `seed`, check each entry: the counts by class, and
    the cases of each undocumented difference (their files, for a test to show)."""
    import ast_walk as oracle
    from importlinter_contracts import explore

    counts: Counter[str] = Counter()
    cases: list[str] = []
    start = os.getcwd()
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        # (A dynamic import of a computed name is a warning: the sweep counts the misses.)
        warnings.simplefilter("ignore")
        try:
            for index in range(count):
                rng = random.Random(f"{seed}:{index}")
                top = f"sweep{seed}_{index}"
                package = generate(rng, top)
                root = Path(folder) / top
                for relative, text in package.files.items():
                    path = root / relative
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text)
                (root / ".importlinter").write_text(f"[importlinter]\nroot_package = {top}\n")
                os.chdir(root)
                explorer = explore.load(cache_dir=None)
                for module, forms in package.entries.items():
                    loaded = loaded_by_python(root, module, top)
                    closure = set(explorer.eager_closure(module))
                    written = set(explorer.eager_closure(f"{module}_explicit"))
                    # (The same modules, but for the entry's own.)
                    explicit = written - {f"{module}_explicit"} | {module}
                    verdict = classify(loaded, closure, explicit, forms)
                    counts[verdict] += 1
                    if verdict != "agree":
                        # (Which forms the entries that differ use, for the note.)
                        for form in sorted(forms & (LOOSE | NOT_FOLLOWED.keys())):
                            counts[f"{verdict.split()[0]}, using: {form}"] += 1
                    # The independent walk of `tools/ast_walk.py` predicts the same closure.
                    if oracle.eager_closure(root, module) == closure:
                        counts["oracle agrees"] += 1
                    else:
                        cases.append(f"the oracle differs: {module} (seed {seed}, package {index})")
                    if "undocumented" in verdict:
                        cases.append(
                            f"{verdict}: {module} (seed {seed}, package {index}): "
                            f"missed {sorted(loaded - closure)}, more {sorted(closure - loaded)}"
                        )
                        if verbose:
                            print(cases[-1], file=sys.stderr, flush=True)
                if str(root) in sys.path:
                    sys.path.remove(str(root))
        finally:
            os.chdir(start)
    counts["packages"] = count
    return counts, cases


def main() -> None:
    # (Run as a script: the oracle is in tools/, which pytest puts on the path.)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    counts, _ = sweep(arguments.packages, arguments.seed, verbose=True)
    print(json.dumps(dict(sorted(counts.items())), indent=2))


if __name__ == "__main__":
    main()
