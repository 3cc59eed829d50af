"""import-linter contract types for codebases with one package per hardware backend."""

# The one version literal: pyproject.toml reads it (tool.hatch.version), so the
# distribution's metadata and `importlinter-contracts --version` cannot disagree.
__version__ = "0.1.0"

from .working_directory import working_directory_off_sys_path

# Before any of the compiled modules is imported: they load together, or as pure Python. (With
# nothing in the working directory standing in for what it imports: `python -m` runs this
# with the working directory first on sys.path.)
with working_directory_off_sys_path():
    from . import compiled
compiled.install()

# Not typing's: importing typing would cost the console script's start what this saves.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from .backend_isolation.contract import BackendIsolationContract
    from .eager.contract import EagerImportContract
    from .runtime.contract import RuntimeIsolationContract

__all__ = [
    "BackendIsolationContract",
    "EagerImportContract",
    "RuntimeIsolationContract",
    "__version__",
]

_CONTRACT_MODULES = {
    "BackendIsolationContract": "backend_isolation.contract",
    "EagerImportContract": "eager.contract",
    "RuntimeIsolationContract": "runtime.contract",
}


def __getattr__(name: str) -> object:
    """The contract types, imported when first asked for (as lint-imports asks for the
    configuration's): the console script imports this package before it handles signals,
    and they take a quarter of a second to import."""
    if name not in _CONTRACT_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    # lint-imports imports this package with the working directory first on sys.path: nothing
    # there may stand in for a module that ours import.
    with working_directory_off_sys_path():
        module = importlib.import_module(f"{__name__}.{_CONTRACT_MODULES[name]}")
    found = getattr(module, name)
    globals()[name] = found
    return found
