"""Backends of a container package, and the imports that reach into them from outside."""

from __future__ import annotations

from dataclasses import dataclass

from grimp import ImportGraph

from ..errors import ImportlinterContractsError
from ..modules import has_module, is_within


class BackendLookupError(ImportlinterContractsError):
    """The container or a backend named in the configuration is not in the graph."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True, order=True)
class Backend:
    """A child of the container that only its own modules may import."""

    module: str

    @property
    def name(self) -> str:
        return self.module.rpartition(".")[2]

    def contains(self, module: str) -> bool:
        return is_within(module, self.module)


@dataclass(frozen=True, order=True)
class BackendImport:
    """A direct import of a backend's module by a module outside that backend."""

    backend: Backend
    importer: str
    imported: str
    line_numbers: tuple[int, ...]


def find_backends(
    graph: ImportGraph, container: str, names: list[str] | None, marker: str
) -> list[Backend]:
    """The named backends, or else every child package of `container` with a `marker` module."""
    if not has_module(graph, container):
        raise BackendLookupError("container", f"'{container}' is not a module of the graph.")
    children = graph.find_children(container)
    if names:
        missing = sorted(name for name in names if f"{container}.{name}" not in children)
        if missing:
            raise BackendLookupError(
                "backends",
                f"{', '.join(repr(name) for name in missing)} "
                f"{'is not a child' if len(missing) == 1 else 'are not children'} of "
                f"'{container}'; its children are: "
                f"{', '.join(sorted(child.rpartition('.')[2] for child in children))}.",
            )
        return sorted(Backend(f"{container}.{name}") for name in set(names))
    backends = sorted(
        Backend(child) for child in children if f"{child}.{marker}" in graph.find_children(child)
    )
    if not backends:
        raise BackendLookupError(
            "backends",
            f"no child package of '{container}' has a '{marker}' module; "
            "set backend_marker, or name the backends with backends = ...",
        )
    return backends


def find_backend_imports(
    graph: ImportGraph, backends: list[Backend], *, cross_backend_imports: bool
) -> list[BackendImport]:
    """Every direct import of a backend's module from outside that backend.

    With `cross_backend_imports`, modules of one backend may import another backend: only
    neutral modules (those in no backend) are checked.
    """
    found = []
    for backend in backends:
        for importer in graph.find_modules_that_directly_import(backend.module, as_package=True):
            if backend.contains(importer):
                continue
            if cross_backend_imports and any(other.contains(importer) for other in backends):
                continue
            for imported in graph.find_modules_directly_imported_by(importer):
                if not backend.contains(imported):
                    continue
                details = graph.get_import_details(importer=importer, imported=imported)
                found.append(
                    BackendImport(
                        backend=backend,
                        importer=importer,
                        imported=imported,
                        line_numbers=tuple(sorted({detail["line_number"] for detail in details})),
                    )
                )
    return sorted(found)
