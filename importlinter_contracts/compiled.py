"""The modules the wheel compiles with mypyc, and the choice at import time between them and
the pure-Python modules that ship beside them.

Python's import takes an extension module over the `.py` file next to it, and an extension
that fails to load is an ImportError: without this, a broken compiled module would stop every
run. The compiled modules call each other's native code directly, so they load together or not
at all: the first of them imported imports all of them; if one fails, every module imported
since is forgotten, and all of them load from their `.py` files, which behave the same.
This module is never compiled (the list below names what is).
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import ExtensionFileLoader, ModuleSpec, PathFinder
from types import ModuleType

TYPE_CHECKING = False  # not typing's, whose import costs the console script's start
if TYPE_CHECKING:
    from collections.abc import Sequence

# The hot modules, compiled in the compiled wheel (pyproject.toml's hook names the same files,
# in the same order): the readers of module files, the walk, and the import-scope cache.
# Ordered so that each one's imports come before it. Not `questions`: it reads its interface's
# methods and their annotations at run time, which a compiled Protocol does not give the same.
# Not `target` and `outcomes`: a check whose walks are all kept uses them and walks nothing,
# and importing one compiled module loads every one.
COMPILED_MODULES = (
    "importlinter_contracts.eager.parsing",
    "importlinter_contracts.eager.conditions",
    "importlinter_contracts.eager.lazy",
    "importlinter_contracts.eager.call_model",
    "importlinter_contracts.eager.call_expressions",
    "importlinter_contracts.eager.import_bindings",
    "importlinter_contracts.eager.calls",
    "importlinter_contracts.eager.call_storage",
    "importlinter_contracts.eager.scopes",
    "importlinter_contracts.eager.outline",
    "importlinter_contracts.eager.module_files",
    "importlinter_contracts.eager.scope_cache",
    "importlinter_contracts.eager.name_resolution",
    "importlinter_contracts.eager.resolver",
    "importlinter_contracts.eager.walk",
)

# What the finder knows: nothing yet (None), that the compiled modules are loading, that they
# loaded (the normal finder finds them), that they are not installed (_PURE), or why they did
# not load. Once pure, every one of them loads from its `.py` file.
_LOADING, _LOADED, _PURE = "loading", "loaded", "pure"
_state: str | Exception | None = None


def build() -> str:
    """Return which build runs: "compiled", "pure Python", or "pure Python" and why the
    compiled modules did not load (it imports them, to know)."""
    import importlib

    importlib.import_module(COMPILED_MODULES[0])
    if isinstance(_state, Exception):
        reason = f"{type(_state).__name__}: {_state}"
        return f"pure Python: the compiled modules did not load ({reason})"
    return "compiled" if _state == _LOADED else "pure Python"


class _CompiledOrPure:
    """The meta path finder that loads the compiled modules together, or their `.py` files."""

    def find_spec(
        self,
        name: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        """Return how to load one of the compiled modules; None for any other module, and
        where the normal finder is to find it."""
        global _state
        if name not in COMPILED_MODULES or _state in (_LOADING, _LOADED):
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.origin is None:
            return spec
        if _state is None and not isinstance(spec.loader, ExtensionFileLoader):
            _state = _PURE  # the pure-Python package (an editable install, say)
        if _state is None:
            _state = _LOADING
            try:
                _state = _load_all() or _LOADED
            finally:
                if _state == _LOADING:  # not an Exception (an interrupt): it goes on up
                    _state = None
            if _state == _LOADED:
                # Loaded above, with all of them: the normal finder would load it again.
                # (_Loaded is a loader by its methods: importlib.abc's base costs 2 ms.)
                return ModuleSpec(name, _Loaded(sys.modules[name]))  # type: ignore[arg-type]
        if not isinstance(spec.loader, ExtensionFileLoader):
            return spec
        from importlib.util import spec_from_file_location

        # The pure-Python module beside the compiled one, which has its name.
        folder = os.path.dirname(spec.origin)
        return spec_from_file_location(name, os.path.join(folder, name.rpartition(".")[2] + ".py"))


def _load_all() -> Exception | None:
    """Return None once every compiled module is imported, or the error that stopped one (an
    ImportError, or what its initialisation raised), having forgotten every module imported
    since the first (and each from its package's attributes)."""
    import importlib

    before = set(sys.modules)
    try:
        for module in COMPILED_MODULES:
            importlib.import_module(module)
    except Exception as error:
        for name in set(sys.modules) - before:
            forgotten = sys.modules.pop(name)
            package, _, attribute = name.rpartition(".")
            if getattr(sys.modules.get(package), attribute, None) is forgotten:
                delattr(sys.modules[package], attribute)
        return error
    return None


class _Loaded:
    """A loader for a module already imported: it gives back that module, as it was."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.spec  # import set it to the spec that gave it back


_FINDER = _CompiledOrPure()


def install() -> None:
    """Put the finder first on the meta path, once."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
