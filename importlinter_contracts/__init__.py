"""import-linter contract types for codebases with one package per hardware backend."""

from .backend_isolation.contract import BackendIsolationContract
from .eager.contract import EagerImportContract
from .runtime.contract import RuntimeIsolationContract

__all__ = ["BackendIsolationContract", "EagerImportContract", "RuntimeIsolationContract"]
