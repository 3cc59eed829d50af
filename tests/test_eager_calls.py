"""Calls at import time: the imports inside a function that runs while a module is imported
run then too. Every expectation here comes from Python itself: the synthetic package is
imported in a fresh interpreter, and its `sys.modules` is what the analysis must predict."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
import time
import types
from collections import Counter

import grimp
import pytest

import ast_walk as oracle
from helpers import Project, files_read, imports_of, patches_compiled
from importlinter_contracts import explore
from importlinter_contracts.cache import using_cache_directory
from importlinter_contracts.compiled import build
from importlinter_contracts.eager.contract import EagerImportContract
from importlinter_contracts.eager.name_resolution import NameResolver
from importlinter_contracts.eager.scope_cache import ScopeIndex
from importlinter_contracts.runtime.unexpected import eager_closure

pytestmark = pytest.mark.matrix

LIBRARY = {
    "pkg/__init__.py": "",
    "pkg/heavy/__init__.py": "",
    "pkg/heavy/a.py": "",
    "pkg/heavy/b.py": "",
    "pkg/lib.py": """\
        def load():
            import pkg.heavy.a

        def load_more():
            from pkg.helpers import load_b
            load_b()

        class Loader:
            def load(self):
                import pkg.heavy.a
        """,
    "pkg/helpers.py": "def load_b():\n    import pkg.heavy.b\n",
    "pkg/decorators.py": """\
        import functools

        def logged(f):
            @functools.wraps(f)
            def wrapper(*args, **kwargs):
                import pkg.heavy.a
                return f(*args, **kwargs)
            return wrapper
        """,
    "pkg/api/__init__.py": "from pkg.api.impl import load\n",
    "pkg/api/impl.py": "def load():\n    import pkg.heavy.a\n",
    "pkg/sub/__init__.py": "from pkg.sub import impl\n",
    "pkg/sub/impl.py": "def load():\n    import pkg.heavy.a\n",
    "pkg/star/__init__.py": "from .impl import *\n",
    "pkg/star/impl.py": "def load():\n    import pkg.heavy.a\n",
    "pkg/alias/__init__.py": "import pkg.lib as lib\n",
    # Star imports of each other: following a name goes round once.
    "pkg/ring/__init__.py": "",
    "pkg/ring/a.py": "from pkg.ring.b import *\ndef load():\n    import pkg.heavy.a\n",
    "pkg/ring/b.py": "from pkg.ring.a import *\n",
    # A cycle of three star imports, whose last module star-imports pkg.lib besides.
    "pkg/cycle/__init__.py": "",
    "pkg/cycle/a.py": "from pkg.cycle.b import *\n",
    "pkg/cycle/b.py": "from pkg.cycle.c import *\n",
    "pkg/cycle/c.py": "from pkg.cycle.a import *\nfrom pkg.lib import *\n",
    # A re-export chain of twelve modules, pkg.chain.m0 to m11, then pkg.lib's load.
    "pkg/chain/__init__.py": "",
    **{f"pkg/chain/m{i}.py": f"from pkg.chain.m{i + 1} import load\n" for i in range(11)},
    "pkg/chain/m11.py": "from pkg.lib import load\n",
    "pkg/other.py": "def load():\n    pass\n",
    "pkg/hooks.py": "def load():\n    import pkg.heavy.a\nHOOKS = [load]\n",
    "pkg/setups.py": "class A:\n    @classmethod\n    def setup(cls):\n        import pkg.heavy.a\n",
    "pkg/allsub/__init__.py": "__all__ = ['loader']\n",
    "pkg/allsub/loader.py": "import pkg.heavy.a\n",
    "pkg/holder.py": "class C:\n    from pkg import lib\n",
    "pkg/lazy.py": "def __getattr__(name):\n    import pkg.heavy.a\n",
    # Python asks a module that is not a package for `__path__` on any `from` import.
    "pkg/lazymod.py": """\
        A = 1
        def __getattr__(name):
            if name == "A":
                return 1
            else:
                import pkg.heavy.a
                raise AttributeError(name)
        """,
    # A `__getattr__` that binds its parameter again: its tests are not worked out.
    "pkg/lazyrebound/__init__.py": """\
        def __getattr__(name):
            name = "B"
            if name == "B":
                import pkg.heavy.a
            return 1
        """,
    # Statements that leave a name unbound (or unbind it).
    "pkg/lazyunbound/__init__.py": """\
        A: int
        try:
            1 / 0
        except ZeroDivisionError as B:
            pass
        C = [D for D in [1]]
        E = 1
        del E
        def __getattr__(name):
            import pkg.heavy.a
            return 1
        """,
    # A guard that leaves the function for the names it does not load.
    "pkg/lazyguard/__init__.py": """\
        def __getattr__(name):
            if name not in ("A",):
                raise AttributeError(name)
            import pkg.heavy.a
            return 1
        """,
    # A decorator factory: `@register(name)` calls the function it returns.
    "pkg/registry.py": """\
        def register(name):
            from pkg.helpers import load_b
            def deco(f):
                load_b()
                return f
            return deco
        """,
    # A module that loads names when first asked for them (PEP 562), as lazy loading does.
    "pkg/lazynames/__init__.py": """\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from pkg.heavy.b import B
        bound = 1
        def __getattr__(name):
            if name == "A":
                import pkg.heavy.a
                return 1
            elif name in ("B", "C"):
                from pkg.heavy import b
                return 2
            match name:
                case "D" | "E":
                    from pkg.lib import load
                    load()
                    return 3
            raise AttributeError(name)
        """,
    # Names looked up on the module itself (PEP 562), as lazy loading does too.
    "pkg/lazyfn.py": """\
        bound = print
        def _factory(*args):
            return print
        def __getattr__(name):
            if name in ("load", "bound"):  # (`bound` is bound: never asked for)
                import pkg.heavy.a
                return _factory
            if name == "other":
                import pkg.heavy.b
                return _factory
            raise AttributeError(name)
        """,
    # A package whose submodule is imported when first looked up on it.
    "pkg/lazysub/__init__.py": """\
        def __getattr__(name):
            if name == "sub":
                import pkg.heavy.a
                import pkg.lazysub.sub
                return pkg.lazysub.sub
            raise AttributeError(name)
        """,
    "pkg/lazysub/sub.py": "def load():\n    import pkg.heavy.b\n",
    # `__getattr__`s that bind their parameter again, by a `case` capture and by an import:
    # their tests of it are not worked out.
    "pkg/lazyrebinds/__init__.py": """\
        def __getattr__(name):
            match "Other":
                case name:
                    pass
            if name == "A":
                return 1
            import pkg.heavy.a
            return 1
        """,
    "pkg/lazyrebinds/aliased/__init__.py": """\
        def __getattr__(name):
            from pkg.other import load as name
            if name == "A":
                return 1
            import pkg.heavy.a
            return 1
        """,
    # A decorated `__getattr__`, which may be called with another name.
    "pkg/lazydecorated/__init__.py": """\
        def _lower(function):
            return lambda name: function(name.lower())
        @_lower
        def __getattr__(name):
            if name == "A":
                return 1
            import pkg.heavy.a
            return 1
        """,
    # Names bound only on some ways through the module's code: its `__getattr__` is asked
    # for them on the others.
    "pkg/lazycond.py": """\
        import sys
        try:
            from _no_such_module import Tried
        except ImportError:
            pass
        if sys.version_info < (3,):
            Gated = 1
        for Looped in ():
            pass
        def _setup():
            global Declared
            from pkg.other import load as Declared
        try:
            from pkg.other import load as Both
        except ImportError:
            Both = None
        Caught = 1
        try:
            1 / 0
        except ZeroDivisionError as Caught:  # (which Python deletes after the clause)
            pass
        0 and (Walrused := 1)
        Deleted = 1
        def _drop():
            global Deleted
            del Deleted
        _drop()
        def __getattr__(name):
            if name in ("Tried", "Gated", "Looped", "Declared", "Caught", "Walrused", "Deleted"):
                import pkg.heavy.a
                return print
            if name == "Both":  # (bound whichever way the `try` goes)
                import pkg.heavy.b
            raise AttributeError(name)
        """,
}

LOAD = "def load():\n    import pkg.heavy.a\n"
DECORATOR = "def register(f):\n    import pkg.heavy.a\n    return f\n"
# A decorator whose wrapper, which calling what it decorates runs, imports.
WRAPS = "def deco(f):\n    def wrapper():\n        import pkg.heavy.a\n    return wrapper\n"

# Each form: the source module's text; the comment says what Python does.
RUNS = {
    "call by name": LOAD + "load()\n",
    "assignment": LOAD + "x = load()\n",
    "in a try block": LOAD + "try:\n    load()\nexcept ImportError:\n    pass\n",
    "in an if test": LOAD + "if load() is None:\n    pass\n",
    "in a class body": LOAD + "class C:\n    value = load()\n",
    "decorator": DECORATOR + "@register\ndef g():\n    pass\n",
    "decorator with arguments": (
        "def register(name):\n    import pkg.heavy.a\n    return lambda f: f\n"
        "@register('x')\ndef g():\n    pass\n"
    ),
    "class decorator": DECORATOR + "@register\nclass C:\n    pass\n",
    "default argument": LOAD + "def g(x=load()):\n    pass\n",
    "keyword-only default": LOAD + "def g(*, x=load()):\n    pass\n",
    "from m import f": "from pkg.lib import load\nload()\n",
    "import m; m.f()": "import pkg.lib\npkg.lib.load()\n",
    "import m as n; n.f()": "import pkg.lib as n\nn.load()\n",
    "relative from import": "from .lib import load\nload()\n",
    "from package import module": "from pkg import lib\nlib.load()\n",
    "re-exported function": "from pkg.api import load\nload()\n",
    "transitive in one module": LOAD + "def outer():\n    load()\nouter()\n",
    "transitive across modules": "from pkg.lib import load_more\nload_more()\n",
    "import inside the called function's if": (
        "def load(flag=True):\n    if flag:\n        import pkg.heavy.a\nload()\n"
    ),
    "comprehension": LOAD + "values = [load() for _ in range(1)]\n",
    # pkg.sub.impl is loaded by pkg.sub's own import, after the call is read.
    "function of a module its package loads": "import pkg.sub\npkg.sub.impl.load()\n",
    "from m import *": "from pkg.lib import *\nload()\n",
    "re-exported by a star import": "from pkg.star import load\nload()\n",
    "star imports of each other": "from pkg.ring.b import load\nload()\n",
    "a cycle of star imports, entered twice": (
        "from pkg.cycle.a import load\nfrom pkg.cycle.b import load_more\nload()\nload_more()\n"
    ),
    "module re-exported under a name": "from pkg.alias import lib\nlib.load()\n",
    # A name bound more than once runs whichever binding Python reaches: each is followed.
    "a def that a failed import stands in for": (
        "try:\n    from pkg.lib import load\nexcept ImportError:\n"
        "    def load():\n        pass\nload()\n"
    ),
    "the def of the branch that runs": (
        "import sys\nif sys.version_info >= (3,):\n"
        + textwrap.indent(LOAD, "    ")
        + "else:\n    def load():\n        pass\nload()\n"
    ),
    "an import that rebinds a def": "def load():\n    pass\nfrom pkg.lib import load\nload()\n",
    "a def called before it is defined again": LOAD + "load()\ndef load():\n    pass\n",
    "function of the class body, called there": (
        "class C:\n" + textwrap.indent(LOAD, "    ") + "    load()\n"
    ),
    "function of the class body, as a decorator there": (
        "class C:\n" + textwrap.indent(DECORATOR, "    ") + "    @register\n"
        "    def method(self):\n        pass\n"
    ),
    "static method called through its class": (
        "class C:\n    @staticmethod\n" + textwrap.indent(LOAD, "    ") + "C.load()\n"
    ),
    # Python looks a name up in the class as it stands when the call runs, else in the module
    # (a nested class or a comprehension sees only the module's).
    "the module's function, called in a class before the class defines the name": (
        LOAD + "class C:\n    load()\n    def load():\n        pass\n"
    ),
    "the module's function, called in a nested class": (
        LOAD + "class C:\n    def load():\n        pass\n    class D:\n        load()\n"
    ),
    "the module's function, called in a class body's comprehension": (
        LOAD + "class C:\n    def load():\n        pass\n    xs = [load() for _ in 'a']\n"
    ),
    "a name a class body imports, called through the class": (
        "class C:\n    from pkg.lib import load\nC.load()\n"
    ),
    "a module a class body imports, called through the class, imported": (
        "from pkg.holder import C\nC.lib.load()\n"
    ),
    # What a function returns is called by a decorator with arguments, and by `f(x)(y)`.
    "the function a decorator factory returns": (
        "def register(name):\n    def deco(f):\n        import pkg.heavy.a\n        return f\n"
        "    return deco\n@register('x')\ndef g():\n    pass\n"
    ),
    "the function a decorator factory of another module returns, on a class": (
        "from pkg.registry import register\n@register('x')\nclass C:\n    pass\n"
    ),
    "a module's function that a decorator factory returns": (
        "def _deco(f):\n    import pkg.heavy.a\n    return f\n"
        "def register(name):\n    return _deco\n@register('x')\ndef g():\n    pass\n"
    ),
    "the function a call returns, called": (
        "def make():\n    def run():\n        import pkg.heavy.a\n    return run\nmake()()\n"
    ),
    # A `from` import of a name the module does not bind calls its `__getattr__` (PEP 562),
    # which runs the branches of its tests that the name takes.
    "a module __getattr__, for a from import": "from pkg.lazy import anything\n",
    "a module __getattr__, for a name it compares with ==": "from pkg.lazynames import A\n",
    "a module __getattr__, for a name in a tuple": "from pkg.lazynames import C\n",
    "a module __getattr__, for a name typed under TYPE_CHECKING": ("from pkg.lazynames import B\n"),
    "a module __getattr__, for a name of a match case": "from pkg.lazynames import E\n",
    "a module __getattr__ of a module, asked for __path__": "from pkg.lazymod import A\n",
    "a module __getattr__ that binds its parameter again": "from pkg.lazyrebound import A\n",
    "a module __getattr__, for names left unbound": "from pkg.lazyunbound import A, B, D, E\n",
    "a module __getattr__, past a guard": "from pkg.lazyguard import A\n",
    "a module __getattr__, for a name called on the module": (
        "import pkg.lazyfn\npkg.lazyfn.load()\n"
    ),
    "a module __getattr__, for a name called on the module from import binds": (
        "from pkg import lazyfn as lf\nlf.load()\n"
    ),
    "a module __getattr__, for a decorator looked up on the module": (
        "import pkg.lazyfn\n@pkg.lazyfn.load\ndef f():\n    pass\n"
    ),
    "a module __getattr__, for a name whose result is called": (
        "import pkg.lazyfn\npkg.lazyfn.load()()\n"
    ),
    "a module __getattr__, for a submodule a call looks up": (
        "import pkg.lazysub\npkg.lazysub.sub.load()\n"
    ),
    "a module __getattr__, for a submodule a call looks up from import binds": (
        "from pkg import lazysub\nlazysub.sub.load()\n"
    ),
    "a module __getattr__ that binds its parameter by a case capture": (
        "from pkg.lazyrebinds import A\n"
    ),
    "a module __getattr__ that binds its parameter by an import": (
        "from pkg.lazyrebinds.aliased import A\n"
    ),
    "a module __getattr__, for a name an except clause catches as": (
        "from pkg.lazycond import Caught\n"
    ),
    "a module __getattr__, for a name := binds where it does not run": (
        "from pkg.lazycond import Walrused\n"
    ),
    "a module __getattr__, for a name a function deletes as global": (
        "from pkg.lazycond import Deleted\n"
    ),
    "a decorated module __getattr__": "from pkg.lazydecorated import A\n",
    "a module __getattr__, for a submodule a call looks up before importing it": (
        "import pkg.lazysub\npkg.lazysub.sub.load()\nimport pkg.lazysub.sub\n"
    ),
    "a module __getattr__, for a name bound only in a try that failed": (
        "from pkg.lazycond import Tried\n"
    ),
    "a module __getattr__, for a name bound only under an if not taken": (
        "from pkg.lazycond import Gated\n"
    ),
    "a module __getattr__, for a name bound only in a loop, called": (
        "import pkg.lazycond\npkg.lazycond.Looped()\n"
    ),
    "a module __getattr__, for a name an uncalled function binds with global": (
        "from pkg.lazycond import Declared\n"
    ),
    "a module __getattr__, for a name called by a function called": (
        "import pkg.lazyfn\ndef setup():\n    pkg.lazyfn.load()\nsetup()\n"
    ),
    "a module __getattr__, for a name Python normalises (NFKC)": (
        "from pkg.lazynames import \uff21\n"
    ),
    "a module __getattr__, for a from import over several lines": (
        "from pkg.lazynames import (\n    bound,\n    A as a,  # (A)\n)\n"
    ),
    "a module __getattr__, for a from import after another statement": (
        "import os; from pkg.lazynames import C\n"
    ),
    "a module __getattr__, for a from import on an if's line": (
        "if True: from pkg.lazynames import A\n"
    ),
    "a module __getattr__, for a from import in an else on its line": (
        "if False:\n    pass\nelse: from pkg.lazynames import A\n"
    ),
    "a module __getattr__, for a from import in a called function": (
        "def f():\n    from pkg.lazynames import A\nf()\n"
    ),
    "a function a class body imports, called there": (
        "class C:\n    from pkg.lib import load\n    load()\n"
    ),
    "the module's name, beside a nested function's import of the same name": (
        "from pkg.lib import load\ndef run():\n    def inner():\n"
        "        from pkg.other import load\n        load()\n    inner()\n    load()\nrun()\n"
    ),
    # (The other definition's nested function of that name is not the one this one calls.)
    "the module's function, called by one definition of a name bound twice": (
        "def helper():\n    import pkg.heavy.a\nimport sys\nif sys.version_info >= (3,):\n"
        "    def run():\n        helper()\nelse:\n    def run():\n"
        "        def helper():\n            pass\n        helper()\nrun()\n"
    ),
    "through a re-export chain of twelve modules": "from pkg.chain.m0 import load\nload()\n",
    "parameter annotation": LOAD + "def g(x: load()):\n    pass\n",
    "return annotation": LOAD + "def g() -> load():\n    pass\n",
    "nested def the called function calls": (
        "def outer():\n    def inner():\n        import pkg.heavy.a\n    inner()\nouter()\n"
    ),
    # A name a function binds with `global` is the module's.
    "an import that a called function binds with global": (
        "def setup():\n    global load\n    if True:\n        from pkg.lib import load\n"
        "setup()\nload()\n"
    ),
    "a def that a called function binds with global": (
        "def setup():\n    global load\n" + textwrap.indent(LOAD, "    ") + "setup()\nload()\n"
    ),
    "global on the def's line": (
        "def setup(): global load; from pkg.lib import load\nsetup()\nload()\n"
    ),
    "a decorated function called: the wrapper its decorator made": (
        WRAPS + "@deco\ndef g():\n    pass\ng()\n"
    ),
    "a decorated function called: a function its decorator returns by name": (
        LOAD + "def deco(f):\n    return load\n@deco\ndef g():\n    pass\ng()\n"
    ),
    "a decorated function called in a class body": (
        WRAPS + "class C:\n    @deco\n    def g():\n        pass\n    g()\n"
    ),
    "a function decorated by another module's decorator (functools.wraps), called": (
        "from pkg.decorators import logged\n@logged\ndef g():\n    pass\ng()\n"
    ),
    "a decorated function called, in a file read whole (a function declares global)": (
        WRAPS + "def setup():\n    global x\n    x = 1\n@deco\ndef g():\n    pass\ng()\n"
    ),
    "a function called at import time binds with global, another function calls": (
        "def setup():\n    global load\n    from pkg.lib import load\n"
        "def run():\n    load()\nsetup()\nrun()\n"
    ),
}

DOES_NOT_RUN = {
    "a module __getattr__, for a name called in a function never called": (
        "import pkg.lazyfn\ndef later():\n    pkg.lazyfn.load()\n"
    ),
    "a module __getattr__, for a submodule looked up in a function never called": (
        "import pkg.lazysub\ndef later():\n    pkg.lazysub.sub.load()\n"
    ),
    "a module __getattr__, for a name bound in a try and in its except": (
        "from pkg.lazycond import Both\n"
    ),
    "a name the module with a __getattr__ binds, called": "import pkg.lazyfn\npkg.lazyfn.bound()\n",
    "defined, never called": LOAD,
    "a decorated function never called": WRAPS + "@deco\ndef g():\n    pass\n",
    "called only by an uncalled function": LOAD + "def outer():\n    load()\n",
    "lambda body": LOAD + "later = lambda: load()\n",
    "TYPE_CHECKING": LOAD + "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    load()\n",
    "main guard": LOAD + 'if __name__ == "__main__":\n    load()\n',
    "nested def in the called function": (
        "def load():\n    def inner():\n        import pkg.heavy.a\n    return inner\nload()\n"
    ),
    "annotation, with annotations left unevaluated": (
        "from __future__ import annotations\n" + LOAD + "x: load() = 1\n"
        "def g(y: load()) -> load():\n    pass\n"
    ),
    "annotation of a variable of the called function": (
        LOAD + "def outer():\n    x: load() = 1\nouter()\n"
    ),
    # A module `__getattr__` is not called for a name the module binds, and runs only the
    # branches of its tests that the name asked for takes.
    "a module __getattr__, for a name the module binds": (
        "from pkg.lazynames import bound, TYPE_CHECKING\n"
    ),
    "a module __getattr__, for a name a guard refuses": (
        "try:\n    from pkg.lazyguard import B\nexcept ImportError:\n    pass\n"
    ),
    "a module __getattr__, for a name it refuses": (
        "try:\n    from pkg.lazynames import Z\nexcept ImportError:\n    pass\n"
    ),
    "a module __getattr__, for a from import in a function never called": (
        "def f():\n    from pkg.lazynames import A\n"
    ),
    # A function's own name, beside a `global` statement of another name (and one of a
    # nested function's, whose `global` is its own).
    "a function a call returns, not called": (
        "def make():\n    def run():\n        import pkg.heavy.a\n    return run\nx = make()\n"
    ),
    "a decorator factory's other function": (
        "def register(name):\n    def deco(f):\n        return f\n    def other(f):\n"
        "        import pkg.heavy.a\n    return deco\n@register('x')\ndef g():\n    pass\n"
    ),
    "an import of a name a function does not declare global": (
        "def load():\n    pass\ndef setup():\n    global other\n    from pkg.lib import load\n"
        "    other = load\n    def inner():\n        global load\nsetup()\nload()\n"
    ),
}

# Calls the analysis does not resolve, and `if` tests it takes never to hold (docs/eager-rules.md,
# "Not followed"): Python runs them.
NOT_RESOLVED = {
    "method of an object": "from pkg.lib import Loader\nLoader().load()\n",
    "a loop over a registry another module binds": (
        "from pkg.hooks import HOOKS\nfor h in HOOKS:\n    h()\n"
    ),
    "a loop over a literal in the for statement": LOAD + "for h in (load,):\n    h()\n",
    "a comprehension over a registry": LOAD + "HOOKS = (load,)\nx = [h() for h in HOOKS]\n",
    "a method of each element of a registry of imported classes": (
        "from pkg.setups import A\nREG = [A]\nfor c in REG:\n    c.setup()\n"
    ),
    "a module's __getattr__, for an attribute read": "import pkg.lazy\nx = pkg.lazy.anything\n",
    "function passed around": LOAD + "def call(f):\n    f()\ncall(load)\n",
    "a static method inherited by a class made at run time": (
        "class C:\n    @staticmethod\n"
        + textwrap.indent(LOAD, "    ")
        + "D = type('D', (C,), {})\nD.load()\n"
    ),
    # (An import the graph does not have: a star import imports the submodules `__all__`
    # names.)
    "a submodule that __all__ names, by a star import": "from pkg.allsub import *\n",
    "a base class's __init_subclass__": (
        "class Base:\n    def __init_subclass__(cls):\n        import pkg.heavy.a\n"
        "class Sub(Base):\n    pass\n"
    ),
    "a descriptor's __set_name__": (
        "class D:\n    def __set_name__(self, owner, name):\n        import pkg.heavy.a\n"
        "class C:\n    x = D()\n"
    ),
    "a class's __class_getitem__": (
        "class C:\n    def __class_getitem__(cls, item):\n        import pkg.heavy.a\nC[int]\n"
    ),
    "a decorator that is not a dotted name": DECORATOR
    + "ds = [register]\n@ds[0]\ndef g():\n    pass\n",
    "an attribute TYPE_CHECKING of a class of the file's": (
        "class Config:\n    TYPE_CHECKING = True\nif Config.TYPE_CHECKING:\n    import pkg.heavy.a\n"
    ),
    "__name__ assigned before the main guard": (
        "__name__ = '__main__'\nif __name__ == '__main__':\n    import pkg.heavy.a\n"
    ),
    "a class's __init__, when the class is instantiated": (
        "class C:\n    def __init__(self):\n        import pkg.heavy.a\nC()\n"
    ),
    "a property": (
        "class C:\n    @property\n    def p(self):\n        import pkg.heavy.a\nC().p\n"
    ),
    "a metaclass": (
        "class Meta(type):\n    def __new__(mcs, *args):\n        import pkg.heavy.a\n"
        "        return super().__new__(mcs, *args)\nclass C(metaclass=Meta):\n    pass\n"
    ),
    "functools.partial": LOAD + "import functools\nfunctools.partial(load)()\n",
    "the body of an async def, run by asyncio": (
        LOAD + "import asyncio\nasync def main():\n    load()\nasyncio.run(main())\n"
    ),
}


def loaded_by_python(project: Project, module: str) -> set[str]:
    """The modules of `pkg` that importing `module` loads, in a fresh interpreter."""
    code = textwrap.dedent(
        f"""\
        import json, sys
        import {module}
        print(json.dumps(sorted(m for m in sys.modules if m == "pkg" or m.startswith("pkg."))))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(completed.stdout.splitlines()[-1]))


R4 = """\
[importlinter:contract:r4]
name = Loads nothing heavy
type = eager_imports
source_modules =
    pkg.source
follow_modules =
    pkg
forbidden_modules =
    pkg.heavy
"""


def check_against_python(project: Project, source: str) -> set[str]:
    project.write({**LIBRARY, "pkg/source.py": source})
    project.configure(R4)
    loaded = loaded_by_python(project, "pkg.source")
    assert set(explore.load(cache_dir=None).eager_closure("pkg.source")) == loaded
    heavy = {m for m in loaded if m.startswith("pkg.heavy.")}
    violations = imports_of(project.contract("r4")["violations"])
    assert {imported for _, imported in violations} == heavy
    # The independent `ast` walk answers the same.
    assert (
        oracle.eager_violations(project.root, {"pkg.source"}, "pkg", {"pkg.heavy"}, set())[0]
        == violations
    )
    return heavy


# Forms the analysis takes loosely (docs/eager-rules.md): it follows a module `__getattr__` that Python
# does not call there, as the module's submodule was imported before. What it reports is
# more than Python loads, never less.
TAKEN_LOOSELY = {
    "a submodule imported, then called through a package with a __getattr__": (
        "import pkg.lazysub.sub\npkg.lazysub.sub.load()\n"
    ),
    "a from import of a submodule imported before": (
        "import pkg.lazysub.sub\nfrom pkg.lazysub import sub\n"
    ),
}


@pytest.mark.parametrize("source", TAKEN_LOOSELY.values(), ids=TAKEN_LOOSELY.keys())
def test_forms_taken_loosely_report_more_than_python_loads(project: Project, source: str) -> None:
    project.write({**LIBRARY, "pkg/source.py": source})
    project.configure(R4)
    closure = set(explore.load(cache_dir=None).eager_closure("pkg.source"))
    assert loaded_by_python(project, "pkg.source") < closure
    assert "pkg.heavy.a" in closure  # (what `__getattr__("sub")` imports besides `sub`)
    assert oracle.eager_closure(project.root, "pkg.source") == closure


# From Python 3.14 (PEP 649) a def's annotations run only when asked for: not at import time
# (`tests/test_eager_real_interpreters.py` has the forms that ask).
DEFERRED_FROM_314 = {"parameter annotation", "return annotation"}


@pytest.mark.parametrize("form", RUNS.keys())
def test_a_call_at_import_time_runs_the_imports_of_the_function(
    project: Project, form: str
) -> None:
    heavy = check_against_python(project, RUNS[form])
    assert bool(heavy) is not (form in DEFERRED_FROM_314 and sys.version_info >= (3, 14))


@pytest.mark.parametrize("source", DOES_NOT_RUN.values(), ids=DOES_NOT_RUN.keys())
def test_a_function_that_does_not_run_at_import_time_runs_no_import(
    project: Project, source: str
) -> None:
    assert check_against_python(project, source) == set()


@pytest.mark.parametrize("source", NOT_RESOLVED.values(), ids=NOT_RESOLVED.keys())
def test_forms_documented_as_not_followed_are_not_followed(project: Project, source: str) -> None:
    project.write({**LIBRARY, "pkg/source.py": source})
    project.configure(R4)
    assert "pkg.heavy.a" in loaded_by_python(project, "pkg.source")
    assert project.contract("r4")["kept"]


# A registry of functions looped over, none called by its name: the text alone says no call
# of the file's runs one, where Python runs each. (The oracle follows no registry.)
REGISTRY_LOOPS = {
    "a list": LOAD + "def other():\n    pass\nHOOKS = [other, load]\nfor h in HOOKS:\n    h()\n",
    "a dict's values": LOAD + 'REG = {"a": load}\nfor h in REG.values():\n    h()\n',
    "a dict's items": LOAD + 'REG = {"a": load}\nfor key, h in REG.items():\n    h()\n',
    "a list of imported functions": "from pkg.lib import load\nHOOKS = [load]\nfor h in HOOKS:\n    h()\n",
}


@pytest.mark.parametrize("source", REGISTRY_LOOPS.values(), ids=REGISTRY_LOOPS.keys())
def test_a_loop_over_a_registry_of_the_file_s_functions_loads_what_python_loads(
    project: Project, source: str
) -> None:
    project.write({**LIBRARY, "pkg/source.py": source})
    project.configure(R4)
    loaded = loaded_by_python(project, "pkg.source")
    assert "pkg.heavy.a" in loaded
    assert set(explore.load(cache_dir=None).eager_closure("pkg.source")) == loaded
    violations = imports_of(project.contract("r4")["violations"])
    assert {imported for _, imported in violations} == {"pkg.heavy.a"}


CALLED_AT_IMPORT = """\
import os


def _patch():
    try:
        from pkg.heavy import a
    except ImportError:
        pass


_patch()
"""


def test_a_hop_run_by_a_call_names_the_call_in_json_text_and_explore(project: Project) -> None:
    project.write({**LIBRARY, "pkg/source.py": CALLED_AT_IMPORT})
    project.configure(R4)
    (violation,) = project.contract("r4")["violations"]
    why = "inside def _patch, called at import time at l.11"
    assert violation["why"] == [why]
    (hop,) = violation["chain"]
    assert hop == {
        "importer": "pkg.source",
        "imported": "pkg.heavy.a",
        "line_numbers": [6],
        "why": [why],
        "locations": [{"path": "pkg/source.py", "line": 6}],
        "calls": [
            [
                {
                    "module": "pkg.source",
                    "line": 11,
                    "function": "pkg.source:_patch",
                    "location": {"path": "pkg/source.py", "line": 11},
                }
            ]
        ],
    }
    output = project.lint_imports().output
    # The call first, where it stands; then the import, in the function.
    assert (
        "-   pkg.source calls pkg.source:_patch (l.11, at import time)\n    pkg/source.py:11\n"
        f"-   pkg.source -> pkg.heavy.a (l.6, {why})\n    pkg/source.py:6\n"
    ) in output
    chain = explore.load(cache_dir=None).eager_closure("pkg.source")["pkg.heavy.a"]
    last = f"  pkg.source -> pkg.heavy.a: l.6 eager, {why} (pkg/source.py:6)"
    assert repr(chain).splitlines()[-1] == last


def test_a_call_into_another_module_names_where_the_call_stands(project: Project) -> None:
    project.write(
        {**LIBRARY, "pkg/source.py": "import os\nfrom pkg.lib import load_more\nload_more()\n"}
    )
    project.configure(R4)
    (violation,) = project.contract("r4")["violations"]
    assert (violation["importer"], violation["imported"]) == ("pkg.helpers", "pkg.heavy.b")
    assert violation["why"] == [
        "inside def load_b, called by def load_more at l.6 of pkg.lib, "
        "called at import time at l.3 of pkg.source"
    ]
    # The chain leads to the module whose import-time code makes the call: here the source.
    assert [(hop["importer"], hop["imported"]) for hop in violation["chain"]] == [
        ("pkg.helpers", "pkg.heavy.b")
    ]
    assert [call["function"] for call in violation["chain"][-1]["calls"][0]] == [
        "pkg.lib:load_more",
        "pkg.helpers:load_b",
    ]
    # The text reads from the calling module on: each call at its line, then the import.
    assert (
        "-   pkg.source calls pkg.lib:load_more (l.3, at import time)\n"
        "    pkg/source.py:3\n"
        "-   pkg.lib:load_more calls pkg.helpers:load_b (l.6)\n"
        "    pkg/lib.py:6\n"
        "-   pkg.helpers -> pkg.heavy.b (l.2, inside def load_b, called by def load_more at l.6 "
        "of pkg.lib, called at import time at l.3 of pkg.source)\n"
        "    pkg/helpers.py:2\n"
    ) in project.lint_imports().output


@pytest.mark.skipif(
    build() == "compiled",
    reason="mypyc keeps a nested function in its environment, a cycle (issue 34: to restructure)",
)
def test_a_check_leaves_nothing_for_the_cyclic_garbage_collector(project: Project) -> None:
    # The eager-import contract pauses the cyclic garbage collector while it checks: what it
    # makes in a reference cycle outlives the check until a collection, which then walks
    # everything the cycle holds (0.8 s after the benchmark's 20,000-module tree, where a
    # walk's nested function held all the walk had reached, and another the whole index of
    # files read). Here a call runs a re-exported function (followed through the names the
    # imports bind) and one whose imports wait for the module that runs them.
    project.write(
        {
            **LIBRARY,
            "pkg/source.py": "from pkg.api import load\nfrom pkg.lib import load_more\n"
            "load()\nload_more()\n",
        }
    )
    graph = grimp.build_graph("pkg", cache_dir=None)
    contract = EagerImportContract(
        name="R4",
        session_options={"root_packages": ["pkg"]},
        contract_options={
            "source_modules": ["pkg.source"],
            "follow_modules": ["pkg"],
            "forbidden_modules": ["pkg.heavy"],
        },
    )
    gc.collect()
    enabled = gc.isenabled()
    # Paused before the check too, which leaves it as it found it: no collection runs
    # before the one that saves what it finds.
    gc.disable()
    try:
        with using_cache_directory(None):
            check = contract.check(graph, verbose=False)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        ours = [
            repr(found)
            for found in gc.garbage
            if (
                found.__module__
                if isinstance(found, types.FunctionType)
                else type(found).__module__
            ).startswith("importlinter_contracts")
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert ours == []
    assert {(hop["importer"], hop["imported"]) for hop in check.metadata["violations"]} == {
        ("pkg.api.impl", "pkg.heavy.a"),
        ("pkg.helpers", "pkg.heavy.b"),
    }


def test_an_allowlist_entry_excuses_a_call_run_import_and_goes_stale_without_the_call(
    project: Project,
) -> None:
    project.write({**LIBRARY, "pkg/source.py": CALLED_AT_IMPORT})
    project.configure(R4 + "ignore_imports =\n    pkg.source -> pkg.heavy.a  # patched at import\n")
    report = project.contract("r4")
    assert report["kept"]
    assert report["ignored"][0]["why"] == ["inside def _patch, called at import time at l.11"]
    project.write({"pkg/source.py": CALLED_AT_IMPORT.replace("\n_patch()\n", "\n")})
    report = project.contract("r4")
    assert report["unmatched_ignores"] == ["pkg.source -> pkg.heavy.a # patched at import"]


def test_calls_in_a_file_ast_cannot_read_here_are_a_warning(project: Project) -> None:
    # `lazy import` (PEP 810) is newer than this Python: the tokenizer reads its imports, but
    # not its calls.
    project.write({**LIBRARY, "pkg/source.py": "lazy import os\n" + LOAD + "load()\n"})
    project.configure(R4, session="python_version = 3.15\n")
    if sys.version_info >= (3, 15):
        pytest.skip("this Python parses lazy imports")
    warning = (
        "pkg/source.py: calls at import time are not followed in this file, which ast cannot "
        "read here (line 1: invalid syntax): imports that such calls would run are not seen."
    )
    report = project.contract("r4")
    assert report["warnings"] == [warning]
    assert report["kept"]  # what it cannot see, it says
    with pytest.warns(UserWarning) as caught:
        explore.load(cache_dir=None).eager_closure("pkg.source")
    assert [str(w.message) for w in caught] == [warning]
    # The line the warning names is the caller's, also where the query that warns is asked
    # for by another (`why` follows the eager closure).
    assert [w.filename for w in caught] == [__file__]
    with pytest.warns(UserWarning) as caught:
        explore.load(cache_dir=None).why("pkg.source", "pkg")
    assert [(str(w.message), w.filename) for w in caught] == [(warning, __file__)]


def test_a_from_import_ast_cannot_read_here_is_a_warning_not_a_pass(project: Project) -> None:
    # A `from` import of a module that defines a `__getattr__`, on an `else:` line (which does
    # not parse alone), in a file `ast` cannot read here: what it may call is not seen, and
    # the contract says so.
    project.write(
        {
            **LIBRARY,
            "pkg/source.py": "lazy import os\nif False:\n    pass\nelse: from pkg.lazynames import A\n",
        }
    )
    project.configure(R4, session="python_version = 3.15\n")
    if sys.version_info >= (3, 15):
        pytest.skip("this Python parses lazy imports")
    report = project.contract("r4")
    assert report["warnings"] == [
        "pkg/source.py: calls at import time are not followed in this file, which ast cannot "
        "read here (line 1: invalid syntax): imports that such calls would run are not seen."
    ]
    assert report["kept"]


def test_functions_of_external_packages_are_not_followed(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = files_read(monkeypatch)
    project.write(
        {
            **LIBRARY,
            "ext/__init__.py": "def load():\n    import pkg.heavy.a\n",
            "pkg/source.py": "import ext\nfrom ext import load\next.load()\nload()\n",
        }
    )
    project.configure(R4, session="include_external_packages = true\n")
    assert "pkg.heavy.a" in loaded_by_python(project, "pkg.source")
    report = project.contract("r4")
    assert report["kept"] and report["warnings"] == []
    # grimp has ext as one squashed module, without its code: its file is not read either.
    assert (project.root / "ext/__init__.py").read_bytes() not in read


def test_the_closure_of_several_sources_follows_a_call_into_a_module_reached_before(
    project: Project,
) -> None:
    # The runtime contract compares what its probes load with the static closure of all of
    # them: the second source calls a function of a module the first one reached already.
    project.write(
        {
            "pkg/__init__.py": "",
            "pkg/source.py": "import pkg.lib\n",
            "pkg/lib.py": "def load():\n    import pkg.heavy\n",
            "pkg/heavy.py": "",
            "pkg/second.py": "from pkg.lib import load\nload()\n",
        }
    )
    project.configure(R4)
    graph = explore.load(cache_dir=None).graph
    closure = eager_closure(graph, ["pkg.source", "pkg.second"], ["pkg"], ScopeIndex(None, {}))
    loaded = loaded_by_python(project, "pkg.source") | loaded_by_python(project, "pkg.second")
    assert closure == loaded
    assert "pkg.heavy" in closure


@patches_compiled
def test_a_name_is_followed_through_star_imports_once_not_once_per_call(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A package's hub star-imports forty modules, each of which star-imports the hub back and
    # calls five names (in `try` blocks, as none is defined): each call leads through the
    # whole web. Followed per call, each module's file would be asked whether it defines a
    # name forty times; kept per name, once, and once more for its own call of that name,
    # in each of the two analyses (explore's and the contract's).
    modules = {f"pkg/web/w{i}.py": "from pkg.web.hub import *\n" for i in range(40)}
    for path in modules:
        modules[path] += "".join(
            f"try:\n    nope{n}()\nexcept NameError:\n    pass\n" for n in range(5)
        )
    modules["pkg/web/w39.py"] += LOAD
    hub = "".join(f"from pkg.web.w{i} import *\n" for i in range(40))
    project.write(
        {
            **LIBRARY,
            **modules,
            "pkg/web/__init__.py": "",
            "pkg/web/hub.py": hub,
        }
    )
    project.configure(R4)
    asked: list[tuple[str, str]] = []
    defines = NameResolver._defines

    def counting(self: NameResolver, module: str, name: str) -> bool:
        asked.append((module, name))
        return defines(self, module, name)

    monkeypatch.setattr(NameResolver, "_defines", counting)
    assert check_against_python(
        project, "import pkg.web.hub\nfrom pkg.web.hub import load\nload()\n"
    )
    assert max(Counter(asked).values()) == 4


def test_a_module_getattr_is_followed_by_cached_runs_and_an_edit_to_it_is_seen(
    project: Project,
) -> None:
    project.write({**LIBRARY, "pkg/source.py": "from pkg.lazynames import A\n"})
    project.configure(R4)

    def heavy() -> set[str]:
        result = project.check_with_cache("--format", "json")
        (contract,) = json.loads(result.stdout)["contracts"]
        found = {imported for _, imported in imports_of(contract["violations"])}
        assert found == {m for m in loaded_by_python(project, "pkg.source") if "heavy." in m}
        return found

    edits = 0

    def edit(files: dict[str, str]) -> None:
        # Each edit a few seconds after the last: older grimps tell that a file changed by
        # its modification time to the second.
        nonlocal edits
        edits += 1
        project.write(files)
        for path in files:
            os.utime(project.root / path, (time.time() + 5 * edits,) * 2)

    assert heavy() == heavy() == {"pkg.heavy.a"}
    # The module binds the name now: its `__getattr__` is not called.
    lazy = (project.root / "pkg/lazynames/__init__.py").read_text()
    edit({"pkg/lazynames/__init__.py": lazy.replace("bound = 1", "A = bound = 1")})
    assert heavy() == set()
    # The name another branch takes.
    edit({"pkg/source.py": "from pkg.lazynames import B\n"})
    assert heavy() == {"pkg.heavy.b"}
    # A module that comes to define a module `__getattr__`, and no longer the name.
    edit({"pkg/source.py": "from pkg.values import value\n", "pkg/values.py": "value = 1\n"})
    assert heavy() == set()
    edit({"pkg/values.py": "def __getattr__(name):\n    import pkg.heavy.a\n"})
    assert heavy() == {"pkg.heavy.a"}


# `from … import A` calls the module `__getattr__` (l.3); `A.get` looks the name up again.
GETATTR_THEN_USED = "import os\n\nfrom pkg.lazynames import A\n\nA.get('x')\n"
GETATTR_IN_FUNCTION = (
    "import os\n\n\ndef load():\n    from pkg.lazynames import A\n    A.get('x')\n\n\nload()\n"
)


@pytest.mark.parametrize(
    ("source", "why", "calls"),
    [
        (
            GETATTR_THEN_USED,
            "inside def __getattr__('A'), called at import time at l.3 of pkg.source",
            [("pkg.source", 3, "pkg.lazynames:__getattr__('A')")],
        ),
        (
            GETATTR_IN_FUNCTION,
            "inside def __getattr__('A'), called by def load at l.5 of pkg.source, "
            "called at import time at l.9 of pkg.source",
            [
                ("pkg.source", 9, "pkg.source:load"),
                ("pkg.source", 5, "pkg.lazynames:__getattr__('A')"),
            ],
        ),
    ],
    ids=["module level", "in a function"],
)
def test_a_module_getattr_is_cited_at_the_from_import_that_calls_it(
    project: Project, source: str, why: str, calls: list[tuple[str, int, str]]
) -> None:
    project.write({**LIBRARY, "pkg/source.py": source})
    project.configure(R4)
    (violation,) = project.contract("r4")["violations"]
    assert violation["why"] == [why]
    (hop,) = violation["chain"]
    assert [(c["module"], c["line"], c["function"]) for c in hop["calls"][0]] == calls
    last = f"  pkg.lazynames -> pkg.heavy.a: l.7 eager, {why} (pkg/lazynames/__init__.py:7)"
    explorer = explore.load(cache_dir=None)
    assert repr(explorer.eager_closure("pkg.source")["pkg.heavy.a"]).splitlines()[-1] == last
    assert repr(explorer.why("pkg.source", "pkg.heavy.a")).splitlines()[-1] == last
