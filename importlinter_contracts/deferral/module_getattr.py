"""The edit that defers a package `__init__`'s re-export on every Python: the `from` import
leaves the module body, and a module `__getattr__` (PEP 562), added at the end of the file
with its `__dir__`, imports the name at its first use from outside (`pkg.Name`, `from pkg
import Name`, and `from pkg import *`, which reads each name of `__all__`), and serves the
submodule the import used to bind as an attribute of the package (`pkg.models`).

Where that cannot be proven safe the import is left, with why: a statement inside a block; an
`import` statement (it binds a package, not a name to serve); a name the file itself uses or
binds again (a module's own code does not go through its `__getattr__`); a name its `__all__`
does not list (`from pkg import *` would no longer bind it); and a file that defines
`__getattr__` or `__dir__` already.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ..eager.lazy import bound_names
from .functions import Moved, module_name, with_names

_SERVED = ("__getattr__", "__dir__")


def served_by_getattr(
    lines: list[str], module: ast.Module, path: str, nodes: list[ast.Import | ast.ImportFrom]
) -> Moved:
    """Return the package `__init__` of `lines` (each with its end; parsed: `module`) with
    the names each import of `nodes` binds served by a module `__getattr__`, where that can
    be proven safe."""
    listed = _all_names(module)
    package = module_name(Path(path))
    refused: dict[int, str] = {}
    served: list[ast.ImportFrom] = []
    for node in nodes:
        why = _why_not(module, node, listed)
        if why:
            refused[node.lineno] = why
        else:
            assert isinstance(node, ast.ImportFrom)
            served.append(node)
    if not served:
        return Moved(None, (), refused)
    ending = lines[0][len(lines[0].rstrip("\r\n")) :] or "\n"
    removed = {index for node in served for index in range(node.lineno - 1, node.end_lineno or 0)}
    kept = [line for index, line in enumerate(lines) if index not in removed]
    if kept and not kept[-1].endswith(("\n", "\r")):
        kept[-1] += ending
    snippet = _snippet(served, package)
    text = "".join(kept) + "".join(f"{line}{ending}" if line else ending for line in snippet)
    made = tuple(node.lineno for node in served)
    if not _reads_back(text, module, served, snippet):
        why = "the served import does not read back as the same syntax tree, moved"
        return Moved(None, (), {**refused, **dict.fromkeys(made, why)})
    return Moved(text, made, refused)


def _why_not(module: ast.Module, node: ast.Import | ast.ImportFrom, listed: set[str]) -> str:
    if node not in module.body:
        return (
            "it is inside a block (`if`, `with`, ...): only a statement of the module body is "
            "served by a module __getattr__"
        )
    if isinstance(node, ast.Import):
        return (
            "an `import` statement in a package's __init__ binds a module, not a name a "
            "module __getattr__ would serve"
        )
    names = bound_names(node)
    for found in ast.walk(module):
        if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) and found.name in _SERVED:
            return (
                f"the file defines {found.name} already (l.{found.lineno}), which fix does "
                "not merge into"
            )
        if isinstance(found, ast.Name) and found.id in _SERVED + tuple(names):
            if found.id in _SERVED:
                return f"the file binds {found.id} already (l.{found.lineno})"
            return (
                f"`{found.id}` is used in the file at l.{found.lineno}, and a module's own "
                "code does not go through its __getattr__"
            )
        if isinstance(found, ast.Import | ast.ImportFrom) and found is not node:
            again = set(bound_names(found)) & set(names)
            if again:
                return f"`{sorted(again)[0]}` is bound again at l.{found.lineno}"
    for name in names:
        if name not in listed:
            return (
                f"`{name}` is not in the file's __all__, so `from package import *` would no "
                "longer bind it"
            )
    return ""


def _all_names(module: ast.Module) -> set[str]:
    """The strings of the file's literal `__all__`s at module level."""
    found: set[str] = set()
    for node in module.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            assert isinstance(node, ast.Assign)
            if isinstance(node.value, ast.List | ast.Tuple):
                found |= {
                    each.value
                    for each in node.value.elts
                    if isinstance(each, ast.Constant) and isinstance(each.value, str)
                }
    return found


def _snippet(served: list[ast.ImportFrom], package: str) -> list[str]:
    """The lines of the module `__getattr__` and `__dir__` that serve the names `served`
    binds, and the submodules of `package` those imports used to bind."""
    lines = [
        "",
        "",
        "def __getattr__(name):",
        '    """Import, at its first use, a name whose import fix deferred (PEP 562)."""',
    ]
    names: list[str] = []
    for node in served:
        for name in bound_names(node):
            statement = ast.unparse(with_names(node, [name]))
            lines += [
                f'    if name == "{name}":',
                f"        {statement}",
                "",
                f'        globals()["{name}"] = {name}',
                f"        return {name}",
            ]
            names.append(name)
    for child in dict.fromkeys(_submodule(node, package) for node in served):
        if child and child not in names:
            lines += [
                f'    if name == "{child}":',
                f"        from . import {child}",
                "",
                f"        return {child}",
            ]
            names.append(child)
    listed = ", ".join(f'"{name}"' for name in names)
    lines += [
        '    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")',
        "",
        "",
        "def __dir__():",
        f"    return sorted({{*globals(), {listed}}})",
    ]
    return lines


def _submodule(node: ast.ImportFrom, package: str) -> str | None:
    """The child of `package` whose import `node` runs (and binds as its attribute), if
    any."""
    if node.level == 1:
        return (node.module or "").partition(".")[0] or None
    if node.level == 0 and node.module and node.module.startswith(f"{package}."):
        return node.module.removeprefix(f"{package}.").partition(".")[0]
    return None


def _reads_back(
    text: str, module: ast.Module, served: list[ast.ImportFrom], snippet: list[str]
) -> bool:
    """Whether the edited `text` parses to the original's syntax tree without the served
    imports, followed by the snippet's."""
    try:
        edited = ast.parse(text.lstrip("\ufeff"))
        added = ast.parse("\n".join(snippet))
    except (SyntaxError, ValueError):
        return False
    body = [node for node in module.body if not any(node is each for each in served)]
    expected = ast.Module(body=[*body, *added.body], type_ignores=[])
    return ast.dump(edited) == ast.dump(expected)
