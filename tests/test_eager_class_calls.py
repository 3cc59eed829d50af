"""Calls that run through classes at import time (`cls.f()`, `self.f()`, `super().f()`, a
method a base defines), names bound to alternatives (`X = A if c else B`, `or`, a literal
registry subscripted), callees that are expressions, and `importlib.import_module` /
`__import__` with names the text spells out. Every expectation comes from Python itself:
the synthetic package is imported in a fresh interpreter, and its `sys.modules` is what the
analysis (and the independent `ast` walk of `tools/`) must predict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from test_eager_calls import LIBRARY, R4, loaded_by_python

import ast_walk as oracle
from helpers import Project, imports_of
from importlinter_contracts import explore

pytestmark = pytest.mark.matrix

# A platform base class whose classmethods call each other through `cls`, and two
# platforms that override what it calls (each importing a heavy module of its own).
PLATFORMS = {
    "pkg/heavy/c.py": "",
    "pkg/plat/__init__.py": "",
    "pkg/plat/base.py": """\
        class Platform:
            @classmethod
            def setup(cls):
                cls.import_kernels()

            @classmethod
            def import_kernels(cls):
                pass

            def check(self):
                self.import_kernels()

            @staticmethod
            def helper(cls):
                cls.import_kernels()
        """,
    "pkg/plat/cuda.py": """\
        from pkg.plat.base import Platform

        class CudaPlatform(Platform):
            @classmethod
            def import_kernels(cls):
                import pkg.heavy.a

        class RocmPlatform(Platform):
            @classmethod
            def import_kernels(cls):
                import pkg.heavy.b
                super().import_kernels()

        class TunedRocm(RocmPlatform):
            @classmethod
            def import_kernels(cls):
                super().import_kernels()
        """,
    "pkg/plat/chosen.py": """\
        import sys
        from pkg.plat.cuda import CudaPlatform, RocmPlatform

        Chosen = CudaPlatform if sys.platform == "never" else RocmPlatform
        """,
    "pkg/fns.py": "def fast():\n    import pkg.heavy.a\n\ndef slow():\n    import pkg.heavy.b\n",
    "pkg/dyn/__init__.py": "",
    "pkg/dyn/x.py": "",
    "pkg/dyn/y.py": "",
    "pkg/dyn/z.py": "",
    "pkg/dyn/pkgrel/__init__.py": (
        "import importlib\nimportlib.import_module('.inner', package=__name__)\n"
    ),
    "pkg/dyn/pkgrel/inner.py": "import pkg.heavy.a\n",
    # A lazy registry: a module `__getattr__` that imports the module a literal dict names
    # for the name asked.
    "pkg/lazyreg/__init__.py": """\
        import importlib

        _CLASS_TO_MODULE: dict[str, str] = {"A": "pkg.heavy.a", "B": "pkg.heavy.b"}

        def __getattr__(name):
            if name in _CLASS_TO_MODULE:
                module_name = _CLASS_TO_MODULE[name]
                return importlib.import_module(module_name)
            raise AttributeError(name)
        """,
    "pkg/heavy/sub/__init__.py": "",
    "pkg/heavy/sub/m.py": "",
}

LOADS = {
    "a classmethod calling another through cls": (
        "from pkg.plat.cuda import CudaPlatform\nCudaPlatform.setup()\n"
    ),
    "a classmethod inherited, called through the subclass": (
        "from pkg.plat import cuda\ncuda.RocmPlatform.setup()\n"
    ),
    "super() in an override, two levels": (
        "from pkg.plat.cuda import TunedRocm\nTunedRocm.import_kernels()\n"
    ),
    "a method calling another through self, called through the class": (
        "from pkg.plat.cuda import CudaPlatform\nCudaPlatform.check(CudaPlatform)\n"
    ),
    "a class chosen with or": (
        "from pkg.plat.cuda import CudaPlatform, RocmPlatform\n"
        "P = None or RocmPlatform\nP.import_kernels()\n"
    ),
    "a function assigned to another name": "from pkg.fns import slow\nrun = slow\nrun()\n",
    "a static method inherited by a subclass": (
        "class C:\n    @staticmethod\n    def load():\n        import pkg.heavy.a\n"
        "class D(C):\n    pass\nD.load()\n"
    ),
    "import_module with a literal name": "import importlib\nimportlib.import_module('pkg.dyn.x')\n",
    "import_module imported by name": (
        "from importlib import import_module\nimport_module('pkg.heavy.a')\n"
    ),
    "importlib.__import__ with a literal name": (
        "import importlib\nimportlib.__import__('pkg.heavy.a')\n"
    ),
    "__import__ with a literal name and a fromlist": "__import__('pkg.heavy.sub', fromlist=['m'])\n",
    "__import__ with a level": "__import__('heavy.a', globals(), locals(), [], 1)\n",
    "import_module relative to __package__": (
        "import importlib\nimportlib.import_module('.heavy.a', __package__)\n"
    ),
    "import_module relative to __name__ in a package": "import pkg.dyn.pkgrel\n",
    "import_module of a prefix and each name of a literal tuple": (
        "import importlib\nfor name in ('x', 'y'):\n"
        "    importlib.import_module(f'pkg.dyn.{name}')\n"
    ),
    "import_module with + and a module's literal list": (
        "import importlib\nNAMES = ['x', 'z']\nfor name in NAMES:\n"
        "    importlib.import_module('pkg.dyn.' + name)\n"
    ),
    "import_module with % over a dict's keys, in a comprehension": (
        "import importlib\nKINDS = {'y': 1, 'z': 2}\n"
        "mods = [importlib.import_module('pkg.dyn.%s' % k) for k in KINDS]\n"
    ),
    "import_module with .format over a dict's items": (
        "import importlib\nKINDS = {'a': 'x', 'b': 'y'}\nfor key, value in KINDS.items():\n"
        "    importlib.import_module('pkg.dyn.{}'.format(value))\n"
    ),
    "import_module of a dict's string values": (
        "import importlib\nBACKENDS = {'a': 'pkg.heavy.a', 'b': 'pkg.heavy.b'}\n"
        "for module in BACKENDS.values():\n    importlib.import_module(module)\n"
    ),
    "a lazy __getattr__ importing the module a literal dict maps the name to": (
        "from pkg.lazyreg import B\n"
    ),
    "import_module of a variable assigned a joined name": (
        "import importlib\nBASE = 'pkg.dyn'\nname = BASE + '.z'\nimportlib.import_module(name)\n"
    ),
    "import_module in a function called at import time": (
        "import importlib\ndef load():\n    importlib.import_module('pkg.heavy.b')\nload()\n"
    ),
    "import_module in a classmethod called through cls": (
        "import importlib\nclass P:\n    @classmethod\n    def setup(cls):\n"
        "        cls.load()\n    @classmethod\n    def load(cls):\n"
        "        importlib.import_module('pkg.heavy.a')\nP.setup()\n"
    ),
}

# What Python does not run, and the analysis must not load: the method the class it was
# called through does not have, a function only defined, a dynamic import in a function
# never called or under `if TYPE_CHECKING:`.
DOES_NOT_LOAD = {
    "the method of a sibling class": (
        "from pkg.plat.cuda import CudaPlatform\nCudaPlatform.setup()\n"
    ),
    "the base's method, not the override's": (
        "from pkg.plat.base import Platform\nPlatform.setup()\n"
    ),
    "a static method's first parameter is not the class": (
        "from pkg.plat.base import Platform\nPlatform.helper(Platform)\n"
    ),
    "a dynamic import in a function never called": (
        "import importlib\ndef load():\n    importlib.import_module('pkg.heavy.a')\n"
    ),
    "a dynamic import under TYPE_CHECKING": (
        "import importlib\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    importlib.import_module('pkg.heavy.a')\n"
    ),
    "a lazy __getattr__ for a name its dict does not map": (
        "try:\n    from pkg.lazyreg import C\nexcept ImportError:\n    pass\n"
    ),
    "a dynamic import in a lambda": (
        "import importlib\nload = lambda: importlib.import_module('pkg.heavy.a')\n"
    ),
}

# Taken loosely: every alternative is followed, whichever Python takes.
TAKEN_LOOSELY = {
    "a class chosen by a conditional expression, then called": (
        "from pkg.plat.chosen import Chosen\nChosen.setup()\n"
    ),
    "a class chosen in this module, then called": (
        "import sys\nfrom pkg.plat.cuda import CudaPlatform, RocmPlatform\n"
        "P = CudaPlatform if sys.platform == 'never' else RocmPlatform\nP.setup()\n"
    ),
    "a literal registry of classes, subscripted": (
        "from pkg.plat.cuda import CudaPlatform, RocmPlatform\n"
        "REGISTRY = {'cuda': CudaPlatform, 'rocm': RocmPlatform}\n"
        "REGISTRY['rocm'].import_kernels()\n"
    ),
    "a subscripted literal tuple bound to a name": (
        "from pkg.plat.cuda import CudaPlatform, RocmPlatform\n"
        "P = (CudaPlatform, RocmPlatform)[1]\nP.setup()\n"
    ),
    "a callee that is a conditional expression": (
        "import sys\nfrom pkg.fns import fast, slow\n(fast if sys.platform == 'never' else slow)()\n"
    ),
    "a name bound to alternatives in a function called then": (
        "import sys\nfrom pkg.fns import fast, slow\n"
        "def go():\n    impl = fast if sys.platform == 'never' else slow\n    impl()\ngo()\n"
    ),
}

# Dynamic imports whose name is computed otherwise: not followed, and a warning says so.
NOT_FOLLOWED = {
    "a name from a parameter": (
        "import importlib\ndef load(name):\n    importlib.import_module(name)\n"
        "load('pkg.heavy.a')\n",
        3,
    ),
    "a name computed by a call": (
        "import importlib\nimportlib.import_module('pkg.heavy.A'.lower())\n",
        2,
    ),
    "a variable assigned again, to what the text does not spell out": (
        "import importlib\nname = 'pkg.dyn.x'\nname = 'pkg.heavy.a'.strip()\n"
        "importlib.import_module(name)\n",
        4,
    ),
    "a name from the characters of a string": (
        "import importlib\nfor c in 'a':\n    importlib.import_module('pkg.heavy.' + c)\n",
        3,
    ),
}


def _runs(python: str) -> bool:
    """Whether a Python found on PATH runs (a pyenv shim of a version not set runs none)."""
    return subprocess.run([python, "-c", "pass"], capture_output=True).returncode == 0


def loaded_by(python: str, project: Project, module: str) -> set[str]:
    """The modules of `pkg` that importing `module` loads, in a fresh `python`."""
    code = (
        f"import json, sys\nimport {module}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'pkg' or m.startswith('pkg.'))))"
    )
    completed = subprocess.run(
        [python, "-c", code], cwd=project.root, capture_output=True, text=True, check=True
    )
    return set(json.loads(completed.stdout.splitlines()[-1]))


def check(project: Project, source: str) -> tuple[set[str], set[str]]:
    """What Python loads importing `pkg.source`, and the contract's closure of it; the
    violations agree with the closure, and the independent walk with both."""
    project.write({**LIBRARY, **PLATFORMS, "pkg/source.py": source})
    project.configure(R4)
    loaded = loaded_by_python(project, "pkg.source")
    closure = set(explore.load(cache_dir=None).eager_closure("pkg.source"))
    heavy = {m for m in closure if m.startswith("pkg.heavy.")}
    violations = imports_of(project.contract("r4")["violations"])
    assert {imported for _, imported in violations} == heavy
    assert oracle.eager_closure(project.root, "pkg.source") == closure
    assert (
        oracle.eager_violations(project.root, {"pkg.source"}, "pkg", {"pkg.heavy"}, set())[0]
        == violations
    )
    return loaded, closure


@pytest.mark.parametrize("source", LOADS.values(), ids=LOADS.keys())
def test_a_call_through_a_class_or_a_dynamic_import_loads_what_python_loads(
    project: Project, source: str
) -> None:
    loaded, closure = check(project, source)
    assert closure == loaded
    assert any(m.startswith(("pkg.heavy.", "pkg.dyn.")) for m in loaded)


@pytest.mark.parametrize("source", DOES_NOT_LOAD.values(), ids=DOES_NOT_LOAD.keys())
def test_what_python_does_not_run_is_not_loaded(project: Project, source: str) -> None:
    loaded, closure = check(project, source)
    assert closure == loaded
    # (The sibling's module, and any other heavy one.)
    assert "pkg.heavy.b" not in closure
    assert "pkg.heavy.a" not in closure or "CudaPlatform" in source


@pytest.mark.parametrize("source", TAKEN_LOOSELY.values(), ids=TAKEN_LOOSELY.keys())
def test_alternatives_are_taken_loosely_more_never_less(project: Project, source: str) -> None:
    loaded, closure = check(project, source)
    assert loaded < closure
    assert any(m.startswith("pkg.heavy.") for m in loaded)


@pytest.mark.parametrize(("source", "line"), NOT_FOLLOWED.values(), ids=NOT_FOLLOWED.keys())
def test_a_dynamic_import_of_a_computed_name_is_a_warning(
    project: Project, source: str, line: int
) -> None:
    project.write({**LIBRARY, **PLATFORMS, "pkg/source.py": source})
    project.configure(R4)
    assert "pkg.heavy.a" in loaded_by_python(project, "pkg.source")
    report = project.contract("r4")
    assert report["kept"]
    assert report["warnings"] == [
        f"pkg/source.py:{line}: importlib.import_module runs at import time with a module name "
        "computed at run time: the modules it imports are not seen."
    ]


def test_a_dynamic_import_hop_names_the_call_in_json_text_and_explore(project: Project) -> None:
    project.write(
        {
            **LIBRARY,
            "pkg/source.py": (
                "import importlib\n\ndef load():\n    importlib.import_module('pkg.heavy.a')\n"
                "\nload()\n"
            ),
        }
    )
    project.configure(R4)
    (violation,) = project.contract("r4")["violations"]
    why = "importlib.import_module at l.4, inside def load, called at import time at l.6"
    (hop,) = violation["chain"]
    assert hop == {
        "importer": "pkg.source",
        "imported": "pkg.heavy.a",
        "line_numbers": [4],
        "why": [why],
        "locations": [{"path": "pkg/source.py", "line": 4}],
        "calls": [
            [
                {
                    "module": "pkg.source",
                    "line": 6,
                    "function": "pkg.source:load",
                    "location": {"path": "pkg/source.py", "line": 6},
                }
            ]
        ],
    }
    output = project.lint_imports().output
    assert f"-   pkg.source -> pkg.heavy.a (l.4, {why})\n    pkg/source.py:4\n" in output
    explorer = explore.load(cache_dir=None)
    chain = explorer.eager_closure("pkg.source")["pkg.heavy.a"]
    last = f"  pkg.source -> pkg.heavy.a: l.4 eager, {why} (pkg/source.py:4)"
    assert repr(chain).splitlines()[-1] == last


def test_a_module_level_dynamic_import_hop_says_which_call(project: Project) -> None:
    project.write(
        {**LIBRARY, "pkg/source.py": "import importlib\nimportlib.import_module('pkg.heavy.b')\n"}
    )
    project.configure(R4)
    (violation,) = project.contract("r4")["violations"]
    assert violation["chain"][0]["why"] == ["importlib.import_module at l.2"]
    assert "calls" not in violation["chain"][0]


def test_a_call_through_a_class_names_the_class_it_runs_for(project: Project) -> None:
    project.write(
        {
            **LIBRARY,
            **PLATFORMS,
            "pkg/source.py": LOADS["a classmethod calling another through cls"],
        }
    )
    project.configure(R4)
    (violation,) = project.contract("r4")["violations"]
    (hop,) = violation["chain"][-1:]
    assert hop["why"] == [
        "inside def CudaPlatform.import_kernels (through pkg.plat.cuda.CudaPlatform), called by "
        "def Platform.setup (through pkg.plat.cuda.CudaPlatform) at l.4 of pkg.plat.base, "
        "called at import time at l.2 of pkg.source"
    ]
    assert [call["function"] for call in hop["calls"][0]] == [
        "pkg.plat.base:Platform.setup (through pkg.plat.cuda.CudaPlatform)",
        "pkg.plat.cuda:CudaPlatform.import_kernels (through pkg.plat.cuda.CudaPlatform)",
    ]


def other_pythons() -> list[str]:
    """Return the other Pythons at hand: 3.12, 3.13 on PATH, or those that
    IMPORTLINTER_CONTRACTS_PYTHONS names, separated as PATH is."""
    return [
        found
        for found in [
            *filter(None, os.environ.get("IMPORTLINTER_CONTRACTS_PYTHONS", "").split(os.pathsep)),
            *(shutil.which(f"python{version}") for version in ("3.12", "3.13")),
        ]
        if found and _runs(found)
    ]


# The forms load the same on the other Pythons at hand: the closure, which does not depend on
# the interpreter that runs the contract, is theirs too.
def test_other_pythons_load_what_3_11_loads_for_every_form(project: Project) -> None:
    others = other_pythons()  # (here, not at collection, which every worker does)
    if not others:
        pytest.skip("no python3.12 or python3.13 at hand")
    project.write({**LIBRARY, **PLATFORMS})
    forms = {**LOADS, **DOES_NOT_LOAD, **TAKEN_LOOSELY}
    for number, (name, source) in enumerate(forms.items()):
        module = f"pkg.form{number}"
        project.write({module.replace(".", "/") + ".py": source})
        expected = loaded_by_python(project, module)
        for python in others:
            assert loaded_by(python, project, module) == expected, (name, python)
