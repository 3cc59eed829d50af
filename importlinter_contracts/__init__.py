"""import-linter contract types for codebases with one package per hardware backend."""

from .backend_isolation import BackendIsolationContract
from .eager_imports import EagerImportContract
from .runtime_isolation import RuntimeIsolationContract

__all__ = ["BackendIsolationContract", "EagerImportContract", "RuntimeIsolationContract"]
