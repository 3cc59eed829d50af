"""import-linter contract types for codebases with one package per hardware backend."""

# The one version literal: pyproject.toml reads it (tool.setuptools.dynamic), so the
# distribution's metadata and `importlinter-contracts --version` cannot disagree.
__version__ = "0.1.0"

from .working_directory import working_directory_off_sys_path

# lint-imports imports this package with the working directory first on sys.path: nothing
# there may stand in for a module that ours import.
with working_directory_off_sys_path():
    from .backend_isolation.contract import BackendIsolationContract
    from .eager.contract import EagerImportContract
    from .runtime.contract import RuntimeIsolationContract

__all__ = [
    "BackendIsolationContract",
    "EagerImportContract",
    "RuntimeIsolationContract",
    "__version__",
]
