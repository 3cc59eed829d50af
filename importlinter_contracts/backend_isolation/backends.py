"""Backends of a container package, and the imports that reach into them from outside."""

import re
from typing import TYPE_CHECKING, NamedTuple

from grimp import ImportGraph
from importlinter import fields

from ..errors import ImportlinterContractsError
from ..modules import has_module, is_within
from ..options import NonEmptyListField
from ..unseen import UnseenFolders

if TYPE_CHECKING:
    from ..eager.walk import EagerImports


class BackendLookupError(ImportlinterContractsError):
    """A child named in the configuration is not in the graph, or no backend is found."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


class Backend(NamedTuple):
    """A child of the container that only its own modules may import."""

    module: str

    @property
    def name(self) -> str:
        return self.module.rpartition(".")[2]

    def contains(self, module: str) -> bool:
        """Return whether `module` is the backend's module or inside it."""
        return is_within(module, self.module)


class BackendImport(NamedTuple):
    """A direct import of a backend's module by a module outside that backend."""

    backend: Backend
    importer: str
    imported: str
    line_numbers: tuple[int, ...]


class Reexport(NamedTuple):
    """A re-export on the way from an import of the container to a backend: `module` binds
    `name` on `line` (`from .cuda import CUDAAccelerator` in the container's `__init__`)."""

    module: str
    line: int
    name: str


class ReexportImport(NamedTuple):
    """An import of a name from the container (`from container import CUDAAccelerator`)
    that the container re-exports from a backend's module, `imported`, by way of
    `reexports`, the first in the container's `__init__`."""

    backend: Backend
    importer: str
    imported: str
    line_number: int
    reexports: tuple[Reexport, ...]


EVERY_CHILD = "*"


def children_field() -> NonEmptyListField:
    """Return the field of the `backends` and `neutral_children` options of the contracts that
    take backends: optional names of children of the container."""
    return NonEmptyListField(subfield=fields.StringField(), required=False)


def marker_field() -> fields.StringField:
    """Return the field of the `backend_marker` option: the module that marks a backend."""
    return fields.StringField(default="platform")


# The text grimp reports of a star import's line: `from m import *`, a comment after it.
_STAR_IMPORT = re.compile(r"\bimport\s+\*\s*(#.*)?$")


def find_backends(
    graph: ImportGraph,
    container: str,
    names: list[str] | None,
    marker: str,
    neutral: list[str] | None,
    unseen: UnseenFolders,
) -> list[Backend]:
    """Return the backends of `container`: the children `names` names (every child for `*`),
    or else every child package with a `marker` module; never a child that `neutral` names.

    The options must already have passed `option_conflicts`; `unseen` explains a module that
    is missing from the graph.

    Raises BackendLookupError, naming the option, when the container is not in the graph,
    `names` or `neutral` names a module that is not a child of it, or no backend is left.
    """
    if not has_module(graph, container):
        raise BackendLookupError(
            "container",
            f"'{container}' is not a module of the graph"
            + unseen.why_absent(graph, container, quote="'"),
        )
    children = {child.rpartition(".")[2] for child in graph.find_children(container)}
    neutral_children = set(neutral or [])
    _require_children(container, "neutral_children", neutral_children, children, unseen)
    if names == [EVERY_CHILD]:
        chosen = children - neutral_children
        if not chosen:
            raise BackendLookupError(
                "backends",
                f"every child of '{container}' is in neutral_children, so '{EVERY_CHILD}' "
                "names no backend.",
            )
    elif names:
        chosen = set(names)
        _require_children(container, "backends", chosen, children, unseen)
    else:
        chosen = {
            name
            for name in children - neutral_children
            if f"{container}.{name}.{marker}" in graph.find_children(f"{container}.{name}")
        }
        if not chosen:
            raise BackendLookupError(
                "backends",
                f"no child package of '{container}'"
                f"{' outside neutral_children' if neutral_children else ''} has a '{marker}' "
                f"module; set backend_marker, or name the backends with backends = ... "
                f"(or backends = {EVERY_CHILD} for every child).",
            )
    return sorted(Backend(f"{container}.{name}") for name in chosen)


def option_conflicts(names: list[str] | None, neutral: list[str] | None) -> dict[str, str]:
    """Return what is wrong with the `backends` and `neutral_children` options on their own, by
    option (empty when nothing is)."""
    errors = {}
    if names and EVERY_CHILD in names and len(names) > 1:
        errors["backends"] = (
            f"'{EVERY_CHILD}' names every child of the container; list no other name beside it "
            "(leave children out with neutral_children)."
        )
    both = sorted(set(names or []) & set(neutral or []))
    if both:
        errors["neutral_children"] = (
            f"{', '.join(repr(name) for name in both)} "
            f"{'is' if len(both) == 1 else 'are'} also listed in backends; a child is either a "
            "backend or neutral."
        )
    return errors


def _require_children(
    container: str, option: str, names: set[str], children: set[str], unseen: UnseenFolders
) -> None:
    missing = sorted(names - children)
    if missing:
        # (A name that is not an identifier, `cu*` say, can be in no folder left out.)
        unseen_children = [f"{container}.{name}" for name in missing if name.isidentifier()]
        raise BackendLookupError(
            option,
            f"{', '.join(repr(name) for name in missing)} "
            f"{'is not a child' if len(missing) == 1 else 'are not children'} of "
            f"'{container}'{unseen.explain(*unseen_children) if unseen_children else ''}; "
            f"its children are: {', '.join(sorted(children))}.",
        )


def find_backend_imports(
    graph: ImportGraph, backends: list[Backend], *, cross_backend_imports: bool
) -> list[BackendImport]:
    """Return every direct import of a backend's module from outside that backend.

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


def find_reexport_imports(
    graph: ImportGraph,
    container: str,
    backends: list[Backend],
    eager_imports: "EagerImports",
    *,
    cross_backend_imports: bool,
) -> tuple[list[ReexportImport], list[tuple[str, int]]]:
    """Return every import of a name from `container` by a module outside a backend that leads,
    through the re-exports of the container's `__init__` (and of the modules it re-exports
    from), to a module of that backend: importing the name runs that module, and the
    importer uses it. Checked as `find_backend_imports` checks direct imports. Also the
    star imports of the container (importer, line), whose names are not known."""

    def backend_of(module: str) -> Backend | None:
        return next((backend for backend in backends if backend.contains(module)), None)

    found = []
    stars = []
    for importer in sorted(graph.find_modules_that_directly_import(container)):
        own = backend_of(importer)
        if importer == container or (own is not None and cross_backend_imports):
            continue
        others = [backend for backend in backends if backend != own]

        def in_another_backend(module: str, others: list[Backend] = others) -> bool:
            return any(backend.contains(module) for backend in others)

        details = graph.get_import_details(importer=importer, imported=container)
        stars += sorted(
            (importer, detail["line_number"])
            for detail in details
            if _STAR_IMPORT.search(detail["line_contents"])
        )
        for line in sorted({detail["line_number"] for detail in details}):
            for imported, way in eager_imports.reexports(importer, line, in_another_backend):
                backend = backend_of(imported)
                assert backend is not None  # (`reexports` stops only at a backend's module)
                found.append(
                    ReexportImport(
                        backend=backend,
                        importer=importer,
                        imported=imported,
                        line_number=line,
                        reexports=tuple(Reexport(*step) for step in way),
                    )
                )
    return found, stars
