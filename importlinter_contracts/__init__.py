"""import-linter contract types for codebases with one package per hardware backend."""

from .backend_isolation import BackendIsolationContract

__all__ = ["BackendIsolationContract"]
