"""What a run loaded that the static eager walk from the probe modules does not reach, and
how it came to be loaded: the part of the run the static contracts cannot see."""

from __future__ import annotations

from typing import Any

from grimp import ImportGraph

from ..eager.scope_cache import ScopeIndex
from ..eager.walk import EagerHop, EagerImports, walk
from ..locations import location
from ..modules import has_module, within
from ..report import UnexpectedLoad


def eager_closure(
    graph: ImportGraph, sources: list[str], packages: list[str], scopes: ScopeIndex
) -> set[str]:
    """Return every module of `packages` that importing the sources runs, as the static eager walk
    sees it (parent packages and every eager import, followed through `packages`)."""
    eager_imports = EagerImports(graph, scopes)
    closure: set[str] = set()

    def enter(hop: EagerHop) -> bool:
        # Every walk goes all the way, through what an earlier one reached too: an import
        # that a call runs is taken only once the module holding the function is entered in
        # the same walk.
        return within(hop.imported, packages)

    for source in sources:
        if has_module(graph, source) and source not in closure:
            reached, _ = walk(source, eager_imports, enter, include_parents=True)
            closure.update(reached)
    return closure


def unexpected_loads(
    loaded: list[str], closure: set[str], importers: dict[str, Any]
) -> list[UnexpectedLoad]:
    """Return the loaded modules outside the closure, each with what the import hook saw."""
    found: list[UnexpectedLoad] = []
    for module in loaded:
        if module in closure:
            continue
        seen = importers.get(module)
        if not isinstance(seen, dict):
            found.append(
                {
                    "module": module,
                    "importer": None,
                    "function": None,
                    "location": None,
                    "why": "the import hook did not see it imported: it was put into "
                    "sys.modules directly",
                }
            )
            continue
        importer, function = seen.get("importer"), seen.get("function")
        found.append(
            {
                "module": module,
                "importer": importer,
                "function": function,
                "location": location(importer, seen.get("line")) if importer else None,
                "why": _why(seen, importer, function, closure),
            }
        )
    return found


def _why(
    seen: dict[str, Any], importer: str | None, function: str | None, closure: set[str]
) -> str:
    where = f"{importer}.{function}()" if function else f"module level of {importer}"
    if seen.get("via") == "entry point":
        why = f"loaded as an entry point (a plugin) from {where}"
    elif seen.get("via") == "importlib":
        why = f"through importlib from {where}: a name chosen at run time (a registry, a plugin)"
    elif function and seen.get("phase") == "detector":
        why = f"imported inside {where}, during the detector call"
    elif function:
        why = f"imported inside {where}, a function that ran while the probes were imported"
    elif importer is not None and importer not in closure:
        why = f"imported at module level by {importer}, itself loaded outside the closure"
    else:
        why = f"imported at module level by {importer}, an import the static reading does not see"
    if seen.get("parent_of"):
        why += f"; as the parent package of {seen['parent_of']}"
    return why
